"""Check ``EVERY_DOUBLE_MAX_COUNT`` and the announcement range of ``spinners="every"`` (every
double a spinner, the ``five_up`` layout; issue 16.7) by branch and bound over an exact model of
a layout. Usage: python benchmarks/check_dominoes_every.py [set_max ...]   (default: 6; 9, 12 and
15 take a minute or a few each). Needs scipy (its MILP solver, HiGHS; the [dev] extra).

The model (why it is exact, see ``layout.EVERY_DOUBLE_MAX_COUNT``): a layout is a tree of
distinct tiles rooted at the lead. A node is a non-double tile with its inner (attached) and
outer half, a double, or the non-double lead; a non-double tile takes at most one child on its
outer half, a double at most three (the lead double four), the lead one per half; a child
attaches on a matching pip. The count is the sum of the open outer halves, of the lead's open
halves, and of 2d per double d with no child (the lead double: at most one). A flow from the
root makes every used node reachable (no detached cycles). Any solution can be played
breadth first, each double's side before its ends, so the optimum is the largest count.

For each set the script proves the largest count (``optimal`` from the solver), then, for each
scoring, finds the best-scoring count that a layout shows, and compares with ``max_announcement``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

try:
    import numpy as np
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import coo_matrix
except ImportError:  # pragma: no cover
    sys.exit("check_dominoes_every.py needs scipy (the [dev] extra: pip install 'muggins-env[dev]')")

from muggins_env.games.dominoes import DominoesGame
from muggins_env.games.dominoes.layout import EVERY_DOUBLE_MAX_COUNT, SCORINGS, make_variant, play_score


def model(n: int):
    """Nodes, arcs (parent, pip, child) and the MILP pieces of the layouts of a double-n set."""
    pips = range(n + 1)
    nodes = [("o", a, b) for a in pips for b in pips if a != b] + [("d", d) for d in pips] + \
        [("L", a, b) for a in pips for b in pips if a < b]
    arcs = []
    for c in nodes:
        if c[0] == "L":
            continue
        need = c[1]  # the pip the child attaches with (its inner half, or the double's pip)
        for p in nodes:
            same_tile = c[0] != "d" and p[0] != "d" and set(p[1:]) == set(c[1:])
            on_outer = p[0] == "o" and p[2] == need and not same_tile
            on_double = p[0] == "d" and p[1] == need and c[0] == "o"
            on_lead = p[0] == "L" and need in p[1:] and not same_tile
            if on_outer or on_double or on_lead:
                arcs.append((p, need, c))
    return nodes, arcs


def solve(n: int, count: int | None = None, time_limit: float = 1200):
    """The largest count (``count`` None) or whether a layout shows ``count``: (status, value)."""
    nodes, arcs = model(n)
    nn, na = len(nodes), len(arcs)
    idx = {v: i for i, v in enumerate(nodes)}
    use, root, x, f, opn, opn2, many = 0, nn, 2 * nn, 2 * nn + na, 2 * nn + 2 * na, 3 * nn + 2 * na, 4 * nn + 2 * na
    size = 5 * nn + 2 * na
    rows, cols, vals, lo, hi = [], [], [], [], []

    def con(terms, low, high):
        r = len(lo)
        for j, c in terms:
            rows.append(r)
            cols.append(j)
            vals.append(c)
        lo.append(low)
        hi.append(high)

    big = nn
    ub = np.ones(size)
    ub[f:f + na] = big
    integrality = np.ones(size)
    integrality[f:f + na] = 0
    obj = np.zeros(size)
    into = {i: [] for i in range(nn)}
    out = {i: [] for i in range(nn)}
    for k, (p, pip, c) in enumerate(arcs):
        into[idx[c]].append(k)
        out[idx[p]].append((k, pip))
    con([(root + i, 1) for i, v in enumerate(nodes) if v[0] in "dL"], 1, 1)  # one lead
    for i, v in enumerate(nodes):
        kids = [(x + k, 1) for k, _ in out[i]]
        if v[0] != "d":
            ub[many + i] = 0
        if v[0] == "o":
            ub[root + i] = ub[opn2 + i] = 0
        if v[0] == "d":
            ub[opn2 + i] = 0
        if v[0] == "L":
            con([(use + i, 1), (root + i, -1)], 0, 0)
        else:  # used: the lead, or exactly one parent
            con([(use + i, 1), (root + i, -1)] + [(x + k, -1) for k in into[i]], 0, 0)
        con([(root + i, 1), (use + i, -1)], -1, 0)
        # flow: the root sends, every used node keeps one unit
        con([(f + k, 1) for k in into[i]] + [(f + k, -1) for k, _ in out[i]] + [(use + i, -1), (root + i, big)],
            0, big)
        for k in into[i]:
            con([(f + k, 1), (x + k, -big)], -2 * big, 0)
        if v[0] == "o":  # the outer half: one child, or open
            con(kids + [(opn + i, 1), (use + i, -1)], 0, 0)
            obj[opn + i] = v[2]
        elif v[0] == "d":
            con(kids + [(root + i, -1), (use + i, -3)], -99, 0)  # 3 children, the lead double 4
            con(kids + [(opn + i, 4), (root + i, -1)], -99, 4)  # counts: no child (the lead: <= 1)
            con([(opn + i, 1), (use + i, -1)] + kids, 0, 99)  # used, no child: counts
            con(kids + [(many + i, -2)], 0, 99)  # many = at least two children
            con(kids + [(many + i, -3)], -99, 1)
            con([(opn + i, 1), (root + i, -1), (many + i, 1)], 0, 99)  # the lead with <= 1 child counts
            con([(opn + i, 1), (use + i, -1)], -1, 0)
            obj[opn + i] = 2 * v[1]
        else:
            a, b = v[1], v[2]
            con([(x + k, 1) for k, p in out[i] if p == a] + [(opn + i, 1), (use + i, -1)], 0, 0)
            con([(x + k, 1) for k, p in out[i] if p == b] + [(opn2 + i, 1), (use + i, -1)], 0, 0)
            obj[opn + i], obj[opn2 + i] = a, b
    for a in range(n + 1):  # every tile once
        for b in range(a + 1, n + 1):
            con([(use + idx[("o", a, b)], 1), (use + idx[("o", b, a)], 1), (use + idx[("L", a, b)], 1)], 0, 1)
    if count is not None:
        con([(j, obj[j]) for j in range(size) if obj[j]], count, count)
    a_ = coo_matrix((vals, (rows, cols)), shape=(len(lo), size)).tocsr()
    res = milp(np.zeros(size) if count is not None else -obj, constraints=LinearConstraint(a_, lo, hi),
               integrality=integrality, bounds=Bounds(0, ub), options={"time_limit": time_limit})
    status = {0: "optimal", 1: "time limit", 2: "infeasible"}.get(res.status, f"status {res.status}")
    return status, (None if res.x is None else round(float(obj @ res.x)))


def main(argv: list[str]) -> int:
    bad = 0
    for n in [int(a) for a in argv] or [6]:
        t = time.perf_counter()
        status, top = solve(n)
        ok = status == "optimal" and top == EVERY_DOUBLE_MAX_COUNT[n]
        bad += not ok
        print(f"double-{n}: largest count {top} ({status}, {time.perf_counter() - t:.0f} s); "
              f"EVERY_DOUBLE_MAX_COUNT {EVERY_DOUBLE_MAX_COUNT[n]}: {'ok' if ok else 'FAILED'}", flush=True)
        shown = {top: True}
        for scoring in SCORINGS:
            variant = make_variant("x", scoring, "every", (0, 0))
            for c in sorted(range(top + 1), key=lambda c: -play_score(variant, c)):
                if c not in shown:
                    shown[c] = solve(n, c)[0] == "optimal"
                if shown[c]:
                    break
            m = play_score(variant, c)
            game = DominoesGame(scoring=scoring, spinners="every", set_max=n)
            ok = game.max_announcement == m
            bad += not ok
            print(f"  {scoring}: M = {m} (count {c}); max_announcement {game.max_announcement}: "
                  f"{'ok' if ok else 'FAILED'} ({time.perf_counter() - t:.0f} s)", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
