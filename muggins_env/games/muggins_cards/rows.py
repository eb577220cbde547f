"""What card Muggins' observer (``observation.CardsObserver``) makes once and reuses: its pieces
as read-only rows, so that refreshing a piece is one slice write instead of a zeroing and index
writes, and per seat the index that rotates the pieces kept by absolute seat to that seat's
view in one gather."""

from __future__ import annotations

import numpy as np

from ...kernel.cards import NUM_CARDS
from .rules import MugginsCardsGame


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


def _make_rotations(game: MugginsCardsGame) -> list[np.ndarray]:
    """Per observer, where each entry of its observation comes from in the pieces laid out for
    seat 0 (``CardsObserver.full``): the per-seat pieces rotated, the rest in place."""
    n, at = game.num_players, game.obs_at
    out = []
    for player in range(n):
        index = np.arange(game.observation_size)
        for piece, width in (("seats", 15), ("next", 13)):
            first = getattr(at, piece)
            block = index[first:first + n * width].reshape(n, width)
            index[first:first + n * width] = np.roll(block, -player, axis=0).ravel()
        out.append(index)
    return out


#: the rotations of each player count, made the first time a game of that count is observed
_ROTATIONS: dict[int, list[np.ndarray]] = {}


def rotations(game: MugginsCardsGame) -> list[np.ndarray]:
    """The rotations of ``game``'s player count (they depend on nothing else)."""
    out = _ROTATIONS.get(game.num_players)
    if out is None:
        out = _ROTATIONS[game.num_players] = _make_rotations(game)
    return out
