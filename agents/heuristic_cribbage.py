"""Heuristic for cribbage with muggins counting (``cribbage_v0``), every player count.

Strategy (what a good player does; the contract of the issue):
- Lay away (discard phase, one card per action): the cards (two with 2 players, one with 3-4)
  that maximise E[show value of the four kept cards over every possible starter] + E[crib]
  when dealing (own side's crib: the dealer's partner too) and - E[crib] when not. The hand
  term averages over every card the player has not seen (the batch scorer of the game,
  ``games.cribbage.scoring.score_hands_batch``, scores all lay-aways x starters in one call);
  the crib term completes the crib with cards drawn from the unseen ones (``crib_samples``
  random completions + starter, the same ones for every choice, scored in one batch call).
  The second card of a two-card lay-away completes the best pair given the first.
- The play: the card with the most immediate points (fifteen, thirty-one, pairs, runs, and
  the last card), minus the expected points the next player can answer with (each unseen
  rank weighted by the chance the next player holds it, the best answer first), minus a
  point for leaving a count of 5 or 21 (a ten-card makes 15 or 31) where possible; ties
  keep the low cards for later (lay the highest value first). "Go" only when forced.
- The show: announce the true count; as a responder say "muggins N" with N exactly the
  missed points when the count is too low, "overcount" when it is too high, else accept.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import numpy as np

from ..games.cribbage.rules import ACCEPT, ANNOUNCE, GO, MUGGINS, OVERCOUNT
from ..games.cribbage.scoring import fast_score, play_points_fast, score_hands_batch
from ..kernel.cards import RANK_LIST, format_card
from .base import HeuristicBase

VALUE = [min(r, 10) for r in RANK_LIST]
#: penalty for leaving a count a ten-card turns into 15 or 31
DANGER_COUNTS = (5, 21)
DANGER_PENALTY = 1.0
CRIB_SAMPLES = 96


def score_hand(hand: Sequence[int], starter: int, crib: bool = False) -> int:
    """Show score of 4 cards + starter (the game's scorer, RULES.md §4.1)."""
    return fast_score(list(hand), int(starter), crib)


def discard_values(cards: Sequence[int], discards: int, dealer: bool, crib_samples: int = CRIB_SAMPLES,
                   rng: np.random.Generator | None = None, known: Sequence[int] = (),
                   laid: Sequence[int] = ()) -> list[tuple[float, tuple[int, ...]]]:
    """(value, cards laid away) for every way to lay ``discards`` of ``cards`` away:
    E[hand over every unseen starter] + E[crib] (dealer) or - E[crib] (not), through the
    game's batch scorer. ``known``: other cards the player has seen (never the starter or in
    the crib); ``laid``: own cards already in the crib."""
    rng = rng if rng is not None else np.random.default_rng(0)
    cards = [int(c) for c in cards]
    laid = [int(c) for c in laid]
    seen = set(cards) | set(laid) | {int(c) for c in known}
    unseen = np.array([c for c in range(52) if c not in seen], dtype=np.int32)
    aways = list(combinations(sorted(cards), discards))
    keeps = np.array([[c for c in cards if c not in away] for away in aways], dtype=np.int32)
    k, s = len(aways), len(unseen)
    hand_ev = score_hands_batch(np.repeat(keeps, s, axis=0), np.tile(unseen, k), False
                                ).reshape(k, s).mean(axis=1)
    crib_ev = np.zeros(k)
    need = 4 - discards - len(laid)  # crib cards from the others (and the pack with 3 players)
    if crib_samples and need >= 0:
        m = int(crib_samples)
        # m random completions (need cards + the starter) from the unseen cards, shared by all choices
        picks = np.argsort(rng.random((m, s)), axis=1)[:, :need + 1]
        fill = unseen[picks]  # (m, need + 1)
        own = np.array([list(away) + laid for away in aways], dtype=np.int32)  # (k, 4 - need)
        cribs = np.concatenate([np.repeat(own, m, axis=0), np.tile(fill[:, :need], (k, 1))], axis=1)
        starters = np.tile(fill[:, need], k)
        crib_ev = score_hands_batch(cribs, starters, True).reshape(k, m).mean(axis=1)
    sign = 1.0 if dealer else -1.0
    return [(float(h + sign * c), away) for h, c, away in zip(hand_ev, crib_ev, aways)]


def best_discard(cards: Sequence[int], discards: int, dealer: bool, **kw) -> tuple[int, ...]:
    return max(discard_values(cards, discards, dealer, **kw))[1]


def true_count(review: dict, starter: int) -> int:
    return fast_score(review["cards"], starter, bool(review["is_crib"]))


def seen_cards(view: dict) -> list[int]:
    """The cards of others the player has seen this deal: those laid in the play, the starter."""
    out = [c for _, c in view["play"]]
    if view["starter"] is not None:
        out.append(view["starter"])
    return out


def is_own_crib(view: dict) -> bool:
    teams = view["teams"]
    return teams[view["dealer"]] == teams[view["seat"]]


def play_context(view: dict, seen: Sequence[int]) -> tuple:
    """What laying a card in the play depends on, from the player's view: the series' ranks,
    the count, the unseen cards by rank, the next player's hand size, the cards left."""
    hand = view["hand"]
    seen = set(hand) | set(seen) | set(view["crib_discards"])
    unseen_rank = [0] * 14
    for c in range(52):
        if c not in seen:
            unseen_rank[RANK_LIST[c]] += 1
    seat, n = view["seat"], len(view["hand_sizes"])
    nxt = (seat + 1) % n
    gone = set(view["gone"])
    while (nxt in gone or view["hand_sizes"][nxt] == 0) and nxt != seat:
        nxt = (nxt + 1) % n
    h = view["hand_sizes"][nxt] if nxt != seat else 0
    return (tuple(RANK_LIST[c] for c in view["series"]), view["count"], unseen_rank, max(1, sum(unseen_rank)), h,
            sum(view["hand_sizes"]))


#: (ranks laid since the reset, count) -> ((points, rank) for every rank that would score next);
#: the play depends on ranks only, and rollouts revisit the same short series constantly
_ANSWERS: dict[tuple, tuple[tuple[int, int], ...]] = {}
_ANSWERS_MAX = 1 << 18


def _answers(ranks: tuple[int, ...], count: int) -> tuple[tuple[int, int], ...]:
    key = (ranks, count)
    hit = _ANSWERS.get(key)
    if hit is None:
        room = 31 - count
        gone = ranks[-1] if len(ranks) >= 4 and len(set(ranks[-4:])) == 1 else 0  # all four laid
        out = []
        for r in range(1, 14):
            if min(r, 10) <= room and r != gone:
                p = play_points_fast(ranks + (r,), count + min(r, 10))
                if p:
                    out.append((p, r))
        hit = tuple(out)
        if len(_ANSWERS) >= _ANSWERS_MAX:
            _ANSWERS.clear()
        _ANSWERS[key] = hit
    return hit


def lay_arithmetic(ctx: tuple, card: int) -> tuple[float, float, int]:
    """(points laying ``card`` scores now, the last card included; the expected points of the
    next player's best answer -- each unseen rank weighted by the chance the next player holds
    it, the best answer first; the count after it)."""
    ranks, count, unseen_rank, total_unseen, h, cards_left = ctx
    new_ranks = (*ranks, RANK_LIST[card])
    new_count = count + VALUE[card]
    pts = play_points_fast(new_ranks, new_count)
    if cards_left == 1 and new_count != 31:
        pts += 1  # the last card
    risk = 0.0
    if h and new_count < 31:
        answers = []
        for p_pts, r in _answers(new_ranks, new_count):
            if unseen_rank[r]:
                answers.append((p_pts, 1.0 - (1.0 - unseen_rank[r] / total_unseen) ** h))
        miss = 1.0
        for p_pts, p in sorted(answers, reverse=True):  # the best answer first
            risk += miss * p * p_pts
            miss *= 1.0 - p
    return float(pts), risk, new_count


class CribbageHeuristic(HeuristicBase):
    __doc__ = __doc__

    def __init__(self, game, crib_samples: int = CRIB_SAMPLES) -> None:
        super().__init__(game)
        self.crib_samples = crib_samples

    # -- lay-away -----------------------------------------------------------------------------------
    def _seen(self, view: dict) -> list[int]:
        return seen_cards(view)

    def discard_ranking(self, view: dict, rng: np.random.Generator | None) -> list[tuple[float, tuple[int, ...]]]:
        laid = list(view["crib_discards"])
        todo = view["lay_away"] - len(laid)
        return sorted(discard_values(view["hand"], todo, is_own_crib(view), self.crib_samples, rng,
                                     known=self._seen(view), laid=laid), reverse=True)

    # -- the play -------------------------------------------------------------------------------------
    def play_values(self, view: dict, legal: Sequence[int]) -> list[tuple[float, int]]:
        ctx = play_context(view, self._seen(view))
        out = []
        for a in legal:
            a = int(a)
            if a == GO:
                out.append((-100.0, a))
                continue
            pts, risk, new_count = lay_arithmetic(ctx, a)
            danger = DANGER_PENALTY if new_count in DANGER_COUNTS else 0.0
            out.append((pts - risk - danger + 0.01 * VALUE[a], a))
        return out

    # -- decisions ------------------------------------------------------------------------------------
    def choose(self, view: dict, legal: np.ndarray, rng: np.random.Generator) -> int:
        phase = view["phase"]
        if phase == "announce":
            return ANNOUNCE + true_count(view["review"], view["starter"])
        if phase == "respond":
            rv = view["review"]
            true, said = true_count(rv, view["starter"]), rv["announced"]
            if said < true:
                return MUGGINS + (true - said)
            return OVERCOUNT if said > true else ACCEPT
        if phase == "discard":
            return int(self.discard_ranking(view, rng)[0][1][0])
        return max(self.play_values(view, legal))[1]

    def explain(self, view: dict, legal: np.ndarray, action: int) -> str:
        phase = view["phase"]
        if len(legal) == 1:
            return "it is the only legal move"
        if phase == "announce":
            return f"it is the true count of these cards ({action - ANNOUNCE}); a wrong one can be punished"
        if phase == "respond":
            rv = view["review"]
            true, said = true_count(rv, view["starter"]), rv["announced"]
            if said < true:
                return f"{said} is short of the true {true}: muggins takes the {true - said} points missed"
            if said > true:
                return f"{said} is more than the true {true}: the overcount is refused"
            return f"{said} is the true count"
        if phase == "discard":
            value, away = self.discard_ranking(view, None)[0]
            whose = "your" if is_own_crib(view) else "the opponent's"
            return (f"laying away {' '.join(map(format_card, away))} keeps the best hand: about {value:.1f} "
                    f"points expected with {whose} crib counted in")
        if action == GO:
            return "no card can be laid without passing 31"
        pts, risk, new_count = lay_arithmetic(play_context(view, self._seen(view)), action)
        return (f"it scores {pts:g} now, risks about {risk:.1f} points in the reply and brings the count "
                f"to {new_count}")

    def candidates(self, view: dict, legal: np.ndarray, k: int) -> list[int]:
        phase = view["phase"]
        if phase == "discard":
            out: list[int] = []
            for _, away in self.discard_ranking(view, None):
                for c in away:
                    if c not in out:
                        out.append(int(c))
                if len(out) >= k:
                    break
            return out[:k]
        if phase == "play":
            return [a for _, a in sorted(self.play_values(view, legal), reverse=True)[:k]]
        return [self.choose(view, legal, None)]


class CribbageEvaluator:
    """Search rollouts to the end of the current deal (after its show); value = the change of
    (own side's score - the other sides' mean) / target, plus the return if the game ended."""

    horizon = None

    def __init__(self, game) -> None:
        self.target = float(game.target)
        self.teams = list(game.teams)

    def _margin(self, state, player: int) -> float:
        sc = state.scores
        mine = sc[self.teams[player]]
        return mine - (sum(sc) - mine) / (len(sc) - 1)

    def start(self, state, player):
        return state.deals, self._margin(state, player)

    def stop(self, state, player, marker) -> bool:
        return state.deals != marker[0]

    def value(self, state, player, marker) -> float:
        v = (self._margin(state, player) - marker[1]) / self.target
        if state.is_terminal():
            v += float(state.returns()[player])
        return v
