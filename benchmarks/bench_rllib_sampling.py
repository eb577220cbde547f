"""Sampling throughput of the RLlib backend (issue 19) beside the SB3 batched trainer, in one run.

  python benchmarks/bench_rllib_sampling.py                     # cribbage_v0, 2 players, muggins on
  python benchmarks/bench_rllib_sampling.py --runners 1 2 --envs-per-runner 16 64 --steps 20000

Rows (learner env steps per second; the opponents are the pool's ``random`` in every row):
  adapter env      ``MugginsMultiAgentEnv`` stepped in this process with random legal actions (no Ray)
  seat vector env  ``MugginsSeatVectorEnv`` of ``--sb3-envs`` games, the same (the single_agent runner's env)
  rllib sample R xK eE  K remote env runners of kind R (``ma``: MultiAgentEnvRunner over
                   MugginsMultiAgentEnv; ``sa``: SeatEnvRunner over MugginsSeatVectorEnv; ``--env-runners``),
                   E games each (``--envs-per-runner``), sampling with the masked PPO
                   module in parallel (``EnvRunner.sample``), timed from the driver: the rate a
                   cluster adds per runner
  ... np           the same with RLlib's default ``episodes_to_numpy=True`` (ours is False)
  rllib train R xK eE  ``Algorithm.train()`` with those runners (sampling, then the PPO update in the
                   driver: RLlib's PPO is synchronous)
  sb3 env / rollout / ppo   ``BatchedSeatVecEnv`` x``--sb3-envs``: random actions; the rollouts of
                   ``MaskablePPO.learn`` alone; the whole of ``learn`` (benchmarks/bench_training.py)
Ray starts here with ``--num-cpus`` logical CPUs on loopback and stops at the end. Not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # Ray on loopback only


def adapter_rate(game: str, opts: dict, steps: int) -> float:
    from muggins_env.train.rllib_env import MASK, MugginsMultiAgentEnv

    from muggins_env.wrappers import UniformRandomAgent, fixed_opponents

    env = MugginsMultiAgentEnv({"game": game, "env_options": opts}, opponents=fixed_opponents(UniformRandomAgent()))
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=0)
    t0 = time.perf_counter()
    for _ in range(steps):
        (agent, o), = obs.items()
        obs, _, term, trunc, _ = env.step({agent: int(rng.choice(np.flatnonzero(o[MASK])))})
        if term["__all__"] or trunc["__all__"]:
            obs, _ = env.reset()
    return steps / (time.perf_counter() - t0)


def seat_vector_rate(game: str, opts: dict, envs: int, steps: int) -> float:
    from muggins_env.train.rllib_env import MugginsSeatVectorEnv

    v = MugginsSeatVectorEnv({"game": game, "env_options": opts,
                              "pool": {"weights": {"random": 1.0, "heuristic": 0.0, "self": 0.0}}}, envs)
    n = v.single_action_space.n
    rng = np.random.default_rng(0)
    obs, _ = v.reset()
    done = 0
    t0 = time.perf_counter()
    while done < steps:
        masks = obs[:, -n:]
        legal = masks.any(1)
        # a random legal action per game (argmax of noise on the legal ones); a finished game's is ignored
        obs, *_ = v.step(np.argmax(rng.random(masks.shape) * masks, 1))
        done += int(legal.sum())
    return done / (time.perf_counter() - t0)


def rllib_rates(cfg: dict, runners: int, steps: int, iterations: int, **rllib: object) -> tuple[float, float]:
    """(sampling env steps/s of ``runners`` remote env runners together, train() env steps/s);
    ``rllib``: overrides of the config's rllib section (envs_per_runner, episodes_to_numpy)."""
    from muggins_env.train.config import from_dict
    from muggins_env.train.rllib_backend import algo_config
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_ENV_STEPS_SAMPLED

    cfg = from_dict({**cfg, "rllib": {**cfg["rllib"], "num_env_runners": runners, **rllib}})
    algo = algo_config(cfg, seed=0).build_algo()
    group = algo.env_runner_group
    per_runner = steps // runners

    def sample(n: int) -> list[int]:
        return group.foreach_env_runner(lambda er: sum(e.env_steps() for e in er.sample(num_timesteps=n)),
                                        local_env_runner=False)

    sample(512)  # warm-up
    t0 = time.perf_counter()
    done = sum(sample(per_runner))
    sample_rate = done / (time.perf_counter() - t0)
    algo.train()  # warm-up
    t0 = time.perf_counter()
    trained = sum(int(algo.train()[ENV_RUNNER_RESULTS][NUM_ENV_STEPS_SAMPLED]) for _ in range(iterations))
    train_rate = trained / (time.perf_counter() - t0)
    algo.stop()
    return sample_rate, train_rate


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", default="cribbage_v0")
    p.add_argument("--options", default='{"num_players": 2}', help="env options as JSON")
    p.add_argument("--runners", type=int, nargs="+", default=[1, 2])
    p.add_argument("--envs-per-runner", type=int, nargs="+", default=[16, 64])
    p.add_argument("--env-runners", nargs="+", default=["multi_agent", "single_agent"],
                   choices=["multi_agent", "single_agent"], help="RLlib env runner kinds (rllib.env_runner)")
    p.add_argument("--no-numpy-row", action="store_true",
                   help="skip the row with RLlib's default episodes_to_numpy=True (1 runner, the first --envs-per-runner)")
    p.add_argument("--steps", type=int, default=20000, help="env steps of each sampling row (all runners)")
    p.add_argument("--iterations", type=int, default=2, help="timed train() iterations of 4096 env steps")
    p.add_argument("--sb3-envs", type=int, default=64)
    p.add_argument("--sb3-steps", type=int, default=40000)
    p.add_argument("--num-cpus", type=int, default=2, help="Ray's logical CPUs")
    p.add_argument("--json", default=None, help="also write the figures here")
    args = p.parse_args(argv)
    opts = json.loads(args.options)
    import ray
    import torch

    torch.set_num_threads(1)  # the driver's learner, as muggins-train (torch_threads): more threads spin here

    sys.path.insert(0, str(Path(__file__).parent))
    from bench_training import env_rate, ppo_rate

    from muggins_env.wrappers import BatchedSeatVecEnv, SeatEnv

    rows: dict[str, float] = {}

    def row(name: str, rate: float, note: str = "") -> None:
        rows[name] = round(rate, 1)
        print(f"  {name:<22} {rate:>9,.0f}  {note}", flush=True)

    print(f"{args.game} {opts}: learner env steps/s, random opponents, net [128, 128], 1 torch thread; "
          f"{os.cpu_count()} cores", flush=True)
    row("adapter env", adapter_rate(args.game, opts, 5000), "(MugginsMultiAgentEnv, random actions, no Ray)")
    row(f"seat vector env x{args.sb3_envs}", seat_vector_rate(args.game, opts, args.sb3_envs, 20000),
        "(MugginsSeatVectorEnv, random actions, no Ray)")
    cfg = {"game": args.game, "backend": "rllib", "env_options": opts,
           "opponents": {"random": 1.0, "heuristic": 0.0, "self": 0.0},
           "ppo": {"batch_size": 1024, "n_epochs": 2, "net_arch": [128, 128]},
           "rllib": {"train_batch_size": 4096, "cpus_per_env_runner": 0.5}}
    ray.init(address="local", num_cpus=args.num_cpus, include_dashboard=False, log_to_driver=False,
             _node_ip_address="127.0.0.1", runtime_env={"env_vars": {"OMP_NUM_THREADS": "1"}})
    try:
        first = args.envs_per_runner[0]
        if not args.no_numpy_row:  # RLlib's default episodes_to_numpy=True, for each runner kind
            for kind in args.env_runners:
                tag = "ma" if kind == "multi_agent" else "sa"
                sample, train = rllib_rates(cfg, 1, args.steps, args.iterations, envs_per_runner=first,
                                            episodes_to_numpy=True, env_runner=kind)
                row(f"rllib sample {tag} x1 e{first} np", sample,
                    f"({kind}: 1 env runner x {first} games, episodes_to_numpy=True)")
                row(f"rllib train {tag} x1 e{first} np", train, "(the same, train())")
        for kind in args.env_runners:
            tag = "ma" if kind == "multi_agent" else "sa"
            for envs in args.envs_per_runner:
                for k in args.runners:
                    sample, train = rllib_rates(cfg, k, args.steps, args.iterations, envs_per_runner=envs,
                                                env_runner=kind)
                    row(f"rllib sample {tag} x{k} e{envs}", sample, f"({kind}: {k} env runners x {envs} games; "
                                                                    f"{sample / k:,.0f} per runner)")
                    row(f"rllib train {tag} x{k} e{envs}", train,
                        "(sample + PPO update, batch 4096, minibatch 1024, 2 epochs)")
    finally:
        ray.shutdown()
    import torch

    torch.set_num_threads(1)

    def venv():
        return BatchedSeatVecEnv([SeatEnv(args.game, opts, seed=i, opponents="random") for i in range(args.sb3_envs)])

    row(f"sb3 env x{args.sb3_envs}", env_rate(venv(), 20000), "(BatchedSeatVecEnv, random actions)")
    rate, share = ppo_rate(venv(), args.sb3_steps, 64, 1024, 2, [128, 128], 1)
    row(f"sb3 rollout x{args.sb3_envs}", rate / share, "(MaskablePPO rollouts alone)")
    row(f"sb3 ppo x{args.sb3_envs}", rate, f"(MaskablePPO.learn, n_steps 64, batch 1024, 2 epochs; "
                                           f"{share:.0%} in rollouts)")
    if args.json:
        Path(args.json).write_text(json.dumps({"game": args.game, "options": opts, "rows": rows}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
