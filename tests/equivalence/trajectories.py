"""Digests of whole games, to prove that a change leaves the default games byte for byte as
they were (issue 17: cribbage ``lowball=False`` must not change one trajectory; issue 16: the
card Muggins review view changes nothing without ``mistakes``, nor any heuristic's move).

A digest hashes, at every decision of random play through the AEC env: the agent to act,
its observation and mask bytes, every reward, termination and readable info (legal move
names, the view), the derived features, and at the end the render; and the moves of
heuristic-only and search-vs-heuristic games through the kernel. The recorded digests
(``data/default_trajectories.json``) were taken on the code before lowball existed and
before the review view changed (commit fdc9fab); the card Muggins random-play digests were taken
again after issue 16's render wording ("1 card", "player 1 wins"), checked equal before it in all
but the final render: ``python -m tests.equivalence.trajectories`` rewrites them, which is only right when a
change of the default game is intended.
"""

from __future__ import annotations

import hashlib
import json
import random

import numpy as np

from tests import DATA

RECORDING = DATA / "default_trajectories.json"

#: (env id, options) recorded; ``random`` play through the env is recorded only where
#: ``env`` is True (card Muggins with mistakes shows reviews differently since issue 16)
CONFIGS = [
    {"num_players": 2},
    {"num_players": 2, "muggins": False},
    {"num_players": 2, "reward": "points", "target": 61},
    {"num_players": 3, "target": 61},
    {"num_players": 3, "muggins": False, "reward": "points"},
    {"num_players": 4, "target": 61},
]
CARDS_CONFIGS = [({"num_players": 3}, True), ({"num_players": 4}, True), ({"num_players": 5, "mistakes": True}, False),
                 ({"num_players": 3, "mistakes": True}, False)]
SEEDS = (0, 1)


def _key(game_id: str, options: dict) -> str:
    return game_id + " " + json.dumps(options, sort_keys=True)


def env_digest(game_id: str, options: dict, seed: int) -> str:
    """Random play through the raw AEC env with readable infos and the derived features."""
    from muggins_env.agents.features import derived_features

    from muggins_env import make

    env = make(game_id, raw=True, readable_infos=True, **options)
    features = derived_features(game_id, env.game)
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


def agents_digest(game_id: str, options: dict, seed: int, seat0: str = "heuristic") -> str:
    """A game through the kernel: the heuristic at every seat but seat 0, which plays ``seat0``."""
    from muggins_env.agents import make_agent, make_game
    from muggins_env.agents.base import HeuristicBase

    game = make_game(game_id, options)
    state = game.new_initial_state(seed=seed)
    agents = [make_agent("heuristic", game_id, options) for _ in range(game.num_players)]
    agents[0] = make_agent(seat0, game_id, options)
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
    return hashlib.sha256(repr((moves, getattr(state, 'scores', None), state.returns().tolist())).encode()).hexdigest()


def digests() -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for options in CONFIGS:
        row = {}
        for seed in SEEDS:
            row[f"env/{seed}"] = env_digest("cribbage_v0", options, seed)
            row[f"heuristic/{seed}"] = agents_digest("cribbage_v0", options, seed)
        if options == {"num_players": 2, "muggins": False}:
            row["search:8 target 61/0"] = agents_digest("cribbage_v0", {**options, "target": 61}, 0, "search:8")
        out[_key("cribbage_v0", options)] = row
    for options, env in CARDS_CONFIGS:
        row = {}
        for seed in SEEDS:
            if env:
                row[f"env/{seed}"] = env_digest("muggins_cards_v0", options, seed)
            row[f"heuristic/{seed}"] = agents_digest("muggins_cards_v0", options, seed)
            row[f"random+heuristic/{seed}"] = agents_digest("muggins_cards_v0", options, seed, "random")
        row["search:8/0"] = agents_digest("muggins_cards_v0", options, 0, "search:8")
        out[_key("muggins_cards_v0", options)] = row
    return out


if __name__ == "__main__":
    RECORDING.parent.mkdir(exist_ok=True)
    RECORDING.write_text(json.dumps(digests(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {RECORDING}")
