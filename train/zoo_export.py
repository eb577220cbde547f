"""Put a trained run into the package's model zoo (``agents/zoo/<env_id>/<name>/``).

  python -m muggins_env.train.zoo_export RUN NAME [--eval DIR] [--preset P]

copies the run's ``model.npz`` (the numpy actor: no torch to play it) and writes its
``model_card.json``: the game options it plays, the preset and config, steps, training time,
the imitation statistics and the evaluation. ``--eval`` is a ``muggins-eval --out`` folder
(the duplicate-deal evaluation against the heuristic, seeds fixed before the run); without it
the run's own ``eval.json`` is recorded. NAME is ``default`` for ``zoo:<env_id>``.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path
from typing import Any

import muggins_env.agents.zoo
from muggins_env.agents import make_game

ZOO = Path(muggins_env.agents.zoo.__file__).resolve().parent


def _evaluation(eval_dir: Path) -> dict[str, Any]:
    s = json.loads((eval_dir / "results.json").read_text())["summary"]
    agents = [{k: a[k] for k in ("agent", "spec", "samples", "win_rate", "win_rate_ci95", "win_rate_dup_ci95",
                                 "parity", "beats_parity_dup", "below_parity_dup", "mean_return",
                                 "mean_return_ci95")} for a in s["agents"]]
    return {"harness": "muggins-eval", "game": s["game"], "options": s["options"], "deals": s["deals"],
            "seed": s["seed"], "games": s["games"], "seconds": s["seconds"], "lineup": s["lineup"],
            "agents": agents}


def summary_line(card: dict) -> str:
    ev = card.get("evaluation") or {}
    for a in ev.get("agents", []):
        if a["spec"].startswith(("zoo:", "ppo:")):
            lo, hi = a["win_rate_dup_ci95"]
            verdict = "beats" if a["beats_parity_dup"] else "below" if a["below_parity_dup"] else "ties"
            return (f"{card['game_options_text']}: win rate {a['win_rate']:.3f} [{lo:.3f}, {hi:.3f}] vs "
                    f"heuristic over {ev['deals']} duplicate deals ({verdict} parity {a['parity']:.2f})")
    return card["game_options_text"]


def export(run: str | Path, name: str, eval_dir: str | Path | None = None, preset: str | None = None,
           zoo: Path = ZOO, train_args: str = "") -> Path:
    run = Path(run)
    src = json.loads((run / "model_card.json").read_text())
    game_id = src["game"]
    options = src["env_options"]
    game = make_game(game_id, options)
    dest = zoo / game_id / name
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(run / "model.npz", dest / "model.npz")
    opts = dict(game.options)
    cfg = src["config"]
    evaluate = ""
    if eval_dir:
        ev = _evaluation(Path(eval_dir))
        opts_text = "".join(f" --opt {k}={v}" for k, v in (ev["options"] or {}).items())
        lineup = f" --lineup {ev['lineup']}" if ev["lineup"] != "cycle" else ""  # cycle: muggins-eval's default
        evaluate = (f" && muggins-eval --game {game_id}{opts_text} --agents ppo:{run} heuristic{lineup} --deals "
                    f"{ev['deals']} --seed {ev['seed']} --out {eval_dir}")
    card: dict[str, Any] = {
        "game": game_id, "game_options": opts,
        "game_options_text": ", ".join(f"{k}={v}" for k, v in opts.items() if k != "reward"),
        "spec": f"zoo:{game_id}" if name == "default" else f"zoo:{game_id}/{name}",
        "policy": cfg["ppo"].get("policy", "mlp"), "features": cfg["features"], "preset": preset,
        "timesteps": src["timesteps"], "train_seconds": src["train_seconds"], "pretrain": src.get("pretrain"),
        "seed": src["seed"], "config": cfg, "machine": src.get("machine"),
        "regenerate": (f"python -m muggins_env.train --game {game_id} --preset {preset} --seed {src['seed']} "
                       f"--out {run}{' ' + train_args if train_args else ''}{evaluate} && python -m "
                       f"muggins_env.train.zoo_export {run} {name} --preset {preset}"
                       + (f" --train-args {train_args!r}" if train_args else "")
                       + (f" --eval {eval_dir}" if eval_dir else "")) if preset else None,
        "evaluation": _evaluation(Path(eval_dir)) if eval_dir else {"train_eval": src.get("evaluation")},
    }
    card["summary"] = summary_line(card)
    (dest / "model_card.json").write_text(json.dumps(card, indent=1, default=str) + "\n")
    return dest


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m muggins_env.train.zoo_export", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("run", help="a training run directory (model.npz, model_card.json)")
    p.add_argument("name", help="the model's name in the zoo (default: the spec zoo:<env_id>)")
    p.add_argument("--eval", help="a muggins-eval --out folder evaluating the model against the heuristic")
    p.add_argument("--preset", help="the preset the run was trained with (recorded for regeneration)")
    p.add_argument("--train-args", default="", help="further muggins-train arguments of the run (e.g. "
                   "'--timesteps 750000'), recorded for regeneration")
    args = p.parse_args(argv)
    print(f"wrote {export(args.run, args.name, args.eval, args.preset, train_args=args.train_args)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
