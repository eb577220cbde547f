"""Heuristic for cribbage with muggins counting (``cribbage_v0``) -- the discard core.

STATUS: ``cribbage_v0`` had not landed when this was written, so only the rules-independent
core is here (and tested): the discard choice by expected hand value over every possible
starter, plus the crib's expected value when dealing and minus it when not. ``CribbageHeuristic``
(the play, the announcement and the responses) must be wired to the game's view, action
indices and its fast batch scorer once the game exists; ``score_hand`` below is then replaced
by that scorer (the ``scorer`` argument of ``discard_values``).

Strategy (the contract of the issue):
- lay away the two cards (one with 3-4 players) maximising E[hand over the 46 (or 47)
  possible starters] + E[crib] when dealing, - E[crib] when not (the crib's other cards are
  sampled from the unseen cards);
- in the play: the most immediate points, avoiding leaving a count of 5 or 21;
- announce the true count; respond "muggins N" with exactly the missed points, "overcount"
  when too high, otherwise accept.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations

import numpy as np

RANK = [c % 13 + 1 for c in range(52)]  # A=1 .. K=13
SUIT = [c // 13 for c in range(52)]
VALUE = [min(r, 10) for r in RANK]
JACK = 11


def score_hand(hand: Sequence[int], starter: int, crib: bool = False) -> int:
    """Show score of 4 cards + starter (RULES.md §4.1): fifteens, pairs, runs, flush, nobs."""
    cards = list(hand) + [starter]
    vals = [VALUE[c] for c in cards]
    pts = 0
    for k in range(2, 6):  # fifteens
        for combo in combinations(vals, k):
            if sum(combo) == 15:
                pts += 2
    ranks = [RANK[c] for c in cards]
    counts = [0] * 15
    for r in ranks:
        counts[r] += 1
    pts += sum(n * (n - 1) for n in counts)  # pairs: 2 per pair
    r = 1  # runs: the longest run of consecutive ranks, times the multiplicities
    best_len, best_mult = 0, 0
    while r <= 13:
        if counts[r]:
            length, mult = 0, 1
            while r + length <= 13 and counts[r + length]:
                mult *= counts[r + length]
                length += 1
            if length >= 3 and length > best_len:
                best_len, best_mult = length, mult
            r += length
        else:
            r += 1
    pts += best_len * best_mult
    suits = [SUIT[c] for c in hand]
    if len(set(suits)) == 1:
        if SUIT[starter] == suits[0]:
            pts += 5
        elif not crib:
            pts += 4
    pts += sum(1 for c in hand if RANK[c] == JACK and SUIT[c] == SUIT[starter])
    return pts


def discard_values(cards: Sequence[int], discards: int, dealer: bool, crib_samples: int = 24,
                   rng: np.random.Generator | None = None,
                   scorer: Callable[[Sequence[int], int, bool], int] = score_hand,
                   ) -> list[tuple[float, tuple[int, ...]]]:
    """(value, cards laid away) for every choice: E[hand] over every starter ± E[crib]."""
    rng = rng or np.random.default_rng(0)
    held = set(cards)
    unseen = [c for c in range(52) if c not in held]
    out = []
    for away in combinations(sorted(cards), discards):
        keep = [c for c in cards if c not in away]
        hand_ev = float(np.mean([scorer(keep, s, False) for s in unseen]))
        crib_ev = 0.0
        need = 4 - discards  # the crib's other cards (plus the starter), from the unseen cards
        if crib_samples:
            tot = 0.0
            for _ in range(crib_samples):
                pick = rng.choice(len(unseen), need + 1, replace=False)
                crib = list(away) + [unseen[i] for i in pick[:need]]
                tot += scorer(crib, unseen[pick[need]], True)
            crib_ev = tot / crib_samples
        out.append((hand_ev + (crib_ev if dealer else -crib_ev), tuple(away)))
    return out


def best_discard(cards: Sequence[int], discards: int, dealer: bool, **kw) -> tuple[int, ...]:
    return max(discard_values(cards, discards, dealer, **kw))[1]
