"""How the RLlib backend scales: sampling and training throughput by placement, env runners and learners (issue 32).

For each placement (``local``: one Ray on this machine; ``cluster``: a two-node
``ray.cluster_utils.Cluster`` started here, one env runner slot per node, so two runners land on
two nodes), each number of env runners (``--runners``) and of learners (``--learners``: 0, the
update in the driver; 1, in a learner actor), it measures on 2-player cribbage with random
opponents and the default network and PPO settings:
  sample   env steps/s of all runners sampling at once (``EnvRunner.sample``, timed from the driver)
  train    env steps/s of ``Algorithm.train()`` (sampling, then the synchronous PPO update)
  update   seconds of one PPO update of a ``--batch`` env steps batch (RLlib's learner timer)
synchronous (RLlib's PPO) and pipelined (``rllib.pipeline``: the runners sample the next batch
while the learner trains on the last; ``--pipeline 0 1``), then prints what the figures imply for
N nodes x c cores: a synchronous iteration takes ``batch / (runners x per-runner rate) + update``,
so throughput grows with runners towards the cap ``batch / update`` that the update sets,
whatever the cluster's size; a pipelined one takes the longer of the two, so it reaches the cap
once the runners sample a batch in less than an update takes.

Both nodes of the ``cluster`` placement are processes on this machine's cores: its rows show
the cost of the cluster path (objects between raylets), not more cores. Not a test.

    python benchmarks/bench_rllib_scaling.py                          # local and cluster, 1-2 runners, 0-1 learners
    python benchmarks/bench_rllib_scaling.py --placements local --runners 1 --json scaling.json
    python benchmarks/bench_rllib_scaling.py --placements local --pipeline 1    # pipelined rows only
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # Ray on loopback only
LOCAL = "127.0.0.1"


def measure(cfg: dict, steps: int, iterations: int) -> dict[str, float]:
    from muggins_env.train.rllib_backend import algo_config
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_ENV_STEPS_SAMPLED

    algo = algo_config(cfg, seed=0).build_algo()
    try:
        group = algo.env_runner_group
        runners = cfg["rllib"]["num_env_runners"]

        def sample(n: int) -> int:
            return sum(group.foreach_env_runner(lambda er: sum(e.env_steps() for e in er.sample(num_timesteps=n)),
                                                local_env_runner=False))

        sample(512)  # warm-up
        t0 = time.perf_counter()
        sampled = sample(steps // runners)
        sample_rate = sampled / (time.perf_counter() - t0)
        algo.train()  # warm-up
        t0 = time.perf_counter()
        trained, updates = 0, []
        for _ in range(iterations):
            t = time.perf_counter()
            result = algo.train()
            trained += int(result[ENV_RUNNER_RESULTS][NUM_ENV_STEPS_SAMPLED])
            timers = result["timers"]  # pipelined, the sampling timer is the wait for the batch in flight
            updates.append(timers["learner_update_timer"] if cfg["rllib"]["pipeline"]
                           else time.perf_counter() - t - timers["env_runner_sampling_timer"])
        train_rate = trained / (time.perf_counter() - t0)
        return {"sample": round(sample_rate, 1), "sample_per_runner": round(sample_rate / runners, 1),
                "train": round(train_rate, 1), "update_s": round(sorted(updates)[len(updates) // 2], 3)}
    finally:
        algo.stop()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--placements", nargs="+", default=["local", "cluster"], choices=["local", "cluster"])
    p.add_argument("--runners", type=int, nargs="+", default=[1, 2])
    p.add_argument("--learners", type=int, nargs="+", default=[0, 1])
    p.add_argument("--pipeline", type=int, nargs="+", default=[0, 1], choices=[0, 1],
                   help="0: RLlib's synchronous PPO; 1: rllib.pipeline")
    p.add_argument("--envs-per-runner", type=int, default=64)
    p.add_argument("--batch", type=int, default=4096, help="rllib.train_batch_size (env steps per update)")
    p.add_argument("--steps", type=int, default=20000, help="env steps of each sampling measurement")
    p.add_argument("--iterations", type=int, default=3, help="timed train() iterations")
    p.add_argument("--json", default=None)
    args = p.parse_args(argv)
    import ray
    import torch
    from muggins_env.train.config import from_dict
    from ray.cluster_utils import Cluster

    torch.set_num_threads(1)  # the driver's learner (--learners 0), as muggins-train
    threads = {"env_vars": {"OMP_NUM_THREADS": "1"}}
    print(f"cribbage_v0 2p, random opponents, net [128, 128], batch {args.batch}, minibatch 512, 4 epochs, "
          f"{args.envs_per_runner} games per runner; {os.cpu_count()} cores", flush=True)
    print(f"  {'placement':<9} {'runners':>7} {'learners':>8} {'pipeline':>8} {'sample':>9} {'per runner':>10} "
          f"{'train':>8} {'update s':>8}", flush=True)
    rows = []
    for placement in args.placements:
        for runners, learners, pipeline in [(r, n, pl) for r in args.runners for n in args.learners
                                            for pl in args.pipeline]:
            cfg = from_dict({"game": "cribbage_v0", "backend": "rllib", "env_options": {"num_players": 2},
                             "opponents": {"random": 1.0, "heuristic": 0.0, "self": 0.0},
                             "checkpoint_every": 0, "eval": {"deals": 0},
                             "rllib": {"num_env_runners": runners, "num_learners": learners,
                                       "envs_per_runner": args.envs_per_runner,
                                       "train_batch_size": args.batch, "cpus_per_env_runner": 1,
                                       "pipeline": bool(pipeline),
                                       "resources_per_env_runner":
                                           {"runner_slot": 1} if placement == "cluster" else {}}})
            cluster = None
            if placement == "cluster":  # two nodes, one runner slot each; the learner on either
                cluster = Cluster(initialize_head=True, head_node_args={
                    "num_cpus": 2, "resources": {"runner_slot": 1}, "node_ip_address": LOCAL,
                    "include_dashboard": False})
                cluster.add_node(num_cpus=2, resources={"runner_slot": 1}, node_ip_address=LOCAL)
                cluster.wait_for_nodes()
                ray.init(address=cluster.address, include_dashboard=False, log_to_driver=False,
                         runtime_env=threads)
            else:
                ray.init(address="local", num_cpus=runners + learners + 1, include_dashboard=False,
                         log_to_driver=False, _node_ip_address=LOCAL, runtime_env=threads)
            try:
                r = {"placement": placement, "runners": runners, "learners": learners, "pipeline": pipeline,
                     **measure(cfg, args.steps, args.iterations)}
            finally:
                ray.shutdown()
                if cluster is not None:
                    cluster.shutdown()
            rows.append(r)
            print(f"  {placement:<9} {runners:>7} {learners:>8} {pipeline:>8} {r['sample']:>9,.0f} "
                  f"{r['sample_per_runner']:>10,.0f} {r['train']:>8,.0f} {r['update_s']:>8.2f}", flush=True)
    # what it implies: one iteration = batch / (R x s) + U, so throughput(R) = batch / (batch / (R s) + U)
    base = next((r for r in rows if r["runners"] == 1 and r["learners"] == 0 and not r["pipeline"]), rows[0])
    s, u = base["sample_per_runner"], base["update_s"]
    cap = args.batch / u
    print(f"\nfrom the {base['placement']} 1-runner row: s = {s:,.0f} steps/s per runner, update U = {u:.2f} s "
          f"per {args.batch} steps: the synchronous update caps training at batch / U = {cap:,.0f} steps/s")
    for nodes, cores in ((1, 2), (1, 8), (4, 8), (16, 8)):
        r = nodes * cores - 1  # one core for the learner
        t = args.batch / (args.batch / (r * s) + u)
        tp = args.batch / max(args.batch / (r * s), u)  # pipelined: the longer of sampling and update
        print(f"  {nodes:>2} node(s) x {cores} cores: {r:>3} runners -> synchronous {t:>8,.0f} steps/s "
              f"({t / cap:.0%} of the cap), pipelined {tp:>8,.0f} ({tp / cap:.0%})")
    if args.json:
        Path(args.json).write_text(json.dumps({"batch": args.batch, "envs_per_runner": args.envs_per_runner,
                                               "rows": rows, "cap": round(cap, 1)}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
