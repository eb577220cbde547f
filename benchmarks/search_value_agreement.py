"""Where valuing rollouts by the table changes the search's move (issue 47, item 2): a diagnostic.

Plays cribbage games of ``heuristic`` against itself and, at a random quarter of the decisions
with two or more legal moves, asks ``search:N,value=table`` and ``search:N`` for their move with
the same generator seed (so the same worlds and rollouts: only the valuation differs), counting
how often they differ, by phase and by whether a side has reached ``--late`` points. Not a
strength test:

    python benchmarks/search_value_agreement.py --games 60 --seed 5 --budget 100
"""

from __future__ import annotations

import argparse
import collections
import json

import numpy as np


def main(argv: list[str] | None = None) -> None:
    from muggins_env.agents import make_agent, make_game, make_heuristic

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=60)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--budget", type=int, default=100)
    ap.add_argument("--players", type=int, choices=(2, 4), default=2)
    ap.add_argument("--muggins", choices=("true", "false"), default="false")
    ap.add_argument("--late", type=int, default=90, help="a side at this score or more: late in the game")
    ap.add_argument("--share", type=float, default=0.25, help="share of the decisions asked")
    args = ap.parse_args(argv)
    opts = {"num_players": args.players, "muggins": args.muggins == "true"}
    game = make_game("cribbage_v0", opts)
    heuristic = make_heuristic("cribbage_v0", opts, game)
    table = make_agent(f"search:{args.budget},value=table", "cribbage_v0", opts)
    plain = make_agent(f"search:{args.budget}", "cribbage_v0", opts)
    counts: dict = collections.defaultdict(lambda: [0, 0])
    rng = np.random.default_rng(args.seed)
    for j in range(args.games):
        state = game.new_initial_state(seed=args.seed * 100_000 + j)
        while not state.is_terminal():
            mask = state.legal_actions_mask()
            if mask.sum() > 1 and rng.random() < args.share:
                p = state.current_player()
                info = {"action_mask": mask, "view": state.public_view(p),
                        "resample": lambda r, _s=state, _p=p: _s.resample_hidden(_p, r)}
                seed = int(rng.integers(2**31))
                a = table.act(state.observation(p), mask.copy(), np.random.default_rng(seed), info)
                b = plain.act(state.observation(p), mask.copy(), np.random.default_rng(seed), info)
                when = "late" if max(state.scores) >= args.late else "early"
                row = counts[f"{when} {state.phase_name()}"]
                row[0] += 1
                row[1] += a != b
            state.apply(heuristic.act_on_state(state, rng))
    out = {k: {"decisions": n, "differ": d, "share": round(d / n, 3)} for k, (n, d) in sorted(counts.items())}
    print(json.dumps({"options": opts, "budget": args.budget, "games": args.games, "seed": args.seed,
                      "late": args.late, "counts": out}, indent=1))


if __name__ == "__main__":
    main()
