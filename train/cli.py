"""``muggins-train`` / ``python -m muggins_env.train``: train a PPO agent from a config.

Examples:
  python -m muggins_env.train --game cribbage_v0 --preset quick --out runs/quick-cribbage_v0
  python -m muggins_env.train --config my.yaml --seed 3 --out runs/mine
  python -m muggins_env.train --resume runs/mine --out runs/mine        (continue a run)
  python -m muggins_env.train --list                                    (the packaged presets)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from muggins_env.extras import MissingExtraError, require_extra


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="muggins-train", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", help="a YAML config file")
    p.add_argument("--game", help="env id, with --preset (packaged configs/<game>/<preset>.yaml)")
    p.add_argument("--preset", default=None, help="preset name (quick, full); default quick")
    p.add_argument("--seed", type=int, default=None, help="overrides the config's seed")
    p.add_argument("--out", default=None, help="run directory (default runs/<preset>-<game>, as make demo)")
    p.add_argument("--resume", default=None, help="checkpoint .zip or run directory to continue")
    p.add_argument("--timesteps", type=int, default=None, help="overrides budget.total_timesteps")
    p.add_argument("--eval-deals", type=int, default=None, help="overrides eval.deals (0: no evaluation)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--list", action="store_true", help="list the packaged presets and exit")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        require_extra("train")
    except MissingExtraError as e:
        print(f"muggins-train: {e}", file=sys.stderr)
        return 1
    from .config import ConfigError, list_presets, load_config  # needs the extra (yaml)

    if args.list:
        print("\n".join(list_presets()))
        return 0
    overrides: dict = {}
    if args.timesteps is not None:
        overrides["budget"] = {"total_timesteps": args.timesteps}
    if args.eval_deals is not None:
        overrides["eval"] = {"deals": args.eval_deals}
    resume = args.resume
    try:
        if args.config is None and args.game is None and resume is not None:
            cfg_path = Path(resume) if Path(resume).is_dir() else Path(resume).parent.parent
            if not (cfg_path / "config.yaml").exists():
                raise ConfigError(f"--resume {resume}: no config.yaml in the run; give --config or --game")
            cfg = load_config(cfg_path / "config.yaml", overrides=overrides)
            args.out = args.out or str(cfg_path)
        elif args.config is not None:
            cfg = load_config(args.config, game=args.game, overrides=overrides)
        elif args.game is not None:
            cfg = load_config(game=args.game, preset=args.preset or "quick", overrides=overrides)
        else:
            _parser().print_usage(sys.stderr)
            print("muggins-train: give --config, or --game (and --preset), or --resume", file=sys.stderr)
            return 2
    except (ConfigError, ValueError) as e:
        print(f"muggins-train: {e}", file=sys.stderr)
        return 2
    out = args.out or f"runs/{args.preset or Path(args.config or 'config').stem}-{cfg['game']}"
    from .trainer import train

    print(f"training {cfg['game']} for {cfg['budget']['total_timesteps']} steps into {out}", flush=True)
    card = train(cfg, out, seed=args.seed, resume=resume, progress_bar=not args.no_progress)
    print(f"model: {out}/model.zip (agent spec ppo:{out}); card: {out}/model_card.json; "
          f"{card['timesteps']} steps in {card['train_seconds']} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
