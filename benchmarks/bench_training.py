"""PPO training throughput (issue 8): learner environment steps per second of
``MaskablePPO.learn`` (rollouts + updates), the plain one-env ``DummyVecEnv`` over a
``SeatEnv`` side by side with the in-process ``BatchedSeatVecEnv`` (many games stepped in one
process, one policy forward pass for all of them), in the same run.

  python benchmarks/bench_training.py --game cribbage_v0 --options '{"muggins": false}'
  python benchmarks/bench_training.py --game cribbage_v0 --n-envs 32 64 128 --n-steps 64 --batch-size 2048
  python benchmarks/bench_training.py --options '{"muggins": false}' --policy action_scorer --no-dummy

The defaults are the best setup found on the 2-core machine (cribbage 2p, muggins off):
128 games, n_steps 64, batch 4096, 2 epochs, net [128, 128], ONE torch thread (two threads
spin against the env stepping on 2 cores: 20x slower). Measured (other jobs sharing the
cores, so +-30% between runs): DummyVecEnv x1 ~490-890 steps/s; batched x64 (batch 2048,
4 epochs) ~3,900-4,900; batched x64 / x128 (batch 4096, 2 epochs) 5,672 / 6,064.

Rows: "env" = stepping the vec env with uniformly random legal actions (what rollouts cost
without the network); "ppo" = ``MaskablePPO.learn`` for ``--steps`` learner steps after a
short warm-up (``--n-steps`` per env per rollout, ``--batch-size``, ``--n-epochs``, net
``--net``, ``--threads`` torch threads). The one-env row uses SB3's default rollout
(n_steps 2048, batch 64 -> the same ``--batch-size`` here so that only the vec env differs).
Opponents: uniformly random (the pool's ``random``). Not a timed test. ``--clock cpu`` times
with this process's CPU time instead of the wall clock (with one torch thread the process does
all the work itself, so other jobs on a shared machine barely move the figure):

    python benchmarks/bench_training.py --options '{"muggins": false}' --clock cpu
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}
clock = time.perf_counter  # set by --clock


def env_rate(venv, steps: int, seed: int = 0) -> float:
    rng = np.random.default_rng(seed)
    venv.reset()
    n = venv.num_envs
    t0 = clock()
    done = 0
    while done < steps:
        masks = venv.action_masks() if hasattr(venv, "action_masks") else np.stack(venv.env_method("action_masks"))
        acts = (rng.random(masks.shape) * masks).argmax(1)  # uniform over the legal actions
        venv.step(acts)
        done += n
    return done / (clock() - t0)


def ppo_rate(venv, steps: int, n_steps: int, batch_size: int, n_epochs: int, net: list[int],
             threads: int, policy: str = "mlp", game: tuple | None = None,
             action_hidden: int = 8) -> tuple[float, float]:
    """(steps/s of learn, share of the time spent in rollouts)."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    torch.set_num_threads(threads)
    torch.distributions.Distribution.set_default_validate_args(False)  # as the trainer does

    class Timer(BaseCallback):
        def __init__(self):
            super().__init__()
            self.rollout = 0.0
            self.t = 0.0

        def _on_rollout_start(self):
            self.t = clock()

        def _on_rollout_end(self):
            self.rollout += clock() - self.t

        def _on_step(self):
            return True

    batch = min(batch_size, n_steps * venv.num_envs)
    cls, kwargs = "MlpPolicy", {}
    if policy == "action_scorer":  # the per-action scorer (train/scorer_policy.py) on the plain observation
        from muggins_env.agents import make_game
        from muggins_env.agents.features import action_features
        from muggins_env.train.scorer_policy import ActionScorerPolicy

        af = action_features(game[0], make_game(game[0], game[1]), "none")
        cls, kwargs = ActionScorerPolicy, {"action_index": af.index, "action_static": af.static,
                                           "action_hidden": action_hidden}
    model = MaskablePPO(cls, venv, n_steps=n_steps, batch_size=batch, n_epochs=n_epochs,
                        policy_kwargs={"net_arch": list(net), **kwargs}, device="cpu", verbose=0)
    model.learn(min(n_steps * venv.num_envs, 4096))  # warm-up: a rollout and an update
    timer = Timer()
    t0 = clock()
    model.learn(steps, callback=timer, reset_num_timesteps=True)
    dt = clock() - t0
    return model.num_timesteps / dt, timer.rollout / dt


def main(argv=None) -> int:
    from stable_baselines3.common.vec_env import DummyVecEnv

    from muggins_env.wrappers import BatchedSeatVecEnv, SeatEnv

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", default="cribbage_v0")
    p.add_argument("--options", default="{}", help="env options as JSON")
    p.add_argument("--steps", type=int, default=50000, help="learner steps per batched ppo row")
    p.add_argument("--dummy-steps", type=int, default=8192, help="learner steps of the one-env ppo row")
    p.add_argument("--n-envs", type=int, nargs="+", default=[128], help="batched sizes to try")
    p.add_argument("--n-steps", type=int, default=64, help="rollout steps per env (batched rows)")
    p.add_argument("--batch-size", type=int, default=4096)
    p.add_argument("--n-epochs", type=int, default=2)
    p.add_argument("--net", type=int, nargs="+", default=[128, 128])
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--policy", choices=("mlp", "action_scorer"), default="mlp",
                   help="the policy network (config ppo.policy)")
    p.add_argument("--action-hidden", type=int, default=8, help="action_scorer: width of the pair network")
    p.add_argument("--no-dummy", action="store_true", help="skip the one-env DummyVecEnv rows")
    p.add_argument("--no-ppo", action="store_true", help="only the env stepping rows")
    p.add_argument("--clock", choices=tuple(CLOCKS), default="wall",
                   help="wall: wall clock; cpu: this process's CPU time (steady on a shared machine)")
    args = p.parse_args(argv)
    global clock
    clock = CLOCKS[args.clock]
    opts = json.loads(args.options)

    def make(i):
        return lambda: SeatEnv(args.game, opts, seed=i, opponents="random")

    setups = [] if args.no_dummy else [("DummyVecEnv x1", lambda: DummyVecEnv([make(0)]), 2048)]
    steps_of = {"DummyVecEnv x1": args.dummy_steps}
    for n in args.n_envs:
        setups.append((f"BatchedSeatVecEnv x{n}",
                       lambda n=n: BatchedSeatVecEnv([make(i)() for i in range(n)]), args.n_steps))
    print(f"{args.game} {opts}: learner steps/s (random opponents, skip_forced); ppo: batch "
          f"{args.batch_size}, {args.n_epochs} epochs, net {args.net}, {args.threads} torch threads, "
          f"policy {args.policy}; {args.clock} clock", flush=True)
    for name, build, n_steps in setups:
        steps = steps_of.get(name, args.steps)
        print(f"  {name:<24} env  {env_rate(build(), min(steps, 20000)):>10,.0f}", flush=True)
        if not args.no_ppo:
            rate, share = ppo_rate(build(), steps, n_steps, args.batch_size, args.n_epochs, args.net,
                                   args.threads, args.policy, (args.game, opts), args.action_hidden)
            print(f"  {name:<24} ppo  {rate:>10,.0f}   (n_steps {n_steps}; {share:.0%} of the time in rollouts)",
                  flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
