"""What Michigan's leads tell the others (``lead_exclusions``: a lead is the leader's lowest card
of its suit; leading the suit that just stopped means holding no other) and the worlds that keep
it (``resample_inferred``, the worlds of ``search:N,worlds=inferred``): the worked example's
prelude with the facts derived by hand, and seeded games in which the true hands never break a
fact while the uniform re-deal does."""

import numpy as np
import pytest
from muggins_env.agents.factory import make_agent, make_game

from muggins_env.decision import agent_inputs
from muggins_env.kernel.cards import NUM_CARDS, parse_cards

from .test_michigan import EXAMPLE, PRELUDE, A, B, C, D, fill, make, play


def mask(text):
    return sum(1 << c for c in parse_cards(text))


def broken(state, seat, excluded):
    return any(state.owner[c] == seat for c in range(NUM_CARDS) if excluded[seat] >> c & 1)


def test_leads_rule_out_the_lower_cards_of_their_suit():
    e = make(EXAMPLE)
    for seat, card in PRELUDE[:16]:  # ... D's 7♦ stops at the widow's 8♦ and D leads 3♥
        play(e, seat, card)
    st = e.kernel_state
    # leads so far: A 4♣ (no 2♣ 3♣), B 2♦ (nothing lower), D 3♥ (no 2♥); C has not led
    assert st.lead_exclusions() == [mask("2♣ 3♣"), 0, 0, mask("2♥")]
    p = st.current_player()
    assert p == C  # C holds 4♥
    rng = np.random.default_rng(0)
    two_clubs, three_clubs, two_hearts = parse_cards("2♣ 3♣ 2♥")
    inferred = [st.resample_inferred(C, rng) for _ in range(200)]
    uniform = [st.resample_hidden(C, rng) for _ in range(200)]
    assert all(w.owner[two_clubs] != A and w.owner[three_clubs] != A and w.owner[two_hearts] != D for w in inferred)
    assert sum(w.owner[two_clubs] == A or w.owner[two_hearts] == D for w in uniform) > 50
    for w in inferred:
        assert w.counts == st.counts and np.array_equal(w.observation(C), st.observation(C))


def test_leading_the_stopped_suit_again_rules_out_every_other_suit():
    # B holds spades only; A leads 2♠, B follows 3♠-6♠, the widow's 7♠ stops B, who must lead
    # another suit if it holds one: it leads 8♠, so it holds no other suit
    deal = fill(["2♠", "3♠ 4♠ 5♠ 6♠ 8♠ 9♠ 10♠ J♠ Q♠ K♠ A♠", "", ""], "7♠", dealer=D)
    e = make(deal, num_hands=1)
    for seat, card in [(A, "2♠"), (B, "3♠"), (B, "4♠"), (B, "5♠"), (B, "6♠"), (B, "8♠")]:
        play(e, seat, card)
    st = e.kernel_state
    spades = mask("2♠ 3♠ 4♠ 5♠ 6♠ 7♠ 8♠ 9♠ 10♠ J♠ Q♠ K♠ A♠")
    assert st.lead_exclusions() == [0, ((1 << NUM_CARDS) - 1) & ~spades | mask("2♠ 3♠ 4♠ 5♠ 6♠ 7♠"), 0, 0]
    rng = np.random.default_rng(1)
    truth = sorted(np.flatnonzero([o == B for o in st.owner]).tolist())
    inferred = [st.resample_inferred(A, rng) for _ in range(50)]
    assert all(sorted(c for c in range(NUM_CARDS) if w.owner[c] == B) == truth for w in inferred)
    uniform = [st.resample_hidden(A, rng) for _ in range(50)]
    assert sum(sorted(c for c in range(NUM_CARDS) if w.owner[c] == B) != truth for w in uniform) > 40


@pytest.mark.parametrize("opts", [{}, {"num_players": 3}, {"num_players": 6}])
def test_true_hands_keep_every_lead_fact_and_inferred_worlds_keep_them_too(opts):
    game = make_game("michigan_v0", opts)
    rng = np.random.default_rng(3)
    facts = worlds = inferred_broken = uniform_broken = 0
    for seed in range(6):
        state = game.new_initial_state(seed=seed)
        while not state.is_terminal():
            p = state.current_player()
            excluded = state.lead_exclusions()
            for s in range(state.n):
                facts += excluded[s].bit_count()
                assert not broken(state, s, excluded), f"the true hand of seat {s} breaks a lead fact"
            w, u = state.resample_inferred(p, rng), state.resample_hidden(p, rng)
            assert np.array_equal(w.observation(p), state.observation(p)) and w.counts == state.counts
            for s in range(state.n):
                if s != p:
                    worlds += 1
                    inferred_broken += broken(w, s, excluded)
                    uniform_broken += broken(u, s, excluded)
            state.apply(int(rng.choice(state.legal_actions())))
    assert facts > 1000 and uniform_broken > worlds // 10
    assert inferred_broken <= worlds // 200  # a greedy deal may (rarely) strand a card 8 times


def test_michigan_search_with_inferred_worlds_plays_legal_moves():
    agent = make_agent("search:8,worlds=inferred", "michigan_v0")
    assert agent.name == "search:8,worlds=inferred"
    state = make_game("michigan_v0").new_initial_state(seed=4)
    rng = np.random.default_rng(4)
    for _ in range(80):
        if state.is_terminal():
            break
        p = state.current_player()
        m = state.legal_actions_mask()
        obs, info = agent_inputs(agent, state, p, m)
        a = agent.act(obs, m.copy(), rng, info)
        assert m[a] == 1
        state.apply(a)
