"""What Michigan's leads tell the others (``lead_exclusions``: a lead is the leader's lowest card
of its suit; leading the suit that just stopped means holding no other) and the worlds that keep
it (``resample_inferred``, the worlds of ``search:N,worlds=inferred``): the worked example's
prelude with the facts derived by hand, and seeded games in which the true hands never break a
fact while the uniform re-deal does."""

import numpy as np
import pytest

from muggins_env.kernel.cards import NUM_CARDS, parse_cards

from ..worlds_checks import play_search, survey_worlds
from .test_michigan import EXAMPLE, PRELUDE, A, B, C, D, fill, make, play


def mask(text):
    return sum(1 << c for c in parse_cards(text))


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
    counts = survey_worlds("michigan_v0", opts, range(6), facts=lambda st: st.lead_exclusions(),
                           breaks=lambda st, seat, ruled: any(st.owner[c] == seat for c in range(NUM_CARDS)
                                                              if ruled >> c & 1),
                           size=int.bit_count)
    assert counts["facts"] > 1000 and counts["uniform_broken"] > counts["worlds"] // 10
    assert counts["inferred_broken"] <= counts["worlds"] // 200  # a greedy deal may (rarely) strand a card


def test_michigan_search_with_inferred_worlds_plays_legal_moves():
    agent = play_search("search:8,worlds=inferred", "michigan_v0", seed=4, steps=80)
    assert agent.name == "search:8,worlds=inferred"
