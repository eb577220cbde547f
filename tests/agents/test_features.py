"""Derived features (agents/features.py, training config ``features: derived``): each feature
equals what the rules engine itself computes (the kernel is the oracle), they are built from
the player's view only (a re-deal of the hidden cards leaves them unchanged), and they flow
through the seat env, saved policies and the PPO agent."""

from __future__ import annotations

import random

import numpy as np
import pytest
from muggins_env.agents import make_game
from muggins_env.agents.features import derived_features, make_features
from muggins_env.agents.ppo import NumpyPolicy, load_ppo_agent
from muggins_env.train.config import ConfigError, load_config

from muggins_env.wrappers import SeatEnv


def _play(game_id: str, options: dict, seeds: range, on_decision) -> int:
    """Random play; ``on_decision(state, player, features)`` at every decision."""
    game = make_game(game_id, options)
    feats = derived_features(game_id, game)
    rng = random.Random(0)
    seen = 0
    for seed in seeds:
        state = game.new_initial_state(seed=seed)
        while not state.is_terminal():
            p = state.current_player()
            on_decision(state, p, feats(state.public_view(p), state.legal_actions_mask()))
            seen += 1
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
    return seen


def test_cribbage_features_give_the_kernel_true_count_and_misses():
    counts = {"announce": 0, "respond": 0, "play": 0}

    def check(state, p, f):
        phase = state.phase_name()
        rv = state.review
        if phase in ("announce", "respond"):
            assert f[:30].sum() == 1 and f[rv["true"]] == 1
            counts[phase] += 1
        else:
            assert not f[:61].any()
        if phase == "respond":
            missed = rv["true"] - rv["announced"]
            assert f[30:60].sum() == (1 if missed > 0 else 0)
            if missed > 0:
                assert f[30 + missed] == 1
            assert f[60] == (1 if missed < 0 else 0)
        if phase == "play":
            # a card scores at once only if it is legal; a scoring card shows its points / 12
            legal = set(state.legal_actions())
            for c in range(52):
                if f[61 + c] > 0:
                    assert c in legal
                    twin = state.clone()
                    before = twin.scores[twin.game.teams[p]]
                    twin.apply(c)
                    got = twin.scores[twin.game.teams[p]] - before
                    # the last card of the play also scores its go point: at least the play points
                    assert got >= round(f[61 + c] * 12)
            counts["play"] += 1

    _play("cribbage_v0", {"num_players": 2}, range(4), check)
    assert all(v > 10 for v in counts.values()), counts


def test_cribbage_lay_away_features_are_the_best_expected_show_of_the_kept_cards():
    from itertools import combinations

    from muggins_env.games.cribbage.scoring import fast_score

    game = make_game("cribbage_v0", {"num_players": 2})
    feats = derived_features("cribbage_v0", game)
    for seed in range(3):
        state = game.new_initial_state(seed=seed)
        p = state.current_player()
        view = state.public_view(p)
        f = feats(view, state.legal_actions_mask())
        hand = view["hand"]
        unseen = [c for c in range(52) if c not in hand]
        for c in range(52):
            if c not in hand:
                assert f[113 + c] == 0
                continue
            best = max(np.mean([fast_score([k for k in hand if k not in away], s, False) for s in unseen])
                       for away in combinations(hand, 2) if c in away)
            assert f[113 + c] == pytest.approx(min(best / 29, 1.0), abs=1e-6)


def test_cribbage_play_features_give_the_count_after_each_card_and_the_answer_risk():
    """In the play, each legal card's count-after block is (count + value) / 31 and illegal
    cards are 0; the risk block is 0 where no answer can score (count reaches 31, or the next
    player has no card left) and never negative."""
    from muggins_env.agents.features import CribbageFeatures as F

    seen = {"risky": 0}

    def check(state, p, f):
        if state.phase_name() != "play":
            assert not f[F.PLAY_RISK:F.DEAL_VALUE].any()
            return
        legal = set(state.legal_actions())
        view = state.public_view(p)
        for c in range(52):
            value = min(c % 13 + 1, 10)
            if c in legal:
                assert f[F.PLAY_COUNT + c] == pytest.approx((state.count + value) / 31)
                if state.count + value == 31:
                    assert f[F.PLAY_RISK + c] == 0
                seen["risky"] += f[F.PLAY_RISK + c] > 0
            else:
                assert f[F.PLAY_COUNT + c] == 0 and f[F.PLAY_RISK + c] == 0
        assert (f[F.PLAY_RISK:F.PLAY_COUNT] >= 0).all()
        others_out = all(view["hand_sizes"][q] == 0 or q in view["gone"] for q in range(len(view["hand_sizes"]))
                         if q != p)
        if others_out:
            assert not f[F.PLAY_RISK:F.PLAY_COUNT].any()

    _play("cribbage_v0", {"num_players": 2}, range(3), check)
    assert seen["risky"] > 20


def test_cribbage_answer_risk_knows_that_a_five_led_invites_fifteen_two():
    """Leading a 5 (any ten-card answers with fifteen for 2) is riskier than leading a 4 or an
    ace, the textbook advice the risk block must reflect."""
    from muggins_env.agents.features import CribbageFeatures as F
    game = make_game("cribbage_v0", {"num_players": 2})
    cards = ["5H", "4S", "AD", "9C", "QH", "KS", "2C", "7D", "3H", "8S", "JD", "6C", "TS"]
    hands = {"dealer": 1, "hands": [cards[:6], cards[6:12]], "starter": cards[12]}
    state = game.new_initial_state(seed=0, deal=hands)
    while state.phase_name() == "discard":  # lay away the two high cards of each hand
        p = state.current_player()
        state.apply(max(state.public_view(p)["hand"], key=lambda c: (min(c % 13 + 1, 10), c)))
    p = state.current_player()
    view = state.public_view(p)
    assert view["count"] == 0 and len(view["hand"]) == 4
    f = derived_features("cribbage_v0", game)(view, state.legal_actions_mask())
    risk = {c: f[F.PLAY_RISK + c] for c in view["hand"]}
    fives = [c for c in view["hand"] if c % 13 == 4]
    low = [c for c in view["hand"] if c % 13 in (0, 3)]
    assert fives and low
    assert all(risk[fives[0]] > risk[c] for c in low), risk


def test_cribbage_deal_value_adds_the_own_crib_and_subtracts_the_others():
    """The deal-value block: with the same six cards, the dealer's value of every lay-away is
    above the non-dealer's (the crib counts for the dealer, against the other)."""
    from muggins_env.agents.features import CribbageFeatures as F

    game = make_game("cribbage_v0", {"num_players": 2})
    feats = derived_features("cribbage_v0", game)
    for seed in range(3):
        state = game.new_initial_state(seed=seed)
        for p in range(2):
            view = state.public_view(p)
            f = feats(view, state.legal_actions_mask())
            mirrored = dict(view, dealer=1 - view["dealer"])  # the same cards, the other role
            g = feats(mirrored, state.legal_actions_mask())
            own = p == view["dealer"]
            for c in range(52):
                if c not in view["hand"]:
                    assert f[F.DEAL_VALUE + c] == 0
                    continue
                dealer_v, other_v = (f, g) if own else (g, f)
                assert dealer_v[F.DEAL_VALUE + c] > other_v[F.DEAL_VALUE + c]


def test_dominoes_features_give_the_kernel_true_score_and_wrong_announcements():
    counts = {"announce": 0, "respond": 0}

    def check(state, p, f):
        phase = state.phase_name()
        g = state.game
        k = g.max_announcement + 1
        if phase in ("announce", "respond"):
            assert f[:k].sum() == 1 and f[state.true_score] == 1
            counts[phase] += 1
        if phase == "respond":
            assert f[k] == (1 if state.review[1] != state.true_score else 0)
        if phase == "play":
            assert not f[:k + 1].any()
            legal = state.legal_actions()
            assert set(np.flatnonzero(f[k + 1:])) <= set(legal)
            for a in legal:
                if a < g.PASS:  # every play: the feature is the score the kernel gives it
                    twin = state.clone()
                    twin.apply(int(a))
                    scored = twin.true_score if twin.phase_name() != "play" else 0
                    assert scored == round(f[k + 1 + a] * g.max_announcement), (a, scored)

    _play("muggins_dominoes_v0", {"num_players": 2}, range(3), check)
    _play("muggins_dominoes_v0", {"num_players": 4, "knocking": True, "extra_play": True, "scoring": "primes"},
          range(2), check)
    assert all(v > 10 for v in counts.values()), counts


def test_card_muggins_features_mark_the_rules_destinations_and_mistakes():
    counts = {"place": 0, "call": 0}

    def check_default(state, p, f):  # without mistakes the legal actions ARE the rules' destinations
        if state.phase_name() == "place":
            assert np.array_equal(np.flatnonzero(f[:13]), state.legal_actions())
            counts["place"] += 1

    def check_mistakes(state, p, f):
        if state.phase_name() == "call":
            assert f[13] == (0 if state.review[2] else 1)  # the kernel's verdict on the placement
            counts["call"] += 1

    _play("muggins_cards_v0", {"num_players": 4}, range(3), check_default)
    _play("muggins_cards_v0", {"num_players": 4, "mistakes": True}, range(3), check_mistakes)
    assert all(v > 10 for v in counts.values()), counts


def test_card_muggins_features_count_the_known_next_cards_each_pile_choice_leaves_fitting():
    from muggins_env.kernel.cards import parse_card as c

    f = derived_features("muggins_cards_v0", make_game("muggins_cards_v0", {"num_players": 4}))
    # 6♥ fits 5♣ (pile 0) and 7♦ (pile 1). Covering 5♣ keeps 7♦: my 8♣ fits it, and of the
    # opponents' 4♦ 8♠ (one unknown) only 8♠; covering 7♦ keeps 5♣: my 8♣ fits nothing, 4♦ fits
    view = {"seat": 0, "card_in_play": c("6H"), "commons": [c("5C"), c("7D"), c("KH"), c("QS")],
            "discard_tops": [-1, -1, -1, -1], "next_cards": [c("8C"), c("4D"), -1, c("8S")]}
    out = f(view, np.zeros(13, np.int8))
    assert out.shape == (40,) and np.flatnonzero(out[:13]).tolist() == [0, 1] and out[13] == 0
    assert out[14:27].tolist() == [1, 0] + [0] * 11  # my known card fits after pile 0 only
    np.testing.assert_allclose(out[27:40], [1 / 3, 1 / 3] + [0] * 11)
    view["next_cards"] = [c("4C"), c("4D"), c("8S"), c("4S")]
    out = f(view, np.zeros(13, np.int8))
    assert out[14:16].tolist() == [0, 1]
    np.testing.assert_allclose(out[27:29], [1 / 3, 2 / 3])


@pytest.mark.parametrize("game_id,options", [("cribbage_v0", {"num_players": 2}),
                                             ("muggins_dominoes_v0", {"num_players": 2}),
                                             ("muggins_dominoes_v0", {"num_players": 3, "knocking": True,
                                                                      "extra_play": True, "variant": "primes"}),
                                             ("muggins_cards_v0", {"num_players": 4, "mistakes": True})])
def test_features_do_not_depend_on_hidden_cards(game_id, options):
    nrng = np.random.default_rng(0)

    def check(state, p, f):
        twin = state.resample_hidden(p, nrng)
        g = derived_features(game_id, state.game)
        np.testing.assert_array_equal(g(twin.public_view(p), twin.legal_actions_mask()), f)

    assert _play(game_id, options, range(2), check) > 50


def test_michigan_has_no_derived_features_and_bad_names_are_rejected():
    assert derived_features("michigan_v0", make_game("michigan_v0", {})) is None
    with pytest.raises(ValueError, match="features='bogus'.*none, derived"):
        make_features("bogus", "cribbage_v0", make_game("cribbage_v0", {}))
    with pytest.raises(ConfigError, match="features"):
        load_config(game="cribbage_v0", preset="quick", overrides={"features": "bogus"})


def test_seat_env_appends_features_and_ppo_agent_round_trip(tmp_path):
    game = make_game("cribbage_v0", {"num_players": 2})
    feats = derived_features("cribbage_v0", game)
    env = SeatEnv(game, opponents="heuristic", seed=1, features=feats)
    obs, _ = env.reset(seed=3)
    size = game.observation_size
    assert obs.shape == (size + feats.size,) and env.observation_space.contains(obs)
    np.testing.assert_array_equal(obs[:size], env.state.observation(env.learner))
    mask = env.action_masks().astype(np.int8)
    np.testing.assert_array_equal(obs[size:], feats(env.state.public_view(env.learner), mask))
    # a policy over the longer observation, saved with its feature name, loads as an agent
    rng = np.random.default_rng(0)
    hidden = 8
    policy = NumpyPolicy([(rng.normal(size=(hidden, size + feats.size)), np.zeros(hidden))],
                         (rng.normal(size=(game.num_actions, hidden)), np.zeros(game.num_actions)),
                         features="derived")
    policy.save(tmp_path / "model.npz")
    agent = load_ppo_agent(tmp_path, "cribbage_v0", {"num_players": 2})
    assert agent.needs_info and agent.features is not None
    state = game.new_initial_state(seed=5)
    p = state.current_player()
    a = agent.act(state.observation(p), state.legal_actions_mask(), rng, {"view": state.public_view(p)})
    assert a in state.legal_actions()
    with pytest.raises(ValueError, match="derived features"):
        agent.act(state.observation(p), state.legal_actions_mask(), rng, None)
    # the same weights saved without the feature name do not fit the game's observation
    NumpyPolicy(policy.layers, policy.head).save(tmp_path / "plain.npz")
    with pytest.raises(ValueError, match="expects observations"):
        load_ppo_agent(tmp_path / "plain.npz", "cribbage_v0", {"num_players": 2})
