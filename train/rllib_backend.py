"""``muggins-train --backend rllib``: PPO self-play on Ray RLlib (new API stack), one machine or a cluster.

The same config as the SB3 trainer (``train/config.py``: game, pool, ``ppo.*``, budget,
evaluation) plus its ``rllib`` section (env runners, envs per runner, learners, batch size).
Our AEC env runs as a ``MultiAgentEnv`` (``train/rllib_env.py``) whose one RLlib seat per
episode plays one shared policy (module ``main``, ``train/rllib_module.py``, action masked)
against the opponent pool of ``train/pool.py`` played inside the env: ``random``,
``heuristic`` and frozen numpy snapshots of the learner, which the driver exports every
``self_play.snapshot_every`` env steps and sends to every env runner.

``train(cfg, out, ...)`` writes into ``out``: ``model.npz`` (the actor in numpy: agent spec
``rllib:out``, no Ray needed to play), ``config.yaml``, ``checkpoints/step_<n>/`` (RLlib
checkpoints, ``--resume``) with ``step_<n>.npz``, ``snapshots/``, ``tb/`` (TensorBoard),
``eval.json`` and ``model_card.json``.
"""

from __future__ import annotations

import gc
import json
import math
import platform
import re
import time
from pathlib import Path
from typing import Any

import numpy as np
import ray
from muggins_env.agents.ppo import NumpyPolicy
from muggins_env.train.config import dump
from muggins_env.train.evaluate import evaluate_policy
from muggins_env.train.ray_start import ray_session
from muggins_env.train.rllib_env import (
    MugginsMultiAgentEnv,
    MugginsSeatVectorEnv,
    SeatEnvRunner,
    broadcast,
    drain_results,
)
from muggins_env.train.rllib_module import MaskedPPOTorchLearner, MaskedPPOTorchRLModule, numpy_policy
from muggins_env.train.rllib_pipeline import PipelinedPPO
from muggins_env.train.trainer import curriculum_weights
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core import DEFAULT_MODULE_ID
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, LEARNER_RESULTS, NUM_ENV_STEPS_SAMPLED

MODULE = "main"
_STEP_DIR = re.compile(r"step_(\d+)$")
_STEP_NPZ = re.compile(r"step_(\d+)\.npz$")


def _steps(path: Path, pattern: re.Pattern = _STEP_DIR) -> int:
    m = pattern.search(path.name)
    return int(m.group(1)) if m else -1


def env_config(cfg: dict, seed: int) -> dict:
    o, sp = cfg["opponents"], cfg["self_play"]
    cur = cfg["curriculum"]
    pool = {"weights": {k: float(o[k]) for k in ("random", "heuristic", "self")}, "sampling": o["sampling"],
            "window": sp["window"], "latest_ratio": sp["latest_ratio"],
            "deterministic_snapshots": sp["deterministic"],
            "also": {k: float(cur[k]) for k in ("random", "heuristic", "self")} if cur["steps"] > 0 else None}
    return {"game": cfg["game"], "env_options": cfg["env_options"], "skip_forced": cfg["skip_forced"],
            "seat": cfg["seat"], "seed": seed, "reward_scale": cfg["reward_scale"], "features": cfg["features"],
            "pool": pool}


def algo_config(cfg: dict, seed: int) -> PPOConfig:
    """The RLlib ``PPOConfig`` of a validated muggins config."""
    ppo, rl = cfg["ppo"], cfg["rllib"]
    single = rl["env_runner"] == "single_agent"
    if single:
        probe = MugginsSeatVectorEnv(env_config(cfg, seed))
        space, act = probe.single_observation_space, probe.single_action_space
    else:
        probe = MugginsMultiAgentEnv({**env_config(cfg, seed), "pool": None})
        space, act = probe.observation_spaces["player_0"], probe.action_spaces["player_0"]
    cpus = rl["cpus_per_env_runner"]
    module = RLModuleSpec(module_class=MaskedPPOTorchRLModule, observation_space=space, action_space=act,
                          model_config={"fcnet_hiddens": list(ppo["net_arch"]), "fcnet_activation": ppo["activation"],
                                        "head_fcnet_hiddens": [], "vf_share_layers": False})
    config = (
        (PPOConfig(algo_class=PipelinedPPO) if rl["pipeline"] else PPOConfig())
        # our actions are Discrete: RLlib's unsquash/clip connector would only copy them (~1/6 of sampling)
        .environment(MugginsSeatVectorEnv if single else MugginsMultiAgentEnv, env_config=env_config(cfg, seed),
                     disable_env_checking=True, normalize_actions=False, clip_actions=False)
        .framework("torch")
        .env_runners(num_env_runners=rl["num_env_runners"], num_envs_per_env_runner=rl["envs_per_runner"],
                     num_cpus_per_env_runner=cpus, rollout_fragment_length="auto",
                     episodes_to_numpy=rl["episodes_to_numpy"],
                     custom_resources_per_env_runner=dict(rl["resources_per_env_runner"]))
        .learners(num_learners=rl["num_learners"], num_cpus_per_learner=cpus if rl["num_learners"] else "auto")
        # no isfinite check of every gradient on every minibatch (about 1/6 of an update), as SB3
        .framework(torch_skip_nan_gradients=True)
    )
    if rl["pipeline"]:
        # a sample request and a weights update queued on each runner at once; and no merging or
        # broadcasting of the runners' connector states after every iteration (ours hold none), a
        # call that would wait behind the sample in flight
        config = config.env_runners(max_requests_in_flight_per_env_runner=2, merge_env_runner_states=False,
                                    broadcast_env_runner_states=False)
    if single:  # the runner makes one vector env of its games (SeatEnvRunner)
        config = config.env_runners(env_runner_cls=SeatEnvRunner).rl_module(rl_module_spec=module)
    else:
        config = (config.multi_agent(policies={MODULE}, policy_mapping_fn=lambda agent_id, episode, **kw: MODULE)
                  .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={MODULE: module})))
    return (
        config
        .training(lr=ppo["learning_rate"], gamma=ppo["gamma"], lambda_=ppo["gae_lambda"],
                  clip_param=ppo["clip_range"], entropy_coeff=ppo["ent_coef"], vf_loss_coeff=ppo["vf_coef"],
                  grad_clip=ppo["max_grad_norm"], num_epochs=ppo["n_epochs"], minibatch_size=ppo["batch_size"],
                  train_batch_size_per_learner=rl["train_batch_size"], use_kl_loss=False,
                  learner_class=MaskedPPOTorchLearner,
                  vf_clip_param=float("inf"))
        .debugging(seed=seed, log_level="ERROR")
        .reporting(metrics_num_episodes_for_smoothing=100)
    )


def module_id(cfg: dict) -> str:
    """The id of the policy's module: ours in the multi-agent runner, RLlib's default in the single-agent one."""
    return DEFAULT_MODULE_ID if cfg["rllib"]["env_runner"] == "single_agent" else MODULE


def export_policy(algo: Any, cfg: dict) -> NumpyPolicy:
    """The current actor of the policy's module (``module_id``) in numpy (what ``rllib:PATH`` and the pool play)."""
    features = None if cfg["features"] == "none" else cfg["features"]
    return numpy_policy(algo.get_module(module_id(cfg)), cfg["ppo"]["activation"], features)


def _on_all_runners(algo: Any, fn: Any) -> list:
    return algo.env_runner_group.foreach_env_runner(fn, local_env_runner=True)


def _broadcast(algo: Any, method: str, *args: Any) -> int:
    """Call ``method`` of the opponent pool of every env of every env runner; return how many envs
    took it (pipelined: with the next sample request, counted when its replies are in)."""
    if getattr(algo, "pipelined", False):
        algo.post(method, *args)
        return algo.reached()
    return sum(_on_all_runners(algo, lambda _er: broadcast(method, *args)))


def _send_snapshot(algo: Any, policy: NumpyPolicy, step: int) -> int:
    """Into the opponent pool of every env of every env runner; return how many envs got it."""
    return _broadcast(algo, "add_snapshot", policy.to_arrays(), step)


def _drain(algo: Any) -> list[dict[str, list[float]]]:
    """The learner's returns per opponent kind from every env runner since the last call."""
    if getattr(algo, "pipelined", False):
        return algo.take_results()
    return _on_all_runners(algo, lambda _er: drain_results())


def _add_snapshot(algo: Any, policy: NumpyPolicy, step: int, out: Path) -> int:
    policy.save(out / "snapshots" / f"step_{step}.npz")
    return _send_snapshot(algo, policy, step)


def _flat(d: dict, prefix: str = "") -> dict[str, float]:
    out: dict[str, float] = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(_flat(v, key + "/"))
        elif isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) and math.isfinite(v):
            out[key] = float(v)
    return out


def _log_iteration(writer: Any, result: dict, by_kind: dict[str, list[float]], step: int) -> None:
    for section in (ENV_RUNNER_RESULTS, LEARNER_RESULTS):
        for k, v in _flat(result.get(section, {}), f"{section}/").items():
            writer.add_scalar(k, v, step)
    for kind, rets in by_kind.items():
        if rets:
            writer.add_scalar(f"vs_{kind}/mean_return", float(np.mean(rets)), step)
            # RLlib's episodes carry the learner's return only, not every seat's: this is the share
            # of games it ended ahead, named for what it is (SB3's vs_<kind>/win_rate is the win share)
            writer.add_scalar(f"vs_{kind}/positive_return_rate", float(np.mean(np.array(rets) > 0)), step)
    writer.flush()


def find_resume(path: str | Path) -> Path:
    """An RLlib checkpoint directory ``step_<n>``, or the latest one of a run directory."""
    p = Path(path)
    if _steps(p) >= 0 and p.is_dir():
        return p
    ckpts = sorted((d for d in (p / "checkpoints").glob("step_*") if d.is_dir()), key=_steps)
    if ckpts:
        return ckpts[-1]
    raise FileNotFoundError(f"nothing to resume from at {str(path)!r} (an RLlib run directory or its "
                            "checkpoints/step_<n> directory)")


def save_checkpoint(algo: Any, out: Path, step: int, cfg: dict) -> Path:
    path = out / "checkpoints" / f"step_{step}"
    algo.save_to_path(str(path.resolve()))
    export_policy(algo, cfg).save(out / "checkpoints" / f"step_{step}.npz")
    return path


def train(cfg: dict, out: str | Path, seed: int | None = None, resume: str | Path | None = None,
          address: str | None = None, evaluate_at_end: bool = True, log=print) -> dict:
    """Train per ``cfg`` into ``out`` on Ray RLlib; return the model card (also out/model_card.json)."""
    import torch
    from torch.utils.tensorboard import SummaryWriter

    torch.set_num_threads(cfg["torch_threads"])
    seed = cfg["seed"] if seed is None else seed
    cfg = {**cfg, "seed": seed, "backend": "rllib"}
    out = Path(out)
    for d in ("checkpoints", "snapshots", "tb"):
        (out / d).mkdir(parents=True, exist_ok=True)
    (out / "config.yaml").write_text(dump(cfg))
    with ray_session(address, cfg):  # a Ray it starts (none running) is shut down at the end
        try:
            return _train(cfg, out, seed, resume, evaluate_at_end, log, SummaryWriter(str(out / "tb")))
        finally:
            gc.unfreeze()  # _train froze the heap for its loop


def _train(cfg: dict, out: Path, seed: int, resume: Any, evaluate_at_end: bool, log: Any, writer: Any) -> dict:
    import torch

    algo = algo_config(cfg, seed).build_algo()
    # what the driver holds for the whole run (torch, Ray, RLlib, the algorithm) stays out of the
    # full collections that each iteration's episodes set off: each would walk all of it (~0.3 s)
    gc.collect()
    gc.freeze()
    self_play = cfg["opponents"]["self"] > 0 or (cfg["curriculum"]["steps"] > 0 and cfg["curriculum"]["self"] > 0)
    every, ckpt_every = cfg["self_play"]["snapshot_every"], cfg["checkpoint_every"]
    t0 = time.perf_counter()
    done = reached = 0  # reached: envs that received the last snapshot (every env of every runner)
    if resume is not None:
        ckpt = find_resume(resume)
        algo.restore_from_path(str(ckpt.resolve()))
        done = _steps(ckpt)
        snaps = sorted((p for p in (ckpt.parent.parent / "snapshots").glob("step_*.npz")
                        if _steps(p, _STEP_NPZ) <= done), key=lambda p: _steps(p, _STEP_NPZ))
        for p in snaps[-cfg["self_play"]["window"]:]:
            reached = _send_snapshot(algo, NumpyPolicy.load(p), _steps(p, _STEP_NPZ))
        log(f"resumed from {ckpt} at {done} steps ({len(snaps[-cfg['self_play']['window']:])} self-play snapshots)")
        next_snap = (done // every + 1) * every
    else:
        next_snap = 0
    next_ckpt = (done // ckpt_every + 1) * ckpt_every if ckpt_every else None
    steps, start, total = done, done, cfg["budget"]["total_timesteps"]
    iterations = 0
    while steps < total:
        if self_play and steps >= next_snap:
            reached = _add_snapshot(algo, export_policy(algo, cfg), steps, out)
            next_snap = steps + every
        if cfg["curriculum"]["steps"] > 0:
            w = curriculum_weights(cfg, steps)
            _broadcast(algo, "set_weights", w)
        result = algo.train()
        iterations += 1
        steps += int(result[ENV_RUNNER_RESULTS].get(NUM_ENV_STEPS_SAMPLED, 0))
        by_kind: dict[str, list[float]] = {}
        for part in _drain(algo):
            for kind, rets in part.items():
                by_kind.setdefault(kind, []).extend(rets)
        _log_iteration(writer, result, by_kind, steps)
        if next_ckpt is not None and steps >= next_ckpt:
            save_checkpoint(algo, out, steps, cfg)
            next_ckpt = steps + ckpt_every
    if getattr(algo, "pipelined", False):
        algo.finish()  # the batch in flight is dropped, the messages queued delivered
        reached = algo.reached()
    train_seconds = time.perf_counter() - t0
    writer.close()
    policy = export_policy(algo, cfg)
    policy.save(out / "model.npz")
    if steps > start or resume is None:
        save_checkpoint(algo, out, steps, cfg)
    rl = cfg["rllib"]
    nodes = len({n["NodeID"] for n in ray.nodes() if n.get("Alive")})
    runner_nodes = set(algo.env_runner_group.foreach_env_runner(
        lambda _er: ray.get_runtime_context().get_node_id(), local_env_runner=rl["num_env_runners"] == 0))
    algo.stop()
    card: dict[str, Any] = {
        "game": cfg["game"], "env_options": cfg["env_options"], "skip_forced": cfg["skip_forced"],
        "algorithm": f"PPO (Ray RLlib {ray.__version__}, new API stack)", "timesteps": int(steps),
        "iterations": iterations, "train_seconds": round(train_seconds, 1),
        "steps_per_second": round((steps - start) / max(train_seconds, 1e-9), 1), "seed": seed,
        "resumed_from": str(resume) if resume is not None else None,
        "snapshot_reached_envs": reached,
        "self_play_snapshots": sorted(_steps(p, _STEP_NPZ) for p in (out / "snapshots").glob("step_*.npz")),
        "files": {"policy": "model.npz", "config": "config.yaml", "checkpoints": "checkpoints/"},
        "agent_spec": f"rllib:{out}", "config": cfg,
        "cluster": {"nodes": nodes, "env_runner_nodes": len(runner_nodes), "num_env_runners": rl["num_env_runners"], "envs_per_runner": rl["envs_per_runner"],
                    "num_learners": rl["num_learners"]},
        "machine": {"python": platform.python_version(), "torch": torch.__version__, "ray": ray.__version__,
                    "torch_threads": cfg["torch_threads"]},
    }
    if evaluate_at_end and cfg["eval"]["deals"] > 0:
        rows = evaluate_policy(policy, cfg, seed, f"{cfg['game']}: RLlib PPO ({steps} steps) vs baselines, "
                               "duplicate deals, every seat", name=f"rllib:{out}", log=log)
        card["evaluation"] = rows
        (out / "eval.json").write_text(json.dumps(rows, indent=2))
    (out / "model_card.json").write_text(json.dumps(card, indent=2, default=str))
    return card
