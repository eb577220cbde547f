"""Layouts of the Fives family and their counting (docs/rules/dominoes.md §2.3-§2.5): pure rules, plain ints.

A layout is a lead tile with *arms* growing from it. Arms are numbered in a fixed way that
the action space uses as end *slots* (slot 0 is the lead itself):

* arms 1 and 2 start at the lead: arm 1 on the lead's high half (west), arm 2 on its low
  half (east); for a double lead both carry its pip. For a spinner lead they are its
  *sides*.
* every spinner reserves, when it is played, the next two free arm numbers for its two
  *ends* (north, then south): the first spinner of a hand gets arms 3 and 4, the next
  (``five_up`` only) 5 and 6, and so on. Its end arms open once both its sides are covered
  (for a spinner inside an arm, one side is the tile it was played on and the other is the
  continuation of that arm).

So a line layout has arms 1-2, a single-spinner layout arms 1-4 and an every-double-spinner
layout (``five_up``) arms 1..2*set_max+4 (one pair per double of the set).

Counting (the sum of the open ends, docs/rules/dominoes.md §2.3):
* the open end of an arm counts its pip value (an arm not yet started from a non-double lead
  counts the lead's half);
* a double with a free side counts its total pips: a crosswise double at the end of an arm,
  a double lead in a line layout while one of its sides is free, and a spinner (``all_fives``,
  ``five_up``) while at least one of its sides is free; once both sides are covered it no
  longer counts, and its end arms count only once started;
* the ``sniff`` (the only spinner of ``sniff``) instead counts its pip once for each of its
  two ends that no arm covers yet, whatever its sides.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import combinations

from ...kernel.tiles import HALVES

LINE, ONE_SPINNER, EVERY_DOUBLE = 0, 1, 2
LAYOUT_NAMES = ("line", "one spinner", "every double a spinner")


#: values of the orthogonal options of docs/rules/dominoes.md §2.8
SCORINGS = ("fives", "threes", "fives_and_threes", "per_five", "primes")
SPINNERS = ("none", "first", "sniff", "every")
SPINNER_LAYOUT = {"none": LINE, "first": ONE_SPINNER, "sniff": ONE_SPINNER, "every": EVERY_DOUBLE}


@dataclass(frozen=True)
class Variant:
    """The scoring and layout rules of one game (docs/rules/dominoes.md §2.4, §2.8): a preset, or a preset
    with ``scoring`` / ``spinners`` overridden (``make_variant``)."""

    name: str
    layout: int  # LINE, ONE_SPINNER or EVERY_DOUBLE
    sniff: bool  # the spinner counts its uncovered ends (sniff rule) instead of the all_fives rule
    fives: bool  # a count that is a multiple of 5 scores
    threes: bool  # a count that is a multiple of 3 scores
    per_multiple: bool  # 1 point per multiple (and the end-of-hand bonus divided by 5)
    rounding: int  # end-of-hand pips are rounded to the nearest multiple of this
    target_two: int  # default target, 2 players
    target_more: int  # default target, 3-4 players
    primes: bool = False  # a prime count scores itself; the end bonus is a tile rounded to a prime

    @property
    def scoring(self) -> str:
        if self.primes:
            return "primes"
        if self.per_multiple:
            return "fives_and_threes" if self.threes else "per_five"
        return "fives" if self.fives else "threes"

    @property
    def spinners(self) -> str:
        return ("none", "sniff" if self.sniff else "first", "every")[self.layout]


def make_variant(name: str, scoring: str, spinners: str, targets: tuple[int, int]) -> Variant:
    """The Variant of ``scoring`` on a ``spinners`` layout (the option values of docs/rules/dominoes.md §2.8)."""
    return Variant(name, SPINNER_LAYOUT[spinners], spinners == "sniff",
                   fives=scoring in ("fives", "fives_and_threes", "per_five"),
                   threes=scoring in ("threes", "fives_and_threes"),
                   per_multiple=scoring in ("fives_and_threes", "per_five"),
                   rounding=3 if scoring == "threes" else 5, target_two=targets[0], target_more=targets[1],
                   primes=scoring == "primes")


@dataclass(frozen=True)
class Preset:
    """A ``variant`` name: the default of every option it sets (docs/rules/dominoes.md §2.8)."""

    scoring: str
    spinners: str
    target_two: int
    target_more: int
    muggins: str = "forfeit"
    win_bonus: str | int = "pips"


PRESETS: dict[str, Preset] = {
    "muggins": Preset("fives", "none", 200, 150),
    "all_threes": Preset("threes", "none", 200, 150),
    "fives_and_threes": Preset("fives_and_threes", "none", 61, 61),
    "all_fives": Preset("fives", "first", 200, 150),
    "sniff": Preset("fives", "sniff", 200, 150),
    "five_up": Preset("per_five", "every", 61, 61),
    "fives_1863": Preset("per_five", "none", 31, 31, muggins="off", win_bonus=1),
    "primes": Preset("primes", "none", 200, 150),
}

VARIANTS: dict[str, Variant] = {
    name: make_variant(name, p.scoring, p.spinners, (p.target_two, p.target_more)) for name, p in PRESETS.items()}


def num_arms(variant: Variant, set_max: int) -> int:
    """How many arms a layout of this variant can ever have (the end slots besides the lead)."""
    if variant.layout == LINE:
        return 2
    if variant.layout == ONE_SPINNER:
        return 4
    return 2 + 2 * (set_max + 1)


def is_prime(n: int) -> bool:
    return n >= 2 and all(n % d for d in range(2, int(n ** 0.5) + 1))


def nearest_prime(n: int) -> int:
    """The prime nearest ``n``; an exact tie between two primes gives the larger; 0 and 1 give 2
    (docs/rules/dominoes.md §2.8 Primes: 8 -> 7, 9 -> 11, 10 -> 11, 12 -> 13, 4 -> 5)."""
    for d in range(n + 1):
        if is_prime(n + d):
            return n + d
        if is_prime(n - d):
            return n - d
    return 2


def play_score(variant: Variant, count: int) -> int:
    """Points a play scores when the layout counts ``count`` (docs/rules/dominoes.md §2.4; 0 never scores)."""
    if count <= 0:
        return 0
    if variant.primes:
        return count if is_prime(count) else 0
    if variant.per_multiple:
        return ((count // 5 if variant.fives and count % 5 == 0 else 0)
                + (count // 3 if variant.threes and count % 3 == 0 else 0))
    if (variant.fives and count % 5 == 0) or (variant.threes and count % 3 == 0):
        return count
    return 0


def count_bound(variant: Variant, set_max: int) -> int:
    """An upper bound of the count: each arm's open end counts at most one value, a
    non-double end at most ``set_max`` and each double (crosswise, or a spinner with a
    free side, or the sniff's two ends) at most its total pips, once. Exact for the line
    (4*set_max - 2: the two highest doubles crosswise at the two ends) and for one spinner
    (four distinct doubles crosswise at the four arms); it scales the observation's count."""
    arms = num_arms(variant, set_max)
    values = sorted([2 * d for d in range(set_max + 1)] + [set_max] * arms, reverse=True)
    return sum(values[:arms])


def _end_sums(ends: int, set_max: int, forbidden: int = -1) -> int:
    """Bit set of the sums of ``ends`` open ends, each a pip 0..set_max or a crosswise double
    (its total pips), the doubles all different and none the ``forbidden`` double."""
    doubles = [d for d in range(set_max + 1) if d != forbidden]
    out = 0
    for j in range(min(ends, len(doubles)) + 1):
        pips = (1 << ((ends - j) * set_max + 1)) - 1  # any sum of ends - j pips
        for ds in combinations(doubles, j):
            out |= pips << (2 * sum(ds))
    return out


#: The largest count a layout with every double a spinner (``spinners="every"``) can show, per
#: set. A layout is a tree of distinct tiles grown from the lead: a non-double tile takes at
#: most one tile on its outer half (the lead one per half), a double at most three (the
#: lead double four: two sides, then its two ends), and the count is the sum of the open
#: outer halves (a bare lead half included) and of 2d for each double d with a free side
#: (no tile on it; the lead double: at most one). Conversely any such tree can be played in
#: breadth-first order, each double's side before its ends. So the largest count is the
#: optimum of that integer program over the set's tiles, which
#: ``benchmarks/check_dominoes_every.py`` solves exactly by branch and bound (and checks that
#: the counts scoring M are each reached); ``tests/games/dominoes/test_dominoes_counts.py`` replays a layout
#: showing each of those counts through the env with a rigged deal, and checks the tree
#: rules above against the game's own counting on random games. Why the count stays far
#: below ``count_bound`` (108 for double-6): an arm needs a spinner to branch, a spinner
#: spends its double (no 2d) and, with its parent and its three branches, four of the
#: set_max tiles of its pip; the high pips are what the open ends want, so the spinners
#: sit on low pips and at most 2 + 2 * spinners ends count, mostly set_max and set_max - 1.
#: Double-6: 75 (e.g. spinners 0..4, ends 6-6, 5-5 and ten ends of 4, 5 or 6).
EVERY_DOUBLE_MAX_COUNT = {6: 75, 9: 171, 12: 304, 15: 474}


@cache
def reachable_counts(spinners: str, set_max: int) -> frozenset[int]:
    """Every count a layout can show (docs/rules/dominoes.md §2.3; issue 16.7), from what a count is made of:
    - ``none`` (a line): two ends, each a pip or a crosswise double (two different doubles);
    - ``first``: that, or three or four ends once the spinner's sides are covered (the spinner
      itself no longer counts, so its double is none of the ends');
    - ``sniff``: a line without doubles before the sniff is played, then the sniff's pip
      counted once per uncovered end: twice with up to two other ends (its sides, or the
      other lead arm and its continuation), once with three, never with four; the sniff's
      double is none of the ends';
    - ``every``: taken as every count up to ``EVERY_DOUBLE_MAX_COUNT``, which no layout
      exceeds. Below it the counts are not enumerated one by one (a few may be missing),
      but M over them is exact: the count that scores M is shown by a real layout for every
      scoring and set (``tests/games/dominoes/test_dominoes_counts.py``).
    Every set holds enough tiles for these ends (set_max >= 6 gives 7+ doubles and 6+ tiles
    per pip), which ``tests/games/dominoes/test_dominoes_counts.py`` checks by building layouts tile by tile."""
    if spinners == "every":
        return frozenset(range(EVERY_DOUBLE_MAX_COUNT[set_max] + 1))
    bits = _end_sums(2, set_max)
    if spinners == "first":
        bits |= _end_sums(3, set_max) | _end_sums(4, set_max)
    elif spinners == "sniff":
        bits = (1 << (2 * set_max + 1)) - 1  # two pips, no double yet
        for d in range(set_max + 1):
            for times, ends in ((2, 0), (2, 1), (2, 2), (1, 3), (0, 4)):
                bits |= _end_sums(ends, set_max, d) << (times * d)
    return frozenset(c for c in range(bits.bit_length()) if bits >> c & 1)


def max_announcement(variant: Variant, set_max: int) -> int:
    """The largest score one play can make: the top of the announcement range (exactly, over
    ``reachable_counts``; docs/rules/dominoes.md §2.6)."""
    return max(play_score(variant, c) for c in reachable_counts(variant.spinners, set_max))


def round_to(pips: int, multiple: int) -> int:
    """Nearest multiple (2 -> 0, 3 -> 5, 27 -> 25, 28 -> 30; by 3: 4 -> 3, 5 -> 6)."""
    return (pips + multiple // 2) // multiple * multiple


def bonus_points(variant: Variant, pips: int) -> int:
    """End-of-hand points for ``pips``: rounded, then divided by 5 in per-multiple variants
    (``primes`` rounds a tile's weight instead: ``prime_bonus``)."""
    r = round_to(max(pips, 0), variant.rounding)
    return r // 5 if variant.per_multiple else r


def prime_bonus(heaviest: int) -> int:
    """Primes' end-of-hand points: the heaviest tile left to the opponents, to the nearest prime."""
    return nearest_prime(heaviest)


class Layout:
    """The tiles on the table of one hand (see the module docstring for arms and counting).

    Per arm ``k`` (1..num_arms; index 0 unused): ``pip[k]`` the pip an added tile must match,
    ``length[k]`` tiles in the arm, ``node[k]`` the double whose free side is the arm's open
    end (-1 if none), ``root_lead[k]`` the arm is still the bare half of a non-double lead,
    ``is_open[k]`` tiles may be added. Per double played (a *node*): ``node_pip``,
    ``node_free`` (free sides), ``node_spinner``, ``node_ends`` (its two end arms, spinners).
    """

    __slots__ = (
        "arm_tiles",
        "count",
        "is_open",
        "lead",
        "length",
        "mode",
        "next_arm",
        "node",
        "node_ends",
        "node_free",
        "node_pip",
        "node_spinner",
        "num_arms",
        "open_arms",
        "open_bits",
        "pip",
        "root_lead",
        "root_pip",
        "sniff",
        "spinners",
    )

    def __init__(self, mode: int, sniff: bool, arms: int) -> None:
        self.mode = mode
        self.sniff = sniff
        self.num_arms = arms
        size = arms + 1
        self.pip = [0] * size
        self.length = [0] * size
        self.node = [-1] * size
        self.root_lead = [False] * size
        self.is_open = [False] * size
        self.root_pip = [0] * size  # the pip the arm grows from (for display)
        self.arm_tiles: list[list[int]] = [[] for _ in range(size)]
        self.open_arms: list[int] = []  # in the order they opened
        self.open_bits = 0  # bit p set when some open end has pip p
        self.next_arm = 1
        self.node_pip: list[int] = []
        self.node_free: list[int] = []
        self.node_spinner: list[bool] = []
        self.node_ends: list[tuple[int, int]] = []
        self.spinners = 0
        self.lead = -1
        self.count = 0

    def copy(self) -> Layout:
        c = object.__new__(Layout)
        c.mode, c.sniff, c.num_arms = self.mode, self.sniff, self.num_arms
        c.pip, c.length, c.node = self.pip[:], self.length[:], self.node[:]
        c.root_lead, c.is_open, c.root_pip = self.root_lead[:], self.is_open[:], self.root_pip[:]
        c.arm_tiles = [a[:] for a in self.arm_tiles]
        c.open_arms, c.open_bits, c.next_arm = self.open_arms[:], self.open_bits, self.next_arm
        c.node_pip, c.node_free = self.node_pip[:], self.node_free[:]
        c.node_spinner, c.node_ends = self.node_spinner[:], self.node_ends[:]
        c.spinners, c.lead, c.count = self.spinners, self.lead, self.count
        return c

    # -- building -----------------------------------------------------------------------------
    def _open(self, arm: int, pip: int) -> None:
        self.is_open[arm] = True
        self.pip[arm] = pip
        self.root_pip[arm] = pip
        self.open_arms.append(arm)

    def _new_double(self, pip: int, free_sides: int) -> int:
        spinner = self.mode == EVERY_DOUBLE or (self.mode == ONE_SPINNER and self.spinners == 0)
        ends = (-1, -1)
        if spinner:
            ends = (self.next_arm, self.next_arm + 1)
            self.next_arm += 2
            self.spinners += 1
        self.node_pip.append(pip)
        self.node_free.append(free_sides)
        self.node_spinner.append(spinner)
        self.node_ends.append(ends)
        return len(self.node_pip) - 1

    def place_lead(self, tile: int) -> None:
        hi, lo = HALVES[tile]
        self.lead = tile
        self._open(1, hi)
        self._open(2, lo)
        self.next_arm = 3
        if hi == lo:
            self.node[1] = self.node[2] = self._new_double(hi, 2)
        else:
            self.root_lead[1] = self.root_lead[2] = True
        self._refresh()

    def place(self, tile: int, arm: int) -> None:
        """Add ``tile`` to the open end of ``arm`` (the caller checked that a half matches)."""
        hi, lo = HALVES[tile]
        p = self.pip[arm]
        outer = lo if hi == p else hi
        nd = self.node[arm]
        if nd >= 0:  # covers a free side of the double at this end
            self.node_free[nd] -= 1
            if self.node_free[nd] == 0 and self.node_spinner[nd]:
                e1, e2 = self.node_ends[nd]
                self._open(e1, self.node_pip[nd])
                self._open(e2, self.node_pip[nd])
        self.length[arm] += 1
        self.arm_tiles[arm].append(tile)
        self.pip[arm] = outer
        self.root_lead[arm] = False
        self.node[arm] = self._new_double(hi, 1) if hi == lo else -1
        self._refresh()

    def _refresh(self) -> None:
        bits = 0
        pip = self.pip
        for k in self.open_arms:
            bits |= 1 << pip[k]
        self.open_bits = bits
        self.count = self.compute_count()

    # -- counting -----------------------------------------------------------------------------
    def compute_count(self) -> int:
        if self.mode == LINE:
            return self._line_count()
        c = 0
        pip, length, node, root = self.pip, self.length, self.node, self.root_lead
        for k in range(1, self.next_arm):
            if node[k] < 0 and (length[k] or root[k]):
                c += pip[k]
        sniff = self.sniff
        for i, p in enumerate(self.node_pip):
            if sniff and self.node_spinner[i]:
                e1, e2 = self.node_ends[i]
                c += p * ((length[e1] == 0) + (length[e2] == 0))
            elif self.node_free[i]:
                c += 2 * p
        return c

    def _line_count(self) -> int:
        """A line's count: its two ends, each a crosswise double's total while its free side is
        the end (a double lead: both ends, counted once), else the end's pip (the bare half of a
        non-double lead included). A line's only doubles with a free side are at its ends."""
        node, node_pip = self.node, self.node_pip
        n1, n2 = node[1], node[2]
        if n1 >= 0 and n1 == n2:
            return 2 * node_pip[n1]
        return ((2 * node_pip[n1] if n1 >= 0 else self._bare_end(1))
                + (2 * node_pip[n2] if n2 >= 0 else self._bare_end(2)))

    def _bare_end(self, arm: int) -> int:
        return self.pip[arm] if self.length[arm] or self.root_lead[arm] else 0

    def end_kind(self, arm: int) -> tuple[bool, bool, bool]:
        """For an open arm: (its end is a crosswise double that counts its total pips,
        its end is on a spinner, that spinner counts pips now)."""
        nd = self.node[arm]
        if nd >= 0:
            if not self.node_spinner[nd]:
                return True, False, False
            return False, True, self._spinner_counts(nd)
        if self.length[arm] == 0:  # a bare spinner end
            for i, ends in enumerate(self.node_ends):
                if arm in ends:
                    return False, True, self._spinner_counts(i)
        return False, False, False

    def _spinner_counts(self, nd: int) -> bool:
        if self.sniff:
            e1, e2 = self.node_ends[nd]
            return self.length[e1] == 0 or self.length[e2] == 0
        return self.node_free[nd] > 0

    # -- display ------------------------------------------------------------------------------
    def oriented_arm(self, arm: int) -> list[tuple[int, int]]:
        """The arm's tiles as (inner, outer) halves, from its root outwards."""
        out = []
        p = self.root_pip[arm]
        for t in self.arm_tiles[arm]:
            hi, lo = HALVES[t]
            outer = lo if hi == p else hi
            out.append((p, outer))
            p = outer
        return out
