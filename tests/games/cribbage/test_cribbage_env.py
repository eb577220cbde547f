"""cribbage_v0 through the env API: what each observation holds (and never holds), the readable
view and infos, his heels ending the game, the show order deciding who pegs out, skip_forced,
resample_hidden, rewards, render; properties over random games."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from muggins_env.cribbage_v0 import raw_env
from muggins_env.games.cribbage import ACCEPT, ANNOUNCE, GO, MUGGINS, CribbageGame
from muggins_env.kernel.cards import parse_card, parse_cards

PONE, DEALER = 0, 1
# pone K♣ 7♣ 2♣ 3♣ (lays away A♠ 4♠), dealer 10♦ 9♦ 8♦ 7♦ (lays away A♥ 4♥), starter 6♠.
DEAL = {"dealer": DEALER, "hands": [parse_cards("K♣ 7♣ 2♣ 3♣ A♠ 4♠"), parse_cards("10♦ 9♦ 8♦ 7♦ A♥ 4♥")],
        "starter": "6♠"}
# Hand-counted shows with the 6♠ starter:
#   pone K♣ 7♣ 2♣ 3♣: fifteens K+2+3, 7+6+2 (4), four-card flush (4) = 8
#   dealer 10♦ 9♦ 8♦ 7♦: run of five 6-10 (5), fifteens 9+6, 8+7 (4), four-card flush (4) = 13
#   crib A♠ 4♠ A♥ 4♥: two pairs (4), fifteens A+4+4+6 twice (4), no five-card flush = 8
PONE_SHOW, DEALER_SHOW, CRIB_SHOW = 8, 13, 8
# The play (docs/rules/cribbage.md §4.2b): pone 1 for the go, dealer 1 for the last card.
PLAY = ["K♣", "10♦", "7♣", GO, "2♣", "9♦", "3♣", "8♦", "7♦"]


def cid(text):
    return parse_card(text)


def make(deal=DEAL, **opts):
    e = raw_env(readable_infos=True, **opts)  # the tests read the readable infos
    e.reset(seed=0, options={"deal": deal})
    return e


def step(e, action):
    action = cid(action) if isinstance(action, str) else action
    assert e.observe(e.agent_selection)["action_mask"][action], (action, e.agent_selection)
    e.step(action)


def obs_piece(e, seat, name):
    g = e.kernel_state.game
    start = g.observation_offsets[name]
    return e.observe(f"player_{seat}")["observation"][start:start + g.observation_layout[name]]


def cards_in(piece):
    return set(np.flatnonzero(piece[:52]).tolist())


def to_show(**opts):
    e = make(**opts)
    for card in ("A♠", "4♠", "A♥", "4♥"):
        step(e, card)
    for a in PLAY:
        step(e, a)
    return e


# -- the observation -------------------------------------------------------------------------------------
def test_observation_in_the_discard_phase_holds_own_hand_only():
    e = make()
    dealer_cards = set(DEAL["hands"][DEALER]) | {cid("6♠")}
    assert cards_in(obs_piece(e, PONE, "hand")) == set(DEAL["hands"][PONE])
    assert cards_in(obs_piece(e, DEALER, "hand")) == set(DEAL["hands"][DEALER])
    obs = e.observe("player_0")["observation"]
    g = e.kernel_state.game
    for name, size in g.observation_layout.items():  # no dealer card nor the starter anywhere
        if size % 52 == 0:
            piece = obs_piece(e, PONE, name)
            for k in range(size // 52):
                assert not cards_in(piece[k * 52:(k + 1) * 52]) & dealer_cards, name
    assert not obs_piece(e, PONE, "starter").any()
    assert obs_piece(e, PONE, "phase").tolist() == [1, 0, 0, 0, 0]
    assert obs_piece(e, PONE, "dealer").tolist() == [0, 1] and obs_piece(e, DEALER, "dealer").tolist() == [1, 0]
    assert obs.min() >= 0 and obs.max() <= 1 and obs.shape == (g.observation_size,)


def test_observation_own_discards_starter_and_the_play_with_who_laid_each_card():
    e = make()
    step(e, "A♠")
    assert cards_in(obs_piece(e, PONE, "crib_discards")) == {cid("A♠")}
    assert not obs_piece(e, DEALER, "crib_discards").any()  # the pone's discard is hidden from the dealer
    for card in ("4♠", "A♥", "4♥"):
        step(e, card)
    for seat in (PONE, DEALER):
        assert cards_in(obs_piece(e, seat, "starter")) == {cid("6♠")}
    assert cards_in(obs_piece(e, DEALER, "crib_discards")) == {cid("A♥"), cid("4♥")}
    step(e, "K♣")
    step(e, "10♦")
    played_pone = obs_piece(e, PONE, "played")  # relative seats: 0 = self, 1 = the left neighbour
    assert cards_in(played_pone[:52]) == {cid("K♣")} and cards_in(played_pone[52:]) == {cid("10♦")}
    played_dealer = obs_piece(e, DEALER, "played")
    assert cards_in(played_dealer[:52]) == {cid("10♦")} and cards_in(played_dealer[52:]) == {cid("K♣")}
    assert cards_in(obs_piece(e, PONE, "series")) == {cid("K♣"), cid("10♦")}
    assert obs_piece(e, PONE, "count")[0] == pytest.approx(20 / 31)
    assert obs_piece(e, PONE, "phase").tolist() == [0, 1, 0, 0, 0]
    assert obs_piece(e, PONE, "to_act").tolist() == [1, 0]  # the pone lays next


def test_observation_during_a_count_and_after_settlement():
    e = to_show()
    assert obs_piece(e, PONE, "scores").tolist() == pytest.approx([1 / 121, 1 / 121])
    for seat in (PONE, DEALER):  # the hand under count is face up to everyone
        assert cards_in(obs_piece(e, seat, "counted")) == set(parse_cards("K♣ 7♣ 2♣ 3♣"))
    assert obs_piece(e, DEALER, "counter").tolist() == [0, 1]
    step(e, ANNOUNCE + 6)  # 2 short
    assert obs_piece(e, DEALER, "announced")[0] == pytest.approx(6 / 29)
    assert obs_piece(e, DEALER, "phase").tolist() == [0, 0, 0, 1, 0]
    assert not obs_piece(e, DEALER, "shown_totals").any()  # the true count is not shown yet
    step(e, MUGGINS + 5)  # founded: the dealer scores min(5, 2) = 2
    assert e.kernel_state.scores == [1 + 6, 1 + 2]
    for seat in (PONE, DEALER):
        slot = (PONE - seat) % 2
        assert obs_piece(e, seat, "shown_totals")[slot] == pytest.approx(PONE_SHOW / 29)
        assert obs_piece(e, seat, "shown_announced")[slot] == pytest.approx(6 / 29)
        parts = obs_piece(e, seat, "shown_breakdown")[slot * 5:slot * 5 + 5]
        assert parts.tolist() == pytest.approx([4 / 16, 0, 0, 4 / 5, 0])  # fifteens 4, flush 4
        view = e.kernel_state.public_view(seat)
        assert view["shown"][0]["breakdown"] == {"fifteens": 4, "pairs": 0, "runs": 0, "flush": 4, "nobs": 0}
        assert view["shown"][0]["true"] == PONE_SHOW and view["shown"][0]["announced"] == 6
    assert cards_in(obs_piece(e, PONE, "counted")) == set(parse_cards("10♦ 9♦ 8♦ 7♦"))  # the dealer's hand next


def test_the_crib_is_face_up_only_while_and_after_it_is_counted():
    e = to_show()
    crib = set(parse_cards("A♠ 4♠ A♥ 4♥"))
    assert not obs_piece(e, PONE, "crib").any() and not obs_piece(e, DEALER, "crib").any()
    step(e, ANNOUNCE + PONE_SHOW)
    step(e, ACCEPT)
    assert not obs_piece(e, PONE, "crib").any()  # still face down while the dealer's hand is counted
    step(e, ANNOUNCE + DEALER_SHOW)
    step(e, ACCEPT)
    assert e.kernel_state.public_view(PONE)["review"]["is_crib"]  # the crib is now under count
    for seat in (PONE, DEALER):
        assert cards_in(obs_piece(e, seat, "crib")) == crib
        assert obs_piece(e, seat, "is_crib")[0] == 1
    step(e, ANNOUNCE + CRIB_SHOW)
    step(e, ACCEPT)
    # every count of the deal settled: a new deal by the pone, the scores of the whole deal
    s = e.kernel_state
    assert s.dealer == PONE and s.phase_name() == "discard"
    assert s.scores == [1 + PONE_SHOW, 1 + DEALER_SHOW + CRIB_SHOW]
    # the last deal's settled counts stay in every observation (the crib settles as the next deal begins)
    for seat in (PONE, DEALER):
        assert not obs_piece(e, seat, "crib").any() and not obs_piece(e, seat, "shown_totals").any()
        assert cards_in(obs_piece(e, seat, "previous_crib")) == crib
        own, other = (PONE_SHOW, DEALER_SHOW) if seat == PONE else (DEALER_SHOW, PONE_SHOW)
        assert obs_piece(e, seat, "previous_shown_totals").tolist() == pytest.approx(
            [own / 29, other / 29, CRIB_SHOW / 29])
        crib_parts = obs_piece(e, seat, "previous_shown_breakdown")[10:15]
        assert crib_parts.tolist() == pytest.approx([4 / 16, 4 / 12, 0, 0, 0])  # fifteens 4, pairs 4


def test_public_view_has_what_a_heuristic_needs():
    e = make()
    for card in ("A♠", "4♠", "A♥", "4♥", "K♣"):
        step(e, card)
    view = e.infos["player_1"]["view"]
    assert view["phase"] == "play" and view["seat"] == DEALER and view["dealer"] == DEALER
    assert view["hand"] == sorted(parse_cards("10♦ 9♦ 8♦ 7♦"))
    assert sorted(view["crib_discards"]) == sorted(parse_cards("A♥ 4♥"))
    assert view["starter"] == cid("6♠") and view["count"] == 10
    assert view["play"] == [(PONE, cid("K♣"))] and view["series"] == [cid("K♣")]
    assert view["scores"] == [0, 0] and view["target"] == 121 and view["review"] is None
    assert e.infos["player_1"]["legal_moves"] == {c: f"lay {t}" for c, t in
                                                   sorted((cid(t), t) for t in ("10♦", "9♦", "8♦", "7♦"))}


def test_render_draws_the_table_with_suit_symbols():
    e = make(render_mode="ansi")
    text = e.render()
    assert "K♣" in text and "dealer 1" in text and "phase discard" in text


# -- the game's end ----------------------------------------------------------------------------------------
def test_his_heels_can_end_the_game_before_the_play():
    e = make(dict(DEAL, starter="J♠"))
    for card in ("A♠", "4♠", "A♥"):
        step(e, card)
    e.kernel_state.scores[DEALER] = 119
    step(e, "4♥")  # the cut: a jack, 2 for the dealer
    s = e.kernel_state
    assert s.is_terminal() and s.scores == [0, 121]
    assert e.rewards == {"player_0": -1.0, "player_1": 1.0} and all(e.terminations.values())


def test_without_muggins_the_pone_counts_first_and_may_peg_out_before_the_dealer():
    e = make(muggins=False)
    for card in ("A♠", "4♠", "A♥", "4♥"):
        step(e, card)
    e.kernel_state.scores[:] = [112, 110]
    for a in PLAY:
        step(e, a)
    s = e.kernel_state
    # play: pone 113, dealer 111; the pone's hand (8) reaches 121: the dealer never counts
    assert s.is_terminal() and s.scores == [113 + PONE_SHOW, 111]
    assert e.rewards == {"player_0": 1.0, "player_1": -1.0}


def test_a_false_muggins_can_carry_the_counter_over_the_target():
    e = to_show()
    e.kernel_state.scores[PONE] = 110
    step(e, ANNOUNCE + PONE_SHOW)  # 118, correct
    step(e, MUGGINS + 3)  # nothing was missed: the pone scores the 3 named
    assert e.kernel_state.is_terminal() and e.kernel_state.scores[PONE] == 121
    assert e.rewards["player_0"] == 1.0


def test_reset_after_31_passes_the_lead_to_the_next_player():
    deal = {"dealer": DEALER, "hands": [parse_cards("10♣ 6♣ 2♥ 3♥ A♠ 7♠"), parse_cards("K♦ 5♦ Q♦ 4♦ A♥ 7♥")],
            "starter": "9♠"}
    e = make(deal)
    for card in ("A♠", "7♠", "A♥", "7♥"):
        step(e, card)
    for card in ("10♣", "K♦", "6♣"):  # 26
        step(e, card)
    assert set(e.infos["player_1"]["legal_moves"]) == {cid("5♦"), cid("4♦")}  # K♦ Q♦ would pass 31
    step(e, "5♦")  # 31: 2 to the dealer, the count restarts, the pone leads
    s = e.kernel_state
    assert s.scores == [0, 2] and s.count == 0 and s.series == [] and e.agent_selection == "player_0"
    step(e, "2♥")
    step(e, "Q♦")
    step(e, "3♥")  # 2 + 10 + 3 = 15: 2 to the pone
    assert s.scores == [2, 2]
    step(e, "4♦")  # 19, the last card: 1
    assert s.scores == [2, 3] and s.phase_name() == "announce"


# -- skip_forced ------------------------------------------------------------------------------------------
def test_skip_forced_applies_single_choices_and_shows_only_real_ones():
    e = make(muggins=False, skip_forced=True)
    for card in ("A♠", "4♠", "A♥", "4♥", "K♣", "10♦", "7♣"):
        step(e, card)
    # the dealer's forced "go" was applied: the pone chooses between 2♣ and 3♣
    assert e.agent_selection == "player_0" and set(e.infos["player_0"]["legal_moves"]) == {cid("2♣"), cid("3♣")}
    step(e, "2♣")  # 29, the go point; the dealer leads 9 8 7
    assert e.agent_selection == "player_1" and len(e.infos["player_1"]["legal_moves"]) == 3
    step(e, "9♦")  # the pone's 3♣ is forced
    assert e.agent_selection == "player_1" and e.kernel_state.count == 12
    step(e, "8♦")  # the dealer's 7♦ is forced; the show is automatic; the next deal begins
    s = e.kernel_state
    assert s.deals == 2 and s.dealer == PONE
    assert s.scores == [1 + PONE_SHOW, 1 + DEALER_SHOW + CRIB_SHOW]


# -- hidden information --------------------------------------------------------------------------------------
def test_resample_hidden_keeps_what_the_player_has_seen():
    e = make()
    for card in ("A♠", "4♠", "A♥", "4♥", "K♣", "10♦"):
        step(e, card)
    s = e.kernel_state
    rng = np.random.default_rng(0)
    seen = set(s.hands[PONE]) | {cid("A♠"), cid("4♠"), cid("K♣"), cid("10♦"), cid("6♠")}
    changed = 0
    for _ in range(20):
        r = s.resample_hidden(PONE, rng)
        assert r.hands[PONE] == s.hands[PONE] and r.played == s.played and r.starter_card == s.starter_card
        assert set(r.laid_away[PONE]) == {cid("A♠"), cid("4♠")} and set(r.laid_away[PONE]) <= set(r.crib)
        assert len(r.hands[DEALER]) == 3 and not set(r.hands[DEALER]) & seen
        assert not (set(r.crib) - set(r.laid_away[PONE])) & seen
        assert np.array_equal(r.observation(PONE), s.observation(PONE))
        changed += r.hands[DEALER] != s.hands[DEALER]
    assert changed > 0
    before = s.full_state()
    s.resample_hidden(PONE, rng)
    assert repr(s.full_state()) == repr(before)  # the original is untouched


def test_resample_hidden_does_not_reveal_the_next_deals():
    e = make(muggins=False)
    s = e.kernel_state
    nxt = s.clone()
    rng = np.random.default_rng(1)
    true_next = nxt.rng.permutation(52).tolist()  # what the true generator deals next
    guesses = [s.resample_hidden(PONE, rng).rng.permutation(52).tolist() for _ in range(5)]
    assert all(g != true_next for g in guesses) and len({tuple(g) for g in guesses}) == 5


def test_a_clone_replays_the_game_including_later_deals():
    game = CribbageGame(num_players=3, muggins=False)
    s = game.new_initial_state(seed=11)
    rng = np.random.default_rng(11)
    for _ in range(30):
        s.apply(int(rng.choice(s.legal_actions())))
    c = s.clone()
    actions = []
    while not s.is_terminal():
        actions.append(int(rng.choice(s.legal_actions())))
        s.apply(actions[-1])
    for a in actions:
        c.apply(a)
    assert s.deals > 1 and repr(c.full_state()) == repr(s.full_state())


def test_the_starter_is_resampled_until_it_is_cut():
    e = make()
    s = e.kernel_state
    starters = {s.resample_hidden(PONE, np.random.default_rng(k)).starter_card for k in range(10)}
    assert len(starters) > 1 and not starters & set(DEAL["hands"][PONE])


def test_clone_is_independent():
    e = make()
    s = e.kernel_state
    c = s.clone()
    c.apply(cid("A♠"))
    assert cid("A♠") in s.hands[PONE] and cid("A♠") not in c.hands[PONE] and s.crib == []


# -- rewards -------------------------------------------------------------------------------------------------
def test_points_reward_is_zero_sum_with_three_players():
    e = raw_env(num_players=3, reward="points", muggins=False)
    e.reset(seed=5)
    total = {a: 0.0 for a in e.possible_agents}
    for agent in e.agent_iter(max_iter=5000):
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        e.step(int(np.flatnonzero(obs["action_mask"])[0]))
        assert sum(e.rewards.values()) == pytest.approx(0, abs=1e-9)
        for a, r in e.rewards.items():
            total[a] += r
    s = e.kernel_state
    winner = s.winner_side
    # sum over the game: points gained minus the others' mean, / target, plus the ±1 outcome
    for seat in range(3):
        others = [s.scores[t] for t in range(3) if t != seat]
        expected = (s.scores[seat] - sum(others) / 2) / 121 + (1.0 if seat == winner else -0.5)
        assert total[f"player_{seat}"] == pytest.approx(expected)


# -- properties ------------------------------------------------------------------------------------------------
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.sampled_from([2, 3, 4]))
def test_without_muggins_only_the_winner_reaches_the_target(seed, n):
    game = CribbageGame(num_players=n, muggins=False, target=61)
    state = game.new_initial_state(seed=seed)
    rng = np.random.default_rng(seed)
    while not state.is_terminal():
        before = list(state.scores)
        state.apply(int(rng.choice(state.legal_actions())))
        assert all(b <= a for b, a in zip(before, state.scores))  # points only grow
    winners = [side for side, score in enumerate(state.scores) if score >= 61]
    assert winners == [state.winner_side]


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.sampled_from([2, 3, 4]), muggins=st.booleans())
def test_every_observation_is_in_bounds_and_hides_the_others_hands(seed, n, muggins):
    game = CribbageGame(num_players=n, muggins=muggins, target=61)
    state = game.new_initial_state(seed=seed)
    rng = np.random.default_rng(seed)
    off = game.observation_offsets
    for _ in range(200):
        if state.is_terminal():
            break
        p = state.current_player()
        obs = state.observation(p)
        assert obs.shape == (game.observation_size,) and obs.dtype == np.float32
        assert obs.min() >= 0 and obs.max() <= 1
        assert set(np.flatnonzero(obs[off["hand"]:off["hand"] + 52]).tolist()) == set(state.hands[p])
        assert np.flatnonzero(state.legal_actions_mask()).tolist() == sorted(state.legal_actions())
        state.apply(int(rng.choice(state.legal_actions())))


@pytest.mark.parametrize("n,size", [(2, 529), (3, 600), (4, 669)])
def test_observation_sizes_are_the_documented_ones(n, size):
    # 3 x 52 (hand, own discards, starter) + n x 52 played + 52 series + 1 count + n gone
    # + sides scores + n dealer + n to act + 5 phase + 52 counted + n counter + 3 (crib flag,
    # announcement, accepts) + 2 (n + 1) settled totals and announcements + 5 (n + 1) parts + 52 crib,
    # and the same settled pieces and crib for the previous deal
    e = raw_env(num_players=n)
    assert e.observation_space("player_0")["observation"].shape == (size,)
    sides = 2 if n == 4 else n
    settled = 2 * (n + 1) + 5 * (n + 1) + 52
    assert size == 156 + 52 * n + 52 + 1 + n + sides + n + n + 5 + 52 + n + 3 + 2 * settled
