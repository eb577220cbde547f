"""OpenSpiel bridge: every env of the suite as a Python OpenSpiel game (``pip install muggins_env[openspiel]``).

Importing this module registers ``python_<env_id>`` for every env (``python_cribbage_v0``,
``python_muggins_dominoes_v0``, ...), the env's options as game parameters::

    import pyspiel
    import muggins_env.openspiel  # noqa: F401  (registers the games)
    game = pyspiel.load_game("python_muggins_dominoes_v0",
                             {"set_max": 2, "hand_size": 2, "episode": "hand", "muggins": "off"})

One rules kernel underneath: an OpenSpiel state wraps the kernel ``State`` of the env and calls
its ``apply``; the player actions are the env's action ids. Chance is explicit: the bridge gives
the kernel a scripted generator in place of ``state.rng``, so every draw the kernel's own dealing
code makes becomes a chance node with its probability:

* ``rng.integers(n)`` (a dealer chosen at random): one chance node, ``n`` outcomes of ``1/n``;
* ``rng.permutation(N)`` (a shuffled pack): ``N`` chance nodes, the card at each place of the
  pack in turn, uniform over the cards not placed yet (cards: every deal of every hand);
* dominoes (compact, so that small sets can be solved exactly): a deal is the hands, one tile per
  chance node, each hand in increasing tile order with the probabilities that make it a uniform
  set (the kernel keeps a hand as a set: its order is not information), and the boneyard face
  down and unordered; a tile drawn from the boneyard is a chance node at the moment the kernel
  draws it, uniform over the tiles nobody has seen. This is the kernel's distribution exactly
  (the boneyard of a uniform permutation is a uniformly ordered rest).

When a player's action makes the kernel deal or draw, the chance nodes come right after that
action, and the action is applied once they are known (the kernel's ``apply`` is re-run on a
clone with the scripted outcomes: no second copy of the rules). Rewards are the kernel's.

Observer: the observation tensor is the env's observation vector for the player, the
observation string its non-zero entries (``index`` or ``index=value``); the information state
string is the player's whole observation history, one entry per player move (the observation
before that move, the player's own action added), so it has perfect recall; the information
state tensor is the observation followed by how often the player took each action (a fixed-size
summary, not perfect recall: tabular algorithms use the string). ``resample_from_infostate``
is the kernel's ``resample_hidden``.

Agents both ways (``muggins_env.agents.openspiel``, a floor above): the suite's agents as
OpenSpiel bots (``SuiteBot``) and OpenSpiel's bots as agent specs (``openspiel:ismcts:N``).
"""

from __future__ import annotations

import copy
import hashlib
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

try:
    import pyspiel
except ImportError as e:  # pragma: no cover - exercised only without the extra
    raise ImportError("muggins_env.openspiel needs OpenSpiel: pip install 'muggins_env[openspiel]' "
                      "(open_spiel==2.0.2)") from e

from . import ENV_NAMES, game_class
from .kernel.cards import format_card
from .kernel.tiles import format_tile

__all__ = ["GAME_NAMES", "RESEARCH_CONFIGS", "EfgExport", "MugginsOpenSpielGame", "OpenSpielState", "export_efg",
           "kernel_state", "load", "state_from_kernel"]

#: the OpenSpiel name of every env
GAME_NAMES = {env_id: f"python_{env_id}" for env_id in ENV_NAMES}
_DOMINOES = "muggins_dominoes_v0"

#: research-size configurations: natural options of Muggins dominoes (a smaller set, fewer tiles
#: dealt, tiles that may never be drawn, one hand) small enough for exact best responses and CFR
#: (name -> (env id, options)). Information states (both players) / histories of the bridged tree:
#:
#: ============== ===================================================== ============ =========
#: d2_h2_off      double-2, 2 tiles each (2 in the boneyard), scores       350          1,098
#:                counted for the players (``muggins="off"``)
#: d2_h3_off      double-2, 3 tiles each (no boneyard), muggins off        346          685
#: d3_h3_r4_off   double-3, 3 tiles each, 4 tiles never drawn, off         16,668       96,103
#: d3_h2_r4_off   double-3, 2 tiles each, 4 tiles never drawn, off         22,064       112,336
#: d2_h2_per5     double-2, 2 tiles each, the muggins rule on (announce,   54,420       197,154
#:                accept or call "Muggins!"), a point per five
#: ============== ===================================================== ============ =========
#:
#: Every one is a single hand (``episode="hand"``: the higher score after the hand wins +1).
#: Larger neighbours are out of reach for a Python game: double-3 with 2 tiles each and the
#: whole boneyard drawable has over 600,000 histories, and the default ``fives`` scoring with
#: the muggins rule on double-2 over 1.5 million (neither traversal finished in 4-6 minutes).
#: The card games have no such option: every one deals from the full 52-card pack (cribbage's
#: smallest deal is 6 + 6 of 52 cards and a starter, about 10^16 deals), so none is here.
RESEARCH_CONFIGS: dict[str, tuple[str, dict[str, Any]]] = {
    "d2_h2_off": (_DOMINOES, {"set_max": 2, "hand_size": 2, "episode": "hand", "muggins": "off"}),
    "d2_h3_off": (_DOMINOES, {"set_max": 2, "hand_size": 3, "episode": "hand", "muggins": "off"}),
    "d3_h3_r4_off": (_DOMINOES, {"set_max": 3, "hand_size": 3, "boneyard_reserve": 4, "episode": "hand",
                                    "muggins": "off"}),
    "d3_h2_r4_off": (_DOMINOES, {"set_max": 3, "hand_size": 2, "boneyard_reserve": 4, "episode": "hand",
                                    "muggins": "off"}),
    "d2_h2_per5": (_DOMINOES, {"set_max": 2, "hand_size": 2, "episode": "hand", "scoring": "per_five"}),
}

#: game parameter standing for "the env's default" where that default depends on other options
_DEFAULT_INT = -1
_DEFAULT_STR = "default"


# -- chance: a scripted generator ----------------------------------------------------------------------
class _NeedChance(Exception):
    """The kernel asked the generator for a value the script does not hold yet."""

    def __init__(self, request: tuple) -> None:
        super().__init__(request)
        self.request = request


class _NeedDraw(Exception):
    """The kernel looked at a face-down boneyard tile that chance has not drawn yet."""


class _Hidden:
    """A boneyard tile not drawn yet (dominoes): using it as an index asks chance for it."""

    __slots__ = ()

    def __index__(self) -> int:
        raise _NeedDraw

    def __repr__(self) -> str:
        return "?"

    def __reduce__(self) -> str:
        return "HIDDEN"  # the one sentinel, pickled by name


HIDDEN = _Hidden()


class _Perm(list):
    def tolist(self) -> list:
        return list(self)


class _ScriptedRng:
    """Stands in for ``state.rng``: returns the script's values in order, and asks for the next
    one (``_NeedChance``) when the script runs out. Only the calls the kernels make."""

    bit_generator = np.random.PCG64(0)  # clones copy a generator state; the bridge never uses it

    def __init__(self, script: list, compact_tiles: tuple[int, int, int] | None = None) -> None:
        self.script = script
        self.i = 0
        self.compact = compact_tiles  # dominoes: (num_tiles, players, hand size)

    def _next(self, request: tuple) -> Any:
        if self.i < len(self.script):
            kind, value = self.script[self.i]
            if kind != request:
                raise RuntimeError(f"the kernel's chance calls changed on a replay: {request} after {kind}")
            self.i += 1
            return value
        raise _NeedChance(request)

    def integers(self, low, high=None, size=None, **kw):
        if size is not None or kw:
            raise NotImplementedError("the OpenSpiel bridge supports rng.integers(n) only")
        lo, hi = (0, low) if high is None else (low, high)
        return lo + self._next(("integers", int(hi - lo)))

    def permutation(self, x):
        if not isinstance(x, (int, np.integer)):
            raise NotImplementedError("the OpenSpiel bridge supports rng.permutation(n) only")
        n = int(x)
        if self.compact is not None and self.compact[0] == n:
            dealt = self._next(("hands", n))
            return _Perm(list(dealt) + [HIDDEN] * (n - len(dealt)))
        return _Perm(self._next(("permutation", n)))

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        raise NotImplementedError(f"the OpenSpiel bridge's generator has no {name!r}: only integers(n) and "
                                  "permutation(n) are chance the bridge can make explicit")


def _new_kernel(kgame, rng: _ScriptedRng):
    """``kgame.new_initial_state()`` with ``np.random.default_rng`` answering ``rng``."""
    real = np.random.default_rng
    np.random.default_rng = lambda *a, **k: rng
    try:
        return kgame.new_initial_state(seed=0)
    finally:
        np.random.default_rng = real


# -- parameters ------------------------------------------------------------------------------------------
def _param_spec(env_id: str) -> dict[str, Any]:
    """The env's options as OpenSpiel parameters: the default where it is fixed, else -1 / "default"."""
    spec = {}
    for name, opt in game_class(env_id).OPTIONS.items():
        d = opt.default
        if callable(d):
            fixed = game_class(env_id)().options[name]
            spec[name] = _DEFAULT_STR if isinstance(fixed, str) or name == "win_bonus" else _DEFAULT_INT
        else:
            spec[name] = d
    return spec


def _options(env_id: str, params: Mapping[str, Any]) -> dict[str, Any]:
    opts = {}
    declared = game_class(env_id).OPTIONS
    for name, value in params.items():
        if name not in declared:
            raise ValueError(f"unknown parameter {name!r} for {GAME_NAMES[env_id]}; known: {', '.join(declared)}")
        if value == _DEFAULT_STR and isinstance(value, str) or (value == _DEFAULT_INT and callable(declared[name].default)
                                                                  and not isinstance(value, (bool, str))):
            continue  # the env's own default
        if name == "win_bonus" and isinstance(value, str) and value.strip().isdigit():
            value = int(value)
        opts[name] = value
    return opts


# -- the game ---------------------------------------------------------------------------------------------
def _game_type(env_id: str) -> pyspiel.GameType:
    facts = game_class(env_id).FACTS
    return pyspiel.GameType(
        short_name=GAME_NAMES[env_id],
        long_name=f"{facts.long_name} (muggins_env bridge)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM if facts.zero_sum else pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.REWARDS,
        max_num_players=facts.max_players,
        min_num_players=facts.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_param_spec(env_id),
    )


class MugginsOpenSpielGame(pyspiel.Game):
    """``python_<env_id>``: the env's kernel game with its options as parameters."""

    env_id: str = ""

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        self.options = _options(self.env_id, params or {})
        self.kernel_game = kg = game_class(self.env_id)(**self.options)
        self.compact = self.env_id == _DOMINOES
        if self.compact:
            self.items = kg.num_tiles
            self.item_name = format_tile
        else:
            self.items = 52
            self.item_name = format_card
        facts = kg.FACTS
        moves = kg.max_game_length or 100_000
        # every deal needs at least one move; a deal is at most items + 1 chance nodes
        length = min(moves * (self.items + 2) + self.items + 2, 2**31 - 1)
        lo, hi = facts.min_utility, facts.max_utility
        if not (math.isfinite(lo) and math.isfinite(hi)):
            lo, hi = -1e6, 1e6
        if getattr(kg, "reward_mode", "win") == "points" or kg.options.get("reward") == "points":
            lo, hi = lo - 2.0, hi + 2.0  # the shaping adds at most one target's worth either way
        extra = {"utility_sum": 0.0} if facts.zero_sum else {}
        info = pyspiel.GameInfo(
            num_distinct_actions=kg.num_actions,
            max_chance_outcomes=max(self.items, kg.num_players),
            num_players=kg.num_players,
            min_utility=float(lo), max_utility=float(hi),
            max_game_length=length, **extra)
        super().__init__(_game_type(self.env_id), info, params or {})

    def new_initial_state(self) -> OpenSpielState:
        return OpenSpielState(self)

    def __reduce__(self):
        # pickled by name and parameters (pyspiel's own pickling would skip this __init__)
        return pyspiel.load_game, (self.get_type().short_name, self.get_parameters())

    def make_py_observer(self, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"observer parameters are not supported; got {params!r}")
        perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return _Observer(self, perfect_recall)


def _obs_key(obs: np.ndarray) -> str:
    """The observation as text: its non-zero entries, ``index`` (a 1) or ``index=value``."""
    nz = np.flatnonzero(obs)
    return ",".join(str(i) if obs[i] == 1.0 else f"{i}={float(obs[i]):.6g}" for i in nz.tolist())


def _obs_digest(obs: np.ndarray) -> str:
    """A short digest of an observation (the entries of an information state string: the same
    observation gives the same digest in every process)."""
    return hashlib.blake2b(obs.tobytes(), digest_size=8).hexdigest()


class _Core:
    """An OpenSpiel state's data. OpenSpiel clones a Python state by deep-copying its
    ``__dict__``: this copies the kernel state with its own ``clone`` and shares the games."""

    __slots__ = (
        "counts",
        "draw",
        "g",
        "kernel",
        "kg",
        "partial",
        "pending",
        "request",
        "rewards",
        "script",
        "trace",
    )

    def __init__(self, game: MugginsOpenSpielGame) -> None:
        self.g = game
        self.kg = game.kernel_game

    def __reduce__(self):
        fields = {k: getattr(self, k) for k in self.__slots__[2:]}
        return _core_from, (self.g.get_type().short_name, self.g.get_parameters(), fields)

    def __deepcopy__(self, memo) -> _Core:
        c = _Core(self.g)
        c.kernel = self.kernel.clone() if self.kernel is not None else None
        c.pending = self.pending
        c.script = list(self.script)
        c.request = self.request
        c.partial = list(self.partial)
        c.draw = self.draw
        c.trace = [list(t) for t in self.trace]
        c.counts = [x.copy() for x in self.counts]
        c.rewards = self.rewards
        return c


def _core_from(name: str, params: dict, fields: dict) -> _Core:
    """Unpickle a ``_Core``: the game loaded again by name and parameters."""
    c = _Core(pyspiel.load_game(name, params))
    for k, v in fields.items():
        setattr(c, k, v)
    return c


class OpenSpielState(pyspiel.State):
    """An OpenSpiel state over one kernel state (``kernel_state(state)``)."""

    def __init__(self, game: MugginsOpenSpielGame, _core: _Core | None = None) -> None:
        super().__init__(game)
        if _core is not None:
            self._c = _core
            return
        self._c = c = _Core(game)
        n = c.kg.num_players
        c.kernel = None  # the kernel state once dealt
        c.pending = None  # the player action waiting for chance (None: the first deal)
        c.script = []  # chance values the pending step asks for, completed ones
        c.request = None  # the chance request being filled
        c.partial = []  # its outcomes so far
        c.draw = False  # the request is a boneyard draw (dominoes)
        c.trace = [[] for _ in range(n)]  # per player: the observation (and own action) of every move
        c.counts = [np.zeros(c.kg.num_actions, np.float32) for _ in range(n)]
        c.rewards = np.zeros(n)
        self._advance()

    # -- chance -------------------------------------------------------------------------------------------
    def _rng(self) -> _ScriptedRng:
        kg = self._c.kg
        compact = (kg.num_tiles, kg.num_players, kg.hand_size) if self._c.g.compact else None
        return _ScriptedRng(self._c.script, compact)

    def _advance(self) -> None:
        """Run the pending step (the first deal, or the pending action) with the script; on
        success adopt the result, else set up the chance request it stopped at."""
        try:
            if self._c.pending is None and self._c.kernel is None:
                k = _new_kernel(self._c.kg, self._rng())
                self._c.rewards = np.zeros(self._c.kg.num_players)
            else:
                k = self._c.kernel.clone()
                k.rng = self._rng()
                k.apply(self._c.pending)
                self._c.rewards = np.array(k.rewards(), dtype=float)
        except _NeedChance as e:
            self._c.request, self._c.partial, self._c.draw = e.request, [], False
            return
        except _NeedDraw:
            if any(kind[0] in ("hands", "permutation") for kind, _ in self._c.script):
                raise RuntimeError("a boneyard draw after a new deal in one move: not supported by the bridge")
            self._c.request, self._c.partial, self._c.draw = ("draw", 1), [], True
            return
        self._c.kernel, self._c.pending, self._c.script, self._c.request = k, None, [], None

    def _undrawn(self) -> list[int]:
        """Dominoes: the tiles behind the face-down boneyard (nobody has seen them)."""
        k = self._c.kernel
        seen = {t for h in k.hands for t in h}
        seen.update(t for _, t, _ in k.plays)
        seen.update(t for t in k.boneyard if t is not HIDDEN)
        return [t for t in range(self._c.kg.num_tiles) if t not in seen]

    def _chance_outcomes(self) -> list[tuple[int, float]]:
        kind, n = self._c.request
        if self._c.draw:
            pool = self._undrawn()
            return [(t, 1.0 / len(pool)) for t in pool]
        if kind == "integers":
            return [(v, 1.0 / n) for v in range(n)]
        placed = set(self._c.partial)
        if kind == "permutation":
            pool = [x for x in range(n) if x not in placed]
            return [(x, 1.0 / len(pool)) for x in pool]
        # "hands": the hands in seat order, each an increasing run of hand_size tiles
        h = self._c.kg.hand_size
        need = h - len(self._c.partial) % h  # tiles still to come in this hand
        low = self._c.partial[-1] if len(self._c.partial) % h else -1
        pool = [x for x in range(n) if x not in placed]
        above = [x for x in pool if x > low]
        m = len(above)
        total = math.comb(m, need)
        out = []
        for j, x in enumerate(above):  # x the smallest of the hand's rest: the others from above[j+1:]
            w = math.comb(m - j - 1, need - 1)
            if w:
                out.append((x, w / total))
        return out

    def chance_outcomes(self) -> list[tuple[int, float]]:
        assert self._c.request is not None, "not a chance node"
        return self._chance_outcomes()

    def chance_request(self) -> tuple | None:
        """What the chance node decides: ``("integers", n)``, ``("permutation", n)`` (the card at
        place ``len(partial)``), ``("hands", num_tiles)`` (dominoes: the next tile of the hand of
        seat ``len(partial) // hand_size``), ``("draw", 1)`` (the next boneyard tile); with the
        outcomes given so far. None at a decision or terminal node."""
        if self._c.request is None:
            return None
        return self._c.request, list(self._c.partial)

    def _apply_chance(self, outcome: int) -> None:
        if self._c.draw:
            by = self._c.kernel.boneyard = list(self._c.kernel.boneyard)
            top = max(i for i, t in enumerate(by) if t is HIDDEN)
            by[top] = outcome
            self._advance()
            return
        self._c.partial.append(outcome)
        kind, n = self._c.request
        size = {"integers": 1, "permutation": n}.get(kind)
        if size is None:  # hands
            size = self._c.kg.num_players * self._c.kg.hand_size
        if len(self._c.partial) < size:
            return
        value = self._c.partial[0] if kind == "integers" else list(self._c.partial)
        self._c.script.append((self._c.request, value))
        self._advance()

    # -- the OpenSpiel API ------------------------------------------------------------------------------
    def current_player(self) -> int:
        if self._c.request is not None:
            return pyspiel.PlayerId.CHANCE
        if self._c.kernel.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        return self._c.kernel.current_player()

    def _legal_actions(self, player: int) -> list[int]:
        return self._c.kernel.legal_actions()

    def _apply_action(self, action: int) -> None:
        if self._c.request is not None:
            self._apply_chance(int(action))
            return
        k = self._c.kernel
        p = k.current_player()
        action = int(action)
        k.check_legal(action)
        for q in range(self._c.kg.num_players):
            key = _obs_digest(k.observation(q))
            self._c.trace[q].append(f"{key} a{action}" if q == p else key)
        self._c.counts[p][action] += 1
        self._c.pending = action
        self._advance()
        if self._c.request is not None:
            self._c.rewards = np.zeros(self._c.kg.num_players)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            kind = self._c.request[0] if self._c.request else ""
            if kind == "integers":
                return f"chance {action}"
            if kind == "draw":
                return f"draw {self._c.g.item_name(action)}"
            return f"deal {self._c.g.item_name(action)}"
        if self._c.kernel is not None and not self._c.kernel.is_terminal():
            return self._c.kernel.action_to_string(action)
        return self._c.kg.action_name(action)

    def is_terminal(self) -> bool:
        return self._c.request is None and self._c.kernel.is_terminal()

    def returns(self) -> list[float]:
        if self._c.kernel is None:
            return [0.0] * self._c.kg.num_players
        return [float(x) for x in self._c.kernel.returns()]

    def rewards(self) -> list[float]:
        return [float(x) for x in self._c.rewards]

    def __str__(self) -> str:
        if self._c.kernel is None:
            return f"dealing ({len(self._c.partial)} outcomes so far)"
        k = self._materialized()
        text = k.render()
        if self._c.request is not None:
            text += f"\nchance: {self._c.request[0]}, {len(self._c.partial)} outcomes so far"
        return text

    # -- views ------------------------------------------------------------------------------------------
    def _materialized(self):
        """The kernel state with any face-down undrawn boneyard tiles filled in (sorted): for
        the suite's agents and renders, which never see the boneyard's order."""
        k = self._c.kernel
        if not self._c.g.compact or not any(t is HIDDEN for t in k.boneyard):
            return k
        c = k.clone()
        pool = iter(self._undrawn())
        c.boneyard = [next(pool) if t is HIDDEN else t for t in k.boneyard]
        return c

    def resample_from_infostate(self, player_id: int, probability_sampler) -> OpenSpielState:
        """A state with everything ``player_id`` cannot see re-dealt (the kernel's
        ``resample_hidden``), the same information state for that player. Only that player's
        information state is kept: the others' traces are this state's."""
        if self._c.request is not None:
            raise ValueError("resample_from_infostate at a chance node: call it at a decision node")
        seed = int(probability_sampler() * 2**62)
        k = self._materialized().resample_hidden(player_id, np.random.default_rng(seed))
        if self._c.g.compact:
            k.boneyard = [HIDDEN] * len(k.boneyard)
        core = copy.deepcopy(self._c)
        core.kernel = k
        return OpenSpielState(self._c.g, core)


def kernel_state(state: OpenSpielState):
    """The kernel ``State`` under an OpenSpiel state (None during the first deal); dominoes'
    undrawn boneyard tiles filled in, so the suite's agents can use it."""
    if state._c.kernel is None:
        return None
    return state._materialized()


class _Observer:
    """The env's observation as OpenSpiel observation / information-state tensors and strings."""

    def __init__(self, game: MugginsOpenSpielGame, perfect_recall: bool) -> None:
        kg = game.kernel_game
        self.perfect_recall = perfect_recall
        size = kg.observation_size + (kg.num_actions if perfect_recall else 0)
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor[:kg.observation_size]}
        if perfect_recall:
            self.dict["own_actions"] = self.tensor[kg.observation_size:]
        self._size = kg.observation_size

    def set_from(self, state: OpenSpielState, player: int) -> None:
        if state._c.kernel is None:
            self.tensor.fill(0)
            return
        self.tensor[:self._size] = state._c.kernel.observation(player)
        if self.perfect_recall:
            self.tensor[self._size:] = state._c.counts[player]

    def string_from(self, state: OpenSpielState, player: int) -> str:
        if state._c.kernel is None:
            return f"p{player} dealing"
        obs = state._c.kernel.observation(player)
        if not self.perfect_recall:
            return _obs_key(obs)
        return f"p{player}:" + "|".join(state._c.trace[player] + [_obs_digest(obs)])


# -- agents both ways ----------------------------------------------------------------------------------
def state_from_kernel(game: MugginsOpenSpielGame, kernel) -> OpenSpielState:
    """An OpenSpiel state over a kernel state of ``game``'s configuration (a copy of it), at a
    decision node: e.g. a determinised state from ``resample_hidden``. Its move history starts
    there (information state strings hold only what follows)."""
    if not isinstance(kernel, type(game.kernel_game.new_initial_state(seed=0))):
        raise ValueError(f"kernel state {type(kernel).__name__} is not a state of {game.get_type().short_name}")
    state = OpenSpielState(game)
    core = copy.deepcopy(state._c)
    core.kernel = kernel.clone()
    if game.compact:
        core.kernel.boneyard = [HIDDEN] * len(core.kernel.boneyard)
    core.pending, core.script, core.request, core.partial, core.draw = None, [], None, [], False
    core.trace = [[] for _ in range(game.num_players())]
    return OpenSpielState(game, core)


# -- a tabular copy for exact solving ---------------------------------------------------------------
class EfgExport:
    """The bridged game's whole tree in Gambit's EFG format (``text``), for OpenSpiel's C++
    ``load_efg_game``: the same tree, at C++ speed for CFR and exact best responses (a Python game
    pays Python for every node). ``infosets[p]`` lists player ``p``'s information states in the
    order of their EFG numbers (1, 2, ...), each as ``(information_state_string, legal_actions,
    a state in it)``; EFG actions are labelled by the env's action ids."""

    def __init__(self, text: str, infosets: list[list[tuple[str, list[int], Any]]], histories: int) -> None:
        self.text = text
        self.infosets = infosets
        self.histories = histories

    def game(self) -> pyspiel.Game:
        return pyspiel.load_efg_game(self.text)


def export_efg(game: MugginsOpenSpielGame, keep_states: bool = True) -> EfgExport:
    """Walk the whole tree of ``game`` (a research-size configuration: every deal, every move)
    into an ``EfgExport``. Chance probabilities are written exactly as fractions."""
    n = game.num_players()
    numbers: list[dict[str, int]] = [{} for _ in range(n)]
    infosets: list[list] = [[] for _ in range(n)]
    lines: list[str] = [f'EFG 2 R "{game.get_type().short_name}" {{ ' + " ".join(f'"P{p}"' for p in range(n)) + " }", '""']
    counters = {"chance": 0, "outcome": 0, "histories": 0}

    def walk(state) -> None:
        counters["histories"] += 1
        if state.is_terminal():
            counters["outcome"] += 1
            pay = " ".join(repr(float(x)) for x in state.returns())
            lines.append(f't "" {counters["outcome"]} "" {{ {pay} }}')
            return
        if state.is_chance_node():
            counters["chance"] += 1
            outcomes = state.chance_outcomes()
            body = " ".join(f'"{a}" {_fraction(p)}' for a, p in outcomes)
            lines.append(f'c "" {counters["chance"]} "" {{ {body} }} 0')
            for a, _ in outcomes:
                walk(state.child(a))
            return
        p = state.current_player()
        key = state.information_state_string()
        legal = state.legal_actions()
        num = numbers[p].get(key)
        if num is None:
            num = numbers[p][key] = len(numbers[p]) + 1
            infosets[p].append((key, legal, state.clone() if keep_states else None))
        body = " ".join(f'"{a}"' for a in legal)
        lines.append(f'p "" {p + 1} {num} "" {{ {body} }} 0')
        for a in legal:
            walk(state.child(a))

    walk(game.new_initial_state())
    return EfgExport("\n".join(lines) + "\n", infosets, counters["histories"])


def _fraction(p: float) -> str:
    from fractions import Fraction

    f = Fraction(p).limit_denominator(10**7)
    return f"{f.numerator}/{f.denominator}" if f.denominator != 1 else str(f.numerator)


def load(env_id: str, **options: Any) -> pyspiel.Game:
    """``pyspiel.load_game(f"python_{env_id}", options)``, the env id checked."""
    if env_id not in GAME_NAMES:
        raise ValueError(f"unknown env {env_id!r}; known envs: {', '.join(ENV_NAMES)}")
    return pyspiel.load_game(GAME_NAMES[env_id], options)


for _env_id in ENV_NAMES:  # one module-level class per env (pickle finds a game's class by name)
    globals()[f"OpenSpiel_{_env_id}"] = type(f"OpenSpiel_{_env_id}", (MugginsOpenSpielGame,),
                                             {"env_id": _env_id, "__module__": __name__})


def _register() -> None:
    registered = set(pyspiel.registered_names())
    for env_id in ENV_NAMES:
        if GAME_NAMES[env_id] in registered:
            continue
        pyspiel.register_game(_game_type(env_id), globals()[f"OpenSpiel_{env_id}"])


_register()
