"""Where weighing the chance to win changes the heuristic's move (issue 47, item 2): a diagnostic.

Plays cribbage games of ``heuristic:value=table`` against ``heuristic`` (the table player in seat
``j % 2`` of game ``j``) and, at every decision of the table player with two or more legal
moves, asks ``heuristic`` too, with a copy of the same generator (so the same crib completions:
only the weighing differs), counting how often they differ by phase and by the band of the
leading side's score as the decision is made. Not a strength test:

    python benchmarks/heuristic_value_agreement.py --games 200 --seed 47610000 --muggins false
"""

from __future__ import annotations

import argparse
import collections
import copy
import itertools
import json

import numpy as np

#: the bands of the leading side's score (their lower edges) with target 121
BANDS = (0, 60, 90, 100, 110)


def band_of(score: int, target: int) -> str:
    edges = [round(b * target / 121) for b in BANDS] + [target]
    for lo, hi in itertools.pairwise(edges):
        if lo <= score < hi:
            return f"{lo}-{hi - 1}"
    return f"{target}+"


def main(argv: list[str] | None = None) -> None:
    from muggins_env.agents import make_agent, make_game

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=47610000)
    ap.add_argument("--players", type=int, choices=(2, 4), default=2)
    ap.add_argument("--muggins", choices=("true", "false"), default="false")
    ap.add_argument("--target", type=int, choices=(121, 61), default=121)
    ap.add_argument("--out", help="a JSON file")
    args = ap.parse_args(argv)
    opts = {"num_players": args.players, "muggins": args.muggins == "true", "target": args.target}
    game = make_game("cribbage_v0", opts)
    table = make_agent("heuristic:value=table", "cribbage_v0", opts)
    plain = make_agent("heuristic", "cribbage_v0", opts)
    counts: dict = collections.defaultdict(lambda: [0, 0])
    wins = 0
    for j in range(args.games):
        state = game.new_initial_state(seed=args.seed + j)
        rng = np.random.default_rng((args.seed, j))
        side = game.teams[j % game.num_players]
        while not state.is_terminal():
            p = state.current_player()
            mask = state.legal_actions_mask()
            info = {"action_mask": mask, "view": state.public_view(p)}
            if game.teams[p] != side:
                state.apply(plain.act(None, mask.copy(), rng, info))
                continue
            twin = copy.deepcopy(rng)
            a = table.act(None, mask.copy(), rng, info)
            if mask.sum() > 1:
                b = plain.act(None, mask.copy(), twin, info)
                row = counts[(state.phase_name(), band_of(max(state.scores), args.target))]
                row[0] += 1
                row[1] += a != b
            state.apply(a)
        wins += state.winner_side == side
    out = {f"{phase} {band}": {"decisions": n, "differ": d, "share": round(d / n, 4)}
           for (phase, band), (n, d) in sorted(counts.items(), key=lambda kv: (kv[0][0], int(kv[0][1].split("-")[0].rstrip("+"))))}
    text = json.dumps({"options": opts, "games": args.games, "seed": args.seed,
                       "table_player_won": wins, "counts": out}, indent=1)
    print(text)
    if args.out:
        from pathlib import Path

        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    main()
