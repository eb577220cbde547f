"""Shared reward pieces: the end-of-game rule (docs/rules/index.md, common conventions: winners
share +1, the rest share -1) and the zeros of a step that pays nothing."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

_QUIET: dict[int, np.ndarray] = {}


def quiet_rewards(n: int) -> np.ndarray:
    """The one read-only zeros array of ``n`` seats that ``State.rewards()`` returns for a step
    that pays nothing. Why: most steps pay nothing, and the envs recognise it by identity
    (``rewards is quiet_rewards(n)``) instead of reading the values."""
    zeros = _QUIET.get(n)
    if zeros is None:
        zeros = np.zeros(n)
        zeros.flags.writeable = False
        zeros = _QUIET.setdefault(n, zeros)  # one array per n, whichever thread made it first
    return zeros


def win_loss_rewards(n: int, winners: Sequence[int], teams: Sequence[int] | None = None) -> np.ndarray:
    """Zero-sum outcome per seat: the winning sides split +1, the other sides split -1.

    With one winner among n sides that is +1 and -1/(n-1) each (docs/rules/muggins_cards.md §1.4,
    docs/rules/dominoes.md §2.7); with ``teams`` (team index per seat) the sides are teams and every seat gets its side's
    value (partnerships: +1 / -1). No winners (a draw) gives 0 to all.
    """
    out = np.zeros(n)
    if not len(winners):
        return out
    side = list(teams) if teams is not None else list(range(n))
    sides = sorted(set(side))
    win_sides = {side[w] for w in winners}
    lose = len(sides) - len(win_sides)
    if lose == 0:
        return out
    for s in range(n):
        out[s] = 1.0 / len(win_sides) if side[s] in win_sides else -1.0 / lose
    return out
