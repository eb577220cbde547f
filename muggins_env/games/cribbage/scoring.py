"""Cribbage scoring: the show (4 cards + starter), the play, and a batch scorer.

Public API (card ids or strings like ``"5♥"`` / ``"5H"``):
- ``score_hand(hand, starter, crib=False) -> int``
- ``score_breakdown(hand, starter, crib=False) -> Breakdown`` (fifteens, pairs, runs, flush, nobs)
- ``score_play(laid) -> int`` and ``play_breakdown(laid)``: points for the last card of the
  cards laid since the count was last reset
- ``score_hands_batch(hands, starters, crib=False)``: numpy in (N, 4) and (N,), numpy out (N,)
- ``score_shows(own, fill, crib=True)``: every own part x every completion (cards and starter),
  broadcast: numpy in (k, o) and (m, 5 - o), numpy out (k, m)
- ``discard_values(cards, n_discard, excluded=())``: expected hand value of every lay-away
  over all possible starters, through the batch scorer

Fifteens, pairs and runs depend only on the five ranks, so they are looked up in a table
indexed by the sorted ranks (6,188 rank multisets, built once at import); flush and nobs
come from the suits. That makes one hand a few lookups and a batch a handful of numpy ops.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import combinations, combinations_with_replacement, permutations
from typing import NamedTuple

import numpy as np

from ...kernel.cards import RANK_LIST, SUIT_LIST, parse_card

VALUE = [min(r, 10) for r in RANK_LIST]  # A=1, 2..10, J Q K = 10
JACK = 11


class Breakdown(NamedTuple):
    fifteens: int
    pairs: int
    runs: int
    flush: int
    nobs: int

    @property
    def total(self) -> int:
        return self.fifteens + self.pairs + self.runs + self.flush + self.nobs


def _rank_points(ranks: Sequence[int]) -> tuple[int, int, int]:
    """(fifteens, pairs, runs) points of five ranks 1..13 (the slow reference, used to build the table)."""
    values = [min(r, 10) for r in ranks]
    fifteens = 2 * sum(1 for k in range(2, 6) for combo in combinations(values, k) if sum(combo) == 15)
    counts = [0] * 15
    for r in ranks:
        counts[r] += 1
    pairs = sum(c * (c - 1) for c in counts)  # 2 points per pair: C(c,2)*2
    runs, r = 0, 1
    while r <= 13:
        if not counts[r]:
            r += 1
            continue
        length, mult = 0, 1
        while r + length <= 13 and counts[r + length]:
            mult *= counts[r + length]
            length += 1
        if length >= 3:
            runs = max(runs, length * mult)
        r += length
    return fifteens, pairs, runs


def _key(sorted_ranks: Sequence[int]) -> int:
    k = 0
    for r in sorted_ranks:
        k = k * 13 + (r - 1)
    return k


#: (fifteens + pairs + runs) and each part, indexed by the base-13 key of the sorted five ranks
_TABLE_SIZE = 13 ** 5
RANK_TOTAL = np.zeros(_TABLE_SIZE, dtype=np.int16)
_PARTS: dict[int, tuple[int, int, int]] = {}
for _ranks in combinations_with_replacement(range(1, 14), 5):
    if max(_ranks.count(r) for r in _ranks) > 4:
        continue
    _parts = _rank_points(_ranks)
    _PARTS[_key(_ranks)] = _parts
    RANK_TOTAL[_key(_ranks)] = sum(_parts)
del _ranks, _parts

#: the batch scorer avoids sorting: any 4 ranks (in any order, base-13 key) -> the index of their
#: sorted multiset (1,820 of them), then (multiset, starter rank) -> fifteens + pairs + runs
_MULTISET4 = np.zeros(13 ** 4, dtype=np.int16)
_SORTED4 = list(combinations_with_replacement(range(13), 4))
for _i, _m in enumerate(_SORTED4):
    for _p in set(permutations(_m)):
        _MULTISET4[((_p[0] * 13 + _p[1]) * 13 + _p[2]) * 13 + _p[3]] = _i
_HAND_STARTER_TOTAL = np.zeros((len(_SORTED4), 13), dtype=np.int16)
for _i, _m in enumerate(_SORTED4):
    for _r in range(13):
        _five = sorted(_m + (_r,))
        if _five.count(_r) <= 4:
            _HAND_STARTER_TOTAL[_i, _r] = RANK_TOTAL[_key([x + 1 for x in _five])]
_HAND_STARTER_FLAT = _HAND_STARTER_TOTAL.reshape(-1)
del _i, _m, _p, _r, _five


def _cards(cards: Iterable[int | str]) -> list[int]:
    return [parse_card(c) for c in cards]


def _flush_nobs(hand: Sequence[int], starter: int, crib: bool) -> tuple[int, int]:
    s = SUIT_LIST[hand[0]]
    flush = 0
    if SUIT_LIST[hand[1]] == s and SUIT_LIST[hand[2]] == s and SUIT_LIST[hand[3]] == s:
        if SUIT_LIST[starter] == s:
            flush = 5
        elif not crib:
            flush = 4
    ss = SUIT_LIST[starter]
    nobs = 1 if any(RANK_LIST[c] == JACK and SUIT_LIST[c] == ss for c in hand) else 0
    return flush, nobs


def score_breakdown(hand: Sequence[int | str], starter: int | str, crib: bool = False) -> Breakdown:
    """The show: 4 cards + starter. A crib scores a flush only with all five of one suit."""
    hand, starter = _cards(hand), parse_card(starter)
    if len(hand) != 4 or starter in hand or len(set(hand)) != 4:
        raise ValueError(f"a show needs 4 distinct cards and a different starter, got {hand} + {starter}")
    key = _key(sorted(RANK_LIST[c] for c in hand + [starter]))
    fifteens, pairs, runs = _PARTS[key]
    flush, nobs = _flush_nobs(hand, starter, crib)
    return Breakdown(fifteens, pairs, runs, flush, nobs)


def score_hand(hand: Sequence[int | str], starter: int | str, crib: bool = False) -> int:
    return score_breakdown(hand, starter, crib).total


def fast_breakdown(hand: Sequence[int], starter: int, crib: bool) -> dict[str, int]:
    """``score_breakdown(...)._asdict()`` for trusted card ids (the rules engine: no parsing)."""
    key = _key(sorted([RANK_LIST[hand[0]], RANK_LIST[hand[1]], RANK_LIST[hand[2]], RANK_LIST[hand[3]],
                       RANK_LIST[starter]]))
    fifteens, pairs, runs = _PARTS[key]
    flush, nobs = _flush_nobs(hand, starter, crib)
    return {"fifteens": fifteens, "pairs": pairs, "runs": runs, "flush": flush, "nobs": nobs}


def fast_score(hand: Sequence[int], starter: int, crib: bool) -> int:
    """``score_hand`` for trusted card ids (the rules engine's hot path: no parsing or checks)."""
    key = _key(sorted([RANK_LIST[hand[0]], RANK_LIST[hand[1]], RANK_LIST[hand[2]], RANK_LIST[hand[3]],
                       RANK_LIST[starter]]))
    flush, nobs = _flush_nobs(hand, starter, crib)
    return int(RANK_TOTAL[key]) + flush + nobs


# -- the play ------------------------------------------------------------------------------------
class PlayBreakdown(NamedTuple):
    fifteen: int
    thirty_one: int
    pairs: int
    run: int

    @property
    def total(self) -> int:
        return self.fifteen + self.thirty_one + self.pairs + self.run


_PAIR_POINTS = (0, 0, 2, 6, 12)


def play_breakdown(laid: Sequence[int | str]) -> PlayBreakdown:
    """Points to the last card of ``laid`` (the cards laid since the count was reset)."""
    ranks = [RANK_LIST[parse_card(c)] for c in laid]
    return _play_points(ranks)


def _play_points(ranks: Sequence[int]) -> PlayBreakdown:
    count = sum(min(r, 10) for r in ranks)
    if count > 31:
        raise ValueError(f"the count of {ranks} is {count}: it may not pass 31")
    last = ranks[-1]
    same = 1
    while same < len(ranks) and ranks[-1 - same] == last:
        same += 1
    run = 0
    for length in range(len(ranks), 2, -1):
        tail = ranks[-length:]
        if max(tail) - min(tail) == length - 1 and len(set(tail)) == length:
            run = length
            break
    return PlayBreakdown(2 if count == 15 else 0, 2 if count == 31 else 0, _PAIR_POINTS[same], run)


def play_points_fast(ranks: Sequence[int], count: int) -> int:
    """Points to the last of ``ranks`` (1..13, laid since the reset) when the running total is
    ``count``: the rules engine's hot path (no checks). A run is the longest tail of distinct,
    consecutive ranks; extending the tail past a repeated rank can never make one."""
    points = 2 if count == 15 or count == 31 else 0
    k = len(ranks)
    last = ranks[-1]
    same = 1
    while same < k and ranks[-1 - same] == last:
        same += 1
    if same > 1:
        return points + _PAIR_POINTS[same]  # the last two are equal: no run
    run, lo, hi, seen = 0, last, last, 1 << last
    for i in range(2, k + 1):
        r = ranks[-i]
        if seen >> r & 1:
            break
        seen |= 1 << r
        if r < lo:
            lo = r
        elif r > hi:
            hi = r
        if i >= 3 and hi - lo == i - 1:
            run = i
    return points + run


def score_play(laid: Sequence[int | str]) -> int:
    return play_breakdown(laid).total


def play_points_ranks(ranks: Sequence[int]) -> int:
    """``score_play`` on ranks 1..13 (hot path of the rules engine and the heuristic)."""
    return _play_points(ranks).total


# -- batch -----------------------------------------------------------------------------------------
_RANK0_U16 = np.array([r - 1 for r in RANK_LIST], dtype=np.uint16)
_SUIT_U8 = np.array(SUIT_LIST, dtype=np.uint8)
#: per card: its suit bit (low 4 bits) and, for a jack, its suit bit again in the high 4 bits
_SUIT_JACK_BITS = np.array([(1 << s) | ((1 << s) << 4 if r == JACK else 0)
                            for r, s in zip(RANK_LIST, SUIT_LIST)], dtype=np.uint8)


def _suit_points_table(crib: bool) -> np.ndarray:
    """(OR of the hand's suit/jack bits) * 4 + starter suit -> flush + nobs points."""
    table = np.zeros(256 * 4, dtype=np.int16)
    for bits in range(256):
        suits, jacks = bits & 15, bits >> 4
        for ss in range(4):
            one_suit = suits in (1, 2, 4, 8)
            flush = 0
            if one_suit and suits == 1 << ss:
                flush = 5
            elif one_suit and not crib:
                flush = 4
            table[bits * 4 + ss] = flush + ((jacks >> ss) & 1)
    return table


_SUIT_POINTS = {False: _suit_points_table(False), True: _suit_points_table(True)}
_CHUNK = 1 << 16  # rows per block: keeps the temporaries in cache


def score_hands_batch(hands: np.ndarray, starters: np.ndarray, crib: bool = False) -> np.ndarray:
    """Score many shows at once: ``hands`` (N, 4) card ids, ``starters`` (N,) -> (N,) int16.

    Per row: the hand's rank multiset from one table (no sorting), fifteens + pairs + runs
    with the starter's rank from a second, and flush + nobs from a third indexed by the OR
    of the cards' suit/jack bits and the starter's suit."""
    hands = np.asarray(hands)
    starters = np.asarray(starters)
    if hands.ndim != 2 or hands.shape[1] != 4 or starters.shape != (len(hands),):
        raise ValueError(f"hands must be (N, 4) and starters (N,), got {hands.shape} and {starters.shape}")
    out = np.empty(len(hands), dtype=np.int16)
    suit_points = _SUIT_POINTS[bool(crib)]
    for i in range(0, len(hands), _CHUNK):
        h, st = hands[i:i + _CHUNK], starters[i:i + _CHUNK]
        r = _RANK0_U16[h]
        key4 = ((r[:, 0] * 13 + r[:, 1]) * 13 + r[:, 2]) * 13 + r[:, 3]
        total = _HAND_STARTER_FLAT[_MULTISET4[key4] * np.int16(13) + _RANK0_U16[st].view(np.int16)]
        b = _SUIT_JACK_BITS[h]
        bits = (b[:, 0] | b[:, 1] | b[:, 2] | b[:, 3]).astype(np.int16)
        out[i:i + _CHUNK] = total + suit_points[bits * np.int16(4) + _SUIT_U8[st]]
    return out


_RANK0 = np.array([r - 1 for r in RANK_LIST], dtype=np.int64)
_SUIT = np.array(SUIT_LIST, dtype=np.int64)
_SUIT_JACK_BITS4 = _SUIT_JACK_BITS.astype(np.int64) * 4  # the flush/nobs index, shifted
_MULTISET4_13 = _MULTISET4.astype(np.int64) * 13


def score_shows(own: np.ndarray, fill: np.ndarray, crib: bool = True) -> np.ndarray:
    """``score_hands_batch`` of every show ``own[i] + fill[t, :-1]`` with starter ``fill[t, -1]``
    as a (len(own), len(fill)) int16 array: the batch scorer's tables, broadcast instead of
    built row by row (``own``: (k, o) card ids, ``fill``: (m, 5 - o)). The (OR of the suit/jack
    bits) * 4 + starter suit index of the flush/nobs table is the OR of the parts' bits * 4 and
    the starter's suit (the suit takes the two low bits)."""
    need = fill.shape[1] - 1
    r_own = _RANK0[own]
    key_own = r_own[:, 0]
    for j in range(1, own.shape[1]):
        key_own = key_own * 13 + r_own[:, j]
    starter = fill[:, need]
    suit_fill = _SUIT[starter]
    if need:
        r_fill = _RANK0[fill[:, :need]]
        key_fill = r_fill[:, 0]
        for j in range(1, need):
            key_fill = key_fill * 13 + r_fill[:, j]
        suit_fill = suit_fill | np.bitwise_or.reduce(_SUIT_JACK_BITS4[fill[:, :need]], axis=1)
        key4 = (key_own * 13 ** need)[:, None] + key_fill[None, :]
    else:
        key4 = np.broadcast_to(key_own[:, None], (len(own), len(fill)))
    total = _HAND_STARTER_FLAT[_MULTISET4_13[key4] + _RANK0[starter][None, :]]
    bits = np.bitwise_or.reduce(_SUIT_JACK_BITS4[own], axis=1)[:, None] | suit_fill[None, :]
    return total + _SUIT_POINTS[bool(crib)][bits]


def all_hands_and_starters() -> tuple[np.ndarray, np.ndarray]:
    """Every (4-card hand, starter) pair: C(52,4) * 48 = 12,994,800 rows (about 65 MB)."""
    hands = np.array(list(combinations(range(52), 4)), dtype=np.int8)
    starters = np.tile(np.arange(52, dtype=np.int8), (len(hands), 1))
    keep = np.ones((len(hands), 52), dtype=bool)
    rows = np.arange(len(hands))[:, None]
    keep[rows, hands] = False
    starters = starters[keep].reshape(len(hands), 48)
    return np.repeat(hands, 48, axis=0), starters.reshape(-1)


def discard_values(cards: Sequence[int], n_discard: int, excluded: Iterable[int] = (),
                   crib: bool = False) -> list[tuple[tuple[int, ...], float]]:
    """Expected show value of the kept cards for every way to lay ``n_discard`` of ``cards``
    away, averaged over every starter not in ``cards`` or ``excluded`` (cards seen elsewhere).
    Returns ``[(laid_away, mean), ...]`` in ``itertools.combinations`` order."""
    cards = [int(c) for c in cards]
    seen = set(cards) | {int(c) for c in excluded}
    starters = np.array([c for c in range(52) if c not in seen], dtype=np.int32)
    aways = list(combinations(cards, n_discard))
    keeps = np.array([[c for c in cards if c not in away] for away in aways], dtype=np.int32)
    k, s = len(keeps), len(starters)
    scores = score_hands_batch(np.repeat(keeps, s, axis=0), np.tile(starters, k), crib)
    means = scores.reshape(k, s).mean(axis=1)
    return [(away, float(m)) for away, m in zip(aways, means)]
