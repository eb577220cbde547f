"""The cribbage heuristic's discard core on hand-checked hands (docs/rules/cribbage.md §4.1, §4.2b)."""

from __future__ import annotations

import numpy as np
import pytest
from muggins_env.agents import make_agent, make_game
from muggins_env.agents.heuristic_cribbage import _ANSWERS, _answers, best_discard, lay_arithmetic, score_hand

from muggins_env.games.cribbage import ACCEPT, ANNOUNCE, MUGGINS, OVERCOUNT
from muggins_env.games.cribbage.scoring import play_points_ranks
from muggins_env.kernel.cards import RANK_LIST, parse_card


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


# -- the heuristic on the game's states (rigged deals, docs/rules/cribbage.md §4) ---------------------------------------


def _state(hands, starter, dealer=0, n=2):
    game = make_game("cribbage_v0", {"num_players": n})
    return game.new_initial_state(seed=0, deal={"dealer": dealer, "hands": hands, "starter": starter})


def _heuristic(n=2):
    return make_agent("heuristic", "cribbage_v0", {"num_players": n})


def test_lay_away_through_the_game_completes_the_best_pair():
    # non-dealer P1 holds 5♣ 5♦ 5♥ J♠ K♥ 9♦: both of its decisions lay away K♥ and 9♦
    st = _state([["2C", "3D", "7H", "8S", "QC", "AD"], ["5C", "5D", "5H", "JS", "KH", "9D"]], "4S")
    h, rng = _heuristic(), np.random.default_rng(0)
    assert st.current_player() == 1
    st.apply(h.act_on_state(st, rng))
    st.apply(h.act_on_state(st, rng))
    assert set(st.public_view(1)["crib_discards"]) == set(cs("KH 9D"))


def _after_lay_away(hands, away, starter, dealer=0):
    st = _state(hands, starter, dealer)
    for seat in ((dealer + 1) % 2, dealer):
        for c in cs(away[seat]):
            st.apply(c)
    assert st.phase_name() == "play"
    return st


HANDS = [["10S", "JH", "QD", "2C", "7D", "8S"], ["4C", "4D", "6H", "6S", "KD", "9C"]]
AWAY = {0: "7D 8S", 1: "KD 9C"}


def test_play_leads_the_four_not_a_card_that_gives_fifteen():
    # P1 leads from 4♣ 4♦ 6♥ 6♠: a 6 lets a 9 make fifteen (and a 6 pair it); a 4 can only be
    # paired (no card makes 15 from 4)
    st = _after_lay_away(HANDS, AWAY, "5C")
    assert st.current_player() == 1
    assert _heuristic().act_on_state(st, np.random.default_rng(0)) in cs("4C 4D")


def test_play_avoids_leaving_twenty_one():
    # P1 leads 8♣, P0 2♣ (10), P1 A♣ (11); P0 holds 10♠ 9♥ 7♣, none scores: 10♠ leaves 21
    # (any ten-card makes 31), 9♥ (20) and 7♣ (18) can only be paired (3 unseen of each rank):
    # equal risk, the higher card goes first
    st = _after_lay_away([["10S", "9H", "7C", "2C", "KH", "QH"], ["8C", "AC", "4D", "3S", "KD", "9C"]],
                         {0: "KH QH", 1: "KD 9C"}, "6D")
    for c in ("8C", "2C", "AC"):
        st.apply(parse_card(c))
    assert st.current_player() == 0 and st.public_view(0)["count"] == 11
    assert _heuristic().act_on_state(st, np.random.default_rng(0)) == parse_card("9H")


def test_play_takes_the_fifteen():
    # count 10 (P1 led 10♣): P0 with 5♦ makes fifteen (2 points)
    st = _after_lay_away([["5D", "JS", "9H", "2C", "7D", "8S"], ["10C", "4D", "6H", "6S", "KD", "9C"]],
                         {0: "7D 8S", 1: "KD 9C"}, "AH")
    st.apply(parse_card("10C"))
    h, rng = _heuristic(), np.random.default_rng(0)
    assert h.act_on_state(st, rng) == parse_card("5D")


def test_announces_the_true_count_and_responds_exactly():
    # P1 keeps 4♣ 4♦ 6♥ 6♠ + starter 5♣ = 24 (docs/rules/cribbage.md §4.2b, worked example); P0 keeps
    # 10♠ J♥ Q♦ 2♣ + 5♣: fifteens 10-5 J-5 Q-5 (6) + run 10 J Q (3) = 9
    st = _after_lay_away(HANDS, AWAY, "5C")
    h, rng = _heuristic(), np.random.default_rng(0)
    while st.phase_name() == "play":
        st.apply(h.act_on_state(st, rng))
    assert st.phase_name() == "announce" and st.current_player() == 1  # the non-dealer counts first
    assert h.act_on_state(st, rng) == ANNOUNCE + 24
    st.apply(ANNOUNCE + 20)  # 4 points missed
    assert st.current_player() == 0
    assert h.act_on_state(st, rng) == MUGGINS + 4
    st.apply(ACCEPT)
    assert st.phase_name() == "announce" and st.current_player() == 0
    assert h.act_on_state(st, rng) == ANNOUNCE + 9
    st.apply(ANNOUNCE + 12)  # too high
    assert h.act_on_state(st, rng) == OVERCOUNT
    st.apply(ACCEPT)
    # the crib K♦ 9♣ 7♦ 8♠ + 5♣: fifteens 7-8, K-5 (4) + run 7 8 9 (3) = 7, counted by P0
    assert st.phase_name() == "announce" and st.current_player() == 0
    assert h.act_on_state(st, rng) == ANNOUNCE + 7
    st.apply(ANNOUNCE + 7)
    assert h.act_on_state(st, rng) == ACCEPT


def _risk_by_hand(series: list[int], card_rank: int, unseen_rank: list[int], h: int) -> float:
    """The next player's expected best answer, counted from the rules engine's reference play
    scorer (not the heuristic's cached fast path)."""
    new = series + [card_rank]
    count = sum(min(r, 10) for r in new)
    total = max(1, sum(unseen_rank))
    answers = []
    for r in range(1, 14):
        if unseen_rank[r] and count < 31 and count + min(r, 10) <= 31:
            pts = play_points_ranks(new + [r])
            if pts:
                answers.append((pts, 1.0 - (1.0 - unseen_rank[r] / total) ** h))
    risk, miss = 0.0, 1.0
    for pts, p in sorted(answers, reverse=True):
        risk += miss * p * pts
        miss *= 1.0 - p
    return risk


def test_play_risk_matches_the_reference_scorer_with_and_without_the_cache():
    rng = np.random.default_rng(5)
    checked = 0
    for _ in range(400):
        deck = rng.permutation(52).tolist()
        series, count = [], 0
        for c in deck[: rng.integers(0, 6)]:  # a series since the reset that stays within 31
            if count + min(RANK_LIST[c], 10) <= 31:
                series.append(c)
                count += min(RANK_LIST[c], 10)
        card = next((c for c in deck[6:] if count + min(RANK_LIST[c], 10) <= 31), None)
        if card is None:
            continue
        unseen_rank = [0] * 14
        for c in deck[7:]:
            if rng.random() < 0.7:
                unseen_rank[RANK_LIST[c]] += 1
        h = int(rng.integers(0, 5))
        ranks = [RANK_LIST[c] for c in series]
        ctx = (tuple(ranks), count, unseen_rank, max(1, sum(unseen_rank)), h, 5)
        want = _risk_by_hand(ranks, RANK_LIST[card], unseen_rank, h) if h else 0.0
        for _ in range(2):  # the first call fills the cache, the second reads it
            pts, risk, new_count = lay_arithmetic(ctx, card)
            assert pts == play_points_ranks([*ranks, RANK_LIST[card]])
            assert new_count == count + min(RANK_LIST[card], 10)
            assert risk == pytest.approx(want, abs=1e-12)
        checked += 1
    assert checked > 300 and _ANSWERS


def test_play_risk_never_counts_a_fifth_card_of_a_rank():
    assert (12, 5) in _answers((5, 5, 5), 15)  # the fourth five: double pair royal
    assert (2, 7) in _answers((2, 2, 2, 2), 8)  # a seven makes fifteen
    assert 2 not in [r for _, r in _answers((2, 2, 2, 2), 8)]  # there is no fifth two
    assert _answers((3, 3, 3, 3), 12) == ()  # only a fifth three would score (fifteen)
