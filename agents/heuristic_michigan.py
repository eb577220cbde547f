"""Heuristic for Michigan (``michigan_v0``): the only free decision is the suit of a lead.

A lead plays the leader's lowest card of the chosen suit; the sequence then climbs the suit,
each card played by whoever holds it, until an ace or a card that is out (played, or in the
widow). Going out first takes the Kitty and a chip per card the others hold, so a good player
wants to shed cards and to keep the lead. For every suit it may lead, the heuristic walks the
suit upward from its lowest card with what it knows (its own hand, the cards played, the
widow cards shown by stops, the number of unseen widow cards) and estimates:

- ``shed``: how many of its own cards the sequence is expected to play (its cards further up
  the suit only count while no unknown card may have stopped the sequence before them; an
  unseen card is in the widow with probability widow cards unseen / cards unseen);
- ``regain``: the probability that the sequence stops right after one of its own cards, so
  that it leads again (an ace of its own, or the next card already played / shown in the
  widow: a stop it *controls*);
- ``boodle``: the chips on a boodle card (A♥ K♣ Q♦ J♠) it is expected to play: boodle cards
  are played early, before someone goes out and leaves them unclaimed.

It leads the suit with the best ``shed + 2 * regain + boodle`` (ties: the suit whose
lowest card is lowest). Following is forced (the single legal card).
"""

from __future__ import annotations

import numpy as np
from muggins_env.agents.base import HeuristicBase

from muggins_env.games.michigan import BOODLE_OF_CARD, FOLLOW, PLAYED
from muggins_env.kernel.cards import format_card, parse_card

#: Michigan rank (ace high, 2..14) and the next higher card of the suit (-1 after the ace)
MRANK = [14 if c % 13 == 0 else c % 13 + 1 for c in range(52)]
NEXT_CARD = [-1 if c % 13 == 0 else (c - 12 if c % 13 == 12 else c + 1) for c in range(52)]
_BOODLE = {parse_card(t): format_card(parse_card(t)) for t in ("AH", "KC", "QD", "JS")}
REGAIN_WEIGHT = 2.0
BOODLE_WEIGHT = 1.0


def lead_value(card: int, mine: set[int], out: set[int], p_widow: float, layout: dict) -> float:
    """Expected ``shed + 2 regain + boodle`` of leading ``card`` (see the module docstring)."""
    surv = 1.0  # probability that the sequence is still going
    shed = 1.0
    boodle = float(layout.get(_BOODLE[card], 0)) if card in _BOODLE else 0.0
    regain = 0.0
    last_mine = True
    c = card
    while True:
        nxt = NEXT_CARD[c]
        if nxt < 0 or nxt in out:  # ace played, or the next card is out: a stop
            if last_mine:
                regain += surv
            break
        if nxt in mine:
            shed += surv
            if nxt in _BOODLE:
                boodle += surv * float(layout.get(_BOODLE[nxt], 0))
            last_mine = True
        else:
            if last_mine:
                regain += surv * p_widow
            surv *= 1.0 - p_widow
            last_mine = False
        c = nxt
        if surv < 1e-3:
            break
    return shed + REGAIN_WEIGHT * regain + BOODLE_WEIGHT * boodle


def lead_value_on_state(card: int, owner: list[int], seat: int, known_widow: int, p_widow: float,
                        boodle: list[int]) -> float:
    """``lead_value`` read from a state's fields (who holds each card, the known widow cards as a
    bitmask, the boodle amounts) instead of the view's sets: the same arithmetic in the same
    order, so the same value, without building a view at every rollout step."""
    surv = 1.0
    shed = 1.0
    b = BOODLE_OF_CARD[card]
    bonus = float(boodle[b]) if b >= 0 else 0.0
    regain = 0.0
    last_mine = True
    c = card
    while True:
        nxt = NEXT_CARD[c]
        if nxt < 0:
            if last_mine:
                regain += surv
            break
        o = owner[nxt]
        if o == PLAYED or (known_widow >> nxt) & 1:  # the next card is out: a stop
            if last_mine:
                regain += surv
            break
        if o == seat:
            shed += surv
            b = BOODLE_OF_CARD[nxt]
            if b >= 0:
                bonus += surv * float(boodle[b])
            last_mine = True
        else:
            if last_mine:
                regain += surv * p_widow
            surv *= 1.0 - p_widow
            last_mine = False
        c = nxt
        if surv < 1e-3:
            break
    return shed + REGAIN_WEIGHT * regain + BOODLE_WEIGHT * bonus


class MichiganHeuristic(HeuristicBase):
    __doc__ = __doc__

    def _values(self, view: dict, legal) -> list[tuple[float, int]]:
        mine = set(view["hand"])
        out = {c for c, _ in view["played"]} | set(view["known_widow"])
        unseen = 52 - len(mine) - len(out)
        widow_unseen = view["widow_count"] - len(view["known_widow"])
        p_widow = widow_unseen / unseen if unseen > 0 else 0.0
        layout = view["layout"]
        return [(lead_value(int(a), mine, out, p_widow, layout), -MRANK[int(a)], int(a)) for a in legal]

    def choose(self, view: dict, legal: np.ndarray, rng: np.random.Generator) -> int:
        return max(self._values(view, legal))[2]

    def act_on_state(self, state, rng: np.random.Generator) -> int:
        """``choose`` on ``state.public_view(player)`` for search rollouts, read from the state's
        fields instead (``lead_value_on_state``): the same values, so the same move."""
        if state.phase == FOLLOW:  # following is forced: the next card of the sequence
            return int(state.need)
        legal = state.legal_actions()  # the mask's actions (no mask built)
        if len(legal) == 1:
            return int(legal[0])
        p = state.current_player()
        known = state.known_widow
        n_known = known.bit_count()
        unseen = 52 - state.counts[p] - len(state.played) - n_known
        p_widow = (state.widow_count - n_known) / unseen if unseen > 0 else 0.0
        owner, boodle = state.owner, state.boodle
        return max((lead_value_on_state(a, owner, p, known, p_widow, boodle), -MRANK[a], a) for a in legal)[2]

    def explain(self, view: dict, legal: np.ndarray, action: int) -> str:
        if len(legal) == 1:
            return "it is the only card that may be played"
        value = max(self._values(view, legal))[0]
        return (f"leading {format_card(action)} is worth about {value:.1f} (cards it should shed + 2 x the "
                "chance to lead again + boodle chips), the best of the suits you may lead")

    def candidates(self, view: dict, legal: np.ndarray, k: int) -> list[int]:
        return [a for *_, a in sorted(self._values(view, legal), reverse=True)[:k]]


class MichiganEvaluator:
    """Search rollouts to the end of the current hand; value = the change of (own balance -
    the others' mean balance) over the rollout, plus the return at the end of a session
    played for ``reward="win"``."""

    horizon = None

    def __init__(self, game) -> None:
        self.win_reward = not game.chip_rewards

    @staticmethod
    def _margin(view: dict, player: int) -> float:
        b = view["balances"]
        return b[player] - (sum(b) - b[player]) / (len(b) - 1)

    @staticmethod
    def _hand_number(state) -> int:
        return min(state.hands_played + 1, state.game.num_hands)  # the view's "hand_number"

    def start(self, state, player):
        state.halt_at_hand_end = True  # the rollout's own copy: the hand it stops at is not followed by a deal
        return self._hand_number(state), self._margin({"balances": state.balances}, player)

    def stop(self, state, player, marker) -> bool:
        return min(state.hands_played + 1, state.game.num_hands) != marker[0]

    def value(self, state, player, marker) -> float:
        v = self._margin({"balances": state.balances}, player) - marker[1]
        if self.win_reward and state.is_terminal():
            v += 10.0 * float(state.returns()[player])
        return v
