"""A player's observation of Muggins dominoes (``DominoesGame.observation_layout``), beside the rules.

The layout's pieces (the tiles played, the lead still to make, each open arm: its pip, a
crosswise double, a spinner, whether that spinner counts) are the same for every player and
change only with a play, so the observer keeps them as a *board* once built (by the first
observation of a hand), brings it up to date from each play the rules report (``played``),
drops it at a new hand (``new_hand``), and copies it under each player's own pieces.
"""

from __future__ import annotations

import weakref

import numpy as np

from ...kernel.observer import Observer
from .phases import EXTRA_OFFERED, LEAD_SLOT, OVER, RESPOND_PHASE
from .speed import observation_plan


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
    __slots__ = ("_state", "board", "opened", "plan")

    #: the observation's pieces (name -> size, in order) for a game's options
    layout = staticmethod(observation_layout)

    # The state holds its observer, so the observer holds the state weakly: a strong pair is a
    # reference cycle, which only the cycle collector frees (every episode's state and every clone).
    @property
    def state(self):
        return self._state()

    @state.setter
    def state(self, state) -> None:
        self._state = weakref.ref(state)

    def __init__(self, state) -> None:
        super().__init__(state)
        self.board: np.ndarray | None = None  # the layout's pieces, built by the first observation of a hand
        self.opened = 0  # how many of the layout's open arms (``Layout.open_arms``, in opening order) it shows
        self.plan = observation_plan(state.game)  # speed.py: pieces written whole

    # -- what the rules report ----------------------------------------------------------------
    def new_hand(self) -> None:
        self.board = None

    def played(self, tile: int, slot: int) -> None:
        """``tile`` went to ``slot``. Only two kinds of arm change: the arm played on, and the
        arms the play opened (the lead's two, or a spinner's two ends once its sides are
        covered): no other arm's end is the double whose side the play covered (a lead
        double's other side keeps what it shows while a side stays free), and a sniff counts
        by its ends, which only a play on one of them covers."""
        board = self.board
        if board is None:
            return
        state = self._state()
        lay = state.layout
        at = self.plan.at
        board[at.played + tile] = 1.0
        write_arm = self.plan.write_arm
        if slot == LEAD_SLOT:
            board[at.lead_needed] = 0.0
        else:
            write_arm(board, lay, slot)
        open_arms = lay.open_arms
        if len(open_arms) > self.opened:
            for k in open_arms[self.opened:]:
                write_arm(board, lay, k)
            self.opened = len(open_arms)

    # -- building -------------------------------------------------------------------------------
    def observation(self, player: int) -> np.ndarray:
        state = self._state()
        g, n = state.game, state.n
        board = self.board
        if board is None:
            board = self.board = self.build_board()
            self.opened = len(state.layout.open_arms)
        obs = board.copy()
        plan = self.plan
        for tile in state.hands[player]:  # own tiles start at 0
            obs[tile] = 1.0
        phase = state.phase
        if phase == OVER:
            one_hots = plan.none
        else:  # the phase, the relative seat whose turn it is and the one to decide now
            mover = (state.player - player) % n
            if phase == RESPOND_PHASE:
                r = state.review
                one_hots = plan.one_hots[phase][mover][(g.responders[r[0]][r[3]] - player) % n]
                obs[plan.at.announcement + r[1]] = 1.0
            else:
                one_hots = plan.one_hots[phase][mover][mover]
            if g.knocking:
                at = plan.at
                if player == state.player and state.legal_actions()[0] == g.KNOCK:  # seen by the chooser only
                    obs[at.knock_choice] = 1.0
                if state.knock is not None:
                    obs[at.knocker + (state.knock[0] - player) % n] = 1.0
            if state.extra == EXTRA_OFFERED:
                obs[plan.at.extra] = 1.0
        # count, scores by relative side (at most 1), tiles and draws by relative seat, boneyard
        target, scores, share = g.target, state.scores, plan.tile_share
        values = [plan.count_share[state.layout.count]]
        for side in g.relative_sides[player]:
            x = scores[side]
            values.append(x / target if x < target else 1.0)
        seats = g.relative_seats[player]
        hands, drawn = state.hands, state.drawn
        for s in seats:
            values.append(share[len(hands[s])])
        for s in seats:
            values.append(share[drawn[s]])
        values.append(share[len(state.boneyard)])
        plan.pack_tail(obs, plan.tail_at, *values, one_hots)
        return obs

    def build_board(self) -> np.ndarray:
        """The observation with only the layout's pieces written, from the state's plays and layout."""
        state = self.state
        g = state.game
        at = self.plan.at
        board = np.zeros(g.observation_size, dtype=np.float32)
        i = at.played
        for _, tile, _ in state.plays:
            board[i + tile] = 1.0
        if state.layout.lead < 0:
            board[at.lead_needed] = 1.0
        for k in state.layout.open_arms:
            self.plan.write_arm(board, state.layout, k)
        return board

    def __reduce__(self):
        # a weak reference does not pickle or deep-copy: the copy is made again around its state
        state = self._state()
        return _restored, (state.game, state, self.board, self.opened)

    def clone_for(self, state) -> DominoesObserver:
        """The clone keeps a copy of the board (it is written in place by the clone's plays)."""
        c = object.__new__(DominoesObserver)
        c._state, c.plan, c.opened = weakref.ref(state), self.plan, self.opened
        c.board = self.board.copy() if self.board is not None else None
        return c


def _restored(game, state, board: np.ndarray | None, opened: int) -> DominoesObserver:
    c = object.__new__(DominoesObserver)
    c._state, c.plan, c.board, c.opened = weakref.ref(state), observation_plan(game), board, opened
    return c
