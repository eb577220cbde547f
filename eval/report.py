"""Results of a tournament: per-agent statistics, head-to-head matrix, ratings, files, table.

Per agent, one sample per game and side it played (``samples``; partners share one result, so
a team of two is one sample a game, not two; ``seat_games`` counts the seats):
- ``win_rate``: mean win share of its samples (the side with the top return wins; tied sides
  share), with the 95% Wilson interval over ``samples``; ``parity`` = 1 / number of sides
  (the win rate of a seat when every player is equally strong);
- ``mean_return`` and ``mean_score`` (the game's own final score, see
  ``tournament.final_scores``) with 95% bootstrap intervals that resample whole deals (the
  seatings of one deal are correlated by design);
- ``beats_parity``: the Wilson interval lies above parity;
- ``win_rate_dup_ci95`` (and ``beats_parity_dup``): the 95% bootstrap interval of the win
  rate resampling whole deals. Wilson treats every game as independent, which is
  conservative in the duplicate format (the seatings of one deal are negatively correlated:
  the luck of the cards cancels), so this interval is the tighter honest one; both are reported.
Head-to-head: ``h2h[a][b]`` = the share of (seat of a, seat of b) pairs on opposite sides
in which a's return beat b's (ties half). Ratings: OpenSkill Plackett-Luce over every game
in (deal, seating) order, seats ranked by return; an agent holding several seats gets the
mean of their updates.
"""

from __future__ import annotations

import csv
import json
import math
import re
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
from muggins_env.eval.stats import bootstrap_ci, wilson_interval
from muggins_env.eval.tournament import TournamentResult


def summarise(result: TournamentResult, n_boot: int = 2000) -> dict[str, Any]:
    k = len(result.agents)
    sides = result.sides
    num_sides = len(set(sides))
    parity = 1.0 / num_sides
    per: list[dict[str, list]] = [{"win": [], "ret": [], "score": [], "deal": []} for _ in range(k)]
    seats_of = [0] * k
    h2h_num = np.zeros((k, k))
    h2h_den = np.zeros((k, k))
    for r in result.records:
        groups: dict[tuple[int, int], list[int]] = {}  # (agent, side) -> its seats on that side
        for seat, a in enumerate(r.seating):
            groups.setdefault((a, sides[seat]), []).append(seat)
            seats_of[a] += 1
        for (a, _), seats in groups.items():  # plain sums: a 400,000-game summary stays quick
            k_s = len(seats)
            per[a]["win"].append(sum(r.win_share[s] for s in seats) / k_s)
            per[a]["ret"].append(sum(r.returns[s] for s in seats) / k_s)
            per[a]["score"].append(sum(r.scores[s] for s in seats) / k_s)
            per[a]["deal"].append(r.deal)
        for s, a in enumerate(r.seating):
            for t, b in enumerate(r.seating):
                if a != b and sides[s] != sides[t]:
                    h2h_den[a, b] += 1
                    h2h_num[a, b] += 1.0 if r.returns[s] > r.returns[t] + 1e-12 else (
                        0.5 if abs(r.returns[s] - r.returns[t]) <= 1e-12 else 0.0)
    ratings = openskill_ratings(result)
    agents = []
    for i, label in enumerate(result.agents):
        d = per[i]
        n = len(d["win"])
        wins = float(np.sum(d["win"]))
        lo, hi = wilson_interval(wins, n)
        dup = bootstrap_ci(d["win"], d["deal"], n_boot, seed=3)
        mret = float(np.mean(d["ret"])) if n else math.nan
        msc = float(np.mean(d["score"])) if n else math.nan
        agents.append({
            "agent": label, "spec": result.specs[i], "seat_games": seats_of[i], "samples": n, "wins": wins,
            "win_rate": wins / n if n else math.nan, "win_rate_ci95": [lo, hi], "parity": parity,
            "beats_parity": bool(lo > parity), "below_parity": bool(hi < parity),
            "win_rate_dup_ci95": list(dup),
            "beats_parity_dup": bool(dup[0] > parity), "below_parity_dup": bool(dup[1] < parity),
            "mean_return": mret, "mean_return_ci95": list(bootstrap_ci(d["ret"], d["deal"], n_boot, seed=1)),
            "mean_score": msc, "mean_score_ci95": list(bootstrap_ci(d["score"], d["deal"], n_boot, seed=2)),
            "rating_mu": ratings[i][0], "rating_sigma": ratings[i][1],
            "rating_ordinal": ratings[i][0] - 3 * ratings[i][1],
        })
    for i, model in agent_model_stats(result).items():
        agents[i]["model_stats"] = model
    with np.errstate(invalid="ignore", divide="ignore"):
        h2h = np.where(h2h_den > 0, h2h_num / np.maximum(h2h_den, 1), np.nan)
    recs = result.records
    return {
        "game": result.game_id, "options": result.options, "deals": result.deals, "seed": result.seed,
        "lineup": result.lineup, "seatings": result.seatings, "num_players": result.num_players,
        "sides": sides, "games": len(recs), "seconds": result.seconds, "workers": result.workers,
        "truncated_games": int(sum(r.truncated for r in recs)),
        "decisions": int(sum(r.decisions for r in recs)), "plies": int(sum(r.plies for r in recs)),
        "agents": agents,
        "head_to_head": {"agents": result.agents,
                         "matrix": [[None if np.isnan(x) else float(x) for x in row] for row in h2h]},
    }


#: the per-move rates of a language-model player's stats (``model_stats`` of the summary)
MODEL_COLUMNS = ("decisions", "illegal_rate", "retries_per_move", "fallbacks", "fallback_rate",
                 "tokens_per_move", "seconds_per_move")


def agent_model_stats(result: TournamentResult) -> dict[int, dict]:
    """Per agent index that keeps ``stats()`` (the ``llm:`` players): its counts summed over
    every game and seat, and the rates per move: illegal answers per answer, retries and tokens
    and seconds per move, fallbacks."""
    sums: dict[int, dict[str, float]] = {}
    for r in result.records:
        for seat, st in (getattr(r, "agent_stats", None) or {}).items():
            acc = sums.setdefault(r.seating[int(seat)], {})
            for k, v in st.items():
                acc[k] = acc.get(k, 0) + v
    out = {}
    for i, acc in sums.items():
        moves = acc.get("decisions", 0)
        answers = acc.get("answers", 0)
        def per(x: float, moves: float = moves) -> float:
            return x / moves if moves else math.nan

        out[i] = {**acc, "illegal_rate": acc.get("illegal_answers", 0) / answers if answers else math.nan,
                  "retries_per_move": per(acc.get("retries", 0)),
                  "fallback_rate": per(acc.get("fallbacks", 0)),
                  "tokens_per_move": per(acc.get("prompt_tokens", 0) + acc.get("completion_tokens", 0)),
                  "seconds_per_move": per(acc.get("seconds", 0.0))}
    return out


def format_model_table(summary: dict) -> str:
    """The language-model players' table (empty when no agent keeps stats)."""
    rows = [a for a in summary["agents"] if a.get("model_stats")]
    if not rows:
        return ""
    lines = ["language-model players (per move: illegal = answers that named no legal move / answers):",
             (f"{'agent':<24} {'moves':>6} {'illegal':>8} {'retries/move':>12} {'fallbacks':>9} "
             f"{'tokens/move':>11} {'s/move':>7}")]
    for a in rows:
        m = a["model_stats"]
        lines.append(f"{a['agent']:<24} {int(m.get('decisions', 0)):>6} {m['illegal_rate']:>8.3f} "
                     f"{m['retries_per_move']:>12.3f} {int(m.get('fallbacks', 0)):>9} "
                     f"{m['tokens_per_move']:>11.1f} {m['seconds_per_move']:>7.3f}")
    return "\n".join(lines)


def openskill_ratings(result: TournamentResult) -> list[tuple[float, float]]:
    """(mu, sigma) per agent after rating every game in order (OpenSkill Plackett-Luce)."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    k = len(result.agents)
    ratings = [model.rating(name=str(i)) for i in range(k)]
    sides = result.sides
    side_ids = sorted(set(sides))
    for r in result.records:
        teams, ranks = [], []
        for side in side_ids:
            seats = [s for s in range(len(sides)) if sides[s] == side]
            teams.append([model.rating(mu=ratings[r.seating[s]].mu, sigma=ratings[r.seating[s]].sigma)
                          for s in seats])
            ranks.append(-r.returns[seats[0]])
        new = model.rate(teams, ranks=ranks)
        acc: dict[int, list[tuple[float, float]]] = {}
        for side_i, side in enumerate(side_ids):
            seats = [s for s in range(len(sides)) if sides[s] == side]
            for j, s in enumerate(seats):
                acc.setdefault(r.seating[s], []).append((new[side_i][j].mu, new[side_i][j].sigma))
        for a, ups in acc.items():
            ratings[a] = model.rating(mu=float(np.mean([u[0] for u in ups])),
                                      sigma=float(np.mean([u[1] for u in ups])))
    return [(float(x.mu), float(x.sigma)) for x in ratings]


# -- output ------------------------------------------------------------------------------------------
#: printed under the table: what its marks and last column mean
LEGEND = ("* beats parity (95% Wilson interval above 1/sides); rating: OpenSkill Plackett-Luce mu - 3 sigma "
          "over every game (higher is stronger; this run only)")


def format_table(summary: dict) -> str:
    """A plain-text table (also what the CLI prints, through rich when available)."""
    lines = [(f"{summary['game']} {summary['options'] or ''} -- {summary['deals']} deals x "
             f"{len(summary['seatings'])} seatings = {summary['games']} games, "
             f"{summary['seconds']:.1f}s on {summary['workers']} workers")]
    lines.append(f"{'agent':<24} {'n':>6} {'win rate [95% Wilson]':>26} {'parity':>6} "
                 f"{'mean return [95% boot]':>27} {'mean score [95% boot]':>29} {'rating':>7}")
    for a in summary["agents"]:
        lo, hi = a["win_rate_ci95"]
        rl, rh = a["mean_return_ci95"]
        sl, sh = a["mean_score_ci95"]
        mark = "*" if a["beats_parity"] else " "
        lines.append(f"{a['agent']:<24} {a['samples']:>6} {a['win_rate']:>7.3f}{mark} [{lo:.3f}, {hi:.3f}] "
                     f"{a['parity']:>6.3f} {a['mean_return']:>+8.3f} [{rl:+.3f}, {rh:+.3f}] "
                     f"{a['mean_score']:>9.2f} [{sl:.2f}, {sh:.2f}] {a['rating_ordinal']:>7.2f}")
    lines.append(LEGEND)
    model = format_model_table(summary)
    if model:
        lines.append(model)
    h = summary["head_to_head"]
    if len(h["agents"]) > 1:
        lines.append("head-to-head (row beats column):")
        for name, row in zip(h["agents"], h["matrix"]):
            lines.append(f"  {name:<22} " + " ".join("   -  " if x is None else f"{x:6.3f}" for x in row))
    return "\n".join(lines)


def print_table(summary: dict) -> None:
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:  # pragma: no cover
        print(format_table(summary))
        return
    t = Table(title=f"{summary['game']} {summary['options'] or ''}: {summary['deals']} deals, "
                    f"{summary['games']} games, {summary['seconds']:.1f}s")
    # agent names are never cut: three checkpoints of one run differ only at their end
    longest = max((len(a["agent"]) for a in summary["agents"]), default=5)
    t.add_column("agent", justify="left", no_wrap=True, min_width=longest)
    for col in ("n", "win rate", "95% Wilson", "95% by deal", "parity", "mean return", "95% boot",
                "mean score", "95% boot", "rating"):
        t.add_column(col, justify="right")
    for a in summary["agents"]:
        mark = " *" if a["beats_parity"] else ""
        t.add_row(a["agent"], str(a["samples"]), f"{a['win_rate']:.3f}{mark}",
                  "[{:.3f}, {:.3f}]".format(*a["win_rate_ci95"]),
                  "[{:.3f}, {:.3f}]".format(*a["win_rate_dup_ci95"]), f"{a['parity']:.3f}",
                  f"{a['mean_return']:+.3f}", "[{:+.3f}, {:+.3f}]".format(*a["mean_return_ci95"]),
                  f"{a['mean_score']:.2f}", "[{:.2f}, {:.2f}]".format(*a["mean_score_ci95"]),
                  f"{a['rating_ordinal']:.2f}")
    console = Console()
    if not console.is_terminal:
        console = Console(width=max(console.width, 136 + longest))
    console.print(t)
    console.print(LEGEND, highlight=False, markup=False, soft_wrap=True)
    model = format_model_table(summary)
    if model:
        console.print(model, highlight=False, markup=False, soft_wrap=True)
    h = summary["head_to_head"]
    if len(h["agents"]) > 1:
        # columns by number (#1, #2, ...), the rows name them in full
        ht = Table(title="head-to-head: share of opposed seat pairs the row agent beat")
        labels = [f"#{i + 1} {name}" for i, name in enumerate(h["agents"])]
        ht.add_column("", no_wrap=True, min_width=max(map(len, labels)))
        for i in range(len(h["agents"])):
            ht.add_column(f"#{i + 1}", justify="right")
        for label, row in zip(labels, h["matrix"]):
            ht.add_row(label, *("-" if x is None else f"{x:.3f}" for x in row))
        console.print(ht)


def _game_dict(r) -> dict:
    d = asdict(r)
    if d.get("agent_stats") is None:  # runs without stats-keeping agents write what they always did
        d.pop("agent_stats", None)
    return d


def save_results(result: TournamentResult, summary: dict, out: str | Path, plot: bool = True) -> list[Path]:
    """results.json (summary + every game), summary.csv, games.csv, h2h.csv and win_rates.png
    (plus learning_curve.png when the agents are several checkpoints) in directory ``out``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    p = out / "results.json"
    p.write_text(json.dumps({"summary": summary, "games": [_game_dict(r) for r in result.records]}, indent=1))
    written.append(p)
    p = out / "summary.csv"
    with p.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["agent", "spec", "seat_games", "wins", "win_rate", "win_lo", "win_hi", "parity",
                    "mean_return", "return_lo", "return_hi", "mean_score", "score_lo", "score_hi",
                    "rating_mu", "rating_sigma", "rating_ordinal", "win_dup_lo", "win_dup_hi", "samples"])
        for a in summary["agents"]:
            w.writerow([a["agent"], a["spec"], a["seat_games"], a["wins"], a["win_rate"], *a["win_rate_ci95"],
                        a["parity"], a["mean_return"], *a["mean_return_ci95"], a["mean_score"],
                        *a["mean_score_ci95"], a["rating_mu"], a["rating_sigma"], a["rating_ordinal"],
                        *a["win_rate_dup_ci95"], a["samples"]])
    written.append(p)
    p = out / "games.csv"
    n = result.num_players
    with p.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["deal", "deal_seed", "seating", *[f"agent_{s}" for s in range(n)],
                    *[f"return_{s}" for s in range(n)], *[f"score_{s}" for s in range(n)],
                    *[f"win_{s}" for s in range(n)], "decisions", "plies", "truncated", "seconds"])
        for r in result.records:
            w.writerow([r.deal, r.deal_seed, r.seating_index, *[result.agents[i] for i in r.seating],
                        *r.returns, *r.scores, *r.win_share, r.decisions, r.plies, int(r.truncated),
                        f"{r.seconds:.4f}"])
    written.append(p)
    p = out / "h2h.csv"
    with p.open("w", newline="") as f:
        w = csv.writer(f)
        h = summary["head_to_head"]
        w.writerow(["row_beats_column", *h["agents"]])
        for name, row in zip(h["agents"], h["matrix"]):
            w.writerow([name, *("" if x is None else x for x in row)])
    written.append(p)
    if plot:
        written.extend(save_plots(summary, out))
    return written


def _checkpoint_step(spec: str) -> int | None:
    """The training step of a checkpoint spec (``ppo:runs/x/checkpoints/step_20000.zip``)."""
    if not spec.startswith("ppo:"):
        return None
    nums = re.findall(r"(\d+)", Path(spec[4:]).stem)
    return int(nums[-1]) if nums else None


def save_plots(summary: dict, out: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    agents = summary["agents"]
    names = [a["agent"] for a in agents]
    rates = np.array([a["win_rate"] for a in agents])
    lo = np.array([a["win_rate_ci95"][0] for a in agents])
    hi = np.array([a["win_rate_ci95"][1] for a in agents])
    written = []
    fig, ax = plt.subplots(figsize=(max(4.0, 1.2 * len(names) + 2), 3.6))
    ax.bar(range(len(names)), rates, yerr=[np.maximum(rates - lo, 0.0), np.maximum(hi - rates, 0.0)], capsize=5, color="#4c72b0")
    ax.axhline(agents[0]["parity"], color="grey", ls="--", lw=1, label="parity")
    ax.set_xticks(range(len(names)), names, rotation=20, ha="right")
    ax.set_ylabel("win rate (95% Wilson)")
    ax.set_ylim(0, 1)
    ax.set_title(f"{summary['game']}: {summary['deals']} deals, {summary['games']} games")
    ax.legend()
    fig.tight_layout()
    p = out / "win_rates.png"
    fig.savefig(p, dpi=110)
    plt.close(fig)
    written.append(p)
    steps = [(_checkpoint_step(a["spec"]), a) for a in agents]
    ckpts = sorted([(s, a) for s, a in steps if s is not None], key=lambda x: x[0])
    if len(ckpts) >= 2:
        xs = [s for s, _ in ckpts]
        ys = np.array([a["win_rate"] for _, a in ckpts])
        yl = np.array([a["win_rate_ci95"][0] for _, a in ckpts])
        yh = np.array([a["win_rate_ci95"][1] for _, a in ckpts])
        fig, ax = plt.subplots(figsize=(5.5, 3.6))
        ax.errorbar(xs, ys, yerr=[np.maximum(ys - yl, 0.0), np.maximum(yh - ys, 0.0)], marker="o", capsize=4)
        for s, a in steps:
            if s is None:
                ax.axhline(a["win_rate"], ls=":", lw=1, label=a["agent"])
        ax.axhline(agents[0]["parity"], color="grey", ls="--", lw=1, label="parity")
        ax.set_xlabel("training step (checkpoint)")
        ax.set_ylabel("win rate (95% Wilson)")
        ax.set_title(f"{summary['game']}: learning curve")
        ax.legend(fontsize=8)
        fig.tight_layout()
        p = out / "learning_curve.png"
        fig.savefig(p, dpi=110)
        plt.close(fig)
        written.append(p)
    return written
