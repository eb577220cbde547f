"""michigan_v0: the worked example of docs/rules/michigan.md §3.4, every rule of §3 (deal, leads, following,
stops, boodle, going out, carry-over, the split), properties, PettingZoo conformance and the
information-leak test."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from muggins_env.games.michigan import BOODLE_NAMES, MichiganGame, deal_sizes
from muggins_env.kernel.cards import NUM_CARDS, parse_card, parse_cards
from muggins_env.michigan_v0 import env as wrapped_env
from muggins_env.michigan_v0 import raw_env
from tests.conformance import check_api, check_info_leak, random_play

A, B, C, D = 0, 1, 2, 3

# -- the worked example of docs/rules/michigan.md §3.4, reached by a scripted first hand -------------------------
# Dealer D, so A (11), B (11), C (10), D (10), widow (10). The widow holds K♣ A♥ J♠ (boodle cards
# that must never collect), K♦ (the example's stop) and the cards that stop the prelude's runs.
EXAMPLE = {
    "dealer": D,
    "hands": [
        ["4♣", "8♣", "6♦", "9♦", "J♦", "7♥", "5♠", "8♠", "10♠", "Q♠", "K♠"],
        ["3♣", "5♣", "9♣", "Q♣", "2♦", "3♦", "Q♦", "5♥", "9♥", "2♠", "7♠"],
        ["6♣", "5♦", "10♦", "4♥", "8♥", "Q♥", "K♥", "4♠", "9♠", "A♠"],
        ["7♣", "10♣", "J♣", "4♦", "7♦", "3♥", "6♥", "J♥", "3♠", "6♠"],
    ],
    "widow": ["2♣", "K♣", "A♣", "8♦", "K♦", "A♦", "2♥", "10♥", "A♥", "J♠"],
}
# 31 plays that leave A 9♦ J♦ Q♠ K♠, B Q♦ 3♣, C 10♦ A♠ Q♥ K♥, D J♥, with A to lead after a stop.
PRELUDE = [
    (A, "4♣"), (B, "5♣"), (C, "6♣"), (D, "7♣"), (A, "8♣"), (B, "9♣"), (D, "10♣"), (D, "J♣"), (B, "Q♣"),
    (B, "2♦"), (B, "3♦"), (D, "4♦"), (C, "5♦"), (A, "6♦"), (D, "7♦"),
    (D, "3♥"), (C, "4♥"), (B, "5♥"), (D, "6♥"), (A, "7♥"), (C, "8♥"), (B, "9♥"),
    (B, "2♠"), (D, "3♠"), (C, "4♠"), (A, "5♠"), (D, "6♠"), (B, "7♠"), (A, "8♠"), (C, "9♠"), (A, "10♠"),
]


def make(deal, seed=0, **opts):
    e = raw_env(readable_infos=True, **opts)  # the tests read the readable infos
    e.reset(seed=seed, options={"deal": deal})
    return e


def legal(e):
    return set(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]).tolist())


def cards(text):
    return set(parse_cards(text))


def play(e, seat, card):
    """Step ``card`` for ``seat``, asserting that it is that seat's turn and the card is legal."""
    c = parse_card(card)
    assert e.agent_selection == f"player_{seat}", f"expected player_{seat} to play {card}"
    assert c in legal(e), f"{card} not legal for player_{seat}: {sorted(legal(e))}"
    e.step(c)
    return {i: e.rewards[f"player_{i}"] for i in range(e.num_agents)}


def fill(hands, widow, dealer=D, n=4, order=None):
    """A deal with the given cards placed; the remaining cards, in id order, go to the
    recipients in ``order`` (seats, "W" the widow), each up to its size in the deal."""
    hands = [parse_cards(h) for h in hands]
    widow = parse_cards(widow)
    sizes = deal_sizes(n)
    want = {(dealer + k + 1) % n: sizes[k] for k in range(n)}
    want["W"] = sizes[-1]
    used = {c for p in hands + [widow] for c in p}
    rest = [c for c in range(NUM_CARDS) if c not in used]
    for who in order or list(range(n)) + ["W"]:
        pile = widow if who == "W" else hands[who]
        while len(pile) < want[who]:
            pile.append(rest.pop(0))
    assert not rest
    return {"dealer": dealer, "hands": hands, "widow": widow}


def test_example_prelude_is_well_formed_and_follows_the_rules():
    e = make(EXAMPLE)
    assert e.agent_selection == "player_0"  # the dealer's left leads first
    assert legal(e) == cards("4♣ 6♦ 7♥ 5♠")  # the lowest card of each suit, aces high
    for i, (seat, card) in enumerate(PRELUDE):
        play(e, seat, card)
        if i == 8:  # Q♣ stopped (K♣ is in the widow): B leads, not clubs although B holds 3♣
            assert e.full_state()["phase"] == "lead" and e.full_state()["stopped_suit"] == 0
            assert legal(e) == cards("2♦ 5♥ 2♠")
        if i == 14:  # 7♦ stopped (8♦ in the widow): D leads
            assert legal(e) == cards("3♥ 3♠")
        if i == 21:
            assert legal(e) == cards("3♣ Q♦ 2♠")
    # nothing collected yet: K♣, A♥, J♠ lie in the widow and Q♦ is still in B's hand
    assert e.full_state()["layout"] == {"A♥": 4, "K♣": 4, "Q♦": 4, "J♠": 4, "Kitty": 8}
    assert e.full_state()["hands"] == [sorted(parse_cards(h)) for h in
                                  ("9♦ J♦ Q♠ K♠", "3♣ Q♦", "10♦ A♠ Q♥ K♥", "J♥")]


def test_following_goes_to_the_holder_regardless_of_seat_order_and_repeats():
    e = make(EXAMPLE)
    movers = []
    for seat, card in PRELUDE[:15]:
        movers.append(int(e.agent_selection.split("_")[1]))
        play(e, seat, card)
    # D plays 10♣ and J♣ in a row; B plays 2♦ and 3♦ in a row; then D, C, A, D out of seat order
    assert movers == [A, B, C, D, A, B, D, D, B, B, B, D, C, A, D]


def test_worked_example_rules_3_4():
    e = make(EXAMPLE, num_hands=2)
    total = {s: 0.0 for s in range(4)}
    for seat, card in PRELUDE:
        for s, r in play(e, seat, card).items():
            total[s] += r
    assert total == {A: -6, B: -6, C: -6, D: -6}  # the contributions, paid out with the first step
    # A must lead a suit other than the stopped spades: 9♦, the lowest diamond
    assert e.full_state()["stopped_suit"] == 3 and legal(e) == cards("9♦")
    play(e, A, "9♦")
    assert legal(e) == cards("10♦") and e.agent_selection == "player_2"  # C, not B who lacks it
    play(e, C, "10♦")
    play(e, A, "J♦")  # A holds J♦ and plays again
    r = play(e, B, "Q♦")  # B collects the Q♦ boodle: 4 chips
    assert r == {A: 0, B: 4, C: 0, D: 0}
    assert e.full_state()["layout"]["Q♦"] == 0
    # nobody holds K♦ (the widow does): Q♦ stops, and B leads 3♣, the only card left
    assert e.full_state()["phase"] == "lead" and e.agent_selection == "player_1"
    assert e.full_state()["known_widow"] == sorted(parse_cards("8♦ K♦ 10♥ K♣ J♠"))
    assert legal(e) == cards("3♣")
    before = e.full_state()["balances"]
    assert before == [-6, -6 + 4, -6, -6]
    r = play(e, B, "3♣")  # B is out at once: Kitty 8 + 2 + 3 + 1 = 14
    # this step also carries hand 2's contributions (6 each)
    assert r == {A: -2 - 6, B: 14 - 6, C: -3 - 6, D: -1 - 6}
    gross_b = 4 + (r[B] + 6)
    net_b = total[B] + 4 + (r[B] + 6)
    assert gross_b == 18 and net_b == 12


def test_worked_example_then_carry_over_to_the_next_hand():
    e = make(EXAMPLE, num_hands=2)
    for seat, card in PRELUDE + [(A, "9♦"), (C, "10♦"), (A, "J♦"), (B, "Q♦"), (B, "3♣")]:
        play(e, seat, card)
    s = e.full_state()
    assert s["hands_played"] == 1 and s["phase"] == "lead"
    assert s["dealer"] == A and e.agent_selection == "player_1"  # the deal passed left; B leads
    # unclaimed boodle amounts stay and receive the new contributions; Q♦ was emptied
    assert s["layout"] == {"A♥": 8, "K♣": 8, "Q♦": 4, "J♠": 8, "Kitty": 8}
    assert s["balances"] == [-8 - 6, 12 - 6, -9 - 6, -7 - 6]
    assert s["played"] == [] and s["known_widow"] == []
    assert sorted(len(h) for h in s["hands"]) == [10, 10, 11, 11]
    assert len(s["hands"][B]) == 11 and len(s["hands"][C]) == 11  # from the new dealer's left


def test_worked_example_as_the_last_hand_splits_the_layout():
    e = make(EXAMPLE, num_hands=1)
    total = {s: 0.0 for s in range(4)}
    for seat, card in PRELUDE + [(A, "9♦"), (C, "10♦"), (A, "J♦"), (B, "Q♦"), (B, "3♣")]:
        for s, r in play(e, seat, card).items():
            total[s] += r
    assert all(e.terminations.values())
    # A♥ K♣ J♠ hold 4 each: 12 split equally, 3 each
    assert e.full_state()["layout"] == {"A♥": 0, "K♣": 0, "Q♦": 0, "J♠": 0, "Kitty": 0}
    assert e.full_state()["balances"] == [-8 + 3, 12 + 3, -9 + 3, -7 + 3]
    assert total == {A: -5, B: 15, C: -6, D: -4}
    assert e.full_state()["winners"] == [B]


def test_win_reward_pays_only_at_the_end_to_the_top_balance():
    e = make(EXAMPLE, num_hands=1, reward="win")
    seen = []
    for seat, card in PRELUDE + [(A, "9♦"), (C, "10♦"), (A, "J♦"), (B, "Q♦"), (B, "3♣")]:
        seen.append(play(e, seat, card))
    assert all(set(r.values()) == {0.0} for r in seen[:-1])
    assert seen[-1] == pytest.approx({A: -1 / 3, B: 1.0, C: -1 / 3, D: -1 / 3})


# -- stops, leads and the fallback ---------------------------------------------------------------------
STOPS = {
    "dealer": D,
    "hands": [
        ["5♥", "A♦", "2♦", "3♦", "4♦", "5♦", "6♦", "7♦", "8♦", "9♦", "10♦"],
        ["6♥", "2♣", "J♦", "2♠", "3♠", "4♠", "5♠", "6♠", "7♠", "8♠", "9♠"],
        ["3♣", "2♥", "4♥", "Q♦", "10♠", "J♠", "Q♠", "K♠", "A♠", "A♣"],
        ["3♥", "K♦", "5♣", "6♣", "7♣", "8♣", "9♣", "10♣", "J♣", "Q♣"],
    ],
    "widow": ["7♥", "4♣", "K♣", "8♥", "9♥", "10♥", "J♥", "Q♥", "K♥", "A♥"],
}


def test_stops_at_the_widow_at_a_played_card_and_at_an_ace():
    e = make(STOPS)
    assert legal(e) == cards("2♦ 5♥")  # A's lowest diamond and lowest heart
    play(e, A, "5♥")
    play(e, B, "6♥")
    # 7♥ is in the widow: stop, and the stop shows where 7♥ is
    assert e.full_state()["phase"] == "lead" and e.agent_selection == "player_1"
    assert e.full_state()["known_widow"] == parse_cards("7♥")
    view = e.infos["player_1"]["view"]
    assert view["leading"] and view["stopped_suit"] == 2 and view["sequence"] is None
    play(e, B, "2♣")
    play(e, C, "3♣")
    # 4♣ in the widow: C leads a different suit, so not A♣ (C's only and lowest club)
    assert legal(e) == cards("2♥ Q♦ 10♠")
    play(e, C, "2♥")
    play(e, D, "3♥")
    play(e, C, "4♥")
    # 5♥ was played already: a stop; C leads again, the widow holds nothing new
    assert e.full_state()["phase"] == "lead" and e.agent_selection == "player_2"
    assert e.full_state()["known_widow"] == parse_cards("4♣ 7♥")
    assert legal(e) == cards("A♣ Q♦ 10♠")
    r = play(e, C, "Q♦")  # Q♦ collects its boodle
    assert r[C] == 4 and e.full_state()["layout"]["Q♦"] == 0
    play(e, D, "K♦")
    play(e, A, "A♦")
    # an ace stops; A holds only diamonds, the stopped suit: the fallback, its lowest one
    assert e.full_state()["phase"] == "lead" and e.agent_selection == "player_0"
    assert e.full_state()["stopped_suit"] == 1
    assert legal(e) == cards("2♦")


def test_fallback_several_cards_in_a_row_boodle_and_going_out_while_the_sequence_could_go_on():
    deal = fill(["2♠ 4♠ 5♠ 6♠ 7♠ 8♠ 9♠ 10♠ J♠ Q♠ K♠", "A♠", "", ""], "3♠", order=[B, C, D, "W"])
    e = make(deal, num_hands=1)
    assert legal(e) == cards("2♠")  # A holds only spades
    assert play(e, A, "2♠") == {A: -6, B: -6, C: -6, D: -6}  # the first step carries the contributions
    assert e.agent_selection == "player_0" and legal(e) == cards("4♠")  # 3♠ in the widow: the fallback
    rewards = []
    for card in ["4♠", "5♠", "6♠", "7♠", "8♠", "9♠", "10♠", "J♠", "Q♠"]:
        assert e.agent_selection == "player_0" and legal(e) == cards(card)
        rewards.append(play(e, A, card))
    assert rewards[7] == {A: 4, B: 0, C: 0, D: 0}  # J♠ collects the J♠ boodle
    assert sum(r[A] for r in rewards) == 4
    r = play(e, A, "K♠")  # A's last card: out, although B could follow with A♠
    assert all(e.terminations.values())
    assert parse_card("A♠") in e.full_state()["hands"][B]
    # Kitty 8 + 11 + 10 + 10 cards; then A♥ K♣ Q♦ (4 each) split: 3 each
    assert r == {A: 8 + 31 + 3, B: -11 + 3, C: -10 + 3, D: -10 + 3}
    assert e.full_state()["balances"] == [-6 + 4 + 39 + 3, -6 - 11 + 3, -6 - 10 + 3, -6 - 10 + 3]


def test_widow_cards_never_collect_and_holding_does_not_collect():
    e = make(STOPS, num_hands=2)
    rng = np.random.default_rng(0)
    while e.kernel_state.hands_played == 0:  # play the first hand out at random
        assert e.full_state()["layout"]["K♣"] == 4 and e.full_state()["layout"]["A♥"] == 4
        e.step(int(rng.choice(sorted(legal(e)))))
    layout = e.full_state()["layout"]
    # K♣ and A♥ lay in the widow all hand: their 4 chips stay and receive 4 more
    assert layout["K♣"] == 8 and layout["A♥"] == 8


# -- the deal ---------------------------------------------------------------------------------------------
SIZES = {3: [13, 13, 13, 13], 4: [11, 11, 10, 10, 10], 5: [9, 9, 9, 9, 8, 8],
         6: [8, 8, 8, 7, 7, 7, 7], 7: [7, 7, 7, 7, 6, 6, 6, 6], 8: [6, 6, 6, 6, 6, 6, 6, 5, 5]}


@pytest.mark.parametrize("n", range(3, 9))
def test_random_deal_sizes_from_the_dealers_left_widow_last(n):
    for seed in range(3):
        s = MichiganGame(num_players=n).new_initial_state(seed=seed).full_state()
        dealer = s["dealer"]
        got = [len(s["hands"][(dealer + k) % n]) for k in range(1, n + 1)] + [len(s["widow"])]
        assert got == SIZES[n]
        assert sorted(c for h in s["hands"] + [s["widow"]] for c in h) == list(range(NUM_CARDS))
        assert s["to_act"] == (dealer + 1) % n
        assert s["layout"] == {"A♥": n, "K♣": n, "Q♦": n, "J♠": n, "Kitty": 2 * n}
        assert s["balances"] == [-6] * n


@pytest.mark.parametrize("n", range(3, 9))
def test_rigged_deal_sizes_are_checked(n):
    dealer = n - 2
    order = [(dealer + k) % n for k in range(1, n + 1)]
    pack, hands = list(range(NUM_CARDS)), [[] for _ in range(n)]
    widow = []
    for i, c in enumerate(pack):
        k = i % (n + 1)
        (widow if k == n else hands[order[k]]).append(c)
    e = make({"dealer": dealer, "hands": hands, "widow": widow}, num_players=n)
    assert e.full_state()["hands"] == [sorted(h) for h in hands]
    bad = [list(h) for h in hands]
    bad[order[0]].append(widow[0])
    with pytest.raises(ValueError, match=f"seat {order[0]} holds {len(bad[order[0]])} cards"):
        make({"dealer": dealer, "hands": bad, "widow": widow[1:]}, num_players=n)


@pytest.mark.parametrize("deal,match", [
    ({"dealer": 3, "hands": [["2♣"]] * 4, "widow": []}, "twice"),
    ({"dealer": 7, "hands": [[], [], [], []], "widow": []}, "dealer=7"),
    ({"dealer": 0, "hands": [[], []], "widow": []}, "list of 4 lists"),
    ({"dealer": 0, "hands": [[], [], [], []]}, "missing 'widow'"),
    ({"dealer": 0, "hands": [["ZZ"], [], [], []], "widow": []}, "malformed card 'ZZ'"),
    ({"dealer": 0, "hands": [[], [], [], []], "widow": [], "stock": []}, "unknown deal key"),
    ("2♣ 3♣", "must be a dict"),
])
def test_invalid_deals_raise_naming_the_problem(deal, match):
    with pytest.raises(ValueError, match=match):
        raw_env().reset(options={"deal": deal})


def test_a_rigged_deal_missing_a_card_is_refused():
    deal = {k: v for k, v in EXAMPLE.items()}
    deal["widow"] = EXAMPLE["widow"][:-1]
    with pytest.raises(ValueError, match="missing: J♠"):
        raw_env().reset(options={"deal": deal})


def test_widow_too_small_is_refused_with_the_sizes():
    deal = {k: v for k, v in EXAMPLE.items()}
    deal["widow"] = EXAMPLE["widow"][1:]
    deal["hands"] = [list(h) for h in EXAMPLE["hands"]]
    deal["hands"][D] = deal["hands"][D] + [EXAMPLE["widow"][0]]
    with pytest.raises(ValueError, match="seat 3 holds 11 cards but the deal gives it 10"):
        raw_env().reset(options={"deal": deal})


@pytest.mark.parametrize("opts,match", [
    ({"num_players": 9}, "num_players=9"),
    ({"num_players": 2}, "num_players=2"),
    ({"num_hands": 0}, "num_hands=0"),
    ({"reward": "points"}, "reward='points'.*'chips', 'win'"),
    ({"widow": True}, "unknown option"),
])
def test_bad_options_raise(opts, match):
    with pytest.raises(ValueError, match=match):
        raw_env(**opts)


def test_default_session_is_one_rotation():
    for n in (3, 5, 8):
        assert MichiganGame(num_players=n).num_hands == n


def test_a_session_rotates_the_deal_left_over_num_hands():
    state = MichiganGame(num_players=5).new_initial_state(seed=7)
    dealers = [state.dealer]
    rng = np.random.default_rng(7)
    while not state.is_terminal():
        played = state.hands_played
        state.apply(int(rng.choice(state.legal_actions())))
        if state.hands_played != played and not state.is_terminal():
            dealers.append(state.dealer)
    assert state.hands_played == 5
    assert dealers == [(dealers[0] + k) % 5 for k in range(5)]


# -- observations and views ------------------------------------------------------------------------------
def test_observation_pieces():
    e = make(EXAMPLE)
    game = e.game
    off, n = game.offsets, 4
    for seat, card in PRELUDE[:3]:  # A 4♣, B 5♣, C 6♣: D must follow with 7♣
        play(e, seat, card)
    obs_b = e.observe("player_1")["observation"]
    assert obs_b.dtype == np.float32 and obs_b.min() >= 0 and obs_b.max() <= 1
    hand = np.flatnonzero(obs_b[off["hand"]:off["hand"] + 52]).tolist()
    assert hand == sorted(parse_cards("3♣ 9♣ Q♣ 2♦ 3♦ Q♦ 5♥ 9♥ 2♠ 7♠"))
    played = obs_b[off["played"]:off["played"] + 52 * n].reshape(52, n)
    # relative to B: A is 3 seats on, B itself 0, C 1
    assert played[parse_card("4♣")].tolist() == [0, 0, 0, 1]
    assert played[parse_card("5♣")].tolist() == [1, 0, 0, 0]
    assert played[parse_card("6♣")].tolist() == [0, 1, 0, 0]
    assert played.sum() == 3
    assert obs_b[off["sequence_suit"]:off["sequence_suit"] + 4].tolist() == [1, 0, 0, 0]
    assert np.flatnonzero(obs_b[off["sequence_next"]:off["sequence_next"] + 13]).tolist() == [7 - 2]
    assert obs_b[off["phase"]:off["phase"] + 2].tolist() == [0, 1]
    assert np.flatnonzero(obs_b[off["to_act"]:off["to_act"] + n]).tolist() == [2]  # D is 2 seats on
    assert np.flatnonzero(obs_b[off["dealer"]:off["dealer"] + n]).tolist() == [2]
    counts = obs_b[off["counts"]:off["counts"] + n + 1] * 13
    assert np.round(counts).tolist() == [10, 9, 10, 10, 10]  # B, C, D, A, widow
    assert obs_b[off["layout"]] == pytest.approx(4 / 54)
    assert obs_b[off["layout"] + 4] == pytest.approx(8 / 58)
    assert obs_b[off["balances"]] == pytest.approx(0.5 - 0.5 * 6 / 56)


def test_public_view_has_what_a_heuristic_needs():
    e = make(EXAMPLE)
    for seat, card in PRELUDE[:9]:
        play(e, seat, card)
    view = e.infos["player_1"]["view"]
    assert view["hand"] == sorted(parse_cards("3♣ 2♦ 3♦ Q♦ 5♥ 9♥ 2♠ 7♠"))
    assert view["played"] == [(parse_card(c), s) for s, c in PRELUDE[:9]]
    assert view["leading"] and view["stopped_suit"] == 0 and view["sequence"] is None
    assert view["layout"] == {"A♥": 4, "K♣": 4, "Q♦": 4, "J♠": 4, "Kitty": 8}
    assert view["balances"] == [-6] * 4 and view["dealer"] == D
    assert view["card_counts"] == [9, 8, 9, 7] and view["widow_count"] == 10
    assert view["known_widow"] == [parse_card("K♣")]
    play(e, B, "2♦")
    view = e.infos["player_1"]["view"]
    assert view["sequence"] == {"suit": 1, "next_rank": 3, "next_card": parse_card("3♦")}
    assert "view" not in e.infos["player_0"]  # only the player to act gets the readable view
    assert set(BOODLE_NAMES) == {"A♥", "K♣", "Q♦", "J♠"}


def test_render_shows_the_table_with_suit_symbols():
    e = make(EXAMPLE, render_mode="ansi")
    for seat, card in PRELUDE[:4]:
        play(e, seat, card)
    text = e.render()
    assert "4♣/0 5♣/1 6♣/2 7♣/3" in text and "Kitty 8" in text and "player 0 must play 8♣" in text
    assert "Q♠" not in text  # hands stay hidden


def test_illegal_actions_are_refused_clearly():
    e = make(EXAMPLE)
    with pytest.raises(ValueError, match="illegal action 7 .*legal actions: 3 \\(lead 4♣\\)"):
        e.step(parse_card("8♣"))  # not the lowest club
    with pytest.raises(ValueError, match="not an int"):
        e.step("4♣")
    w = wrapped_env()
    w.reset(seed=0, options={"deal": EXAMPLE})
    w.step(parse_card("K♠"))  # the wrapped env ends the episode with a penalty instead
    assert w.rewards["player_0"] == -1 and all(w.terminations.values())


# -- properties ---------------------------------------------------------------------------------------------
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(3, 8), reward=st.sampled_from(["chips", "win"]),
       hands=st.integers(1, 3))
def test_properties_ledger_cards_masks_and_replay(seed, n, reward, hands):
    game = MichiganGame(num_players=n, reward=reward, num_hands=hands)
    rng = np.random.default_rng(seed)
    state = game.new_initial_state(seed=seed)
    actions = []
    decisions_per_hand = 0
    while not state.is_terminal():
        full = state.full_state()
        layout = full["layout"]
        # the ledger is conserved: balances plus the layout sum to 0
        assert sum(full["balances"]) + sum(layout.values()) == 0
        # every card is once in a hand, the widow or the played pile
        places = [c for h in full["hands"] for c in h] + full["widow"] + [c for c, _ in full["played"]]
        assert sorted(places) == list(range(NUM_CARDS))
        mask = state.legal_actions_mask()
        assert mask.any()
        me = state.current_player()
        assert all(full["hands"][me].count(a) for a in np.flatnonzero(mask))  # only own cards
        if full["phase"] == "follow":
            assert mask.sum() == 1
        a = int(rng.choice(np.flatnonzero(mask)))
        boodle = {parse_card(k): (k, v) for k, v in layout.items() if k != "Kitty"}
        before = list(full["balances"])
        actions.append(a)
        hand_no = state.hands_played
        state.apply(a)
        decisions_per_hand += 1
        assert decisions_per_hand <= NUM_CARDS - SIZES[n][-1]
        if state.hands_played != hand_no:
            decisions_per_hand = 0
        elif a in boodle:  # playing a boodle card from a hand collects all of it
            name, amount = boodle[a]
            assert state.balances[me] - before[me] == amount
            assert state.full_state()["layout"][name] == 0
    final = state.full_state()
    assert state.hands_played == hands
    assert sum(final["layout"].values()) == 0
    assert sum(final["balances"]) == pytest.approx(0)
    if reward == "chips":
        assert state.returns() == pytest.approx(final["balances"])
    else:
        assert state.returns().sum() == pytest.approx(0)
        assert max(state.returns()) > 0 or set(state.returns()) == {0.0}
    replay = game.new_initial_state(seed=seed)
    for a in actions:
        replay.apply(a)
    assert replay.full_state() == final
    assert np.array_equal(replay.returns(), state.returns())


def test_clone_is_independent_and_replays_the_same_future():
    state = MichiganGame(num_players=4, num_hands=2).new_initial_state(seed=3)
    rng = np.random.default_rng(3)
    for _ in range(20):
        state.apply(int(rng.choice(state.legal_actions())))
    copy = state.clone()
    snapshot = copy.full_state()
    random_play(state, np.random.default_rng(1))
    assert copy.full_state() == snapshot  # the original moved on, the clone did not
    random_play(copy, np.random.default_rng(1))
    assert copy.full_state() == state.full_state()  # same chance (later deals) and same actions


# -- conformance ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", range(3, 9))
def test_pettingzoo_api_and_seed(n):
    opts = {"num_players": n, "num_hands": 2}
    check_api(lambda: raw_env(**opts), lambda: wrapped_env(**opts), num_cycles=150)


@pytest.mark.parametrize("reward", ["chips", "win"])
def test_pettingzoo_api_with_skip_forced(reward):
    opts = {"num_players": 5, "num_hands": 2, "skip_forced": True, "reward": reward}
    check_api(lambda: raw_env(**opts), lambda: wrapped_env(**opts), num_cycles=150)


def test_skip_forced_surfaces_only_leads_and_keeps_the_chips():
    e = raw_env(skip_forced=True, num_hands=2)
    e.reset(seed=11)
    total = {a: 0.0 for a in e.possible_agents}
    while e.agents:
        obs, reward, term, trunc, _ = e.last()
        total[e.agent_selection] += reward
        if term or trunc:
            e.step(None)
            continue
        assert e.kernel_state.phase_name() == "lead"
        e.step(int(np.flatnonzero(obs["action_mask"])[-1]))
    assert [total[a] for a in e.possible_agents] == pytest.approx(e.kernel_state.balances)


@pytest.mark.parametrize("n", range(3, 9))
def test_information_leak(n):
    state = MichiganGame(num_players=n, num_hands=2).new_initial_state(seed=n)
    changed = check_info_leak(state, seed=n, max_decisions=150)
    assert changed > 0


def test_resample_keeps_what_the_player_knows():
    e = make(EXAMPLE)
    for seat, card in PRELUDE[:9] + [(B, "2♦")]:
        play(e, seat, card)
    state = e.kernel_state  # B must follow with 3♦; K♣ is known to be in the widow
    rng = np.random.default_rng(0)
    for _ in range(20):
        other = state.resample_hidden(C, rng).full_state()
        full = state.full_state()
        assert other["hands"][C] == full["hands"][C]
        assert parse_card("3♦") in other["hands"][B]
        assert parse_card("K♣") in other["widow"]
        assert [len(h) for h in other["hands"]] == [len(h) for h in full["hands"]]
        assert len(other["widow"]) == len(full["widow"])


def test_a_halted_rollout_copy_pays_the_hand_like_the_game_and_deals_nothing():
    """``halt_at_hand_end`` (the search's rollouts, which stop with the hand): the last card of
    the hand pays exactly what the game pays, the next hand's stakes included, and no card is
    dealt; the game's own state never halts."""
    from muggins_env.games.michigan import HALTED, MichiganGame

    game = MichiganGame(num_players=4, num_hands=3)
    state = game.new_initial_state(seed=7)
    assert state.halt_at_hand_end is False
    copy = state.clone()
    copy.halt_at_hand_end = True
    rng = np.random.default_rng(0)
    while state.hands_played == 0:
        a = int(rng.choice(state.legal_actions()))
        state.apply(a)
        copy.apply(a)
    assert copy.phase == HALTED and copy.legal_actions() == [] and not copy.is_terminal()
    assert copy.balances == state.balances and copy.hands_played == state.hands_played == 1
    assert copy.kitty == state.kitty and copy.boodle == state.boodle
    assert list(copy.rewards()) == list(state.rewards()) and list(copy.returns()) == list(state.returns())
    assert copy.owner != state.owner  # the game dealt the next hand; the copy did not
    assert state.phase != HALTED and state.legal_actions()
