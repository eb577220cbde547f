"""``heuristic:value=table``: the cribbage heuristic that weighs the chance to win, not points.

The plain heuristic (``heuristic_cribbage``) maximises expected points; this variant keeps its
counting (the same hand scores over every starter, the same crib completions, the same answers
of the next player in the play) and ranks the moves by the own side's chance to win instead:
the points of the rest of the deal are raced to the target in the order cribbage scores them
(the play first, then the hands from the dealer's left, the dealer's hand, the crib), and a
deal that ends below the target is valued by the shipped position values at the next deal's
start, where the deal has passed to the other side (``position_values.race_chance``).

- Lay-away: each lay-away's own hand over every unseen starter and its crib over the same
  random completions as the plain heuristic's give two point distributions; the play (each
  side's pegging, his heels with the dealer's) and the other hands are the heuristic's
  per-deal distributions (``position_values.deal_points``). Where both sides could reach the
  target in the play, each is taken to get there first half the time.
- The play (leads included): a card's immediate points, then the next player's answer (each
  answer with the chance the plain heuristic gives it; leaving 5 or 21, where a ten makes 15
  or 31, adds a fifteen half the time: the plain heuristic's one-point penalty), then the show
  (the player's own hand exactly, the others' and the crib by their distributions); the rest of
  the play is left out alike for every card.
- Ties in the chance (a win or a loss either way) keep the plain heuristic's order; far from
  the target the table is near-linear and the two mostly agree. The show (announce, muggins)
  is the plain heuristic's.

Two-sided configurations with a table only (2 players, 4 in partnerships; target 121 or 61;
muggins on or off; not lowball): ``game_table`` says so otherwise. Not used in search rollouts
(``act_on_state`` asks ``choose`` on the view).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from muggins_env.agents.base import HeuristicBase
from muggins_env.agents.heuristic_cribbage import (
    CRIB_SAMPLES,
    DANGER_COUNTS,
    GO,
    CribbageHeuristic,
    crib_samples,
    game_table,
    keep_shows,
    lay_arithmetic,
    lay_terms,
    lay_value,
    play_context,
    reply_chances,
    seen_cards,
)
from muggins_env.agents.position_values import deal_points, race_chance

from muggins_env.games.cribbage.scoring import fast_score
from muggins_env.kernel.cards import format_card

#: ranks kept apart only by float noise are tied (the plain heuristic's order decides)
DIGITS = 9
#: the show's point scale (no hand or crib scores more than 29)
MAX_SHOW = 30


def one_hot(points: int, size: int = MAX_SHOW) -> np.ndarray:
    q = np.zeros(size)
    q[points] = 1.0
    return q


def histograms(scores: np.ndarray) -> np.ndarray:
    """``(K, n)`` scores -> ``(K, MAX_SHOW)``: the share of each row at each score."""
    k, n = scores.shape
    out = np.zeros((k, MAX_SHOW))
    np.add.at(out, (np.repeat(np.arange(k), n), scores.ravel()), 1.0 / n)
    return out


class CribbageTableHeuristic(CribbageHeuristic):
    __doc__ = __doc__

    name = "heuristic:value=table"

    def __init__(self, game, crib_samples: int = CRIB_SAMPLES) -> None:
        super().__init__(game, crib_samples)
        self.table = game_table(game, "heuristic value=table")
        self.points = deal_points(game.num_players)

    # search rollouts would get the plain heuristic's moves from CribbageHeuristic's fast path
    act_on_state = HeuristicBase.act_on_state

    # -- the board ------------------------------------------------------------------------------
    def board(self, view: dict) -> tuple[tuple[int, int], np.ndarray, bool]:
        """(the points the own side and the other lack, the chance from the next deal's start
        at every pair of gains below them, whether the own side deals)."""
        target = self.game.target
        side = view["teams"][view["seat"]]
        mine, other = view["scores"][side], view["scores"][1 - side]
        dealing = view["teams"][view["dealer"]] == side
        v = self.table
        # the next deal is dealt by the other side: V is the next dealer's chance
        end = 1.0 - v[other:target, mine:target].T if dealing else v[mine:target, other:target]
        return (target - mine, target - other), np.asarray(end, dtype=np.float64), dealing

    def shows(self, view: dict, own_hand: np.ndarray, crib: np.ndarray) -> list:
        """The show's events in the order counted: the hands from the dealer's left round to the
        dealer (the player's own ``own_hand``, the others by their distributions), the crib."""
        seat, dealer, teams = view["seat"], view["dealer"], view["teams"]
        n = len(teams)
        side = teams[seat]
        out = []
        for k in (*range(1, n), 0):
            s = (dealer + k) % n
            out.append((0 if teams[s] == side else 1, own_hand if s == seat else self.points[f"hand_{k}"]))
        out.append((0 if teams[dealer] == side else 1, crib))
        return out

    # -- lay-away ---------------------------------------------------------------------------------
    def discard_ranking(self, view: dict, rng: np.random.Generator | None) -> list[tuple[float, tuple[int, ...]]]:
        """(chance to win, cards laid away) for every lay-away, the best first."""
        rng = rng if rng is not None else np.random.default_rng(0)
        cards = [int(c) for c in view["hand"]]
        laid = [int(c) for c in view["crib_discards"]]
        todo = view["lay_away"] - len(laid)
        seen = set(cards) | set(laid) | set(seen_cards(view))
        unseen, aways, shows = keep_shows(cards, todo, seen)
        hands = histograms(shows)
        need_crib = 4 - todo - len(laid)
        m = int(self.crib_samples)
        if m and need_crib >= 0:
            owns, scores = crib_samples(sorted(cards + laid), unseen, need_crib, m, rng)
            row = {own: i for i, own in enumerate(owns)}
            cribs = histograms(scores[[row[tuple(sorted(away + tuple(laid)))] for away in aways]])
        else:
            cribs = np.broadcast_to(self.points["crib"], (len(aways), MAX_SHOW))
        need, end, dealing = self.board(view)
        plain = shows.mean(axis=1) + (1.0 if dealing else -1.0) * (cribs @ np.arange(MAX_SHOW))
        own, other = (self.points["peg_dealer"], self.points["peg_pone"])[::1 if dealing else -1]
        start, won = self.pegging(own, other, need)
        chance = race_chance(np.broadcast_to(start, (len(aways), *start.shape)), self.shows(view, hands, cribs),
                             need, end, np.full(len(aways), won))
        ranked = sorted(zip(np.round(chance, DIGITS).tolist(), plain.tolist(), aways), reverse=True)
        return [(c, away) for c, _, away in ranked]

    @staticmethod
    def pegging(own: np.ndarray, other: np.ndarray, need: tuple[int, int]) -> tuple[np.ndarray, float]:
        """The play's gains of the two sides (independent), below the needs, and the chance the
        own side pegs out first (half the chance that both could)."""
        joint = np.outer(own, other)
        out_own, out_other = np.arange(len(own)) >= need[0], np.arange(len(other)) >= need[1]
        won = float(joint[out_own][:, ~out_other].sum() + 0.5 * joint[out_own][:, out_other].sum())
        return joint[:need[0], :need[1]], won

    # -- the play ---------------------------------------------------------------------------------
    def play_ranking(self, view: dict, legal: Sequence[int]) -> list[tuple[float, float, int]]:
        """(chance to win, the plain heuristic's value, card) for every legal card, the best
        first; "go" (forced: never beside a card) last."""
        cards = [int(a) for a in legal if int(a) != GO]
        if not cards:
            return [(0.0, -100.0, GO)]
        ctx = play_context(view, seen_cards(view))
        need, end, _ = self.board(view)
        k = len(cards)
        start = np.zeros((k, min(need[0], 32), 1))
        won = np.zeros(k)
        replies = np.zeros((k, 20))  # an answer scores at most 14, a fifteen more
        for i, card in enumerate(cards):
            pts, _, new_count = lay_arithmetic(ctx, card, with_risk=False)
            if pts >= need[0]:
                won[i] = 1.0
            else:
                start[i, int(pts), 0] = 1.0
            danger = 0.5 if new_count in DANGER_COUNTS else 0.0  # the plain heuristic's point, as a fifteen half the time
            none = 1.0
            for p_pts, chance in reply_chances(ctx, lay_terms(ctx, card)[1], new_count):
                replies[i, p_pts] += chance * (1.0 - danger)
                replies[i, p_pts + 2] += chance * danger
                none -= chance
            replies[i, 0] += none * (1.0 - danger)
            replies[i, 2] += none * danger
        seat = view["seat"]
        kept = list(view["hand"]) + [c for s, c in view["play"] if s == seat]
        own_hand = one_hot(fast_score(kept, view["starter"], False)) if len(kept) == 4 else self.points[
            f"hand_{(seat - view['dealer']) % len(view['teams'])}"]
        events = [(self.next_side(view), replies), *self.shows(view, own_hand, self.points["crib"])]
        chance = race_chance(start, events, need, end, won)
        lowball = self.lowball
        ranked = [(round(float(c), DIGITS), lay_value(ctx, card, lowball), card) for c, card in zip(chance, cards)]
        return sorted(ranked, reverse=True)

    @staticmethod
    def next_side(view: dict) -> int:
        """Whose the next card's points are, as ``play_context`` finds the next player (the
        first seat on with cards that has not said "go"): 0 the own side when that is a partner
        (both opponents out of the series), else 1 (with nobody to answer, the plain heuristic's
        penalty for leaving 5 or 21 still counts against the player, as the other side's)."""
        seat, n = view["seat"], len(view["hand_sizes"])
        gone = set(view["gone"])
        nxt = (seat + 1) % n
        while (nxt in gone or view["hand_sizes"][nxt] == 0) and nxt != seat:
            nxt = (nxt + 1) % n
        return 0 if nxt != seat and view["teams"][nxt] == view["teams"][seat] else 1

    def play_values(self, view: dict, legal: Sequence[int]) -> list[tuple[float, int]]:
        return [(c, a) for c, _, a in self.play_ranking(view, legal)]

    # -- decisions --------------------------------------------------------------------------------
    def choose(self, view: dict, legal: np.ndarray, rng: np.random.Generator) -> int:
        phase = view["phase"]
        if phase == "discard":
            return int(self.discard_ranking(view, rng)[0][1][0])
        if phase == "play":
            return int(self.play_ranking(view, legal)[0][2])
        return super().choose(view, legal, rng)

    def explain(self, view: dict, legal: np.ndarray, action: int) -> str:
        phase = view["phase"]
        if len(legal) == 1 or phase not in ("discard", "play") or action == GO:
            return super().explain(view, legal, action)
        if phase == "discard":
            chance, away = self.discard_ranking(view, None)[0]
            return (f"laying away {' '.join(map(format_card, away))} gives the best chance to win from this "
                    f"board: about {100 * chance:.0f}%")
        chance = {a: c for c, a in self.play_values(view, legal)}.get(int(action))
        if chance is None:
            return super().explain(view, legal, action)
        return f"it gives the best chance to win from this board, about {100 * chance:.0f}%, its answer counted"
