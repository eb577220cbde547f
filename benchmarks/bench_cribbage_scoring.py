"""Speed of the public cribbage scoring API (not a timed test).

Reports:
  all_hands    time to score every (4-card hand, starter) pair, 12,994,800 rows, with
               ``score_hands_batch`` (the pairs are built once, outside the timing), and checks
               the totals against the published distribution (tests/data) when it is found
  discard      time of one lay-away decision with ``discard_values``: the expected hand value of
               each of the 15 two-card discards of a 6-card hand over the 46 possible starters
               (and of the 5 one-card discards of a 5-card hand over 46 starters, 3-4 players)
  single       ``score_hand`` and the engine's ``fast_score`` per call, for scale

    python benchmarks/bench_cribbage_scoring.py [--repeats 5] [--decisions 2000] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import numpy as np

from muggins_env.games.cribbage.scoring import (
    all_hands_and_starters,
    discard_values,
    fast_score,
    score_hand,
    score_hands_batch,
)

# the published distribution (its source is named inside the file), shipped with the tests
DISTRIBUTION = Path(__file__).resolve().parents[1] / "tests" / "data" / "cribbage_hand_distribution.json"


def bench_all_hands(repeats: int) -> dict:
    hands, starters = all_hands_and_starters()
    times, scores = [], None
    for _ in range(repeats):
        t = time.perf_counter()
        scores = score_hands_batch(hands, starters)
        times.append(time.perf_counter() - t)
    counts = np.bincount(scores, minlength=30).tolist()
    out = {"rows": len(hands), "seconds_median": statistics.median(times), "seconds_min": min(times),
           "rows_per_second": len(hands) / statistics.median(times), "mean_score": float(scores.mean())}
    if DISTRIBUTION.exists():
        expected = json.loads(DISTRIBUTION.read_text())["counts"]
        out["matches_published_distribution"] = counts == [int(expected[str(k)]) for k in range(30)]
    return out


def bench_discard(decisions: int, hand_size: int, n_discard: int, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    hands = [rng.choice(52, hand_size, replace=False).tolist() for _ in range(decisions)]
    discard_values(hands[0], n_discard)  # warm-up
    t = time.perf_counter()
    for h in hands:
        discard_values(h, n_discard)
    per = (time.perf_counter() - t) / decisions
    return {"hand_size": hand_size, "n_discard": n_discard, "decisions": decisions,
            "ms_per_decision": per * 1e3}


def bench_single(calls: int, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    rows = [rng.choice(52, 5, replace=False).tolist() for _ in range(calls)]
    t = time.perf_counter()
    for r in rows:
        score_hand(r[:4], r[4])
    public = (time.perf_counter() - t) / calls
    t = time.perf_counter()
    for r in rows:
        fast_score(r[:4], r[4], False)
    fast = (time.perf_counter() - t) / calls
    return {"score_hand_us": public * 1e6, "fast_score_us": fast * 1e6}


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--decisions", type=int, default=2000)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    result = {
        "all_hands": bench_all_hands(args.repeats),
        "discard_6_cards": bench_discard(args.decisions, 6, 2),
        "discard_5_cards": bench_discard(args.decisions, 5, 1),
        "single": bench_single(20_000),
    }
    a = result["all_hands"]
    print(f"all {a['rows']:,} hand+starter pairs: {a['seconds_median']:.3f} s median "
          f"({a['rows_per_second'] / 1e6:.1f} M rows/s), mean {a['mean_score']:.5f}, "
          f"published distribution matched: {a.get('matches_published_distribution', 'n/a')}")
    for key in ("discard_6_cards", "discard_5_cards"):
        d = result[key]
        print(f"discard decision, {d['hand_size']} cards, lay away {d['n_discard']}: "
              f"{d['ms_per_decision']:.3f} ms")
    s = result["single"]
    print(f"score_hand {s['score_hand_us']:.2f} us/call, fast_score {s['fast_score_us']:.2f} us/call")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
