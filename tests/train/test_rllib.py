"""The Ray RLlib backend (issue 19): the MultiAgentEnv adapter, the masked module and its numpy
export, one training iteration in local mode (with --resume and the rllib:PATH agent), and one on
a two-node Ray cluster made here. CI installs the [rllib] extra (.ci/run) and runs these; outside CI
without the extra they are skipped, in CI a missing extra fails."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import muggins_env

# Ray's nodes, driver and workers use loopback addresses only (also the test cluster's two nodes):
# set before ray is imported (ray_constants reads it then; Ray's processes inherit it)
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")

try:
    import ray
except ImportError:
    if os.environ.get("CI"):
        raise  # CI installs the [rllib] extra: its absence is a failure, not a skip
    pytest.skip("the [rllib] extra (ray[rllib]) is not installed", allow_module_level=True)

from muggins_env.agents import make_agent
from muggins_env.train import cli
from muggins_env.train.config import ConfigError, from_dict
from muggins_env.train.rllib_env import MASK, OBS, MugginsMultiAgentEnv

from muggins_env.wrappers import fixed_opponents

pytestmark = pytest.mark.rllib

LOCAL = "127.0.0.1"  # Ray's nodes, driver and workers talk over loopback only

# a tiny Michigan config: one iteration of 256 env steps
TINY = {"game": "michigan_v0", "backend": "rllib", "env_options": {"num_players": 4, "reward": "chips"},
        "reward_scale": 0.05, "opponents": {"random": 0.4, "heuristic": 0.3, "self": 0.3},
        "self_play": {"snapshot_every": 200, "window": 2},
        "ppo": {"batch_size": 128, "n_epochs": 1, "net_arch": [16]},
        "rllib": {"num_env_runners": 0, "envs_per_runner": 2, "train_batch_size": 256, "cpus_per_env_runner": 0.1},
        "budget": {"total_timesteps": 256}, "checkpoint_every": 0, "eval": {"deals": 2}}


def _replay_aec(game_id: str, seed: int, actions: list[int]) -> dict[str, float]:
    """The per-agent reward sums of the plain AEC loop (PettingZoo's agent_iter) on these actions."""
    env = muggins_env.make(game_id, raw=True)
    env.reset(seed=seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    moves = iter(actions)
    for _ in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else next(moves))
        for a, r in env.rewards.items():
            totals[a] += r
    assert next(moves, None) is None
    return totals


@pytest.mark.parametrize("game_id", muggins_env.ENV_NAMES)
def test_adapter_random_game_masks_and_reward_sums_match_the_aec_env(game_id):
    env = MugginsMultiAgentEnv({"game": game_id, "skip_forced": False})
    rng = np.random.default_rng(1)
    obs, _ = env.reset(seed=11)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    actions: list[int] = []
    while True:
        assert len(obs) == 1  # only the agent to act observes
        (agent, o), = obs.items()
        state = env.state
        assert agent == f"player_{state.current_player()}"
        assert env.observation_spaces[agent].contains(o)
        np.testing.assert_array_equal(o[MASK], state.legal_actions_mask().astype(np.float32))
        np.testing.assert_array_equal(o[OBS], state.observation(state.current_player()))
        action = int(rng.choice(np.flatnonzero(o[MASK])))
        actions.append(action)
        obs, rew, term, trunc, _ = env.step({agent: action})
        for a, r in rew.items():
            totals[a] += r
        if term["__all__"] or trunc["__all__"]:
            break
    assert obs and set(obs) <= set(env.possible_agents)  # every seat that acted gets its last observation
    assert all(not o[MASK].any() for o in obs.values())  # last observations: nothing to do
    expected = _replay_aec(game_id, int(np.random.default_rng(11).integers(2**63 - 1)), actions)
    assert totals == pytest.approx(expected)
    assert any(v != 0 for v in expected.values())


@pytest.mark.parametrize("game_id", muggins_env.ENV_NAMES)
def test_adapter_deals_what_the_aec_envs_reset_deals_for_a_seed_of_its_stream(game_id):
    """Each episode's reset seed is drawn from the env's stream (``default_rng([seed, worker,
    vector])``, reseeded by ``reset(seed=...)``), and the game is the AEC env's for that seed."""
    env = MugginsMultiAgentEnv({"game": game_id, "seed": 4, "skip_forced": False})
    aec = muggins_env.make(game_id, raw=True)
    stream = np.random.default_rng([4, 0, 0])
    for reseed in (None, 9, None):
        if reseed is not None:
            stream = np.random.default_rng(reseed)
        obs, _ = env.reset(seed=reseed)
        aec.reset(seed=int(stream.integers(2**63 - 1)))
        assert env.state.full_state() == aec.kernel_state.full_state()
        (agent, o), = obs.items()
        assert agent == aec.agent_selection
        np.testing.assert_array_equal(o[OBS], aec.observe(agent)["observation"])


def test_adapter_with_opponents_pays_the_learner_its_whole_return():
    """One RLlib seat, the others played inside the env: the learner's rewards sum to its return,
    including what it earns during the opponents' turns and what comes before its first move."""
    heur = make_agent("heuristic", "michigan_v0", {"num_players": 4, "reward": "chips"})
    env = MugginsMultiAgentEnv({"game": "michigan_v0", "env_options": {"num_players": 4, "reward": "chips"}},
                               opponents=fixed_opponents(heur))
    rng = np.random.default_rng(0)
    for episode in range(10):
        obs, _ = env.reset(seed=episode)
        learner = next(iter(obs))
        total, steps = 0.0, 0
        while True:
            assert list(obs) == [learner]
            o = obs[learner]
            obs, rew, term, _, _ = env.step({learner: int(rng.choice(np.flatnonzero(o[MASK])))})
            assert set(rew) <= {learner}
            total += sum(rew.values())
            steps += 1
            if term["__all__"]:
                break
        returns = env.state.returns()
        assert total == pytest.approx(returns[int(learner.split("_")[1])])
    assert steps > 1


def test_envs_of_different_env_runners_deal_different_games_from_rllibs_overlapping_seeds():
    """RLlib seeds env i of runner w with seed + w + i: (w=1, i=1) and (w=2, i=0) get the same seed."""
    from ray.rllib.env.env_context import EnvContext

    def first_obs(worker: int, vector: int) -> np.ndarray:
        env = MugginsMultiAgentEnv(EnvContext({"game": "cribbage_v0"}, worker_index=worker, vector_index=vector))
        return next(iter(env.reset(seed=100 + worker + vector)[0].values()))[OBS]

    assert not np.array_equal(first_obs(1, 1), first_obs(2, 0))
    np.testing.assert_array_equal(first_obs(1, 1), first_obs(1, 1))  # and each stays reproducible


def test_adapter_rejects_an_action_for_the_wrong_agent():
    env = MugginsMultiAgentEnv({"game": "cribbage_v0"})
    obs, _ = env.reset(seed=0)
    (agent,) = obs
    other = next(a for a in env.possible_agents if a != agent)
    with pytest.raises(ValueError, match=agent):
        env.step({other: 0})


@pytest.mark.parametrize("flat", [False, True], ids=["dict", "flat"])
def test_masked_module_and_its_numpy_export_agree(flat):
    import torch
    from muggins_env.train.rllib_env import flat_space
    from muggins_env.train.rllib_module import MaskedPPOTorchRLModule, numpy_policy
    from ray.rllib.core.columns import Columns

    env = MugginsMultiAgentEnv({"game": "cribbage_v0"})
    space = env.observation_spaces["player_0"]
    module = MaskedPPOTorchRLModule(observation_space=flat_space(space) if flat else space,
                                    action_space=env.action_spaces["player_0"],
                                    model_config={"fcnet_hiddens": [32, 16], "fcnet_activation": "tanh",
                                                  "head_fcnet_hiddens": [], "vf_share_layers": False})
    obs = [env.reset(seed=s)[0] for s in range(8)]
    batch = {OBS: torch.tensor(np.stack([next(iter(o.values()))[OBS] for o in obs])),
             MASK: torch.tensor(np.stack([next(iter(o.values()))[MASK] for o in obs]))}
    # the seat env's flat observation: the observation, then the mask
    given = torch.cat([batch[OBS], batch[MASK]], dim=1) if flat else dict(batch)
    out = module.forward_inference({Columns.OBS: given})[Columns.ACTION_DIST_INPUTS].detach().numpy()
    policy = numpy_policy(module, "tanh")
    mask = batch[MASK].numpy().astype(bool)
    assert (out[~mask] < -1e30).all()  # illegal actions masked out
    np.testing.assert_allclose(out[mask], policy.logits(batch[OBS].numpy())[mask], rtol=1e-4, atol=1e-5)


def test_config_validates_the_rllib_section():
    with pytest.raises(ConfigError, match="rllib.num_env_runners"):
        from_dict({**TINY, "rllib": {"num_env_runners": -1}})
    with pytest.raises(ConfigError, match="unknown config key.*'runners'"):
        from_dict({**TINY, "rllib": {"runners": 2}})
    with pytest.raises(ConfigError, match="rllib.train_batch_size"):
        from_dict({**TINY, "ppo": {"batch_size": 512}, "rllib": {"train_batch_size": 256}})
    with pytest.raises(ConfigError, match="backend='nope'"):
        from_dict({**TINY, "backend": "nope"})
    with pytest.raises(ConfigError, match="pretrain.teacher"):
        from_dict({**TINY, "pretrain": {"teacher": "heuristic", "decisions": 10}})
    assert from_dict(TINY)["rllib"]["envs_per_runner"] == 2
    with pytest.raises(ConfigError, match=r"rllib.pipeline=true needs rllib.num_env_runners >= 1.*= 0"):
        from_dict({**TINY, "rllib": {**TINY["rllib"], "pipeline": True}})
    with pytest.raises(ConfigError, match="rllib.pipeline"):
        from_dict({**TINY, "rllib": {**TINY["rllib"], "num_env_runners": 1, "pipeline": "yes"}})
    assert from_dict(TINY)["rllib"]["pipeline"] is False


def test_env_runners_are_pipelined_unless_the_config_says_false():
    rl = TINY["rllib"]
    # a user's config as written (no pipeline key) with env runners: pipelined
    assert from_dict({**TINY, "rllib": {**rl, "num_env_runners": 1}})["rllib"]["pipeline"] is True
    assert from_dict({**TINY, "rllib": {**rl, "num_env_runners": 2, "pipeline": "auto"}})["rllib"]["pipeline"] is True
    # sampling in the driver stays synchronous; an explicit false is kept
    assert from_dict({**TINY, "rllib": {**rl, "num_env_runners": 0}})["rllib"]["pipeline"] is False
    assert from_dict({**TINY, "rllib": {**rl, "num_env_runners": 1, "pipeline": False}})["rllib"]["pipeline"] is False
    with pytest.raises(ConfigError, match=r"rllib.pipeline='on' is not allowed; expected one of True, False, 'auto'"):
        from_dict({**TINY, "rllib": {**rl, "num_env_runners": 1, "pipeline": "on"}})


def test_multi_agent_episodes_stay_lists_unless_the_config_asks_for_numpy():
    from muggins_env.train.rllib_backend import algo_config

    def to_numpy(**rllib) -> bool:
        return algo_config(from_dict({**TINY, "rllib": {**TINY["rllib"], **rllib}}), seed=0).episodes_to_numpy

    # ray 2.60's multi-agent runner converts every finished episode of a sample() call again on every env step
    assert to_numpy(env_runner="multi_agent") is False and to_numpy() is False
    assert to_numpy(env_runner="multi_agent", episodes_to_numpy=True) is True
    assert to_numpy(episodes_to_numpy=True) is True
    with pytest.raises(ConfigError, match="rllib.episodes_to_numpy.*true or false"):
        from_dict({**TINY, "rllib": {"episodes_to_numpy": "yes please"}})


def test_cli_picks_the_rllib_variant_of_a_preset_where_there_is_one(monkeypatch, tmp_path):
    seen = {}
    monkeypatch.setattr(cli, "_train_rllib", lambda cfg, out, args: seen.update(cfg=cfg, out=out) or 0)
    assert cli.main(["--backend", "rllib", "--game", "michigan_v0", "--preset", "quick"]) == 0
    rl = seen["cfg"]["rllib"]
    assert (rl["num_env_runners"], rl["envs_per_runner"], rl["pipeline"]) == (2, 16, True)
    assert seen["out"] == "runs/rllib_quick-michigan_v0"
    # sampling in the driver: the preset's pipeline goes with its runners
    assert cli.main(["--backend", "rllib", "--game", "michigan_v0", "--num-env-runners", "0"]) == 0
    assert (seen["cfg"]["rllib"]["num_env_runners"], seen["cfg"]["rllib"]["pipeline"]) == (0, False)
    # no rllib_quick for cribbage: its SB3 preset, run on RLlib (the rllib section's defaults)
    assert cli.main(["--backend", "rllib", "--game", "cribbage_v0", "--preset", "quick",
                     "--num-env-runners", "3"]) == 0
    assert seen["cfg"]["backend"] == "rllib" and seen["cfg"]["rllib"]["num_env_runners"] == 3
    assert seen["cfg"]["env_options"]["num_players"] == 2
    assert seen["cfg"]["rllib"]["pipeline"] is True  # env runners: pipelined, though no config asked


def test_cluster_flags_need_the_rllib_backend(capsys):
    assert cli.main(["--game", "michigan_v0", "--preset", "quick", "--address", "auto"]) == 2
    assert "--backend rllib" in capsys.readouterr().err


def test_without_the_extra_the_cli_names_it_in_one_line(monkeypatch, capsys, tmp_path):
    for name in ("ray", "muggins_env.train.ray_start", "muggins_env.train.rllib_backend"):
        monkeypatch.setitem(sys.modules, name, None)  # import fails as without ray
    assert cli.main(["--backend", "rllib", "--game", "michigan_v0", "--out", str(tmp_path)]) == 1
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.startswith("muggins-train: error: --backend rllib needs the [rllib] extra")
    assert "pip install 'muggins-env[rllib]'" in err


def test_ray_session_imports_while_ray_starts_and_stops_only_the_ray_it_started(monkeypatch):
    from muggins_env.train import ray_start

    calls = []

    def fake_init(address, cfg):
        calls.append(("init", threading.current_thread() is threading.main_thread()))
        return cfg["start"]

    monkeypatch.setattr(ray_start, "init_ray", fake_init)
    monkeypatch.setattr(ray_start.ray, "shutdown", lambda: calls.append(("shutdown",)))
    monkeypatch.delitem(sys.modules, "colorsys", raising=False)
    with ray_start.ray_session(None, {"start": True}, ("colorsys",)) as started:
        assert started is True and "colorsys" in sys.modules  # preloaded before the block runs
    # Ray is started from the main thread (it must be) and shut down once: this call started it
    assert calls == [("init", True), ("shutdown",)]
    calls.clear()
    with ray_start.ray_session(None, {"start": False}, ()) as started:
        assert started is False
    assert calls == [("init", True)]  # a Ray that was running is left running


def test_ray_session_raises_a_failed_preload_after_stopping_its_ray(monkeypatch):
    from muggins_env.train import ray_start

    calls = []
    monkeypatch.setattr(ray_start, "init_ray", lambda address, cfg: calls.append("init") or True)
    monkeypatch.setattr(ray_start.ray, "shutdown", lambda: calls.append("shutdown"))
    entered = False
    with (pytest.raises(ModuleNotFoundError, match="no_such_module_for_muggins"),
          ray_start.ray_session(None, {}, ("colorsys", "no_such_module_for_muggins"))):
        entered = True
    assert not entered and calls == ["init", "shutdown"]


def test_base_modules_never_import_ray():
    code = ("import sys; import muggins_env.train.cli, muggins_env.train.trainer, muggins_env.agents, "
            "muggins_env.eval.cli; assert 'ray' not in sys.modules, 'ray imported'")
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.fixture
def local_ray():
    # a new Ray of its own ("local"), even while the cluster test's runs beside it
    ray.init(address="local", num_cpus=2, include_dashboard=False, _node_ip_address=LOCAL, log_to_driver=False)
    yield
    ray.shutdown()


def test_one_iteration_in_local_mode_then_resume_and_play_as_rllib_agent(local_ray, tmp_path):
    cfg_file = tmp_path / "tiny.yaml"
    import yaml

    cfg_file.write_text(yaml.safe_dump(TINY))
    out = tmp_path / "run"
    assert cli.main(["--config", str(cfg_file), "--out", str(out), "--num-env-runners", "1"]) == 0
    card = json.loads((out / "model_card.json").read_text())
    assert card["timesteps"] >= 256 and card["iterations"] == 1
    assert card["cluster"]["num_env_runners"] == 1 and card["cluster"]["env_runner_nodes"] == 1
    assert card["snapshot_reached_envs"] == 2  # the step-0 snapshot reached the pool of both games
    assert (out / "model.npz").exists() and (out / "snapshots" / "step_0.npz").exists()
    assert list((out / "tb").glob("events.out.tfevents.*"))
    ckpt = out / "checkpoints" / f"step_{card['timesteps']}"
    assert ckpt.is_dir()
    assert {r["opponent"] for r in card["evaluation"]} == {"random", "heuristic"}
    # rllib:PATH plays without Ray: the same spec in make_agent (muggins-eval uses it)
    agent = make_agent(f"rllib:{out}", "michigan_v0", {"num_players": 4, "reward": "chips"})
    env = MugginsMultiAgentEnv({"game": "michigan_v0", "env_options": {"num_players": 4, "reward": "chips"}})
    o = next(iter(env.reset(seed=3)[0].values()))
    assert o[MASK][agent.act(o[OBS], o[MASK].astype(np.int8), np.random.default_rng(0))] == 1
    # a finished run resumes only with a larger budget (issue 30): nothing to train is refused, the model kept
    saved = np.load(out / "checkpoints" / f"step_{card['timesteps']}.npz")
    assert cli.main(["--resume", str(out), "--timesteps", str(card["timesteps"]), "--eval-deals", "0"]) == 2
    restored = np.load(out / "model.npz")
    assert sorted(saved.files) == sorted(restored.files)
    for k in saved.files:
        np.testing.assert_array_equal(saved[k], restored[k])
    # --resume continues from the checkpoint: the step count goes on, snapshots come back
    assert cli.main(["--resume", str(out), "--timesteps", str(card["timesteps"] + 256), "--eval-deals", "0"]) == 0
    card2 = json.loads((out / "model_card.json").read_text())
    assert card2["timesteps"] >= card["timesteps"] + 256 and card2["resumed_from"] == str(out)
    assert card2["snapshot_reached_envs"] == 2


SEATS = {"game": "cribbage_v0", "env_options": {"num_players": 2}, "seed": 5,
         "pool": {"weights": {"random": 1.0, "heuristic": 0.0, "self": 0.0}}}


def test_the_seat_vector_env_steps_seat_envs_and_resets_a_finished_game_on_the_next_step():
    import copy

    from muggins_env.train.rllib_env import MugginsSeatVectorEnv

    v = MugginsSeatVectorEnv(SEATS, 3)
    twins = copy.deepcopy(v.envs)  # the same SeatEnvs (seeds, pool), stepped by hand beside it
    n = v.single_action_space.n
    obs, _ = v.reset()
    expected = [t.reset()[0] for t in twins]
    rng = np.random.default_rng(0)
    finished = [False] * 3
    games = resets = 0
    for _ in range(400):
        for i, t in enumerate(twins):  # each row: the seat's observation, then its mask
            np.testing.assert_array_equal(obs[i, :-n], expected[i])
            np.testing.assert_array_equal(obs[i, -n:], t.legal_mask().astype(np.float32))  # zeros once over
        assert v.observation_space.contains(obs)
        actions = np.array([rng.choice(np.flatnonzero(obs[i, -n:])) if obs[i, -n:].any() else 0 for i in range(3)])
        obs, rewards, term, trunc, _ = v.step(actions)
        for i, t in enumerate(twins):
            if finished[i]:  # the step after a game's last: its action ignored, the next game, nothing paid
                expected[i], _ = t.reset()
                assert rewards[i] == 0 and not term[i] and not trunc[i]
                finished[i] = False
                resets += 1
                continue
            expected[i], r, te, tr, _ = t.step(int(actions[i]))
            assert rewards[i] == r and term[i] == te and trunc[i] == tr
            finished[i] = te or tr
            games += finished[i]
    assert games >= 3 and resets >= 3
    assert sum(len(r) for r in v.results.values()) == games and set(v.results) == {"random"}
    assert set(np.concatenate(list(v.results.values()))) <= {-1.0, 1.0}  # the learner's result per game


def test_the_seat_vector_envs_of_different_runners_deal_different_games():
    from muggins_env.train.rllib_env import MugginsSeatVectorEnv
    from ray.rllib.env.env_context import EnvContext

    def first(worker):
        return MugginsSeatVectorEnv(EnvContext(SEATS, worker_index=worker), 2).reset()[0]

    np.testing.assert_array_equal(first(1), first(1))
    assert not np.array_equal(first(1), first(2))
    a = first(1)
    assert not np.array_equal(a[0], a[1])  # the games of one runner differ too
    with pytest.raises(ValueError, match="needs an opponent pool"):
        MugginsSeatVectorEnv({"game": "cribbage_v0"})
    with pytest.raises(ValueError, match="num_envs=0"):
        MugginsSeatVectorEnv(SEATS, 0)


def _seat_runner(**rllib):
    from muggins_env.train.rllib_backend import algo_config
    from muggins_env.train.rllib_env import SeatEnvRunner

    cfg = from_dict({**TINY, "rllib": {**TINY["rllib"], "envs_per_runner": 3, **rllib}})
    return SeatEnvRunner(config=algo_config(cfg, 0))


def test_the_lean_sampler_returns_rllibs_episode_chunks_with_legal_actions_and_their_log_probs():
    import torch
    from ray.rllib.core.columns import Columns
    from ray.rllib.utils.metrics import NUM_ENV_STEPS_SAMPLED, NUM_EPISODES

    runner = _seat_runner()
    n = runner.games.single_action_space.n
    first = runner.sample(num_timesteps=100, explore=True)
    assert 100 <= sum(len(e) for e in first) < 100 + 3
    done = [e for e in first if e.is_done]
    ongoing = {e.id_: e for e in first if not e.is_done}
    assert done and ongoing and len(ongoing) <= 3
    # the pool's record of the learner's result per game: the unscaled sum of an episode's rewards
    results = sorted(r for rets in runner.games.results.values() for r in rets)
    assert sorted(round(sum(e.get_rewards()) / 0.05, 6) for e in done) == sorted(round(r, 6) for r in results)
    for e in first:
        e.validate()
        obs, actions = e.get_observations(), e.get_actions()
        assert len(obs) == len(actions) + 1
        logits = torch.as_tensor(np.array(e.get_extra_model_outputs(Columns.ACTION_DIST_INPUTS)))
        logp = torch.log_softmax(logits, -1)[torch.arange(len(actions)), torch.as_tensor(actions)].numpy()
        np.testing.assert_allclose(e.get_extra_model_outputs(Columns.ACTION_LOGP), logp, rtol=1e-5, atol=1e-6)
        for o, a in zip(obs[:-1], actions):
            assert o[-n:][a] == 1  # every action legal under the mask it was chosen with
        if e.is_done:
            assert not obs[-1][-n:].any()  # the last observation of a game: no legal move
    # the next call continues each ongoing game under its id, from its last observation
    second = runner.sample(num_timesteps=60, explore=False)
    went_on = [e for e in second if e.id_ in ongoing]
    assert len(went_on) == len(ongoing)
    for e in went_on:
        before = ongoing[e.id_]
        assert e.t_started == before.t_started + len(before)
        np.testing.assert_array_equal(e.get_observations(0), before.get_observations(-1))
    for e in second:  # explore=False: the most likely legal action every time
        logits = np.array(e.get_extra_model_outputs(Columns.ACTION_DIST_INPUTS))
        assert list(e.get_actions()) == list(logits.argmax(-1))
    metrics = runner.get_metrics()
    assert metrics[NUM_ENV_STEPS_SAMPLED].peek() == sum(len(e) for e in first + second)
    assert metrics[NUM_EPISODES].peek() == len(done) + sum(e.is_done for e in second)
    assert not any(e.is_numpy for e in first + second)  # episodes_to_numpy false, and they stay here
    # episodes that go to a learner actor (or from a remote runner) travel as numpy arrays
    shipped = _seat_runner(num_learners=1).sample(num_timesteps=30, explore=True)
    assert shipped and all(e.is_numpy for e in shipped)
    assert all(isinstance(e.get_observations(), np.ndarray) for e in shipped)


def test_the_lean_ppo_loss_is_rllibs_ppo_loss():
    """MaskedPPOTorchLearner's loss, metrics and gradients against RLlib's PPOTorchLearner on one batch."""
    import torch
    from muggins_env.train.rllib_backend import algo_config
    from muggins_env.train.rllib_module import MaskedPPOTorchLearner
    from ray.rllib.algorithms.ppo.torch.ppo_torch_learner import PPOTorchLearner
    from ray.rllib.core import DEFAULT_MODULE_ID
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.learner.learner import ENTROPY_KEY, POLICY_LOSS_KEY, VF_LOSS_KEY
    from ray.rllib.evaluation.postprocessing import Postprocessing

    cfg = from_dict(TINY)
    config = algo_config(cfg, 0)
    runner = _seat_runner()
    spaces = (runner.games.single_observation_space, runner.games.single_action_space)
    learner = config.build_learner(spaces={DEFAULT_MODULE_ID: spaces, "__env__": spaces})
    learner.build()
    assert isinstance(learner, MaskedPPOTorchLearner)
    g = torch.Generator().manual_seed(0)
    b, n = 64, spaces[1].n
    mask = (torch.rand(b, n, generator=g) < 0.3).float()
    mask[torch.arange(b), torch.randint(n, (b,), generator=g)] = 1.0
    actions = torch.multinomial(mask, 1, generator=g)[:, 0]
    obs = torch.cat([torch.rand(b, spaces[0].shape[0] - n, generator=g), mask], -1)
    batch = {Columns.OBS: obs, Columns.ACTIONS: actions,
             Columns.ACTION_LOGP: -torch.rand(b, generator=g) * 3,
             Columns.ACTION_DIST_INPUTS: torch.randn(b, n, generator=g),
             Postprocessing.ADVANTAGES: torch.randn(b, generator=g),
             Postprocessing.VALUE_TARGETS: torch.randn(b, generator=g),
             Columns.LOSS_MASK: torch.rand(b, generator=g) < 0.9}
    module = learner.module[DEFAULT_MODULE_ID]
    mc = learner.config.get_config_for_module(DEFAULT_MODULE_ID)
    params = [p for p in module.parameters() if p.requires_grad]
    out = {}
    for cls in (MaskedPPOTorchLearner, PPOTorchLearner):
        fwd = module.forward_train(batch)
        loss = cls.compute_loss_for_module(learner, module_id=DEFAULT_MODULE_ID, config=mc, batch=batch, fwd_out=fwd)
        logged = {k: float(torch.as_tensor(learner.metrics.peek((DEFAULT_MODULE_ID, k))).detach())
                  for k in (POLICY_LOSS_KEY, VF_LOSS_KEY, ENTROPY_KEY)}
        out[cls] = (float(loss.detach()), logged, torch.autograd.grad(loss, params))
    ours, theirs = out[MaskedPPOTorchLearner], out[PPOTorchLearner]
    assert ours[0] == pytest.approx(theirs[0], rel=1e-5)
    assert ours[1] == pytest.approx(theirs[1], rel=1e-5)
    for a, b_ in zip(ours[2], theirs[2]):
        torch.testing.assert_close(a, b_, rtol=1e-4, atol=1e-6)


def test_one_iteration_with_the_multi_agent_env_runner(local_ray, tmp_path):
    from muggins_env.train.rllib_backend import train

    assert from_dict(TINY)["rllib"]["env_runner"] == "single_agent"  # the default; the other one here
    cfg = from_dict({**TINY, "rllib": {**TINY["rllib"], "num_env_runners": 1, "env_runner": "multi_agent"}})
    card = train(cfg, tmp_path / "run")
    assert card["timesteps"] >= 256 and card["iterations"] == 1
    assert card["snapshot_reached_envs"] == 2  # the snapshot reached the pool of both games of the runner
    assert {r["opponent"] for r in card["evaluation"]} == {"random", "heuristic"}
    agent = make_agent(f"rllib:{tmp_path / 'run'}", "michigan_v0", {"num_players": 4, "reward": "chips"})
    env = MugginsMultiAgentEnv({"game": "michigan_v0", "env_options": {"num_players": 4, "reward": "chips"}})
    o = next(iter(env.reset(seed=3)[0].values()))
    assert o[MASK][agent.act(o[OBS], o[MASK].astype(np.int8), np.random.default_rng(0))] == 1


def _weights_seq_nos_trained(algo, iterations: int) -> list[set[int]]:
    """Per ``train()`` call: the weights' sequence numbers that sampled the batch the learner took."""
    from ray.rllib.utils.metrics import WEIGHTS_SEQ_NO

    seen, update = [], algo.learner_group.update

    def spy(*, episodes, **kw):
        seen.append({int(s) for e in episodes for s in e.get_extra_model_outputs(WEIGHTS_SEQ_NO)})
        return update(episodes=episodes, **kw)

    algo.learner_group.update = spy
    for _ in range(iterations):
        algo.train()
    return seen


def test_the_pipelined_runners_sample_the_next_batch_with_one_update_of_lag(local_ray):
    from muggins_env.train.rllib_backend import algo_config
    from muggins_env.train.rllib_pipeline import PipelinedPPO

    rl = {**TINY["rllib"], "num_env_runners": 1, "train_batch_size": 128}
    plain = algo_config(from_dict({**TINY, "rllib": {**rl, "pipeline": False}}), 0).build_algo()
    try:
        # RLlib's PPO: each batch sampled by the weights of the update before it
        assert type(plain) is not PipelinedPPO and _weights_seq_nos_trained(plain, 4) == [{0}, {1}, {2}, {3}]
    finally:
        plain.stop()
    piped = algo_config(from_dict({**TINY, "rllib": rl}), 0).build_algo()  # runners: pipelined by default
    try:
        assert isinstance(piped, PipelinedPPO) and piped.pipelined
        # the second batch was already being sampled (by the first weights) while the first trained;
        # from then on each batch comes from the weights of one update before the learner's, never older
        assert _weights_seq_nos_trained(piped, 4) == [{0}, {0}, {1}, {2}]
        # pool messages ride on the next request (sent in this train(), answered with its batch):
        # every game of the runner took them once finish() has collected the request in flight
        piped.post("set_weights", {"random": 1.0, "heuristic": 0.0, "self": 0.0})
        piped.train()
        assert piped._in_flight and piped.reached() == 0
        piped.finish()
        assert not piped._in_flight and piped.reached() == 2
    finally:
        piped.stop()


def test_a_pipelined_run_reaches_every_game_with_its_snapshots_and_logs_the_opponents(local_ray, tmp_path):
    from muggins_env.train.rllib_backend import train

    cfg = from_dict({**TINY, "rllib": {**TINY["rllib"], "num_env_runners": 2, "pipeline": True},
                     "budget": {"total_timesteps": 768}, "eval": {"deals": 0}})
    card = train(cfg, tmp_path / "run", evaluate_at_end=False)
    assert card["iterations"] == 3 and card["timesteps"] >= 768
    assert card["snapshot_reached_envs"] == 4  # both games of both runners
    assert card["self_play_snapshots"][0] == 0 and len(card["self_play_snapshots"]) >= 3
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    tb = EventAccumulator(str(tmp_path / "run" / "tb"))
    tb.Reload()
    assert any(t.startswith("vs_") for t in tb.Tags()["scalars"])  # returns per opponent kind came back
    # and it resumes from its checkpoint, pipelined again (the window of snapshots re-sent with the first request)
    more = train({**cfg, "budget": {**cfg["budget"], "total_timesteps": 1280}}, tmp_path / "run",
                 resume=tmp_path / "run", evaluate_at_end=False)
    assert more["resumed_from"] and more["timesteps"] >= 1280 and more["iterations"] == 2
    assert more["snapshot_reached_envs"] == 4


def test_one_iteration_on_a_two_node_cluster_with_env_runners_on_both(tmp_path):
    """The user's path: muggins-train --backend rllib --address <head> --num-env-runners 2."""
    import yaml
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args={
        "num_cpus": 1, "resources": {"runner_slot": 1}, "node_ip_address": LOCAL, "include_dashboard": False})
    try:
        cluster.add_node(num_cpus=1, resources={"runner_slot": 1}, node_ip_address=LOCAL)
        cluster.wait_for_nodes()
        # one runner_slot per node and one per env runner: the two runners land on the two nodes
        cfg_file = tmp_path / "cluster.yaml"
        cfg_file.write_text(yaml.safe_dump({**TINY, "rllib": {**TINY["rllib"], "resources_per_env_runner":
                                                               {"runner_slot": 1}}, "eval": {"deals": 0}}))
        out = tmp_path / "run"
        assert cli.main(["--config", str(cfg_file), "--out", str(out), "--address", cluster.address,
                         "--num-env-runners", "2"]) == 0
        assert not ray.is_initialized()  # the run disconnected from the cluster it joined
        card = json.loads((out / "model_card.json").read_text())
        assert card["cluster"]["nodes"] == 2 and card["cluster"]["env_runner_nodes"] == 2
        assert card["snapshot_reached_envs"] == 4  # the snapshot reached every game on both nodes
        assert card["timesteps"] >= 256 and card["iterations"] == 1 and (out / "model.npz").exists()
    finally:
        ray.shutdown()
        cluster.shutdown()
