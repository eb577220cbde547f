"""OpenSpiel's IS-MCTS through the bridge (``openspiel:ismcts:N``) against the suite's
``search:M`` on full-size Muggins dominoes (double-6, 7 tiles each, one hand), at about equal
time per move: first the time per move of each agent on the same positions, then a duplicate-deal
tournament (every deal played by both seatings).

    .venv/bin/python benchmarks/openspiel_ismcts_vs_search.py openspiel:ismcts:60 search:2000 --deals 5
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from muggins_env.agents import make_agent
from muggins_env.eval.tournament import run_tournament

from muggins_env.games.dominoes import DominoesGame

GAME = "muggins_dominoes_v0"


def time_per_move(spec: str, options: dict, positions: int) -> float:
    """Mean seconds per decision (more than one legal action) over the first ``positions`` of
    games played by the agent itself from seeds 0, 1, ..."""
    game = DominoesGame(**options)
    agent = make_agent(spec, GAME, options)
    rng = np.random.default_rng(0)
    total, n = 0.0, 0
    for seed in range(1000):
        s = game.new_initial_state(seed=seed)
        while not s.is_terminal() and n < positions:
            p, mask = s.current_player(), s.legal_actions_mask()
            if mask.sum() > 1:
                info = {"view": s.public_view(p), "resample": lambda r, _s=s, _p=p: _s.resample_hidden(_p, r)}
                t = time.perf_counter()
                a = agent.act(s.observation(p), mask, rng, info)
                total += time.perf_counter() - t
                n += 1
            else:
                a = int(mask.argmax())
            s.apply(int(a))
        if n >= positions:
            break
    return total / n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("agents", nargs=2, help="two agent specs, e.g. openspiel:ismcts:60 search:2000")
    ap.add_argument("--deals", type=int, default=5)
    ap.add_argument("--positions", type=int, default=12, help="positions timed per agent")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    options = {"episode": "hand"}
    for spec in args.agents:
        print(f"{spec}: {time_per_move(spec, options, args.positions) * 1000:.0f} ms per move", flush=True)
    result = run_tournament(GAME, options, args.agents, deals=args.deals, seed=args.seed, workers=1, progress=False)
    share = np.zeros(2)
    for rec in result.records:
        for seat, agent in enumerate(rec.seating):
            share[agent] += rec.win_share[seat]
    games = len(result.records)
    print(f"win share over {games} games: " + ", ".join(f"{s} {w / games:.2f}" for s, w in zip(args.agents, share)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
