"""The announcement range is exactly 0..M, M the largest score one play can make (RULES.md
§2.6, issue 16.7): ``reachable_counts`` against an exhaustive enumeration of layouts built
tile by tile with the game's own ``Layout``.

Two searches, per layout and set:
- *relaxed*: every layout reachable when each double is used at most once but any other tile
  may be used again (a superset of the real layouts: only the doubles and the open ends
  decide a count); its counts must all be in ``reachable_counts`` (nothing is missed);
- *witnesses*: for every count ``reachable_counts`` claims, a layout of distinct tiles of the
  set that shows it (nothing is claimed that no game can reach).
Both search breadth first over the layout's signature (open ends, doubles' free sides, the
spinners), which decides every later count. The line searches take a second; the one-spinner
and sniff layouts of the double-6 set take minutes each, so they run as a check script,
``benchmarks/check_dominoes_counts.py`` (same searches; its last result is in the README).
"""

from __future__ import annotations

from collections import deque

import pytest

from muggins_env.games.dominoes import DominoesGame
from muggins_env.games.dominoes.layout import (
    SCORINGS,
    VARIANTS,
    Layout,
    count_bound,
    make_variant,
    num_arms,
    play_score,
    reachable_counts,
)
from muggins_env.kernel.tiles import HALVES, num_tiles


def signature(lay: Layout) -> tuple:
    """What decides every later count: the open ends (pip, started, still the lead's bare half,
    a double with a free side there) and the spinners (pip, free sides, ends started). A double
    at an end has the end's pip, so the doubles in view are known too."""
    arms = tuple((k, lay.pip[k], lay.length[k] > 0, lay.root_lead[k],
                  lay.node_free[lay.node[k]] if lay.node[k] >= 0 else -1) for k in sorted(lay.open_arms))
    spinners = tuple((lay.node_pip[i], lay.node_free[i], tuple(lay.length[e] > 0 for e in ends))
                     for i, ends in enumerate(lay.node_ends) if lay.node_spinner[i])
    return arms, spinners, lay.spinners


def doubles_in_view(lay: Layout) -> set[int]:
    """The doubles that still count or spin: a relaxed layout may not play them again."""
    out = {lay.node_pip[lay.node[k]] for k in lay.open_arms if lay.node[k] >= 0}
    return out | {p for p, s in zip(lay.node_pip, lay.node_spinner) if s}


def search(spinners: str, set_max: int, distinct: bool) -> dict[int, list[int]]:
    """count -> the tiles of one layout showing it, breadth first over signatures. ``distinct``:
    every tile at most once (real layouts); otherwise only the doubles in view are excluded, a
    superset of the real layouts (a covered crosswise double only continues its arm's pip)."""
    variant = make_variant("x", "fives", spinners, (0, 0))
    tiles = range(num_tiles(set_max))
    found: dict[int, list[int]] = {}
    seen = set()
    queue = deque()

    def push(lay, path):
        sig = signature(lay)
        if sig not in seen:
            seen.add(sig)
            found.setdefault(lay.count, path)
            queue.append((lay, path))

    for t in tiles:
        lay = Layout(variant.layout, variant.sniff, num_arms(variant, set_max))
        lay.place_lead(t)
        push(lay, [t])
    while queue:
        lay, path = queue.popleft()
        blocked = doubles_in_view(lay)
        for k in lay.open_arms:
            p = lay.pip[k]
            for t in tiles:
                hi, lo = HALVES[t]
                if p != hi and p != lo:
                    continue
                if (distinct and t in path) or (hi == lo and hi in blocked):
                    continue
                c = lay.copy()
                c.place(t, k)
                push(c, path + [t])
    return found


CASES = [("none", 6), ("none", 9)]


@pytest.mark.parametrize("spinners,set_max", CASES)
def test_reachable_counts_are_exactly_the_counts_of_real_layouts(spinners, set_max):
    claimed = reachable_counts(spinners, set_max)
    relaxed = search(spinners, set_max, distinct=False)
    assert set(relaxed) <= claimed, f"counts missed: {sorted(set(relaxed) - claimed)}"
    witnesses = search(spinners, set_max, distinct=True)
    assert claimed <= set(witnesses), f"counts no layout shows: {sorted(claimed - set(witnesses))}"
    for path in witnesses.values():
        assert len(set(path)) == len(path)


@pytest.mark.parametrize("set_max", [6, 9, 12, 15])
def test_line_counts_are_two_ends_each_a_pip_or_a_crosswise_double(set_max):
    """Independent of the search: a line count is the sum of two ends, each a pip 0..set_max
    or a crosswise double 2d, the two doubles different."""
    values = [("pip", p, p) for p in range(set_max + 1)] + [("double", d, 2 * d) for d in range(set_max + 1)]
    want = {a[2] + b[2] for a in values for b in values if not (a[0] == b[0] == "double" and a[1] == b[1])}
    assert reachable_counts("none", set_max) == want


@pytest.mark.parametrize("set_max", [6, 9, 12, 15])
@pytest.mark.parametrize("scoring", SCORINGS)
@pytest.mark.parametrize("spinners", ["none", "first", "sniff"])
def test_the_mask_offers_announcements_zero_to_the_largest_reachable_score(spinners, scoring, set_max):
    game = DominoesGame(scoring=scoring, spinners=spinners, set_max=set_max)
    m = max(play_score(game.variant, c) for c in reachable_counts(spinners, set_max))
    assert game.max_announcement == m
    assert game.announce_actions == list(range(game.ANNOUNCE, game.ANNOUNCE + m + 1))
    assert game.ACCEPT == game.ANNOUNCE + m + 1


def test_issue_16_examples():
    """The ranges issue 16.7 found too wide, now exact."""
    cases = {("all_threes", 6): 18, ("all_threes", 9): 30, ("all_threes", 12): 42, ("all_threes", 15): 54,
             ("muggins", 12): 40, ("muggins", 15): 50, ("fives_and_threes", 12): 16}
    for (variant, set_max), m in cases.items():
        assert DominoesGame(variant=variant, set_max=set_max).max_announcement == m


@pytest.mark.parametrize("set_max", [6, 9, 12, 15])
def test_every_double_a_spinner_keeps_the_bound(set_max):
    """``spinners="every"`` is not enumerated: every count up to the bound is allowed."""
    assert reachable_counts("every", set_max) == set(range(count_bound(VARIANTS["five_up"], set_max) + 1))
