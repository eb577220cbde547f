"""Heuristic for cribbage with muggins counting (``cribbage_v0``), every player count.

Strategy (what a good player does; the contract of the issue):
- Lay away (discard phase, one card per action): the cards (two with 2 players, one with 3-4)
  that maximise E[show value of the four kept cards over every possible starter] + E[crib]
  when dealing (own side's crib: the dealer's partner too) and - E[crib] when not. The hand
  term averages over every card the player has not seen (the game's ``score_shows`` scores all
  lay-aways x starters in one call);
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

Lowball ("A perder", ``lowball=True``: reaching the target loses) turns every point around:
- Lay away the cards that *minimise* E[show of the kept four] + E[crib] when dealing, and
  E[show] - E[crib] when not: one's own crib is as bad as one's own hand, while the points
  of an opponent's crib are points the opponent must take, so it gets the likeliest ones.
- The play: the card with the fewest immediate points (fifteen, thirty-one, pairs, runs, the
  last card); the next player is left out of it (they avoid scoring too, so the expected
  answer of the normal game means nothing); ties lay the lowest value first (LOWBALL_TIE:
  low-first beat high-first by +0.16 mean return over 600 two-player heuristic games).
- The show is counted automatically (no muggins in lowball).

``heuristic:value=table`` (``heuristic_cribbage_table``) counts the same and ranks the moves by
the chance to win from the board instead of the points.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import numpy as np
from muggins_env.agents.base import HeuristicBase
from muggins_env.agents.position_values import dealer_table

from muggins_env.games.cribbage.rules import (
    ACCEPT,
    ANNOUNCE,
    ANNOUNCE_PHASE,
    DISCARD,
    GO,
    MUGGINS,
    OVERCOUNT,
    PLAY,
    RESPOND,
)
from muggins_env.games.cribbage.scoring import fast_score, play_points_fast, score_shows
from muggins_env.kernel.cards import RANK_LIST, format_card

VALUE = [min(r, 10) for r in RANK_LIST]
#: penalty for leaving a count a ten-card turns into 15 or 31
DANGER_COUNTS = (5, 21)
DANGER_PENALTY = 1.0
CRIB_SAMPLES = 96
#: lowball play tie-break per card value: negative lays the low cards first
LOWBALL_TIE = -0.01


def score_hand(hand: Sequence[int], starter: int, crib: bool = False) -> int:
    """Show score of 4 cards + starter (the game's scorer, docs/rules/cribbage.md §4.1)."""
    return fast_score(list(hand), int(starter), crib)


def discard_values(cards: Sequence[int], discards: int, dealer: bool, crib_samples: int = CRIB_SAMPLES,
                   rng: np.random.Generator | None = None, known: Sequence[int] = (),
                   laid: Sequence[int] = ()) -> list[tuple[float, tuple[int, ...]]]:
    """(value, cards laid away) for every way to lay ``discards`` of ``cards`` away:
    E[hand over every unseen starter] + E[crib] (dealer) or - E[crib] (not), through the
    game's scoring tables. ``known``: other cards the player has seen (never the starter or in
    the crib); ``laid``: own cards already in the crib."""
    rng = rng if rng is not None else np.random.default_rng(0)
    cards = [int(c) for c in cards]
    laid = [int(c) for c in laid]
    unseen, aways, hand_ev, need, _, own_keys = keep_terms(cards, discards, laid, known)
    crib_ev = [0.0] * len(aways)
    if crib_samples and need >= 0:
        means = crib_means(sorted(cards + laid), unseen, need, int(crib_samples), rng)
        crib_ev = [means[k] for k in own_keys]
    sign = 1.0 if dealer else -1.0
    return [(h + sign * c, away) for h, c, away in zip(hand_ev, crib_ev, aways)]


def keep_terms(cards: list[int], discards: int, laid: list[int], known: Sequence[int]) -> tuple:
    """The deterministic part of ``discard_values``: the unseen cards, the lay-aways, the
    hand term of each (E[hand] over every unseen starter, as Python floats), the cards the crib
    still needs, the seen cards and each lay-away's own crib cards (sorted)."""
    seen = set(cards) | set(laid) | {int(c) for c in known}
    unseen, aways, shows = keep_shows(cards, discards, seen)
    hand_ev = shows.mean(axis=1)
    need = 4 - discards - len(laid)  # crib cards from the others (and the pack with 3 players)
    own_keys = [tuple(sorted(away + tuple(laid))) for away in aways]  # a crib's score ignores order
    return unseen, aways, hand_ev.tolist(), need, tuple(sorted(seen)), own_keys


def keep_shows(cards: list[int], discards: int, seen: set[int]) -> tuple[np.ndarray, list, np.ndarray]:
    """The unseen cards (not in ``seen``), every lay-away of ``discards`` of ``cards`` and the show
    of the cards each keeps over every unseen starter (``(lay-aways, starters)``)."""
    unseen = np.array([c for c in range(52) if c not in seen], dtype=np.int32)
    aways = list(combinations(sorted(cards), discards))
    keeps = np.array([[c for c in cards if c not in away] for away in aways], dtype=np.int32)
    return unseen, aways, score_shows(keeps, unseen[:, None], False)  # every keep x every starter


def crib_means(pool: list[int], unseen: np.ndarray, need: int, m: int, rng: np.random.Generator) -> dict:
    """E[crib] of every own part of a crib (each ``4 - need`` cards of the sorted ``pool``, the
    player's cards and what it laid already) over ``m`` random completions (``need`` cards and
    the starter) drawn from the unseen cards with ``rng``, shared by all parts."""
    owns, scores = crib_samples(pool, unseen, need, m, rng)
    means = scores.sum(axis=1, dtype=np.float64) / m  # = .mean(axis=1): exact sums
    return dict(zip(owns, means.tolist()))


def crib_samples(pool: list[int], unseen: np.ndarray, need: int, m: int,
                 rng: np.random.Generator) -> tuple[list[tuple[int, ...]], np.ndarray]:
    """``crib_means``' own parts and the crib score of each over each of its ``m`` completions
    (``(parts, m)``), drawn the same way."""
    picks = np.argsort(rng.random((m, len(unseen))), axis=1)[:, :need + 1]
    fill = unseen[picks]  # (m, need + 1)
    owns = list(combinations(pool, 4 - need))
    return owns, crib_scores(np.array(owns, dtype=np.int32).reshape(len(owns), 4 - need), fill)


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


#: (ranks laid since the reset, count) -> (points of the last of them, the answers after them);
#: the search rollouts revisit the same short series constantly
_LAY_TERMS: dict[tuple, tuple] = {}


def lay_arithmetic(ctx: tuple, card: int, with_risk: bool = True) -> tuple[float, float, int]:
    """(points laying ``card`` scores now, the last card included; the expected points of the
    next player's best answer -- each unseen rank weighted by the chance the next player holds
    it, the best answer first (0.0 without ``with_risk``); the count after it)."""
    ranks, count, _, _, _, cards_left = ctx
    new_ranks = (*ranks, RANK_LIST[card])
    new_count = count + VALUE[card]
    key = (new_ranks, new_count)
    terms = _LAY_TERMS.get(key)
    if terms is None:
        if len(_LAY_TERMS) >= _ANSWERS_MAX:
            _LAY_TERMS.clear()
        terms = _LAY_TERMS[key] = (play_points_fast(new_ranks, new_count),
                                   _answers(new_ranks, new_count) if new_count < 31 else ())
    pts = terms[0]
    if cards_left == 1 and new_count != 31:
        pts += 1  # the last card
    risk = 0.0
    if with_risk:
        for p_pts, chance in reply_chances(ctx, terms[1], new_count):
            risk += chance * p_pts
    return float(pts), risk, new_count


def reply_chances(ctx: tuple, answers: tuple, new_count: int) -> list[tuple[int, float]]:
    """(points, chance) of each answer the next player may score with after a card that makes
    ``new_count``: each unseen rank weighted by the chance the next player holds it, the best
    answer first (the chance that no better one is held times its own); ``answers``: ``_answers``."""
    _, _, unseen_rank, total_unseen, h, _ = ctx
    out = []
    if h and new_count < 31:
        held = [(p_pts, 1.0 - (1.0 - unseen_rank[r] / total_unseen) ** h) for p_pts, r in answers if unseen_rank[r]]
        miss = 1.0
        for p_pts, p in sorted(held, reverse=True):  # the best answer first
            out.append((p_pts, miss * p))
            miss *= 1.0 - p
    return out


def lay_terms(ctx: tuple, card: int) -> tuple:
    """(the points laying ``card`` makes in the series, the next player's possible answers) as
    ``lay_arithmetic`` reads them (cached)."""
    ranks, count = ctx[0], ctx[1]
    new_ranks = (*ranks, RANK_LIST[card])
    new_count = count + VALUE[card]
    terms = _LAY_TERMS.get((new_ranks, new_count))
    if terms is None:
        lay_arithmetic(ctx, card, with_risk=False)
        terms = _LAY_TERMS[(new_ranks, new_count)]
    return terms


def lay_value(ctx: tuple, card: int, lowball: bool) -> float:
    """The heuristic's value of laying ``card`` in the play context ``ctx`` (``play_context``):
    its points less the next player's expected answer, a penalty for leaving a count the next
    player may make 15 or 31 on, a small tie term that lays the higher card; in lowball, the
    fewest points (ties: the lower card)."""
    pts, risk, new_count = lay_arithmetic(ctx, card, with_risk=not lowball)
    if lowball:
        return -pts + LOWBALL_TIE * VALUE[card]
    danger = DANGER_PENALTY if new_count in DANGER_COUNTS else 0.0
    return pts - risk - danger + 0.01 * VALUE[card]


# -- the search rollouts' lay-away (the same lay-away as ``choose`` on the view) -------------------------
#: entries a cache holds before it starts afresh (the lay-away caches hold arrays: fewer)
_MEMO_MAX = 1 << 15
_ARRAY_MEMO_MAX = 1 << 11


def crib_scores(own: np.ndarray, fill: np.ndarray) -> np.ndarray:
    """The crib scores of ``score_shows`` (the game's broadcast scorer)."""
    return score_shows(own, fill, True)


class CribbageHeuristic(HeuristicBase):
    __doc__ = __doc__

    def __init__(self, game, crib_samples: int = CRIB_SAMPLES) -> None:
        super().__init__(game)
        self.crib_samples = crib_samples
        self.lowball = game.lowball
        # act_on_state's caches: what a lay-away's hand term needs (no randomness in it), the
        # lay-away chosen for (inputs, generator state) with the state after it, the play chosen
        self._keeps: dict[tuple, tuple] = {}
        self._discards: dict[tuple, tuple] = {}
        self._fills: dict[tuple, tuple] = {}
        self._plays: dict[tuple, int] = {}
        self._lays: dict[tuple, float] = {}
        self._shows: dict[tuple, int] = {}

    # -- lay-away -----------------------------------------------------------------------------------
    def _seen(self, view: dict) -> list[int]:
        return seen_cards(view)

    def discard_ranking(self, view: dict, rng: np.random.Generator | None) -> list[tuple[float, tuple[int, ...]]]:
        laid = list(view["crib_discards"])
        todo = view["lay_away"] - len(laid)
        values = discard_values(view["hand"], todo, is_own_crib(view), self.crib_samples, rng,
                                known=self._seen(view), laid=laid)
        if self.lowball:  # the side's expected points are what it must avoid
            values = [(-v, away) for v, away in values]
        return sorted(values, reverse=True)

    # -- the play -------------------------------------------------------------------------------------
    def play_values(self, view: dict, legal: Sequence[int]) -> list[tuple[float, int]]:
        ctx = play_context(view, self._seen(view))
        out = []
        for a in legal:
            a = int(a)
            if a == GO:
                out.append((-100.0, a))
                continue
            out.append((lay_value(ctx, a, self.lowball), a))
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

    # -- search rollouts ------------------------------------------------------------------------------
    def act_on_state(self, state, rng: np.random.Generator) -> int:
        """``choose`` on ``state.public_view(player)``, read from the state's fields that view
        copies (the player's hand and lay-away, the play, the starter once cut, the count under
        review): the same move and the same use of ``rng``, without building the view."""
        phase = state.phase
        if phase == PLAY:
            return self._play_on_state(state)
        if phase == ANNOUNCE_PHASE:
            return ANNOUNCE + self._show_count(state)
        if phase == RESPOND:
            true, said = self._show_count(state), state.review["announced"]
            if said < true:
                return MUGGINS + (true - said)
            return OVERCOUNT if said > true else ACCEPT
        if phase == DISCARD:
            hand = state.hands[state.player]
            if len(hand) == 1:
                return int(hand[0])
            return self._discard_on_state(state, rng)
        return super().act_on_state(state, rng)

    def _show_count(self, state) -> int:
        """``true_count`` of the count under review (its cards are face up), memoised."""
        rv = state.review
        key = (*rv["cards"], state.starter_card, rv["is_crib"])
        hit = self._shows.get(key)
        if hit is None:
            hit = fast_score(rv["cards"], state.starter_card, bool(rv["is_crib"]))
            if len(self._shows) >= _MEMO_MAX:
                self._shows.clear()
            self._shows[key] = hit
        return hit

    def _play_on_state(self, state) -> int:
        seat = state.player
        hand = state.hands[seat]
        room = 31 - state.count
        legal = [c for c in hand if VALUE[c] <= room]
        if not legal:
            return GO
        if len(legal) == 1:
            return legal[0]
        # play_context on the view, from the state
        hands = state.hands
        # the cards the seat has seen: its hand, every card laid in the play, the starter, its
        # lay-away (disjoint by the rules: each card is in one place)
        unseen_rank = [0, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4]
        for c in hand:
            unseen_rank[RANK_LIST[c]] -= 1
        for _, c in state.play_order:
            unseen_rank[RANK_LIST[c]] -= 1
        if state.starter_cut:
            unseen_rank[RANK_LIST[state.starter_card]] -= 1
        for c in state.laid_away[seat]:
            unseen_rank[RANK_LIST[c]] -= 1
        sizes = [len(h) for h in hands]
        n = len(sizes)
        gone = state.gone
        nxt = (seat + 1) % n
        while (gone[nxt] or sizes[nxt] == 0) and nxt != seat:
            nxt = (nxt + 1) % n
        h = sizes[nxt] if nxt != seat else 0
        ranks = tuple(state.series_ranks)
        cards_left = sum(sizes)
        ctx_key = (ranks, state.count, tuple(unseen_rank), h, cards_left)
        key = (tuple(legal), ctx_key)
        hit = self._plays.get(key)
        if hit is not None:
            return hit
        # a card's value depends on its rank only: kept per (context, rank) for other hands
        lays = self._lays
        ctx = None  # play_context's tuple, once a value is not in the cache
        best = None
        for a in legal:
            r = RANK_LIST[a]
            v = lays.get((ctx_key, r))
            if v is None:
                if ctx is None:
                    ctx = (ranks, state.count, unseen_rank, max(1, sum(unseen_rank)), h, cards_left)
                v = lay_value(ctx, a, self.lowball)
                if len(lays) >= _MEMO_MAX:
                    lays.clear()
                lays[(ctx_key, r)] = v
            if best is None or (v, a) > best:
                best = (v, a)
        if len(self._plays) >= _MEMO_MAX:
            self._plays.clear()
        self._plays[key] = best[1]
        return best[1]

    def _discard_on_state(self, state, rng: np.random.Generator) -> int:
        """``discard_ranking(view, rng)[0][1][0]`` (``discard_values`` then the best), with the
        hand term cached per (hand, laid, seen) and the whole choice per (inputs, generator
        state): a hit restores the generator to the state the computation left it in."""
        seat = state.player
        g = self.game
        cards = sorted(state.hands[seat])
        laid = [int(c) for c in state.laid_away[seat]]
        known = [c for _, c in state.play_order]
        if state.starter_cut:
            known.append(state.starter_card)
        todo = g.lay_away - len(laid)
        dealer = g.teams[state.dealer] == g.teams[seat]
        key = (tuple(cards), tuple(laid), tuple(known), todo)
        base = self._keeps.get(key)
        if base is None:
            if len(self._keeps) >= _ARRAY_MEMO_MAX:
                self._keeps.clear()
            base = self._keeps[key] = keep_terms(cards, todo, laid, known)
        unseen, aways, hand_ev, need, seen_key, own_keys = base
        m = int(self.crib_samples) if self.crib_samples else 0
        if not (m and need >= 0):
            return self._best_away(hand_ev, [0.0] * len(aways), aways, dealer)
        s = len(unseen)
        # the generator's state names the draw: the search's rollout stream names it cheaply
        # (stream_key, skip); any other generator by its bit generator's state
        stream_key = getattr(rng, "stream_key", None)
        named = stream_key() if stream_key is not None else None
        bits = None
        if named is not None:
            stream = ("search", named)
        else:
            bits = rng.bit_generator
            st = bits.state
            inner = st["state"]
            stream = (st["bit_generator"], inner.get("state"), inner.get("inc"), st.get("has_uint32"),
                      st.get("uinteger"))
        mkey = (key, dealer, stream)
        hit = self._discards.get(mkey)
        if hit is not None:
            if bits is None:
                rng.skip("random", (m, s))
            else:
                bits.state = hit[1]
            return hit[0]
        # the crib's random completions depend only on the unseen cards and the stream: the
        # same for every lay-away that keeps the same cards seen (the candidates of one world)
        fkey = (tuple(sorted(cards + laid)), seen_key, need, m, stream)
        fills = self._fills.get(fkey)
        if fills is None:
            # every own part of a crib that keeps these cards seen (each lay-away of each
            # candidate of the world), scored in one call
            means = crib_means(sorted(cards + laid), unseen, need, m, rng)
            fills = (bits.state if bits is not None else None, means)
            if len(self._fills) >= _ARRAY_MEMO_MAX:
                self._fills.clear()
            self._fills[fkey] = fills
        elif bits is None:
            rng.skip("random", (m, s))
        else:
            bits.state = fills[0]
        after, evs = fills
        crib_ev = [evs[k] for k in own_keys]
        choice = self._best_away(hand_ev, crib_ev, aways, dealer)
        if len(self._discards) >= _MEMO_MAX:
            self._discards.clear()
        self._discards[mkey] = (choice, after)
        return choice

    def _best_away(self, hand_ev, crib_ev, aways, dealer: bool) -> int:
        sign = 1.0 if dealer else -1.0
        values = [(h + sign * c, away) for h, c, away in zip(hand_ev, crib_ev, aways)]  # Python floats
        if self.lowball:
            values = [(-v, away) for v, away in values]
        return int(max(values)[1][0])

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
    (own side's score - the other sides' mean) / target, plus the return if the game ended.
    In lowball the margin counts the other way: (the other sides' mean - own score)."""

    horizon = None

    def __init__(self, game) -> None:
        self.target = float(game.target)
        self.teams = list(game.teams)
        self.sense = -1.0 if game.lowball else 1.0

    def _margin(self, state, player: int) -> float:
        sc = state.scores
        mine = sc[self.teams[player]]
        return self.sense * (mine - (sum(sc) - mine) / (len(sc) - 1))

    def start(self, state, player):
        return state.deals, self._margin(state, player)

    def stop(self, state, player, marker) -> bool:
        return state.deals != marker[0]

    def value(self, state, player, marker) -> float:
        v = (self._margin(state, player) - marker[1]) / self.target
        if state.is_terminal():
            v += float(state.returns()[player])
        return v


def game_table(game, who: str) -> np.ndarray:
    """The position values of ``game``'s configuration (``position_values.dealer_table``), or a
    ValueError saying which configurations have them (``who``: the setting asking)."""
    if game.lowball or game.num_sides != 2:
        raise ValueError(f"{who}: no position values for cribbage with {game.num_players} "
                         f"players{' and lowball' if game.lowball else ''}; tables exist for 2 players "
                         "and 4 (partnerships), not lowball")
    return dealer_table(game.num_players, game.target, game.muggins)


class CribbageTableEvaluator(CribbageEvaluator):
    """``search:N,value=table``: rollouts to the end of the current deal, as the default
    evaluator's, valued by the position reached instead of the points: the player's side's chance
    to win from the next deal's start (``position_values.win_chance``: the shipped table of the
    game's players, target and muggins), as a return (2 * chance - 1), or the return if the game
    ended. Two-sided configurations only (2 players, or 4 in partnerships), not lowball."""

    setting = "value=table"

    def __init__(self, game) -> None:
        super().__init__(game)
        self.table = game_table(game, "search value=table")

    def value(self, state, player, marker) -> float:
        if state.is_terminal():
            return float(state.returns()[player])
        sc = state.scores
        dealer_side = self.teams[state.dealer]
        chance = float(self.table[sc[dealer_side], sc[1 - dealer_side]])
        if self.teams[player] != dealer_side:
            chance = 1.0 - chance
        return 2.0 * chance - 1.0
