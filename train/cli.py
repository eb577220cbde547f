"""``muggins-train`` / ``python -m muggins_env.train``: train a PPO agent from a config.

Examples:
  python -m muggins_env.train --game cribbage_v0 --preset quick --out runs/quick-cribbage_v0
  python -m muggins_env.train --config my.yaml --seed 3 --out runs/mine
  python -m muggins_env.train --resume runs/mine                        (continue an unfinished run)
  python -m muggins_env.train --resume runs/mine --timesteps 500000     (a finished run: from its final model)
  python -m muggins_env.train --game michigan_v0 --out runs/mine --overwrite   (clear the old run first)
  python -m muggins_env.train --list                                    (the packaged presets)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from muggins_env.extras import missing_error, missing_line, report_missing


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="muggins-train", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", help="a YAML config file")
    p.add_argument("--game", help="env id, with --preset (packaged configs/<game>/<preset>.yaml)")
    p.add_argument("--preset", default=None, help="preset name (quick, full); default quick")
    p.add_argument("--seed", type=int, default=None, help="overrides the config's seed")
    p.add_argument("--out", default=None, help="run directory (default runs/<preset>-<game>, as make demo)")
    p.add_argument("--resume", default=None, help="run directory (a finished run: from its final model, with a "
                   "larger --timesteps; else from its latest checkpoint) or checkpoint to continue")
    p.add_argument("--overwrite", action="store_true", help="train into a non-empty --out: clear the old run "
                   "there first (without it, a non-empty --out is refused)")
    p.add_argument("--timesteps", type=int, default=None, help="overrides budget.total_timesteps")
    p.add_argument("--eval-deals", type=int, default=None, help="overrides eval.deals (0: no evaluation)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--list", action="store_true", help="list the packaged presets and exit")
    # the rllib backend (train/rllib_backend.py, the [rllib] extra): one machine or a Ray cluster
    p.add_argument("--backend", choices=("sb3", "rllib"), default=None,
                   help="sb3 (default) or rllib; with rllib, --preset NAME is configs/<game>/rllib_NAME.yaml "
                   "where it exists (else NAME.yaml on RLlib)")
    p.add_argument("--address", default=None, help="rllib: Ray cluster to join (auto or host:port; default "
                   "RAY_ADDRESS, else a local Ray)")
    p.add_argument("--num-env-runners", type=int, default=None, help="rllib: overrides rllib.num_env_runners; with 1 or more, training is pipelined (runners sample the next batch while the learner updates) unless rllib.pipeline is false; 0 samples in the driver, synchronous")
    p.add_argument("--envs-per-runner", type=int, default=None, help="rllib: overrides rllib.envs_per_runner")
    p.add_argument("--num-learners", type=int, default=None, help="rllib: overrides rllib.num_learners")
    p.add_argument("--env-runner", choices=("multi_agent", "single_agent"), default=None,
                   help="rllib: overrides rllib.env_runner (RLlib's multi-agent or single-agent env runner)")
    return p


def preset_summary(name: str, limit: int = 120) -> str:
    """The first sentence of the comment that opens preset ``name`` (``<game>/<preset>``), cut to
    ``limit`` characters at a word."""
    from importlib import resources

    game, _, preset = name.partition("/")
    words: list[str] = []
    for line in resources.files("muggins_env.configs").joinpath(game, f"{preset}.yaml").read_text().splitlines():
        if not line.startswith("#"):
            break
        words += line.lstrip("#").split()
    text = " ".join(words)
    if ". " in text:
        text = text[:text.index(". ") + 1]
    if len(text) > limit:
        text = text[:limit].rsplit(" ", 1)[0] + " ..."
    return text


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if report_missing("muggins-train", "train"):
        return 1
    from muggins_env.train.config import ConfigError, list_presets, load_config  # needs the extra (yaml)

    if args.list:
        names = list_presets()
        width = max(map(len, names), default=0)
        for name in names:
            print(f"{name:<{width}}  {preset_summary(name)}".rstrip())
        return 0
    overrides: dict = {}
    if args.timesteps is not None:
        overrides["budget"] = {"total_timesteps": args.timesteps}
    if args.eval_deals is not None:
        overrides["eval"] = {"deals": args.eval_deals}
    rllib = {k: v for k, v in (("num_env_runners", args.num_env_runners), ("envs_per_runner", args.envs_per_runner),
                               ("num_learners", args.num_learners), ("env_runner", args.env_runner)) if v is not None}
    if args.num_env_runners == 0:
        rllib["pipeline"] = False  # sampling in the driver: nothing to overlap with the update
    if rllib:
        overrides["rllib"] = rllib
    if args.backend is not None:
        overrides["backend"] = args.backend
    preset = args.preset
    if args.backend == "rllib" and args.game is not None and f"rllib_{preset or 'quick'}" in list_presets(args.game):
        preset = f"rllib_{preset or 'quick'}"  # the RLlib variant of the preset, where there is one
    resume = args.resume
    try:
        if args.config is None and args.game is None and resume is not None:
            step_dir = Path(resume).name.startswith("step_")  # a checkpoint (an RLlib one is a directory)
            cfg_path = Path(resume) if Path(resume).is_dir() and not step_dir else Path(resume).parent.parent
            if not (cfg_path / "config.yaml").exists():
                raise ConfigError(f"--resume {resume}: no config.yaml in the run; give --config or --game")
            cfg = load_config(cfg_path / "config.yaml", overrides=overrides)
            args.out = args.out or str(cfg_path)
        elif args.config is not None:
            cfg = load_config(args.config, game=args.game, overrides=overrides)
        elif args.game is not None:
            cfg = load_config(game=args.game, preset=preset or "quick", overrides=overrides)
        else:
            _parser().print_usage(sys.stderr)
            print("muggins-train: give --config, or --game (and --preset), or --resume", file=sys.stderr)
            return 2
    except (ConfigError, ValueError) as e:
        print(f"muggins-train: {e}", file=sys.stderr)
        return 2
    out = args.out or f"runs/{preset or Path(args.config or 'config').stem}-{cfg['game']}"
    if cfg["backend"] != "rllib" and (args.address or rllib):
        print("muggins-train: --address, --num-env-runners, --envs-per-runner, --num-learners and --env-runner need "
              "--backend rllib", file=sys.stderr)
        return 2
    if cfg["expert_iteration"]["rounds"]:
        return _train_exit(cfg, out, args)
    if cfg["backend"] == "rllib" and report_missing("muggins-train", "rllib", "--backend rllib"):
        return 1
    from muggins_env.train.trainer import RunDirError, prepare_out

    try:
        prepare_out(out, resume, cfg["budget"]["total_timesteps"], args.overwrite)
    except (RunDirError, FileNotFoundError) as e:
        print(f"muggins-train: {e}", file=sys.stderr)
        return 2
    if cfg["backend"] == "rllib":
        return _train_rllib(cfg, out, args)
    from muggins_env.train.trainer import train

    print(f"training {cfg['game']} for {cfg['budget']['total_timesteps']} steps into {out}", flush=True)
    card = train(cfg, out, seed=args.seed, resume=resume, progress_bar=not args.no_progress,
                 overwrite=args.overwrite)
    print(f"model: {out}/model.zip (agent spec ppo:{out}); card: {out}/model_card.json; "
          f"{card['timesteps']} steps in {card['train_seconds']} s")
    return 0


def _train_exit(cfg: dict, out: str, args: argparse.Namespace) -> int:
    """Expert iteration (``expert_iteration.rounds`` > 0): its rounds into ``out``; ``--resume out``
    keeps the finished rounds and goes on."""
    import shutil

    from muggins_env.train.config import dump
    from muggins_env.train.expert_iteration import EXIT_FILE, run

    outp = Path(out)
    resuming = args.resume is not None
    if resuming and Path(args.resume).resolve() != outp.resolve():
        print(f"muggins-train: an expert iteration run resumes in its own folder: --resume {args.resume} "
              f"and --out {out} differ", file=sys.stderr)
        return 2
    if resuming and not (outp / EXIT_FILE).exists() and not (outp / "round_0").exists():
        print(f"muggins-train: --resume {out}: no expert iteration run there (no {EXIT_FILE})", file=sys.stderr)
        return 2
    if not resuming and outp.is_dir() and any(outp.iterdir()):
        if not args.overwrite:
            print(f"muggins-train: --out {out} is not empty: give --overwrite to clear the old run there first, "
                  f"--resume {out} to continue an expert iteration run, or another --out", file=sys.stderr)
            return 2
        for p in outp.iterdir():
            if p.name.startswith("round_") and p.is_dir():
                shutil.rmtree(p)
            elif p.name in (EXIT_FILE, "config.yaml"):
                p.unlink()
    if args.seed is not None:
        cfg = {**cfg, "seed": args.seed}
    outp.mkdir(parents=True, exist_ok=True)
    (outp / "config.yaml").write_text(dump(cfg))
    ex = cfg["expert_iteration"]
    print(f"expert iteration on {cfg['game']}: {ex['rounds']} rounds of search:{ex['search']} labels "
          f"({ex['decisions']} a round, guide {ex['guide']}) into {out}", flush=True)
    rows = run(cfg, outp, resume=resuming)
    last = rows[-1]
    print(f"learning curve: {outp / EXIT_FILE}; the last round's network: {last['model']} "
          f"(vs heuristic {last['vs_heuristic']['win_rate']:.3f})")
    return 0


def _train_rllib(cfg: dict, out: str, args: argparse.Namespace) -> int:
    import contextlib

    with contextlib.ExitStack() as session:
        try:
            from muggins_env.train.ray_start import PRELOAD, ray_session

            # Ray starts while RLlib and the backend import (ray_start)
            session.enter_context(ray_session(args.address, cfg, (*PRELOAD, f"{__package__}.rllib_backend")))
            from muggins_env.train.rllib_backend import train
        except ImportError as e:  # ray there but broken (a part of it missing)
            print(missing_line("muggins-train", missing_error("rllib", "--backend rllib", str(e))), file=sys.stderr)
            return 1
        rl = cfg["rllib"]
        print(f"training {cfg['game']} on Ray RLlib for {cfg['budget']['total_timesteps']} steps into {out} "
              f"({rl['num_env_runners']} env runners x {rl['envs_per_runner']} envs, {rl['num_learners']} learners)",
              flush=True)
        card = train(cfg, out, seed=args.seed, resume=args.resume, address=args.address)
    print(f"policy: {out}/model.npz (agent spec rllib:{out}); card: {out}/model_card.json; "
          f"{card['timesteps']} steps in {card['train_seconds']} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
