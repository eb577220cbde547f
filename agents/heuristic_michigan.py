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

from collections.abc import Iterable, Sequence

import numpy as np
from muggins_env.agents.base import HeuristicBase

from muggins_env.games.michigan import BOODLE_NAMES, BOODLE_OF_CARD, FOLLOW, PLAYED, WIDOW
from muggins_env.kernel.cards import format_card

#: Michigan rank (ace high, 2..14) and the next higher card of the suit (-1 after the ace)
MRANK = [14 if c % 13 == 0 else c % 13 + 1 for c in range(52)]
NEXT_CARD = [-1 if c % 13 == 0 else (c - 12 if c % 13 == 12 else c + 1) for c in range(52)]
REGAIN_WEIGHT = 2.0
BOODLE_WEIGHT = 1.0


def lead_value_on_state(card: int, owner: Sequence[int], seat: int, known_widow: int, p_widow: float,
                        boodle: Sequence[float]) -> float:
    """Expected ``shed + 2 regain + boodle`` of leading ``card`` (see the module docstring), read
    from a state's fields: who holds each card (``owner``: a seat, ``PLAYED`` or anything else for
    a card the player has not seen), the cards shown in the widow (a bitmask) and the chips on
    each boodle card (by boodle index). The search rollouts call it on the state itself."""
    surv = 1.0  # probability that the sequence is still going
    shed = 1.0
    b = BOODLE_OF_CARD[card]
    bonus = float(boodle[b]) if b >= 0 else 0.0
    regain = 0.0
    last_mine = True
    c = card
    while True:
        nxt = NEXT_CARD[c]
        if nxt < 0:  # after the ace: a stop
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


def view_fields(mine: Iterable[int], out: Iterable[int], layout: dict) -> tuple[list[int], list[float]]:
    """``lead_value_on_state``'s ``owner`` (seat 0 for ``mine``, ``PLAYED`` for the cards ``out``)
    and boodle chips from a view's sets and layout."""
    owner = [WIDOW] * 52
    for c in mine:
        owner[c] = 0
    for c in out:
        owner[c] = PLAYED
    return owner, [layout.get(name, 0) for name in BOODLE_NAMES]


def lead_value(card: int, mine: set[int], out: set[int], p_widow: float, layout: dict) -> float:
    """``lead_value_on_state`` from a view's sets: the cards the player holds, the cards out
    (played or shown in the widow) and the layout's chips by boodle card name."""
    owner, chips = view_fields(mine, out, layout)
    return lead_value_on_state(card, owner, 0, 0, p_widow, chips)


class MichiganHeuristic(HeuristicBase):
    __doc__ = __doc__

    def _values(self, view: dict, legal) -> list[tuple[float, int]]:
        mine = set(view["hand"])
        out = {c for c, _ in view["played"]} | set(view["known_widow"])
        unseen = 52 - len(mine) - len(out)
        widow_unseen = view["widow_count"] - len(view["known_widow"])
        p_widow = widow_unseen / unseen if unseen > 0 else 0.0
        owner, chips = view_fields(mine, out, view["layout"])
        return [(lead_value_on_state(int(a), owner, 0, 0, p_widow, chips), -MRANK[int(a)], int(a)) for a in legal]

    def choose(self, view: dict, legal: np.ndarray, rng: np.random.Generator) -> int:
        return max(self._values(view, legal))[2]

    def act_on_state(self, state, rng: np.random.Generator) -> int:
        """``choose`` on ``state.public_view(player)`` for search rollouts, read from the state's
        fields instead of a view: the same values, so the same move."""
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
