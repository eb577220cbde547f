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

Lowball ("A perder", ``lowball=True``: reaching the target loses) turns every point around:
- Lay away the cards that *minimise* E[show of the kept four] + E[crib] when dealing, and
  E[show] - E[crib] when not: one's own crib is as bad as one's own hand, while the points
  of an opponent's crib are points the opponent must take, so it gets the likeliest ones.
- The play: the card with the fewest immediate points (fifteen, thirty-one, pairs, runs, the
  last card); the next player is left out of it (they avoid scoring too, so the expected
  answer of the normal game means nothing); ties lay the lowest value first (LOWBALL_TIE:
  low-first beat high-first by +0.16 mean return over 600 two-player heuristic games).
- The show is counted automatically (no muggins in lowball).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import numpy as np

from ..games.cribbage import scoring as _scoring
from ..games.cribbage.rules import (
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
from ..games.cribbage.scoring import fast_score, play_points_fast, score_hands_batch
from ..kernel.cards import RANK_LIST, format_card
from .base import HeuristicBase
from .position_values import dealer_table

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


# -- the search rollouts' fast path (the same moves as ``choose`` on the view) --------------------------
#: (ranks laid since the reset, count) -> (points of the last of them, the answers after them)
_LAY_TERMS: dict[tuple, tuple] = {}


def _lay_value(ranks: tuple, count: int, unseen_rank: list, total_unseen: int, h: int, cards_left: int,
               card: int, lowball: bool) -> float:
    """``play_values``'s value of laying ``card`` (``lay_arithmetic`` then the danger and tie
    terms), with the points and the answers of the new series memoised: the same floats."""
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
    if lowball:
        return -float(pts) + LOWBALL_TIE * VALUE[card]
    risk = 0.0
    if h and new_count < 31:
        answers = [(p_pts, 1.0 - (1.0 - unseen_rank[r] / total_unseen) ** h) for p_pts, r in terms[1]
                   if unseen_rank[r]]
        if answers:
            miss = 1.0
            for p_pts, p in sorted(answers, reverse=True):  # the best answer first
                risk += miss * p * p_pts
                miss *= 1.0 - p
    danger = DANGER_PENALTY if new_count in DANGER_COUNTS else 0.0
    return float(pts) - risk - danger + 0.01 * VALUE[card]


_RANK0 = np.array([r - 1 for r in RANK_LIST], dtype=np.int64)
_SUIT = np.array([s for s in _scoring.SUIT_LIST], dtype=np.int64)
_SUIT_JACK_BITS4 = _scoring._SUIT_JACK_BITS.astype(np.int64) * 4  # the flush/nobs index, shifted
_MULTISET4_13 = _scoring._MULTISET4.astype(np.int64) * 13
_HAND_STARTER_FLAT = _scoring._HAND_STARTER_FLAT
_SUIT_POINTS = {crib: _scoring._SUIT_POINTS[crib] for crib in (False, True)}
#: entries a cache holds before it starts afresh (the lay-away caches hold arrays: fewer)
_MEMO_MAX = 1 << 15
_ARRAY_MEMO_MAX = 1 << 11


def show_scores(own: np.ndarray, fill: np.ndarray, crib: bool = True) -> np.ndarray:
    """``score_hands_batch`` of every show ``own[i] + fill[t, :-1]`` with starter ``fill[t, -1]``
    as a (len(own), len(fill)) int16 array: the batch scorer's tables, broadcast instead of
    built row by row (``own``: (k, o) card ids, ``fill``: (m, 5 - o)). The (OR of the suit/jack
    bits) * 4 + starter suit index of the flush/nobs table is the OR of the parts' bits * 4 and
    the starter's suit (the suit takes the two low bits)."""
    need = fill.shape[1] - 1
    r_own = _RANK0[own]
    key_own = r_own[:, 0]
    for j in range(1, own.shape[1]):
        key_own = key_own * 13 + r_own[:, j]
    starter = fill[:, need]
    suit_fill = _SUIT[starter]
    if need:
        r_fill = _RANK0[fill[:, :need]]
        key_fill = r_fill[:, 0]
        for j in range(1, need):
            key_fill = key_fill * 13 + r_fill[:, j]
        suit_fill = suit_fill | np.bitwise_or.reduce(_SUIT_JACK_BITS4[fill[:, :need]], axis=1)
        key4 = (key_own * 13 ** need)[:, None] + key_fill[None, :]
    else:
        key4 = np.broadcast_to(key_own[:, None], (len(own), len(fill)))
    total = _HAND_STARTER_FLAT[_MULTISET4_13[key4] + _RANK0[starter][None, :]]
    bits = np.bitwise_or.reduce(_SUIT_JACK_BITS4[own], axis=1)[:, None] | suit_fill[None, :]
    return total + _SUIT_POINTS[bool(crib)][bits]


def crib_scores(own: np.ndarray, fill: np.ndarray) -> np.ndarray:
    """The crib scores of ``show_scores``."""
    return show_scores(own, fill, True)


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
            pts, risk, new_count = lay_arithmetic(ctx, a)
            if self.lowball:
                out.append((-pts + LOWBALL_TIE * VALUE[a], a))
                continue
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
        ctx = None
        best = None
        for a in legal:
            r = RANK_LIST[a]
            v = lays.get((ctx_key, r))
            if v is None:
                if ctx is None:
                    ctx = max(1, sum(unseen_rank))
                v = _lay_value(ranks, state.count, unseen_rank, ctx, h, cards_left, a, self.lowball)
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
            base = self._keeps[key] = self._keep_terms(cards, todo, laid, known)
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
            picks = np.argsort(rng.random((m, s)), axis=1)[:, :need + 1]
            fill = unseen[picks]
            # every own part of a crib that keeps these cards seen (each lay-away of each
            # candidate of the world), scored in one call; a crib's score ignores the order
            owns = list(combinations(sorted(cards + laid), 4 - need))
            means = crib_scores(np.array(owns, dtype=np.int32).reshape(len(owns), 4 - need), fill
                                ).sum(axis=1, dtype=np.float64) / m  # = .mean(axis=1): exact sums
            fills = (bits.state if bits is not None else None, dict(zip(owns, means.tolist())))
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

    @staticmethod
    def _keep_terms(cards: list[int], discards: int, laid: list[int], known: list[int]) -> tuple:
        """The deterministic part of ``discard_values``: the unseen cards, the lay-aways, the
        hand term of each, the cards the crib still needs, the seen cards and each lay-away's own
        crib cards (sorted)."""
        seen = set(cards) | set(laid) | {int(c) for c in known}
        unseen = np.array([c for c in range(52) if c not in seen], dtype=np.int32)
        aways = list(combinations(sorted(cards), discards))
        keeps = np.array([[c for c in cards if c not in away] for away in aways], dtype=np.int32)
        # discard_values' score_hands_batch over keeps x unseen starters, broadcast: the same ints
        hand_ev = show_scores(keeps, unseen[:, None], False).mean(axis=1)
        need = 4 - discards - len(laid)
        own_keys = [tuple(sorted(away + tuple(laid))) for away in aways]  # a crib's score ignores order
        # as Python floats: the same doubles, cheaper arithmetic in _best_away
        return unseen, aways, hand_ev.tolist(), need, tuple(sorted(seen)), own_keys

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


class CribbageTableEvaluator(CribbageEvaluator):
    """``search:N,value=table``: rollouts to the end of the current deal, as the default
    evaluator's, valued by the position reached instead of the points: the player's side's chance
    to win from the next deal's start (``position_values.win_chance``: the shipped table of the
    game's players, target and muggins), as a return (2 * chance - 1), or the return if the game
    ended. Two-sided configurations only (2 players, or 4 in partnerships), not lowball."""

    setting = "value=table"

    def __init__(self, game) -> None:
        super().__init__(game)
        if game.lowball or game.num_sides != 2:
            raise ValueError(f"search value=table: no position values for cribbage with {game.num_players} "
                             f"players{' and lowball' if game.lowball else ''}; tables exist for 2 players "
                             "and 4 (partnerships), not lowball")
        self.table = dealer_table(game.num_players, game.target, game.muggins)

    def value(self, state, player, marker) -> float:
        if state.is_terminal():
            return float(state.returns()[player])
        sc = state.scores
        dealer_side = self.teams[state.dealer]
        chance = float(self.table[sc[dealer_side], sc[1 - dealer_side]])
        if self.teams[player] != dealer_side:
            chance = 1.0 - chance
        return 2.0 * chance - 1.0
