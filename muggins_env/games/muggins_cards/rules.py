"""Muggins, the Victorian card game of neighbouring ranks (docs/rules/muggins_cards.md §1): the rules.

Facts: 3-7 players; 52 cards all dealt into face-down personal stocks plus 1-4 face-up
common piles; a card *fits* a pile whose top rank differs by exactly 1 (no wrap).
Zero-sum: winner +1, the others -1/(n-1); a hand truncated at ``max_turns`` pays 0.
Chance: only the shuffle and the first dealer, both from ``state.rng`` at the start.
Longest episode: ``max_turns`` turns of at most 1 + (n-1) + 1 decisions each.

Action indices (``Discrete(13)``, a contract):
  0-3   place the exposed card on common pile i (in the order of the deal's ``commons``)
  4-9   place it on the discard of the opponent at relative seat 1-6 (4 = left neighbour)
  10    place it on one's own discard
  11    pass (an observer lets the placement stand)      -- ``mistakes=True`` only
  12    call "Muggins!" on the placement under review     -- ``mistakes=True`` only
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from ...kernel.cards import NUM_CARDS, RANK_LIST, check_all_once, format_card, parse_card
from ...kernel.game import TERMINAL, Game, GameFacts, State, legal_mask, piece_offsets, pile_order
from ...kernel.options import Option, int_range
from ...kernel.rewards import quiet_rewards, win_loss_rewards
from ...kernel.seats import clockwise_from_left

FACTS = GameFacts(name="muggins_cards_v0", long_name="Muggins (card game)", min_players=3,
                  max_players=7, zero_sum=True, min_utility=-1.0, max_utility=1.0)

# -- action indices ---------------------------------------------------------------------------
MAX_COMMONS = 4
COMMON_PILE = 0  # + pile index 0..3
OPPONENT_DISCARD = 4  # + relative seat - 1 (relative seats 1..6)
OWN_DISCARD = 10
PASS = 11
CALL = 12
NUM_ACTIONS = 13
RANK0 = [r - 1 for r in RANK_LIST]  # rank - 1 of each card id

#: cards each and number of common piles, per player count (docs/rules/muggins_cards.md §1.1)
TABLE = {3: (17, 1), 4: (12, 4), 5: (10, 2), 6: (8, 4), 7: (7, 3)}

# -- phases -------------------------------------------------------------------------------------
PLACE, REVIEW, RECHOOSE, OVER = 0, 1, 2, 3
PHASE_NAMES = ("place", "call", "rechoose", "over")


def fits(card_a: int, card_b: int) -> bool:
    """Neighbouring ranks: A fits 2, K fits Q; equal ranks and K-A never fit."""
    return abs(RANK_LIST[card_a] - RANK_LIST[card_b]) == 1


class MugginsCardsGame(Game):
    FACTS = FACTS
    # observer_cls (the observation, ``observation.CardsObserver``) is set by the package's __init__:
    # the observation module reads these rules, so the rules do not import it
    OPTIONS: ClassVar[dict[str, Option]] = {
        "num_players": Option(4, allowed=(3, 4, 5, 6, 7), doc="players, 3-7"),
        "mistakes": Option(False, allowed=(False, True),
                           doc="offer every physical placement and a call phase after each"),
        "max_turns": Option(1000, check=int_range(1), doc="turns before the hand is a draw"),
    }
    scoreboard_higher_wins = False  # the scoreboard counts the cards a player still holds

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.num_players = n = self.options["num_players"]
        self.mistakes = self.options["mistakes"]
        self.max_turns = self.options["max_turns"]
        self.num_actions = NUM_ACTIONS
        self.max_game_length = self.max_turns * (n + 1)
        o = {}
        o["exposed"] = 13  # rank of the card in play (turned up, or under review)
        o["commons"] = MAX_COMMONS * 14  # per pile: present flag + top rank
        o["seats"] = n * 15  # per relative seat: discard top rank, stock size, discard size
        o["to_act"] = n  # relative seat of the player to decide
        o["phase"] = 3
        o["placer"] = n  # relative seat of the player whose card is in play
        o["review"] = OWN_DISCARD + 1  # destination of the placement under review (relative)
        o["seen"] = 13  # count of each rank lying face up on any pile
        o["clock"] = 1  # turns played / max_turns
        o["next"] = n * 13  # per relative seat: rank of its next card when everyone knows it
        self.observation_layout = o
        self.observation_size = sum(o.values())
        _, self.obs_at = piece_offsets(o)
        #: the state array's pieces beyond every seat's observation (``State.state_array``):
        #: per absolute seat, its face-down stock in order (``kernel.pile_order``: the top 1)
        self.hidden_layout = {f"stock_{s}": NUM_CARDS for s in range(n)}

    def new_initial_state(self, seed: int | None = None, deal: Mapping | None = None) -> MugginsCardsState:
        return MugginsCardsState(self, seed, deal)

    def action_name(self, action: int) -> str:
        if COMMON_PILE <= action < COMMON_PILE + MAX_COMMONS:
            return f"common pile {action - COMMON_PILE}"
        if OPPONENT_DISCARD <= action < OWN_DISCARD:
            return f"discard of the opponent at relative seat {action - OPPONENT_DISCARD + 1}"
        return {OWN_DISCARD: "own discard", PASS: "pass", CALL: "Muggins!"}.get(action, f"action {action}")


class MugginsCardsState(State):
    def __init__(self, game: MugginsCardsGame, seed: int | None, deal: Mapping | None) -> None:
        self.game = game
        self.n = n = game.num_players
        self.rng = np.random.default_rng(seed)
        self.turns = 0
        self.winner = -1
        self.truncated = False
        self._zero = quiet_rewards(n)
        self._rewards = self._zero
        self._returns = np.zeros(n)
        self.face_up = [False] * NUM_CARDS  # cards that have been face up (known to all)
        if deal is None:
            self._deal_random()
        else:
            self._deal_rigged(deal)
        # the deal as dealt, for deal(): stocks top first, discards and common piles bottom first
        self._dealt = (self.dealer, [s[::-1] for s in self.stocks], [list(d) for d in self.discards],
                       [list(p) for p in self.commons])
        # cards face up on the table by rank, kept up to date move by move
        self.table_ranks = table_ranks = [0] * 13
        for pile in self.commons + self.discards:
            for c in pile:
                self.face_up[c] = True
                table_ranks[RANK0[c]] += 1
        self.player = (self.dealer + 1) % n
        self.phase = PLACE
        self.exposed = -1
        self.review: tuple[int, int, bool, list[int]] | None = None  # placer, action, correct, correct set
        self.callers: list[int] = []
        self._begin_turn(self.player)
        self._legal = self._legal_actions()  # legal_actions() of this position, found once

    # -- the deal ----------------------------------------------------------------------------------
    def _deal_random(self) -> None:
        n = self.n
        each = TABLE[n][0]
        self.dealer = int(self.rng.integers(n))
        pack = self.rng.permutation(NUM_CARDS).tolist()
        self.stocks = [pack[i * each:(i + 1) * each] for i in range(n)]  # top = last element
        self.commons = [[c] for c in pack[n * each:]]
        self.discards = [[] for _ in range(n)]

    def _deal_rigged(self, deal: Mapping) -> None:
        n = self.n
        if not isinstance(deal, Mapping):
            raise ValueError(f"deal must be a dict with keys dealer, stocks, commons (discards optional), got {deal!r}")
        unknown = set(deal) - {"dealer", "stocks", "discards", "commons"}
        if unknown:
            raise ValueError(f"unknown deal key(s) {sorted(unknown)}; allowed: dealer, stocks, discards, commons")
        for key in ("dealer", "stocks", "commons"):
            if key not in deal:
                raise ValueError(f"deal is missing {key!r} (format: dealer, stocks, discards (optional), commons)")
        dealer = deal["dealer"]
        if isinstance(dealer, bool) or not isinstance(dealer, (int, np.integer)) or not 0 <= dealer < n:
            raise ValueError(f"deal dealer={dealer!r} must be a seat 0..{n - 1}")
        self.dealer = int(dealer)

        def seat_lists(key: str, value: Any) -> list[list[int]]:
            if not isinstance(value, (list, tuple)) or len(value) != n:
                raise ValueError(f"deal {key} must be a list of {n} lists (one per seat), got {value!r}")
            out = []
            for pile in value:
                if not isinstance(pile, (list, tuple)):
                    raise ValueError(f"deal {key}: each seat's pile must be a list of cards, got {pile!r}")
                out.append([parse_card(c) for c in pile])
            return out

        stocks = seat_lists("stocks", deal["stocks"])  # top card first
        discards = seat_lists("discards", deal.get("discards", [[] for _ in range(n)]))  # bottom first
        commons_in = deal["commons"]
        if not isinstance(commons_in, (list, tuple)) or not 1 <= len(commons_in) <= MAX_COMMONS:
            raise ValueError(f"deal commons must be a list of 1..{MAX_COMMONS} piles, got {commons_in!r}")
        commons = []
        for pile in commons_in:
            cards = [parse_card(c) for c in pile] if isinstance(pile, (list, tuple)) else [parse_card(pile)]
            if not cards:
                raise ValueError("deal commons: a common pile cannot be empty")
            commons.append(cards)
        check_all_once([c for p in stocks + discards + commons for c in p], "deal")
        for seat in range(n):
            if not stocks[seat] and not discards[seat]:
                raise ValueError(f"deal: seat {seat} holds no cards (every player needs a stock or a discard)")
        self.stocks = [list(reversed(s)) for s in stocks]
        self.discards = discards
        self.commons = commons

    # -- turn mechanics ------------------------------------------------------------------------------
    def _recycle(self, seat: int) -> None:
        """Turn the discard over as a whole, unshuffled: its oldest card comes out first."""
        table_ranks = self.table_ranks
        for c in self.discards[seat]:
            table_ranks[RANK0[c]] -= 1
        self.stocks[seat] = self.discards[seat][::-1]
        self.discards[seat] = []
        seen = self.seen
        if seen is not None:
            seen.recycled(seat)

    def _begin_turn(self, seat: int) -> None:
        if not self.stocks[seat]:
            self._recycle(seat)
        self.player = seat
        self.exposed = self.stocks[seat].pop()
        self.face_up[self.exposed] = True
        self.phase = PLACE
        seen = self.seen
        if seen is not None:
            seen.turned_up(seat)

    def correct_actions(self, seat: int, card: int) -> list[int]:
        """The destinations docs/rules/muggins_cards.md §1.2 allows, in strict priority."""
        rank = RANK_LIST[card]  # fits(card, top), inlined: this runs at every placement
        piles = [COMMON_PILE + i for i, pile in enumerate(self.commons) if abs(RANK_LIST[pile[-1]] - rank) == 1]
        if piles:
            return piles
        n, discards = self.n, self.discards
        for k in range(1, n):
            d = discards[(seat + k) % n]
            if d and abs(RANK_LIST[d[-1]] - rank) == 1:
                return [OPPONENT_DISCARD + k - 1]
        return [OWN_DISCARD]

    def _owner(self, seat: int, action: int) -> int:
        """Whose discard a placement by ``seat`` goes on (-1 for a common pile)."""
        if action < OPPONENT_DISCARD:
            return -1
        return seat if action == OWN_DISCARD else (seat + action - OPPONENT_DISCARD + 1) % self.n

    def _settle(self, seat: int, action: int) -> None:
        """The placement stands: check the win, then pass the turn (or truncate)."""
        if action != OWN_DISCARD and not self.stocks[seat] and not self.discards[seat]:
            self._finish(seat)
            return
        self._next_turn()

    def _next_turn(self) -> None:
        self.turns += 1
        self.exposed = -1
        self.review = None
        if self.turns >= self.game.max_turns:
            self.truncated = True
            self.phase = OVER
            return
        self._begin_turn((self.player + 1) % self.n)

    def _finish(self, winner: int) -> None:
        self.winner = winner
        self.phase = OVER
        self.exposed = -1
        self.review = None
        self._rewards = win_loss_rewards(self.n, [winner])
        self._returns = self._returns + self._rewards

    def _penalise(self, offender: int) -> None:
        """Each other player, clockwise from the offender's left, gives the top of their stock
        to the bottom of the offender's stock; giving one's last card wins (docs/rules/muggins_cards.md §1.4)."""
        emptied = -1
        seen = self.seen
        if seen is not None:
            seen.penalised()
        for seat in clockwise_from_left(offender, self.n):
            if not self.stocks[seat] and self.discards[seat]:
                self._recycle(seat)
            if self.stocks[seat]:
                self.stocks[offender].insert(0, self.stocks[seat].pop())
                if emptied < 0 and not self.stocks[seat] and not self.discards[seat]:
                    emptied = seat
        if emptied >= 0:
            self._finish(emptied)
        else:
            self._next_turn()

    def _lay(self, seat: int, action: int, card: int) -> None:
        """``card`` face up on the pile ``action`` of ``seat`` names (and in the table count)."""
        owner = self._owner(seat, action)
        (self.commons[action - COMMON_PILE] if owner < 0 else self.discards[owner]).append(card)
        self.table_ranks[RANK0[card]] += 1
        seen = self.seen
        if seen is not None:
            seen.laid(owner, action - COMMON_PILE, card)

    def _stands(self, placer: int, placed: int) -> None:
        """The review is over and the placement stands: the card lands where it was put."""
        self.phase = PLACE
        self._lay(placer, placed, self.exposed)
        self._settle(placer, placed)

    def _correct(self, placer: int, action: int) -> None:
        self._lay(placer, action, self.exposed)
        self._penalise(placer)

    # -- protocol -----------------------------------------------------------------------------------
    def current_player(self) -> int:
        if self.phase == OVER:
            return TERMINAL
        if self.phase == REVIEW:
            return self.callers[0]
        return self.player

    def legal_actions(self) -> list[int]:
        return list(self._legal)  # a copy: the caller may change it

    def legal_actions_mask(self) -> np.ndarray:
        return legal_mask(NUM_ACTIONS, self._legal)

    def _legal_actions(self) -> list[int]:
        """The legal actions, by phase: any placement (with mistakes) or the correct ones; pass
        or call in a review; the fitting common piles when the offender chooses again. Found
        once per position, as the position is reached (``_legal``: the list, the mask, apply)."""
        phase = self.phase
        if phase == PLACE:
            if self.game.mistakes:
                return (list(range(COMMON_PILE, COMMON_PILE + len(self.commons)))
                        + list(range(OPPONENT_DISCARD, OPPONENT_DISCARD + self.n - 1)) + [OWN_DISCARD])
            return self.correct_actions(self.player, self.exposed)
        if phase == REVIEW:
            return [PASS, CALL]
        if phase == RECHOOSE:
            return list(self.review[3])
        return []

    def apply(self, action: int) -> None:
        # the shared guard (State.check_legal) for anything but a legal int
        a = action if type(action) is int and action in self._legal else self.check_legal(action)
        self._rewards = self._zero  # read-only, shared: most steps pay nothing
        self._move(a)
        self._legal = self._legal_actions()

    def _move(self, a: int) -> None:
        """The legal action ``a`` of the player to act, and what follows it."""
        if self.phase == PLACE:
            seat, card = self.player, self.exposed
            if not self.game.mistakes:  # every legal placement is correct
                self._lay(seat, a, card)
                self._settle(seat, a)
                return
            # The card is put down but lands only when the review settles: until then every
            # piece of the table (tops, sizes, counts, next cards) is as before the placement,
            # and the card is shown apart, as the card under review (issue 16).
            correct = self.correct_actions(seat, card)
            self.review = (seat, a, a in correct, correct)
            self.callers = clockwise_from_left(seat, self.n)
            self.phase = REVIEW
        elif self.phase == REVIEW:
            placer, placed, correct, correct_set = self.review
            if a == PASS:
                self.callers.pop(0)
                if not self.callers:
                    self._stands(placer, placed)
                return
            self.callers = []
            if correct:  # an unfounded call: no effect
                self._stands(placer, placed)
                return
            if len(correct_set) == 1:
                self.phase = PLACE
                self._correct(placer, correct_set[0])
            else:
                self.phase = RECHOOSE  # the offender chooses among the fitting common piles again
        elif self.phase == RECHOOSE:
            self.phase = PLACE
            self._correct(self.player, a)

    def is_terminal(self) -> bool:
        return self.phase == OVER

    # -- views ----------------------------------------------------------------------------------------
    def _tops_for_view(self) -> tuple[list[int], list[int]]:
        """Pile tops (-1: an empty discard); during a review the card in play is not on them."""
        return [p[-1] for p in self.commons], [d[-1] if d else -1 for d in self.discards]

    def _relative_destination(self, observer: int, placer: int, action: int) -> int:
        """The destination as an action index seen from ``observer``'s seat."""
        seat = self._owner(placer, action)
        if seat < 0:
            return action
        rel = (seat - observer) % self.n
        return OWN_DISCARD if rel == 0 else OPPONENT_DISCARD + rel - 1

    def phase_name(self) -> str:
        return PHASE_NAMES[self.phase]

    def _destination_text(self, seat: int, action: int) -> str:
        if action < OPPONENT_DISCARD:
            i = action - COMMON_PILE
            return f"common pile {i}" + (f" ({format_card(self.commons[i][-1])})" if i < len(self.commons) else "")
        if action < OWN_DISCARD:
            target = self._owner(seat, action)
            d = self.discards[target]
            return f"discard of player {target}" + (f" ({format_card(d[-1])})" if d else " (empty)")
        return "own discard"

    def action_to_string(self, action: int) -> str:
        if action == PASS:
            return "pass"
        if action == CALL:
            return "Muggins!"
        if self.phase in (PLACE, RECHOOSE) and self.exposed >= 0:
            return f"{format_card(self.exposed)} → {self._destination_text(self.player, action)}"
        return self.game.action_name(action)

    def known_next(self, seat: int) -> int:
        """The card ``seat`` will expose next if everyone can know it, else -1. A recycled
        discard keeps its order and every card in it was placed face up, so a player who
        watched the table knows a recycled stock from the top until its first unseen card."""
        stock = self.stocks[seat]
        if stock:
            card = stock[-1]
            return card if self.face_up[card] else -1
        discard = self.discards[seat]
        return discard[0] if discard else -1

    def public_view(self, player: int) -> dict:
        commons, discards = self._tops_for_view()
        view = {
            "seat": player,
            "phase": PHASE_NAMES[self.phase],
            "to_act": self.current_player(),
            "turn_player": self.player,
            "dealer": self.dealer,
            "card_in_play": self.exposed,
            "commons": commons,
            "discard_tops": discards,
            "stock_sizes": [len(s) for s in self.stocks],
            "discard_sizes": [len(d) for d in self.discards],
            "turns": self.turns,
            "next_cards": [self.known_next(s) for s in range(self.n)],
        }
        if self.phase == REVIEW:
            placer, placed, _, _ = self.review
            owner = self._owner(placer, placed)
            view["review"] = {"placer": placer, "action": placed, "card": self.exposed,
                              "common_pile": placed if owner < 0 else -1, "discard_of": owner}
        return view

    def scoreboard(self) -> tuple[str, list[float]]:
        held = [float(len(s) + len(d)) for s, d in zip(self.stocks, self.discards)]
        if self.exposed >= 0 and self.phase in (PLACE, RECHOOSE):  # the card in play, not laid yet
            held[self.player] += 1
        return "cards left", held

    def deal(self) -> dict:
        dealer, stocks, discards, commons = self._dealt
        return {"dealer": dealer, "stocks": [list(x) for x in stocks], "discards": [list(x) for x in discards],
                "commons": [list(x) for x in commons]}

    def render(self, player: int | None = None) -> str:
        # every card shown here is face up on the table: a player's table is the full one
        def top(pile: list[int]) -> str:
            return format_card(pile[-1]) if pile else "--"

        def cards(k: int) -> str:
            return f"{k} card" + ("" if k == 1 else "s")

        lines = [(f"Muggins (cards), {self.n} players, dealer {self.dealer}, turn {self.turns}, "
                  f"phase {PHASE_NAMES[self.phase]}")]
        lines.append("common piles: " + "  ".join(f"[{i}] {top(p)}" for i, p in enumerate(self.commons)))
        for s in range(self.n):
            mark = ">" if s == self.current_player() else " "
            you = " (you)" if s == player else ""
            lines.append(f"{mark} player {s}{you}: stock {cards(len(self.stocks[s]))}, "
                         f"discard {top(self.discards[s])} ({cards(len(self.discards[s]))})")
        if self.exposed >= 0:
            lines.append(f"card in play: {format_card(self.exposed)} (player {self.player})")
        if self.review is not None:
            placer, placed, _, _ = self.review
            lines.append(f"under review: player {placer} put it on {self._destination_text(placer, placed)}")
        if self.phase == OVER:
            lines.append("result: " + (f"player {self.winner} wins" if self.winner >= 0 else "draw (move limit)"))
        return "\n".join(lines)

    def full_state(self) -> dict:
        return {
            "dealer": self.dealer, "phase": PHASE_NAMES[self.phase], "player": self.player,
            "to_act": self.current_player(), "card_in_play": self.exposed, "turns": self.turns,
            "stocks": [s[::-1] for s in self.stocks],  # top first
            "discards": [list(d) for d in self.discards],
            "commons": [list(p) for p in self.commons],
            "review": list(self.review[:3]) if self.review else None,
            "callers": list(self.callers), "winner": self.winner, "truncated": self.truncated,
        }

    def hidden_pieces(self) -> dict[str, np.ndarray]:
        return {f"stock_{s}": pile_order(NUM_CARDS, stock[::-1]) for s, stock in enumerate(self.stocks)}

    def clone(self) -> MugginsCardsState:
        c = object.__new__(MugginsCardsState)
        c.__dict__.update(self.__dict__)
        c._rng = None  # the generator is rebuilt from its state only if the clone draws
        c._rng_state = self._rng.bit_generator.state if self._rng is not None else self._rng_state
        c.stocks = [list(s) for s in self.stocks]
        c.discards = [list(d) for d in self.discards]
        c.commons = [list(p) for p in self.commons]
        c.face_up = list(self.face_up)
        c.table_ranks = list(self.table_ranks)
        c.callers = list(self.callers)
        c.seen = None  # the clone's first observation builds its own observer
        c._rewards = self._rewards.copy()
        c._returns = self._returns.copy()
        return c

    def resample_hidden(self, player: int, rng: np.random.Generator) -> MugginsCardsState:
        """Only face-down stock cards never seen are unknown (to everyone, the owner too):
        shuffle them among their places; seen cards and every count stay."""
        c = self.clone()
        places = [(s, i) for s in range(self.n) for i, card in enumerate(c.stocks[s]) if not c.face_up[card]]
        cards = [c.stocks[s][i] for s, i in places]
        for (s, i), card in zip(places, rng.permutation(cards).tolist()):
            c.stocks[s][i] = card
        return c

