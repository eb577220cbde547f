"""``search:N``: a determinised Monte-Carlo agent (the strong reference), for every game.

At a decision with several legal actions it
1. asks the heuristic for its move and, where the heuristic ranks moves
   (``candidates(view, legal, k)``), keeps its ``max_candidates`` best (all of them otherwise);
2. samples ``worlds = max(1, N // len(candidates))`` determinisations: kernel states drawn by
   ``info["resample"](rng)`` = ``state.resample_hidden(player, rng)``, in which every card
   the player cannot see is re-dealt consistently with what it knows (cards seen played or
   shown never move), with a fresh random stream for later chance (the next deals); so N is
   the number of rollouts per decision;
3. in each world applies every candidate and plays the game on with the heuristic at every
   seat (the same world and the same random stream for every candidate: common random
   numbers, so that differences between candidates are not noise) until the end, or until
   the game's evaluator stops the rollout (the end of the current hand, or ``horizon``
   decisions), and scores it with the evaluator (the return, plus a small score-margin term
   where the game keeps a score);
4. plays the candidate with the best mean value, except that it keeps the heuristic's move
   unless another beats it by more than ``z`` standard errors of the paired difference
   (no deviation from a sound default without evidence).

It never sees the true state: only the observation, the mask and the readable view, and
determinised states from the sampler. Options (spec ``search:N`` or ``make_agent`` kwargs):
``budget`` (N, default 200), ``max_candidates`` (default 6), ``z`` (default 1.0),
``horizon`` (decisions per rollout, default per game).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .base import legal_of, player_view, state_sampler


class Evaluator:
    """Default rollout evaluation: play to the end; the value is the player's return."""

    horizon: int | None = None  # decisions per rollout (None: to the end or the evaluator's stop)

    def start(self, state: Any, player: int) -> Any:
        return None

    def stop(self, state: Any, player: int, marker: Any) -> bool:
        return False

    def value(self, state: Any, player: int, marker: Any) -> float:
        return float(state.returns()[player])


class SearchAgent:
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
            state.apply(h.act_on_state(state, rng))
            steps += 1
        return ev.value(state, player, marker)

    def __repr__(self) -> str:
        return f"SearchAgent(budget={self.budget}, max_candidates={self.max_candidates}, z={self.z})"
