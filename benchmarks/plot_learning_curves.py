"""Learning curves of training runs from their TensorBoard logs: the learner's win rate per
opponent kind (``vs_random/win_rate``, ``vs_heuristic/win_rate``, ``vs_self/win_rate``, over
the training episodes of each rollout, smoothed) against learner steps; the final duplicate
evaluation (``eval.json``: win rate and 95% interval vs each opponent) is marked at the end;
the dotted line is parity (1 / number of sides, from eval.json).

  python benchmarks/plot_learning_curves.py runs/dom-full --out benchmarks/results/dominoes.png
  python benchmarks/plot_learning_curves.py runs/a runs/b --labels "mixed pool" "curriculum" --out x.png
"""

from __future__ import annotations

import argparse
import glob
import json
from pathlib import Path

import numpy as np


def read_scalars(run: str | Path) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """``{tag: (steps, values)}`` over every TensorBoard event file of a run (resumed runs
    write several; later files win for repeated steps)."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    merged: dict[str, dict[int, float]] = {}
    for d in sorted(glob.glob(str(Path(run) / "tb" / "*"))):
        ea = EventAccumulator(d, size_guidance={"scalars": 0})
        ea.Reload()
        for tag in ea.Tags()["scalars"]:
            merged.setdefault(tag, {}).update({e.step: e.value for e in ea.Scalars(tag)})
    return {t: (np.array(sorted(v)), np.array([v[k] for k in sorted(v)])) for t, v in merged.items()}


def smooth(y: np.ndarray, k: int) -> np.ndarray:
    if len(y) < 2 * k or k <= 1:
        return y
    c = np.cumsum(np.insert(y, 0, 0.0))
    out = (c[k:] - c[:-k]) / k
    return np.concatenate([y[: k - 1], out])


def main(argv=None) -> int:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("runs", nargs="+")
    p.add_argument("--labels", nargs="+", default=None)
    p.add_argument("--out", required=True)
    p.add_argument("--smooth", type=int, default=5, help="moving average over this many rollouts")
    p.add_argument("--title", default=None)
    args = p.parse_args(argv)
    labels = args.labels or [Path(r).name for r in args.runs]
    parity = 0.5
    kinds = ("random", "heuristic", "self")
    fig, axes = plt.subplots(1, len(kinds), figsize=(12, 3.6), sharey=True)
    for run, label in zip(args.runs, labels):
        sc = read_scalars(run)
        evals = {}
        ej = Path(run) / "eval.json"
        if ej.exists():
            for row in json.loads(ej.read_text()):
                if "win_rate" in row:
                    evals[row.get("opponent", "")] = row
                    parity = row.get("win_rate_parity", parity)  # 1 / number of sides
        for ax, kind in zip(axes, kinds):
            tag = f"vs_{kind}/win_rate"
            if tag not in sc:
                continue
            x, y = sc[tag]
            line, = ax.plot(x / 1000, smooth(y, args.smooth), label=label, lw=1.3)
            row = evals.get(kind)
            if row is not None:
                lo, hi = row.get("win_rate_ci95", [row["win_rate"], row["win_rate"]])
                ax.errorbar([x[-1] / 1000], [row["win_rate"]],
                            yerr=[[max(0.0, row["win_rate"] - lo)], [max(0.0, hi - row["win_rate"])]],
                            fmt="o", color=line.get_color(), capsize=3)
    for ax, kind in zip(axes, kinds):
        ax.set_title(f"vs {kind}")
        ax.set_xlabel("learner steps (thousands)")
        ax.axhline(parity, color="grey", lw=0.8, ls=":")
        ax.set_ylim(-0.02, 1.02)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("win rate (dots: final eval, 95% CI)")
    axes[0].legend(fontsize=8, loc="lower right")
    if args.title:
        fig.suptitle(args.title)
    fig.tight_layout()
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out, dpi=70)
    print(f"wrote {args.out} ({Path(args.out).stat().st_size // 1024} KB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
