"""The opponent pool of self-play training.

Each episode, the pool picks the opponents of the learner: a kind drawn by weight among
``random``, ``heuristic`` and ``self`` (frozen snapshots of the learner); with
``sampling="table"`` the whole table is of that kind (one snapshot for all seats), with
``"seat"`` each seat draws its own. Snapshots: the trainer adds one every
``snapshot_every`` learner steps; the pool keeps the last ``window``; a self-play game is
against the latest with probability ``latest_ratio``, else against one of the window's
older snapshots, uniformly. A curriculum moves the weights during training
(``set_weights``, called by the trainer: e.g. from mostly ``random`` to mostly ``heuristic``);
the kinds it may reach are given at construction (``also``) so that their agents exist.
"""

from __future__ import annotations

from collections import deque
from typing import Any

import numpy as np
from muggins_env.agents import make_game
from muggins_env.agents.features import make_features
from muggins_env.agents.ppo import NumpyPolicy, PPOAgent, policy_from_arrays

from muggins_env.wrappers import UniformRandomAgent, make_spec_agent

KINDS = ("random", "heuristic", "self")


def make_opponent(spec: str, game_id: str, options: dict | None = None) -> Any:
    """An agent from a spec (``random``, ``heuristic``, ``ppo:path``...) via the agents package."""
    return make_spec_agent(spec, game_id, dict(options or {}))


class Lineup(dict):
    """``{seat: agent}`` with the name of the opponents' kind (for per-kind statistics)."""

    name = ""


class OpponentPool:
    """An ``OpponentSampler`` for ``SeatEnv`` (callable ``(rng, learner, n) -> Lineup``)."""

    def __init__(self, game_id: str, options: dict | None, weights: dict[str, float],
                 sampling: str = "table", window: int = 5, latest_ratio: float = 0.5,
                 deterministic_snapshots: bool = False, also: dict[str, float] | None = None) -> None:
        unknown = sorted((set(weights) | set(also or {})) - set(KINDS))
        if unknown:
            raise ValueError(f"unknown opponent kind(s) {unknown}; allowed: {', '.join(KINDS)}")
        if sampling not in ("table", "seat"):
            raise ValueError(f"sampling={sampling!r} is not allowed; allowed: 'table', 'seat'")
        self.game_id = game_id
        self.options = dict(options or {})
        self.kinds = [k for k in KINDS if weights.get(k, 0) > 0 or (also or {}).get(k, 0) > 0]
        self.set_weights(weights)
        self.sampling = sampling
        self.window = window
        self.latest_ratio = latest_ratio
        self.deterministic_snapshots = deterministic_snapshots
        self.snapshots: deque[tuple[int, PPOAgent]] = deque(maxlen=window)
        self._fixed: dict[str, dict[int, Any]] = {}  # kind -> seat -> agent (one instance per seat)
        for kind in self.kinds:  # fail now, not at the first episode, if an agent is unavailable
            if kind != "self":
                self._fixed_agent(kind, 0)

    def set_weights(self, weights: dict[str, float]) -> None:
        """New relative weights of the kinds (a curriculum step); kinds not given get 0."""
        w = np.array([float(weights.get(k, 0.0)) for k in self.kinds], dtype=float)
        if {k for k, v in weights.items() if v > 0} - set(self.kinds) or not w.sum() > 0:
            raise ValueError(f"weights {weights} must be > 0 in total, over the pool's kinds {self.kinds}")
        self.p = w / w.sum()
        self.weights = {k: float(x) for k, x in zip(self.kinds, self.p)}

    # -- snapshots ---------------------------------------------------------------------------------
    def add_snapshot(self, policy: NumpyPolicy | dict, step: int) -> None:
        if isinstance(policy, dict):
            policy = policy_from_arrays(policy)
        features = make_features(policy.features, self.game_id, make_game(self.game_id, self.options))
        agent = PPOAgent(policy, deterministic=self.deterministic_snapshots, name=f"self@{step}",
                         features=features)
        self.snapshots.append((int(step), agent))

    def snapshot_steps(self) -> list[int]:
        return [s for s, _ in self.snapshots]

    # -- sampling ----------------------------------------------------------------------------------
    def _fixed_agent(self, kind: str, seat: int) -> Any:
        seats = self._fixed.setdefault(kind, {})
        if seat not in seats:  # random: the wrapper's own (skips building the observation)
            seats[seat] = UniformRandomAgent() if kind == "random" else make_opponent(kind, self.game_id,
                                                                                         self.options)
        return seats[seat]

    def _snapshot(self, rng: np.random.Generator) -> PPOAgent:
        n = len(self.snapshots)
        if n == 1 or rng.random() < self.latest_ratio:
            return self.snapshots[-1][1]
        return self.snapshots[int(rng.integers(n - 1))][1]

    def _kind(self, rng: np.random.Generator) -> str:
        kind = self.kinds[int(rng.choice(len(self.kinds), p=self.p))] if len(self.kinds) > 1 else self.kinds[0]
        if kind == "self" and not self.snapshots:
            kind = "random"  # before the first snapshot (the trainer adds one at step 0)
        return kind

    def __call__(self, rng: np.random.Generator, learner: int, n: int) -> Lineup:
        lineup = Lineup()
        if self.sampling == "table":
            kind = self._kind(rng)
            snap = self._snapshot(rng) if kind == "self" else None
            for p in range(n):
                if p != learner:
                    lineup[p] = snap if snap is not None else self._fixed_agent(kind, p)
            lineup.name = kind
            return lineup
        names = []
        for p in range(n):
            if p != learner:
                kind = self._kind(rng)
                lineup[p] = self._snapshot(rng) if kind == "self" else self._fixed_agent(kind, p)
                names.append(kind)
        lineup.name = names[0] if len(set(names)) == 1 else "mixed"
        return lineup
