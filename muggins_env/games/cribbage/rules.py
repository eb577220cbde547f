"""Cribbage with muggins counting (docs/rules/cribbage.md §4): pure rules.

Facts: 2, 3 or 4 players (4 = two partnerships, partners opposite); one 52-card pack dealt
anew each deal from ``state.rng`` (2 players: 6 cards each, 2 laid away; 3: 5 each, 1 laid
away, one card from the pack to the crib; 4: 5 each, 1 laid away). The crib (4 cards) is the
dealer's. The game runs deal after deal until a side reaches ``target`` (121 or 61), the
moment it does so, in the play or in the show.
Zero-sum: the winning side +1, the others share -1 (2 players ±1, 3 players +1/-0.5/-0.5,
partnerships ±1 per seat). Lowball ("A perder", §4.2c): the side that reaches the target
loses (-1) and the others share +1; counts are automatic (lowball is never played with
muggins: ``muggins=True`` with it is played without, as the seed says).
Chance: each deal's shuffle and the first dealer.
Longest episode: bounded by the target (every deal pegs at least 1 point).

Action indices (``Discrete(114)``, a contract):
  0-51    a card id: lay it away to the crib (discard phase, one card per action) or lay it
          in the play
  52      "go"
  53-82   announce a count of 0-29 (53 + count)
  83      accept the count under review
  84      "overcount!"
  85-113  "muggins N": N = 1..29 points were missed (84 + N)
"""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from ...kernel.cards import NUM_CARDS, RANK_LIST, format_card, parse_card
from ...kernel.game import TERMINAL, Game, GameFacts, State, one_hot, piece_offsets
from ...kernel.options import Option
from ...kernel.rewards import quiet_rewards, win_loss_rewards
from ...kernel.seats import opponents_clockwise, team_of
from .scoring import VALUE, fast_breakdown, play_points_fast
from .speed import Memo, shared_mask

FACTS = GameFacts(name="cribbage_v0", long_name="Cribbage with muggins counting", min_players=2,
                  max_players=4, zero_sum=True, min_utility=-1.0, max_utility=1.0)

# -- action indices ---------------------------------------------------------------------------------
CARD = 0  # + card id
GO = 52
ANNOUNCE = 53  # + count 0..29
MAX_COUNT = 29
ACCEPT = 83
OVERCOUNT = 84
MUGGINS = 84  # + N, N = 1..29
NUM_ACTIONS = 114

# -- phases ---------------------------------------------------------------------------------------------
DISCARD, PLAY, ANNOUNCE_PHASE, RESPOND, OVER = range(5)
PHASE_NAMES = ("discard", "play", "announce", "respond", "over")

#: cards dealt and laid away per player, per player count
DEAL = {2: (6, 2), 3: (5, 1), 4: (5, 1)}
JACK = 11
PART_NAMES = ("fifteens", "pairs", "runs", "flush", "nobs")


#: the legal actions of the two phases whose legal actions never change
ANNOUNCE_ACTIONS = range(ANNOUNCE, ANNOUNCE + MAX_COUNT + 1)
RESPOND_ACTIONS = range(ACCEPT, NUM_ACTIONS)  # accept, overcount, muggins 1..29
#: per phase: the one read-only mask of a phase whose legal actions never change, else None
_FIXED_MASKS: list[np.ndarray | None] = [None] * len(PHASE_NAMES)
_FIXED_MASKS[ANNOUNCE_PHASE] = shared_mask(NUM_ACTIONS, ANNOUNCE_ACTIONS)
_FIXED_MASKS[RESPOND] = shared_mask(NUM_ACTIONS, RESPOND_ACTIONS)
_EMPTY_MASK = np.zeros(NUM_ACTIONS, dtype=np.int8)


def _breakdown(key: tuple) -> tuple:
    """(the 4 cards, starter, crib) -> (the breakdown's parts..., its total)."""
    parts = fast_breakdown(key[:4], key[4], key[5])
    return (*parts.values(), sum(parts.values()))


def _play_points(key: tuple) -> int:
    """(the series' ranks..., count) -> the points of its last card."""
    return play_points_fast(key[:-1], key[-1])


#: the two above, remembered. Flat tuples of ints: the collector stops tracking them, so a
#: filling cache does not bring full collections ever sooner (a tuple of tuples stays tracked)
_BREAKDOWNS, _PLAY_POINTS = Memo(_breakdown), Memo(_play_points)


class CribbageGame(Game):
    FACTS = FACTS
    OPTIONS: ClassVar[Mapping[str, Option]] = {
        "num_players": Option(2, allowed=(2, 3, 4), doc="4 = two partnerships, partners opposite"),
        "target": Option(121, allowed=(121, 61), doc="game points"),
        "muggins": Option(True, allowed=(True, False), doc="players announce counts; opponents may claim"),
        "reward": Option("win", allowed=("win", "points"), doc="terminal ±1, or also per-step points/target"),
        "lowball": Option(False, allowed=(False, True),
                          doc="'A perder': the side that first reaches the target loses; never with muggins"),
    }

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.num_players = n = self.options["num_players"]
        self.partnerships = n == 4
        self.num_sides = 2 if n == 4 else n
        self.target = self.options["target"]
        self.lowball = self.options["lowball"]
        # the seed: "si se eligen los dos, se juega A perder sin Muggins" (docs/rules/cribbage.md §4.2c)
        self.muggins = self.options["muggins"] and not self.lowball
        #: the options as played (``options`` keeps what was asked, so a config round-trips)
        self.effective_options = {**self.options, "muggins": self.muggins}
        self.points_reward = self.options["reward"] == "points"
        self.num_actions = NUM_ACTIONS
        self.hand_size, self.lay_away = DEAL[n]
        self.teams = [team_of(s, n, self.partnerships) for s in range(n)]
        #: the responders to each seat's count (copied into every review)
        self.responders = [tuple(opponents_clockwise(s, n, self.partnerships)) for s in range(n)]
        sizes = {
            "hand": 52,  # cards held (dealt and not yet laid away or played)
            "crib_discards": 52,  # own cards laid away to the crib
            "starter": 52,
            "played": n * 52,  # every card laid in this deal's play, per relative seat
            "series": 52,  # cards laid since the count was last reset
            "count": 1,  # the play's running total / 31
            "gone": n,  # relative seats that said "go" in this series
            "scores": self.num_sides,  # per relative side, / target
            "dealer": n,
            "to_act": n,
            "phase": 5,
            "counted": 52,  # cards under count (hand or crib, face up) - with the starter above
            "counter": n,  # relative seat whose count is under review
            "is_crib": 1,
            "announced": 1,  # / 29
            "accepted": 1,  # responders who accepted so far / n
            "shown_totals": n + 1,  # settled true totals of this deal's shows (per seat, crib) / 29
            "shown_announced": n + 1,  # what was announced for each settled count / 29
            "shown_breakdown": (n + 1) * 5,  # fifteens, pairs, runs, flush, nobs / their maxima
            "crib": 52,  # the crib once turned up
            # the previous deal's settled counts (its last ones settle as the next deal begins)
            "previous_shown_totals": n + 1,
            "previous_shown_announced": n + 1,
            "previous_shown_breakdown": (n + 1) * 5,
            "previous_crib": 52,
        }
        self.observation_layout = sizes
        self.observation_offsets = piece_offsets(sizes)[0]
        #: the state array's pieces beyond every seat's observation (``State.state_array``)
        self.hidden_layout = {
            "crib": 52,  # the cards in the crib (laid away, and the pack's card with 3 players), turned up or not
            "starter": 52,  # the starter card, cut or not
        }
        self.observation_size = sum(sizes.values())

    def new_initial_state(self, seed: int | None = None, deal: Mapping | None = None) -> CribbageState:
        return CribbageState(self, seed, deal)

    def sides(self) -> list[int]:
        return list(self.teams)

    def action_name(self, action: int) -> str:
        if action < GO:
            return f"card {format_card(action)}"
        if action == GO:
            return "go"
        if action < ACCEPT:
            return f"announce {action - ANNOUNCE}"
        if action == ACCEPT:
            return "accept"
        if action == OVERCOUNT:
            return "overcount"
        return f"muggins {action - MUGGINS}"


#: every attribute of a state, as slots: a state with more than 30 attributes in its dict loses
#: CPython's fastest attribute access (the dict stops sharing its keys), which every move pays
_SLOTS = ("game", "n", "_rng", "_rng_state", "_rng_seed", "scores", "_gain", "winner_side", "loser_side",
          "_zero", "_rewards", "_returns", "deals", "previous_shown", "seen",
          "dealer", "hands", "crib", "starter_card", "pack_crib_card", "_dealt", "laid_away", "starter_cut", "kept",
          "played", "play_order", "series", "series_ranks", "count", "gone", "go_floor", "last_player", "review",
          "shown", "show_queue", "phase", "player", "_legal_now")
_slot_values = operator.attrgetter(*_SLOTS)


class CribbageState(State):
    __slots__ = _SLOTS

    def __init__(self, game: CribbageGame, seed: int | None, deal: Mapping | None) -> None:
        self.game = game
        self.n = n = game.num_players
        self._rng_state: dict | None = None
        self.rng = np.random.default_rng(seed)  # (sets _rng_seed too: see the property)
        self.scores = [0] * game.num_sides
        self._gain = [0] * game.num_sides  # points per side of the move being applied
        self.winner_side = -1
        self.loser_side = -1  # lowball: the side that reached the target
        self._zero = quiet_rewards(n)
        self._rewards = self._zero
        self._returns = np.zeros(n)
        self.deals = 0
        self.previous_shown: list[dict] = []  # the last deal's settled counts
        self.seen = None  # the observer (kernel State.observation), told what the rules did
        self._legal_now = None  # the legal actions until the next move, once asked (see _legal)
        if deal is None:
            self.dealer = int(self.rng.integers(n))
            self._deal(None)
        else:
            self._deal(self._parse_deal(deal))

    # ``_rng_seed``: a seed for ``default_rng`` when the generator is built on first use
    # (``resample_hidden``), else None

    @property
    def rng(self) -> np.random.Generator:
        if self._rng is None and self._rng_seed is not None:
            self._rng, self._rng_seed = np.random.default_rng(self._rng_seed), None
        return State.rng.fget(self)

    @rng.setter
    def rng(self, value: np.random.Generator) -> None:
        self._rng, self._rng_state, self._rng_seed = value, None, None

    # -- dealing -------------------------------------------------------------------------------------
    def _parse_deal(self, deal: Mapping) -> dict:
        n, g = self.n, self.game
        if not isinstance(deal, Mapping):
            raise ValueError(f"deal must be a dict with keys dealer, hands, starter (crib_card with 3 players), "
                             f"got {deal!r}")
        allowed = {"dealer", "hands", "starter"} | ({"crib_card"} if n == 3 else set())
        unknown = set(deal) - allowed
        if unknown:
            raise ValueError(f"unknown deal key(s) {sorted(unknown)} for {n} players; allowed: {sorted(allowed)}")
        missing = allowed - set(deal)
        if missing:
            raise ValueError(f"deal is missing {sorted(missing)} (format: {sorted(allowed)})")
        dealer = deal["dealer"]
        if isinstance(dealer, bool) or not isinstance(dealer, (int, np.integer)) or not 0 <= dealer < n:
            raise ValueError(f"deal dealer={dealer!r} must be a seat 0..{n - 1}")
        hands = deal["hands"]
        if (not isinstance(hands, (list, tuple)) or len(hands) != n
                or any(not isinstance(h, (list, tuple)) or len(h) != g.hand_size for h in hands)):
            raise ValueError(f"deal hands must be {n} lists of {g.hand_size} cards, got {hands!r}")
        hands = [[parse_card(c) for c in h] for h in hands]
        starter = parse_card(deal["starter"])
        crib_card = parse_card(deal["crib_card"]) if n == 3 else None
        used = [c for h in hands for c in h] + [starter] + ([crib_card] if crib_card is not None else [])
        if len(set(used)) != len(used):
            twice = sorted({format_card(c) for c in used if used.count(c) > 1})
            raise ValueError(f"invalid deal: card(s) dealt twice: {', '.join(twice)}")
        self.dealer = int(dealer)
        return {"hands": hands, "starter": starter, "crib_card": crib_card}

    def _deal(self, rigged: dict | None) -> None:
        """Start a deal: hands, the crib's pack card (3 players), the starter (face down)."""
        n, g = self.n, self.game
        if rigged is None:
            pack = self.rng.permutation(NUM_CARDS).tolist()
            k = g.hand_size
            self.hands = [sorted(pack[i * k:(i + 1) * k]) for i in range(n)]
            rest = pack[n * k:]
            self.crib = [rest.pop()] if n == 3 else []
            self.starter_card = rest.pop()
        else:
            self.hands = [sorted(h) for h in rigged["hands"]]
            self.crib = [rigged["crib_card"]] if n == 3 else []
            self.starter_card = rigged["starter"]
        self.pack_crib_card = self.crib[0] if self.crib else -1
        self._dealt = (self.dealer, [list(h) for h in self.hands], self.pack_crib_card, self.starter_card)
        self.laid_away = [[] for _ in range(n)]
        self.starter_cut = False
        self.kept: list[list[int]] = []  # each seat's 4 cards for the show
        self.played = [[] for _ in range(n)]  # cards laid in this deal's play, per seat
        self.play_order: list[tuple[int, int]] = []  # (seat, card)
        self.series: list[int] = []
        self.series_ranks: list[int] = []
        self.count = 0
        self.gone = [False] * n
        # public facts for ``resample_inferred``: a seat that could not lay at a count holds only
        # cards of value above 31 - count for the rest of the play (a tuple: clones share it)
        self.go_floor = (0,) * n
        self.last_player = -1
        self.review: dict | None = None
        self.shown: list[dict] = []  # settled counts of this deal
        self.show_queue: list[tuple[int, bool]] = []
        self.phase = DISCARD
        self.player = (self.dealer + 1) % n  # lays away first; then clockwise
        self.deals += 1

    # -- scoring helpers ------------------------------------------------------------------------------
    def _peg(self, seat: int, points: int) -> bool:
        """Add points to seat's side; True when that ends the game."""
        if points == 0:
            return False
        side = self.game.teams[seat]
        self.scores[side] += points
        self._gain[side] += points
        if self.scores[side] >= self.game.target:
            self._end(side)
            return True
        return False

    def _end(self, side: int) -> None:
        """``side`` reached the target: it wins, or in lowball loses."""
        seen = self.seen
        if seen is not None:
            seen.game_over()
        if self.game.lowball:
            self.loser_side = side
            if self.game.num_sides == 2:  # of two sides the other one won (of three, two sides share it)
                self.winner_side = 1 - side
        else:
            self.winner_side = side
        self.phase = OVER

    # -- protocol --------------------------------------------------------------------------------------
    def current_player(self) -> int:
        if self.phase == OVER:
            return TERMINAL
        if self.phase == RESPOND:
            return self.review["responders"][self.review["asked"]]
        return self.player

    def _legal(self) -> Sequence[int]:
        """The legal actions, each phase's one definition (``legal_actions``, the mask and
        ``apply``'s guard read it; read only: it may be the hand itself). The play: every card
        held whose value keeps the count at 31 or under (hands are kept sorted), else "go"; the
        discard phase: every card held; the announcement: a count of 0..29; the answer to it:
        accept, "overcount" or "muggins N". Kept until the next move: the mask, then ``apply``'s
        guard, ask for them in turn."""
        legal = self._legal_now
        if legal is not None:
            return legal
        phase = self.phase
        if phase == PLAY:
            room = 31 - self.count
            legal = []
            for c in self.hands[self.player]:  # (a loop: a comprehension costs a call)
                if VALUE[c] <= room:
                    legal.append(c)
            legal = legal or [GO]
        elif phase == DISCARD:
            legal = self.hands[self.player]
        elif phase == ANNOUNCE_PHASE:
            legal = ANNOUNCE_ACTIONS
        elif phase == RESPOND:
            legal = RESPOND_ACTIONS
        else:
            legal = ()
        self._legal_now = legal
        return legal

    def legal_actions(self) -> list[int]:
        return list(self._legal())

    def legal_actions_mask(self) -> np.ndarray:
        mask = _FIXED_MASKS[self.phase]
        if mask is None:
            mask = _EMPTY_MASK.copy()
            for a in self._legal():  # at most 6: item writes beat an index array
                mask[a] = 1
        return mask

    def apply(self, action: int) -> None:
        phase = self.phase
        # the legal list guards it (anything unusual goes to check_legal and its clear error)
        legal = self._legal_now  # (mostly kept: the env asked for the mask)
        if legal is None:
            legal = self._legal()
        a = action if type(action) is int and action in legal else self.check_legal(action)
        g = self.game
        self._gain = gain = [0] * g.num_sides
        if phase == PLAY:
            self._play(a)
        elif phase == DISCARD:
            self._lay_away(a)
        elif phase == ANNOUNCE_PHASE:
            self._announce(a - ANNOUNCE)
        else:
            self._respond(a)
        if self.phase != OVER and not (g.points_reward and any(gain)):
            self._rewards = self._zero  # read-only: most steps pay nothing
        else:
            self._set_rewards(self.n)
        self._legal_now = None  # the move changed them

    def _set_rewards(self, n: int) -> None:
        g = self.game
        if self.phase != OVER and not (g.points_reward and any(self._gain)):
            self._rewards = self._zero  # read-only: most steps pay nothing
            return
        r = np.zeros(n)
        if g.points_reward and any(self._gain):
            gains = self._gain
            sense = -1.0 if g.lowball else 1.0  # lowball: points are bad for the side that makes them
            for s in range(n):
                own = g.teams[s]
                others = [gains[t] for t in range(g.num_sides) if t != own]
                r[s] = sense * (gains[own] - sum(others) / len(others)) / g.target
        if self.phase == OVER:
            teams = g.teams
            if g.lowball:
                winners = [s for s in range(n) if teams[s] != self.loser_side]
            else:
                winners = [s for s in range(n) if teams[s] == self.winner_side]
            r += win_loss_rewards(n, winners, teams)
        self._rewards = r
        if r.any():
            self._returns = self._returns + r

    # -- discard phase -----------------------------------------------------------------------------------
    def _lay_away(self, card: int) -> None:
        seat = self.player
        self.hands[seat].remove(card)
        self.laid_away[seat].append(card)
        self.crib.append(card)
        seen = self.seen
        if seen is not None:
            seen.laid_away(seat, card)
        if len(self.laid_away[seat]) < self.game.lay_away:
            return
        if len(self.crib) < 4:
            self.player = (seat + 1) % self.n
            return
        # everyone has laid away: cut the starter; his heels
        self.kept = [sorted(h) for h in self.hands]
        self.starter_cut = True
        if seen is not None:
            seen.starter_cut(self.starter_card)
        self.phase = PLAY
        self.player = (self.dealer + 1) % self.n
        if RANK_LIST[self.starter_card] == JACK and self._peg(self.dealer, 2):
            return

    # -- the play -------------------------------------------------------------------------------------
    def _play(self, action: int) -> None:
        seat = self.player
        seen = self.seen
        if action == GO:
            self.gone[seat] = True
            self._floor(seat)
            if seen is not None:
                seen.said_go(seat)
            self._next_in_play(seat)
            return
        if seen is not None:
            seen.laid(seat, action)
        self.hands[seat].remove(action)
        self.played[seat].append(action)
        self.play_order.append((seat, action))
        self.series.append(action)
        self.series_ranks.append(RANK_LIST[action])
        self.count += VALUE[action]
        self.last_player = seat
        points = _PLAY_POINTS[(*self.series_ranks, self.count)]
        if points and self._peg(seat, points):
            return
        if not any(self.hands):  # the very last card of the play
            if self.count != 31 and self._peg(seat, 1):
                return
            self._start_show()
            return
        if self.count == 31:
            self._reset_series(seat)
            return
        self._next_in_play(seat)

    def _floor(self, seat: int) -> None:
        """``seat`` cannot lay at this count: every card it holds is worth more than the room."""
        floor = 32 - self.count
        if floor > self.go_floor[seat]:
            f = list(self.go_floor)
            f[seat] = floor
            self.go_floor = tuple(f)

    def _reset_series(self, last: int) -> None:
        seen = self.seen
        if seen is not None:
            seen.series_ended()
        self.count = 0
        self.series = []
        self.series_ranks = []
        self.gone = [False] * self.n
        nxt = (last + 1) % self.n
        while not self.hands[nxt]:
            nxt = (nxt + 1) % self.n
        self.player = nxt

    def _next_in_play(self, seat: int) -> None:
        """After a lay or a go by ``seat``: the next player clockwise who holds cards and has not
        said go; the go point to the last layer when nobody else can continue."""
        n, hands, gone = self.n, self.hands, self.gone
        room = 31 - self.count
        for k in range(1, n + 1):
            c = (seat + k) % n
            hand = hands[c]
            if not hand or gone[c]:
                continue
            if (c == self.last_player and all(VALUE[x] > room for x in hand)
                    and all(gone[o] or not hands[o] for o in range(n) if o != c)):
                self._floor(c)
                break  # the last layer cannot continue and nobody else may: go point
            self.player = c
            return
        # nobody can continue: the last player to lay a card scores 1 for the go
        last = self.last_player
        if self._peg(last, 1):
            return
        self._reset_series(last)

    # -- the show ---------------------------------------------------------------------------------------
    def _start_show(self) -> None:
        n = self.n
        seen = self.seen
        if seen is not None:
            seen.series_ended()  # the play's last
        self.show_queue = [((self.dealer + k) % n, False) for k in range(1, n + 1)] + [(self.dealer, True)]
        self.series, self.series_ranks, self.count = [], [], 0
        self._next_count()

    def _next_count(self) -> None:
        """Count the next hand (or the crib): announced in muggins mode, automatic otherwise."""
        while self.show_queue:
            seat, is_crib = self.show_queue.pop(0)
            cards = sorted(self.crib) if is_crib else self.kept[seat]
            hit = _BREAKDOWNS[(*cards, self.starter_card, is_crib)]
            breakdown = dict(zip(PART_NAMES, hit[:5]))  # shown once settled
            true = hit[5]
            self.review = {"counter": seat, "is_crib": is_crib, "cards": cards, "true": true,
                           "announced": None, "responders": [], "asked": 0, "breakdown": breakdown}
            if self.game.muggins:
                self.phase = ANNOUNCE_PHASE
                self.player = seat
                seen = self.seen
                if seen is not None:
                    seen.under_review(self.review)
                return
            self.review["announced"] = true
            if self._peg(seat, true):
                self._settled("automatic")
                return
            self._settled("automatic")
        self._next_deal()

    def _announce(self, value: int) -> None:
        rv = self.review
        rv["announced"] = value
        seat = rv["counter"]
        too_high = value > rv["true"]
        side = self.game.teams[seat]
        self.scores[side] += value
        self._gain[side] += value
        if self.scores[side] >= self.game.target and not too_high:
            self._end(side)
            self._settled("reached the target")
            return
        rv["responders"] = list(self.game.responders[seat])
        rv["asked"] = 0
        self.phase = RESPOND

    def _respond(self, action: int) -> None:
        rv = self.review
        if action == ACCEPT:
            rv["asked"] += 1
            if rv["asked"] < len(rv["responders"]):
                return
            self._after_count("all accepted")
            return
        counter, claimer = rv["counter"], self.current_player()
        teams = self.game.teams
        rv["claimer"] = claimer
        announced, true = rv["announced"], rv["true"]
        if action == OVERCOUNT:
            if announced > true:
                excess = announced - true
                self.scores[teams[counter]] -= excess
                self._gain[teams[counter]] -= excess
                self.scores[teams[claimer]] += excess
                self._gain[teams[claimer]] += excess
                outcome = f"overcount: {excess} moved to player {claimer}"
            else:
                outcome = "overcount unfounded"
        else:
            claimed = action - MUGGINS
            missed = true - announced
            if missed > 0:
                got = min(claimed, missed)
                self.scores[teams[claimer]] += got
                self._gain[teams[claimer]] += got
                outcome = f"muggins: player {claimer} scores {got}"
            else:
                self.scores[teams[counter]] += claimed
                self._gain[teams[counter]] += claimed
                outcome = f"false muggins: player {counter} scores {claimed}"
        self._after_count(outcome)

    def _after_count(self, outcome: str) -> None:
        """The count is settled: the target check (counter first: its points came first)."""
        teams, target = self.game.teams, self.game.target
        rv = self.review
        counter_side = teams[rv["counter"]]
        self._settled(outcome)
        for side in [counter_side, *range(len(self.scores))]:
            if self.scores[side] >= target:
                self._end(side)
                return
        self._next_count()

    def _settled(self, outcome: str) -> None:
        rv = self.review
        rv["outcome"] = outcome
        self.shown.append(rv)
        self.review = None
        seen = self.seen
        if seen is not None:
            seen.count_settled(rv)

    def _next_deal(self) -> None:
        self.previous_shown = self.shown
        self.dealer = (self.dealer + 1) % self.n
        self._deal(None)
        seen = self.seen
        if seen is not None:
            seen.new_deal()

    # -- end and rewards ------------------------------------------------------------------------------
    def is_terminal(self) -> bool:
        return self.phase == OVER

    def phase_name(self) -> str:
        return PHASE_NAMES[self.phase]

    def action_to_string(self, action: int) -> str:
        if action < GO:
            return ("lay away " if self.phase == DISCARD else "lay ") + format_card(action)
        return self.game.action_name(action)

    def _public_review(self, rv: dict, settled: bool) -> dict:
        out = {"counter": rv["counter"], "is_crib": rv["is_crib"], "cards": list(rv["cards"]),
               "announced": rv["announced"], "accepted": rv["asked"]}
        if settled:
            out.update(true=rv["true"], breakdown=dict(rv["breakdown"]), outcome=rv["outcome"])
        return out

    def public_view(self, player: int) -> dict:
        g = self.game
        return {
            "seat": player,
            "phase": PHASE_NAMES[self.phase],
            "dealer": self.dealer,
            "to_act": self.current_player(),
            "scores": list(self.scores),
            "team": g.teams[player],
            "teams": list(g.teams),
            "target": g.target,
            "hand": sorted(self.hands[player]),
            "crib_discards": list(self.laid_away[player]),
            "lay_away": g.lay_away,
            "starter": self.starter_card if self.starter_cut else None,
            "play": list(self.play_order),
            "series": list(self.series),
            "count": self.count,
            "gone": [s for s in range(self.n) if self.gone[s]],
            "hand_sizes": [len(h) for h in self.hands],
            "review": self._public_review(self.review, False) if self.review else None,
            "shown": [self._public_review(rv, True) for rv in self.shown],
            "previous_deal_shown": [self._public_review(rv, True) for rv in self.previous_shown],
        }

    def scoreboard(self) -> tuple[str, list[float]]:
        return "points", [float(self.scores[t]) for t in self.game.teams]

    def public_action_to_string(self, action: int) -> str:
        if self.phase == DISCARD and 0 <= action < GO:
            return "lay away a card"  # face down: the others see a card go to the crib, not which
        return self.action_to_string(action)

    def deal(self) -> dict:
        dealer, hands, crib_card, starter = self._dealt
        out = {"dealer": dealer, "hands": [list(h) for h in hands], "starter": starter}
        if self.n == 3:
            out["crib_card"] = crib_card
        return out

    def render(self, player: int | None = None) -> str:
        g = self.game
        lowball = ", lowball (A perder: reaching the target loses; muggins off)" if g.lowball else ""
        lines = [(f"Cribbage, {self.n} players{' (partnerships)' if g.partnerships else ''}{lowball}, "
                  f"deal {self.deals}, dealer {self.dealer}, phase {PHASE_NAMES[self.phase]}")]
        if player is None:  # the full table (replays, records' digests): as it always was
            lines.append("scores: " + "  ".join(f"side {i}: {s}" for i, s in enumerate(self.scores))
                         + f"   (target {g.target})")
        else:  # a seat's table: by player without partnerships, as the scoreboard says it
            lines.append("scores: " + "  ".join(
                (f"side {i} (players {', '.join(str(p) for p in range(self.n) if g.teams[p] == i)})"
                 if g.partnerships else f"player {i}") + f": {sc}" for i, sc in enumerate(self.scores))
                + f"   (target {g.target})")
        lines.append("starter: " + (format_card(self.starter_card) if self.starter_cut else "(not cut)"))
        if player is not None:
            whose = "yours" if player == self.dealer else f"player {self.dealer}'s"
            k = len(self.crib)
            lines.append(f"crib: {whose} (the dealer's), {k} card{'' if k == 1 else 's'}")
        for s in range(self.n):
            mark = ">" if s == self.current_player() else " "
            if player is None or s == player or not self.hands[s]:
                hand = ' '.join(map(format_card, sorted(self.hands[s]))) or '-'
            else:
                hand = f"{len(self.hands[s])} card" + ("" if len(self.hands[s]) == 1 else "s")
            you = " (you)" if s == player else ""
            lines.append(f"{mark} player {s}{you}: hand {hand}"
                         f"   played {' '.join(map(format_card, self.played[s])) or '-'}")
        if player is not None and self.laid_away[player]:
            laid = ' '.join(map(format_card, self.laid_away[player]))
            lines.append(f"your crib discards: {laid}" if player == self.dealer
                         else f"you laid away {laid} to player {self.dealer}'s crib")
        if self.phase == PLAY:
            lines.append(f"count {self.count}: {' '.join(map(format_card, self.series)) or '-'}")
        for rv in self.shown:
            what = "crib" if rv["is_crib"] else "hand"
            lines.append(f"  player {rv['counter']} {what} {' '.join(map(format_card, rv['cards']))}: "
                         f"announced {rv['announced']}, true {rv['true']} ({rv['outcome']})")
        if self.review is not None:
            rv = self.review
            lines.append(f"counting player {rv['counter']}'s {'crib' if rv['is_crib'] else 'hand'} "
                         f"{' '.join(map(format_card, rv['cards']))}, "
                         + ("to be announced" if rv["announced"] is None else f"announced {rv['announced']}"))
        if self.phase == OVER:
            lines.append(f"result: side {self.loser_side} reached the target and loses" if g.lowball
                         else f"result: side {self.winner_side} wins")
        return "\n".join(lines)

    def full_state(self) -> dict:
        return {
            "dealer": self.dealer, "phase": PHASE_NAMES[self.phase], "to_act": self.current_player(),
            "scores": list(self.scores), "hands": [sorted(h) for h in self.hands],
            "crib": sorted(self.crib), "starter": self.starter_card, "starter_cut": self.starter_cut,
            "laid_away": [list(x) for x in self.laid_away], "played": [list(p) for p in self.played],
            "series": list(self.series), "count": self.count, "gone": list(self.gone),
            "review": ({k: v for k, v in self.review.items()} if self.review else None),
            "shown": [dict(rv) for rv in self.shown],
            "previous_shown": [dict(rv) for rv in self.previous_shown], "winner_side": self.winner_side,
            "loser_side": self.loser_side, "deals": self.deals,
        }

    def hidden_pieces(self) -> dict[str, np.ndarray]:
        return {"crib": one_hot(52, self.crib), "starter": one_hot(52, [self.starter_card])}

    def clone(self) -> CribbageState:
        c = object.__new__(CribbageState)
        for name, value in zip(_SLOTS, _slot_values(self)):
            setattr(c, name, value)
        c.__dict__.update(self.__dict__)  # anything set on the state besides its slots
        c._rng = None
        c._rng_state = self._rng.bit_generator.state if self._rng is not None else self._rng_state
        c.scores = list(self.scores)
        c.hands = [list(h) for h in self.hands]
        c.crib = list(self.crib)
        c.laid_away = [list(x) for x in self.laid_away]
        c.kept = [list(k) for k in self.kept]
        c.played = [list(p) for p in self.played]
        c.play_order = list(self.play_order)
        c.series = list(self.series)
        c.series_ranks = list(self.series_ranks)
        c.gone = list(self.gone)
        c.show_queue = list(self.show_queue)
        c.shown = list(self.shown)  # settled entries are never mutated
        c.seen = None  # the clone's first observation builds its own
        c._legal_now = None  # (they may be the hand itself, which the clone copies)
        if self.review is not None:
            c.review = dict(self.review)
            c.review["responders"] = list(self.review["responders"])
        return c

    def resample_hidden(self, player: int, rng: np.random.Generator) -> CribbageState:
        """Re-deal what ``player`` has not seen: the other players' unplayed cards, the crib
        cards that are not the player's own (until the crib is turned), the starter (until it
        is cut), and the future: later deals come from a fresh generator drawn from ``rng``
        (the true next deals are not known either). Counts stay; everything played, shown or
        held by the player stays."""
        return self._redeal(player, rng, None)

    def resample_inferred(self, player: int, rng: np.random.Generator) -> CribbageState:
        """``resample_hidden``'s re-deal, keeping also what the play showed: a seat that could
        not lay at a count (a go) holds only cards worth more than the room it had
        (``go_floor``); such seats are dealt first, from the cards that fit."""
        floors = self.go_floor
        if not any(f for s, f in enumerate(floors) if s != player):
            return self._redeal(player, rng, None)
        return self._redeal(player, rng, floors)

    def _redeal(self, player: int, rng: np.random.Generator, floors: Sequence[int] | None) -> CribbageState:
        c = self.clone()
        # default_rng(seed), built when first used (a search gives its worlds its own stream)
        c._rng, c._rng_state, c._rng_seed = None, None, int(rng.integers(2**63))
        crib_face_up = any(rv["is_crib"] for rv in self.shown) or (
            self.review is not None and self.review["is_crib"])
        known = set(self.hands[player]) | set(self.laid_away[player])
        for cards in self.played:
            known.update(cards)
        if self.starter_cut:
            known.add(self.starter_card)
        if crib_face_up:
            known.update(self.crib)
        pool = rng.permutation([x for x in range(NUM_CARDS) if x not in known]).tolist()
        others = [s for s in range(self.n) if s != player]
        for s in (sorted(others, key=lambda q: -floors[q]) if floors else others):
            k = len(self.hands[s])
            if floors and floors[s]:  # the cards above its floor first; relaxed only if too few remain
                fit = [x for x in pool if VALUE[x] >= floors[s]][:k]
                chosen = fit + [x for x in pool if VALUE[x] < floors[s]][:k - len(fit)]
                taken = set(chosen)
                c.hands[s], pool = sorted(chosen), [x for x in pool if x not in taken]
            else:
                c.hands[s], pool = sorted(pool[:k]), pool[k:]
        if not crib_face_up:
            unseen = len(self.crib) - len(self.laid_away[player])
            fresh, pool = pool[:unseen], pool[unseen:]
            c.crib = list(self.laid_away[player]) + fresh
            for s in others:  # the others' laid-away cards are the unseen crib cards
                k = len(self.laid_away[s])
                c.laid_away[s], fresh = fresh[:k], fresh[k:]
            c.pack_crib_card = fresh[0] if fresh else -1
        if not self.starter_cut:
            c.starter_card = pool.pop()
        if self.kept:  # the others' show cards: what they played plus what they still hold
            for s in others:
                c.kept[s] = sorted(c.played[s] + c.hands[s])
        return c
