"""Card Muggins' observation (``MugginsCardsGame.observation_layout``), kept beside the rules.

Everything in this game is public, so one set of pieces serves every player: the observer
keeps them by absolute seat in one array laid out as seat 0's observation (the common piles,
each seat's discard top and pile sizes, each seat's next card when known and the table's
ranks; zero elsewhere). A move reports what it changed (a card turned up or laid, a discard
recycled, a penalty); the next observation rewrites only those pieces from the state, then
copies the array, rotated to the observer's seat, and adds the pieces of the moment.
"""

from __future__ import annotations

import numpy as np

from ...kernel.cards import RANK_LIST
from ...kernel.observer import Observer
from .rows import NEXT_ROWS, PILE_ROWS, SEAT_ROWS, rotations, seat_row
from .rules import OVER, RANK0, REVIEW, MugginsCardsState

#: keys of ``CardsObserver.dirty`` besides the seats: the table's ranks, common pile k is _PILE - k
_TABLE, _PILE = -1, -2


class CardsObserver(Observer):
    """The observations of one card Muggins state: the public pieces by absolute seat
    (``full``) and the pieces moves changed since they were last written (``dirty``)."""

    __slots__ = ("at", "dirty", "full", "rotations")

    def __init__(self, state: MugginsCardsState) -> None:
        self.state = state
        g = state.game
        self.rotations = rotations(g)
        self.at = g.obs_at
        self.full = np.zeros(g.observation_size, dtype=np.float32)
        at = g.obs_at.seen
        self.full[at:at + 13] = state.table_ranks
        self.full[at:at + 13] *= 0.25
        self.dirty = {*range(state.n), *(_PILE - k for k in range(len(state.commons)))}

    # -- what the rules report -------------------------------------------------------------------------
    def turned_up(self, seat: int) -> None:
        """``seat`` turned up the top of its stock."""
        self.dirty.add(seat)

    def recycled(self, seat: int) -> None:
        """``seat``'s discard was turned over as its stock: many ranks leave the table."""
        self.dirty.update((seat, _TABLE))

    def penalised(self) -> None:
        """A Muggins penalty: every stock changes."""
        self.dirty.update(range(self.state.n))

    def laid(self, owner: int, pile: int, card: int) -> None:
        """``card`` laid face up on ``owner``'s discard, or on common pile ``pile`` (owner -1)."""
        self.dirty.add(owner if owner >= 0 else _PILE - pile)
        r = RANK0[card]
        self.full[self.at.seen + r] = self.state.table_ranks[r] * 0.25

    # -- the observation ---------------------------------------------------------------------------------
    def observation(self, player: int) -> np.ndarray:
        s = self.state
        n = s.n
        if self.dirty:
            self._refresh()
        obs = self.full[self.rotations[player]] if player else self.full.copy()
        at = self.at
        if s.exposed >= 0:
            obs[RANK_LIST[s.exposed] - 1] = 1
        phase = s.phase
        if phase != OVER:
            i = at.to_act
            obs[i + ((s.callers[0] if phase == REVIEW else s.player) - player) % n] = 1
            obs[i + n + phase] = 1
            obs[i + n + 3 + (s.player - player) % n] = 1
            if phase == REVIEW:
                placer, placed, _, _ = s.review
                obs[at.review + s._relative_destination(player, placer, placed)] = 1
        obs[at.clock] = s.turns / s.game.max_turns
        return obs

    def _refresh(self) -> None:
        """Rewrite the kept pieces that moves changed (``dirty``), from the state."""
        s = self.state
        full, at = self.full, self.at
        for key in self.dirty:
            if key >= 0:
                discard = s.discards[key]
                piece = (RANK_LIST[discard[-1]] if discard else 0, len(s.stocks[key]), len(discard))
                row = SEAT_ROWS.get(piece)
                i = at.seats + 15 * key
                full[i:i + 15] = seat_row(piece) if row is None else row
                j = at.next + 13 * key
                card = s.known_next(key)
                full[j:j + 13] = NEXT_ROWS[RANK0[card] if card >= 0 else 13]
            elif key == _TABLE:
                i = at.seen
                full[i:i + 13] = s.table_ranks
                full[i:i + 13] *= 0.25
            else:
                k = _PILE - key
                i = at.commons + 14 * k
                full[i:i + 14] = PILE_ROWS[RANK_LIST[s.commons[k][-1]]]
        self.dirty.clear()
