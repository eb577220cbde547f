"""Index tables for Michigan's observer (``observation.MichiganObserver``), made once per
player count: with them every seat's view is built, and a played card written into every seat's
view, by a few fancy-index writes instead of a Python loop over the seats."""

from __future__ import annotations

import numpy as np

from ...kernel.cards import NUM_CARDS
from .rules import BOODLE_CARDS, MichiganGame


class ViewTables:
    """Where each piece of one player count's observation starts, and the index tables that
    write every seat's view at once."""

    __slots__ = ("balances", "counts", "counts_flat", "dealer", "hand", "layout", "played", "played_columns",
                 "played_flat", "seat_rows", "sequence", "tail_order", "widow")

    def __init__(self, game: MichiganGame) -> None:
        n, at, size = game.num_players, game.offsets, game.observation_size
        self.hand, self.played, self.widow, self.sequence = (at["hand"], at["played"], at["known_widow"],
                                                             at["sequence_suit"])
        self.counts, self.layout, self.balances, self.dealer = (at["counts"], at["layout"], at["balances"],
                                                                at["dealer"])
        # the tail's layout is fixed in observation(): check it against the declaration
        assert at["phase"] - at["sequence_suit"] == 21
        assert at["balances"] + 2 * n + 1 == at["hands_played"]
        # viewer v's tail from the dealer on is a table by absolute seat, taken at tail_order[v]
        # (relative seat r is seat (v + r) % n)
        rot = [[(v + r) % n for r in range(n)] for v in range(n)]
        self.seat_rows = seats = np.arange(n)
        #: [card, seat]: where each viewer's row marks that ``seat`` played ``card``
        self.played_columns = (at["played"] + n * np.arange(NUM_CARDS)[:, None, None]
                               + (seats[None, :, None] - seats[None, None, :]) % n)
        # the same and each viewer's count of ``seat``'s cards, as flat indices into the table
        # of every seat's row (``MichiganObserver.flat``)
        self.played_flat = self.played_columns + size * seats
        self.counts_flat = at["counts"] + (seats[:, None] - seats[None, :]) % n + size * seats
        lay = len(BOODLE_CARDS) + 1  # the boodle cards and the Kitty
        self.tail_order = np.array([rot[v] + [n + k for k in range(lay)] + [n + lay + s for s in rot[v]]
                                    + [2 * n + lay + s for s in rot[v]] + [3 * n + lay, 3 * n + lay + 1]
                                    for v in range(n)])


#: the tables of each player count, made the first time a game of that count is observed
_TABLES: dict[int, ViewTables] = {}


def view_tables(game: MichiganGame) -> ViewTables:
    """The tables of ``game``'s player count (they depend on nothing else)."""
    tables = _TABLES.get(game.num_players)
    if tables is None:
        tables = _TABLES[game.num_players] = ViewTables(game)
    return tables
