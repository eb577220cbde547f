"""SeatEnv as single-agent libraries use it (issue 16): Gymnasium's and SB3's env checkers on
every env, the registered gymnasium ids, seeding through ``super().reset``, the illegal-action
convention (terminate with -1, or raise) and bad reset input."""

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gymnasium_check_env

from muggins_env import ENV_NAMES
from muggins_env.kernel.game import IllegalActionError
from muggins_env.wrappers import ILLEGAL_REWARD, SeatEnv


def checker_warnings(check, env) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check(env)
    return [str(w.message) for w in caught]


@pytest.mark.parametrize("name", ENV_NAMES)
def test_gymnasium_env_checker_passes_without_a_warning(name):
    made = gymnasium.make(f"muggins_env/{name}-seat")  # with a spec: the render modes are checked too
    assert isinstance(made.unwrapped, SeatEnv) and made.unwrapped.game.FACTS.name == name
    assert checker_warnings(gymnasium_check_env, made.unwrapped) == []
    bare = checker_warnings(gymnasium_check_env, SeatEnv(name, seat=0, skip_forced=False))
    assert len(bare) == 1 and "not having a spec" in bare[0]  # only: it cannot remake a bare env


@pytest.mark.parametrize("name", ENV_NAMES)
def test_sb3_env_checker_passes_without_a_warning(name):
    sb3_checker = pytest.importorskip("stable_baselines3.common.env_checker")  # the [train] extra
    assert checker_warnings(sb3_checker.check_env, SeatEnv(name)) == []


def test_gymnasium_make_passes_options_and_opponents():
    env = gymnasium.make("muggins_env/cribbage_v0-seat", env_options={"num_players": 3}, opponents="random", seat=1)
    obs, info = env.reset(seed=4)
    assert env.unwrapped.game.num_players == 3 and info["seat"] == 1
    assert env.observation_space.contains(obs)
    assert env.get_wrapper_attr("action_masks")().any()


def test_reset_seed_seeds_np_random_and_the_episode():
    a, b = SeatEnv("michigan_v0"), SeatEnv("michigan_v0")
    a.reset(seed=8)
    b.reset(seed=8)
    assert a.np_random.integers(1 << 30) == b.np_random.integers(1 << 30)
    assert a.state.full_state() == b.state.full_state()
    # the same stream as before np_random was used: seed 8 deals what default_rng(8) deals
    c = SeatEnv("michigan_v0")
    c._rng = np.random.default_rng(8)
    c.reset()
    a.reset(seed=8)
    assert a.state.full_state() == c.state.full_state()
    d = SeatEnv("michigan_v0", seed=9)
    assert d.np_random_seed == 9 and d.np_random is d._rng  # reading the seed keeps the generator
    assert SeatEnv("michigan_v0").np_random_seed == -1


def illegal_action(env) -> int:
    return int(np.flatnonzero(~env.action_masks())[0])


@pytest.mark.parametrize("name", ENV_NAMES)
def test_an_illegal_action_ends_the_episode_with_minus_one_and_no_move(name):
    env = SeatEnv(name, seed=3, reward_scale=0.01)
    env.reset()
    before = env.state.full_state()
    _, reward, terminated, truncated, info = env.step(illegal_action(env))
    assert (reward, terminated, truncated) == (ILLEGAL_REWARD, True, False) == (-1.0, True, False)
    assert info["illegal_action"] >= 0 and env.state.full_state() == before
    assert env.action_masks().all() and not env.legal_mask().any()  # over: any action (it only resets a vector env)
    with pytest.raises(RuntimeError, match=r"finished episode; call reset\(\)"):
        env.step(0)
    env.reset()  # and the next episode plays normally
    assert env.action_masks().any()


def test_illegal_raise_keeps_the_strict_mode_and_junk_always_raises():
    env = SeatEnv("muggins_cards_v0", seed=3, illegal="raise")
    env.reset()
    with pytest.raises(IllegalActionError, match="illegal action"):
        env.step(illegal_action(env))
    env = SeatEnv("muggins_cards_v0", seed=3)
    env.reset()
    for junk in (True, 1.5, "0", 13, -1):
        with pytest.raises(IllegalActionError):
            env.step(junk)
    assert env.action_masks().any()  # nothing ended
    with pytest.raises(ValueError, match=r"illegal='ignore' is not allowed; allowed: 'terminate', 'raise'"):
        SeatEnv("muggins_cards_v0", illegal="ignore")


def test_seat_env_reset_options_are_checked_and_a_failed_reset_changes_nothing():
    env, twin = SeatEnv("cribbage_v0", seed=2), SeatEnv("cribbage_v0", seed=2)
    with pytest.raises(ValueError, match="reset options must be a mapping"):
        env.reset(options=["deal"])
    with pytest.raises(ValueError, match="unknown reset option.*'dael'"):
        env.reset(options={"dael": {}})
    env.reset()
    twin.reset()
    before = env.state.full_state()
    with pytest.raises(ValueError):
        env.reset(seed=5, options={"deal": {"dealer": 0}})
    assert env.state.full_state() == before
    env.reset()
    twin.reset()
    assert env.state.full_state() == twin.state.full_state()


@pytest.mark.parametrize("kwargs, message", [
    ({"reward_scale": "x"}, r"reward_scale='x' is not allowed; allowed: a number"),
    ({"reward_scale": True}, r"reward_scale=True is not allowed; allowed: a number"),
    ({"skip_forced": "no"}, r"skip_forced='no' is not allowed; allowed: True, False"),
    ({"skip_decisionless": 1}, r"skip_decisionless=1 is not allowed; allowed: True, False"),
    ({"env_options": 5}, r"env_options must be a mapping of game options \(or None\), got 5"),
    ({"env_options": {"num_players": 4.0}}, r"option num_players=4\.0 is not allowed; allowed values: 3, 4"),
])
def test_seat_env_arguments_are_checked(kwargs, message):
    with pytest.raises(ValueError, match=message):
        SeatEnv("michigan_v0", **kwargs)
    assert SeatEnv("michigan_v0", reward_scale=np.float32(0.5), skip_forced=np.bool_(False)).reward_scale == 0.5
