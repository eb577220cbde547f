"""Muggins dominoes and the Fives family (docs/rules/dominoes.md §2): the Game and its State, pure rules.

Facts: 2-4 players (partnerships 0 & 2 against 1 & 3 with 4); a double-6 set (or 9, 12, 15);
7 tiles each with 2-3 players, 5 with 4, the rest the face-down boneyard. Zero-sum: the
side that reaches the target wins +1, the others share -1 (``reward="points"`` adds a
zero-sum score-difference shaping each step). Chance: every deal, from ``state.rng``.
Drawing from the boneyard is not a decision: the state draws for a player who cannot play.

Action indices (``Discrete(num_tiles * num_slots + max_announcement + 4)``, a contract):
  tile * num_slots + slot   play ``tile`` (kernel tile id) at ``slot``: 0 = as the lead of the
                            hand, k >= 1 = on the open end of arm k (see ``layout.py``:
                            1 west / 2 east of the lead, then 3, 4, ... the spinners' ends
                            in the order the spinners were played); num_slots = 3 (line
                            variants), 5 (all_fives, sniff), 2 * set_max + 5 (five_up)
  PASS                      pass (cannot play and the boneyard is exhausted)
  ANNOUNCE + v              announce a score v = 0 .. max_announcement after one's play
  ACCEPT                    let the announcement under review stand
  MUGGINS                   call "Muggins!" on it
  KNOCK, DRAW               (``knocking=True`` only) knock, or draw, when one cannot play
  STOP                      (``extra_play=True`` only) decline the extra play
The knocking and extra-play actions come after MUGGINS, so every other index keeps its meaning.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from ...kernel.cards import check_all_once
from ...kernel.game import TERMINAL, Game, GameFacts, State, piece_offsets, pile_order
from ...kernel.options import Option, int_range
from ...kernel.rewards import quiet_rewards, win_loss_rewards
from ...kernel.seats import opponents_clockwise, team_of
from ...kernel.tiles import HALVES, WEIGHT, format_tile, num_tiles, parse_tile
from .layout import (
    LAYOUT_NAMES,
    PRESETS,
    SCORINGS,
    SPINNERS,
    Layout,
    bonus_points,
    count_bound,
    make_variant,
    max_announcement,
    num_arms,
    play_score,
    prime_bonus,
)
from .phases import (
    ANNOUNCE_PHASE,
    EXTRA_EARNED,
    EXTRA_NAMES,
    EXTRA_OFFERED,
    LEAD_SLOT,
    NO_EXTRA,
    OVER,
    PHASE_NAMES,
    PLAY,
    PLAY_PHASE,
    RESPOND_PHASE,
)
from .speed import SharedMasks

FACTS = GameFacts(name="muggins_dominoes_v0", long_name="Muggins dominoes (All Fives family)",
                  min_players=2, max_players=4, zero_sum=True, min_utility=-1.0, max_utility=1.0)

# PASS, ANNOUNCE, ACCEPT, MUGGINS depend on the configuration: Game.PASS etc. (see action_layout);
# the play block (PLAY, LEAD_SLOT), the phases and the extra play's states are in ``phases``

#: double-2 and double-3 are research sizes (small enough for exact exploitability through the
#: OpenSpiel bridge, ``muggins_env.openspiel``); 6 is the default
SET_MAXES = (2, 3, 6, 9, 12, 15)
#: bit mask of the halves of every tile (bit p set when the tile has a p half)
TILE_BITS = [(1 << hi) | (1 << lo) for hi, lo in HALVES]
PIPS = [hi + lo for hi, lo in HALVES]
#: first-play order: any double above any non-double; doubles by pip; others by weight, then high half
LEAD_KEY = [1000 + hi if hi == lo else WEIGHT[t] * 20 + hi for t, (hi, lo) in enumerate(HALVES)]


def action_layout(num_tiles_: int, num_slots: int, max_ann: int, knocking: bool = False,
                  extra_play: bool = False) -> dict[str, int]:
    """The offsets of every action block for one configuration (-1: no such action)."""
    pass_ = num_tiles_ * num_slots
    out = {"PASS": pass_, "ANNOUNCE": pass_ + 1, "ACCEPT": pass_ + 2 + max_ann, "MUGGINS": pass_ + 3 + max_ann,
           "KNOCK": -1, "DRAW": -1, "STOP": -1}
    nxt = pass_ + 4 + max_ann
    if knocking:
        out["KNOCK"], out["DRAW"] = nxt, nxt + 1
        nxt += 2
    if extra_play:
        out["STOP"] = nxt
        nxt += 1
    out["NUM_ACTIONS"] = nxt
    return out


def _default_hand_size(o: dict) -> int:
    return 5 if o["num_players"] == 4 else 7


def _preset(o: dict):
    return PRESETS[o["variant"]]


def _default_target(o: dict) -> int:
    p = _preset(o)
    return p.target_two if o["num_players"] == 2 else p.target_more


def _win_bonus(v: Any) -> str | None:
    if v == "pips" and isinstance(v, str):
        return None
    if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) and v >= 0:
        return None
    return "expected 'pips' or an int >= 0"


class DominoesGame(Game):
    FACTS = FACTS
    OPTIONS: ClassVar[dict[str, Option]] = {
        "num_players": Option(2, allowed=(2, 3, 4), doc="players, 2-4"),
        "partnerships": Option(False, allowed=(False, True), doc="4 players: seats 0 & 2 against 1 & 3"),
        "variant": Option("muggins", allowed=tuple(PRESETS),
                          doc="a preset of the options below (docs/rules/dominoes.md §2.4, §2.8); an explicit option overrides it"),
        "scoring": Option(lambda o: _preset(o).scoring, allowed=SCORINGS, doc="what a play scores (§2.8)"),
        "spinners": Option(lambda o: _preset(o).spinners, allowed=SPINNERS, doc="the layout (§2.3, §2.8)"),
        "lead": Option("heaviest", allowed=("heaviest", "double"), doc="the first play of each hand (§2.1, §2.8)"),
        "knocking": Option(False, allowed=(False, True), doc="3-4 players: knock instead of drawing (§2.8)"),
        "extra_play": Option(False, allowed=(False, True), doc="one more tile after a double or a score (§2.8)"),
        "win_bonus": Option(lambda o: _preset(o).win_bonus, check=_win_bonus,
                            doc="end-of-hand score: 'pips' (§2.5) or that many points to the winner"),
        "set_max": Option(6, allowed=SET_MAXES, doc="double-6, 9, 12 or 15 set (2 or 3, research sizes: with spinners='none' only)"),
        "hand_size": Option(_default_hand_size, check=int_range(1, 136),
                            doc="tiles dealt to each player (7 with 2-3 players, 5 with 4)"),
        "boneyard_reserve": Option(0, check=int_range(0, 136), doc="tiles that may never be drawn"),
        "muggins": Option(lambda o: _preset(o).muggins, allowed=("forfeit", "claim", "off"),
                          doc="the muggins rule (§2.6; off by default in fives_1863)"),
        "target": Option(_default_target, check=int_range(1),
                         doc="points to win (200 with 2 players, 150 with 3-4; 61 in fives_and_threes, five_up; "
                             "31 in fives_1863)"),
        "episode": Option("game", allowed=("game", "hand"), doc="an episode is a game to the target, or one hand"),
        "reward": Option("win", allowed=("win", "points"), doc="win/loss only, or plus score shaping"),
        "max_hands": Option(100, check=int_range(1), doc="hands before the game is truncated as a draw"),
    }

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        o = self.options
        self.num_players = n = o["num_players"]
        self.partnerships = o["partnerships"]
        if self.partnerships and n != 4:
            raise ValueError(f"option partnerships=True needs num_players=4 (got num_players={n}); "
                             "allowed: partnerships=False with 2-4 players, True with 4")
        if o["knocking"] and n == 2:
            raise ValueError("option knocking=True needs 3 or 4 players (got num_players=2): skipping the "
                             "next player would give the knocker a second turn; allowed: knocking=False "
                             "with 2 players, True with 3-4")
        preset = PRESETS[o["variant"]]
        self.variant = make_variant(o["variant"], o["scoring"], o["spinners"],
                                    (preset.target_two, preset.target_more))
        self.lead = o["lead"]
        self.knocking = o["knocking"]
        self.extra_play = o["extra_play"]
        self.turn_rules = self.knocking or self.extra_play  # a play may have to settle a knock or an extra
        wb = o["win_bonus"]
        self.win_bonus = wb if wb == "pips" else int(wb)
        self.set_max = s = o["set_max"]
        if s < 6 and self.variant.spinners != "none":
            # the count bounds (layout.reachable_counts) assume 7+ doubles; the line's are exact for any set
            raise ValueError(f"option set_max={s} needs spinners='none' (a line), got spinners="
                             f"{self.variant.spinners!r}; allowed: set_max 2 or 3 with spinners='none', "
                             "6, 9, 12 or 15 with any layout")
        self.num_tiles = t = num_tiles(s)
        self.hand_size = o["hand_size"]
        self.reserve = o["boneyard_reserve"]
        if n * self.hand_size + self.reserve > t:
            raise ValueError(
                f"options hand_size={self.hand_size} and boneyard_reserve={self.reserve} do not fit "
                f"a double-{s} set of {t} tiles with {n} players: num_players * hand_size + "
                f"boneyard_reserve must be at most {t}")
        self.muggins = o["muggins"]
        self.target = o["target"]
        self.episode = o["episode"]
        self.reward_mode = o["reward"]
        self.max_hands = o["max_hands"]
        self.num_arms = num_arms(self.variant, s)
        self.num_slots = self.num_arms + 1
        self.max_count = count_bound(self.variant, s)
        self.max_announcement = max_announcement(self.variant, s)
        #: score of a play per count 0..max_count
        self.score_table = [play_score(self.variant, c) for c in range(self.max_count + 1)]
        offsets = action_layout(t, self.num_slots, self.max_announcement, self.knocking, self.extra_play)
        self.PASS = offsets["PASS"]
        self.ANNOUNCE = offsets["ANNOUNCE"]
        self.ACCEPT = offsets["ACCEPT"]
        self.MUGGINS = offsets["MUGGINS"]
        self.KNOCK = offsets["KNOCK"]
        self.DRAW = offsets["DRAW"]
        self.STOP = offsets["STOP"]
        self.num_actions = offsets["NUM_ACTIONS"]
        self.teams = [team_of(p, n, self.partnerships) for p in range(n)]
        self.num_sides = 2 if self.partnerships else n
        self.responders = [opponents_clockwise(p, n, self.partnerships) for p in range(n)]
        self.announce_actions = list(range(self.ANNOUNCE, self.ANNOUNCE + self.max_announcement + 1))
        # a hand: at most num_tiles plays, each with an announcement and n-1 responses, and
        # fewer than n passes between two plays
        self.max_game_length = self.max_hands * t * (2 * n + 1)
        o_ = self.observer_cls.layout(self)  # the observation module declares the pieces
        self.observation_layout = o_
        self.observation_size = sum(o_.values())
        self.masks = SharedMasks(self.num_actions)  # speed.py: the legal masks, kept read-only
        #: readable name of every action (plays without the state's open pip)
        self.action_names = [self._name(a) for a in range(self.num_actions)]
        #: where each named piece of the observation starts
        self.observation_offsets = piece_offsets(o_)[0]
        #: the state array's pieces beyond every seat's observation (``State.state_array``):
        #: the boneyard's tiles in order (``kernel.pile_order``: the top 1)
        self.hidden_layout = {"boneyard": self.num_tiles}
        #: side indices as seen from each seat: own side first, then clockwise
        self.relative_sides = [[self.teams[p], 1 - self.teams[p]] if self.partnerships
                               else [(p + k) % n for k in range(n)] for p in range(n)]
        #: the seats as seen from each seat: itself first, then clockwise
        self.relative_seats = [[(p + k) % n for k in range(n)] for p in range(n)]

    def new_initial_state(self, seed: int | None = None, deal: Mapping | None = None) -> DominoesState:
        return DominoesState(self, seed, deal)

    def decode_play(self, action: int) -> tuple[int, int]:
        """(tile, slot) of a play action."""
        return divmod(action - PLAY, self.num_slots)

    def play_action(self, tile: int | str, slot: int) -> int:
        """The action index of playing ``tile`` (id or ``"5-3"``) at ``slot``."""
        t = parse_tile(tile, self.set_max)
        if not 0 <= slot < self.num_slots:
            raise ValueError(f"slot {slot!r} out of range 0..{self.num_slots - 1}")
        return PLAY + t * self.num_slots + slot

    def announce_action(self, value: int) -> int:
        if not 0 <= value <= self.max_announcement:
            raise ValueError(f"announcement {value!r} out of range 0..{self.max_announcement}")
        return self.ANNOUNCE + value

    def sides(self) -> list[int]:
        return list(self.teams)

    def action_name(self, action: int) -> str:
        if 0 <= action < self.num_actions:
            return self.action_names[action]
        return f"action {action}"

    def _name(self, action: int) -> str:
        if action < self.PASS:
            tile, slot = self.decode_play(action)
            return f"lead {format_tile(tile)}" if slot == LEAD_SLOT else f"{format_tile(tile)} on arm {slot}"
        if action == self.PASS:
            return "pass"
        if action < self.ACCEPT:
            return f"announce {action - self.ANNOUNCE}"
        if action == self.ACCEPT:
            return "accept"
        if action == self.MUGGINS:
            return "Muggins!"
        if action == self.KNOCK:
            return "knock"
        if action == self.DRAW:
            return "draw"
        return "stop (no extra play)"


class DominoesState(State):
    def __init__(self, game: DominoesGame, seed: int | None, deal: Mapping | None) -> None:
        self.game = game
        self.n = game.num_players
        self._rng_state: dict | None = None
        self.rng = np.random.default_rng(seed)
        self.scores = [0] * game.num_sides
        self.hand_no = 0
        self.over = False
        self.truncated = False
        self.winner_side = -1
        self.zero = quiet_rewards(self.n)
        self._rewards = self.zero
        self._returns = np.zeros(self.n)
        self.last_review: dict | None = None  # the settled review of the latest announcement
        self.last_hand: dict | None = None  # how the previous hand ended
        # what the family's options record (one attribute: a state with more than about 30
        # attributes loses CPython's fast attribute access, which every move pays)
        self.record = {"last_knock": None, "redeals": 0}
        self._start_hand(self._parse_deal(deal) if deal is not None else None)

    # -- deals -------------------------------------------------------------------------------------
    def _parse_deal(self, deal: Mapping) -> tuple[list[list[int]], list[int]]:
        g, n = self.game, self.n
        if not isinstance(deal, Mapping):  # the suite's contract: a bad deal raises ValueError
            raise ValueError("deal must be a dict {'hands': [[tile, ...] per seat], 'boneyard': [tile, ...]}, "
                             f"got {deal!r}")
        unknown = set(deal) - {"hands", "boneyard"}
        if unknown:
            raise ValueError(f"unknown deal key(s) {sorted(unknown)}; allowed: hands, boneyard")
        if "hands" not in deal:
            raise ValueError("deal is missing 'hands' (format: {'hands': [[tile, ...] per seat], "
                             "'boneyard': [tile, ...] top first})")

        def tiles(what: str, value: Any) -> list[int]:
            if not isinstance(value, (list, tuple)):
                raise ValueError(f"deal {what} must be a list of tiles (ids or '5-3'), got {value!r}")
            return [parse_tile(int(x) if isinstance(x, np.integer) else x, g.set_max) for x in value]

        hands_in = deal["hands"]
        if not isinstance(hands_in, (list, tuple)) or len(hands_in) != n:
            raise ValueError(f"deal hands must be a list of {n} lists (one per seat), got {hands_in!r}")
        hands = [tiles(f"hand of seat {s}", h) for s, h in enumerate(hands_in)]
        for s, h in enumerate(hands):
            if not h:
                raise ValueError(f"deal: seat {s}'s hand is empty (every player needs at least one tile)")
        boneyard = tiles("boneyard", deal.get("boneyard", []))
        check_all_once([t for h in hands for t in h] + boneyard, f"deal (a double-{g.set_max} set)",
                       universe=g.num_tiles, fmt=format_tile)
        return hands, boneyard

    def _start_hand(self, rigged: tuple[list[list[int]], list[int]] | None) -> None:
        g, n = self.game, self.n
        if rigged is None:
            self._deal()
        else:
            hands, boneyard = rigged
            self.hands = [list(x) for x in hands]
            self.boneyard = boneyard[::-1]
        if g.lead == "double":  # nobody holds a double: the hand goes back and is dealt again
            while not any(HALVES[t][0] == HALVES[t][1] for hand in self.hands for t in hand):
                self.record["redeals"] += 1
                self._deal()
        self._dealt = ([list(h) for h in self.hands], self.boneyard[::-1])  # boneyard top first
        seen = self.seen
        if seen is not None:
            seen.new_hand()
        self.hand_no += 1
        self.drawn = [0] * n
        # public facts for ``resample_inferred``: (seat, open pip bits, tiles drawn, drew a
        # playable tile, plays before it) each time a seat could not play (a tuple: clones share it)
        self.record["cannot_play"] = ()
        self.layout = Layout(g.variant.layout, g.variant.sniff, g.num_arms)
        self.plays: list[tuple[int, int, int]] = []  # (seat, tile, slot) in order
        self.review: list[int] | None = None  # [mover, announced, true score, responder index]
        self.true_score = 0
        self.knock: list[int] | None = None  # [knocker, skipped, forced] while a forced scoring play is due
        self.extra = NO_EXTRA  # EXTRA_EARNED by the play being settled, EXTRA_OFFERED to the player to act
        # first play: the highest double, else the heaviest tile (docs/rules/dominoes.md §2.1)
        best, seat, tile = -1, 0, 0
        for s, hand in enumerate(self.hands):
            for t in hand:
                if LEAD_KEY[t] > best:
                    best, seat, tile = LEAD_KEY[t], s, t
        self.player = seat
        self.phase = PLAY_PHASE
        self._legal = [PLAY + tile * g.num_slots + LEAD_SLOT]

    @property
    def redeals(self) -> int:
        """Hands dealt again this episode because nobody held a double (``lead="double"``)."""
        return self.record["redeals"]

    @property
    def last_knock(self) -> dict | None:
        """The latest knock and how it ended (``knocking=True``)."""
        return self.record["last_knock"]

    def _deal(self) -> None:
        g = self.game
        perm = self.rng.permutation(g.num_tiles).tolist()
        h = g.hand_size
        self.hands = [perm[i * h:(i + 1) * h] for i in range(self.n)]
        self.boneyard = perm[self.n * h:]  # the top is the last element

    # -- turns ---------------------------------------------------------------------------------------
    def _plays_of(self, seat: int) -> list[int]:
        lay = self.layout
        bits = lay.open_bits
        ns = self.game.num_slots
        pip = lay.pip
        out = []
        for t in self.hands[seat]:
            if TILE_BITS[t] & bits:
                hi, lo = HALVES[t]
                base = PLAY + t * ns
                for k in lay.open_arms:
                    p = pip[k]
                    if p == hi or p == lo:
                        out.append(base + k)
        out.sort()
        return out

    def _can_play(self, seat: int) -> bool:
        bits = self.layout.open_bits
        return any(TILE_BITS[t] & bits for t in self.hands[seat])

    def _scoring_plays(self, seat: int) -> list[int]:
        """The seat's plays that score (the only legal ones for the player a knock forces)."""
        g = self.game
        out = []
        for a in self._plays_of(seat):
            c = self.layout.copy()
            c.place(*g.decode_play(a))
            if g.score_table[c.count]:
                out.append(a)
        return out

    def _begin_turn(self, seat: int, may_knock: bool = True) -> None:
        """The seat's turn: draw for them while they cannot play, then play or pass (with
        knocking, a player who could draw first chooses between knocking and drawing)."""
        self.player = seat
        self.phase = PLAY_PHASE
        plays = self._turn_choices(seat, may_knock)
        if not plays:  # no tile matches an open end and no knock: draw
            bits = self.layout.open_bits
            hand = self.hands[seat]
            reserve = self.game.reserve
            playable = False
            drawn = 0
            while len(self.boneyard) > reserve:
                t = self.boneyard.pop()
                hand.append(t)
                drawn += 1
                if TILE_BITS[t] & bits:
                    playable = True
                    break
            self.drawn[seat] += drawn
            self.record["cannot_play"] += ((seat, bits, drawn, playable, len(self.plays)),)
            if not playable:
                if not any(self._can_play(s) for s in range(self.n)):
                    self._end_hand_blocked()
                    return
                self._legal = [self.game.PASS]
                return
            plays = self._plays_of(seat)
        elif self.game.knocking and plays[0] == self.game.KNOCK:  # cannot play: knock or draw
            self.record["cannot_play"] += ((seat, self.layout.open_bits, 0, False, len(self.plays)),)
        self._legal = plays

    def _turn_choices(self, seat: int, may_knock: bool) -> list[int]:
        """A turn's legal actions before any draw: the seat's plays; with none, knock or draw
        where knocking allows it (and ``may_knock``); else none (the seat must draw)."""
        plays = self._plays_of(seat)  # empty exactly when no tile matches an open end
        if not plays and may_knock and self.game.knocking and len(self.boneyard) > self.game.reserve:
            return [self.game.KNOCK, self.game.DRAW]
        return plays

    def _extra_choices(self, seat: int) -> list[int]:
        """The extra play's legal actions: a play (never of the last tile) or stop."""
        return (self._plays_of(seat) if len(self.hands[seat]) > 1 else []) + [self.game.STOP]

    def _next_turn(self) -> None:
        self._begin_turn((self.player + 1) % self.n)

    # -- protocol -------------------------------------------------------------------------------------
    def current_player(self) -> int:
        if self.phase == OVER:
            return TERMINAL
        if self.phase == RESPOND_PHASE:
            r = self.review
            return self.game.responders[r[0]][r[3]]
        return self.player

    def legal_actions(self) -> list[int]:
        return list(self._legal) if self.phase != OVER else []

    def legal_actions_mask(self) -> np.ndarray:
        return self.game.masks.of(self._legal if self.phase != OVER else ())

    def apply(self, action: int) -> None:
        # the shared guard for a plain legal int without building the mask; anything else (and
        # every illegal move) goes to check_legal and its clear error
        a = action if type(action) is int and not self.over and action in self._legal else self.check_legal(action)
        g = self.game
        before = self.scores[:]
        self._rewards = self.zero
        phase = self.phase
        if phase == PLAY_PHASE:
            if a < g.PASS:
                tile, slot = divmod(a - PLAY, g.num_slots)
                self._play(tile, slot)
            elif a == g.PASS:
                if self.knock is not None:  # only in a re-dealt world: the forced player has no scoring play
                    self._revert_knock()
                else:
                    self._next_turn()
            elif a == g.DRAW:
                self._begin_turn(self.player, may_knock=False)
            elif a == g.KNOCK:
                self._knock()
            else:  # STOP
                self.extra = NO_EXTRA
                self._next_turn()
        elif phase == ANNOUNCE_PHASE:
            v = a - g.ANNOUNCE
            self.scores[g.teams[self.player]] += v  # credited at once
            self.review = [self.player, v, self.true_score, 0]
            self.phase = RESPOND_PHASE
            self._legal = [g.ACCEPT, g.MUGGINS]
        else:  # RESPOND_PHASE
            r = self.review
            if a == g.ACCEPT:
                r[3] += 1
                if r[3] == len(g.responders[r[0]]):
                    self._settle(-1)
            else:
                self._settle(g.responders[r[0]][r[3]])
        if self.scores != before or self.over:
            self._pay(before)

    def _knock(self) -> None:
        """docs/rules/dominoes.md §2.8 knocking: skip the left neighbour; the player after must make a scoring
        play if they have one, else play reverts to the knocker."""
        n = self.n
        knocker = self.player
        self.knock = [knocker, (knocker + 1) % n, (knocker + 2) % n]
        forced = self.knock[2]
        plays = self._scoring_plays(forced)
        if plays:
            self.player = forced
            self._legal = plays
        else:
            self._revert_knock()

    def _revert_knock(self) -> None:
        """No scoring play after a knock: the knocker draws until a playable tile and plays it or
        passes; the skipped player is next."""
        knocker, skipped, forced = self.knock
        self.knock = None
        self.record["last_knock"] = {"knocker": knocker, "skipped": skipped, "forced": forced, "scored": False}
        self._begin_turn(knocker, may_knock=False)

    def _play(self, tile: int, slot: int) -> None:
        g = self.game
        seat = self.player
        was_extra = False
        if g.turn_rules:
            if self.knock is not None:  # the forced scoring play: play goes on from this player
                knocker, skipped, _ = self.knock
                self.knock = None
                self.record["last_knock"] = {"knocker": knocker, "skipped": skipped, "forced": seat, "scored": True}
            was_extra, self.extra = self.extra == EXTRA_OFFERED, NO_EXTRA
        self.hands[seat].remove(tile)
        lay = self.layout
        if slot == LEAD_SLOT:
            lay.place_lead(tile)
        else:
            lay.place(tile, slot)
        self.plays.append((seat, tile, slot))
        seen = self.seen
        if seen is not None:
            seen.played(tile, slot)
        self.true_score = g.score_table[lay.count]
        # with extra_play a double or a scoring play earns one more tile (not after the extra one)
        if g.extra_play and not was_extra and (self.true_score > 0 or HALVES[tile][0] == HALVES[tile][1]):
            self.extra = EXTRA_EARNED
        if g.muggins == "off":
            side = g.teams[seat]
            self.scores[side] += self.true_score
            self.last_review = {"seat": seat, "announced": self.true_score, "true_score": self.true_score,
                                "caller": -1, "founded": False}
            if self.scores[side] >= g.target:
                self._game_over(side)
                return
            self._after_play(seat)
        else:
            self.phase = ANNOUNCE_PHASE
            self._legal = g.announce_actions

    def _settle(self, caller: int) -> None:
        g = self.game
        mover, announced, true, _ = self.review
        founded = caller >= 0 and announced != true
        if founded:
            self.scores[g.teams[mover]] -= announced
            if g.muggins == "claim":
                self.scores[g.teams[caller]] += true
        self.last_review = {"seat": mover, "announced": announced, "true_score": true,
                            "caller": caller, "founded": founded}
        self.review = None
        self.phase = PLAY_PHASE
        for side, score in enumerate(self.scores):
            if score >= g.target:
                self._game_over(side)
                return
        self._after_play(mover)

    def _after_play(self, seat: int) -> None:
        if not self.hands[seat]:
            self._end_hand_domino(seat)
            return
        if self.extra == EXTRA_EARNED:
            self.extra = NO_EXTRA
            choices = self._extra_choices(seat)
            if len(choices) > 1:  # a play besides stop
                self.player = seat
                self.phase = PLAY_PHASE
                self.extra = EXTRA_OFFERED
                self._legal = choices
                return
        self._next_turn()

    # -- end of hand and game -------------------------------------------------------------------------
    def side_pips(self) -> list[int]:
        g = self.game
        pips = [0] * g.num_sides
        for s, hand in enumerate(self.hands):
            pips[g.teams[s]] += sum(PIPS[t] for t in hand)
        return pips

    def _hand_bonus(self, side: int, pips: list[int], domino: bool) -> int:
        """End-of-hand points of the winning ``side`` (docs/rules/dominoes.md §2.5, §2.8)."""
        g = self.game
        if g.win_bonus != "pips":
            return g.win_bonus
        if g.variant.primes:
            return prime_bonus(max(PIPS[t] for s, hand in enumerate(self.hands) if g.teams[s] != side
                                   for t in hand))
        if domino:
            return sum(bonus_points(g.variant, p) for s, p in enumerate(pips) if s != side)
        return bonus_points(g.variant, sum(pips) - pips[side] - pips[side])

    def _end_hand_domino(self, seat: int) -> None:
        g = self.game
        side = g.teams[seat]
        pips = self.side_pips()
        bonus = self._hand_bonus(side, pips, True)
        self._end_hand({"how": "domino", "seat": seat, "side": side, "pips": pips, "bonus": bonus}, side, bonus)

    def _end_hand_blocked(self) -> None:
        pips = self.side_pips()
        low = min(pips)
        if pips.count(low) > 1:
            self._end_hand({"how": "blocked", "seat": -1, "side": -1, "pips": pips, "bonus": 0}, -1, 0)
            return
        side = pips.index(low)
        bonus = self._hand_bonus(side, pips, False)
        self._end_hand({"how": "blocked", "seat": -1, "side": side, "pips": pips, "bonus": bonus}, side, bonus)

    def _end_hand(self, result: dict, side: int, bonus: int) -> None:
        g = self.game
        result["hand"] = self.hand_no
        result["hands"] = [list(h) for h in self.hands]
        self.last_hand = result
        if side >= 0:
            self.scores[side] += bonus
            if self.scores[side] >= g.target:
                self._game_over(side)
                return
        if g.episode == "hand":
            best = max(self.scores)
            self._game_over(self.scores.index(best) if self.scores.count(best) == 1 else -1)
        elif self.hand_no >= g.max_hands:
            self.truncated = True
            self._game_over(-1)
        else:
            self._start_hand(None)

    def _game_over(self, side: int) -> None:
        self.over = True
        self.phase = OVER
        self.winner_side = side
        self.review = None
        self.knock = None
        self.extra = NO_EXTRA
        self._legal = []

    def _pay(self, before: list[int]) -> None:
        g = self.game
        n = self.n
        if g.reward_mode != "points" and not (self.over and self.winner_side >= 0):
            self._rewards = self.zero  # a score changed but "win" rewards pay only at the end
            return
        r = np.zeros(n)
        if g.reward_mode == "points":
            delta = [a - b for a, b in zip(self.scores, before)]
            teams = g.teams
            for i in range(n):
                opp = [delta[teams[j]] for j in range(n) if teams[j] != teams[i]]
                r[i] = (delta[teams[i]] - sum(opp) / len(opp)) / g.target
        if self.over and self.winner_side >= 0:
            winners = [s for s in range(n) if g.teams[s] == self.winner_side]
            r += win_loss_rewards(n, winners, g.teams)
        self._rewards = r
        self._returns += r

    def is_terminal(self) -> bool:
        return self.over

    # -- views -------------------------------------------------------------------------------------------
    def winners(self) -> list[int]:
        """Seats of the side that won (empty before the end, on a draw or truncation)."""
        if not self.over or self.winner_side < 0:
            return []
        return [s for s in range(self.n) if self.game.teams[s] == self.winner_side]

    def relative_sides(self, player: int) -> list[int]:
        """Side indices as seen from ``player``: own side first, then clockwise."""
        return list(self.game.relative_sides[player])

    def phase_name(self) -> str:
        return PHASE_NAMES[self.phase]

    def action_to_string(self, action: int) -> str:
        g = self.game
        if 0 <= action < g.PASS:
            slot = action % g.num_slots
            if slot != LEAD_SLOT:
                return f"{g.action_names[action]} (open {self.layout.pip[slot]})"
        return g.action_name(action)

    def open_ends(self) -> list[dict]:
        lay = self.layout
        out = []
        for k in sorted(lay.open_arms):
            crosswise, spinner, counts = lay.end_kind(k)
            out.append({"slot": k, "pip": lay.pip[k], "tiles": lay.length[k], "crosswise_double": crosswise,
                        "spinner": spinner, "spinner_counts": counts})
        return out

    def public_view(self, player: int) -> dict:
        g = self.game
        view = {
            "seat": player,
            "phase": PHASE_NAMES[self.phase],
            "to_act": self.current_player(),
            "turn_player": self.player,
            "hand_number": self.hand_no,
            "hand": sorted(self.hands[player]),
            "hand_text": [format_tile(t) for t in sorted(self.hands[player])],
            "lead": self.layout.lead,
            "plays": [list(p) for p in self.plays],
            "played": sorted(t for _, t, _ in self.plays),
            "open_ends": self.open_ends(),
            "count": self.layout.count,
            "scores": list(self.scores),
            "teams": list(g.teams),
            "target": g.target,
            "tile_counts": [len(h) for h in self.hands],
            "drawn": list(self.drawn),
            "boneyard_size": len(self.boneyard),
            "review": None,
            "last_review": dict(self.last_review) if self.last_review else None,
            "last_hand": None,
        }
        if self.phase == RESPOND_PHASE:
            mover, announced, _, idx = self.review
            view["review"] = {"seat": mover, "announced": announced,
                              "responders": list(g.responders[mover]), "asking": idx}
        if self.last_hand is not None:
            view["last_hand"] = {k: (list(map(list, v)) if k == "hands" else v) for k, v in self.last_hand.items()}
        if g.knocking:
            view["knock"] = (dict(zip(("knocker", "skipped", "forced"), self.knock))
                             if self.knock is not None else None)
            view["last_knock"] = dict(self.last_knock) if self.last_knock else None
        if g.extra_play:
            view["extra_play"] = self.extra == EXTRA_OFFERED
        if g.lead == "double":
            view["redeals"] = self.redeals
        return view

    def scoreboard(self) -> tuple[str, list[float]]:
        return "points", [float(self.scores[t]) for t in self.game.teams]

    def deal(self) -> dict:
        hands, boneyard = self._dealt
        return {"hands": [list(h) for h in hands], "boneyard": list(boneyard)}

    def render(self, player: int | None = None) -> str:
        g = self.game
        lay = self.layout
        title = (f"Muggins dominoes ({g.variant.name}: {g.variant.scoring}, {LAYOUT_NAMES[g.variant.layout]}, "
                 f"double-{g.set_max}, "
                 f"{self.n} players{', partnerships' if g.partnerships else ''}), hand {self.hand_no}, "
                 f"phase {PHASE_NAMES[self.phase]}")
        lines = [title]
        lines.append("scores: " + "  ".join(
            (f"side {s} (players {', '.join(str(p) for p in range(self.n) if g.teams[p] == s)})"
             if g.partnerships else f"player {s}") + f": {sc}" for s, sc in enumerate(self.scores))
            + f"   (target {g.target})")
        if lay.lead < 0:
            lines.append("layout: empty")
        else:
            lines.append(f"layout: lead [{format_tile(lay.lead)}], count {lay.count}")
            for e in self.open_ends():
                k = e["slot"]
                tiles = " ".join(f"[{a}-{b}]" for a, b in lay.oriented_arm(k))
                notes = []
                if e["crosswise_double"]:
                    notes.append("crosswise double")
                if e["spinner"]:
                    notes.append("spinner" + (", counts" if e["spinner_counts"] else ", not counting"))
                lines.append(f"  arm {k}: {tiles or '(empty)'} -> open {e['pip']}"
                             + (f" ({'; '.join(notes)})" if notes else ""))
        lines.append(f"boneyard: {len(self.boneyard)} tile{'' if len(self.boneyard) == 1 else 's'}")
        for s in range(self.n):
            mark = ">" if s == self.current_player() else " "
            k = len(self.hands[s])
            shown = (' '.join(format_tile(t) for t in self.hands[s]) or '-') if player in (None, s) else "(hidden)"
            you = " (you)" if s == player else ""
            lines.append(f"{mark} player {s}{you}: {shown}  ({k} tile{'' if k == 1 else 's'}, drew {self.drawn[s]})")
        if self.phase == RESPOND_PHASE:
            mover, announced, true, _ = self.review
            # a seat's table never tells the true score before the responders have decided
            lines.append(f"under review: player {mover} announced {announced}"
                         + (f" (true score {true})" if player is None else ""))
        if self.knock is not None:
            knocker, skipped, forced = self.knock
            lines.append(f"knock: player {knocker} knocked, player {skipped} is skipped, "
                         f"player {forced} must make a scoring play")
        if self.extra == EXTRA_OFFERED:
            lines.append(f"extra play: player {self.player} may play one more tile or stop")
        if self.phase == OVER:
            if self.truncated:
                lines.append("result: draw (hand limit)")
            elif self.winner_side < 0:
                lines.append("result: draw")
            else:
                won = self.winners()
                lines.append(f"result: player {won[0]} wins" if len(won) == 1 else
                             f"result: players {', '.join(map(str, won))} win")
        return "\n".join(lines)

    def full_state(self) -> dict:
        lay = self.layout
        return {
            "hand_number": self.hand_no, "phase": PHASE_NAMES[self.phase], "player": self.player,
            "to_act": self.current_player(), "hands": [list(h) for h in self.hands],
            "boneyard": self.boneyard[::-1],  # top first
            "drawn": list(self.drawn), "lead": lay.lead, "plays": [list(p) for p in self.plays],
            "arms": {k: [lay.pip[k], lay.length[k]] for k in sorted(lay.open_arms)},
            "count": lay.count, "true_score": self.true_score, "scores": list(self.scores),
            "review": list(self.review) if self.review else None,
            "last_review": dict(self.last_review) if self.last_review else None,
            "last_hand": self.last_hand, "winner_side": self.winner_side, "truncated": self.truncated,
            "knock": list(self.knock) if self.knock else None, "last_knock": self.last_knock,
            "extra": EXTRA_NAMES[self.extra], "redeals": self.redeals,
        }

    def hidden_pieces(self) -> dict[str, np.ndarray]:
        return {"boneyard": pile_order(self.game.num_tiles, self.boneyard[::-1])}

    def clone(self) -> DominoesState:
        c = object.__new__(DominoesState)
        c.__dict__.update(self.__dict__)
        # the clone's generator is built from a snapshot of this one's state on first use
        # (building a numpy Generator costs more than the rest of the clone)
        c._rng = None
        c._rng_state = self._rng.bit_generator.state if self._rng is not None else self._rng_state
        c.hands = [h[:] for h in self.hands]
        c.boneyard = self.boneyard[:]
        c.drawn = self.drawn[:]
        c.scores = self.scores[:]
        c.layout = self.layout.copy()
        c.seen = self.seen.clone_for(c) if self.seen is not None else None
        c.plays = self.plays[:]
        c.review = self.review[:] if self.review else None
        c.knock = self.knock[:] if self.knock else None
        c.record = dict(self.record)
        c._legal = self._legal[:]
        c._returns = self._returns.copy()
        return c

    def resample_hidden(self, player: int, rng: np.random.Generator) -> DominoesState:
        """Re-deal the other players' tiles and the boneyard among themselves, keeping every
        hand's size and the boneyard's size (the layout, own tiles and all counts stay).

        Before the lead, the tile to lead stays with its holder (the turn order shows who
        holds it). When the player to move is someone else, their decision is recomputed
        from their new hand: their plays, or a pass when no tile fits (nothing is drawn, as
        the draw counts are public)."""
        c = self.clone()
        others = [s for s in range(self.n) if s != player]
        keep = c._legal[0] // self.game.num_slots if c.phase == PLAY_PHASE and c.layout.lead < 0 else -1
        pool = [t for s in others for t in c.hands[s] if t != keep] + c.boneyard
        pool = rng.permutation(pool).tolist()
        i = 0
        for s in others:
            k = len(c.hands[s])
            if keep in c.hands[s]:
                c.hands[s] = [keep] + pool[i:i + k - 1]
                i += k - 1
            else:
                c.hands[s] = pool[i:i + k]
                i += k
        c.boneyard = pool[i:]
        if c.phase == PLAY_PHASE and c.player != player and keep < 0:
            c._legal = c._redecide()
        return c

    def resample_inferred(self, player: int, rng: np.random.Generator) -> DominoesState:
        """``resample_hidden``'s re-deal, keeping also what each seat's turns without a play
        showed: a seat that could not play held no tile matching an open end, nor did the tiles
        it drew and kept; so a tile it still holds from before avoids every end it has been void
        in since (``cannot_play_constraints``). Seats are dealt such tiles first (the most
        constrained first), then the rest at random; the boneyard is what is left, shuffled."""
        events = self.record["cannot_play"]
        if not any(e[0] != player for e in events):  # nobody else has failed to play: nothing to keep
            return self.resample_hidden(player, rng)
        c = self.clone()
        others = [s for s in range(self.n) if s != player]
        constraints = {s: self.cannot_play_constraints(s) for s in others}
        tiles = [t for s in others for t in c.hands[s]] + c.boneyard
        for _ in range(8):  # a greedy deal can strand a seat's voids; deal again (rarely needed)
            pool = rng.permutation(tiles).tolist()
            met = self._deal_inferred(c, pool, others, constraints)
            if met:
                break
        if c.phase == PLAY_PHASE and c.player != player:
            c._legal = c._redecide()
        return c

    @staticmethod
    def _deal_inferred(c: DominoesState, pool: list[int], others: list[int],
                       constraints: dict[int, list[tuple[int, int]]]) -> bool:
        """Deal ``pool`` (in its order) to ``others``' hands in ``c``, each seat's constrained
        tiles first, the rest to the boneyard; False when some void could not be met."""
        taken = set()
        met = True
        # the most constrained seat first: the fewest tiles free of its latest void
        order = sorted(others, key=lambda s: (sum(1 for t in pool if not TILE_BITS[t] & constraints[s][-1][0])
                                              if constraints[s] else len(pool)))
        for s in order:
            h = len(c.hands[s])
            hand: list[int] = []
            for void, exceptions in constraints[s]:  # oldest (widest void) first
                need = h - exceptions
                for t in pool:
                    if len(hand) >= need:
                        break
                    if t not in taken and not TILE_BITS[t] & void:
                        hand.append(t)
                        taken.add(t)
                met = met and len(hand) >= min(need, h)
            for t in pool:  # the rest: free (or, where a void could not be met, relaxed)
                if len(hand) >= h:
                    break
                if t not in taken:
                    hand.append(t)
                    taken.add(t)
            c.hands[s] = hand
        c.boneyard = [t for t in pool if t not in taken]
        return met

    def cannot_play_constraints(self, seat: int) -> list[tuple[int, int]]:
        """What this hand's public moves say of ``seat``'s tiles: ``[(void, exceptions), ...]``
        oldest first, each meaning "all but at most ``exceptions`` of the tiles the seat holds
        have no pip in the bit set ``void``". Each time the seat could not play (a draw, a pass,
        a knock) every tile it held matched no open end ``E``, and the tiles it then drew did
        not either, except the playable last one; a tile held then and still held has missed
        every later ``E`` too, so older entries widen (``void |= E``) and count the tiles
        drawn since as exceptions; a later play of a tile with a pip in ``void`` must have
        been one of those exceptions."""
        events = [e for e in self.record["cannot_play"] if e[0] == seat]
        if not events:
            return []
        entries: list[list[int]] = []
        ei = 0
        for i, (s, tile, _slot) in enumerate(self.plays):
            while ei < len(events) and events[ei][4] <= i:
                _, bits, drawn, playable, _ = events[ei]
                for e in entries:
                    e[0] |= bits
                    e[1] += drawn
                entries.append([bits, 1 if playable else 0])
                ei += 1
            if s == seat:
                for e in entries:
                    if TILE_BITS[tile] & e[0] and e[1] > 0:
                        e[1] -= 1
        for _, bits, drawn, playable, _ in events[ei:]:
            for e in entries:
                e[0] |= bits
                e[1] += drawn
            entries.append([bits, 1 if playable else 0])
        return [(v, k) for v, k in entries]

    def _redecide(self) -> list[int]:
        """The mover's decision in a re-dealt world (``resample_hidden``), from their new hand:
        the same kind of decision (knock or draw, the extra play or stop, the forced scoring
        play) where the new hand allows it, else its plays, else a pass (which, for a player
        a knock forces, reverts the knock)."""
        g, seat = self.game, self.player
        if self.extra == EXTRA_OFFERED:
            return self._extra_choices(seat)
        if self.knock is not None:
            return self._scoring_plays(seat) or [g.PASS]
        return self._turn_choices(seat, may_knock=self._legal[0] == g.KNOCK) or [g.PASS]


__all__ = ["FACTS", "LEAD_SLOT", "PHASE_NAMES", "PLAY", "DominoesGame", "DominoesState"]
