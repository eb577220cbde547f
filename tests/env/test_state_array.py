"""``state()``: the full information state as a float32 array inside ``state_space`` (PettingZoo's
convention), laid out as ``game.state_layout``: every seat's observation, then each game's hidden
pieces. The expected values come from ``full_state()``, the readable dict, not from the builder."""

from __future__ import annotations

import random

import numpy as np
import pytest
from pettingzoo.test.state_test import state_test
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

import muggins_env
from muggins_env.kernel import parse_card, parse_cards

CONFIGS = [("cribbage_v0", {}), ("cribbage_v0", {"num_players": 3}), ("cribbage_v0", {"num_players": 4}),
           ("muggins_cards_v0", {"num_players": 4}), ("michigan_v0", {"num_players": 5}),
           ("muggins_dominoes_v0", {}), ("muggins_dominoes_v0", {"num_players": 4, "partnerships": True})]
IDS = [f"{name}-{opts}" for name, opts in CONFIGS]


def pieces(env, state):
    """``state`` cut into its named pieces by walking ``state_layout`` (sizes in order)."""
    out, at = {}, 0
    for name, size in env.game.state_layout.items():
        out[name] = state[at:at + size]
        at += size
    assert at == len(state) == env.state_space.shape[0]
    return out


def positions(env, seed, steps):
    """(env after k random steps) for k in steps, one game."""
    rng = random.Random(seed)
    env.reset(seed=seed)
    for k in range(max(steps) + 1):
        if k in steps:
            yield env
        if not env.agents:
            return
        if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            env.step(None)
            continue
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        env.step(int(legal[rng.randrange(len(legal))]))


def expected_hidden(name, full, game):
    """The hidden pieces as the env page documents them, from the readable dict."""
    def one_hot(size, items):
        v = np.zeros(size, np.float32)
        v[list(items)] = 1
        return v

    def order(size, top_first):
        v = np.zeros(size, np.float32)
        for k, item in enumerate(top_first):
            v[item] = (len(top_first) - k) / len(top_first)
        return v

    if name == "cribbage_v0":
        return {"crib": one_hot(52, full["crib"]), "starter": one_hot(52, [full["starter"]])}
    if name == "muggins_cards_v0":
        return {f"stock_{s}": order(52, stock) for s, stock in enumerate(full["stocks"])}
    if name == "michigan_v0":
        return {"widow": one_hot(52, full["widow"])}
    return {"boneyard": order(game.num_tiles, full["boneyard"])}


@pytest.mark.parametrize(("name", "opts"), CONFIGS, ids=IDS)
def test_state_is_every_observation_then_the_hidden_pieces(name, opts):
    env = muggins_env.make(name, raw=True, **opts)
    for e in positions(env, 3, {0, 1, 5, 20, 60}):
        state = e.state()
        assert state.dtype == np.float32 and e.state_space.contains(state) and state.flags.writeable
        got = pieces(e, state)
        for p, agent in enumerate(e.possible_agents):
            assert np.array_equal(got[f"observation_{p}"], e.observe(agent)["observation"])
        hidden = expected_hidden(name, e.full_state(), e.game)
        assert set(got) - {f"observation_{p}" for p in range(e.game.num_players)} == set(hidden)
        for key, want in hidden.items():
            assert np.array_equal(got[key], want), key
        state[:] = 0.5  # the caller's: the env is unchanged
        assert not np.array_equal(e.state(), state)


def test_cribbage_state_holds_the_crib_and_the_starter_before_anyone_sees_them():
    env = muggins_env.make("cribbage_v0", raw=True)
    deal = {"dealer": 0, "hands": [parse_cards("5♥ 5♣ J♦ K♠ 2♣ 3♦"), parse_cards("A♠ 4♥ 6♦ 9♣ Q♥ 7♠")],
            "starter": "5♠"}
    env.reset(options={"deal": deal})
    got = pieces(env, env.state())
    assert np.flatnonzero(got["starter"]).tolist() == [parse_card("5♠")]  # not cut yet
    assert not got["crib"].any()
    laid = []
    while len(laid) < 4:  # each lays away its two highest-numbered cards, unseen by the other
        hand = env.full_state()["hands"][int(env.agent_selection[-1])]
        laid.append(hand[-1])
        env.step(hand[-1])
    got = pieces(env, env.state())
    assert np.flatnonzero(got["crib"]).tolist() == sorted(laid)
    for p in range(2):
        assert np.array_equal(got[f"observation_{p}"], env.observe(f"player_{p}")["observation"])


@pytest.mark.parametrize(("name", "opts"), CONFIGS[::2], ids=IDS[::2])
def test_pettingzoo_state_test_passes(name, opts):
    state_test(muggins_env.make(name, **opts), turn_based_aec_to_parallel(muggins_env.make(name, **opts)),
               num_cycles=100)


def test_state_before_reset_is_a_clear_error_and_the_dict_stays_as_full_state():
    env = muggins_env.make("cribbage_v0", raw=True)
    with pytest.raises(RuntimeError, match="before reset"):
        env.state()
    with pytest.raises(RuntimeError, match="before reset"):
        env.full_state()
    wrapped = muggins_env.make("cribbage_v0")
    wrapped.reset(seed=1)
    assert wrapped.full_state() == wrapped.unwrapped.kernel_state.full_state()
    assert wrapped.state().shape == wrapped.state_space.shape
