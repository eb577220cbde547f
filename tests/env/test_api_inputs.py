"""The API holds for every caller (issue 16): agent names compared by value, options of the
wrong kind refused at validation, reset options and dead steps with clear errors, and a
reset that raises leaving the env as it was. Every env of the suite, raw and wrapped."""

import json
import pickle
import re

import numpy as np
import pytest
from pettingzoo.utils.env_logger import EnvLogger

import muggins_env
from muggins_env import ENV_NAMES, game_class
from muggins_env.env import ActionOutOfBoundsError
from muggins_env.kernel.game import IllegalActionError

BAD_DEALS = {  # a deal each game refuses (a required key missing)
    "muggins_cards_v0": {"dealer": 0},
    "cribbage_v0": {"dealer": 0},
    "muggins_dominoes_v0": {"boneyard": []},
    "michigan_v0": {"dealer": 0},
}


def first_legal(env, agent) -> int:
    return int(np.flatnonzero(env.observe(agent)["action_mask"])[0])


def play_out(env) -> None:
    for agent in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else first_legal(env, agent))


# -- point 2: agent names by value -------------------------------------------------------------
@pytest.mark.parametrize("raw", [True, False])
@pytest.mark.parametrize("name", ENV_NAMES)
def test_observe_gives_the_mask_to_an_equal_name_built_at_run_time(name, raw):
    env = muggins_env.make(name, raw=raw)
    env.reset(seed=11)
    for _ in range(12):
        agent = env.agent_selection
        built = f"player_{int(agent.rsplit('_', 1)[1])}"  # an equal string, another object
        from_json = json.loads(json.dumps(agent))
        assert built == agent and built is not agent
        mask = env.observe(agent)["action_mask"]
        assert mask.any()  # the player to act has legal moves
        for other in (built, from_json):
            assert np.array_equal(env.observe(other)["action_mask"], mask)
        env.step(first_legal(env, built))


@pytest.mark.parametrize("name", ENV_NAMES)
def test_an_env_pickled_mid_game_serves_names_from_the_caller(name):
    env = muggins_env.make(name, raw=True)
    env.reset(seed=5)
    for _ in range(3):
        env.step(first_legal(env, env.agent_selection))
    clone = pickle.loads(pickle.dumps(env))  # as SubprocVecEnv and RLlib ship envs
    names = dict(zip(env.possible_agents, env.possible_agents))  # the caller's own string objects
    for _ in range(10):
        caller_name = names[clone.agent_selection]
        assert caller_name is not clone.agent_selection
        mask = clone.observe(caller_name)["action_mask"]
        assert mask.any()
        assert np.array_equal(mask, env.observe(caller_name)["action_mask"])
        action = int(np.flatnonzero(mask)[0])
        env.step(action)
        clone.step(action)
    assert clone.full_state() == env.full_state() and np.array_equal(clone.state(), env.state())


# -- point 3: options of the wrong kind --------------------------------------------------------
def int_options():
    for name in ENV_NAMES:
        defaults = game_class(name)().options
        for opt, value in defaults.items():
            if isinstance(value, int) and not isinstance(value, bool):
                yield name, opt, value


def bool_options():
    for name in ENV_NAMES:
        for opt, value in game_class(name)().options.items():
            if isinstance(value, bool):
                yield name, opt, value


@pytest.mark.parametrize("name, opt, default", list(int_options()))
def test_int_options_refuse_floats_and_bools_and_take_numpy_ints(name, opt, default):
    cls = game_class(name)
    for wrong in (float(default), True, np.float64(default)):
        with pytest.raises(ValueError, match=rf"option {opt}={re.escape(repr(wrong))} is not allowed.*(allowed|int)"):
            cls(**{opt: wrong})
    for numpy_int in (np.int64(default), np.int32(default)):
        resolved = cls(**{opt: numpy_int}).options[opt]
        assert resolved == default and type(resolved) is int  # the plain int, as from the default
    assert cls(**{opt: None}).options == cls().options  # None: the default (documented)


@pytest.mark.parametrize("name, opt, default", list(bool_options()))
def test_bool_options_refuse_ints_and_take_numpy_bools(name, opt, default):
    cls = game_class(name)
    with pytest.raises(ValueError, match=rf"option {opt}={int(default)} is not allowed; allowed values: (False, True|True, False)$"):
        cls(**{opt: int(default)})
    resolved = cls(**{opt: np.bool_(default)}).options[opt]
    assert resolved is default


def test_the_issue_examples_fail_at_validation_with_the_allowed_values():
    with pytest.raises(ValueError, match=r"num_players=4\.0 is not allowed; allowed values: 3, 4, 5, 6, 7"):
        muggins_env.make("muggins_cards_v0", num_players=4.0)
    with pytest.raises(ValueError, match=r"set_max=6\.0 is not allowed; allowed values: 2, 3, 6, 9, 12, 15"):
        muggins_env.make("muggins_dominoes_v0", set_max=6.0)
    with pytest.raises(ValueError, match=r"num_players=True is not allowed; allowed values: 2, 3, 4"):
        muggins_env.make("cribbage_v0", num_players=True)
    with pytest.raises(ValueError, match=r"hand_size=5\.0 is not allowed: expected an int from 1 to 136"):
        muggins_env.make("muggins_dominoes_v0", hand_size=5.0)
    env = muggins_env.make("michigan_v0", raw=True, num_hands=np.int64(2), num_players=np.int64(3))
    env.reset(seed=0)
    play_out(env)  # a numpy int plays a whole game
    assert env.kernel_state.is_terminal()


# -- point 3: reset options, dead steps, bools -------------------------------------------------
@pytest.mark.parametrize("raw", [True, False])
@pytest.mark.parametrize("options", [5, "deal", ["deal"], ("deal", 1)])
def test_reset_options_must_be_a_mapping(options, raw):
    env = muggins_env.make("cribbage_v0", raw=raw)
    with pytest.raises(ValueError, match=r"reset options must be a mapping such as \{'deal': \.\.\.\} \(or None\), "
                                         rf"got {type(options).__name__} {re.escape(repr(options))}"):
        env.reset(options=options)


def test_raw_step_with_no_agent_left_is_a_clear_error():
    env = muggins_env.make("michigan_v0", raw=True)
    with pytest.raises(RuntimeError, match=r"no agent left: call reset\(\) first"):
        env.step(0)
    env.reset(seed=2)
    play_out(env)
    assert env.agents == []
    before = env.full_state()
    with pytest.raises(RuntimeError, match=r"the episode is over and every agent was removed; call reset\(\)"):
        env.step(None)
    assert env.full_state() == before


def test_wrapped_step_with_no_agent_left_warns_and_does_nothing():
    env = muggins_env.make("michigan_v0")
    env.reset(seed=2)
    play_out(env)
    before = env.unwrapped.full_state()
    EnvLogger.flush()
    env.step(None)
    assert any("step() called after all agents are terminated" in str(m) for m in EnvLogger.mqueue)
    assert env.unwrapped.full_state() == before


@pytest.mark.parametrize("name", ENV_NAMES)
def test_a_bool_is_not_an_action(name):
    wrapped, raw = muggins_env.make(name), muggins_env.make(name, raw=True)
    for env in (wrapped, raw):
        env.reset(seed=1)
    before = wrapped.unwrapped.full_state()
    for flag in (True, False, np.True_):
        with pytest.raises(ActionOutOfBoundsError, match=rf"action {flag!r} for player_\d is a bool, not an action; "
                                                         r"allowed: an int 0\.\."):
            wrapped.step(flag)
        with pytest.raises(IllegalActionError, match=rf"action {flag!r} is not an int action index"):
            raw.step(flag)
    assert wrapped.unwrapped.full_state() == before
    assert not any(wrapped.terminations.values())


@pytest.mark.parametrize("raw", [True, False])
@pytest.mark.parametrize("name", ENV_NAMES)
def test_a_reset_that_raises_leaves_the_env_as_it_was(name, raw):
    env, twin = muggins_env.make(name, raw=raw), muggins_env.make(name, raw=raw)
    for e in (env, twin):
        e.reset(seed=1)
        e.step(first_legal(e, e.agent_selection))
    before = env.unwrapped.full_state()
    with pytest.raises(ValueError):
        env.reset(seed=5, options={"deal": BAD_DEALS[name]})
    assert env.unwrapped.full_state() == before  # the game in progress is untouched
    env.step(first_legal(env, env.agent_selection))  # and goes on
    twin.step(first_legal(twin, twin.agent_selection))
    assert env.unwrapped.full_state() == twin.unwrapped.full_state()
    env.reset()  # the seed stream is the one of seed=1, not seed 5
    twin.reset()
    assert env.unwrapped.full_state() == twin.unwrapped.full_state()


@pytest.mark.parametrize("seed", [-1, 1.5, "5", True, [1, 2]])
def test_a_bad_seed_is_a_clear_error_for_the_aec_and_the_seat_env(seed):
    from muggins_env.wrappers import SeatEnv

    for env in (muggins_env.make("cribbage_v0", raw=True), muggins_env.make("cribbage_v0"), SeatEnv("cribbage_v0")):
        with pytest.raises(ValueError, match=rf"seed={re.escape(repr(seed))} is not allowed; allowed: None or an int >= 0"):
            env.reset(seed=seed)
    env = muggins_env.make("cribbage_v0", raw=True)
    env.reset(seed=np.int64(3))
    twin = muggins_env.make("cribbage_v0", raw=True)
    twin.reset(seed=3)
    assert env.full_state() == twin.full_state()


@pytest.mark.parametrize("name", ENV_NAMES)
def test_a_zero_dim_int_array_is_an_action_as_sb3_predict_returns_it(name):
    raw, wrapped, twin = (muggins_env.make(name, raw=True), muggins_env.make(name),
                          muggins_env.make(name, raw=True))
    for env in (raw, wrapped, twin):
        env.reset(seed=4)
    for _ in range(5):
        action = first_legal(twin, twin.agent_selection)
        raw.step(np.array(action))
        wrapped.step(np.array(action, dtype=np.int32))
        twin.step(action)
    assert raw.full_state() == twin.full_state() == wrapped.unwrapped.full_state()
    with pytest.raises(IllegalActionError, match="not an int action index"):
        raw.step(np.array(True))


def test_a_huge_action_is_the_action_space_error_whatever_gymnasium_does(monkeypatch):
    import numpy as np
    from gymnasium.spaces import Discrete

    import muggins_env
    from muggins_env.env import ActionOutOfBoundsError

    def contains_of_gymnasium_1_0(self, x):  # Gymnasium 1.0: np.int64(10**20) raises OverflowError
        as_int64 = np.int64(x) if isinstance(x, int) else x
        return bool(self.start <= as_int64 < self.start + self.n)

    monkeypatch.setattr(Discrete, "contains", contains_of_gymnasium_1_0)
    env = muggins_env.make("cribbage_v0")
    env.reset(seed=0)
    for action in (10**20, -(10**20), 2**64):
        with pytest.raises(ActionOutOfBoundsError, match=r"not in the action space Discrete\(\d+\); allowed: an int"):
            env.step(action)
    env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))  # still playable
