"""What a model's choices are worth by the search's own values (issue 18).

A label file saved by ``pretrain.save_labels`` from a ``search:N`` teacher keeps, for every
decision, the search's mean rollout value of each move it weighed (``values``). On the rows from
``--start`` on (hold out the rows a model was not fitted to), this reports for the teacher's own
labels and for each model: how often its move differs from the heuristic's (the hint, the last
``num_actions`` observation columns of a ``hinted``/``extended`` run) and its mean gain per decision
over the heuristic's move, valued by the search, with its standard error. A model worth nothing
there will not beat the heuristic in play; a scratch diagnostic, not a timed test:

  python benchmarks/label_values.py runs/cards4s-search/labels.npz --start 12800 runs/cards4s-search
"""

from __future__ import annotations

import argparse

import numpy as np


def gain(values: np.ndarray, hint: np.ndarray, choice: np.ndarray) -> tuple[float, float, float]:
    """(share departing from the hint, mean gain over the hint's move, its standard error) over the
    rows where the search valued both moves."""
    rows = np.arange(len(values))
    v_hint, v_choice = values[rows, hint], values[rows, choice]
    ok = np.isfinite(v_hint) & np.isfinite(v_choice)
    d = (v_choice - v_hint)[ok]
    return float(np.mean(choice[ok] != hint[ok])), float(d.mean()), float(d.std(ddof=1) / np.sqrt(max(len(d), 1)))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("labels", help="a labels.npz with values (pretrain.save_labels, search teacher)")
    ap.add_argument("runs", nargs="*", help="trained runs (folders holding model.npz) to value")
    ap.add_argument("--start", type=int, default=0, help="first row counted (rows before it: fitted, not judged)")
    args = ap.parse_intermixed_args(argv)
    from muggins_env.agents.ppo import load_npz

    with np.load(args.labels, allow_pickle=False) as z:
        if "values" not in z.files:
            raise SystemExit(f"{args.labels}: no 'values' (saved before labels kept the search's values)")
        obs, masks, actions, values = (z[k][args.start:] for k in ("obs", "masks", "actions", "values"))
    block = obs[:, -masks.shape[1]:]
    hint = block.argmax(1)
    if not (np.all(block.sum(axis=1) == 1) and np.all(masks[np.arange(len(hint)), hint])):
        raise SystemExit(f"{args.labels}: the last {masks.shape[1]} observation columns are not the heuristic's "
                         "move (one-hot, legal); label_values needs labels of a run with features: hinted or extended")
    best = np.nanargmax(np.where(np.isfinite(values), values, -np.inf), axis=1)
    print(f"{len(obs)} decisions from row {args.start}")
    print(f"{'choice':34s} {'departs':>8s} {'gain/decision':>14s} {'s.e.':>8s}")
    rows = [("search's best mean (in-sample)", best), ("teacher's label", actions)]
    for run in args.runs:
        policy = load_npz(f"{run}/model.npz")
        rows.append((run, np.array([int(np.argmax(np.where(m, policy.probabilities(o, m), -1.0)))
                                    for o, m in zip(obs, masks)])))
    for name, choice in rows:
        dep, g, se = gain(values, hint, choice)
        print(f"{name:34s} {dep:8.3f} {g:+14.5f} {se:8.5f}")


if __name__ == "__main__":
    main()
