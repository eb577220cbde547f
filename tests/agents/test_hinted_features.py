"""The ``hinted`` feature set: the derived features followed by the heuristic's move, one-hot by
action. The hint is the heuristic's own move (checked against a separately built heuristic), the
same for the same view, never informed by hidden cards, and read by the scorer's per-action
features as one channel that is 1 at the hinted action only."""

from __future__ import annotations

import numpy as np
import pytest
from muggins_env.agents import make_agent, make_game
from muggins_env.agents.features import HintedFeatures, action_features, derived_features, make_features
from muggins_env.train.config import load_config

GAMES = [("cribbage_v0", {"num_players": 2}), ("cribbage_v0", {"num_players": 4}),
         ("muggins_dominoes_v0", {"num_players": 4}), ("michigan_v0", {"num_players": 4}),
         ("muggins_cards_v0", {"num_players": 4, "mistakes": True})]


def _heuristic_games(game_id, options, seeds, on_decision):
    """Games played by the heuristic (its seeded moves); ``on_decision(state, p, features, move)``
    at every decision with two or more legal actions."""
    game = make_game(game_id, options)
    feats = make_features("hinted", game_id, game)
    heuristic = make_agent("heuristic", game_id, options)
    rng = np.random.default_rng(7)
    n = 0
    for seed in seeds:
        state = game.new_initial_state(seed=seed)
        while not state.is_terminal():
            p = state.current_player()
            mask = state.legal_actions_mask()
            view = state.public_view(p)
            move = heuristic.act(None, mask.astype(np.int8), rng, view)
            if mask.sum() >= 2:
                on_decision(state, p, feats(view, mask), move)
                n += 1
            state.apply(move)
    return n


@pytest.mark.parametrize(("game_id", "options"), GAMES)
def test_hint_is_one_legal_action_after_the_unchanged_derived_features(game_id, options):
    game = make_game(game_id, options)
    base = derived_features(game_id, game)
    offset = base.size if base is not None else 0
    agree = []

    def check(state, p, f, move):
        mask = state.legal_actions_mask()
        assert f.shape == (offset + game.num_actions,)
        hint = f[offset:]
        assert hint.sum() == 1 and mask[int(np.argmax(hint))]
        if base is not None:
            np.testing.assert_array_equal(f[:offset], base(state.public_view(p), mask))
        agree.append(hint[move] == 1)

    assert _heuristic_games(game_id, options, range(3), check) > 30
    if game_id == "cribbage_v0":  # the lay-away samples the crib: another sample may pick another card
        assert np.mean(agree) > 0.9
    else:  # deterministic heuristics: the hint is exactly their move, whatever their rng
        assert all(agree)


@pytest.mark.parametrize(("game_id", "options"), [GAMES[1], GAMES[2], GAMES[4]])
def test_hint_is_the_same_for_the_same_view_and_ignores_hidden_cards(game_id, options):
    other = HintedFeatures(game_id, make_game(game_id, options))  # a second instance: no shared cache
    rng = np.random.default_rng(3)

    def check(state, p, f, move):
        twin = state.resample_hidden(p, rng)  # another deal of the cards the player cannot see
        assert twin.public_view(p) == state.public_view(p)
        np.testing.assert_array_equal(other(twin.public_view(p), twin.legal_actions_mask()), f)

    assert _heuristic_games(game_id, options, range(2), check) > 30


@pytest.mark.parametrize(("game_id", "options"), GAMES)
def test_scorer_action_features_read_the_hint_at_the_hinted_action_only(game_id, options):
    game = make_game(game_id, options)
    feats = make_features("hinted", game_id, game)
    af = action_features(game_id, game, "hinted")
    plain = action_features(game_id, game, "derived")
    channel = af.index.shape[1] - 1
    assert af.index.shape[1] == plain.index.shape[1] + 1  # the derived channels are kept as they were
    np.testing.assert_array_equal(af.index[:, :channel], plain.index)

    def check(state, p, f, move):
        x = np.concatenate([state.observation(p), f])
        g = af(x)
        hinted = np.flatnonzero(g[:, channel])
        assert hinted.tolist() == [int(np.argmax(f[feats.offset:]))]

    assert _heuristic_games(game_id, options, range(1), check) > 10


def test_config_accepts_hinted_and_names_the_allowed_sets():
    cfg = load_config(game="cribbage_v0", preset="quick", overrides={"features": "hinted"})
    assert cfg["features"] == "hinted"
    with pytest.raises(ValueError, match="features='hint'.*none, derived, hinted"):
        make_features("hint", "cribbage_v0", make_game("cribbage_v0", {}))
