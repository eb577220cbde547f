"""Muggins dominoes position values (issue 47, item 1): per-hand point records, then the win tables.

The dominoes half of ``benchmarks/position_values.py`` (the cribbage one; the same two steps).
No seat has a role in a dominoes hand that passes round (the heaviest tile leads), so the
position is the two sides' scores only: ``V[a, b]`` is the chance that the side at ``a`` wins
against the side at ``b`` as a hand begins. Two-sided configurations: 2 players, and 4 in
partnerships (the default 4-player game, every player for himself, is a race of four scores:
no table here).

``record``: single hands of ``heuristic`` against itself, each from a fresh state at 0-0 (no
hand reaches the target), recording every score in the order it was scored, read from the
kernel state's scores after each action: each play's announced points once its review settles
(the mover's net first, then a caller's), then the end-of-hand bonus. Events are (absolute side,
points, kind: 0 a play, 1 the bonus). Hand ``i``: state seed ``seed + i``, heuristic generator
``default_rng((seed, i))``. It also plays ``--games`` whole games to check the table against.

    python benchmarks/position_values_dominoes.py record --players 2 --hands 300000 --seed 8700000 \\
        --games 2000 --out runs/position_values/dominoes_p2.npz

``table``: the dynamic programming of ``agents.position_values.solve_race`` with
``alternate=False``, each hand counted from both sides (the race is fair by construction:
``V[a, b] + V[b, a] = 1``); checks it against the whole games (the table's chance for side 0
where each game stood after its first hand, against who won); writes the package's table file
and a summary:

    python benchmarks/position_values_dominoes.py table runs/position_values/dominoes_p2.npz \\
        --write agents/tables/muggins_dominoes_v0.npz --summary benchmarks/results/position_values/dominoes.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

PLAY, BONUS = 0, 1


def hand_events(state, heuristic, rng: np.random.Generator) -> list[tuple[int, int, int]]:
    """Play ``state``'s current hand to its end with ``heuristic`` at every seat; its scoring
    events in the order they were scored: (absolute side, points, kind)."""
    from muggins_env.games.dominoes.rules import ANNOUNCE_PHASE, RESPOND_PHASE

    g = state.game
    teams, sides = g.teams, g.num_sides
    hand = state.hand_no
    start = list(state.scores)
    events: list[tuple[int, int, int]] = []
    pending = None  # an announcement under review: [mover's side, points per side so far]
    while not state.is_terminal() and state.hand_no == hand:
        phase = state.phase
        before = list(state.scores)
        last = state.last_hand
        mover = teams[state.review[0]] if phase == RESPOND_PHASE else teams[state.player]
        state.apply(heuristic.act_on_state(state, rng))
        delta = [a - b for a, b in zip(state.scores, before)]
        bonus = None
        if state.last_hand is not last and state.last_hand["side"] >= 0 and state.last_hand["bonus"]:
            bonus = (state.last_hand["side"], state.last_hand["bonus"])  # scored after the play
            delta[bonus[0]] -= bonus[1]
        if phase in (ANNOUNCE_PHASE, RESPOND_PHASE):
            if pending is None:
                pending = [mover, [0] * sides]
            pending[1] = [a + b for a, b in zip(pending[1], delta)]
            if state.phase != RESPOND_PHASE or state.hand_no != hand:  # settled
                side, got = pending
                if min(got) < 0:
                    raise AssertionError(f"a settled announcement left negative points {got}")
                events += [(s, got[s], PLAY) for s in [side] + [s for s in range(sides) if s != side] if got[s]]
                pending = None
        else:
            if min(delta) < 0:
                raise AssertionError(f"negative points {delta}")
            events += [(s, delta[s], PLAY) for s in range(sides) if delta[s]]
        if bonus is not None:
            events.append((bonus[0], bonus[1], BONUS))
    totals = [0] * sides
    for side, points, _ in events:
        totals[side] += points
    if totals != [state.scores[s] - start[s] for s in range(sides)]:
        raise AssertionError(f"events {events} do not add up to the hand's points")
    return events


def _options(players: int) -> dict:
    return {"num_players": players, **({"partnerships": True} if players == 4 else {})}


def record(args: argparse.Namespace) -> None:
    from muggins_env.agents import make_game, make_heuristic

    opts = _options(args.players)
    game = make_game("muggins_dominoes_v0", opts)
    if game.num_sides != 2:
        raise SystemExit("two sides only")
    heuristic = make_heuristic("muggins_dominoes_v0", opts, game)
    sides, pts, kinds, starts = [], [], [], [0]
    t0 = time.perf_counter()
    for i in range(args.hands):
        state = game.new_initial_state(seed=args.seed + i)
        for side, p, kind in hand_events(state, heuristic, np.random.default_rng((args.seed, i))):
            sides.append(side)
            pts.append(p)
            kinds.append(kind)
        starts.append(len(pts))
        if args.progress and (i + 1) % args.progress == 0:
            print(f"{i + 1} hands, {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    hand_seconds = time.perf_counter() - t0
    t1 = time.perf_counter()
    winners, after_first, truncated = [], [], 0
    for j in range(args.games):
        seed = args.seed + 10_000_000 + j
        state = game.new_initial_state(seed=seed)
        rng = np.random.default_rng((seed, 1))
        while not state.is_terminal() and state.hand_no == 1:
            state.apply(heuristic.act_on_state(state, rng))
        after_first.append(list(state.scores))
        while not state.is_terminal():
            state.apply(heuristic.act_on_state(state, rng))
        winners.append(state.winner_side)
        truncated += state.winner_side < 0
    game_seconds = time.perf_counter() - t1
    meta = {"players": args.players, "partnerships": args.players == 4, "target": game.target,
            "muggins": game.muggins, "hands": args.hands, "seed": args.seed, "games": args.games,
            "truncated_games": int(truncated), "player": "heuristic", "hand_seconds": round(hand_seconds, 1),
            "game_seconds": round(game_seconds, 1)}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, side=np.array(sides, np.int8), points=np.array(pts, np.int16),
                        kind=np.array(kinds, np.int8), start=np.array(starts, np.int64),
                        games_winner=np.array(winners, np.int8),
                        games_after_first_hand=np.array(after_first, np.int64).reshape(-1, 2), meta=np.array(json.dumps(meta)))
    print(json.dumps(meta), flush=True)


def both_sides(deals):
    """Every hand as recorded and with the sides swapped (``solve_race`` with ``alternate=False``)."""
    from muggins_env.agents.position_values import DealEvents

    n = len(deals.side)
    return DealEvents(np.concatenate([deals.side, 1 - deals.side]), np.concatenate([deals.points] * 2),
                      np.concatenate([deals.start, deals.start[1:] + n]))


def table(args: argparse.Namespace) -> None:
    from muggins_env.agents.position_values import DealEvents, dominoes_key, solve_race

    tables, summary = {}, {}
    for path in args.records:
        with np.load(path, allow_pickle=False) as z:
            rec = {k: z[k] for k in z.files}
        meta = json.loads(str(rec["meta"]))
        target = meta["target"]
        deals = DealEvents(rec["side"], rec["points"], rec["start"])
        k = len(deals)
        t0 = time.perf_counter()
        v = solve_race(both_sides(deals), target, alternate=False)
        seconds = time.perf_counter() - t0
        # the check against whole games: the table's chance for side 0 after the first hand
        # against who won (0-0 is 1/2 by symmetry, which says nothing)
        first, winner = rec["games_after_first_hand"], rec["games_winner"]
        decided = winner >= 0
        pred = v[first[decided, 0], first[decided, 1]]
        won = (winner[decided] == 0).astype(float)
        # the spread over ten interleaved batches of the hands of V where the games stood
        parts = [solve_race(both_sides(deals.subset(np.arange(b, k, 10))), target, alternate=False)
                 [first[decided, 0], first[decided, 1]].mean() for b in range(10)]
        key = dominoes_key(meta["players"], target)
        tables[key] = v.astype(np.float32)
        points = np.bincount(rec["kind"], weights=rec["points"].astype(np.float64), minlength=2) / k
        summary[key] = {
            "record": meta, "solve_seconds": round(seconds, 2),
            "points_per_hand_both_sides": {"play": round(float(points[PLAY]), 4),
                                           "bonus": round(float(points[BONUS]), 4)},
            "games_decided": int(decided.sum()),
            "games_after_first_hand": {"table_mean": float(pred.mean()),
                                       "table_se": float(np.std(parts, ddof=1) / np.sqrt(10)),
                                       "won_mean": float(won.mean()),
                                       "won_minus_table_se": float(np.std(won - pred, ddof=1) / np.sqrt(len(won)))}}
        print(key, json.dumps(summary[key]), flush=True)
    if args.write:
        Path(args.write).parent.mkdir(parents=True, exist_ok=True)
        info = {key: summary[key]["record"] for key in summary}
        np.savez_compressed(args.write, **tables, info=np.array(json.dumps(info, sort_keys=True)))
    if args.summary:
        Path(args.summary).parent.mkdir(parents=True, exist_ok=True)
        Path(args.summary).write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    r = sub.add_parser("record", help="play seeded heuristic hands and save their scoring events")
    r.add_argument("--players", type=int, choices=(2, 4), default=2, help="4: partnerships")
    r.add_argument("--hands", type=int, required=True)
    r.add_argument("--seed", type=int, required=True)
    r.add_argument("--games", type=int, default=0)
    r.add_argument("--progress", type=int, default=0)
    r.add_argument("--out", required=True)
    t = sub.add_parser("table", help="the win tables from recorded hands")
    t.add_argument("records", nargs="+")
    t.add_argument("--write")
    t.add_argument("--summary")
    args = ap.parse_args(argv)
    record(args) if args.command == "record" else table(args)


if __name__ == "__main__":
    main()
