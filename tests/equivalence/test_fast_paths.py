"""Speed work keeps behaviour identical (issue 8): the fast paths against straightforward
reference implementations, on random games of every configuration.

- cribbage: the observation (an incrementally updated per-player view, over a template of
  settled counts, plus the scalars that change every step) equals the observation built from
  scratch, piece by piece, for every player at every decision, on clones and on re-dealt
  states too, and when players are observed only now and then (views built late, or kept
  up to date over many unobserved moves);
- the adapter: per-step rewards, cumulative rewards, masks, infos and agent selection of
  ``raw_env`` equal what the kernel state says, step by step (the adapter only reports the
  state; its shortcuts for all-zero rewards and the one active info must not change that).
"""

from __future__ import annotations

import random

import numpy as np
import pytest

import muggins_env
from muggins_env.games.cribbage.rules import MAX_COUNT, OVER, PLAY, CribbageGame


def reference_cribbage_observation(state, player: int) -> np.ndarray:
    """The cribbage observation written piece by piece from the state (the layout of
    ``CribbageGame.observation_layout``), with no caching."""
    g, n = state.game, state.n
    off = g.observation_offsets
    obs = np.zeros(g.observation_size, dtype=np.float32)

    def one(piece: str, i: int) -> None:
        assert 0 <= i < g.observation_layout[piece]
        obs[off[piece] + i] = 1

    for c in state.hands[player]:
        one("hand", c)
    for c in state.laid_away[player]:
        one("crib_discards", c)
    if state.starter_cut:
        one("starter", state.starter_card)
    for seat in range(n):
        for c in state.played[seat]:
            one("played", ((seat - player) % n) * 52 + c)
    for c in state.series:
        one("series", c)
    obs[off["count"]] = state.count / 31
    if state.phase == PLAY:
        for seat in range(n):
            if state.gone[seat]:
                one("gone", (seat - player) % n)
    own, sides = g.teams[player], g.num_sides
    for side in range(sides):
        obs[off["scores"] + (side - own) % sides] = min(state.scores[side], g.target) / g.target
    one("dealer", (state.dealer - player) % n)
    if state.phase != OVER:
        one("to_act", (state.current_player() - player) % n)
    one("phase", state.phase)
    rv = state.review
    if rv is not None:
        for c in rv["cards"]:
            one("counted", c)
        one("counter", (rv["counter"] - player) % n)
        if rv["is_crib"]:
            one("is_crib", 0)
            for c in rv["cards"]:
                one("crib", c)
        if rv["announced"] is not None:
            obs[off["announced"]] = rv["announced"] / MAX_COUNT
        obs[off["accepted"]] = rv["asked"] / n
    for shown, prefix, crib in ((state.shown, "shown", "crib"), (state.previous_shown, "previous_shown", "previous_crib")):
        for done in shown:
            slot = n if done["is_crib"] else (done["counter"] - player) % n
            obs[off[f"{prefix}_totals"] + slot] = done["true"] / MAX_COUNT
            obs[off[f"{prefix}_announced"] + slot] = done["announced"] / MAX_COUNT
            parts = list(done["breakdown"].values())
            for k, (v, m) in enumerate(zip(parts, (16, 12, 12, 5, 1))):
                obs[off[f"{prefix}_breakdown"] + slot * 5 + k] = v / m
            if done["is_crib"]:
                for c in done["cards"]:
                    one(crib, c)
    return obs


@pytest.mark.parametrize("options", [{"num_players": 2, "muggins": False}, {"num_players": 2},
                                     {"num_players": 3}, {"num_players": 4}, {"num_players": 2, "target": 61}])
def test_cribbage_observation_equals_reference(options):
    game = CribbageGame(**options)
    rng = random.Random(7)
    nrng = np.random.default_rng(7)
    checked = 0
    for seed in range(8):
        state = game.new_initial_state(seed=seed)
        while True:
            players = range(game.num_players)
            for p in players:
                np.testing.assert_array_equal(state.observation(p), reference_cribbage_observation(state, p))
                checked += 1
            if rng.random() < 0.05:  # clones and re-deals share the cached templates
                twin = state.clone() if rng.random() < 0.5 else state.resample_hidden(0, nrng)
                for p in players:
                    np.testing.assert_array_equal(twin.observation(p), reference_cribbage_observation(twin, p))
            if state.is_terminal():
                break
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
    assert checked > 300


@pytest.mark.parametrize("options", [{"num_players": 2, "muggins": False}, {"num_players": 2},
                                     {"num_players": 3}, {"num_players": 4}])
def test_cribbage_observation_equals_reference_when_observed_now_and_then(options):
    game = CribbageGame(**options)
    rng = random.Random(3)
    checked = 0
    for seed in range(10):
        state = game.new_initial_state(seed=seed)
        watched = rng.randrange(game.num_players)  # observed at every step: its view is kept updated
        while True:
            for p in range(game.num_players):
                if p == watched or rng.random() < 0.1:
                    np.testing.assert_array_equal(state.observation(p), reference_cribbage_observation(state, p))
                    checked += 1
            if rng.random() < 0.02:
                state = state.clone()  # the game goes on in the clone, which rebuilds its views
            if state.is_terminal():
                break
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
    assert checked > 300


@pytest.mark.parametrize("num_players", [3, 4, 8])
def test_michigan_incremental_observation_equals_a_fresh_build(num_players):
    """Michigan keeps each observed player's card blocks up to date move by move; a clone has
    none and builds the observation from scratch: both must agree, however rarely a player
    is observed."""
    from muggins_env.games.michigan import MichiganGame

    game = MichiganGame(num_players=num_players)
    rng = random.Random(5)
    checked = 0
    for seed in range(12):
        state = game.new_initial_state(seed=seed)
        watched = rng.randrange(num_players)
        while not state.is_terminal():
            for p in range(num_players):
                if p == watched or rng.random() < 0.1:
                    np.testing.assert_array_equal(state.observation(p), state.clone().observation(p))
                    checked += 1
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
        np.testing.assert_array_equal(state.observation(watched), state.clone().observation(watched))
    assert checked > 300


@pytest.mark.parametrize("num_players,mistakes", [(3, False), (4, False), (7, False), (3, True), (4, True),
                                                   (7, True)])
def test_muggins_cards_kept_counts_and_cached_legal_actions_equal_a_recount(num_players, mistakes):
    """Card Muggins keeps the table's cards by rank up to date move by move (placements,
    Muggins corrections, recycled discards) and builds each position's legal actions once:
    both must equal a recount from the piles and the rules, at every decision of random games
    (with mistakes, random placements are mostly wrong, so corrections happen often)."""
    from muggins_env.games.muggins_cards import RANK0, MugginsCardsGame

    game = MugginsCardsGame(num_players=num_players, mistakes=mistakes, max_turns=400)
    layout = list(game.observation_layout)
    at = sum(game.observation_layout[k] for k in layout[:layout.index("seen")])
    rng = random.Random(num_players)
    checked = recycled = 0
    for seed in range(10):
        state = game.new_initial_state(seed=seed)
        while not state.is_terminal():
            recount = [0] * 13
            for pile in state.commons + state.discards:
                for c in pile:
                    recount[RANK0[c]] += 1
            assert state.table_ranks == recount
            table_block = state.observation(0)[at:at + 13]
            np.testing.assert_allclose(table_block, np.array(recount, np.float32) * 0.25)
            legal = state.legal_actions()
            assert legal == state._legal_actions()  # the cache against a fresh build
            np.testing.assert_array_equal(np.flatnonzero(state.legal_actions_mask()), sorted(legal))
            copy = state.clone()
            assert copy.table_ranks == recount and copy.legal_actions() == legal
            stocks_before = sum(len(s) for s in state.stocks)
            state.apply(legal[rng.randrange(len(legal))])
            recycled += sum(len(s) for s in state.stocks) > stocks_before
            checked += 1
    assert checked > 300 and recycled > 0


def test_cribbage_observation_is_a_fresh_writable_array():
    state = CribbageGame().new_initial_state(seed=3)
    first = state.observation(0)
    first[:] = 7  # a caller writing into its observation must not change later ones
    np.testing.assert_array_equal(state.observation(0), reference_cribbage_observation(state, 0))


@pytest.mark.parametrize("name,options", [
    ("cribbage_v0", {"num_players": 2, "reward": "points"}),
    ("cribbage_v0", {"num_players": 3, "reward": "points", "target": 61}),
    ("muggins_dominoes_v0", {"num_players": 4, "partnerships": True}),
    ("muggins_cards_v0", {"num_players": 4}),
    ("michigan_v0", {"num_players": 4}),
])
def test_adapter_reports_the_kernel_state(name, options):
    env = muggins_env.make(name, raw=True, **options)
    rng = random.Random(11)
    for seed in range(3):
        env.reset(seed=seed)
        state = env.kernel_state
        cumulative = dict.fromkeys(env.possible_agents, 0.0)
        steps = 0
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            assert reward == pytest.approx(cumulative[agent])
            if term or trunc:
                assert state.is_terminal()
                env.step(None)
                continue
            p = state.current_player()
            assert agent == f"player_{p}"
            np.testing.assert_array_equal(obs["action_mask"], state.legal_actions_mask())
            np.testing.assert_array_equal(info["action_mask"], state.legal_actions_mask())
            np.testing.assert_array_equal(obs["observation"], state.observation(p))
            for other in env.possible_agents:  # idle agents: an all-zero mask
                if other != agent:
                    assert not env.infos[other]["action_mask"].any()
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.randrange(len(legal))]))
            steps += 1
            paid = state.rewards()
            assert env.rewards == {f"player_{i}": float(paid[i]) for i in range(len(paid))}
            cumulative[agent] = 0.0
            for i, r in enumerate(paid):
                cumulative[f"player_{i}"] += float(r)
        assert steps > 0
