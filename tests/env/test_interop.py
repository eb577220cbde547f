"""The envs with their defaults under the RL libraries a researcher brings (issue 45): TorchRL,
Tianshou, SuperSuit, Gymnasium's vector envs and PettingZoo's own tests. The libraries come with
the ``[interop]`` extra (CI installs it: ``.ci/run interop_extra``); without it these tests skip,
naming the extra. No illegal action is ever played by a masked sampler: the games are zero-sum,
so an episode whose returns do not sum to 0 (the wrapped env's -1 for an illegal action alone)
or are not the game's ±1 would show one."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test
from pettingzoo.test.state_test import state_test
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

import muggins_env
from muggins_env.wrappers import SeatEnv

EXTRA = "the [interop] extra is not installed (pip install -e '.[interop]' torch==2.13.0)"

#: the configurations the issue tried: 2-player cribbage, 3- and 4-player Michigan (defaults otherwise)
CONFIGS = [("cribbage_v0", {}), ("michigan_v0", {"num_players": 3}), ("michigan_v0", {})]
IDS = ["cribbage_v0", "michigan_v0-3p", "michigan_v0-4p"]


def _zero_sum_end(returns: list[float], name: str) -> None:
    assert abs(sum(returns)) < 1e-6, returns  # an illegal action pays -1 to its player alone
    if name == "cribbage_v0":
        assert sorted(returns) == [-1.0, 1.0], returns


# -- TorchRL ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(("name", "opts"), CONFIGS, ids=IDS)
def test_torchrl_wrapper_passes_check_env_specs_and_a_masked_rollout_plays_legally(name, opts):
    pytest.importorskip("torchrl", reason=EXTRA)
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper
    from torchrl.envs.utils import check_env_specs

    env = PettingZooWrapper(muggins_env.make(name, **opts), use_mask=True, seed=0)
    check_env_specs(env)
    agents = muggins_env.make(name, **opts).possible_agents
    steps = 1500 if name == "cribbage_v0" else 600
    td = env.rollout(steps, break_when_any_done=False)  # random actions drawn from the masked spec
    done = td["next", "done"].reshape(-1).numpy()
    rewards = np.stack([td["next", a, "reward"].reshape(-1).numpy() for a in agents], axis=1)
    assert done.sum() >= 2, "several episodes"
    ends = np.flatnonzero(done)
    start = 0
    for end in ends:
        _zero_sum_end(rewards[start:end + 1].sum(axis=0).tolist(), name)
        start = end + 1
    if name == "cribbage_v0":  # win/loss: paid only at the end
        assert not rewards[~done].any()


def test_torchrl_return_state_gives_the_state_array():
    pytest.importorskip("torchrl", reason=EXTRA)
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper
    from torchrl.envs.utils import check_env_specs

    aec = muggins_env.make("cribbage_v0")
    env = PettingZooWrapper(aec, use_mask=True, return_state=True, seed=0)
    check_env_specs(env)
    td = env.rollout(30, break_when_any_done=False)
    assert td["next", "state"].shape == (30, *aec.state_space.shape)
    assert td["state"].dtype.is_floating_point and float(td["state"].max()) <= 1.0


# -- Tianshou --------------------------------------------------------------------------------------
def _tianshou():
    pytest.importorskip("tianshou", reason=EXTRA)
    from tianshou.algorithm import MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm
    from tianshou.data import Collector, CollectStats
    from tianshou.env import DummyVectorEnv, PettingZooEnv

    return (MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm, Collector, CollectStats,
            DummyVectorEnv, PettingZooEnv)


@pytest.mark.parametrize(("name", "opts"), CONFIGS[:2], ids=IDS[:2])
def test_tianshou_masked_random_policies_collect_whole_episodes_over_a_vector_env(name, opts):
    Random, MultiAgent, Collector, CollectStats, DummyVectorEnv, PettingZooEnv = _tianshou()

    def make():
        return PettingZooEnv(muggins_env.make(name, **opts))

    env = make()
    envs = DummyVectorEnv([make, make])
    envs.seed(0)
    policy = MultiAgent(algorithms=[Random(action_space=env.action_space) for _ in env.agents], env=env)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tianshou's stats note on 2-d returns
        stats = Collector[CollectStats](policy, envs).collect(n_episode=4, reset_before_collect=True)
    assert stats.n_collected_episodes >= 4
    for returns in np.asarray(stats.returns):
        _zero_sum_end(returns.tolist(), name)


def test_tianshou_masked_dqn_trains_a_few_thousand_steps_on_the_raw_env():
    Random, MultiAgent, Collector, CollectStats, DummyVectorEnv, PettingZooEnv = _tianshou()
    import torch
    from tianshou.algorithm import DQN
    from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
    from tianshou.algorithm.optim import AdamOptimizerFactory
    from tianshou.data import VectorReplayBuffer
    from tianshou.trainer import OffPolicyTrainerParams
    from tianshou.utils.net.common import Net

    def make():  # the raw env raises on an illegal action: exploration must respect the mask
        return PettingZooEnv(muggins_env.make("cribbage_v0", raw=True))

    torch.manual_seed(0)
    env = make()
    envs = DummyVectorEnv([make, make])
    envs.seed(0)
    net = Net(state_shape=env.observation_space["observation"].shape, action_shape=env.action_space.n,
              hidden_sizes=[64])
    learner = DQN(policy=DiscreteQLearningPolicy(model=net, action_space=env.action_space, eps_training=0.3),
                  optim=AdamOptimizerFactory(lr=1e-3), gamma=0.99, target_update_freq=100)
    policy = MultiAgent(algorithms=[learner, Random(action_space=env.action_space)], env=env)
    collector = Collector[CollectStats](policy, envs, VectorReplayBuffer(5000, len(envs)), exploration_noise=True)
    collector.reset()
    collector.collect(n_step=128)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = policy.run_training(OffPolicyTrainerParams(
            training_collector=collector, max_epochs=1, epoch_num_steps=2000, collection_step_num_env_steps=40,
            update_step_num_gradient_steps_per_sample=0.02, batch_size=32, test_in_training=False,
            multi_agent_return_reduction=lambda r: r[:, 0], verbose=False))
    assert result.train_step >= 2000 and result.update_step > 0 and result.train_episode >= 10


# -- SuperSuit -------------------------------------------------------------------------------------
def test_supersuit_turn_based_parallel_and_a_gymnasium_vector_env_survive_illegal_endings():
    ss = pytest.importorskip("supersuit", reason=EXTRA)
    from pettingzoo.test import parallel_api_test

    parallel_api_test(turn_based_aec_to_parallel(muggins_env.make("cribbage_v0")), num_cycles=200)
    venv = ss.pettingzoo_env_to_vec_env_v1(turn_based_aec_to_parallel(muggins_env.make("cribbage_v0")))
    venv = ss.concat_vec_envs_v1(venv, 2, num_cpus=0, base_class="gymnasium")  # 2 games x 2 seats
    obs, infos = venv.reset(seed=0)
    rng = np.random.default_rng(0)
    illegal_ends = legal_ends = 0
    fresh = [True, True]  # per game: the step right after a reset
    for _ in range(1200):
        masks = obs["action_mask"]
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        for game in range(2):  # right after a reset, half the time: a random action, mostly illegal
            if fresh[game] and rng.random() < 0.5:
                actions[2 * game:2 * game + 2] = rng.integers(venv.action_space.n, size=2)
        obs, rewards, term, trunc, infos = venv.step(actions)
        for info in infos:  # plain dicts, whatever the steps since
            assert type(info) is dict and "action_mask" in info and pickle.loads(pickle.dumps(info)).keys() == info.keys()
        for game in range(2):  # the game's two seats are rows 2 * game and 2 * game + 1
            seats = slice(2 * game, 2 * game + 2)
            fresh[game] = bool((term | trunc)[seats].all())
            if fresh[game]:
                paid = sorted(rewards[seats].tolist())
                assert paid in ([-1.0, 0.0], [-1.0, 1.0]), paid  # an illegal action's -1, or win/loss
                illegal_ends += paid == [-1.0, 0.0]
                legal_ends += paid == [-1.0, 1.0]
    assert illegal_ends >= 5 and legal_ends >= 2


# -- Gymnasium's vector envs of SeatEnv ---------------------------------------------------------------
@pytest.mark.parametrize("vector", ["sync", "async"])
@pytest.mark.parametrize("mode", ["next_step", "same_step"])
def test_gymnasium_vector_envs_of_seat_env_never_hand_a_masked_sampler_an_empty_row(vector, mode):
    from gymnasium.vector import AsyncVectorEnv, AutoresetMode, SyncVectorEnv

    cls = SyncVectorEnv if vector == "sync" else AsyncVectorEnv
    envs = cls([lambda: SeatEnv("cribbage_v0") for _ in range(3)], autoreset_mode=AutoresetMode[mode.upper()])
    try:
        envs.reset(seed=0)
        rng = np.random.default_rng(0)
        ends = 0
        for _ in range(300 if vector == "sync" else 150):
            masks = np.stack(envs.call("action_masks"))
            assert masks.any(axis=1).all(), "an empty mask row"
            _, rewards, term, trunc, _ = envs.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
            ends += int((term | trunc).sum())
            assert set(np.unique(rewards[term])) <= {-1.0, 1.0}  # win/loss, never an illegal -1 mid-game
        assert ends >= 3
    finally:
        envs.close()


# -- PettingZoo's own tests ------------------------------------------------------------------------
@pytest.mark.parametrize(("name", "opts"), CONFIGS[:2], ids=IDS[:2])
def test_pettingzoo_api_seed_render_and_state_tests_pass_on_the_defaults(name, opts):
    api_test(muggins_env.make(name, **opts), num_cycles=300)
    seed_test(lambda **kw: muggins_env.make(name, **opts, **kw), num_cycles=300)
    render_test(lambda render_mode=None: muggins_env.make(name, render_mode=render_mode, **opts))
    state_test(muggins_env.make(name, **opts), turn_based_aec_to_parallel(muggins_env.make(name, **opts)),
               num_cycles=300)
