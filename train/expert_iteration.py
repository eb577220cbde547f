"""Expert iteration (ExIt; AlphaZero's loop with a sampled search): the network learns from a
search that the network itself guides, round after round (config ``expert_iteration``).

Round 0 is the preset as it stands: the action scorer cloned from the heuristic, then fitted to
``decisions`` labels of plain ``search:N``. Each later round k is a run of its own (the same
heuristic warm start) whose teacher is ``search:N`` guided by the model of round k-1 (``guide``: ``rollout`` plays the rollouts with
the network, ``prior`` lets its ranking pick the candidates and the move kept without evidence,
``both``, or ``none``: the plain search again), and which fits a fresh scorer to every label so
far (the previous round's label file, which holds them all, through ``pretrain.labels_from``;
labels of other teachers allowed) plus ``decisions`` new ones. So the labels grow and each teacher is stronger than the
last where the network is stronger than the heuristic it replaces in the search.

Every round is evaluated the same pre-registered way: ``eval_deals`` duplicate deals, every
seat, from the fixed seed ``eval_seed`` (the same deals each round), against the heuristic and
against that round's teacher. The learning curve is ``<out>/exit.json`` (one row a round) and a
table; each round's folder ``<out>/round_<k>`` is a complete run (``ppo:<out>/round_<k>``). A
stopped run resumes with ``--resume <out>``: finished rounds are kept, the next one starts.
"""

from __future__ import annotations

import copy
import json
import time
from pathlib import Path
from typing import Any

from muggins_env.train.pretrain import LABELS_FILE

EXIT_FILE = "exit.json"
GUIDES = {"rollout": ",rollout=policy", "prior": ",rollout=heuristic,prior=policy",
          "both": ",rollout=policy,prior=policy", "none": None}


def teacher_spec(cfg: dict, previous: Path | None) -> str:
    """The search that labels a round: plain for round 0 (or ``guide: none``), else guided by the
    model of the previous round."""
    ex = cfg["expert_iteration"]
    plain = f"search:{ex['search']}"
    guide = GUIDES[ex["guide"]]
    if previous is None or guide is None:
        return plain
    return f"{plain},policy=ppo:{previous}{guide}"


def round_config(cfg: dict, k: int, out: Path) -> dict:
    """The run config of round ``k``: its teacher and the labels of the rounds before it. Every
    round keeps the preset's cheap warm start (``first_teacher``, the heuristic's decisions) before
    the search labels: without it a round's fresh scorer would learn the whole game from a few
    thousand search labels, where round 0 learnt it from tens of thousands of the heuristic's."""
    rc = copy.deepcopy(cfg)
    previous = out / f"round_{k - 1}" if k else None
    pre = rc["pretrain"]
    pre["teacher"] = teacher_spec(cfg, previous)
    pre["decisions"] = cfg["expert_iteration"]["decisions"]
    pre["save_labels"] = True
    pre["same_teacher"] = False
    # the previous round's file holds every label fitted so far (save_labels keeps the reused ones)
    pre["labels_from"] = [str(previous / LABELS_FILE)] if previous is not None else []
    rc["expert_iteration"] = {**cfg["expert_iteration"], "rounds": 0}  # a round is a plain run
    rc["eval"] = {**rc["eval"], "deals": 0}  # the round's evaluation is the pre-registered one below
    return rc


def evaluate_round(cfg: dict, model: Path, teacher: str, workers: int = 2) -> dict:
    """The pre-registered evaluation of one round's model: vs the heuristic and vs its teacher."""
    from muggins_env.eval import evaluate_agent

    ex = cfg["expert_iteration"]
    opts = {**cfg["env_options"], **cfg["eval"]["env_options"]}
    rows = evaluate_agent(f"ppo:{model}", cfg["game"], opts, ["heuristic", teacher], ex["eval_deals"],
                          seed=ex["eval_seed"], workers=workers)
    out = {}
    for name, row in zip(("vs_heuristic", "vs_teacher"), rows):
        out[name] = {"win_rate": round(row["win_rate"], 4), "win_rate_ci95": [round(x, 4) for x in row["win_rate_ci95"]],
                     "mean_return": round(row["mean_return"], 4),
                     "mean_return_ci95": [round(x, 4) for x in row["mean_return_ci95"]],
                     "parity": row["win_rate_parity"], "deals": row["deals"], "seconds": row["seconds"]}
    return out


def format_curve(rows: list[dict]) -> str:
    lines = ["round  labels  train s  vs heuristic: win rate [95% CI]   vs its teacher: win rate [95% CI]  teacher"]
    for r in rows:
        h, t = r["vs_heuristic"], r["vs_teacher"]
        lines.append(f"{r['round']:>5}  {r['labels']:>6}  {r['train_seconds']:>7.0f}  "
                     f"{h['win_rate']:.3f} [{h['win_rate_ci95'][0]:.3f}, {h['win_rate_ci95'][1]:.3f}]"
                     f"{'':>14}{t['win_rate']:.3f} [{t['win_rate_ci95'][0]:.3f}, {t['win_rate_ci95'][1]:.3f}]  "
                     f"{r['teacher']}")
    return "\n".join(lines)


def run(cfg: dict, out: str | Path, seed: int | None = None, resume: bool = False, log: Any = print,
        workers: int = 2) -> list[dict]:
    """All rounds of ``cfg["expert_iteration"]`` into ``out``; returns the learning curve."""
    from muggins_env.train.trainer import train

    out = Path(out)
    ex = cfg["expert_iteration"]
    seed = cfg["seed"] if seed is None else seed
    curve_path = out / EXIT_FILE
    rows: list[dict] = json.loads(curve_path.read_text())["rounds"] if resume and curve_path.exists() else []
    out.mkdir(parents=True, exist_ok=True)
    for k in range(ex["rounds"]):
        if k < len(rows):
            log(f"round {k}: kept ({out / f'round_{k}'})")
            continue
        folder = out / f"round_{k}"
        rc = round_config({**cfg, "seed": seed}, k, out)
        log(f"round {k}: teacher {rc['pretrain']['teacher']}, {rc['pretrain']['decisions']} new decisions "
            f"+ {k} earlier round(s) of labels")
        t0 = time.perf_counter()
        card = train(rc, folder, seed=seed + 101 * k, progress_bar=False, log=log, overwrite=True)
        seconds = time.perf_counter() - t0
        result = evaluate_round(cfg, folder, rc["pretrain"]["teacher"], workers=workers)
        pre = card["pretrain"]
        rows.append({"round": k, "teacher": rc["pretrain"]["teacher"], "labels": pre["decisions"],
                     "new_labels": pre["decisions"] - pre["reused"],
                     "train_seconds": round(seconds, 1), "model": f"ppo:{folder}", **result})
        curve_path.write_text(json.dumps({"game": cfg["game"], "env_options": cfg["env_options"],
                                          "expert_iteration": ex, "seed": seed, "rounds": rows}, indent=1) + "\n")
        log(format_curve(rows))
    return rows
