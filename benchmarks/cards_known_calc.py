"""Is the search's card Muggins edge calculation? (issue 18; a diagnostic, not an agent of the suite)

``benchmarks/cards_known_future.py`` puts much of ``search:N``'s edge in pile choices made when no
more than one stock card is unseen: the rest of the hand is then known to everyone and, with
heuristics at every seat, determined. This plays the heuristic plus exact calculation there and
nowhere else (at such a choice between two or more candidate piles, play the rest of the hand out
from each with the heuristic at every seat, keep the best final return; ties keep the heuristic's
pile) against heuristics on every deal (4 players, ``mistakes=True``), and reports its win share
(the harness's: 1/k for k tied winners) with the by-deal 95% interval. ``--lineup single``: one
such agent against three heuristics, in each seat; ``cycle``: two of them in seats 0 and 2, then
1 and 3 (the harness's default ``A B A B`` lineup, the format of the search's rows in the README):

  python benchmarks/cards_known_calc.py --deals 16000 --seed 18606 --lineup single
"""

from __future__ import annotations

import argparse
from concurrent.futures import ProcessPoolExecutor

import numpy as np

OPTIONS = {"num_players": 4, "mistakes": True}


def calculated_move(state, seat: int, heuristic, default: int) -> tuple[int, bool]:
    """The best candidate pile by exact playout when the rest of the hand is known (and whether
    this was such a choice); otherwise ``default``."""
    from cards_known_future import pile_candidates, unseen_stock_cards  # beside this script

    cands = pile_candidates(state, seat, heuristic)
    if len(cands) < 2 or unseen_stock_cards(state) > 1:
        return default, False
    value = {}
    for c in cands:
        t = state.clone()
        t.apply(c)
        rng = np.random.default_rng(0)  # the heuristic draws nothing here; a fixed stream regardless
        while not t.is_terminal():
            t.apply(heuristic.act_on_state(t, rng))
        value[c] = float(t.returns()[seat])
    return max(value, key=lambda c: (value[c], c == default)), True


SEATINGS = {"single": [(0,), (1,), (2,), (3,)], "cycle": [(0, 2), (1, 3)]}


def play(seed: int, first: int, deals: int, lineup: str = "single") -> tuple[list[float], int, int]:
    """Per deal the seat-averaged win share of the calculating agent; choices calculated; changed."""
    from muggins_env.agents import make_agent, make_game
    from muggins_env.eval.tournament import win_shares

    game = make_game("muggins_cards_v0", OPTIONS)
    heuristic = make_agent("heuristic", "muggins_cards_v0", OPTIONS)
    per_deal, calculated, changed = [], 0, 0
    for d in range(first, first + deals):
        shares = []
        for k, seats in enumerate(SEATINGS[lineup]):
            state = game.new_initial_state(np.random.default_rng([seed, d]))  # the same deal in every seating
            rng = np.random.default_rng([seed, d, k])
            while not state.is_terminal():
                move = heuristic.act_on_state(state, rng)
                p = state.current_player()
                if p in seats:
                    best, known = calculated_move(state, p, heuristic, move)
                    calculated += known
                    changed += best != move
                    move = best
                state.apply(move)
            won = win_shares(state.returns(), list(range(4)))
            shares.extend(won[s] for s in seats)
        per_deal.append(float(np.mean(shares)))
    return per_deal, calculated, changed


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--lineup", choices=sorted(SEATINGS), default="single")
    args = ap.parse_args(argv)
    w = max(1, args.workers)
    shares = [args.deals // w + (k < args.deals % w) for k in range(w)]
    firsts = [sum(shares[:k]) for k in range(w)]
    with ProcessPoolExecutor(w) as ex:
        parts = list(ex.map(play, [args.seed] * w, firsts, shares, [args.lineup] * w))
    per_deal = np.concatenate([p[0] for p in parts])
    m, se = per_deal.mean(), per_deal.std(ddof=1) / np.sqrt(len(per_deal))
    print(f"{len(per_deal)} deals, lineup {args.lineup}: win share {m:.4f}, by-deal 95% [{m - 1.96 * se:.4f}, {m + 1.96 * se:.4f}] "
          f"(parity 0.25); {sum(p[1] for p in parts)} known choices calculated, "
          f"{sum(p[2] for p in parts)} of them away from the heuristic's pile")


if __name__ == "__main__":
    main()
