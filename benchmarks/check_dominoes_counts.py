"""Check ``reachable_counts`` (the exact announcement range, issue 16.7) for the spinner layouts
too, by the exhaustive searches of ``tests/games/dominoes/test_dominoes_counts.py`` (minutes per layout, so
not in the suite, which runs the line layouts). Usage: python benchmarks/check_dominoes_counts.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from muggins_env.games.dominoes.layout import reachable_counts
from tests.games.dominoes.test_dominoes_counts import search

CASES = [("none", 6), ("none", 9), ("first", 6), ("sniff", 6)]


def main() -> int:
    bad = 0
    for spinners, set_max in CASES:
        claimed = reachable_counts(spinners, set_max)
        for distinct in (False, True):
            t = time.perf_counter()
            found = set(search(spinners, set_max, distinct))
            wrong = found - claimed if not distinct else claimed - found
            bad += bool(wrong)
            what = "real layouts (distinct tiles) show every claimed count" if distinct else \
                "no relaxed layout shows a count not claimed"
            print(f"spinners={spinners} set_max={set_max}: {what}: {'FAILED ' + str(sorted(wrong)) if wrong else 'ok'}"
                  f" ({len(found)} counts, {time.perf_counter() - t:.0f} s)", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
