"""Wall time of the same training on the SB3 and the RLlib backends, side by side in one run (issue 32).

One config (2-player cribbage by default, random opponents, the default network and PPO
settings, ``--envs`` games at once, no checkpoints, no evaluation), ``--steps`` env steps, trained
by ``muggins_env.train.trainer.train`` (SB3) and by ``muggins_env.train.rllib_backend.train``
with each RLlib env runner kind (``multi_agent``, ``single_agent``) and ``--runners`` env runners
(0: sampling in the driver process, as SB3 does), and with ``--pipelined`` runner counts
``rllib.pipeline`` (the runners sample the next batch while the learner trains). RLlib's
``train_batch_size`` is SB3's rollout
(``ppo.n_steps`` x ``--envs``) so both update on batches of the same size. Not a test.

    python benchmarks/bench_backends.py                               # 163,840 steps, 64 games
    python benchmarks/bench_backends.py --steps 614400 --runners 0 1 --json backends.json
    python benchmarks/bench_backends.py --steps 614400 --runners --pipelined 1 --env-runners single_agent
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # Ray on loopback only


def config(game: str, options: dict, steps: int, envs: int, n_steps: int, backend: str, **rllib) -> dict:
    from muggins_env.train.config import from_dict

    return from_dict({"game": game, "backend": backend, "env_options": options,
                      "opponents": {"random": 1.0, "heuristic": 0.0, "self": 0.0},
                      "ppo": {"n_steps": n_steps}, "budget": {"total_timesteps": steps, "n_envs": envs},
                      "checkpoint_every": 0, "eval": {"deals": 0},
                      "rllib": {"envs_per_runner": envs, "train_batch_size": n_steps * envs, **rllib}})


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", default="cribbage_v0")
    p.add_argument("--options", default='{"num_players": 2}', help="env options as JSON")
    p.add_argument("--steps", type=int, default=163840)
    p.add_argument("--envs", type=int, default=64)
    p.add_argument("--n-steps", type=int, default=64, help="SB3's ppo.n_steps (the rollout is n_steps x envs)")
    p.add_argument("--runners", type=int, nargs="*", default=[0, 1])
    p.add_argument("--pipelined", type=int, nargs="*", default=[], help="env runner counts to run pipelined")
    p.add_argument("--env-runners", nargs="+", default=["multi_agent", "single_agent"],
                   choices=["multi_agent", "single_agent"])
    p.add_argument("--json", default=None)
    args = p.parse_args(argv)
    opts = json.loads(args.options)
    rows: dict[str, dict] = {}

    def row(name: str, card: dict, seconds: float) -> None:
        rows[name] = {"seconds": round(seconds, 1), "timesteps": card["timesteps"],
                      "steps_per_second": round(card["timesteps"] / seconds, 1)}
        ratio = f"{seconds / rows['sb3']['seconds']:.2f}x sb3" if "sb3" in rows and name != "sb3" else ""
        print(f"  {name:<28} {seconds:>7.1f} s  {card['timesteps']:>8,} steps  "
              f"{card['timesteps'] / seconds:>8,.0f} steps/s  {ratio}", flush=True)

    print(f"{args.game} {opts}: {args.steps:,} env steps, {args.envs} games, random opponents; "
          f"{os.cpu_count()} cores", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        from muggins_env.train.trainer import train as sb3_train

        cfg = config(args.game, opts, args.steps, args.envs, args.n_steps, "sb3")
        t0 = time.perf_counter()
        card = sb3_train(cfg, Path(tmp) / "sb3", progress_bar=False, evaluate_at_end=False, log=lambda *a: None)
        row("sb3", card, time.perf_counter() - t0)
        from muggins_env.train.rllib_backend import train as rllib_train

        for kind in args.env_runners:
            for k, piped in [(k, False) for k in args.runners] + [(k, True) for k in args.pipelined]:
                cfg = config(args.game, opts, args.steps, args.envs, args.n_steps, "rllib", env_runner=kind,
                             num_env_runners=k, pipeline=piped)
                name = f"rllib {kind} x{k} runners" + (" pipelined" if piped else "")
                t0 = time.perf_counter()  # Ray's start and stop included, as a user waits for them
                card = rllib_train(cfg, Path(tmp) / name.replace(" ", "-"), evaluate_at_end=False,
                                   log=lambda *a: None)
                row(name, card, time.perf_counter() - t0)
    if args.json:
        Path(args.json).write_text(json.dumps({"game": args.game, "options": opts, "steps": args.steps,
                                               "envs": args.envs, "rows": rows}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
