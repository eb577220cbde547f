"""muggins_cards_v0: the worked examples of docs/rules/muggins_cards.md §1.5, every rule of §1, properties,
PettingZoo conformance and the information-leak test."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from muggins_env.games.muggins_cards import (
    CALL,
    COMMON_PILE,
    OPPONENT_DISCARD,
    OWN_DISCARD,
    PASS,
    MugginsCardsGame,
)
from muggins_env.kernel.cards import NUM_CARDS, parse_card, parse_cards
from muggins_env.muggins_cards_v0 import env as wrapped_env
from muggins_env.muggins_cards_v0 import raw_env
from tests.conformance import check_api, check_info_leak, random_play

A, B, C, D = 0, 1, 2, 3
COMMONS = ["5♣", "9♦", "K♥", "2♠"]


def rig(tops, discards=None, commons=COMMONS, dealer=D, n=4, fill_to=None):
    """A deal where seat s's stock starts with tops[s] (top first); the remaining cards are
    spread over the stocks' bottoms so that all 52 are present."""
    stocks = [parse_cards(t) for t in tops]
    discards = [parse_cards(d) for d in (discards or [[] for _ in range(n)])]
    commons = [parse_cards(p) if isinstance(p, list) else [parse_card(p)] for p in commons]
    used = {c for pile in stocks + discards + commons for c in pile}
    rest = [c for c in range(NUM_CARDS) if c not in used]
    receivers = list(range(n)) if fill_to is None else fill_to
    for i, c in enumerate(rest):
        stocks[receivers[i % len(receivers)]].append(c)
    return {"dealer": dealer, "stocks": stocks, "discards": discards, "commons": commons}


def make(deal, **opts):
    e = raw_env(readable_infos=True, **opts)  # the tests read the readable infos
    e.reset(seed=0, options={"deal": deal})
    return e


def legal(e):
    return set(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]).tolist())


def stock_top_first(e, seat):
    return e.full_state()["stocks"][seat]


# -- docs/rules/muggins_cards.md §1.5, example 1 --------------------------------------------------------------------
def example1(**opts):
    return make(rig([["6♥"], ["K♣"], ["3♥"], ["10♠"]], discards=[[], ["7♦"], [], []]), **opts)


def test_example1_common_pile_has_priority_over_an_opponent_discard():
    e = example1()
    assert e.agent_selection == "player_0"  # A, at the dealer D's left, plays first
    assert e.full_state()["card_in_play"] == parse_card("6♥")
    assert legal(e) == {COMMON_PILE + 0}  # 5♣ only: B's 7♦ fits too but commons come first
    e.step(COMMON_PILE + 0)
    assert e.full_state()["commons"][0] == parse_cards("5♣ 6♥")
    assert e.full_state()["discards"][B] == parse_cards("7♦")
    assert e.agent_selection == "player_1"


def test_example1_muggins_called_moves_the_card_and_each_other_player_pays_one_card():
    e = example1(mistakes=True)
    before = e.full_state()
    a_stock = before["stocks"][A]
    e.step(OPPONENT_DISCARD + 0)  # A puts 6♥ on B's 7♦: a mistake
    under_review = e.full_state()  # the card lands only when the review settles
    assert under_review["discards"][B] == parse_cards("7♦") and under_review["card_in_play"] == parse_card("6♥")
    assert under_review["review"] == [A, OPPONENT_DISCARD + 0, False]
    assert e.agent_selection == "player_1" and legal(e) == {PASS, CALL}  # B is asked first
    e.step(CALL)
    after = e.full_state()
    assert after["commons"][0] == parse_cards("5♣ 6♥")
    assert after["discards"][B] == parse_cards("7♦")
    # B, C and D each gave the top of their stock, to the bottom of A's stock, in that order
    assert after["stocks"][A] == a_stock + parse_cards("K♣ 3♥ 10♠")
    for seat, card in ((B, "K♣"), (C, "3♥"), (D, "10♠")):
        assert parse_card(card) not in after["stocks"][seat]
    assert after["stocks"][C] == before["stocks"][C][1:] and after["stocks"][D] == before["stocks"][D][1:]
    # B gave K♣ and has since turned up the next card to start its turn
    assert after["card_in_play"] == before["stocks"][B][1] and after["stocks"][B] == before["stocks"][B][2:]
    # no card destroyed or created
    held = [c for k in ("stocks", "discards", "commons") for p in after[k] for c in p] + [after["card_in_play"]]
    assert sorted(held) == list(range(52))
    assert after["to_act"] == B and e.agent_selection == "player_1"  # play goes on with B's turn


def test_example1_uncalled_mistake_stands_and_the_card_belongs_to_b():
    e = example1(mistakes=True)
    e.step(OPPONENT_DISCARD + 0)
    for observer in ("player_1", "player_2", "player_3"):
        assert e.agent_selection == observer
        e.step(PASS)
    s = e.full_state()
    assert s["discards"][B] == parse_cards("7♦ 6♥") and s["commons"][0] == parse_cards("5♣")
    assert len(s["stocks"][A]) == 12 - 1
    assert s["phase"] == "place" and s["player"] == B


def test_unfounded_call_has_no_effect():
    e = example1(mistakes=True)
    stocks = e.full_state()["stocks"]
    e.step(COMMON_PILE + 0)  # correct
    e.step(PASS)  # B passes
    e.step(CALL)  # C calls: unfounded, settles it
    s = e.full_state()
    assert s["commons"][0] == parse_cards("5♣ 6♥")
    assert s["stocks"][A] == stocks[A] and s["stocks"][C] == stocks[C]
    assert s["player"] == B and s["phase"] == "place"


# -- docs/rules/muggins_cards.md §1.5, example 2 --------------------------------------------------------------------
def test_example2_first_eligible_opponent_clockwise_from_the_left():
    e = make(rig([["J♥"], [], [], []], discards=[[], ["Q♠"], ["10♣"], []]))
    assert legal(e) == {OPPONENT_DISCARD + 0}  # B, not C
    e.step(OPPONENT_DISCARD + 0)
    assert e.full_state()["discards"][B] == parse_cards("Q♠ J♥")
    assert e.full_state()["discards"][C] == parse_cards("10♣")


def test_empty_opponent_discard_is_skipped_and_never_started():
    e = make(rig([["J♥"], [], [], []], discards=[[], [], ["10♣"], []]))
    assert legal(e) == {OPPONENT_DISCARD + 1}  # C at relative seat 2
    e2 = make(rig([["J♥"], [], [], []]))
    assert legal(e2) == {OWN_DISCARD}  # nothing fits: own discard, whatever its rank


def test_no_wraparound_and_equal_ranks_never_fit():
    e = make(rig([["A♥"], [], [], []], commons=["K♣", "A♦"]))
    assert legal(e) == {OWN_DISCARD}


def test_several_fitting_common_piles_are_the_players_choice():
    e = make(rig([["6♥"], [], [], []], commons=["5♣", "7♦", "K♥"]))
    assert legal(e) == {COMMON_PILE + 0, COMMON_PILE + 1}
    info = e.infos["player_0"]
    assert info["legal_moves"] == {0: "6♥ → common pile 0 (5♣)", 1: "6♥ → common pile 1 (7♦)"}


def test_founded_call_with_several_fitting_piles_lets_the_offender_choose_again():
    e = make(rig([["6♥"], ["K♣"], ["3♥"], ["10♠"]], commons=["5♣", "7♦", "K♥"]), mistakes=True)
    e.step(OWN_DISCARD)  # kept on own discard while two piles fitted
    e.step(PASS)
    e.step(CALL)  # C calls
    assert e.agent_selection == "player_0" and legal(e) == {COMMON_PILE + 0, COMMON_PILE + 1}
    assert e.infos["player_0"]["phase"] == "rechoose"
    e.step(COMMON_PILE + 1)
    s = e.full_state()
    assert s["commons"][1] == parse_cards("7♦ 6♥") and s["discards"][A] == []
    assert s["stocks"][A][-3:] == parse_cards("K♣ 3♥ 10♠")


def test_recycling_turns_the_discard_over_without_shuffling():
    e = make(rig([[], ["4♠"], ["4♦"], ["4♥"]], discards=[["3♣", "8♦", "J♠"], [], [], []],
                 commons=["K♥"], fill_to=[1, 2, 3]))
    s = e.full_state()
    assert s["card_in_play"] == parse_card("3♣")  # the oldest card comes out first
    assert s["stocks"][A] == parse_cards("8♦ J♠") and s["discards"][A] == []


def test_next_cards_show_a_recycled_stock_and_hide_an_unseen_one():
    # A recycles 3♣ 8♦ J♠ (watched face up): after 3♣ is exposed, everyone knows 8♦ comes next;
    # B, C and D have never-seen stocks: unknown
    e = make(rig([[], ["4♠"], ["4♦"], ["4♥"]], discards=[["3♣", "8♦", "J♠"], [], [], []],
                 commons=["K♥"], fill_to=[1, 2, 3]))
    view = e.kernel_state.public_view(B)
    assert view["next_cards"] == [parse_card("8♦"), -1, -1, -1]
    # an empty stock: the next card is the oldest card of the discard
    e = make(rig([["6♥"], ["K♣"], ["3♥"], ["10♠"]], discards=[[], ["7♦", "2♣"], [], []]))
    assert e.kernel_state.public_view(A)["next_cards"][B] == -1  # B still has a stock
    e = make(rig([["6♥"], [], ["3♥"], ["10♠"]], discards=[[], ["7♦", "2♣"], [], []], fill_to=[0, 2, 3]))
    assert e.kernel_state.public_view(A)["next_cards"][B] == parse_card("7♦")


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.sampled_from([3, 4, 7]))
def test_a_known_next_card_is_the_card_that_player_exposes_next(seed, n):
    # without mistakes nothing but its owner's turn changes a stock, so the view's promise holds
    # (with mistakes a penalty can take the card first)
    game = MugginsCardsGame(num_players=n, max_turns=400)
    state = game.new_initial_state(seed=seed)
    rng = np.random.default_rng(seed)
    promised: dict[int, int] = {}  # seat -> the next card the view announced for it
    known = 0
    while not state.is_terminal():
        if state.player in promised:
            assert state.exposed == promised.pop(state.player)
        for seat, card in enumerate(state.public_view(state.player)["next_cards"]):
            if seat != state.player and card >= 0:
                assert promised.setdefault(seat, card) == card
                known += 1
        legal = state.legal_actions()
        state.apply(int(legal[rng.integers(len(legal))]))
    assert known > 0 or state.turns < 60  # long games do recycle


def test_a_correct_last_placement_wins_and_pays_zero_sum_rewards():
    e = make(rig([["6♥"], [], [], []], fill_to=[1, 2, 3]))
    e.step(COMMON_PILE + 0)
    assert all(e.terminations.values()) and not any(e.truncations.values())
    assert e.rewards == pytest.approx({"player_0": 1.0, "player_1": -1 / 3, "player_2": -1 / 3, "player_3": -1 / 3})
    assert e.kernel_state.returns().sum() == pytest.approx(0)


def test_last_card_on_own_discard_does_not_win():
    e = make(rig([["J♥"], [], [], []], fill_to=[1, 2, 3]))
    e.step(OWN_DISCARD)
    assert not any(e.terminations.values()) and e.full_state()["discards"][A] == parse_cards("J♥")


def test_a_winning_mistake_that_is_called_is_corrected_penalised_and_play_goes_on():
    e = make(rig([["6♥"], ["K♣"], ["3♥"], ["10♠"]], discards=[[], ["7♦"], [], []], fill_to=[1, 2, 3]),
             mistakes=True)
    e.step(OPPONENT_DISCARD + 0)  # A's last card, on B's 7♦ instead of the common 5♣
    e.step(CALL)
    assert not any(e.terminations.values())
    assert e.full_state()["stocks"][A] == parse_cards("K♣ 3♥ 10♠")


def test_an_uncalled_winning_placement_stands():
    e = make(rig([["6♥"], ["K♣"], ["3♥"], ["10♠"]], discards=[[], ["7♦"], [], []], fill_to=[1, 2, 3]),
             mistakes=True)
    e.step(COMMON_PILE + 0)
    for _ in range(3):
        assert not any(e.terminations.values())
        e.step(PASS)
    assert all(e.terminations.values()) and e.rewards["player_0"] == 1.0


def test_a_player_who_gives_their_last_card_as_penalty_wins_when_the_penalty_is_complete():
    # C holds a single card; A misplays and B calls: C gives its last card and wins
    deal = rig([["6♥"], ["K♣"], ["3♥"], ["10♠"]], discards=[[], ["7♦"], [], []], fill_to=[0, 1, 3])
    e = make(deal, mistakes=True)
    assert e.full_state()["stocks"][C] == parse_cards("3♥")
    e.step(OPPONENT_DISCARD + 0)
    e.step(CALL)
    s = e.full_state()
    assert s["winner"] == C and all(e.terminations.values())
    assert s["stocks"][A][-3:] == parse_cards("K♣ 3♥ 10♠")  # D still paid: the penalty completed
    assert e.rewards["player_2"] == 1.0


def test_a_giver_with_an_empty_stock_turns_its_discard_over_first():
    deal = rig([["6♥"], ["K♣"], [], ["10♠"]], discards=[[], ["7♦"], ["2♦", "9♣"], []], fill_to=[0, 1, 3])
    e = make(deal, mistakes=True)
    e.step(OPPONENT_DISCARD + 0)
    e.step(CALL)
    s = e.full_state()
    assert s["stocks"][A][-3:] == parse_cards("K♣ 2♦ 10♠")  # C gave its oldest discard card
    assert s["stocks"][C] == parse_cards("9♣") and s["discards"][C] == []


def test_max_turns_truncates_as_a_draw():
    e = raw_env(max_turns=5)
    e.reset(seed=4)
    steps = 0
    while not any(e.truncations.values()) and not any(e.terminations.values()):
        e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
        steps += 1
    assert steps == 5 and all(e.truncations.values()) and not any(e.terminations.values())
    assert set(e.rewards.values()) == {0.0} and e.kernel_state.turns == 5


@pytest.mark.parametrize("n,each,commons", [(3, 17, 1), (4, 12, 4), (5, 10, 2), (6, 8, 4), (7, 7, 3)])
def test_random_deal_sizes(n, each, commons):
    s = MugginsCardsGame(num_players=n).new_initial_state(seed=1)
    full = s.full_state()
    assert len(full["commons"]) == commons
    sizes = sorted(len(x) for x in full["stocks"])
    assert sizes == sorted([each] * (n - 1) + [each - 1])  # the first player has exposed a card


@pytest.mark.parametrize("deal,match", [
    ({"dealer": 0, "stocks": [[0]] * 4, "commons": [1]}, "twice"),
    ({"dealer": 9, "stocks": [[], [], [], []], "commons": [0]}, "dealer=9"),
    ({"dealer": 0, "stocks": [[], []], "commons": [0]}, "list of 4 lists"),
    ({"dealer": 0, "stocks": [[], [], [], []]}, "missing 'commons'"),
    ({"dealer": 0, "stocks": [["ZZ"], [], [], []], "commons": [0]}, "malformed card 'ZZ'"),
    ({"dealer": 0, "stocks": [[], [], [], []], "commons": [0], "extra": 1}, "unknown deal key"),
])
def test_invalid_deals_raise_naming_the_problem(deal, match):
    with pytest.raises(ValueError, match=match):
        raw_env().reset(options={"deal": deal})


def test_a_rigged_deal_missing_cards_is_refused():
    deal = rig([["6♥"], [], [], []])
    deal["stocks"][1].pop()
    with pytest.raises(ValueError, match="missing"):
        raw_env().reset(options={"deal": deal})


def test_observation_hides_stock_order_and_shows_the_review():
    e = example1(mistakes=True)
    obs_a = e.observe("player_0")["observation"]
    e.step(OPPONENT_DISCARD + 0)
    view = e.infos["player_1"]["view"]
    assert view["review"] == {"placer": A, "action": OPPONENT_DISCARD, "card": parse_card("6♥"),
                              "common_pile": -1, "discard_of": B}
    assert view["discard_tops"][B] == parse_card("7♦")  # the table as before the placement
    assert obs_a.dtype == np.float32 and obs_a.min() >= 0 and obs_a.max() <= 1


# -- one picture during a review (issue 16, point 10) ----------------------------------------------------
def reference_observation(state, player):
    """The observation written piece by piece from the full state (the piles as they lie, the
    card in play apart) and the cards the table has seen: no shared code with the game's."""
    from muggins_env.kernel.cards import RANK_LIST

    g, n, full = state.game, state.n, state.full_state()
    at = {}
    off = 0
    for name, size in g.observation_layout.items():
        at[name] = off
        off += size
    obs = np.zeros(g.observation_size, np.float32)
    rank = RANK_LIST
    if full["card_in_play"] >= 0:
        obs[at["exposed"] + rank[full["card_in_play"]] - 1] = 1
    for i, pile in enumerate(full["commons"]):
        obs[at["commons"] + 14 * i] = 1
        obs[at["commons"] + 14 * i + rank[pile[-1]]] = 1
    for rel in range(n):
        seat, base = (player + rel) % n, at["seats"] + 15 * rel
        if full["discards"][seat]:
            obs[base + rank[full["discards"][seat][-1]] - 1] = 1
        obs[base + 13] = len(full["stocks"][seat]) / 52
        obs[base + 14] = len(full["discards"][seat]) / 52
        stock, discard = full["stocks"][seat], full["discards"][seat]
        nxt = (stock[0] if state.face_up[stock[0]] else -1) if stock else (discard[0] if discard else -1)
        if nxt >= 0:
            obs[at["next"] + 13 * rel + rank[nxt] - 1] = 1
    phase = ["place", "call", "rechoose", "over"].index(full["phase"])
    if phase != 3:
        obs[at["to_act"] + (full["to_act"] - player) % n] = 1
        obs[at["phase"] + phase] = 1
        obs[at["placer"] + (full["player"] - player) % n] = 1
    if full["phase"] == "call":  # the destination under review (still known when re-choosing)
        placer, action, _ = full["review"]
        owner = -1 if action < OPPONENT_DISCARD else (placer if action == OWN_DISCARD
                                                     else (placer + action - OPPONENT_DISCARD + 1) % n)
        rel = (owner - player) % n
        obs[at["review"] + (action if owner < 0 else OWN_DISCARD if rel == 0 else OPPONENT_DISCARD + rel - 1)] = 1
    for pile in full["commons"] + full["discards"]:
        for c in pile:
            obs[at["seen"] + rank[c] - 1] += 0.25
    obs[at["clock"]] = full["turns"] / g.max_turns
    return obs


#: view keys that describe the decision, not the table
DECISION_KEYS = ("phase", "to_act", "review")


@pytest.mark.parametrize("n", [3, 4, 5, 7])
def test_a_review_shows_the_table_as_before_the_placement(n):
    """At every decision of random games with mistakes: the observation equals one built from
    scratch; during a review every player's view and observation show the table exactly as
    the position before the placement did (tops, sizes, rank counts, next cards, the card in
    play), only the decision pieces differ (phase, who acts, the destination under review)."""
    game = MugginsCardsGame(num_players=n, mistakes=True, max_turns=120)
    layout = game.observation_layout
    keep = np.ones(game.observation_size, bool)  # the pieces that must not change in a review
    off = 0
    for name, size in layout.items():
        if name in ("to_act", "phase", "review"):
            keep[off:off + size] = False
        off += size
    rng = np.random.default_rng(n)
    reviews = 0
    for seed in range(4):
        state = game.new_initial_state(seed=seed)
        before = None
        while not state.is_terminal():
            for p in range(n):
                np.testing.assert_array_equal(state.observation(p), reference_observation(state, p))
            if state.phase_name() == "call":
                reviews += 1
                placer, placed, _, _ = state.review
                for p in range(n):
                    obs, ref = state.observation(p), before.observation(p)
                    np.testing.assert_array_equal(obs[keep], ref[keep])
                    view, old = state.public_view(p), before.public_view(p)
                    assert {k: v for k, v in view.items() if k not in DECISION_KEYS} == \
                        {k: v for k, v in old.items() if k not in DECISION_KEYS}
                    assert view["review"]["card"] == view["card_in_play"] == before.exposed
                    assert view["review"]["action"] == placed and view["review"]["placer"] == placer
            legal = state.legal_actions()
            if state.phase_name() == "place":
                before = state.clone()
            state.apply(int(rng.choice(legal)))
    assert reviews > 100


def test_issue16_reproducers_show_no_card_landed_during_the_review():
    e = raw_env(num_players=3, mistakes=True)
    e.reset(seed=332871055)
    sizes = e.kernel_state.public_view(2)["discard_sizes"]
    e.step(10)
    view = e.kernel_state.public_view(2)
    assert view["discard_tops"] == [-1, -1, -1] and view["discard_sizes"] == sizes == [0, 0, 0]
    game = e.kernel_state.game
    seats = sum(list(game.observation_layout.values())[:2])
    obs = e.observe("player_2")["observation"]
    assert not any(obs[seats + 15 * rel + 14] for rel in range(3))  # no discard size without a top

    others = [c for c in range(52) if c not in (4, 12)]
    deal = {"dealer": 2, "stocks": [[4], others[:25], others[25:]], "commons": [12]}
    e.reset(seed=0, options={"deal": deal})
    e.step(10)  # seat 0 keeps its only card on its own discard: under review
    view = e.kernel_state.public_view(1)
    assert view["next_cards"][0] == -1 and view["discard_sizes"][0] == 0  # seat 0 holds no card yet
    assert view["card_in_play"] == 4 and view["review"]["discard_of"] == 0
    e.step(PASS)
    e.step(PASS)  # the review settles: the card lands, and it is seat 0's next card
    view = e.kernel_state.public_view(1)
    assert view["discard_sizes"][0] == 1 and view["next_cards"][0] == 4


def test_heuristic_observers_call_every_mistake_and_only_mistakes_in_play():
    from muggins_env.agents import make_agent

    game = MugginsCardsGame(num_players=4, mistakes=True, max_turns=150)
    h = make_agent("heuristic", "muggins_cards_v0", {"num_players": 4, "mistakes": True})
    rng = np.random.default_rng(1)
    calls = passes = 0
    for seed in range(6):
        state = game.new_initial_state(seed=seed)
        while not state.is_terminal():
            if state.phase_name() == "call":
                p = state.current_player()
                a = h.act(state.observation(p), state.legal_actions_mask(), rng, state.public_view(p))
                assert (a == CALL) is (not state.review[2])  # a call exactly on a mistake
                calls += a == CALL
                passes += a == PASS
            else:
                a = int(rng.choice(state.legal_actions()))  # random placements: mostly mistakes
            state.apply(a)
    assert calls > 20 and passes > 20


# -- properties ---------------------------------------------------------------------------------------
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(3, 7), mistakes=st.booleans())
def test_properties_conservation_masks_zero_sum_and_replay(seed, n, mistakes):
    game = MugginsCardsGame(num_players=n, mistakes=mistakes, max_turns=300)
    actions = []

    def check(state):
        full = state.full_state()
        held = [c for k in ("stocks", "discards", "commons") for p in full[k] for c in p]
        if full["card_in_play"] >= 0:  # turned up, or under review (not yet on its pile)
            held.append(full["card_in_play"])
        assert sorted(held) == list(range(52))
        assert state.legal_actions_mask().any()

    rng = np.random.default_rng(seed)
    state = game.new_initial_state(seed=seed)
    while not state.is_terminal():
        check(state)
        a = int(rng.choice(state.legal_actions()))
        actions.append(a)
        state.apply(a)
    assert state.returns().sum() == pytest.approx(0)
    replay = game.new_initial_state(seed=seed)
    for a in actions:
        replay.apply(a)
    assert replay.full_state() == state.full_state()
    assert np.array_equal(replay.returns(), state.returns())


# -- conformance ---------------------------------------------------------------------------------------
# With mistakes=False and few common piles nearly every turn is forced (3 players: all of them,
# see the next test), so skip_forced is checked there with 4 and 6 players (four piles).
@pytest.mark.parametrize("n,mistakes,skip_forced", [
    (n, m, False) for n in range(3, 8) for m in (False, True)] + [
    (n, True, True) for n in range(3, 8)] + [(4, False, True), (6, False, True)])
def test_pettingzoo_api_and_seed(n, mistakes, skip_forced):
    opts = {"num_players": n, "mistakes": mistakes, "skip_forced": skip_forced, "max_turns": 200}
    check_api(lambda: raw_env(**opts), lambda: wrapped_env(**opts), num_cycles=100)


def test_three_players_without_mistakes_have_no_decision_so_skip_forced_plays_the_hand_out():
    e = raw_env(num_players=3, skip_forced=True, max_turns=3000)
    e.reset(seed=5)
    state = e.kernel_state
    assert state.is_terminal() and state.turns > 0
    done = e.truncations if state.is_truncated() else e.terminations
    assert all(done.values())
    assert sum(e._cumulative_rewards.values()) == pytest.approx(0)
    assert [e._cumulative_rewards[a] for a in e.possible_agents] == pytest.approx(state.returns().tolist())


def test_skip_forced_surfaces_only_real_choices_and_keeps_rewards():
    e = raw_env(skip_forced=True, max_turns=1000)
    e.reset(seed=11)
    total = {a: 0.0 for a in e.possible_agents}
    while e.agents:
        obs, reward, term, trunc, _ = e.last()
        if term or trunc:
            total[e.agent_selection] += reward
            e.step(None)
            continue
        assert obs["action_mask"].sum() >= 2
        total[e.agent_selection] += reward
        e.step(int(np.flatnonzero(obs["action_mask"])[0]))
    returns = e.kernel_state.returns()
    assert [total[a] for a in e.possible_agents] == pytest.approx(returns.tolist())


@pytest.mark.parametrize("n,mistakes", [(3, False), (4, True), (7, True)])
def test_information_leak(n, mistakes):
    state = MugginsCardsGame(num_players=n, mistakes=mistakes).new_initial_state(seed=n)
    changed = check_info_leak(state, seed=n, max_decisions=120)
    assert changed > 0


def test_random_play_finishes_with_a_winner_or_a_draw():
    outcomes = set()
    for seed in range(10):
        s = random_play(MugginsCardsGame(num_players=4, max_turns=2000).new_initial_state(seed=seed),
                        np.random.default_rng(seed))
        outcomes.add("draw" if s.is_truncated() else "win")
        assert s.is_terminal()
    assert "win" in outcomes
