"""Digests of whole cribbage games, to prove that a new option leaves the default game byte
for byte as it was (issue 17: ``lowball=False`` must not change one trajectory).

A digest hashes, at every decision of random play through the AEC env: the agent to act,
its observation and mask bytes, every reward, termination and readable info (legal move
names, the view), the derived features, and at the end the render; and the moves of
heuristic-only and search-vs-heuristic games through the kernel. The recorded digests
(``data/cribbage_default_trajectories.json``) were taken on the code before lowball existed
(commit fdc9fab): ``python -m tests.cribbage_trajectories`` rewrites them, which is only
right when a change of the default game is intended.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import numpy as np

RECORDING = Path(__file__).parent / "data" / "cribbage_default_trajectories.json"

#: configurations recorded (no ``lowball`` key: the default), seeds per configuration
CONFIGS = [
    {"num_players": 2},
    {"num_players": 2, "muggins": False},
    {"num_players": 2, "reward": "points", "target": 61},
    {"num_players": 3, "target": 61},
    {"num_players": 3, "muggins": False, "reward": "points"},
    {"num_players": 4, "target": 61},
]
SEEDS = (0, 1)


def _key(options: dict) -> str:
    return json.dumps(options, sort_keys=True)


def env_digest(options: dict, seed: int) -> str:
    """Random play through the raw AEC env with readable infos and the derived features."""
    from muggins_env.agents.features import derived_features

    from muggins_env.cribbage_v0 import raw_env

    env = raw_env(**options)
    features = derived_features("cribbage_v0", env.game)
    h = hashlib.sha256()
    rng = random.Random(seed)
    env.reset(seed=seed)
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        h.update(agent.encode())
        h.update(obs["observation"].tobytes())
        h.update(obs["action_mask"].tobytes())
        h.update(repr((reward, term, trunc, sorted(env.rewards.items()))).encode())
        if term or trunc:
            env.step(None)
            continue
        h.update(repr(info.get("legal_moves")).encode())
        h.update(repr(info.get("view")).encode())
        h.update(features(info["view"], obs["action_mask"]).tobytes())
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.randrange(len(legal))]))
    h.update(env.render().encode() if env.render_mode else env.kernel_state.render().encode())
    return h.hexdigest()


def agents_digest(options: dict, seed: int, search: bool) -> str:
    """A game through the kernel: the heuristic at every seat, or search:8 at seat 0."""
    from muggins_env.agents import make_agent
    from muggins_env.agents.base import HeuristicBase

    from muggins_env.games.cribbage import CribbageGame

    game = CribbageGame(**options)
    state = game.new_initial_state(seed=seed)
    agents = [make_agent("heuristic", "cribbage_v0", options) for _ in range(game.num_players)]
    if search:
        agents[0] = make_agent("search:8", "cribbage_v0", options)
    rng = np.random.default_rng(seed)
    moves = []
    while not state.is_terminal():
        p = state.current_player()
        agent = agents[p]
        if isinstance(agent, HeuristicBase):
            a = agent.act_on_state(state, rng)
        else:
            info = {"view": state.public_view(p), "resample": lambda r, s=state, p=p: s.resample_hidden(p, r)}
            a = agent.act(None, state.legal_actions_mask(), rng, info)
        moves.append(a)
        state.apply(a)
    return hashlib.sha256(repr((moves, state.scores, state.returns().tolist())).encode()).hexdigest()


def digests() -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for options in CONFIGS:
        row = {}
        for seed in SEEDS:
            row[f"env/{seed}"] = env_digest(options, seed)
            row[f"heuristic/{seed}"] = agents_digest(options, seed, search=False)
        if options == {"num_players": 2, "muggins": False}:
            row["search:8 target 61/0"] = agents_digest({**options, "target": 61}, 0, search=True)
        out[_key(options)] = row
    return out


if __name__ == "__main__":
    RECORDING.parent.mkdir(exist_ok=True)
    RECORDING.write_text(json.dumps(digests(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {RECORDING}")
