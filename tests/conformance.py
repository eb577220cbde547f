"""Checks every env of the suite must pass, written once: PettingZoo's api_test and seed_test,
the information-leak test, and random-play properties over the kernel State API."""

from __future__ import annotations

import pickle
from collections.abc import Callable

import numpy as np
from pettingzoo.test import api_test, seed_test

from muggins_env.kernel.game import State


def check_api(make_raw: Callable, make_wrapped: Callable, num_cycles: int = 300) -> None:
    """PettingZoo api_test on the raw and wrapped env, seed_test on both, and pickling."""
    api_test(make_raw(), num_cycles=num_cycles)
    api_test(make_wrapped(), num_cycles=num_cycles)
    seed_test(make_wrapped, num_cycles=num_cycles)
    seed_test(make_raw, num_cycles=num_cycles)
    env = make_raw()
    env.reset(seed=3)
    clone = pickle.loads(pickle.dumps(env))
    a, b = env.observe(env.agent_selection), clone.observe(clone.agent_selection)
    assert env.agent_selection == clone.agent_selection
    assert np.array_equal(a["observation"], b["observation"])
    assert np.array_equal(a["action_mask"], b["action_mask"])


def random_play(state: State, rng: np.random.Generator, max_decisions: int = 100_000,
                on_decision: Callable[[State], None] | None = None) -> State:
    """Play uniformly random legal actions through the kernel API until the end."""
    for _ in range(max_decisions):
        if state.is_terminal():
            break
        if on_decision is not None:
            on_decision(state)
        mask = state.legal_actions_mask()
        legal = np.flatnonzero(mask)
        assert len(legal) > 0, f"non-terminal state without a legal action:\n{state.render()}"
        state.apply(int(rng.choice(legal)))
    return state


def check_info_leak(state: State, seed: int, max_decisions: int = 300, samples: int = 2) -> int:
    """At each decision point, re-deal what each player cannot see and require that
    player's observation to stay the same. Returns how many re-deals changed the full
    state (callers assert it is > 0, so a resampler that changes nothing cannot pass)."""
    rng = np.random.default_rng(seed)
    n = state.game.num_players
    changed = 0
    for _ in range(max_decisions):
        if state.is_terminal():
            break
        for p in range(n):
            before = state.observation(p).copy()
            for _ in range(samples):
                other = state.resample_hidden(p, rng)
                assert np.array_equal(other.observation(p), before), (
                    f"player {p}'s observation changed when only hidden cards changed:\n{state.render()}")
                assert repr(other.public_view(p)) == repr(state.public_view(p)), (
                    f"player {p}'s readable view changed when only hidden cards changed")
                assert other.render(p) == state.render(p), (  # the table a human seat is shown
                    f"player {p}'s table text changed when only hidden cards changed:\n{state.render(p)}")
                if p == state.current_player():
                    assert np.array_equal(other.legal_actions_mask(), state.legal_actions_mask())
                if repr(other.full_state()) != repr(state.full_state()):
                    changed += 1
        legal = state.legal_actions()
        state.apply(int(rng.choice(legal)))
    return changed


def plays_as_model(model, agent, env, games: int) -> int:
    """Play ``games`` seat-env games with the SB3 ``model`` and assert that the numpy ``agent``
    picks the same legal move at every decision (from the learner's plain observation and view);
    returns how many decisions were compared."""
    import numpy as np

    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(games):
        obs, _ = env.reset()
        done = False
        while not done:
            mask = env.action_masks()
            a, _ = model.predict(obs, action_masks=mask, deterministic=True)
            mine = agent.act(env.state.observation(env.learner), mask.astype(np.int8), rng,
                             {"view": env.state.public_view(env.learner)})
            assert mine == int(a) and mask[mine]
            checked += 1
            obs, _, term, trunc, _ = env.step(mine)
            done = term or trunc
    return checked
