"""PPO env steps/s: the one-env ``DummyVecEnv`` over a ``SeatEnv`` against the in-process
``BatchedSeatVecEnv``, with and without a MaskablePPO update (issue 8 asks >= 5,000 steps/s
on cribbage through the batched VecEnv).

  python benchmarks/bench_training.py --game cribbage_v0 --steps 20000
  python benchmarks/bench_training.py --game muggins_cards_v0 --options '{"num_players": 4}'

"env" rows: stepping the vec env with uniformly random legal actions (what rollouts cost
without the network); "ppo" rows: ``MaskablePPO.learn`` for the same number of steps
(rollouts + updates, n_steps 256, batch 1024, 4 epochs, net [128, 128]). Opponents: random.
Not a timed test.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np


def env_rate(venv, steps: int, seed: int = 0) -> float:
    rng = np.random.default_rng(seed)
    venv.reset()
    n = venv.num_envs
    t0 = time.perf_counter()
    done = 0
    while done < steps:
        masks = np.asarray(venv.env_method("action_masks")) if not hasattr(venv, "action_masks") \
            else venv.action_masks()
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        venv.step(acts)
        done += n
    return done / (time.perf_counter() - t0)


def ppo_rate(venv, steps: int) -> float:
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(2)
    n_steps = max(8, 256 // max(1, venv.num_envs // 16)) if venv.num_envs > 1 else 2048
    model = MaskablePPO("MlpPolicy", venv, n_steps=n_steps, batch_size=min(1024, n_steps * venv.num_envs),
                        n_epochs=4, policy_kwargs={"net_arch": [128, 128]}, device="cpu", verbose=0)
    t0 = time.perf_counter()
    model.learn(steps)
    return model.num_timesteps / (time.perf_counter() - t0)


def main(argv=None) -> int:
    from stable_baselines3.common.vec_env import DummyVecEnv

    from muggins_env.wrappers import BatchedSeatVecEnv, SeatEnv

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", default="muggins_cards_v0")
    p.add_argument("--options", default="{}", help="env options as JSON")
    p.add_argument("--steps", type=int, default=20000)
    p.add_argument("--n-envs", type=int, default=32)
    p.add_argument("--no-ppo", action="store_true", help="only the env stepping rows")
    args = p.parse_args(argv)
    opts = json.loads(args.options)
    if args.game == "muggins_cards_v0":
        opts.setdefault("num_players", 4)

    def make(i):
        return lambda: SeatEnv(args.game, opts, seed=i)

    rows = []
    for name, build in (("DummyVecEnv x1", lambda: DummyVecEnv([make(0)])),
                        (f"BatchedSeatVecEnv x{args.n_envs}",
                         lambda: BatchedSeatVecEnv([make(i)() for i in range(args.n_envs)]))):
        rows.append((name, "env", env_rate(build(), args.steps)))
        if not args.no_ppo:
            rows.append((name, "ppo", ppo_rate(build(), args.steps)))
    print(f"{args.game} {opts}: learner steps/s (random opponents, skip_forced)")
    for name, kind, rate in rows:
        print(f"  {name:<24} {kind:<4} {rate:>10,.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
