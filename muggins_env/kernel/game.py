"""The Game / State protocol every game of the suite implements (pgx- and OpenSpiel-style).

A ``Game`` holds the validated options and the facts of one configuration (players,
actions, observation size); ``Game.new_initial_state(seed, deal)`` starts an episode.
A ``State`` is a pure rules state machine: it knows nothing of PettingZoo or RL.
Chance is explicit: every shuffle or cut comes from ``state.rng``, a seeded
``numpy.random.Generator`` owned by the state, so a seed fixes the episode given the actions.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, ClassVar

import numpy as np

from .observer import Observer
from .options import Option, resolve_options

TERMINAL = -1  # current_player() once the episode is over

#: per action count, legal-action tuple -> its read-only int8 mask (see ``legal_mask``)
_MASKS: dict[int, dict[tuple, np.ndarray]] = {}
_MASKS_MAX = 1 << 14


def piece_offsets(layout: Mapping[str, int]) -> tuple[dict[str, int], SimpleNamespace]:
    """Where each named piece of an observation laid out end to end (``observation_layout``, in
    order) starts: as a dict, and as attributes, which the games read every step (cheaper)."""
    offsets, at = {}, 0
    for name, size in layout.items():
        offsets[name] = at
        at += size
    return offsets, SimpleNamespace(**offsets)


def one_hot(size: int, items) -> np.ndarray:
    """A float32 array of ``size`` with 1 at each index of ``items`` (a piece of a state array)."""
    out = np.zeros(size, np.float32)
    out[list(items)] = 1.0
    return out


def pile_order(size: int, pile) -> np.ndarray:
    """A float32 array of ``size`` placing an ordered face-down pile (``pile[0]`` on top): the
    k-th item of a pile of L gets (L - k) / L (the top 1, the bottom 1/L), every other index 0;
    one piece holds both what the pile holds and in what order."""
    out = np.zeros(size, np.float32)
    n = len(pile)
    if n:
        out[list(pile)] = np.arange(n, 0, -1, dtype=np.float32) / n
    return out


def legal_mask(num_actions: int, legal) -> np.ndarray:
    """A new int8 mask of ``num_actions`` with 1 at each action of ``legal``. It copies one kept
    per legal set: the same few sets recur all game long, and a copy costs a fraction of
    ``np.zeros`` plus an index write (the mask is built once a step, so it matters)."""
    key = tuple(legal)
    masks = _MASKS.get(num_actions)
    if masks is None:
        masks = _MASKS[num_actions] = {}
    mask = masks.get(key)
    if mask is None:
        if len(masks) >= _MASKS_MAX:
            masks.clear()
        mask = np.zeros(num_actions, dtype=np.int8)
        mask[list(key)] = 1
        mask.flags.writeable = False
        masks[key] = mask
    return mask.copy()


class IllegalActionError(ValueError):
    """An action outside the legal mask: names the action and the legal ones."""


@dataclass(frozen=True)
class GameFacts:
    """The declaration that opens each game module (OpenSpiel's GameType/GameInfo)."""

    name: str  # env id, e.g. "cribbage_v0"
    long_name: str
    min_players: int
    max_players: int
    zero_sum: bool  # returns sum to 0 over the players
    min_utility: float
    max_utility: float


class Game:
    """A game configuration. Subclasses declare ``FACTS`` and ``OPTIONS`` and set, in
    ``__init__``, ``num_players``, ``num_actions`` and ``observation_size``."""

    FACTS: ClassVar[GameFacts]
    OPTIONS: ClassVar[Mapping[str, Option]]
    #: bounds of every observation entry (the adapter's Box)
    observation_low: float = 0.0
    observation_high: float = 1.0
    num_players: int
    num_actions: int
    observation_size: int
    #: an upper bound on decisions in one episode (None when only truncation bounds it)
    max_game_length: int | None = None
    #: builds and keeps the states' observations (``kernel.observer``; the game's observation module)
    observer_cls: ClassVar[type[Observer]]
    #: False where fewer is better on the scoreboard (``State.scoreboard``), e.g. cards left
    scoreboard_higher_wins: ClassVar[bool] = True
    #: the pieces of ``State.state_array`` that no seat's observation holds (name -> size, in
    #: order; each entry in [0, 1]): what is hidden from every player (a crib, a stock, ...)
    hidden_layout: Mapping[str, int] = {}

    @property
    def state_layout(self) -> dict[str, int]:
        """The pieces of ``State.state_array`` in order (name -> size): every seat's observation
        (``observation_0`` ... by absolute seat, each laid out as ``observation_layout``), then
        ``hidden_layout``. Together they hold every hand and everything public or hidden."""
        layout = {f"observation_{p}": self.observation_size for p in range(self.num_players)}
        layout.update(self.hidden_layout)
        return layout

    @property
    def state_size(self) -> int:
        return self.num_players * self.observation_size + sum(self.hidden_layout.values())

    def __init__(self, **options: Any) -> None:
        self.options = resolve_options(self.OPTIONS, options, self.FACTS.name)

    def new_initial_state(self, seed: int | None = None, deal: Mapping | None = None) -> State:
        raise NotImplementedError

    def sides(self) -> list[int]:
        """The side of every seat, numbered 0.. in seat order: partners share one (they share a
        score and a result). Every seat its own side unless the game seats partnerships."""
        return list(range(self.num_players))

    def action_name(self, action: int) -> str:
        """A short readable name of an action index, independent of any state."""
        return str(action)

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in self.options.items())
        return f"{type(self).__name__}({opts})"


class State:
    """One position of one game. Subclasses implement the methods that raise here."""

    game: Game
    _rng: np.random.Generator | None = None
    _rng_state: dict | None = None

    @property
    def rng(self) -> np.random.Generator:
        """The episode's generator (every later chance event comes from it). A clone may hold
        only the generator's state (``_rng_state``) and builds a generator the first time it
        needs one, since building one costs more than the rest of a clone."""
        r = self._rng
        if r is None:
            r = np.random.Generator(getattr(np.random, self._rng_state["bit_generator"])())
            r.bit_generator.state = self._rng_state
            self._rng = r
            self._rng_state = None
        return r

    @rng.setter
    def rng(self, value: np.random.Generator) -> None:
        self._rng = value
        self._rng_state = None

    # -- whose turn and what they may do ------------------------------------------------
    def current_player(self) -> int:
        raise NotImplementedError

    def legal_actions_mask(self) -> np.ndarray:
        """int8 array of ``game.num_actions``: 1 where the action is legal for the player to act.
        It may be a shared read-only array (cached by the game): copy it before writing to it."""
        raise NotImplementedError

    def legal_actions(self) -> list[int]:
        return np.flatnonzero(self.legal_actions_mask()).tolist()

    def apply(self, action: int) -> None:
        """Apply the current player's action (and any chance events that follow it)."""
        raise NotImplementedError

    def check_legal(self, action: Any) -> int:
        """Shared guard for ``apply``: a clear error instead of an IndexError deep inside."""
        if self.is_terminal():
            raise IllegalActionError(f"action {action!r} given, but the episode is over")
        if isinstance(action, np.ndarray) and action.shape == () and np.issubdtype(action.dtype, np.integer):
            action = action.item()  # what SB3's predict returns for one observation
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise IllegalActionError(f"action {action!r} is not an int action index")
        a = int(action)
        mask = self.legal_actions_mask()
        if not 0 <= a < len(mask) or not mask[a]:
            legal = ", ".join(f"{i} ({self.action_to_string(i)})" for i in np.flatnonzero(mask))
            raise IllegalActionError(
                f"illegal action {action!r} for player {self.current_player()} "
                f"in phase {self.phase_name()!r}; legal actions: {legal}")
        return a

    # -- episode end and rewards ------------------------------------------------------------
    def is_terminal(self) -> bool:
        raise NotImplementedError

    truncated: bool = False
    _rewards: np.ndarray
    _returns: np.ndarray

    def is_truncated(self) -> bool:
        """True when the episode ended by the move limit rather than by the rules."""
        return self.truncated

    def rewards(self) -> np.ndarray:
        """Per-player rewards of the last ``apply`` (float64 array of num_players). A read-only
        array is never changed afterwards: games return ``kernel.rewards.quiet_rewards(n)`` (one
        shared read-only zeros array) for the steps that pay nothing, and the envs take it as
        zero by identity."""
        return self._rewards

    def returns(self) -> np.ndarray:
        """Per-player sum of rewards since the start of the episode."""
        return self._returns

    # -- views --------------------------------------------------------------------------------
    #: the state's observer (``kernel.observer``: the observation lives beside the rules), made
    #: by the first ``observation``; the rules report their moves to it only when it is not None
    seen: Observer | None = None

    def observation(self, player: int) -> np.ndarray:
        """float32 vector of ``game.observation_size``: only what ``player`` may know (built by
        the game's ``observer_cls``)."""
        seen = self.seen
        if seen is None:
            seen = self.seen = self.game.observer_cls(self)
        return seen.observation(player)

    def phase_name(self) -> str:
        return ""

    def action_to_string(self, action: int) -> str:
        return self.game.action_name(action)

    def public_action_to_string(self, action: int) -> str:
        """The move as the other players see it, in this position: the readable name unless
        the move is made face down (a card laid away unseen is not named)."""
        return self.action_to_string(action)

    def public_view(self, player: int) -> dict:
        """A readable dict of what ``player`` may know (for heuristic and human agents)."""
        return {}

    def render(self, player: int | None = None) -> str:
        """The table as text: everything when ``player`` is None, else only what ``player`` may
        see (the terminal table of a human seat; it never shows another player's hidden cards)."""
        raise NotImplementedError

    def scoreboard(self) -> tuple[str, list[float]]:
        """What the table keeps score with, per seat: ``(unit, values)``, e.g. ``("points",
        [...])`` with a side's score repeated for each of its seats. Public (every player sees
        it); the points a move scored are the change of these values. Higher is better unless the
        game's ``scoreboard_higher_wins`` is False."""
        return "return", [float(x) for x in self.returns()]

    def deal(self) -> dict | None:
        """The cards of the hand in progress as they were dealt, in the env's deal format
        (``reset(options={"deal": state.deal()})`` deals them again), for game records. Hidden
        cards included: never a player's view. None where the game does not say."""
        return None

    def full_state(self) -> dict:
        """Everything, hidden cards included, as readable data: records, replays and debugging."""
        raise NotImplementedError

    def hidden_pieces(self) -> dict[str, np.ndarray]:
        """The values of ``game.hidden_layout``'s pieces now (name -> array of the piece's size)."""
        return {}

    def state_array(self) -> np.ndarray:
        """The full information state as a new float32 array of ``game.state_size`` (laid out as
        ``game.state_layout``): for centralised critics, never a player's view."""
        g = self.game
        out = np.empty(g.state_size, np.float32)
        size = g.observation_size
        for p in range(g.num_players):
            out[p * size:(p + 1) * size] = self.observation(p)
        offsets, _ = piece_offsets(g.state_layout)
        hidden = self.hidden_pieces()
        if hidden.keys() != g.hidden_layout.keys():
            raise RuntimeError(f"{type(self).__name__}.hidden_pieces gave {sorted(hidden)}, "
                               f"the game declares {sorted(g.hidden_layout)}")
        for name, values in hidden.items():
            out[offsets[name]:offsets[name] + g.hidden_layout[name]] = values
        return out

    def clone(self) -> State:
        return copy.deepcopy(self)

    def resample_hidden(self, player: int, rng: np.random.Generator) -> State:
        """A clone in which everything ``player`` cannot see (opponents' hands, stock order,
        the boneyard, the widow, the pack) is re-dealt at random, consistently with what
        ``player`` knows: cards seen played or shown stay, counts stay, and
        ``observation(player)`` is unchanged. Used by search agents and the leak test."""
        raise NotImplementedError

    def resample_inferred(self, player: int, rng: np.random.Generator) -> State:
        """``resample_hidden``, keeping also what the public moves imply about hidden cards
        (a dominoes player who drew held no tile that fit; a cribbage player who said go held
        no card that fit; a Michigan lead is the leader's lowest of its suit), for ``search:N,worlds=inferred``. A game without such inferences
        re-deals as ``resample_hidden`` does."""
        return self.resample_hidden(player, rng)
