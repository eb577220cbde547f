"""The chance to win from the start of a deal (issue 47, item 1): cribbage's race to the target.

A table per configuration (players, target, muggins) holds ``V[d, p]``: the chance that the
dealer's side wins a game that stands at ``d`` points for the dealer's side and ``p`` for the
other as a deal begins (scores below the target). The chance of the other side is ``1 - V``;
the next deal's dealer is on the other side (in both 2- and 4-player cribbage the deal passes
to the left, so the dealer's side alternates).

The tables are computed by dynamic programming over recorded deals of the heuristic against
itself (``benchmarks/position_values.py``, whose docstring gives the commands; the plan and the
figures: ``benchmarks/results/position_values/``): within a deal, the side that first reaches
the target in the order the points were scored wins; a deal that ends below it hands the game on
to the next deal with the sides' roles swapped. Every deal scores at least one point (the last
card), so positions are solved from the largest score sum down (``solve_race``).

The values are the heuristic's: a position's worth between two players who play like it (its
play does not depend on the score). They are shipped as ``tables/cribbage_v0.npz`` (numpy only).
Muggins dominoes (``dominoes_table``, ``tables/muggins_dominoes_v0.npz``,
``benchmarks/position_values_dominoes.py``) is the same race without roles: the heaviest tile
leads, so a position is the two scores alone.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import numpy as np

TABLES = Path(__file__).resolve().parent / "tables"
#: the configurations with a table: players, targets (muggins true and false each)
PLAYERS = (2, 4)
TARGETS = (121, 61)


def table_key(num_players: int, target: int, muggins: bool) -> str:
    return f"p{num_players}_t{target}_{'muggins' if muggins else 'standard'}"


class DealEvents:
    """Recorded deals: the scoring events of deal ``k`` are rows ``start[k]:start[k + 1]`` of
    ``side`` (0 the dealer's side, 1 the other) and ``points`` (> 0), in the order scored."""

    def __init__(self, side, points, start) -> None:
        self.side = np.asarray(side, dtype=np.int8)
        self.points = np.asarray(points, dtype=np.int64)
        self.start = np.asarray(start, dtype=np.int64)
        if (len(self.side) != len(self.points) or self.start[0] != 0 or self.start[-1] != len(self.side)
                or np.any(np.diff(self.start) < 0)):
            raise ValueError("deal events: side and points must be as long as start[-1], start rising from 0")
        if len(self.points) and (self.points.min() < 1 or not np.isin(self.side, (0, 1)).all()):
            raise ValueError("deal events: points must be positive and sides 0 (dealer's) or 1 (the other)")

    def __len__(self) -> int:
        return len(self.start) - 1

    def subset(self, deals: np.ndarray) -> DealEvents:
        lengths = np.diff(self.start)[deals]
        rows = np.concatenate([np.arange(self.start[k], self.start[k + 1]) for k in deals]) if len(deals) \
            else np.zeros(0, np.int64)
        return DealEvents(self.side[rows], self.points[rows], np.concatenate([[0], np.cumsum(lengths)]))


def solve_race(deals: DealEvents, target: int, alternate: bool = True) -> np.ndarray:
    """``V[d, p]`` for 0 <= d, p < target: the chance that side 0 (the dealer's) wins from ``d`` to
    ``p`` at the start of a deal, each deal drawn uniformly from ``deals`` (see the module).
    ``alternate``: the sides swap roles every deal (cribbage's deal passes to the other side);
    False: every deal is drawn for side 0 as it is (a game whose hands favour neither side by
    position, e.g. dominoes, with each hand recorded from both sides), and a deal may score
    nothing (the position comes back)."""
    k = len(deals)
    if k == 0:
        raise ValueError("solve_race needs at least one recorded deal")
    deal_of = np.repeat(np.arange(k), np.diff(deals.start))
    mine = [np.where(deals.side == s, deals.points, 0) for s in (0, 1)]
    # each side's points after each event, within its deal
    cum = []
    for m in mine:
        c = np.cumsum(m)
        cum.append(c - np.concatenate([[0], c])[deals.start[:-1]][deal_of])
    totals = [np.bincount(deal_of, weights=m, minlength=k).astype(np.int64) for m in mine]
    stay = float(np.mean(totals[0] + totals[1] == 0))  # deals that leave the position as it was
    if (alternate and stay) or stay == 1.0:
        raise ValueError("a recorded deal scores no point: the race would not end" if stay == 1.0 else
                         "a recorded deal scores no point: with alternating roles every deal must score")
    big = int(max(totals[0].max(), totals[1].max())) + 1  # a need of `big` or more is never met in a deal
    # first[s][r, c]: deals in which side s first reaches r points while the other side holds c
    # (an event of side s that takes it from before to after reaches every r in (before, after])
    first = []
    for s in (0, 1):
        rows = np.flatnonzero(deals.side == s)
        after = cum[s][rows]
        steps = deals.points[rows]
        r = np.repeat(after - steps, steps) + _ramp(steps)
        other = np.repeat(cum[1 - s][rows], steps)
        counts = np.zeros((big + 1, big + 1))
        np.add.at(counts, (r, other), 1.0)
        # wins[r, q]: side s reaches r first while the other side has fewer than q
        wins = np.zeros((big + 1, big + 1))
        wins[:, 1:] = np.cumsum(counts, axis=1)[:, :big] / k
        first.append(wins)
    hist = np.zeros((big, big))
    np.add.at(hist, (totals[0], totals[1]), 1.0 / k)
    v = np.zeros((target, target))
    for total in range(2 * target - 2, -1, -1):
        for d in range(max(0, total - target + 1), min(total, target - 1) + 1):
            p = total - d
            need_d, need_p = min(target - d, big), min(target - p, big)
            value = first[0][need_d, need_p]
            h = hist[:need_d, :need_p]
            if alternate:  # neither side reached the target: the other side deals next, from (p + y, d + x)
                nxt = v[p:p + need_p, d:d + need_d].T  # [x, y] -> V[p + y, d + x]
                value += float(np.sum(h * (1.0 - nxt)))
            else:  # the next deal from (d + x, p + y); v[d, p] is still 0: the deals that score
                # nothing come back to this position, solved by the division
                value = (value + float(np.sum(h * v[d:d + need_d, p:p + need_p]))) / (1.0 - stay)
            v[d, p] = value
    return v


def _ramp(steps: np.ndarray) -> np.ndarray:
    """1..n for each n of ``steps``, concatenated."""
    ends = np.cumsum(steps)
    return np.arange(1, int(ends[-1]) + 1) - np.repeat(ends - steps, steps) if len(steps) else steps


@cache
def _tables(game_id: str = "cribbage_v0") -> tuple[dict, dict]:
    path = TABLES / f"{game_id}.npz"
    with np.load(path, allow_pickle=False) as z:
        tables = {k: z[k] for k in z.files if k != "info"}
        info = json.loads(str(z["info"])) if "info" in z.files else {}
    for t in tables.values():
        t.flags.writeable = False
    return tables, info


def dealer_table(num_players: int = 2, target: int = 121, muggins: bool = True) -> np.ndarray:
    """The read-only table ``V[dealer's side score, other side's score]`` of a configuration."""
    if num_players not in PLAYERS or target not in TARGETS or not isinstance(muggins, bool):
        raise ValueError(f"no position values for num_players={num_players!r}, target={target!r}, "
                         f"muggins={muggins!r}; tables exist for num_players in {PLAYERS}, target in "
                         f"{TARGETS}, muggins True or False (not lowball)")
    return _tables()[0][table_key(num_players, target, muggins)]


def win_chance(scores, dealer_side: int, *, num_players: int = 2, target: int = 121,
               muggins: bool = True) -> list[float]:
    """Each side's chance to win as a deal begins, ``scores`` per side (two sides: 2 players or
    two partnerships), ``dealer_side`` the side that deals it. A side at the target or past it
    has won."""
    if len(scores) != 2 or dealer_side not in (0, 1):
        raise ValueError(f"win_chance needs two sides' scores and a dealer side 0 or 1, got "
                         f"scores={list(scores)!r}, dealer_side={dealer_side!r}")
    v = dealer_table(num_players, target, muggins)
    d, p = int(scores[dealer_side]), int(scores[1 - dealer_side])
    if min(d, p) < 0:
        raise ValueError(f"win_chance: scores must be >= 0, got {list(scores)!r}")
    if d >= target or p >= target:
        if d >= target and p >= target:
            raise ValueError(f"win_chance: both sides at or past the target {target}: {list(scores)!r}")
        chance = 1.0 if d >= target else 0.0
    else:
        chance = float(v[d, p])
    out = [0.0, 0.0]
    out[dealer_side], out[1 - dealer_side] = chance, 1.0 - chance
    return out


def table_info(game_id: str = "cribbage_v0") -> dict:
    """How the shipped tables of ``game_id`` (cribbage_v0, muggins_dominoes_v0) were made (per
    configuration: players, options, deals or hands, seed)."""
    if game_id not in ("cribbage_v0", "muggins_dominoes_v0"):
        raise ValueError(f"no position values for {game_id!r}; games with them: cribbage_v0, muggins_dominoes_v0")
    return dict(_tables(game_id)[1])


# -- Muggins dominoes: no seat has a role in a hand, so a position is the two sides' scores ---------
#: players -> the default target of the two-sided configurations (4 players: partnerships)
DOMINOES_TARGETS = {2: 200, 4: 150}


def dominoes_key(num_players: int, target: int) -> str:
    return f"p{num_players}_t{target}"


def dominoes_table(num_players: int = 2) -> np.ndarray:
    """The read-only table ``V[a, b]``: the chance that the side at ``a`` points wins against the
    side at ``b`` as a hand of the default Muggins dominoes begins (2 players to 200, or 4 in
    partnerships to 150); ``V[a, b] + V[b, a] = 1``."""
    if num_players not in DOMINOES_TARGETS:
        raise ValueError(f"no dominoes position values for num_players={num_players!r}; tables exist for 2 "
                         "players and 4 in partnerships (the default variant and target)")
    return _tables("muggins_dominoes_v0")[0][dominoes_key(num_players, DOMINOES_TARGETS[num_players])]


# -- within a deal: who reaches the target first, then the table at the next deal's start ---------
def deal_points(num_players: int = 2) -> dict[str, np.ndarray]:
    """The heuristic's per-deal point histograms of ``num_players`` cribbage (2 or 4; a share of
    the deals at 0..29 points each): ``peg_dealer`` and ``peg_pone`` (each side's pegging, his
    heels with the dealer's), ``hand_k`` (the hand of the seat ``k`` places after the dealer, 0 the
    dealer) and ``crib`` (``tables/cribbage_deal_points_v0.npz``; ``benchmarks/position_values.py
    deal-points`` makes it). Standard counting (the heuristic counts truly: muggins is the same)."""
    if num_players not in PLAYERS:
        raise ValueError(f"no deal points for num_players={num_players!r}; they exist for {PLAYERS}")
    prefix = f"p{num_players}_"
    return {k[len(prefix):]: v for k, v in _tables("cribbage_deal_points_v0")[0].items() if k.startswith(prefix)}


def race_chance(start: np.ndarray, events, need: tuple[int, int], end: np.ndarray,
                won: np.ndarray | None = None) -> np.ndarray:
    """The own side's chance to win, for each of ``K`` alternatives, through the rest of a deal.

    ``start``: ``(K, I0, J0)`` the chance of each (own gain, other side's gain) so far, both below
    ``need`` (the points each side lacks of the target); ``won``: ``(K,)`` the chance already won
    (default 0). ``events``: the deal's scoring still to come in the order it is scored, each
    ``(side, q)``, side 0 the own side and 1 the other, ``q`` the chance of 0, 1, ... points
    (``(S,)``, or ``(K, S)`` per alternative); the side that reaches its need first wins. ``end``:
    ``(need[0], need[1])`` the chance from the next deal's start at each pair of gains below the
    needs. Cost: the grid of reachable gains times the events' supports."""
    start = np.asarray(start, dtype=np.float64)
    k, i0, j0 = start.shape
    if i0 > need[0] or j0 > need[1] or min(need) < 1:
        raise ValueError(f"race_chance: the start's gains {start.shape[1:]} must stay below the needs {need} (>= 1)")
    grow = [i0, j0]
    for side, q in events:
        grow[side] += np.shape(q)[-1] - 1
    size = (min(need[0], grow[0]), min(need[1], grow[1]))
    p = np.zeros((k, *size))
    p[:, :i0, :j0] = start
    won = np.zeros(k) if won is None else np.array(won, dtype=np.float64)
    for side, q in events:
        q = np.asarray(q, dtype=np.float64)
        q = q[None, :] if q.ndim == 1 else q
        grid = p if side == 0 else p.transpose(0, 2, 1)  # the scoring side on axis 1
        n = grid.shape[1]
        new = np.zeros_like(grid)
        crossed = np.zeros(k)
        tail = grid.sum(axis=2)  # (K, n): the chance at each own gain
        for s in np.flatnonzero(q.any(axis=0)):
            w = q[:, s]
            if s < n:
                new[:, s:, :] += w[:, None, None] * grid[:, :n - s, :]
            # reaching the need: every gain from n - s up (n is the need here, or no gain reaches it)
            crossed += w * tail[:, max(n - s, 0):].sum(axis=1)
        if side == 0:
            won += crossed
        p = new if side == 0 else new.transpose(0, 2, 1)
    return won + np.einsum("kij,ij->k", p, end[:size[0], :size[1]])
