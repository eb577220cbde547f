"""The ``extended`` feature set: ``hinted`` plus card Muggins' exposure of the discards. The
exposure of a hand-built table is checked against values worked out by hand; cribbage's and
Michigan's ``extended`` is exactly their ``hinted`` (dominoes' adds each play's expected answer:
test_dominoes_reply_risk.py); the scorer reads the four exposure blocks as per-action
channels; nothing hidden enters (a re-deal of the hidden cards changes nothing)."""

from __future__ import annotations

import numpy as np
import pytest
from muggins_env.agents import make_agent, make_game
from muggins_env.agents.features import action_features, derived_features, make_features
from muggins_env.agents.heuristic_muggins_cards import first_fitting_discard, open_ranks
from muggins_env.train.config import load_config

CARDS = ("muggins_cards_v0", {"num_players": 4, "mistakes": True})

# Card ids are suit * 13 + rank - 1 (docs/api.md): 5♣ 4, 7♦ 19, K♥ 38, 2♠ 40, 6♥ 31, 9♣ 8, 3♦ 15,
# 10♠ 48, 9♦ 21, 8♦ 20.
TABLE = {"seat": 0, "phase": "place", "review": None, "card_in_play": 31,  # 6♥: fits 5♣ (pile 0) and 7♦ (pile 1)
         "commons": [4, 19, 38, 40], "discard_tops": [8, 15, -1, 48],  # own 9♣, then 3♦, empty, 10♠
         "next_cards": [-1, 21, -1, 20]}  # seat 1 shows 9♦ next, seat 3 8♦

# Worked by hand. Covering 5♣ leaves tops 6 7 K 2, which take the ranks 1 3 5 6 7 8 12; covering
# 7♦ leaves 5 6 K 2, which take 1 3 4 5 6 7 12.
# - own discard 9♣: open 10 (pile 0) or 8 and 10 (pile 1) -> 1/2, 2/2
# - cards of those ranks not on a top: 10s 4 - 1 (10♠) = 3 -> 3/8; 8s 4 + 10s 3 = 7 -> 7/8
# - known next cards landing on one's own discard: pile 0: 9♦ fits no common and goes to seat 3's
#   10♠, 8♦ fits the common 7♦ -> 0; pile 1: 8♦ fits no common, and seat 3's first opponent
#   clockwise is seat 0 (9♣) -> 1 of 3 opponents
# - opponents' open ranks: 3♦ has 2 and 4 open (pile 0) or 2 only (pile 1); 10♠ 9 and 11 both ->
#   mean (2 + 2) / 2 / 2 = 1.0 and (1 + 2) / 2 / 2 = 0.75
EXPECTED = {0: [0.5, 0.375, 0.0, 1.0], 1: [1.0, 0.875, 1 / 3, 0.75]}


def test_the_exposure_of_a_table_worked_out_by_hand():
    game = make_game(*CARDS)
    plain, ext = derived_features(CARDS[0], game), derived_features(CARDS[0], game, extended=True)
    mask = np.ones(game.num_actions, bool)
    x, y = plain(TABLE, mask), ext(TABLE, mask)
    assert ext.size == plain.size + 4 * game.num_actions
    np.testing.assert_array_equal(y[:plain.size], x)  # the derived part is unchanged
    blocks = y[plain.size:].reshape(4, game.num_actions)
    for action, values in EXPECTED.items():
        np.testing.assert_allclose(blocks[:, action], values, rtol=0, atol=1e-6)
    assert not blocks[:, 2:].any()  # only the correct common piles are described


def test_open_ranks_and_the_first_fitting_discard():
    assert open_ranks(8, [4, 19, 38, 40]) == [10]  # 9♣ with 5 7 K 2 on the commons: 8 taken by 7
    assert open_ranks(-1, [4]) == []  # an empty discard is never started by an opponent
    assert open_ranks(0, [38]) == [2]  # an ace has one neighbour
    assert first_fitting_discard(20, 3, [8, 15, -1, 48]) == 0  # 8♦ from seat 3: seat 0's 9♣ first
    assert first_fitting_discard(21, 1, [8, 15, -1, 48]) == 3  # 9♦ from seat 1: empty seat 2, then 10♠
    assert first_fitting_discard(38, 0, [8, 15, -1, 48]) is None  # K♥ fits nobody's: it stays


def _heuristic_views(game_id, options, seeds):
    game = make_game(game_id, options)
    heuristic = make_agent("heuristic", game_id, options)
    rng = np.random.default_rng(5)
    for seed in seeds:
        state = game.new_initial_state(seed=seed)
        while not state.is_terminal():
            p = state.current_player()
            mask = state.legal_actions_mask()
            if mask.sum() >= 2:
                yield state, p, mask
            state.apply(heuristic.act(None, mask.astype(np.int8), rng, state.public_view(p)))


@pytest.mark.parametrize(("game_id", "options"), [("cribbage_v0", {"num_players": 2}),
                                                  ("michigan_v0", {"num_players": 4})])
def test_extended_is_hinted_in_the_games_without_extra_quantities(game_id, options):
    game = make_game(game_id, options)
    hinted, ext = make_features("hinted", game_id, game), make_features("extended", game_id, game)
    assert ext.size == hinted.size and ext.name == "extended"
    np.testing.assert_array_equal(action_features(game_id, game, "extended").index,
                                  action_features(game_id, game, "hinted").index)
    n = 0
    for state, p, mask in _heuristic_views(game_id, options, range(1)):
        np.testing.assert_array_equal(ext(state.public_view(p), mask), hinted(state.public_view(p), mask))
        n += 1
    assert n > 10


def test_card_muggins_extended_keeps_hinted_and_adds_four_scorer_channels():
    game = make_game(*CARDS)
    hinted, ext = make_features("hinted", CARDS[0], game), make_features("extended", CARDS[0], game)
    plain = derived_features(CARDS[0], game).size
    af_h, af_x = action_features(CARDS[0], game, "hinted"), action_features(CARDS[0], game, "extended")
    k = af_h.index.shape[1]
    assert af_x.index.shape[1] == k + 4
    np.testing.assert_array_equal(af_x.index[:, :k - 1], af_h.index[:, :k - 1])  # derived channels as before
    rng = np.random.default_rng(1)
    contested = 0
    for state, p, mask in _heuristic_views(*CARDS, range(3)):
        view = state.public_view(p)
        f = ext(view, mask)
        h = hinted(view, mask)
        np.testing.assert_array_equal(f[:plain], h[:plain])
        np.testing.assert_array_equal(f[-game.num_actions:], h[-game.num_actions:])  # the same hint
        twin = state.resample_hidden(p, rng)  # another deal of what the player cannot see
        np.testing.assert_array_equal(ext(twin.public_view(p), twin.legal_actions_mask()), f)
        g = af_x(np.concatenate([state.observation(p), f]))
        blocks = f[plain:plain + 4 * game.num_actions].reshape(4, game.num_actions)
        np.testing.assert_array_equal(g[:, k - 1:k + 3], blocks.T)  # channel j of action a is block j at a
        contested += int(f[:4].sum() >= 2)
    assert contested > 5


def test_config_accepts_extended():
    cfg = load_config(game="muggins_cards_v0", preset="scorer_extended")
    assert cfg["features"] == "extended"
    with pytest.raises(ValueError, match="features='extend'.*none, derived, hinted, extended"):
        make_features("extend", *CARDS[:1], make_game(*CARDS))
