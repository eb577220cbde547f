"""Derived features: the arithmetic a player does in their head, appended to the observation
of a learning agent (training config ``features: derived``).

A policy network finds exact counting hard: a cribbage hand's true total, a domino play's
score, whether a card went to a correct pile are functions of what the player sees, but a
small MLP fitted by PPO learns them only roughly, and every wrong announcement or missed
"Muggins!" is punished by an opponent who counts exactly. These features give the results of
that arithmetic, computed only from the player's readable view (``state.public_view(p)``,
what the player may know), never from hidden cards. They contain no strategy: which card to
lay away, which tile to play, which pile to choose is still the policy's to learn.

``derived_features(game_id, game)`` returns a ``Features`` (``size``, ``__call__(view, mask)
-> float32[size]``), or None for a game without any (Michigan has no counting to do).
The environments' own observations never include them: they are the agent's choice.

The one set that does carry strategy is ``hinted`` (``HintedFeatures``): the derived features
plus the heuristic's move, for a policy that learns where to depart from the heuristic.
``extended`` is ``hinted`` with the quantities added to a game's arithmetic after models reading
``derived`` shipped (so that their inputs never change): card Muggins' exposure of the discards,
dominoes' expected answer of the next seat to each play; in the other games it equals ``hinted``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from muggins_env.games import declaration
from muggins_env.kernel.cards import RANK_LIST
from muggins_env.kernel.declaration import load_hook

#: the names a training config may give under ``features``
FEATURE_SETS = ("none", "derived", "hinted", "extended")


class Features:
    """A feature function with its size; ``name`` is what a saved policy records."""

    name = "derived"
    size = 0

    def __call__(self, view: dict, mask: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def action_channels(self) -> list[np.ndarray]:
        """Extra per-action channels for the scorer: each an int array [num_actions] of positions in
        this feature vector (-1: none), beyond what the game's declared ``action_features`` read."""
        return []

    @classmethod
    def for_game(cls, game: Any, extended: bool = False) -> Features:
        """The features of ``game``; ``extended``: with the quantities of the ``extended`` set (a
        game that has none takes the plain ones)."""
        return cls(game)


class CribbageFeatures(Features):
    """[true total of the count under review, one-hot 0..29] [points the announcement missed,
    one-hot 0..29] [the announcement is too high] [points each card of the hand scores if laid
    now in the play, by card id, / 12] [while laying away: for each card of the hand, the best
    expected show of the kept cards (over every unseen starter) when that card is laid away,
    by card id, / 29] [in the play, by card id: the expected points of the next player's best
    answer to it, / 12 (each unseen rank weighted by the chance the next player holds one)]
    [in the play, by card id: the count after it, / 31] [while laying away, by card id: the best
    expected value of the deal's show to the player's side when that card is laid away: the
    kept hand plus the crib when it is the side's own, minus it when not (the crib completed
    by 96 fixed pseudo-random draws of unseen cards), (value + 15) / 60]. Expected values and
    counts only: which of them matters most, and when, is the policy's to learn.
    In lowball (reaching the target loses) "best" is the least: both lay-away pieces give,
    per card, the lowest of those expected values over the lay-aways that include it."""

    size = 30 + 30 + 1 + 52 * 5
    PLAY_RISK, PLAY_COUNT, DEAL_VALUE = 165, 217, 269

    def __init__(self, game: Any = None) -> None:
        self.lowball = bool(game is not None and game.lowball)

    def __call__(self, view: dict, mask: np.ndarray) -> np.ndarray:
        from muggins_env.agents.heuristic_cribbage import (
            discard_values,
            is_own_crib,
            lay_arithmetic,
            play_context,
            seen_cards,
        )

        from muggins_env.games.cribbage.scoring import fast_score

        out = np.zeros(self.size, np.float32)
        rv = view.get("review")
        if rv is not None and view.get("starter") is not None:
            true = fast_score(list(rv["cards"]), int(view["starter"]), bool(rv["is_crib"]))
            out[min(true, 29)] = 1.0
            said = rv.get("announced")
            if said is not None:
                if true > said:
                    out[30 + min(true - said, 29)] = 1.0
                elif said > true:
                    out[60] = 1.0
        phase = view.get("phase")
        if phase == "discard":
            laid = list(view["crib_discards"])
            seen = [c for _, c in view["play"]]
            todo = view["lay_away"] - len(laid)
            for at, scale, values in (
                    (113, 29.0, discard_values(view["hand"], todo, False, crib_samples=0, known=seen, laid=laid)),
                    (self.DEAL_VALUE, None, discard_values(view["hand"], todo, is_own_crib(view), known=seen,
                                                           laid=laid, rng=np.random.default_rng(0)))):
                best: dict[int, float] = {}
                pick, worst = (min, 99.0) if self.lowball else (max, -99.0)
                for value, away in values:
                    for c in away:
                        best[c] = pick(best.get(c, worst), value)
                for c, value in best.items():
                    out[at + c] = min(value / scale, 1.0) if scale else min(max((value + 15) / 60, 0.0), 1.0)
        elif phase == "play":
            ctx = play_context(view, seen_cards(view))
            count = view["count"]
            for c in view["hand"]:
                if count + min(RANK_LIST[c], 10) <= 31:
                    pts, risk, new_count = lay_arithmetic(ctx, c)
                    if ctx[5] == 1 and new_count != 31:
                        pts -= 1  # the immediate points of the play itself (the last card is known anyway)
                    out[61 + c] = pts / 12.0
                    out[self.PLAY_RISK + c] = min(risk / 12.0, 1.0)
                    out[self.PLAY_COUNT + c] = new_count / 31.0
        return out


class DominoesFeatures(Features):
    """[true score of the count on the table, one-hot 0..max_announcement] [the announcement
    under review is wrong] [points each play action scores at once, / max_announcement].

    With ``risk`` (feature set ``extended``) one more block by play action: the expected points of
    the next seat's best answer to the play, / max_announcement (``DominoesHeuristic.reply_risks``:
    its hand a uniform draw from the tiles not seen). Why: the heuristic takes the largest score and
    never looks at what its play leaves open, and a network can learn to weigh it only if it sees
    it (docs/results.md: what this changed)."""

    def __init__(self, game: Any, risk: bool = False) -> None:
        from muggins_env.agents.heuristic_dominoes import DominoesHeuristic

        self.game = game
        self._layouts = DominoesHeuristic(game)  # replays the public plays (incrementally)
        self.max_announcement = game.max_announcement
        self.num_plays = game.PASS
        self.RISK = self.max_announcement + 1 + 1 + self.num_plays
        self.risk = risk
        self.size = self.RISK + (self.num_plays if risk else 0)

    @classmethod
    def for_game(cls, game: Any, extended: bool = False) -> DominoesFeatures:
        return cls(game, risk=extended)

    def action_channels(self) -> list[np.ndarray]:
        if not self.risk:
            return []
        ch = -np.ones(self.game.num_actions, np.int32)
        ch[:self.num_plays] = self.RISK + np.arange(self.num_plays)
        return [ch]

    def __call__(self, view: dict, mask: np.ndarray) -> np.ndarray:
        g = self.game
        out = np.zeros(self.size, np.float32)
        k = self.max_announcement + 1
        phase = view.get("phase")
        if phase in ("announce", "respond"):
            true = g.score_table[view["count"]]
            out[min(true, self.max_announcement)] = 1.0
            rv = view.get("review")
            if rv is not None and rv.get("announced") is not None and rv["announced"] != true:
                out[k] = 1.0
        elif phase == "play":
            legal = [a for a in np.flatnonzero(mask) if a < self.num_plays]
            if legal:
                scale = max(1, self.max_announcement)
                lay = self._layouts.layout_of(view)
                for (score, _, _), a in self._layouts._play_keys(view, legal, lay):
                    if a < self.num_plays and score > 0:
                        out[k + 1 + a] = score / scale
                if self.risk:
                    for a, risk in self._layouts.reply_risks(view, legal, lay).items():
                        out[self.RISK + a] = risk / scale
        return out


class MugginsCardsFeatures(Features):
    """[each action is a correct placement of the card in play (the rules' destinations from
    the visible tops), by action] [the placement under review is a mistake] [after each
    common-pile placement, one's own known next card fits a common top, by action] [after
    it, the share of opponents whose known next card fits one, by action].

    With ``exposure`` (feature set ``extended``), four more blocks by action, after each
    common-pile placement: [how many of the ranks next to one's own discard top no common top
    takes any more, / 2] [the cards of those ranks that may still be hidden, / 8] [the share of
    opponents whose known next card fits no common top and lands on one's own discard] [the mean
    over the opponents' non-empty discards of their open neighbour ranks, / 2]. Why: a card that
    fits no common top goes to the first fitting opponent discard, so covering the common top that
    took the neighbours of one's own discard top invites the others' cards onto it; on 14k
    contested choices `search:100` departed from the heuristic in 42% of the cases where the
    fitting piles differ in this, and 97% of those departures left one's own discard less open.
    Learned, the rule did not move the win rate (README, issue 18's results).
    """

    EXPOSURE_BLOCKS = 4

    @classmethod
    def for_game(cls, game: Any, extended: bool = False) -> MugginsCardsFeatures:
        return cls(game, exposure=extended)

    def __init__(self, game: Any, exposure: bool = False) -> None:
        self.num_actions = a = game.num_actions
        self.num_players = game.num_players
        self.MISTAKE, self.MINE, self.THEIRS = a, a + 1, 2 * a + 1
        self.exposure = bool(exposure)
        self.OPEN = 3 * a + 1  # first exposure block (with ``exposure``)
        self.size = 3 * a + 1 + (self.EXPOSURE_BLOCKS * a if self.exposure else 0)

    def __call__(self, view: dict, mask: np.ndarray) -> np.ndarray:
        from muggins_env.agents.heuristic_muggins_cards import (
            COMMON_PILE,
            OPPONENT_DISCARD,
            correct_destinations,
            known_fits,
        )

        out = np.zeros(self.size, np.float32)
        commons, tops = list(view["commons"]), list(view["discard_tops"])
        rv = view.get("review")
        if rv is not None:
            correct = correct_destinations(rv["card"], rv["placer"], commons, tops)
            if rv["action"] not in correct:
                out[self.MISTAKE] = 1.0
            return out
        card, seat = view.get("card_in_play", -1), view["seat"]
        if card is None or card < 0:
            return out
        n = self.num_players
        known = view.get("next_cards") or [-1] * n
        for a in correct_destinations(card, seat, commons, tops):
            out[a] = 1.0
            if a < OPPONENT_DISCARD:  # a common pile
                mine, theirs = known_fits(card, seat, a - COMMON_PILE, commons, known)
                out[self.MINE + a], out[self.THEIRS + a] = mine, theirs / (n - 1)
                if self.exposure:
                    after = list(commons)
                    after[a - COMMON_PILE] = card
                    self._exposure(out, a, seat, after, tops, known)
        return out

    def _exposure(self, out: np.ndarray, a: int, seat: int, after: list[int], tops: list[int],
                  known: list[int]) -> None:
        from muggins_env.agents.heuristic_muggins_cards import (
            first_fitting_discard,
            fits_any,
            hidden_by_rank,
            open_ranks,
        )

        n, k = self.num_players, self.num_actions
        hidden = hidden_by_rank(after, tops)
        mine = open_ranks(tops[seat], after)
        out[self.OPEN + a] = len(mine) / 2
        out[self.OPEN + k + a] = sum(max(hidden[r], 0) for r in mine) / 8
        dumped = sum(1 for q in range(n) if q != seat and known[q] >= 0 and not fits_any(known[q], after)
                     and first_fitting_discard(known[q], q, tops) == seat)
        out[self.OPEN + 2 * k + a] = dumped / (n - 1)
        others = [len(open_ranks(tops[q], after)) for q in range(n) if q != seat and tops[q] >= 0]
        out[self.OPEN + 3 * k + a] = float(np.mean(others)) / 2 if others else 0.0

    def action_channels(self) -> list[np.ndarray]:
        if not self.exposure:
            return []
        acts = np.arange(self.num_actions, dtype=np.int32)
        return [self.OPEN + j * self.num_actions + acts for j in range(self.EXPOSURE_BLOCKS)]


def derived_features(game_id: str, game: Any, extended: bool = False) -> Features | None:
    """The derived features of ``game_id`` (its declaration's ``features``; None: the game has
    none); ``extended`` adds the quantities of the ``extended`` set (card Muggins' exposure)."""
    path = declaration(game_id).features
    return None if path is None else load_hook(path).for_game(game, extended)


class HintedFeatures(Features):
    """The derived features (if the game has any) followed by the heuristic's move from the same
    view, one-hot by action (feature set ``hinted``).

    Why: a scorer cloned from the heuristic reproduces it only 86-94% of the time in cribbage
    (its lay-away samples the crib, its play breaks ties by rules a scorer fits only roughly),
    so a clone starts below the heuristic and the search's departures from it, the labels that
    carry the search's edge, are drowned by those misses. With the heuristic's move as an input
    the policy starts exactly at the heuristic and has to learn only when to depart from it. The
    move is the heuristic's (``make_agent("heuristic")``) on the player's readable view, with a
    fixed seed for its sampling so that a view always gets the same hint: nothing hidden enters.
    """

    def __init__(self, game_id: str, game: Any, extended: bool = False) -> None:
        from muggins_env.agents import make_agent

        self.name = "extended" if extended else "hinted"
        self.base = derived_features(game_id, game, extended)
        self.offset = self.base.size if self.base is not None else 0
        self.num_actions = int(game.num_actions)
        self.size = self.offset + self.num_actions
        self.heuristic = make_agent("heuristic", game_id, dict(game.options))

    def __call__(self, view: dict, mask: np.ndarray) -> np.ndarray:
        out = np.zeros(self.size, np.float32)
        if self.base is not None:
            out[:self.offset] = self.base(view, mask)
        if mask.any():
            out[self.offset + self.hint(view, mask)] = 1.0
        return out

    def hint(self, view: dict, mask: np.ndarray) -> int:
        """The heuristic's move from ``view`` (always the same for the same view)."""
        return int(self.heuristic.act(None, mask.astype(np.int8), np.random.default_rng(0), view))


def make_features(name: str | None, game_id: str, game: Any) -> Features | None:
    """Features by config name (``none``/None, ``derived``, ``hinted`` or ``extended``), with a clear
    error otherwise."""
    if name in (None, "none"):
        return None
    if name in ("hinted", "extended"):
        return HintedFeatures(game_id, game, extended=name == "extended")
    if name != "derived":
        raise ValueError(f"features={name!r} is not allowed; allowed: {', '.join(FEATURE_SETS)}")
    return derived_features(game_id, game)


# -- per-action features (the ``action_scorer`` policy) ------------------------------------------------
#
# A policy that scores every legal action with shared weights needs, for each action index, a few
# numbers describing *that* action. They are read from the policy's input (the observation with the
# derived features appended) through a fixed index map, plus a fixed table of descriptors (the kind
# of action, a card's rank and suit, a tile's pips): gathering is the same code in torch and numpy
# and knows nothing of any game. Each game supplies its map through one function below.


class ActionFeatures:
    """``index``: int32[A, k], the entry of the policy input (observation ++ derived features)
    holding channel j of action a, or -1 for 0; ``static``: float32[A, s], fixed descriptors."""

    def __init__(self, index: np.ndarray, static: np.ndarray) -> None:
        self.index = np.ascontiguousarray(index, np.int32)
        self.static = np.ascontiguousarray(static, np.float32)
        if self.index.ndim != 2 or self.static.ndim != 2 or len(self.index) != len(self.static):
            raise ValueError(f"action features: index {self.index.shape} and static {self.static.shape} "
                             "must be [num_actions, k] and [num_actions, s]")

    @property
    def size(self) -> int:
        return self.index.shape[1] + self.static.shape[1]

    def __call__(self, x: np.ndarray, actions: np.ndarray | slice = slice(None)) -> np.ndarray:
        """float32[..., len(actions), size] for inputs ``x`` [..., input size]."""
        idx = self.index[actions]
        g = np.where(idx >= 0, np.take(x, np.maximum(idx, 0), axis=-1), 0.0).astype(np.float32)
        st = np.broadcast_to(self.static[actions], g.shape[:-1] + (self.static.shape[1],))
        return np.concatenate([g, st], axis=-1)


def _kinds(num_actions: int, bounds: list[int]) -> np.ndarray:
    """One-hot of the action kind, the kinds being the ranges [bounds[i], bounds[i+1])."""
    out = np.zeros((num_actions, len(bounds)), np.float32)
    for i, lo in enumerate(bounds):
        hi = bounds[i + 1] if i + 1 < len(bounds) else num_actions
        out[lo:hi, i] = 1.0
    return out


def _block_offset(layout: dict, block: str) -> int:
    """Where a named block of an observation layout starts."""
    at = 0
    for name, size in layout.items():
        if name == block:
            return at
        at += size
    raise KeyError(f"observation layout has no block {block!r}: {', '.join(layout)}")


def _card_descriptors(num_actions: int, first: int = 0) -> np.ndarray:
    """Rank one-hot (13) and suit one-hot (4) of the card of actions first..first+51 (card ids)."""
    out = np.zeros((num_actions, 17), np.float32)
    c = np.arange(52)
    out[first + c, c % 13] = 1.0
    out[first + c, 13 + c // 13] = 1.0
    return out


def cribbage_actions(game: Any, derived: int | None) -> ActionFeatures:
    from muggins_env.games.cribbage import rules as R

    a = game.num_actions
    hand = _block_offset(game.observation_layout, "hand")
    index = -np.ones((a, 7), np.int32)
    cards = np.arange(52)
    index[cards, 0] = hand + cards
    if derived is not None:
        f = CribbageFeatures
        for ch, at in enumerate((61, 113, f.PLAY_RISK, f.PLAY_COUNT, f.DEAL_VALUE), start=1):
            index[cards, ch] = derived + at + cards
        n = np.arange(R.MAX_COUNT + 1)
        index[R.ANNOUNCE + n, 6] = derived + n  # this announcement is the true count
        index[R.MUGGINS + n[1:], 6] = derived + 30 + n[1:]  # the announcement missed exactly N
        index[R.OVERCOUNT, 6] = derived + 60  # the announcement is too high
    static = np.concatenate([_kinds(a, [0, R.GO, R.ANNOUNCE, R.ACCEPT, R.OVERCOUNT, R.MUGGINS + 1]),
                             _card_descriptors(a), np.zeros((a, 1), np.float32)], axis=1)
    static[R.ANNOUNCE:R.ACCEPT, -1] = np.arange(R.ACCEPT - R.ANNOUNCE) / 29.0
    static[R.MUGGINS + 1:, -1] = np.arange(1, a - R.MUGGINS) / 29.0
    return ActionFeatures(index, static)


def dominoes_actions(game: Any, derived: int | None) -> ActionFeatures:
    from muggins_env.kernel.tiles import halves

    a, p, m, slots = game.num_actions, game.PASS, game.max_announcement, game.num_slots
    index = -np.ones((a, 3), np.int32)
    plays = np.arange(p)
    index[plays, 0] = plays // slots  # the tile is in the own hand (the observation starts with it)
    if derived is not None:
        index[plays, 1] = derived + m + 2 + plays  # the play's immediate score
        v = np.arange(m + 1)
        index[p + 1 + v, 2] = derived + v  # this announcement is the true score
        index[game.MUGGINS, 2] = derived + m + 1  # the announcement under review is wrong
    kinds = _kinds(a, [0, p, p + 1, game.ACCEPT, game.MUGGINS])
    extra = np.zeros((a, 4 + min(slots, 5)), np.float32)
    for act in plays:
        hi, lo = halves(int(act // slots))
        extra[act, 0:3] = hi / game.set_max, lo / game.set_max, float(hi == lo)
        extra[act, 4 + min(int(act % slots), 4)] = 1.0
    extra[p + 1:p + 2 + m, 3] = np.arange(m + 1) / max(1, m)
    return ActionFeatures(index, np.concatenate([kinds, extra], axis=1))


def muggins_cards_actions(game: Any, derived: int | None) -> ActionFeatures:
    from muggins_env.agents.heuristic_muggins_cards import (
        CALL,
        COMMON_PILE,
        OPPONENT_DISCARD,
        OWN_DISCARD,
        PASS,
    )

    a = game.num_actions
    index = -np.ones((a, 3 + 13), np.int32)
    if derived is not None:
        f = MugginsCardsFeatures(game)
        acts = np.arange(a)
        index[:, 0] = derived + acts  # a correct placement
        index[:, 1] = derived + f.MINE + acts
        index[:, 2] = derived + f.THEIRS + acts
        index[CALL, 0] = derived + f.MISTAKE  # a founded call
    # The rank a common-pile placement covers (the pile's top, one-hot from the observation's commons
    # block: per pile "present" then 13 ranks). Without it every fitting pile has the same features and
    # the scorer cannot prefer one: the choice between piles is the game's only real decision.
    commons = _block_offset(game.observation_layout, "commons")
    for i in range(OPPONENT_DISCARD - COMMON_PILE):
        index[COMMON_PILE + i, 3:] = commons + 14 * i + 1 + np.arange(13)
    static = np.concatenate([_kinds(a, [COMMON_PILE, OPPONENT_DISCARD, OWN_DISCARD, PASS, CALL]),
                             np.zeros((a, 1), np.float32)], axis=1)
    static[OPPONENT_DISCARD:OWN_DISCARD, -1] = np.arange(1, OWN_DISCARD - OPPONENT_DISCARD + 1) / 6.0
    return ActionFeatures(index, static)


def michigan_actions(game: Any, derived: int | None) -> ActionFeatures:
    a = game.num_actions
    index = -np.ones((a, 2), np.int32)
    cards = np.arange(52)
    index[cards, 0] = cards  # held (the observation starts with the own hand)
    rank = cards % 13  # 0 = ace, which is high: 2 .. K, A
    index[cards, 1] = np.where(rank == 0, -1, np.where(rank == 12, cards - 12, cards + 1))  # next rank held
    return ActionFeatures(index, _card_descriptors(a))


def action_features(game_id: str, game: Any, features: str | None) -> ActionFeatures:
    """The per-action features of ``game_id`` for a policy whose input is the observation with the
    derived features ``features`` (None/"none": the observation alone) appended."""
    per_action = load_hook(declaration(game_id).action_features)  # fn(game, derived offset or None)
    made = make_features(features, game_id, game)
    base = made.base if isinstance(made, HintedFeatures) else made
    derived = None if base is None else game.observation_size
    out = per_action(game, derived)
    extra = base.action_channels() if base is not None else []
    if extra:  # the set's further per-action quantities (positions in the derived block)
        cols = [np.where(ch >= 0, derived + ch, -1).astype(np.int32)[:, None] for ch in extra]
        out = ActionFeatures(np.concatenate([out.index, *cols], axis=1), out.static)
    if isinstance(made, HintedFeatures):  # one more channel: this action is the heuristic's move
        hint = game.observation_size + made.offset + np.arange(game.num_actions, dtype=np.int32)
        out = ActionFeatures(np.concatenate([out.index, hint[:, None]], axis=1), out.static)
    return out
