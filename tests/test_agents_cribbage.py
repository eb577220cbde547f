"""The cribbage heuristic's discard core on hand-checked hands (RULES.md §4.1, §4.2b)."""

from __future__ import annotations

import pytest
from muggins_env.agents.heuristic_cribbage import best_discard, score_hand

from muggins_env.kernel.cards import parse_card


def cs(text: str) -> list[int]:
    return [parse_card(t) for t in text.split()]


@pytest.mark.parametrize("hand, starter, crib, total", [
    ("5C 5D 5H JS", "5S", False, 29),
    ("4C 4D 6H 6S", "5C", False, 24),
    ("KC KD KH QS", "JC", False, 15),
    ("2H 4H 6H 8H", "10C", False, 4),
    ("2H 4H 6H 8H", "10C", True, 0),
    ("JH 5C 10D KS", "QH", False, 13),
    ("10C JC QC KC", "AC", False, 10),
])
def test_score_hand_rules_examples(hand, starter, crib, total):
    assert score_hand(cs(hand), parse_card(starter), crib) == total


def test_discard_keeps_the_obvious_hand():
    # 5♣ 5♦ 5♥ J♠ keep 14 points before the starter (6 fifteens + pair royal); lay away K♥ 9♦
    assert set(best_discard(cs("5C 5D 5H JS KH 9D"), 2, dealer=False)) == set(cs("KH 9D"))
    # as dealer the J may go to the crib (nobs counts there too): the three 5s always stay
    away = set(best_discard(cs("5C 5D 5H JS KH 9D"), 2, dealer=True))
    assert parse_card("9D") in away and not away & set(cs("5C 5D 5H"))


def test_discard_gives_the_crib_nothing_when_not_dealing():
    # 7♣ 8♦ 7♥ 8♠ hold 4 fifteens (7+8) and 2 pairs = 12 before the starter; A♣ K♦ add
    # nothing to them: lay them away
    assert set(best_discard(cs("7C 8D 7H 8S AC KD"), 2, dealer=False)) == set(cs("AC KD"))
    # one card with 3-4 players: lay away the K (no fifteen in 7 8 7 8 needs it)
    assert best_discard(cs("7C 8D 7H 8S KD"), 1, dealer=False) == (parse_card("KD"),)
