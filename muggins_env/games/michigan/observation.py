"""Michigan's observation (``MichiganGame.observation_layout``), kept beside the rules.

Each observed player's view (everything but the pieces that change every step: the sequence,
the stopped suit, the phase and the player to act) is kept between steps and brought up to
date from what the rules report (a card played, a boodle card collected, a widow card shown);
the end of a hand drops the views and the next observation rebuilds them from the state. The
first player observed in a hand gets their own view built; a second one gets every seat's at
once, as the rows of one table (the AEC loop observes them all; a seat env observing one seat
keeps one), which a played card updates with two writes by precomputed flat index.
"""

from __future__ import annotations

import numpy as np

from ...kernel.cards import NUM_CARDS
from ...kernel.observer import Observer
from .rules import FOLLOW, LEAD, MRANK, NO_SUIT, OVER, SUIT, MichiganState
from .tables import view_tables

#: scale of the chip squash in observations (x / (|x| + CHIP_SCALE))
CHIP_SCALE = 50.0
#: largest hand (3 players: 13 cards each and 13 in the widow)
MAX_HAND = 13
ALL_SEATS = slice(None)  # every seat's row of a table by seat (``MichiganObserver._rows``)


def _unpack52(mask: int) -> np.ndarray:
    """The 52 low bits of ``mask`` as a 0/1 array, bit 0 first."""
    return np.unpackbits(np.frombuffer(mask.to_bytes(7, "little"), dtype=np.uint8), bitorder="little")[:NUM_CARDS]


class MichiganObserver(Observer):
    """The observations of one Michigan state: the views kept this hand, either one seat's
    (``one``: seat and row) or every seat's (``table``, one row per seat, also as ``rows`` and as
    ``flat``, the same memory as one vector); neither until a seat is observed."""

    __slots__ = ("at", "flat", "one", "rows", "table")

    def __init__(self, state: MichiganState) -> None:
        self.state = state
        self.at = view_tables(state.game)
        self.one: tuple[int, np.ndarray] | None = None
        self.table: np.ndarray | None = None
        self.rows: list[np.ndarray] | None = None
        self.flat: np.ndarray | None = None

    def __getstate__(self) -> tuple[None, dict]:
        """A pickled or deep-copied observer keeps no view: the table's rows and flat vector
        share its memory, which a copy would split; the copy's first observation rebuilds them."""
        return None, {"state": self.state, "at": self.at, "one": None, "table": None, "rows": None, "flat": None}

    def _kept(self) -> list[tuple[int, np.ndarray]]:
        """Every kept view with its seat."""
        if self.rows is not None:
            return list(enumerate(self.rows))
        return [self.one] if self.one is not None else []

    # -- what the rules report -------------------------------------------------------------------------
    def played(self, seat: int, card: int) -> None:
        """``seat`` played ``card`` from its hand (its count is down by one)."""
        rows = self.rows
        if rows is not None:
            at, flat = self.at, self.flat
            flat[at.played_flat[card, seat]] = 1.0
            flat[at.counts_flat[seat]] = self.state.counts[seat] / MAX_HAND
            rows[seat][at.hand + card] = 0.0
        elif self.one is not None:
            viewer, view = self.one
            at = self.at
            n = self.state.n
            rel = (seat - viewer) % n
            view[at.played + card * n + rel] = 1.0
            view[at.counts + rel] = self.state.counts[seat] / MAX_HAND
            if viewer == seat:
                view[at.hand + card] = 0.0

    def collected(self, seat: int, boodle: int) -> None:
        """``seat`` collected the chips on boodle card ``boodle``: its pile is empty
        (0 / (0 + CHIP_SCALE)), the seat's balance up."""
        at, n = self.at, self.state.n
        x = self.state.balances[seat]
        squashed = 0.5 + 0.5 * x / (abs(x) + CHIP_SCALE)
        for viewer, view in self._kept():
            view[at.layout + boodle] = 0.0
            view[at.balances + (seat - viewer) % n] = squashed

    def widow_shown(self, card: int) -> None:
        """A stop showed that ``card`` is in the widow."""
        i = self.at.widow + card
        for _, view in self._kept():
            view[i] = 1.0

    def hand_ended(self) -> None:
        """Balances, the layout and the hands played change: the views are rebuilt when observed."""
        self.one = self.table = self.rows = self.flat = None

    # -- the observation ---------------------------------------------------------------------------------
    def observation(self, player: int) -> np.ndarray:
        rows = self.rows
        if rows is not None:
            obs = rows[player].copy()
        else:
            one = self.one
            if one is None:
                view = self._rows(slice(player, player + 1))[0]
                self.one = (player, view)
            elif one[0] == player:
                view = one[1]
            else:  # a second seat observed: every seat's view at once
                self.table = table = self._rows(ALL_SEATS)
                self.rows = rows = list(table)
                self.flat = table.reshape(-1)
                self.one = None
                view = rows[player]
            obs = view.copy()
        # the one-hot pieces that change every step (from sequence_suit to to_act, 0 in the view)
        s = self.state
        at = self.at.sequence
        phase = s.phase
        if phase == FOLLOW:
            obs[at + SUIT[s.need]] = 1.0
            obs[at + 4 + MRANK[s.need] - 2] = 1.0
        elif phase == LEAD and s.stopped_suit != NO_SUIT:
            obs[at + 17 + s.stopped_suit] = 1.0
        if phase != OVER:
            obs[at + 21 + phase] = 1.0
            obs[at + 23 + (s.player - player) % s.n] = 1.0
        return obs

    def _rows(self, seats: slice) -> np.ndarray:
        """The views of the seats in ``seats`` (everything but the pieces that change every
        step), one row each, from scratch. A slice: indexing the tables with it copies nothing."""
        s, at = self.state, self.at
        g = s.game
        ids = s.hand_ids[seats]
        views = np.zeros((len(ids), g.observation_size), dtype=np.float32)
        views[:, at.hand:at.hand + NUM_CARDS] = np.unpackbits(
            np.frombuffer(b"".join([h.to_bytes(7, "little") for h in ids]), dtype=np.uint8).reshape(-1, 7),
            axis=1, bitorder="little")[:, :NUM_CARDS]
        if s.played:
            rows, columns = at.seat_rows[:len(ids)], at.played_columns
            for c, p in s.played:
                views[rows, columns[c, p, seats]] = 1.0
        if s.known_widow:
            views[:, at.widow:at.widow + NUM_CARDS] = _unpack52(s.known_widow)
        # the tail from the dealer on, by absolute seat (see tables.ViewTables.tail_order)
        table = [0.0] * s.n
        table[s.dealer] = 1.0
        table += [amount / (amount + CHIP_SCALE) for amount in s.boodle]
        table.append(s.kitty / (s.kitty + CHIP_SCALE))
        table += [0.5 + 0.5 * x / (abs(x) + CHIP_SCALE) for x in s.balances]
        table += [c / MAX_HAND for c in s.counts]
        table += [s.widow_count / MAX_HAND, s.hands_played / g.num_hands]
        views[:, at.dealer:] = np.array(table, dtype=np.float32)[at.tail_order[seats]]
        return views
