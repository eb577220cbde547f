"""PPO training with sb3-contrib ``MaskablePPO`` and self-play.

``train(cfg, out, ...)`` writes into ``out``:
  model.zip / model.npz    the final model (SB3) and its actor in numpy (what ``ppo:out`` loads)
  config.yaml              the config used (validated, defaults filled in)
  checkpoints/             step_<n>.zip (+ .npz) every ``checkpoint_every`` learner steps
  snapshots/               the self-play snapshots (step_<n>.npz), reloaded on resume
  tb/                      TensorBoard logs (``tensorboard --logdir out/tb``)
  labels.npz               the teacher's decisions fitted (``pretrain.save_labels``; ``labels_from`` reuses it)
  eval.json, model_card.json   the final evaluation vs random and heuristic, and the card
"""

from __future__ import annotations

import json
import platform
import re
import time
from pathlib import Path
from typing import Any

import numpy as np
from muggins_env.agents import make_game
from muggins_env.agents.features import action_features, make_features
from muggins_env.agents.ppo import load_npz, policy_from_sb3
from muggins_env.train.config import dump
from muggins_env.train.evaluate import evaluate_policy
from muggins_env.train.pool import OpponentPool

from muggins_env.wrappers import BatchedSeatVecEnv, SeatEnv

_STEP = re.compile(r"step_(\d+)\.(zip|npz)$")


def _make_pool(cfg: dict) -> OpponentPool:
    o, sp = cfg["opponents"], cfg["self_play"]
    weights = {k: float(o[k]) for k in ("random", "heuristic", "self")}
    cur = cfg["curriculum"]
    also = {k: float(cur[k]) for k in ("random", "heuristic", "self")} if cur["steps"] > 0 else None
    return OpponentPool(cfg["game"], cfg["env_options"], weights, o["sampling"], sp["window"],
                        sp["latest_ratio"], sp["deterministic"], also=also)


def curriculum_weights(cfg: dict, step: int) -> dict[str, float]:
    """The opponent weights at learner step ``step``: ``opponents`` moving linearly to
    ``curriculum`` over ``curriculum.steps`` (then staying there)."""
    kinds = ("random", "heuristic", "self")
    start = {k: float(cfg["opponents"][k]) for k in kinds}
    cur = cfg["curriculum"]
    if cur["steps"] <= 0:
        return start
    f = min(1.0, max(0, step) / cur["steps"])
    s0, s1 = sum(start.values()), sum(float(cur[k]) for k in kinds)
    return {k: (1 - f) * start[k] / s0 + f * float(cur[k]) / s1 for k in kinds}


def _make_env_fn(cfg: dict, pool: Any, seed: int, i: int):
    seat = None if cfg["seat"] == "random" else cfg["seat"]

    def make():
        game = make_game(cfg["game"], cfg["env_options"])
        return SeatEnv(game, seat=seat, opponents=pool, skip_forced=cfg["skip_forced"], seed=seed * 1000 + i,
                       reward_scale=cfg["reward_scale"], features=make_features(cfg["features"], cfg["game"], game))

    return make


def make_vec_env(cfg: dict, pool: OpponentPool, seed: int):
    n, kind = cfg["budget"]["n_envs"], cfg["budget"]["vec_env"]
    fns = [_make_env_fn(cfg, pool, seed, i) for i in range(n)]
    if kind == "batched":
        return BatchedSeatVecEnv([f() for f in fns])
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    if kind == "dummy":
        return DummyVecEnv(fns)
    return SubprocVecEnv(fns)


def _steps_of(path: Path) -> int:
    m = _STEP.search(path.name)
    return int(m.group(1)) if m else -1


def find_resume(path: str | Path) -> Path:
    """A checkpoint .zip, or of a run directory its final model (a finished run) else its latest checkpoint."""
    p = Path(path)
    if p.is_file():
        return p
    if p.is_dir():
        if (p / "model.zip").exists():  # written when learning ended: newer than every checkpoint
            return p / "model.zip"
        ckpts = sorted((p / "checkpoints").glob("step_*.zip"), key=_steps_of)
        if ckpts:
            return ckpts[-1]
    raise FileNotFoundError(f"nothing to resume from at {str(path)!r} (a checkpoint .zip or a run directory)")


# what a run writes into its directory (``--overwrite`` removes these and nothing else)
RUN_FILES = ("model.zip", "model.npz", "config.yaml", "eval.json", "model_card.json", "labels.npz")
RUN_DIRS = ("checkpoints", "snapshots", "tb")
_CKPT = re.compile(r"step_(\d+)(\.zip)?$")


class RunDirError(ValueError):
    """``--out`` / ``--resume`` would destroy or mix up a run (a finished model, an old run's files)."""


def _run_of(resume: str | Path) -> Path:
    """The run directory that ``resume`` (a run directory, a checkpoint, a final model) belongs to."""
    p = Path(resume)
    if p.is_dir() and not p.name.startswith("step_"):
        return p
    return p.parent.parent if p.parent.name == "checkpoints" else p.parent


def finished_steps(run: str | Path) -> int | None:
    """The learner steps of the final model in ``run`` (None when no run finished there)."""
    run = Path(run)
    if not ((run / "model.zip").exists() or (run / "model.npz").exists()):
        return None
    try:
        return int(json.loads((run / "model_card.json").read_text())["timesteps"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    if (run / "model.zip").exists():
        from stable_baselines3.common.save_util import load_from_zip_file

        data, _, _ = load_from_zip_file(str(run / "model.zip"), device="cpu", load_data=True)
        return int(data["num_timesteps"])
    return None


def _resume_step(resume: str | Path) -> int:
    """The learner step a resume starts from: the final model's of a finished run, else the checkpoint's."""
    p = Path(resume)
    if p.is_dir() and not p.name.startswith("step_"):
        fin = finished_steps(p)
        if fin is not None:
            return fin
        steps = [int(m.group(1)) for c in (p / "checkpoints").glob("step_*") if (m := _CKPT.search(c.name))]
        return max(steps, default=0)
    m = _CKPT.search(p.name)
    if m:
        return int(m.group(1))
    fin = finished_steps(p.parent) if p.name in ("model.zip", "model.npz") else None
    return fin or 0


def clear_run(out: str | Path) -> None:
    """Remove the files and folders a run wrote into ``out`` (``RUN_FILES``, ``RUN_DIRS``)."""
    import shutil

    out = Path(out)
    for f in RUN_FILES:
        (out / f).unlink(missing_ok=True)
    for d in RUN_DIRS:
        if (out / d).is_dir():
            shutil.rmtree(out / d)


def prepare_out(out: str | Path, resume: str | Path | None = None, total: int | None = None,
                overwrite: bool = False) -> None:
    """Check that training into ``out`` destroys nothing; with ``overwrite``, clear an old run there first.

    A non-empty ``out`` is refused unless it is the run being resumed, or ``overwrite``. A resume must
    have steps left to learn (``total`` above the step it starts from: a finished run continues from
    its final model, so only with a larger budget), and never replaces a finished model in ``out``
    by one retrained from an earlier checkpoint."""
    out = Path(out)
    src = _run_of(resume) if resume is not None else None
    same = src is not None and out.is_dir() and src.is_dir() and src.resolve() == out.resolve()
    if not same and out.is_dir() and any(out.iterdir()):
        if not overwrite:
            names = ", ".join(sorted(p.name for p in out.iterdir())[:6])
            hint = f", or --resume {out} to continue that run" if resume is None and (out / "config.yaml").exists() else ""
            raise RunDirError(f"--out {out} is not empty ({names}): give --overwrite to clear the old run there "
                              f"first, or another --out{hint}")
        if src is not None and out.resolve() in (src.resolve(), *src.resolve().parents):
            raise RunDirError(f"--overwrite would clear {out}, which holds the --resume {resume} itself; "
                              "give another --out")
        clear_run(out)
    if resume is None:
        return
    start = _resume_step(resume)
    fin = finished_steps(out) if same else None
    if fin is not None and start < fin:
        raise RunDirError(f"--resume {resume} starts at step {start}, but {out} holds a finished model of {fin} "
                          f"steps that it would overwrite: resume {out} itself (from its final model) with "
                          "--timesteps, or give another --out to branch from that checkpoint")
    if total is not None and total <= start:
        what = (f"{src} is a finished run of {start} steps" if finished_steps(src) == start
                else f"--resume {resume} is at step {start}")
        raise RunDirError(f"{what} and the budget is {total} steps: nothing to train; give --timesteps larger "
                          f"than {start} to continue it from there")


def _tb_logger(tb: Path, done: int, verbose: int) -> Any:
    """The logger of a resumed run: on in the latest TensorBoard folder when that ends at or before
    ``done``, else in a new folder (no step logged twice in one folder)."""
    from stable_baselines3.common.utils import configure_logger, get_latest_run_id

    latest = get_latest_run_id(str(tb), "ppo")
    last = -1
    if latest > 0:
        from tensorboard.backend.event_processing.event_file_loader import EventFileLoader

        for f in (tb / f"ppo_{latest}").glob("events.out.tfevents.*"):
            for ev in EventFileLoader(str(f)).Load():
                last = max(last, int(ev.step))
    return configure_logger(verbose, str(tb), "ppo", reset_num_timesteps=latest == 0 or last > done)


def _callbacks(cfg: dict, pool: OpponentPool, venv: Any, out: Path, in_process: bool):
    from muggins_env.eval.tournament import seat_sides, win_shares
    from stable_baselines3.common.callbacks import BaseCallback

    sides = seat_sides(make_game(cfg["game"], cfg["env_options"]))

    class SelfPlayAndCheckpoints(BaseCallback):
        """Snapshots into the pool, periodic checkpoints, and per opponent kind the mean return and
        the win rate as the evaluation counts it: a game's win share of the learner's seat (1 for
        its side alone on the top return, 1/k when k sides tie on it, else 0; ``win_shares``)."""

        def __init__(self) -> None:
            super().__init__()
            self.next_snapshot = 0
            self.next_ckpt = 0
            self.results: dict[str, list[float]] = {}
            self.wins: dict[str, list[float]] = {}

        def _on_training_start(self) -> None:
            t = self.model.num_timesteps
            every = cfg["self_play"]["snapshot_every"]
            self.next_snapshot = t if not pool.snapshots else (t // every + 1) * every
            ce = cfg["checkpoint_every"]
            self.next_ckpt = (t // ce + 1) * ce if ce else None

        def snapshot(self) -> None:
            policy = _policy_of(self.model, cfg)
            step = self.model.num_timesteps
            policy.save(out / "snapshots" / f"step_{step}.npz")
            if in_process:
                pool.add_snapshot(policy, step)
            else:
                venv.env_method("call_opponents", "add_snapshot", policy.to_arrays(), step)

        def _on_rollout_start(self) -> None:
            if cfg["curriculum"]["steps"] > 0:
                w = curriculum_weights(cfg, self.model.num_timesteps)
                if in_process:
                    pool.set_weights(w)
                else:
                    venv.env_method("call_opponents", "set_weights", w)
                for k, v in w.items():
                    self.logger.record(f"curriculum/{k}", v)

        def _on_step(self) -> bool:
            t = self.model.num_timesteps
            if "self" in pool.kinds and t >= self.next_snapshot:
                self.snapshot()
                self.next_snapshot = t + cfg["self_play"]["snapshot_every"]
            if self.next_ckpt is not None and t >= self.next_ckpt:
                save_model(self.model, out / "checkpoints" / f"step_{t}", cfg)
                self.next_ckpt = t + cfg["checkpoint_every"]
            for info, done in zip(self.locals.get("infos", []), self.locals.get("dones", [])):
                if done and "episode" in info:
                    kind = info.get("opponents") or "all"
                    self.results.setdefault(kind, []).append(float(info["episode"]["r"]))
                    if "returns" in info and "seat" in info:
                        share = win_shares(info["returns"], sides)[int(info["seat"])]
                        self.wins.setdefault(kind, []).append(share)
            return True

        def _on_rollout_end(self) -> None:
            for kind, rets in self.results.items():
                if rets:
                    self.logger.record(f"vs_{kind}/mean_return", float(np.mean(rets)))
            for kind, wins in self.wins.items():
                if wins:
                    self.logger.record(f"vs_{kind}/win_rate", float(np.mean(wins)))
            self.results, self.wins = {}, {}

    return SelfPlayAndCheckpoints()


def _policy_of(model: Any, cfg: dict) -> Any:
    """The numpy actor of ``model``, recording the derived features it was trained with."""
    policy = policy_from_sb3(model.policy)
    policy.features = None if cfg.get("features", "none") == "none" else cfg["features"]
    return policy


def policy_spec(cfg: dict, kind: str, action_hidden: int) -> tuple[Any, dict]:
    """The SB3 policy (class or name) of ``ppo.policy`` and its extra keyword arguments."""
    if kind == "mlp":
        return "MlpPolicy", {}
    from muggins_env.train.scorer_policy import ActionScorerPolicy

    af = action_features(cfg["game"], make_game(cfg["game"], cfg["env_options"]), cfg["features"])
    return ActionScorerPolicy, {"action_index": af.index, "action_static": af.static, "action_hidden": action_hidden}


def save_model(model: Any, stem: Path, cfg: dict | None = None) -> Path:
    stem.parent.mkdir(parents=True, exist_ok=True)
    model.save(str(stem) + ".zip")
    _policy_of(model, cfg or {}).save(str(stem) + ".npz")
    return Path(str(stem) + ".zip")


def train(cfg: dict, out: str | Path, seed: int | None = None, resume: str | Path | None = None,
          progress_bar: bool = True, verbose: int = 0, evaluate_at_end: bool = True,
          log=print, overwrite: bool = False) -> dict:
    """Train per ``cfg`` into ``out``; return the model card (also written to out/model_card.json).

    ``out`` must be empty, or the run ``resume`` continues (``overwrite``: clear an old run there
    first); ``prepare_out`` says what is refused (``RunDirError``)."""
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(cfg["torch_threads"])
    # the masked Categorical is rebuilt at every rollout step and minibatch: its argument
    # checks cost ~10% of a rollout step and never fire (masks come from the games)
    torch.distributions.Distribution.set_default_validate_args(False)
    seed = cfg["seed"] if seed is None else seed
    cfg = {**cfg, "seed": seed}
    out = Path(out)
    prepare_out(out, resume, cfg["budget"]["total_timesteps"], overwrite)
    for d in ("checkpoints", "snapshots", "tb"):
        (out / d).mkdir(parents=True, exist_ok=True)
    (out / "config.yaml").write_text(dump(cfg))
    pool = _make_pool(cfg)
    venv = make_vec_env(cfg, pool, seed)
    in_process = cfg["budget"]["vec_env"] != "subproc"
    total = cfg["budget"]["total_timesteps"]
    ppo = dict(cfg["ppo"])
    net_arch, activation = ppo.pop("net_arch"), ppo.pop("activation")
    policy_kind, action_hidden = ppo.pop("policy"), ppo.pop("action_hidden")
    t0 = time.perf_counter()
    pretrain_stats = None
    if resume is not None:
        ckpt = find_resume(resume)
        model = MaskablePPO.load(str(ckpt), env=venv, device="cpu", tensorboard_log=str(out / "tb"))
        done = model.num_timesteps
        model.set_logger(_tb_logger(out / "tb", done, verbose))
        snaps = sorted((p for p in (out / "snapshots").glob("step_*.npz") if _steps_of(p) <= done),
                       key=_steps_of)
        if not snaps and Path(resume).is_dir():
            snaps = sorted((p for p in (Path(resume) / "snapshots").glob("step_*.npz") if _steps_of(p) <= done),
                           key=_steps_of)
        for p in snaps[-pool.window:]:
            policy = load_npz(p)
            if in_process:
                pool.add_snapshot(policy, _steps_of(p))
            else:
                venv.env_method("call_opponents", "add_snapshot", policy.to_arrays(), _steps_of(p))
        log(f"resumed from {ckpt} at {done} steps ({len(snaps[-pool.window:])} self-play snapshots)")
    else:
        act = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[activation]
        policy, kwargs = policy_spec(cfg, policy_kind, action_hidden)
        model = MaskablePPO(policy, venv, device="cpu", seed=seed, verbose=verbose,
                            tensorboard_log=str(out / "tb"),
                            policy_kwargs={"net_arch": list(net_arch), "activation_fn": act, **kwargs}, **ppo)
        done = 0
        if cfg["pretrain"]["teacher"] != "none":
            from muggins_env.train.pretrain import imitate

            pretrain_stats = imitate(model, cfg, seed, log=log, out=out)
    remaining = max(0, total - done)
    if remaining:
        # PPO stops only after whole rollouts (n_steps x n_envs steps): ask for exactly that many,
        # so the progress bar's total is the number of steps really made (not 251,904 / 250,000)
        rollout = model.n_steps * model.n_envs
        remaining = -(-remaining // rollout) * rollout
        model.learn(total_timesteps=remaining, callback=_callbacks(cfg, pool, venv, out, in_process),
                    progress_bar=progress_bar, reset_num_timesteps=resume is None, tb_log_name="ppo")
    train_seconds = time.perf_counter() - t0
    save_model(model, out / "model", cfg)
    venv.close()
    card: dict[str, Any] = {
        "game": cfg["game"], "env_options": cfg["env_options"], "skip_forced": cfg["skip_forced"],
        "algorithm": "MaskablePPO (sb3-contrib)", "timesteps": int(model.num_timesteps),
        "train_seconds": round(train_seconds, 1),
        "steps_per_second": round((model.num_timesteps - done) / max(train_seconds, 1e-9), 1),
        "seed": seed, "pretrain": pretrain_stats, "resumed_from": str(resume) if resume is not None else None,
        "self_play_snapshots": pool.snapshot_steps(), "files": {"model": "model.zip", "policy": "model.npz",
                                                               "config": "config.yaml"},
        "agent_spec": f"ppo:{out}", "config": cfg,
        "machine": {"python": platform.python_version(), "torch": torch.__version__,
                    "torch_threads": cfg["torch_threads"]},
    }
    if evaluate_at_end and cfg["eval"]["deals"] > 0:
        rows = evaluate_policy(_policy_of(model, cfg), cfg, seed, f"{cfg['game']}: PPO ({model.num_timesteps} "
                               "steps) vs baselines, duplicate deals, every seat", log=log)
        card["evaluation"] = rows
        (out / "eval.json").write_text(json.dumps(rows, indent=2))
    (out / "model_card.json").write_text(json.dumps(card, indent=2, default=str))
    return card
