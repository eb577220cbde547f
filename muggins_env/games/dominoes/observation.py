"""A player's observation of Muggins dominoes (``DominoesGame.observation_layout``), beside the rules.

The layout's pieces (the tiles played, the lead still to make, each open arm: its pip, a
crosswise double, a spinner, whether that spinner counts) are the same for every player and
change only with a play, so the observer keeps them as a *board* once built (by the first
observation of a hand), brings it up to date from each play the rules report (``played``),
drops it at a new hand (``new_hand``), and copies it under each player's own pieces.
"""

from __future__ import annotations

import numpy as np

from ...kernel.observer import Observer
from .layout import LINE
from .phases import EXTRA_OFFERED, LEAD_SLOT, OVER, RESPOND_PHASE


def observation_layout(g) -> dict[str, int]:
    """The observation's pieces in order (name -> size) for the configuration of game ``g``."""
    n, t, s = g.num_players, g.num_tiles, g.set_max
    o = {}
    o["hand"] = t  # own tiles
    o["played"] = t  # tiles on the layout
    o["lead_needed"] = 1  # the layout is empty: the next play is the lead
    o["arms"] = g.num_arms * (s + 5)  # per arm: open, pip one-hot, crosswise, spinner, spinner counts
    o["count"] = 1  # count / max_count
    o["scores"] = g.num_sides  # per relative side (own first): min(score / target, 1)
    o["tiles"] = n  # per relative seat: tiles in hand / num_tiles
    o["drawn"] = n  # per relative seat: tiles drawn this hand / num_tiles
    o["boneyard"] = 1  # boneyard size / num_tiles
    o["phase"] = 3  # play, announce, respond
    o["mover"] = n  # relative seat whose turn it is (who played, during announce/respond)
    o["to_act"] = n  # relative seat to decide now
    o["announcement"] = g.max_announcement + 1  # one-hot, during respond
    if g.knocking:
        o["knock_choice"] = 1  # (to the player to act only) one cannot play: knock or draw
        o["knocker"] = n  # relative seat of the knocker while a knock awaits its forced scoring play
    if g.extra_play:
        o["extra"] = 1  # the player to act may make the extra play (or stop)
    return o


class DominoesObserver(Observer):
    __slots__ = ("board",)

    def __init__(self, state) -> None:
        super().__init__(state)
        self.board: np.ndarray | None = None  # the layout's pieces, built by the first observation of a hand

    # -- what the rules report ----------------------------------------------------------------
    def new_hand(self) -> None:
        self.board = None

    def played(self, tile: int, slot: int) -> None:
        """``tile`` went to ``slot``. In a line only the arm played on changes (a lead opens
        both); with spinners a play may open arms or change what another arm's spinner counts,
        so every arm is written again."""
        board = self.board
        if board is None:
            return
        g = self.state.game
        at = g.obs_at
        board[at.played + tile] = 1.0
        width = g.set_max + 5
        if slot == LEAD_SLOT:
            board[at.lead_needed] = 0.0
        elif g.variant.layout == LINE:
            j = at.arms + (slot - 1) * width
            board[j:j + width] = 0.0
            self._write_arm(board, slot)
            return
        board[at.arms:at.arms + g.num_arms * width] = 0.0
        for k in self.state.layout.open_arms:
            self._write_arm(board, k)

    # -- building -------------------------------------------------------------------------------
    def observation(self, player: int) -> np.ndarray:
        state = self.state
        g, n = state.game, state.n
        at = g.obs_at
        t = g.num_tiles
        board = self.board
        if board is None:
            board = self.board = self.build_board()
        obs = board.copy()
        for tile in state.hands[player]:  # own tiles start at 0
            obs[tile] = 1.0
        phase = state.phase
        if phase != OVER:
            obs[at.phase + phase] = 1.0
            obs[at.mover + (state.player - player) % n] = 1.0
            if phase == RESPOND_PHASE:
                r = state.review
                obs[at.to_act + (g.responders[r[0]][r[3]] - player) % n] = 1.0
                obs[at.announcement + r[1]] = 1.0
            else:
                obs[at.to_act + (state.player - player) % n] = 1.0
            if g.knocking:
                if player == state.player and state.legal_actions()[0] == g.KNOCK:  # seen by the chooser only
                    obs[at.knock_choice] = 1.0
                if state.knock is not None:
                    obs[at.knocker + (state.knock[0] - player) % n] = 1.0
            if state.extra == EXTRA_OFFERED:
                obs[at.extra] = 1.0
        # the scalars are contiguous: count, scores, tiles, drawn, boneyard
        target, scores = g.target, state.scores
        values = [state.layout.count / g.max_count]
        for side in g.relative_sides[player]:
            values.append(min(scores[side] / target, 1.0))
        seats = g.relative_seats[player]
        hands, drawn = state.hands, state.drawn
        for s in seats:
            values.append(len(hands[s]) / t)
        for s in seats:
            values.append(drawn[s] / t)
        values.append(len(state.boneyard) / t)
        i = at.count
        obs[i:i + len(values)] = values
        return obs

    def build_board(self) -> np.ndarray:
        """The observation with only the layout's pieces written, from the state's plays and layout."""
        state = self.state
        g = state.game
        at = g.obs_at
        board = np.zeros(g.observation_size, dtype=np.float32)
        i = at.played
        for _, tile, _ in state.plays:
            board[i + tile] = 1.0
        if state.layout.lead < 0:
            board[at.lead_needed] = 1.0
        for k in state.layout.open_arms:
            self._write_arm(board, k)
        return board

    def _write_arm(self, board: np.ndarray, k: int) -> None:
        """Write open arm ``k``'s piece (open, its pip, crosswise, spinner, the spinner counts)."""
        g, lay = self.state.game, self.state.layout
        sm = g.set_max
        j = g.obs_at.arms + (k - 1) * (sm + 5)
        board[j] = 1.0
        board[j + 1 + lay.pip[k]] = 1.0
        crosswise, spinner, counts = lay.end_kind(k)
        if crosswise:
            board[j + sm + 2] = 1.0
        if spinner:
            board[j + sm + 3] = 1.0
        if counts:
            board[j + sm + 4] = 1.0

    def clone_for(self, state) -> DominoesObserver:
        """The clone keeps a copy of the board (it is written in place by the clone's plays)."""
        c = DominoesObserver(state)
        c.board = self.board.copy() if self.board is not None else None
        return c
