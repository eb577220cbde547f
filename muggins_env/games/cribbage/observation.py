"""Cribbage's observation (``CribbageGame.observation_layout``), kept beside the rules.

One board per observed state: seat 0's observation (every public piece by absolute seat and
side, seat 0's hand and crib discards in their places), then every other seat's hand and crib
discards in blocks of their own. The rules report what they did (``laid_away``, ``laid``,
``count_settled``, ``new_deal``, ...) and the observer writes it on the board; a player's
observation is one gather from the board through ``Board.gather[player]`` (its hand, its
discards, every seat-relative piece rotated; seat 0's, the identity, a copy of the board's head)
plus the few entries that change on most steps, which the board keeps at 0: to act, phase,
count, announcement, acceptances. The scores are written when they changed. A clone keeps no
board: its first observation builds one from its state.
"""

from __future__ import annotations

import numpy as np

from ...kernel.game import piece_offsets
from ...kernel.observer import Observer
from .rules import MAX_COUNT, OVER, PLAY, RESPOND

#: the largest value of each breakdown part (fifteens, pairs, runs, flush, nobs), to scale it
PART_MAX = (16, 12, 12, 5, 1)


class Board:
    """Where each piece sits on the board of a game with ``game.num_players`` players (the same
    for every game of that many: the layout depends on nothing else). ``o``: every piece's
    offset; the pieces written at every step are attributes of their own (read faster)."""

    __slots__ = ("accepted", "announced", "count", "discards_at", "gather", "hand_at", "o", "observation_size",
                 "phase", "play_end", "played_at", "review_end", "scores", "shown_block", "size", "to_act_at")

    def __init__(self, game) -> None:
        n, off = game.num_players, game.observation_size
        o = piece_offsets(game.observation_layout)[1]
        self.o, self.observation_size = o, off
        self.phase, self.count, self.announced, self.accepted, self.scores = (
            o.phase, o.count, o.announced, o.accepted, o.scores)
        # pieces cleared together by one slice: the play's series, count and go flags; a
        # review's cards, counter, crib flag, announcement and acceptances (the count, the
        # announcement and the acceptances are never kept on the board: see observation)
        assert o.count == o.series + 52 and o.gone == o.count + 1
        assert o.counter == o.counted + 52 and o.is_crib == o.counter + n and o.accepted == o.is_crib + 2
        self.play_end, self.review_end = o.gone + n, o.accepted + 1
        #: (this deal's settled-counts block, the previous deal's, their size): the same layout
        self.shown_block = (o.shown_totals, o.previous_shown_totals, o.previous_shown_totals - o.shown_totals)
        assert o.previous_crib + 52 == off and o.previous_crib - o.previous_shown_totals == o.crib - o.shown_totals
        #: per observer: where each seat's "to act" flag goes (relative seats)
        self.to_act_at = [[o.to_act + (s - p) % n for s in range(n)] for p in range(n)]
        self.hand_at = [o.hand] + [off + (s - 1) * 52 for s in range(1, n)]
        self.discards_at = [o.crib_discards] + [off + (n - 1 + s - 1) * 52 for s in range(1, n)]
        self.played_at = [o.played + s * 52 for s in range(n)]
        self.size = off + 2 * (n - 1) * 52
        cards, parts = np.arange(52), np.arange(5)
        #: per player: the board entry of each entry of its observation
        self.gather = []
        for p in range(n):
            at = np.arange(off)
            at[o.hand:o.hand + 52] = self.hand_at[p] + cards
            at[o.crib_discards:o.crib_discards + 52] = self.discards_at[p] + cards
            for k in range(n):
                s = (p + k) % n
                at[o.played + k * 52:o.played + (k + 1) * 52] = o.played + s * 52 + cards
                for piece in (o.gone, o.dealer, o.counter, o.shown_totals, o.shown_announced,
                              o.previous_shown_totals, o.previous_shown_announced):
                    at[piece + k] = piece + s
                for piece in (o.shown_breakdown, o.previous_shown_breakdown):
                    at[piece + k * 5:piece + k * 5 + 5] = piece + s * 5 + parts
            for r in range(game.num_sides):
                at[o.scores + r] = o.scores + (r + game.teams[p]) % game.num_sides
            at.flags.writeable = False
            self.gather.append(at)
        assert (self.gather[0] == np.arange(off)).all()  # (observation copies the head for seat 0)


#: player count -> its board layout (built once: a game's first state would otherwise pay it)
_BOARDS: dict[int, Board] = {}
#: a breakdown's parts -> the parts scaled by their maxima (few: every breakdown a show can have)
_SCALED_PARTS: dict[tuple, tuple] = {}


def board_of(game) -> Board:
    board = _BOARDS.get(game.num_players)
    if board is None:
        board = _BOARDS[game.num_players] = Board(game)
    return board


def _settled_values(rv: dict) -> tuple[float, float, tuple]:
    """A settled count as every observation shows it: total, announcement, scaled parts."""
    parts = tuple(rv["breakdown"].values())
    scaled = _SCALED_PARTS.get(parts)
    if scaled is None:
        scaled = _SCALED_PARTS[parts] = tuple(v / m for v, m in zip(parts, PART_MAX))
    return rv["true"] / MAX_COUNT, rv["announced"] / MAX_COUNT, scaled


class CribbageObserver(Observer):
    __slots__ = ("at", "board", "cells", "written_scores")

    def __init__(self, state) -> None:
        self.state = state
        self.at = board_of(state.game)
        self.board = self._new_board()
        #: the board's entries one by one: a memoryview's item write costs half numpy's
        self.cells = memoryview(self.board)
        self.written_scores: list | None = None  # the scores written on the board

    def __getstate__(self) -> tuple:  # (a memoryview does not pickle: it is made again)
        return self.state, self.at, self.board, self.written_scores

    def __setstate__(self, saved: tuple) -> None:
        self.state, self.at, self.board, self.written_scores = saved
        self.cells = memoryview(self.board)

    def observation(self, player: int) -> np.ndarray:
        return self.observe(self.state, player)

    @staticmethod
    def observe(state, player: int) -> np.ndarray:
        """``state.observation(player)``: the kernel's ``State.observation`` and the observer's
        in one call (the rules make it the state's: the AEC loop observes at every step)."""
        seen = state.seen
        if seen is None:
            seen = state.seen = CribbageObserver(state)
        at, board = seen.at, seen.board
        scores = state.scores
        if seen.written_scores != scores:  # the scores change a few times a deal
            target, first, cells = state.game.target, at.scores, seen.cells
            for side, score in enumerate(scores):
                cells[first + side] = min(score, target) / target if score else 0.0
            seen.written_scores = list(scores)
        # seat 0 reads the board's head as it is; fancy indexing: cheaper than take()
        obs = board[at.gather[player]] if player else board[:at.observation_size].copy()
        phase = state.phase
        rv = state.review
        if phase != OVER:
            obs[at.to_act_at[player][rv["responders"][rv["asked"]] if phase == RESPOND else state.player]] = 1.0
        obs[at.phase + phase] = 1.0
        count = state.count
        if count:
            obs[at.count] = count / 31
        if rv is not None:
            if rv["announced"] is not None:
                obs[at.announced] = rv["announced"] / MAX_COUNT
            obs[at.accepted] = rv["asked"] / state.n
        return obs

    # -- what the rules did ------------------------------------------------------------------------
    def laid_away(self, seat: int, card: int) -> None:
        at, cells = self.at, self.cells
        cells[at.hand_at[seat] + card] = 0.0
        cells[at.discards_at[seat] + card] = 1.0

    def starter_cut(self, card: int) -> None:
        self.cells[self.at.o.starter + card] = 1.0

    def said_go(self, seat: int) -> None:
        self.cells[self.at.o.gone + seat] = 1.0

    def laid(self, seat: int, card: int) -> None:
        """``seat`` laid ``card`` in the play."""
        at, cells = self.at, self.cells
        cells[at.played_at[seat] + card] = 1.0
        cells[at.o.series + card] = 1.0
        cells[at.hand_at[seat] + card] = 0.0

    def series_ended(self) -> None:
        """The count went back to 0 (or the play ended): the series and the go flags go."""
        self.board[self.at.o.series:self.at.play_end] = 0.0  # (the count is not kept)

    def game_over(self) -> None:
        """The end hides the go flags (a count settling in the show reports ``count_settled``)."""
        first = self.at.o.gone
        self.board[first:first + self.state.n] = 0.0

    def under_review(self, rv: dict) -> None:
        self.board.put(self._review_entries(rv), 1.0)

    def count_settled(self, rv: dict) -> None:
        """The count leaves the review (the crib stays face up) for the settled counts."""
        board, at = self.board, self.at
        o = at.o
        board[o.counted:at.review_end] = 0.0  # its cards, its counter, the crib flag
        slot = self.state.n if rv["is_crib"] else rv["counter"]
        total, announced, parts = _settled_values(rv)
        cells = self.cells
        cells[o.shown_totals + slot] = total
        cells[o.shown_announced + slot] = announced
        first = o.shown_breakdown + slot * 5
        cells[first], cells[first + 1], cells[first + 2], cells[first + 3], cells[first + 4] = parts
        if rv["is_crib"]:  # (face up already if it was announced; not if counted automatically)
            board.put([o.crib + c for c in rv["cards"]], 1.0)

    def new_deal(self) -> None:
        """The settled counts and the crib move to the previous-deal block (the two blocks have
        the same layout), plus the dealer and the hands: what ``_new_board`` builds, for less."""
        state, at, board = self.state, self.at, self.board
        lo, prev_lo, size = at.shown_block
        shown = board[lo:lo + size].copy()
        board.fill(0.0)
        board[prev_lo:prev_lo + size] = shown
        board[at.o.dealer + state.dealer] = 1.0
        hand_at = at.hand_at
        board.put([hand_at[s] + c for s, hand in enumerate(state.hands) for c in hand], 1.0)
        self.written_scores = None  # written again by the next observation

    # -- from scratch -------------------------------------------------------------------------------
    def _new_board(self) -> np.ndarray:
        """The board of the state as it is, without the scores (``observation`` writes them)."""
        state, at = self.state, self.at
        n, o = state.n, at.o
        ones = [o.dealer + state.dealer]
        for seat in range(n):
            ones += [at.hand_at[seat] + c for c in state.hands[seat]]
            ones += [at.discards_at[seat] + c for c in state.laid_away[seat]]
            ones += [at.played_at[seat] + c for c in state.played[seat]]
        if state.starter_cut:
            ones.append(o.starter + state.starter_card)
        ones += [o.series + c for c in state.series]
        if state.phase == PLAY:
            ones += [o.gone + seat for seat in range(n) if state.gone[seat]]
        if state.review is not None:
            ones += self._review_entries(state.review)
        board = np.zeros(at.size, dtype=np.float32)
        board.put(ones, 1.0)
        where: list[int] = []
        values: list[float] = []
        self._write_shown(where, values, state.shown, o.shown_totals, o.shown_announced, o.shown_breakdown, o.crib)
        self._write_shown(where, values, state.previous_shown, o.previous_shown_totals,
                          o.previous_shown_announced, o.previous_shown_breakdown, o.previous_crib)
        board.put(where, values)
        return board

    def _review_entries(self, rv: dict) -> list[int]:
        """Where a count under review shows on the board: its cards, its counter and, for the
        crib, the crib flag and the crib face up."""
        o = self.at.o
        where = [o.counted + c for c in rv["cards"]]
        where.append(o.counter + rv["counter"])
        if rv["is_crib"]:
            where.append(o.is_crib)
            where += [o.crib + c for c in rv["cards"]]
        return where

    def _write_shown(self, where: list[int], values: list[float], shown, o_total: int, o_announced: int,
                     o_parts: int, o_crib: int) -> None:
        """Settled counts: total, announcement and scaled breakdown in the slot of the counter
        (the crib in slot n), and the crib's cards (as indices and values)."""
        n = self.state.n
        for done in shown:
            slot = n if done["is_crib"] else done["counter"]
            total, announced, parts = _settled_values(done)
            first = o_parts + slot * 5
            where += [o_total + slot, o_announced + slot, first, first + 1, first + 2, first + 3, first + 4]
            values.append(total)
            values.append(announced)
            values += parts
            if done["is_crib"]:
                where += [o_crib + c for c in done["cards"]]
                values += [1.0] * len(done["cards"])
