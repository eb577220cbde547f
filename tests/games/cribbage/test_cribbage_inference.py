"""What a cribbage go tells the others (``go_floor``) and the worlds that keep it
(``resample_inferred``, the worlds of ``search:N,worlds=inferred``): docs/rules/cribbage.md
§4.2b's worked play with the facts derived by hand, and seeded games in which the true hands never
break a fact while the uniform re-deal does."""

import numpy as np
import pytest

from muggins_env.games.cribbage import GO
from muggins_env.games.cribbage.rules import VALUE

from ..worlds_checks import play_search, survey_worlds
from .test_cribbage_rules import DEALER, FULL_PLAY, PONE, cid, lay_away, make, step


def broken(state, seat):
    floor = state.go_floor[seat]
    return bool(floor) and any(VALUE[c] < floor for c in state.hands[seat])


def test_a_go_sets_the_floor_of_the_cards_still_held():
    e = make(FULL_PLAY, muggins=False)
    lay_away(e, ["A♠", "4♠"])
    lay_away(e, ["A♥", "4♥"])
    state = e.kernel_state
    assert state.go_floor == (0, 0)
    for card in ("K♣", "10♦", "7♣"):
        step(e, cid(card))
    step(e, GO)  # the dealer at 27: no card of 4 or less
    assert state.go_floor == (0, 5)
    step(e, cid("2♣"))  # 29: the pone, the last to lay, cannot lay its 3 either: a go for 1
    assert state.go_floor == (3, 5)
    step(e, cid("9♦"))  # the dealer leads the next series; the pone decides
    assert state.current_player() == PONE and state.hands[DEALER] == sorted([cid("8♦"), cid("7♦")])
    rng = np.random.default_rng(0)
    inferred = [state.resample_inferred(PONE, rng) for _ in range(200)]
    uniform = [state.resample_hidden(PONE, rng) for _ in range(200)]
    assert all(min(VALUE[c] for c in w.hands[DEALER]) >= 5 for w in inferred)
    assert sum(min(VALUE[c] for c in w.hands[DEALER]) < 5 for w in uniform) > 50  # 16 of 40 unseen are A-4
    for w in inferred:
        assert np.array_equal(w.observation(PONE), state.observation(PONE)) and len(w.hands[DEALER]) == 2


@pytest.mark.parametrize("opts", [{}, {"muggins": False}, {"num_players": 3}, {"num_players": 4}])
def test_true_hands_keep_every_floor_and_inferred_worlds_keep_them_too(opts):
    counts = survey_worlds("cribbage_v0", opts, range(10), facts=lambda st: list(st.go_floor),
                           breaks=lambda st, seat, floor: any(VALUE[c] < floor for c in st.hands[seat]),
                           size=lambda floor: int(floor > 0))
    assert counts["facts"] > 100 and counts["uniform_broken"] > 0 and counts["inferred_broken"] == 0


def test_cribbage_search_with_inferred_worlds_plays_legal_moves():
    agent = play_search("search:8,worlds=inferred", "cribbage_v0", {"muggins": False}, seed=4, steps=60)
    assert agent.name == "search:8,worlds=inferred"
