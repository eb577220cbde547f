"""What a dominoes seat's turns without a play tell the others (``cannot_play_constraints``) and
the worlds that keep it (``resample_inferred``, the worlds of ``search:N,worlds=inferred``):
constructed hands with the facts derived by hand, and seeded games in which the true state never
breaks a derived fact (the inference excludes nothing that can be so) while the uniform re-deal
often does."""

import numpy as np
import pytest
from muggins_env.agents import make_agent
from muggins_env.agents.factory import make_game

from muggins_env.games.dominoes.rules import TILE_BITS
from muggins_env.kernel.tiles import HALVES, parse_tiles

from ..worlds_checks import play_search, survey_worlds
from .test_dominoes_rules import make, play

SIX = 1 << 6


def broken(state, seat):
    """The facts about ``seat`` that its tiles in ``state`` break."""
    return [(void, k) for void, k in state.cannot_play_constraints(seat)
            if sum(1 for t in state.hands[seat] if TILE_BITS[t] & void) > k]


def test_a_seat_that_drew_holds_no_tile_of_the_ends_it_could_not_match():
    # 6-6 leads; seat 1 (5-2 2-0) cannot match a 6: draws 4-1 and 3-2 (no 6) and 6-5, which it plays
    e = make([["6-6", "3-0"], ["5-2", "2-0"]], boneyard=["4-1", "3-2", "6-5", "1-0"], muggins="off")
    play(e, "6-6", 0)
    play(e, "6-5", 1)
    st = e.kernel_state
    assert sorted(st.hands[1]) == sorted(parse_tiles("5-2 2-0 4-1 3-2"))
    # the ends were 6 and 6; the drawn 6-5 was the one exception, and it has been played
    assert st.cannot_play_constraints(1) == [(SIX, 0)]
    assert st.cannot_play_constraints(0) != []  # seat 0 (3-0 against 6 and 5) had to draw too
    rng = np.random.default_rng(0)
    me = st.current_player()
    assert me == 0
    inferred = [st.resample_inferred(0, rng) for _ in range(200)]
    uniform = [st.resample_hidden(0, rng) for _ in range(200)]
    assert all(not any(HALVES[t][0] == 6 or HALVES[t][1] == 6 for t in w.hands[1]) for w in inferred)
    assert sum(any(6 in HALVES[t] for t in w.hands[1]) for w in uniform) > 50  # 4 of 14 unseen tiles hold a 6
    for w in inferred:
        assert sorted(w.hands[0]) == sorted(st.hands[0]) and len(w.hands[1]) == 4
        assert sorted(w.hands[1] + w.boneyard) == sorted(st.hands[1] + st.boneyard)
        assert np.array_equal(w.observation(0), st.observation(0))


def test_a_seat_that_passed_at_the_reserve_keeps_every_drawn_tile_void():
    e = make([["6-6", "6-1", "3-0"], ["5-2", "2-0"]], boneyard=["4-1", "3-2", "6-5"], muggins="off",
             boneyard_reserve=21, hand_size=1)
    play(e, "6-6", 0)
    st = e.kernel_state
    assert st.legal_actions() == [e.game.PASS] and st.drawn == [0, 2]
    assert st.cannot_play_constraints(1) == [(SIX, 0)]  # 5-2 2-0 4-1 3-2: nothing drawn may be played
    e.step(e.game.PASS)
    play(e, "6-1", 1)  # ends 6 and 1: seat 1 plays 4-1 on the 1, no new fact
    assert st.current_player() == 1 and st.cannot_play_constraints(1) == [(SIX, 0)]


def test_later_draws_are_exceptions_to_an_older_void_until_played():
    # seat 1 cannot match 6 (draws 4-1, 6-5 and plays 6-5), then cannot match 5 or 6 again
    # (draws 6-0: a 6 is playable... so it is the exception of the new fact, not of the old)
    e = make([["6-6", "5-5", "2-1"], ["4-3", "3-1"]], boneyard=["4-1", "6-5", "4-4", "0-0", "5-0"],
             muggins="off")
    play(e, "6-6", 0)
    st = e.kernel_state
    assert st.drawn == [0, 2] and st.cannot_play_constraints(1) == [(SIX, 1)]  # 6-5 still in hand
    play(e, "6-5", 1)
    assert st.cannot_play_constraints(1) == [(SIX, 0)]
    play(e, "5-5", 1)  # ends 6 and 5: seat 1 (4-3 3-1 4-1) draws 4-4, 0-0, then 5-0 fits
    assert st.drawn == [0, 5]
    facts = st.cannot_play_constraints(1)
    five = 1 << 5
    # the old fact widens to 5 and 6 with the three drawn tiles as exceptions; the new one has the
    # playable 5-0 as its only exception
    assert facts == [(SIX | five, 3), (SIX | five, 1)]
    play(e, "5-0", 1)
    assert st.cannot_play_constraints(1) == [(SIX | five, 2), (SIX | five, 0)]
    assert broken(st, 1) == []


@pytest.mark.parametrize("opts", [{}, {"num_players": 4, "partnerships": True},
                                  {"num_players": 4, "knocking": True}, {"num_players": 3, "boneyard_reserve": 2},
                                  {"variant": "fives_1863"}])
def test_true_states_keep_every_fact_and_inferred_worlds_keep_them_too(opts):
    counts = survey_worlds(
        "muggins_dominoes_v0", opts, range(12),
        facts=lambda st: [st.cannot_play_constraints(s) for s in range(st.n)],
        breaks=lambda st, seat, facts: any(sum(1 for t in st.hands[seat] if TILE_BITS[t] & void) > k
                                           for void, k in facts),
        size=len)
    assert counts["facts"] > 100 and counts["uniform_broken"] > counts["worlds"] // 20
    assert counts["inferred_broken"] <= counts["worlds"] // 200  # a greedy deal may (rarely) relax a void


def test_search_with_inferred_worlds_is_named_apart_and_plays_legal_moves():
    assert make_agent("search:12", "muggins_dominoes_v0").name == "search:12"
    assert make_agent("search:12,worlds=uniform", "muggins_dominoes_v0").name == "search:12"
    with pytest.raises(ValueError, match="worlds='guessed'.*uniform, inferred"):
        make_agent("search:12,worlds=guessed", "muggins_dominoes_v0")
    for opts in ({}, {"num_players": 4, "partnerships": True}):
        agent = play_search("search:12,worlds=inferred", "muggins_dominoes_v0", opts, steps=150)
        assert agent.name == "search:12,worlds=inferred" and agent.inferred_worlds


def test_before_any_fact_and_without_any_the_worlds_are_resample_hiddens():
    for game_id in ("michigan_v0", "muggins_cards_v0", "cribbage_v0", "muggins_dominoes_v0"):  # at the deal
        state = make_game(game_id).new_initial_state(seed=3)
        p = state.current_player()
        a = state.resample_inferred(p, np.random.default_rng(1))
        b = state.resample_hidden(p, np.random.default_rng(1))
        assert a.full_state() == b.full_state()
