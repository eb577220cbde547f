"""Cribbage scoring API: docs/rules/cribbage.md §4.2b worked examples (show and play), hand-checked cases,
the published distribution over all 12,994,800 hands, and the batch scorer."""

import json
from itertools import combinations

import numpy as np
import pytest

from muggins_env.games.cribbage import (
    discard_values,
    play_breakdown,
    score_breakdown,
    score_hand,
    score_hands_batch,
    score_play,
)
from muggins_env.games.cribbage.scoring import _rank_points, all_hands_and_starters
from muggins_env.kernel.cards import parse_card, parse_cards
from tests import DATA

# the published distribution (its source is named inside the file), shipped with the tests
DISTRIBUTION = DATA / "cribbage_hand_distribution.json"


@pytest.mark.parametrize("hand,starter,crib,total", [
    ("5♣ 5♦ 5♥ J♠", "5♠", False, 29),
    ("5♣ 5♦ 5♥ J♠", "5♠", True, 29),
    ("4♣ 4♦ 6♥ 6♠", "5♣", False, 24),
    ("K♣ K♦ K♥ Q♠", "J♣", False, 15),
    ("2♥ 4♥ 6♥ 8♥", "10♣", False, 4),
    ("2♥ 4♥ 6♥ 8♥", "10♣", True, 0),
    ("J♥ 5♣ 10♦ K♠", "Q♥", False, 13),
    ("10♣ J♣ Q♣ K♣", "A♣", False, 10),
])
def test_rules_worked_examples_show(hand, starter, crib, total):
    assert score_hand(hand.split(), starter, crib=crib) == total


def test_worked_example_breakdowns():
    assert score_breakdown(["5♣", "5♦", "5♥", "J♠"], "5♠") == (16, 12, 0, 0, 1)
    assert score_breakdown(["4♣", "4♦", "6♥", "6♠"], "5♣") == (8, 4, 12, 0, 0)
    assert score_breakdown(["K♣", "K♦", "K♥", "Q♠"], "J♣") == (0, 6, 9, 0, 0)
    assert score_breakdown(["J♥", "5♣", "10♦", "K♠"], "Q♥") == (8, 0, 4, 0, 1)
    assert score_breakdown(["10♣", "J♣", "Q♣", "K♣"], "A♣") == (0, 0, 4, 5, 1)


@pytest.mark.parametrize("hand,starter,parts", [
    ("3♣ 4♦ 4♥ 5♠", "K♣", {"runs": 6, "pairs": 2}),  # double run of three
    ("3♣ 4♦ 4♥ 4♠", "5♣", {"runs": 9, "pairs": 6}),  # triple run
    ("3♣ 3♦ 4♥ 4♠", "5♣", {"runs": 12, "pairs": 4}),  # double-double run
    ("A♣ 2♦ 3♥ 4♠", "5♣", {"runs": 5, "fifteens": 2}),  # run of five: 1+2+3+4+5 = 15
    ("J♥ 2♦ 4♣ 8♠", "9♥", {"nobs": 1, "fifteens": 2, "runs": 0}),  # nobs; 2+4+9 = 15
    ("J♣ 2♦ 4♣ 8♠", "9♥", {"nobs": 0}),  # a jack of another suit is not nobs
    ("J♥ 2♦ 4♣ 8♠", "9♦", {"nobs": 0}),
    ("2♠ 4♠ 6♠ 8♠", "10♠", {"flush": 5}),
    ("2♠ 4♠ 6♠ 8♥", "10♠", {"flush": 0}),  # starter cannot complete a 3-card hand flush
])
def test_hand_checked_parts(hand, starter, parts):
    bd = score_breakdown(hand.split(), starter)._asdict()
    for key, value in parts.items():
        assert bd[key] == value, (key, bd)


def test_five_card_crib_flush_counts():
    assert score_breakdown(["2♠", "4♠", "6♠", "8♠"], "10♠", crib=True).flush == 5
    assert score_breakdown(["2♠", "4♠", "6♠", "8♠"], "10♥", crib=True).flush == 0


def test_bad_show_input_is_refused():
    with pytest.raises(ValueError, match="4 distinct cards"):
        score_hand(["5♣", "5♦", "5♥"], "5♠")
    with pytest.raises(ValueError, match="malformed card"):
        score_hand(["5♣", "5♦", "5♥", "ZZ"], "5♠")


def _laid(ranks: str) -> list[int]:
    suits = "♣♦♥♠"
    return [parse_card(r + suits[i % 4]) for i, r in enumerate(ranks.split())]


@pytest.mark.parametrize("ranks,points", [
    ("7 6 8", 3), ("5 5 5", 8), ("4 5 6 4", 3), ("K Q A", 0), ("2 3 2", 0), ("10 5 6 7 3", 2),
    ("5 10", 2), ("A A", 2), ("A A A A", 12), ("3 4 5 6", 4), ("6 4 5 3 2", 5), ("A 9 10 J", 3), ("2 9 10 J", 5),
])
def test_play_scoring(ranks, points):
    assert score_play(_laid(ranks)) == points


def test_play_breakdown_parts_and_count_limit():
    assert play_breakdown(_laid("5 5 5")) == (2, 0, 6, 0)
    assert play_breakdown(_laid("10 5 6 7 3")) == (0, 2, 0, 0)
    with pytest.raises(ValueError, match="may not pass 31"):
        score_play(_laid("K K K 5"))


def test_rank_table_matches_slow_reference_on_random_hands():
    rng = np.random.default_rng(0)
    for _ in range(300):
        cards = rng.choice(52, 5, replace=False).tolist()
        bd = score_breakdown(cards[:4], cards[4])
        assert (bd.fifteens, bd.pairs, bd.runs) == _rank_points([c % 13 + 1 for c in cards])


def test_batch_equals_single_scorer():
    rng = np.random.default_rng(1)
    rows = np.array([rng.choice(52, 5, replace=False) for _ in range(2000)])
    for crib in (False, True):
        batch = score_hands_batch(rows[:, :4], rows[:, 4], crib=crib)
        assert batch.tolist() == [score_hand(r[:4].tolist(), int(r[4]), crib) for r in rows]


def test_batch_reproduces_the_published_distribution_of_all_12994800_hands():
    hands, starters = all_hands_and_starters()
    assert len(hands) == 12_994_800
    scores = score_hands_batch(hands, starters)
    counts = np.bincount(scores, minlength=30)
    expected = json.loads(DISTRIBUTION.read_text())["counts"]
    assert {str(k): int(v) for k, v in enumerate(counts)} == {k: int(v) for k, v in expected.items()}
    assert scores.mean() == pytest.approx(4.76915, abs=1e-5)


def test_discard_values_are_means_over_every_unseen_starter():
    cards = parse_cards("5♣ 5♦ 5♥ J♠ K♦ 2♣")
    values = dict(discard_values(cards, 2))
    assert len(values) == 15
    away = (parse_card("K♦"), parse_card("2♣"))
    keep = [c for c in cards if c not in away]
    starters = [s for s in range(52) if s not in cards]
    assert values[away] == pytest.approx(np.mean([score_hand(keep, s) for s in starters]))
    best = max(values, key=values.get)
    assert set(best) == set(away)  # keeping 5 5 5 J is best
    excluded = dict(discard_values(cards, 2, excluded=[parse_card("5♠")]))
    assert excluded[away] < values[away]  # without the 5♠ as a starter the hand is worth less
    assert all(len(a) == 1 for a, _ in discard_values(cards[:5], 1))


def test_all_combinations_helper_pairs_every_hand_with_every_other_card():
    hands, starters = all_hands_and_starters()
    sample = np.random.default_rng(2).integers(0, len(hands), 500)
    for i in sample:
        assert starters[i] not in hands[i]
    assert len(set(map(tuple, hands[::48][:2000].tolist()))) == 2000
    assert hands[0].tolist() == list(next(combinations(range(52), 4)))


def test_engine_play_scorer_agrees_with_the_public_one():
    from muggins_env.games.cribbage.scoring import play_points_fast

    # hand-checked: a run broken by a pair earlier in the series still counts from the tail
    assert play_points_fast([3, 3, 4, 5], 15) == 2 + 3
    assert play_points_fast([6, 4, 5, 3, 2], 20) == 5
    assert play_points_fast([5, 5, 5, 5], 20) == 12
    rng = np.random.default_rng(3)
    checked = 0
    for _ in range(20_000):
        ranks = (rng.choice(52, int(rng.integers(1, 9)), replace=False) % 13 + 1).tolist()
        count = sum(min(r, 10) for r in ranks)
        if count <= 31:
            assert play_points_fast(ranks, count) == play_breakdown(_laid_ranks(ranks)).total, ranks
            checked += 1
    assert checked > 5000


def _laid_ranks(ranks):
    names = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    return _laid(" ".join(names[r - 1] for r in ranks))
