"""cribbage_v0 rules through the env API with rigged deals: the play (docs/rules/cribbage.md §4.2b full
play, 31, go, last card, 3 players), his heels, the show order, every muggins settlement rule
of the seed, the target rule for counts, pegging out mid-play; properties and conformance."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from muggins_env.cribbage_v0 import env as wrapped_env
from muggins_env.cribbage_v0 import raw_env
from muggins_env.games.cribbage import ACCEPT, ANNOUNCE, GO, MUGGINS, OVERCOUNT, CribbageGame, score_hand
from muggins_env.kernel.cards import parse_card, parse_cards
from tests.conformance import check_api, check_info_leak


def make(deal, **opts):
    e = raw_env(readable_infos=True, **opts)  # the tests read the readable infos
    e.reset(seed=0, options={"deal": deal})
    return e


def cid(text):
    return parse_card(text)


def step(e, action):
    seat = int(e.agent_selection.split("_")[1])
    assert e.observe(e.agent_selection)["action_mask"][action], (action, e.infos[e.agent_selection].get("legal_moves"))
    e.step(action)
    return seat


def lay_away(e, cards):
    for card in cards:
        step(e, cid(card))


def scores(e):
    return e.kernel_state.scores


# -- the play ----------------------------------------------------------------------------------------
# docs/rules/cribbage.md §4.2b: pone holds K 7 2 3, dealer 10 9 8 7 (plus two cards each to lay away)
PONE, DEALER = 0, 1
FULL_PLAY = {"dealer": DEALER, "hands": [parse_cards("K♣ 7♣ 2♣ 3♣ A♠ 4♠"), parse_cards("10♦ 9♦ 8♦ 7♦ A♥ 4♥")],
             "starter": "6♠"}


def test_full_play_worked_example_two_players():
    e = make(FULL_PLAY, muggins=False)
    lay_away(e, ["A♠", "4♠"])  # the pone lays away first (the dealer's left), then the dealer
    lay_away(e, ["A♥", "4♥"])
    state = e.kernel_state
    assert state.phase_name() == "play" and state.current_player() == PONE
    assert scores(e) == [0, 0]
    assert step(e, cid("K♣")) == PONE and state.count == 10
    assert step(e, cid("10♦")) == DEALER and state.count == 20
    assert step(e, cid("7♣")) == PONE and state.count == 27
    assert e.infos["player_1"]["legal_moves"] == {GO: "go"}  # the dealer cannot play: "go"
    step(e, GO)
    assert state.current_player() == PONE
    step(e, cid("2♣"))
    assert state.count == 0 and scores(e) == [1, 0]  # pone cannot play the 3: 1 for the go; reset
    assert state.current_player() == DEALER  # the dealer leads after the reset
    step(e, cid("9♦"))
    step(e, cid("3♣"))
    assert state.count == 12
    step(e, cid("8♦"))
    assert state.current_player() == DEALER  # the pone has no cards left
    step(e, cid("7♦"))
    assert scores(e)[DEALER] >= 1  # 1 for the last card, then the show starts
    assert state.phase_name() != "play"


def test_three_players_31_go_and_last_card():
    # dealer 2: seat 0 leads. Lay away one card each (plus the crib card from the pack).
    deal = {"dealer": 2, "hands": [parse_cards("9♣ 10♣ Q♣ 6♣ 2♠"), parse_cards("4♦ 10♦ 5♦ 9♦ 3♠"),
                                   parse_cards("8♥ K♥ 7♥ 9♥ 4♠")],
            "crib_card": "5♠", "starter": "K♠"}
    e = make(deal, num_players=3, muggins=False)
    lay_away(e, ["2♠", "3♠", "4♠"])
    s = e.kernel_state
    assert sorted(s.crib) == sorted(parse_cards("5♠ 2♠ 3♠ 4♠"))
    for card in ("9♣", "4♦", "8♥"):
        step(e, cid(card))
    step(e, cid("10♣"))  # 9 + 4 + 8 + 10 = 31
    assert scores(e) == [2, 0, 0] and s.count == 0 and s.current_player() == 1  # reset after 31
    for card in ("10♦", "K♥", "Q♣"):  # 30
        step(e, cid(card))
    assert s.current_player() == 1 and e.infos["player_1"]["legal_moves"] == {GO: "go"}
    step(e, GO)
    assert s.current_player() == 2
    step(e, GO)
    # seat 0 laid the last card and cannot play the 6: 1 for the go, nobody else may continue
    assert scores(e) == [3, 0, 0] and s.count == 0 and s.current_player() == 1
    step(e, cid("5♦"))
    step(e, cid("7♥"))
    step(e, cid("6♣"))  # 5 7 6: a run of three
    assert scores(e) == [6, 0, 0]
    step(e, cid("9♦"))  # 27; seat 0 is out of cards
    assert s.current_player() == 2
    step(e, GO)  # 9♥ would pass 31; seat 1, out of cards, laid the last card: 1 for the go
    assert scores(e) == [6, 1, 0]
    step(e, cid("9♥"))  # the very last card of the play: 1
    assert scores(e)[2] >= 1 and s.phase_name() != "play"


def test_his_heels_pegged_before_the_play():
    deal = dict(FULL_PLAY, starter="J♠")
    e = make(deal, muggins=False)
    lay_away(e, ["A♠", "4♠"])
    assert scores(e) == [0, 0]
    lay_away(e, ["A♥", "4♥"])
    assert scores(e) == [0, 2] and e.kernel_state.phase_name() == "play"


def test_show_order_pone_then_dealer_then_crib_counted_automatically():
    e = make(FULL_PLAY, muggins=False)
    lay_away(e, ["A♠", "4♠", "A♥", "4♥"])
    for card in ("K♣", "10♦", "7♣", GO, "2♣", "9♦", "3♣", "8♦", "7♦"):
        step(e, card if card == GO else cid(card))
    s = e.kernel_state
    shown = [(rv["counter"], rv["is_crib"]) for rv in s.previous_shown]
    assert shown == [(PONE, False), (DEALER, False), (DEALER, True)]
    starter = cid("6♠")
    pone = score_hand(parse_cards("K♣ 7♣ 2♣ 3♣"), starter)
    dealer = score_hand(parse_cards("10♦ 9♦ 8♦ 7♦"), starter)
    crib = score_hand(parse_cards("A♠ 4♠ A♥ 4♥"), starter, crib=True)
    assert [rv["true"] for rv in s.previous_shown] == [pone, dealer, crib]
    assert e.infos[e.agent_selection]["view"]["previous_deal_shown"][2]["true"] == crib
    # play: pone 1 (go), dealer 1 (last card); then the show; then the next deal, dealer to the left
    assert s.scores == [1 + pone, 1 + dealer + crib]
    assert s.dealer == PONE and s.phase_name() == "discard"


# -- muggins counting ------------------------------------------------------------------------------------
def to_first_count(opts=None, deal=FULL_PLAY):
    """Play the rigged deal to the pone's announcement (muggins on)."""
    e = make(deal, **(opts or {}))
    lay_away(e, ["A♠", "4♠", "A♥", "4♥"])
    for card in ("K♣", "10♦", "7♣", GO, "2♣", "9♦", "3♣", "8♦", "7♦"):
        step(e, card if card == GO else cid(card))
    assert e.kernel_state.phase_name() == "announce" and e.kernel_state.current_player() == PONE
    return e


TRUE_PONE = score_hand(parse_cards("K♣ 7♣ 2♣ 3♣"), cid("6♠"))


def test_true_pone_count_is_known():
    assert TRUE_PONE == 2 + 2 + 4  # fifteens K+2+3 and 7+6+2, a four-card club flush
    assert score_hand(parse_cards("K♣ 7♣ 2♣ 3♣"), cid("6♠")) == TRUE_PONE


def test_announcement_is_scored_at_once_and_all_accept_lets_a_wrong_count_stand():
    e = to_first_count()
    before = list(scores(e))
    step(e, ANNOUNCE + TRUE_PONE + 3)  # too high
    assert scores(e)[PONE] == before[PONE] + TRUE_PONE + 3  # credited at once
    assert e.kernel_state.phase_name() == "respond" and e.agent_selection == "player_1"
    step(e, ACCEPT)
    assert scores(e) == [before[PONE] + TRUE_PONE + 3, before[DEALER]]
    settled = e.kernel_state.shown[-1]
    assert settled["outcome"] == "all accepted" and settled["true"] == TRUE_PONE
    # the true breakdown is now in every player's view, and the dealer counts next
    assert e.infos["player_1"]["view"]["shown"][-1]["true"] == TRUE_PONE
    assert e.kernel_state.current_player() == DEALER


@pytest.mark.parametrize("claim,expected_gain", [(2, 2), (9, 4)])
def test_muggins_claim_below_and_above_the_missed_points(claim, expected_gain):
    e = to_first_count()
    before = list(scores(e))
    step(e, ANNOUNCE + TRUE_PONE - 4)  # 4 points missed
    step(e, MUGGINS + claim)
    assert scores(e) == [before[PONE] + TRUE_PONE - 4, before[DEALER] + expected_gain]


def test_false_muggins_gives_the_named_points_to_the_counter():
    e = to_first_count()
    before = list(scores(e))
    step(e, ANNOUNCE + TRUE_PONE)
    step(e, MUGGINS + 5)
    assert scores(e) == [before[PONE] + TRUE_PONE + 5, before[DEALER]]


def test_founded_overcount_moves_the_excess_to_the_claimer():
    e = to_first_count()
    before = list(scores(e))
    step(e, ANNOUNCE + TRUE_PONE + 3)
    step(e, OVERCOUNT)
    assert scores(e) == [before[PONE] + TRUE_PONE, before[DEALER] + 3]


def test_unfounded_overcount_changes_nothing():
    e = to_first_count()
    before = list(scores(e))
    step(e, ANNOUNCE + TRUE_PONE - 1)
    step(e, OVERCOUNT)
    assert scores(e) == [before[PONE] + TRUE_PONE - 1, before[DEALER]]
    assert e.kernel_state.shown[-1]["outcome"] == "overcount unfounded"


def test_first_non_accept_response_settles_with_three_players():
    e = raw_env(num_players=3)
    e.reset(seed=4)
    s = e.kernel_state
    while s.phase_name() != "announce":
        step(e, int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    counter = s.current_player()
    true = s.review["true"]
    step(e, ANNOUNCE + true + 2)
    first, second = (counter + 1) % 3, (counter + 2) % 3
    assert s.current_player() == first
    step(e, ACCEPT)
    assert s.current_player() == second
    before = list(s.scores)
    step(e, OVERCOUNT)
    assert s.scores[counter] == before[counter] - 2 and s.scores[second] == before[second] + 2
    assert s.shown[-1]["counter"] == counter and s.shown[-1]["outcome"].startswith("overcount: 2")
    assert s.phase_name() == "announce" and s.current_player() == (counter + 1) % 3  # next hand


def test_partnerships_only_the_other_side_responds():
    e = raw_env(num_players=4)
    e.reset(seed=2)
    s = e.kernel_state
    seen_counts = 0
    while not s.is_terminal() and seen_counts < 6:
        if s.phase_name() == "announce":
            counter = s.current_player()
            step(e, ANNOUNCE)
            responders = []
            while s.phase_name() == "respond":
                responders.append(s.current_player())
                step(e, ACCEPT)
            assert responders == [(counter + 1) % 4, (counter + 3) % 4]  # the other side, clockwise
            seen_counts += 1
        else:
            step(e, int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    assert seen_counts == 6


def test_partners_share_one_score():
    e = raw_env(num_players=4, muggins=False)
    e.reset(seed=1)
    s = e.kernel_state
    assert len(s.scores) == 2
    while not s.is_terminal():
        step(e, int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    assert max(s.scores) >= 121
    assert e.rewards["player_0"] == e.rewards["player_2"] == -e.rewards["player_1"]


def _near_target(e, pone_score):
    e.kernel_state.scores[PONE] = pone_score


def test_a_correct_count_that_reaches_the_target_ends_the_game_at_once():
    e = to_first_count()
    _near_target(e, 121 - TRUE_PONE)
    step(e, ANNOUNCE + TRUE_PONE)
    assert e.kernel_state.is_terminal() and all(e.terminations.values())
    assert e.rewards["player_0"] == 1 and e.rewards["player_1"] == -1


def test_a_low_count_that_reaches_the_target_ends_the_game_at_once():
    e = to_first_count()
    _near_target(e, 121 - TRUE_PONE + 1)
    step(e, ANNOUNCE + TRUE_PONE - 1)
    assert e.kernel_state.is_terminal() and e.rewards["player_0"] == 1


def test_a_too_high_count_reaching_the_target_waits_and_an_overcount_can_stop_it():
    e = to_first_count()
    _near_target(e, 121 - TRUE_PONE - 2)
    step(e, ANNOUNCE + TRUE_PONE + 2)  # reaches 121 only by overcounting
    assert not e.kernel_state.is_terminal() and e.kernel_state.phase_name() == "respond"
    step(e, OVERCOUNT)
    assert not e.kernel_state.is_terminal() and scores(e)[PONE] == 119


def test_a_too_high_count_reaching_the_target_ends_the_game_if_accepted():
    e = to_first_count()
    _near_target(e, 121 - TRUE_PONE - 2)
    step(e, ANNOUNCE + TRUE_PONE + 2)
    step(e, ACCEPT)
    assert e.kernel_state.is_terminal() and e.rewards["player_0"] == 1


def test_a_muggins_claim_can_win_the_game_for_the_claimer():
    e = to_first_count()
    e.kernel_state.scores[DEALER] = 119
    step(e, ANNOUNCE + 0)
    step(e, MUGGINS + TRUE_PONE)
    assert e.kernel_state.is_terminal() and e.rewards["player_1"] == 1


def test_the_game_ends_mid_play_when_a_player_pegs_out():
    e = make(FULL_PLAY, muggins=False, target=61)
    lay_away(e, ["A♠", "4♠", "A♥", "4♥"])
    e.kernel_state.scores[PONE] = 60
    step(e, cid("K♣"))
    step(e, cid("10♦"))
    step(e, cid("7♣"))
    step(e, GO)
    step(e, cid("2♣"))  # the go point: 61
    s = e.kernel_state
    assert s.is_terminal() and s.scores == [61, 0] and e.rewards == {"player_0": 1.0, "player_1": -1.0}
    assert len(s.play_order) == 4  # nothing was played or scored after the peg-out


def test_points_reward_pays_point_differences_scaled_by_target():
    e = make(FULL_PLAY, muggins=False, reward="points")
    lay_away(e, ["A♠", "4♠", "A♥", "4♥"])
    for card in ("K♣", "10♦", "7♣", GO):
        step(e, card if card == GO else cid(card))
    step(e, cid("2♣"))  # pone pegs 1 for the go
    assert e.rewards == pytest.approx({"player_0": 1 / 121, "player_1": -1 / 121})


# -- options and deals ----------------------------------------------------------------------------------
def test_options_are_validated():
    with pytest.raises(ValueError, match="num_players=5"):
        raw_env(num_players=5)
    with pytest.raises(ValueError, match="target=100.*121, 61"):
        raw_env(target=100)
    with pytest.raises(ValueError, match="lowball='yes'.*False, True"):
        raw_env(lowball="yes")
    with pytest.raises(ValueError, match="reward='chips'"):
        raw_env(reward="chips")


@pytest.mark.parametrize("deal,match", [
    ({"dealer": 0, "hands": [parse_cards("A♣ 2♣ 3♣ 4♣ 5♣ 6♣")] * 2, "starter": "K♠"}, "dealt twice"),
    ({"dealer": 0, "hands": [[0, 1, 2]] * 2, "starter": "K♠"}, "2 lists of 6 cards"),
    ({"dealer": 0, "hands": [[0, 1, 2, 3, 4, 5], [6, 7, 8, 9, 10, 11]]}, "missing"),
    ({"dealer": 2, "hands": [[0, 1, 2, 3, 4, 5], [6, 7, 8, 9, 10, 11]], "starter": 12}, "dealer=2"),
    ({"dealer": 0, "hands": [[0, 1, 2, 3, 4, 5], [6, 7, 8, 9, 10, 11]], "starter": 12, "crib_card": 13},
     "unknown deal key"),
])
def test_invalid_deals(deal, match):
    with pytest.raises(ValueError, match=match):
        raw_env().reset(options={"deal": deal})


def test_readable_legal_moves():
    e = make(FULL_PLAY)
    assert e.infos["player_0"]["phase"] == "discard"
    assert e.infos["player_0"]["legal_moves"][cid("K♣")] == "lay away K♣"
    e = to_first_count()
    assert e.infos["player_0"]["legal_moves"][ANNOUNCE + 12] == "announce 12"
    step(e, ANNOUNCE + 1)
    moves = e.infos["player_1"]["legal_moves"]
    assert moves[MUGGINS + 4] == "muggins 4" and moves[ACCEPT] == "accept" and moves[OVERCOUNT] == "overcount"


# -- properties and conformance ------------------------------------------------------------------------
@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.sampled_from([2, 3, 4]), muggins=st.booleans(), lowball=st.booleans(),
       reward=st.sampled_from(["win", "points"]))
def test_properties_cards_conserved_masks_returns_replay(seed, n, muggins, lowball, reward):
    """Also with lowball (docs/rules/cribbage.md §4.2c): counts are automatic, only the side that reached
    the target did, and it gets -1, every other side +1/(sides - 1); with points the reversed
    margin is added. Standard: the winner reached the target and gets +1, the others share -1."""
    game = CribbageGame(num_players=n, muggins=muggins, target=61, lowball=lowball, reward=reward)
    rng = np.random.default_rng(seed)
    state = game.new_initial_state(seed=seed)
    actions = []
    phases = set()
    while not state.is_terminal():
        phases.add(state.phase_name())
        full = state.full_state()
        in_play = [c for h in full["hands"] for c in h] + full["crib"] + [c for p in full["played"] for c in p]
        assert len(in_play) == len(set(in_play)) and full["starter"] not in in_play
        assert len(in_play) == n * game.hand_size + (1 if n == 3 else 0)
        legal = state.legal_actions()
        assert legal and state.legal_actions_mask().sum() == len(legal)
        a = int(rng.choice(legal))
        actions.append(a)
        state.apply(a)
    r, sides, teams = state.returns(), game.num_sides, game.teams
    assert r.sum() == pytest.approx(0)
    reached = [side for side in range(sides) if state.scores[side] >= 61]
    if lowball:
        assert phases <= {"discard", "play"} and reached == [state.loser_side]
        # of two sides the other one won; of three no single side did (issue 30)
        assert state.winner_side == (1 - state.loser_side if sides == 2 else -1)
    else:
        assert state.winner_side in reached and state.loser_side == -1
    sense = -1.0 if lowball else 1.0
    for s in range(n):
        own = teams[s]
        if lowball:
            end = -1.0 if own == state.loser_side else 1.0 / (sides - 1)
        else:
            end = 1.0 if own == state.winner_side else -1.0 / (sides - 1)
        others = [state.scores[t] for t in range(sides) if t != own]
        margin = sense * (state.scores[own] - sum(others) / len(others)) / 61 if reward == "points" else 0.0
        assert r[s] == pytest.approx(end + margin)
    replay = game.new_initial_state(seed=seed)
    for a in actions:
        replay.apply(a)
    assert replay.scores == state.scores and np.array_equal(replay.returns(), state.returns())


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("muggins", [True, False])
@pytest.mark.parametrize("skip_forced", [False, True])
def test_pettingzoo_api_and_seed(n, muggins, skip_forced):
    opts = {"num_players": n, "muggins": muggins, "skip_forced": skip_forced, "target": 61}
    check_api(lambda: raw_env(**opts), lambda: wrapped_env(**opts), num_cycles=60)


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("muggins", [True, False])
def test_information_leak(n, muggins):
    state = CribbageGame(num_players=n, muggins=muggins, target=61).new_initial_state(seed=n)
    assert check_info_leak(state, seed=n, max_decisions=150) > 0
