"""The AEC loop's fast paths (issue 32) keep every observation and mask what the kernel state says.

Each game keeps observation pieces between steps (cribbage and Michigan: per-player views kept
through the show and the hand; Card Muggins: the table's pieces by absolute seat, in its observer;
dominoes: the layout's pieces), and the masks come from a cache of legal sets (``kernel.game.legal_mask``).
These tests drive ``raw_env`` through random games, observing every player or only some of
them now and then, and check at every step, after every reset and after the end:

- each observation against one built with nothing kept: cribbage's against the piece-by-piece
  reference of ``test_fast_paths``; the others against a clone of the state with its kept
  pieces dropped (the clone builds every piece from the state's lists);
- the mask against ``legal_actions()`` (1 exactly there) and the idle agents' all-zero masks;
- that what the env hands out is fresh: writing into an observation or a mask changes nothing
  that a later observation or mask shows.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

import muggins_env
from muggins_env.kernel.game import legal_mask
from tests.equivalence.test_fast_paths import reference_cribbage_observation

CONFIGS = [
    ("cribbage_v0", {"num_players": 2}),
    ("cribbage_v0", {"num_players": 2, "muggins": False}),
    ("cribbage_v0", {"num_players": 3}),
    ("cribbage_v0", {"num_players": 4, "target": 61}),
    ("muggins_cards_v0", {"num_players": 3}),
    ("muggins_cards_v0", {"num_players": 4, "mistakes": True}),
    ("muggins_cards_v0", {"num_players": 7}),
    ("michigan_v0", {"num_players": 3}),
    ("michigan_v0", {"num_players": 8, "num_hands": 3}),
    ("muggins_dominoes_v0", {"num_players": 2}),
    ("muggins_dominoes_v0", {"num_players": 2, "variant": "fives_1863"}),
    ("muggins_dominoes_v0", {"num_players": 3, "knocking": True, "extra_play": True}),
]


def fresh_observation(state, player: int) -> np.ndarray:
    """``player``'s observation built with nothing kept from earlier steps."""
    if state.game.FACTS.name == "cribbage_v0":
        return reference_cribbage_observation(state, player)
    copy = state.clone()
    copy.seen = None  # whatever the game keeps between steps lives in its observer
    return copy.observation(player)


def check_position(env, rng: random.Random, watch_all: bool) -> None:
    state = env.kernel_state
    agents = env.agents if watch_all else [a for a in env.agents if rng.random() < 0.3]
    for agent in agents:
        p = env.possible_agents.index(agent)
        obs = env.observe(agent)
        np.testing.assert_array_equal(obs["observation"], fresh_observation(state, p))
        assert obs["observation"].dtype == np.float32 and obs["observation"].flags.writeable
        acting = not state.is_terminal() and state.current_player() == p
        expected = np.zeros(env.game.num_actions, dtype=np.int8)
        if acting:
            expected[state.legal_actions()] = 1
        np.testing.assert_array_equal(obs["action_mask"], expected)
        np.testing.assert_array_equal(env.infos[agent]["action_mask"], expected)
        # scribbling on what was handed out must not reach what comes next
        obs["observation"][:] = 7.0
        obs["action_mask"][:] = 1
        again = env.observe(agent)
        np.testing.assert_array_equal(again["observation"], fresh_observation(state, p))
        np.testing.assert_array_equal(again["action_mask"], expected)


@pytest.mark.parametrize("name,options", CONFIGS)
def test_kept_observations_and_masks_match_the_state(name, options):
    env = muggins_env.make(name, raw=True, **options)
    rng = random.Random(7)
    steps = 0
    for game in range(4):
        watch_all = game % 2 == 0  # every player at every step, or some of them now and then
        env.reset(seed=100 + game)
        check_position(env, rng, watch_all)
        for agent in env.agent_iter():
            _, _, term, trunc, info = env.last(observe=False)
            if term or trunc:
                check_position(env, rng, True)
                env.step(None)
                continue
            mask = info["action_mask"].copy()
            if info["action_mask"].flags.writeable:  # (cribbage's show masks are shared, read-only)
                info["action_mask"][:] = 0  # the state's own legal sets must not see this
            legal = np.flatnonzero(mask)
            assert legal.tolist() == env.kernel_state.legal_actions()
            env.step(int(legal[rng.randrange(len(legal))]))
            steps += 1
            check_position(env, rng, watch_all)
        if game == 1:  # a reset mid-game: nothing kept from the abandoned game shows
            env.reset(seed=5)
            for _ in range(7):
                legal = env.kernel_state.legal_actions()
                env.step(legal[rng.randrange(len(legal))])
            check_position(env, rng, True)
    assert steps > 100


def test_legal_mask_copies_a_cached_mask():
    a = legal_mask(10, [3, 1])
    assert a.dtype == np.int8 and a.flags.writeable and a.tolist() == [0, 1, 0, 1, 0, 0, 0, 0, 0, 0]
    a[:] = 5  # the caller's copy: the cache stays as it was
    b = legal_mask(10, (3, 1))
    assert b is not a and b.tolist() == [0, 1, 0, 1, 0, 0, 0, 0, 0, 0]
    assert legal_mask(10, []).tolist() == [0] * 10
    assert legal_mask(12, [3, 1]).shape == (12,)  # cached per action count


def test_agent_iter_is_pettingzoos():
    """The generator-based agent_iter yields what PettingZoo's AECIterable yields."""
    from pettingzoo.utils.env import AECIterable

    env = muggins_env.make("cribbage_v0", raw=True)
    env.reset(seed=3)
    assert list(env.agent_iter(5)) == list(AECIterable(env, 5)) == [env.agent_selection] * 5
    it = env.agent_iter()
    rng = random.Random(0)
    ours = []
    for agent in it:
        ours.append(agent)
        _, _, term, trunc, info = env.last(observe=False)
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(info["action_mask"]))))
    assert not env.agents and list(it) == [] and len(ours) > 10
