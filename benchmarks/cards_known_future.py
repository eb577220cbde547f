"""Where the search's edge lies in card Muggins with mistakes (issue 18): calculation or rule?

Plays heuristic self-play hands of ``muggins_cards_v0`` (4 players, ``mistakes=True``) and, at
every pile choice with two or more candidate piles, values each candidate as the search does
(``search:N,horizon=H``: the same worlds for every candidate) and counts the stock cards nobody
has seen (0-1: the whole future is known, so every world is the true one). Reports, by that count,
the share of the choices, the share of the search's gain over the heuristic's pile (its best mean
less the heuristic pile's mean: in-sample, so high by selection) and how often the best other pile
differs from the heuristic's by more than 0.3 (the choice decides the hand in most worlds).
A scratch diagnostic, not a timed test (about 0.15 s a choice at N=50, H=192):

  python benchmarks/cards_known_future.py --choices 1000 --seed 1
"""

from __future__ import annotations

import argparse

import numpy as np

BUCKETS = ((0, 1), (2, 4), (5, 10), (11, 20), (21, 52))


def unseen_stock_cards(state) -> int:
    """Stock cards nobody has seen (0 or 1: the rest of the hand is known to everyone)."""
    return sum(1 for stock in state.stocks for c in stock if not state.face_up[c])


def pile_candidates(state, player: int, heuristic) -> list[int]:
    """The heuristic's candidate moves at ``player``'s decision (two or more: a pile choice)."""
    legal = state.legal_actions_mask().nonzero()[0]
    return heuristic.candidates(state.public_view(player), legal, 6) if len(legal) > 1 else []


def collect(choices: int, seed: int, budget: int, horizon: int) -> np.ndarray:
    """Rows (unseen stock cards, best mean - heuristic's, best other - heuristic's), one per choice."""
    from muggins_env.agents import make_agent, make_game

    opts = {"num_players": 4, "mistakes": True}
    game = make_game("muggins_cards_v0", opts)
    heuristic = make_agent("heuristic", "muggins_cards_v0", opts)
    search = make_agent(f"search:{budget},horizon={horizon},z=0", "muggins_cards_v0", opts)
    rng = np.random.default_rng(seed)
    rows: list[tuple[int, float, float]] = []
    while len(rows) < choices:
        state = game.new_initial_state(rng)
        while not state.is_terminal():
            p = state.current_player()
            cands = pile_candidates(state, p, heuristic)
            if len(cands) >= 2:
                default = int(heuristic.act_on_state(state, rng))
                unseen = unseen_stock_cards(state)
                worlds = max(1, budget // len(cands))
                values = np.zeros((worlds, len(cands)))
                for w in range(worlds):
                    world = state.resample_hidden(p, rng)
                    stream = int(rng.integers(2**62))
                    for j, a in enumerate(cands):
                        values[w, j] = search._rollout(world.clone(), a, p, np.random.default_rng(stream))
                means = values.mean(axis=0)
                d = cands.index(default)
                rows.append((unseen, float(means.max() - means[d]), float(np.delete(means, d).max() - means[d])))
            state.apply(heuristic.act_on_state(state, rng))
    return np.array(rows[:choices])


def report(rows: np.ndarray) -> list[dict]:
    unseen, gain, other = rows[:, 0], rows[:, 1], rows[:, 2]
    total = gain.sum()
    out = []
    for lo, hi in BUCKETS:
        s = (unseen >= lo) & (unseen <= hi)
        out.append({"unseen": f"{lo}-{hi}", "share": float(s.mean()),
                    "share_of_gain": float(gain[s].sum() / total) if total > 0 else 0.0,
                    "decisive": float((np.abs(other[s]) > 0.3).mean()) if s.any() else 0.0})
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--choices", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--budget", type=int, default=50)
    ap.add_argument("--horizon", type=int, default=192)
    args = ap.parse_args(argv)
    rows = collect(args.choices, args.seed, args.budget, args.horizon)
    decisive = np.abs(rows[:, 2]) > 0.3
    print(f"{len(rows)} pile choices; the search's gain over the heuristic's pile: {rows[:, 1].mean():+.4f} a choice "
          f"(in-sample); {decisive.mean():.1%} decisive (|other - heuristic's| > 0.3), carrying "
          f"{rows[decisive, 1].sum() / rows[:, 1].sum():.0%} of the gain")
    print(f"{'unseen stock cards':>18s} {'choices':>8s} {'of the gain':>11s} {'decisive':>9s}")
    for r in report(rows):
        print(f"{r['unseen']:>18s} {r['share']:8.1%} {r['share_of_gain']:11.1%} {r['decisive']:9.1%}")


if __name__ == "__main__":
    main()
