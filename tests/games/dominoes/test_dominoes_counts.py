"""The announcement range is exactly 0..M, M the largest score one play can make
(docs/rules/dominoes.md §2.6, issue 16.7): ``reachable_counts`` against an exhaustive
enumeration of layouts built tile by tile with the game's own ``Layout``.

Two searches, per layout and set:
- *relaxed*: every layout reachable when each double is used at most once but any other tile
  may be used again (a superset of the real layouts: only the doubles and the open ends
  decide a count); its counts must all be in ``reachable_counts`` (nothing is missed);
- *witnesses*: for every count ``reachable_counts`` claims, a layout of distinct tiles of the
  set that shows it (nothing is claimed that no game can reach).
Both search breadth first over the layout's signature (open ends, doubles' free sides, the
spinners), which decides every later count. The line searches take a second; the one-spinner
and sniff layouts of the double-6 set take minutes each, so they run as a check script,
``benchmarks/check_dominoes_counts.py`` (same searches; its last result is on docs/rules/dominoes.md).

Every double a spinner (``spinners="every"``) is not enumerated: its largest count comes from
``benchmarks/check_dominoes_every.py`` (branch and bound over an exact tree model of a layout);
here a layout reaching the count that scores M, per set and scoring, is replayed through the
env, and the tree model is checked against the game's counting on random games.
"""

from __future__ import annotations

import json
from collections import deque

import numpy as np
import pytest

from muggins_env.games.dominoes import DominoesGame
from muggins_env.games.dominoes.layout import (
    EVERY_DOUBLE_MAX_COUNT,
    SCORINGS,
    Layout,
    make_variant,
    num_arms,
    play_score,
    reachable_counts,
)
from muggins_env.kernel.tiles import HALVES, num_tiles, parse_tile
from muggins_env.muggins_dominoes_v0 import raw_env
from tests import DATA
from tests.games.dominoes.test_dominoes_rules import legal


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


CASES = [("none", 6), ("none", 9), ("none", 2), ("none", 3)]  # 2, 3: the research sizes (line only)


@pytest.mark.parametrize("spinners,set_max", CASES)
def test_reachable_counts_are_exactly_the_counts_of_real_layouts(spinners, set_max):
    claimed = reachable_counts(spinners, set_max)
    relaxed = search(spinners, set_max, distinct=False)
    assert set(relaxed) <= claimed, f"counts missed: {sorted(set(relaxed) - claimed)}"
    witnesses = search(spinners, set_max, distinct=True)
    assert claimed <= set(witnesses), f"counts no layout shows: {sorted(claimed - set(witnesses))}"
    for path in witnesses.values():
        assert len(set(path)) == len(path)


@pytest.mark.parametrize("set_max", [2, 3, 6, 9, 12, 15])
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


# -- every double a spinner (five_up): the largest count and M ---------------------------------
#: M per set and scoring for ``spinners="every"``, and the count that scores it, as found by
#: ``benchmarks/check_dominoes_every.py`` (branch and bound over the exact tree model of a
#: layout; largest counts 75, 171, 304, 474)
EVERY_M = {
    6: {"fives": (75, 75), "threes": (75, 75), "fives_and_threes": (40, 75), "per_five": (15, 75),
        "primes": (73, 73)},
    9: {"fives": (170, 170), "threes": (171, 171), "fives_and_threes": (88, 165), "per_five": (34, 170),
        "primes": (167, 167)},
    12: {"fives": (300, 300), "threes": (303, 303), "fives_and_threes": (160, 300), "per_five": (60, 300),
         "primes": (293, 293)},
    15: {"fives": (470, 470), "threes": (474, 474), "fives_and_threes": (248, 465), "per_five": (94, 470),
         "primes": (467, 467)},
}
#: a layout per count above, found by the same model with the lead the highest double and two
#: tiles left over: [tile, slot] plays in order (slot 0 the lead), replayed through the env
WITNESSES = {int(n): {int(c): seq for c, seq in by.items()}
             for n, by in json.loads((DATA / "dominoes_every_witnesses.json")
                                     .read_text()).items() if n != "_source"}


def replay(set_max, plays, scoring="per_five"):
    """Deal the plays alternately to two players (each keeping one spare tile), play them with the
    muggins rule on (announcing the true score), and return the env before the last announcement."""
    used = {parse_tile(t, set_max) for t, _ in plays}
    spare = [t for t in range(num_tiles(set_max)) if t not in used]
    hands = [[t for t, _ in plays[0::2]] + spare[:1], [t for t, _ in plays[1::2]] + spare[1:2]]
    e = raw_env(variant="five_up", scoring=scoring, set_max=set_max, target=10 ** 6, episode="hand")
    e.reset(seed=0, options={"deal": {"hands": hands, "boneyard": spare[2:]}})
    for i, (tile, slot) in enumerate(plays):
        assert e.agent_selection == f"player_{i % 2}"
        e.step(e.game.play_action(tile, slot or 0))
        if i < len(plays) - 1:
            e.step(e.game.announce_action(e.kernel_state.true_score))
            e.step(e.game.ACCEPT)
    return e


@pytest.mark.parametrize("set_max", [6, 9, 12, 15])
@pytest.mark.parametrize("scoring", SCORINGS)
def test_every_double_m_is_reached_by_a_real_game(set_max, scoring):
    """M is the score of a count a game reaches (the witness replayed with a rigged deal), and the
    mask offers exactly 0..M."""
    m, count = EVERY_M[set_max][scoring]
    game = DominoesGame(scoring=scoring, spinners="every", set_max=set_max)
    assert game.max_announcement == m
    e = replay(set_max, WITNESSES[set_max][count], scoring)
    assert e.kernel_state.layout.count == count and e.kernel_state.true_score == m
    assert e.kernel_state.phase_name() == "announce"
    assert legal(e) == set(range(game.ANNOUNCE, game.ANNOUNCE + m + 1)) and game.ACCEPT == game.ANNOUNCE + m + 1


@pytest.mark.parametrize("set_max", [6, 9, 12, 15])
def test_every_double_m_is_the_best_score_up_to_the_largest_count(set_max):
    """No count above EVERY_DOUBLE_MAX_COUNT (the model's optimum), which a witness reaches; M is
    the best score of a count up to it (checked per scoring against the table)."""
    top = EVERY_DOUBLE_MAX_COUNT[set_max]
    assert replay(set_max, WITNESSES[set_max][top]).kernel_state.layout.count == top
    assert top >= max(c for _, c in EVERY_M[set_max].values())
    assert reachable_counts("every", set_max) == set(range(top + 1))
    for scoring, (m, _) in EVERY_M[set_max].items():
        variant = make_variant("x", scoring, "every", (0, 0))
        assert max(play_score(variant, c) for c in range(top + 1)) == m


def tree_count(nodes):
    """The count of the tree model (layout.EVERY_DOUBLE_MAX_COUNT): open outer halves, the
    lead's open halves, 2d per double without a child (the lead double: at most one)."""
    c = 0
    for nd in nodes:
        kids = len(nd["kids"])
        if nd["double"]:
            c += 2 * nd["pip"] if kids <= (1 if nd["lead"] else 0) else 0
        elif nd["lead"]:
            c += sum(h for h in nd["halves"] if h not in nd["kid_pips"])
        elif not kids:
            c += nd["outer"]
    return c


@pytest.mark.parametrize("set_max", [6, 9])
def test_the_tree_model_counts_like_the_game(set_max):
    """The bound's ingredients against the game on random five_up hands: every play hangs one tile
    on the tile (or spinner) at the end of its slot; a non-double takes one tile on its outer
    half (the lead one per half), a double three (the lead double four), and the count is the
    tree model's."""
    rng = np.random.default_rng(16)
    for seed in range(12):
        e = raw_env(variant="five_up", set_max=set_max, muggins="off", episode="hand", num_players=2)
        e.reset(seed=seed)
        nodes, arm_end, next_arm = [], {}, 3
        while e.kernel_state.phase_name() != "over":
            a = int(rng.choice(sorted(legal(e))))
            if a == e.game.PASS:
                e.step(a)
                continue
            tile, slot = divmod(a, e.game.num_slots)
            hi, lo = HALVES[tile]
            node = {"double": hi == lo, "pip": hi, "lead": not nodes, "kids": [], "kid_pips": [],
                    "halves": (hi, lo)}
            if nodes:
                parent = arm_end[slot]
                pip = parent["pip"] if parent["double"] else parent["halves"][slot - 1] if parent["lead"] \
                    else parent["outer"]
                assert pip in (hi, lo)
                node["outer"] = lo if hi == pip else hi
                parent["kids"].append(node)
                parent["kid_pips"].append(pip)
                cap = 4 if parent["double"] and parent["lead"] else 3 if parent["double"] else \
                    2 if parent["lead"] else 1
                assert len(parent["kids"]) <= cap and (not parent["lead"] or parent["double"]
                                                       or parent["kid_pips"].count(pip) == 1)
                arm_end[slot] = node
            else:
                arm_end[1] = arm_end[2] = node
            if hi == lo:
                arm_end[next_arm] = arm_end[next_arm + 1] = node
                next_arm += 2
            nodes.append(node)
            e.step(a)
            assert e.kernel_state.layout.count == tree_count(nodes)
            assert e.kernel_state.layout.count <= EVERY_DOUBLE_MAX_COUNT[set_max]


def test_the_research_sets_are_lines_only():
    """set_max 2 and 3 (research sizes, the OpenSpiel bridge) with the line, whose counts are exact
    for any set (above); the spinner layouts' bounds assume a double-6 or larger, so they refuse."""
    game = DominoesGame(set_max=2, hand_size=2)
    assert (game.num_tiles, game.max_announcement) == (6, 5)  # a line of double-2 counts at most 2-2 + 2 = 6
    with pytest.raises(ValueError, match=r"option set_max=3 needs spinners='none' \(a line\), got spinners='first'"):
        DominoesGame(set_max=3, variant="all_fives", hand_size=3)
