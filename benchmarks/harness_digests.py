"""Digests of seeded games through every harness that asks an agent to move, to prove that a
refactor of the agents or the harnesses changes no move (issue 46: one heuristic logic, one
builder of an agent's inputs).

Each line is a harness and configuration with a hash of what it played: heuristic and search
games on the kernel (the heuristics' ``choose`` on the view, the search rollouts'
``act_on_state``), eval's tournaments, ``SeatEnv`` episodes against heuristic, search and
guided-search opponents, game sessions of agents and the imitation teacher's labels, and, when
Ray is installed (the ``rllib`` extra), the RLlib multi-agent env's episodes. Run it on two
commits and compare the outputs::

    git checkout A && python benchmarks/harness_digests.py > a.txt
    git checkout B && python benchmarks/harness_digests.py > b.txt && diff a.txt b.txt

Takes about half a minute; ``--games N`` plays more kernel games per configuration.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json

import numpy as np
from muggins_env.agents import make_agent, make_game
from muggins_env.eval.tournament import run_tournament
from muggins_env.play.session import GameSession
from muggins_env.train.config import from_dict
from muggins_env.train.pretrain import collect

from muggins_env.wrappers import SeatEnv

CONFIGS = [("michigan_v0", {"num_players": 3}), ("michigan_v0", {"num_players": 4}),
           ("cribbage_v0", {"num_players": 2, "target": 61}), ("cribbage_v0", {"num_players": 3, "target": 61}),
           ("cribbage_v0", {"num_players": 2, "target": 61, "lowball": True}),
           ("muggins_dominoes_v0", {}), ("muggins_cards_v0", {"num_players": 3})]


def digest(value) -> str:
    return hashlib.sha256(repr(value).encode()).hexdigest()[:16]


def kernel_games(games: int) -> None:
    for gid, opts in CONFIGS:
        moves = []
        for seed in range(games):
            game = make_game(gid, opts)
            n = game.num_players
            agents = [make_agent(("heuristic", "search:10")[(p + seed) % 2], gid, opts) for p in range(n)]
            state = game.new_initial_state(seed=seed)
            rngs = [np.random.default_rng([seed, p]) for p in range(n)]
            while not state.is_terminal():
                p = state.current_player()
                mask = state.legal_actions_mask()
                # built here, not by muggins_env.decision: the script runs on commits before it too
                info = {"view": state.public_view(p), "action_mask": mask, "seat": p, "phase": state.phase_name()}
                if getattr(agents[p], "needs_sampler", False):
                    info["resample"] = lambda rng, s=state, q=p: s.resample_hidden(q, rng)
                a = int(agents[p].act(state.observation(p), mask.copy(), rngs[p], info))
                moves.append(a)
                state.apply(a)
            moves.append([float(x) for x in state.returns()])
        print("kernel", gid, json.dumps(opts), digest(moves), flush=True)


def tournaments() -> None:
    cases = [(gid, opts, ["heuristic", "search:6", "random"]) for gid, opts in CONFIGS]
    cases += [("cribbage_v0", {"num_players": 2}, ["search:10,policy=zoo:cribbage_v0", "heuristic"]),
              ("michigan_v0", {"num_players": 4}, ["search:10,policy=heuristic", "heuristic"])]
    for gid, opts, specs in cases:
        n = make_game(gid, opts).num_players
        result = run_tournament(gid, opts, specs[:n], deals=2, seed=5, progress=False, workers=1)
        played = [(r.deal_seed, r.seating, r.returns, r.scores, r.decisions) for r in result.records]
        print("eval", gid, json.dumps(opts), specs[:n], digest(played), flush=True)


def seat_envs() -> None:
    cases = [("cribbage_v0", {"num_players": 3, "target": 61}, ["heuristic", "search:8"]),
             ("michigan_v0", {"num_players": 4}, ["heuristic", "search:8", "random"]),
             ("muggins_dominoes_v0", {}, ["search:8"]), ("michigan_v0", {"num_players": 3}, ["heuristic", "random"]),
             ("cribbage_v0", {"num_players": 2}, ["search:10,policy=zoo:cribbage_v0"])]
    for gid, opts, opponents in cases:
        env = SeatEnv(gid, env_options=opts, opponents=opponents, seed=3)
        steps = []
        obs, _ = env.reset(seed=3)
        for _ in range(400):
            a = int(np.flatnonzero(env.action_masks())[-1])
            obs, r, terminated, truncated, _ = env.step(a)
            steps.append((a, round(float(r), 9), obs.tobytes()))
            if terminated or truncated:
                obs, _ = env.reset()
        print("SeatEnv", gid, json.dumps(opts), opponents, digest(steps), flush=True)


def sessions() -> None:
    cases = [("cribbage_v0", ["heuristic", "search:8"], {"target": 61}),
             ("michigan_v0", ["search:6", "heuristic", "random"], {"num_players": 3}),
             ("muggins_dominoes_v0", ["heuristic", "search:8"], {}),
             ("muggins_cards_v0", ["search:6", "heuristic", "random"], {"num_players": 3})]
    for gid, seats, opts in cases:
        session = GameSession(gid, seats, options=opts, seed=7, agent_seed=5)
        for _ in session.advance():
            pass
        moves = [(m.player, m.action) for m in session.record.moves]
        print("session", gid, seats, digest((moves, list(session.env.kernel_state.returns()))), flush=True)


def teacher_labels() -> None:
    for teacher in ("heuristic", "search:6"):
        cfg = from_dict({"game": "michigan_v0", "env_options": {"num_players": 3},
                         "pretrain": {"teacher": teacher, "decisions": 60}})
        labels = collect(cfg, 60, seed=4)
        print("teacher", teacher, digest({k: np.asarray(v).tobytes() for k, v in labels.items() if v is not None}),
              flush=True)


RLLIB_CASES = [("cribbage_v0", {"num_players": 2}), ("cribbage_v0", {"num_players": 4}),
               ("muggins_dominoes_v0", {}), ("michigan_v0", {"num_players": 4, "reward": "chips"}),
               ("muggins_cards_v0", {"num_players": 3, "mistakes": True})]


def rllib_envs(steps: int = 300) -> None:
    """``MugginsMultiAgentEnv``'s outputs (observations, masks, rewards, end flags, infos, the
    learner returns it records) over seeded episodes, without and with an opponent pool, and
    with features, no forced-move skipping and a reward scale; only where Ray is installed, so
    that the lines above stay the same without it."""
    if importlib.util.find_spec("ray") is None:
        return
    from muggins_env.train.rllib_env import MugginsMultiAgentEnv

    variants = [("self-play", {}), ("pool", {"pool": {"weights": {"random": 1, "heuristic": 1}}}),
                ("pool+features", {"pool": {"weights": {"heuristic": 1}}, "features": "derived", "seat": 1,
                                   "skip_forced": False, "reward_scale": 0.5})]
    for gid, opts in RLLIB_CASES:
        for name, extra in variants:
            env = MugginsMultiAgentEnv({"game": gid, "env_options": opts, "seed": 11, **extra})
            rng = np.random.default_rng(2)
            out = []
            obs, infos = env.reset(seed=5)
            for t in range(steps):
                (agent, o), = obs.items()  # one agent observes: the one to act
                out.append((sorted(obs), o["observations"].dtype.str, o["observations"].tobytes(),
                            o["action_mask"].dtype.str, o["action_mask"].tobytes(), infos))
                action = int(rng.choice(np.flatnonzero(o["action_mask"])))
                obs, rew, term, trunc, infos = env.step({agent: action})
                out.append((rew, term, trunc))
                if term["__all__"] or trunc["__all__"]:
                    out.append([(a, v["observations"].tobytes(), v["action_mask"].tobytes()) for a, v in obs.items()])
                    obs, infos = env.reset(seed=t if t % 2 else None)
            out.append(sorted(env.results.items()))
            print("rllib", gid, json.dumps(opts), name, digest(out), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=6, help="kernel games per configuration")
    args = parser.parse_args()
    kernel_games(args.games)
    tournaments()
    seat_envs()
    sessions()
    teacher_labels()
    rllib_envs()


if __name__ == "__main__":
    main()
