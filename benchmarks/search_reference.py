"""A frozen copy of the ``search:N`` agent as it was before the speed-up (issue #31, item 2).

``ReferenceSearchAgent`` is today's determinised Monte-Carlo loop, verbatim from
``agents/search.py`` at the commit before the speed-up (a seeded generator per rollout, a clone
per candidate), and its rollouts call ``reference_act_on_state``: the heuristic's move from the
readable view ``state.public_view(player)`` rebuilt at every step (``HeuristicBase.act_on_state``
as it was), never the heuristics' faster ``act_on_state``. The dominoes and Michigan evaluators
are frozen too (they read the view at every step). So ``benchmarks/bench_search.py`` can time
the old and the new search in one run, and ``tests/equivalence/test_search.py`` can check that the new
one makes exactly the same decisions with exactly the same values. Not used by the package.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from muggins_env.agents import make_game
from muggins_env.agents.base import legal_of, player_view, state_sampler
from muggins_env.agents.search import Evaluator

from muggins_env.games import declaration
from muggins_env.kernel.declaration import load_hook


def reference_act_on_state(heuristic: Any, state: Any, rng: np.random.Generator) -> int:
    """``HeuristicBase.act_on_state`` before the speed-up: the view dict at every step."""
    legal = state.legal_actions_mask().nonzero()[0]
    if len(legal) == 1:
        return int(legal[0])
    return int(heuristic.choose(state.public_view(state.current_player()), legal, rng))


class ReferenceDominoesEvaluator:
    """``DominoesEvaluator`` before the speed-up (the view at every step)."""

    horizon = None

    def __init__(self, game) -> None:
        self.target = float(game.target)

    @staticmethod
    def _margin(view: dict, player: int) -> float:
        sc, teams = view["scores"], view["teams"]
        mine = sc[teams[player]]
        return mine - (sum(sc) - mine) / (len(sc) - 1)

    def start(self, state, player):
        view = state.public_view(player)
        return view["hand_number"], self._margin(view, player)

    def stop(self, state, player, marker) -> bool:
        return state.public_view(player)["hand_number"] != marker[0]

    def value(self, state, player, marker) -> float:
        v = (self._margin(state.public_view(player), player) - marker[1]) / self.target
        if state.is_terminal():
            v += float(state.returns()[player])
        return v


class ReferenceMichiganEvaluator:
    """``MichiganEvaluator`` before the speed-up (the view at every step)."""

    horizon = None

    def __init__(self, game) -> None:
        self.win_reward = not game.chip_rewards

    @staticmethod
    def _margin(view: dict, player: int) -> float:
        b = view["balances"]
        return b[player] - (sum(b) - b[player]) / (len(b) - 1)

    def start(self, state, player):
        view = state.public_view(player)
        return view["hand_number"], self._margin(view, player)

    def stop(self, state, player, marker) -> bool:
        return state.public_view(player)["hand_number"] != marker[0]

    def value(self, state, player, marker) -> float:
        v = self._margin(state.public_view(player), player) - marker[1]
        if self.win_reward and state.is_terminal():
            v += 10.0 * float(state.returns()[player])
        return v


class ReferenceMugginsCardsEvaluator:
    """``MugginsCardsEvaluator`` before the speed-up (the view for the card balance)."""

    def __init__(self, game) -> None:
        self.horizon = 12 * game.num_players

    def start(self, state, player):
        return None

    def stop(self, state, player, marker) -> bool:
        return False

    def value(self, state, player, marker) -> float:
        if state.is_terminal():
            return float(state.returns()[player])
        view = state.public_view(player)
        held = [s + d for s, d in zip(view["stock_sizes"], view["discard_sizes"])]
        mine = held[player]
        others = (sum(held) - mine) / (len(held) - 1)
        return (others - mine) / 52.0


REFERENCE_EVALUATORS = {
    "muggins_dominoes_v0": ReferenceDominoesEvaluator,
    "michigan_v0": ReferenceMichiganEvaluator,
    "muggins_cards_v0": ReferenceMugginsCardsEvaluator,
}


class ReferenceSearchAgent:
    needs_info = True
    needs_sampler = True

    def __init__(self, game: Any, heuristic: Any, evaluator: Evaluator | None = None, budget: int = 200,
                 max_candidates: int = 6, z: float = 1.0, horizon: int | None = None) -> None:
        if isinstance(budget, bool) or not isinstance(budget, (int, np.integer)) or budget < 1:
            raise ValueError(f"search budget={budget!r} is not allowed: rollouts per decision, an int >= 1")
        self.game = game
        self.heuristic = heuristic
        self.evaluator = evaluator or Evaluator()
        self.budget = int(budget)
        self.max_candidates = max(1, int(max_candidates))
        self.z = float(z)
        self.horizon = horizon if horizon is not None else self.evaluator.horizon
        self.name = f"search:{self.budget}"
        self.last_values: dict[int, float] = {}

    def reset(self) -> None:
        self.last_values = {}

    def act(self, observation, action_mask, rng, info=None) -> int:
        self.last_values = {}  # filled only when two or more candidates were weighed
        legal = legal_of(action_mask)
        if len(legal) == 1:
            return int(legal[0])
        sampler = state_sampler(info)
        if sampler is None:
            raise ValueError("the search agent needs info['resample'] (a callable rng -> "
                             "state.resample_hidden(player, rng)); play it through muggins_env.eval "
                             "or give the sampler in info")
        view = player_view(info)
        default = int(self.heuristic.act(observation, action_mask, rng, info))
        cands = None
        if hasattr(self.heuristic, "candidates"):
            cands = [int(a) for a in self.heuristic.candidates(view, legal, self.max_candidates)]
        if not cands:
            cands = [int(a) for a in legal]
        if default not in cands:
            cands = [default] + cands[: self.max_candidates - 1]
        if len(cands) == 1:
            return cands[0]
        worlds = max(1, self.budget // len(cands))
        values = np.zeros((worlds, len(cands)))
        for w in range(worlds):
            world = sampler(rng)
            if hasattr(world, "rng"):  # later chance (next deals) is unknown too: never the true stream
                world.rng = np.random.default_rng(int(rng.integers(2**62)))
            player = world.current_player()
            seed = int(rng.integers(2**62))
            for j, a in enumerate(cands):
                s = world.clone()
                values[w, j] = self._rollout(s, a, player, np.random.default_rng(seed))
        means = values.mean(axis=0)
        self.last_values = dict(zip(cands, means.tolist()))
        best = int(np.argmax(means))
        d = cands.index(default)
        if best == d or worlds < 2:
            return cands[best] if worlds >= 2 or self.z <= 0 else default
        diff = values[:, best] - values[:, d]
        se = float(diff.std(ddof=1)) / np.sqrt(worlds)
        return cands[best] if diff.mean() > self.z * se else default

    def _rollout(self, state: Any, action: int, player: int, rng: np.random.Generator) -> float:
        ev = self.evaluator
        marker = ev.start(state, player)
        state.apply(action)
        steps = 0
        horizon = self.horizon
        h = self.heuristic
        while not state.is_terminal():
            if horizon is not None and steps >= horizon:
                break
            if ev.stop(state, player, marker):
                break
            state.apply(reference_act_on_state(h, state, rng))
            steps += 1
        return ev.value(state, player, marker)

    def __repr__(self) -> str:
        return f"ReferenceSearchAgent(budget={self.budget}, max_candidates={self.max_candidates}, z={self.z})"


def make_reference_search(game_id: str, options: dict | None = None, **kwargs: Any) -> ReferenceSearchAgent:
    """The frozen search for ``game_id`` (the settings of ``search:N``: budget, z, ...)."""
    game = make_game(game_id, options)
    decl = declaration(game_id)
    heuristic = load_hook(decl.heuristic)(game)
    ev_cls = REFERENCE_EVALUATORS.get(game_id) or (load_hook(decl.evaluator) if decl.evaluator is not None else None)
    evaluator = ev_cls(game) if ev_cls is not None else Evaluator()
    return ReferenceSearchAgent(game, heuristic, evaluator, **kwargs)
