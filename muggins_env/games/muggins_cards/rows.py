"""Card Muggins' observation pieces as read-only rows made once (``observation.CardsObserver``):
refreshing a piece is then one slice write instead of a zeroing and index writes."""

from __future__ import annotations

import numpy as np

from ...kernel.cards import NUM_CARDS


def _rows(width: int, ones: list[list[int]]) -> list[np.ndarray]:
    """Read-only float32 rows of ``width``, row i with 1 at each index of ``ones[i]``."""
    out = []
    for at in ones:
        row = np.zeros(width, dtype=np.float32)
        row[at] = 1
        row.flags.writeable = False
        out.append(row)
    return out


#: a common pile's piece by its top rank (1..13: present flag and rank)
PILE_ROWS = _rows(14, [[]] + [[0, r] for r in range(1, 14)])
#: a seat's next card's piece by rank - 1 (13: unknown)
NEXT_ROWS = _rows(13, [[r] for r in range(13)] + [[]])
#: (discard top rank or 0, stock size, discard size) -> a seat's piece, made by ``seat_row``
SEAT_ROWS: dict[tuple[int, int, int], np.ndarray] = {}


def seat_row(key: tuple[int, int, int]) -> np.ndarray:
    """A seat's observation piece (its discard top's rank one-hot, its stock and discard sizes),
    made once and kept in ``SEAT_ROWS``."""
    rank, stock, discard = key
    row = np.zeros(15, dtype=np.float32)
    if rank:
        row[rank - 1] = 1
    row[13] = stock / NUM_CARDS
    row[14] = discard / NUM_CARDS
    row.flags.writeable = False
    SEAT_ROWS[key] = row
    return row
