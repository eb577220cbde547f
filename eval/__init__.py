"""Evaluation harness: duplicate-deal tournaments, interval statistics, ratings, reports, CLI.

- ``run_tournament(game_id, options, agents, deals, seed=0, workers=None, lineup="cycle")``
  (``tournament.py``) and ``summarise(result)`` / ``save_results`` / ``print_table``
  (``report.py``); ``wilson_interval`` and ``bootstrap_ci`` (``stats.py``).
- ``evaluate_agent(agent, game_id, options, opponents, deals, seed)``: one agent (object or
  spec) against each opponent spec, alone against a field of it (``lineup="single"``, every
  seat), rows as ``train.evaluate`` reports them.
- CLI: ``python -m muggins_env.eval`` (``cli.main``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from muggins_env.eval.report import format_table, print_table, save_results, summarise
from muggins_env.eval.stats import bootstrap_ci, wilson_interval
from muggins_env.eval.tournament import TournamentResult, play_game, run_tournament, schedule

__all__ = [
    "TournamentResult",
    "bootstrap_ci",
    "evaluate_agent",
    "format_table",
    "play_game",
    "print_table",
    "run_tournament",
    "save_results",
    "schedule",
    "summarise",
    "wilson_interval",
]


def evaluate_agent(agent: Any, game_id: str, options: dict | None, opponents: Sequence[str], deals: int,
                   seed: int = 12345, workers: int | None = 1, progress: bool = False) -> list[dict]:
    """``agent`` alone against a field of each opponent spec, every seat, duplicate deals."""
    rows = []
    for spec in opponents:
        result = run_tournament(game_id, options, [agent, spec], deals, seed=seed, workers=workers,
                                lineup="single", progress=progress)
        s = summarise(result)
        a = s["agents"][0]
        rows.append({"opponent": spec, "deals": deals, "games": len(result.records),
                     "mean_return": a["mean_return"], "mean_return_ci95": a["mean_return_ci95"],
                     "win_rate": a["win_rate"], "win_rate_ci95": a["win_rate_ci95"],
                     "win_rate_parity": a["parity"], "beats": bool(a["mean_return_ci95"][0] > 0),
                     "seconds": s["seconds"]})
    return rows
