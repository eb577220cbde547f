"""Michigan, the household stops game with a payment layout (docs/rules/michigan.md §3): the rules.

Facts: 3-8 players; all 52 cards dealt one at a time clockwise from the dealer's left to
each player and to a hidden extra hand, the *widow*, which takes the last card of each
round. Ranks rise 2..10 J Q K A (ace high). A lead is the leader's lowest card of a suit;
then whoever holds the next higher card of that suit must play it, regardless of seating,
until an ace or a card nobody holds (widow or already played) stops the sequence, and the
stopper leads again (a different suit if they can). Playing A♥ K♣ Q♦ J♠ from a hand
collects that boodle card's chips; the first player out takes the Kitty and 1 chip per
card left in each opponent's hand. A session is ``num_hands`` hands, the deal passing left;
what is left on the layout at the end is split equally (fractional chips).
Zero-sum: chips only move between balances and the layout, and the layout is emptied at the
end. Chance: each hand's shuffle (and the first dealer), from ``state.rng``.
Longest episode: ``num_hands`` hands of at most 52 - (widow size) decisions each.

Action indices (``Discrete(52)``, a contract): the card id of the card to play
(``suit*13 + rank-1``, the suite's scheme, A=1 even though Michigan ranks aces high).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from ...kernel.cards import (
    NUM_CARDS,
    SUIT_SYMBOLS,
    card_id,
    check_all_once,
    format_card,
    format_cards,
    parse_card,
)
from ...kernel.game import TERMINAL, Game, GameFacts, State, legal_mask, one_hot, piece_offsets
from ...kernel.options import Option, int_range
from ...kernel.rewards import quiet_rewards, win_loss_rewards

FACTS = GameFacts(name="michigan_v0", long_name="Michigan (stops game)", min_players=3, max_players=8,
                  zero_sum=True, min_utility=-float("inf"), max_utility=float("inf"))

# -- action indices ------------------------------------------------------------------------------
PLAY_CARD = 0  # + card id 0..51
NUM_ACTIONS = NUM_CARDS

# -- Michigan ranks (ace high) and the per-suit bit layout of a hand -----------------------------
#: Michigan rank 2..14 of every card id (A = 14)
MRANK = [14 if c % 13 == 0 else c % 13 + 1 for c in range(NUM_CARDS)]
SUIT = [c // 13 for c in range(NUM_CARDS)]
#: a hand is an int bitmask with bit ``suit*13 + (Michigan rank - 2)``: the lowest set bit of a
#: suit's 13-bit field is the lowest card of that suit, ace last
BIT_OF_CARD = [SUIT[c] * 13 + MRANK[c] - 2 for c in range(NUM_CARDS)]
CARD_OF_BIT = [0] * NUM_CARDS
for _c, _b in enumerate(BIT_OF_CARD):
    CARD_OF_BIT[_b] = _c
#: the next higher card of the same suit (-1 after an ace)
NEXT_CARD = [-1 if MRANK[c] == 14 else CARD_OF_BIT[BIT_OF_CARD[c] + 1] for c in range(NUM_CARDS)]
SUIT_FIELD = 0x1FFF
#: by card id: the card ids of the same suit ranked below it, and of the other three suits
_LOWER_IDS = [sum(1 << x for x in range(NUM_CARDS) if SUIT[x] == SUIT[c] and MRANK[x] < MRANK[c])
              for c in range(NUM_CARDS)]
_OTHER_SUITS_IDS = [sum(1 << x for x in range(NUM_CARDS) if SUIT[x] != s) for s in range(4)]

# -- the layout -----------------------------------------------------------------------------------
BOODLE_CARDS = (card_id(1, 2), card_id(13, 0), card_id(12, 1), card_id(11, 3))  # A♥ K♣ Q♦ J♠
BOODLE_NAMES = tuple(format_card(c) for c in BOODLE_CARDS)
#: boodle index of every card id (-1 for the cards that collect nothing)
BOODLE_OF_CARD = [BOODLE_CARDS.index(c) if c in BOODLE_CARDS else -1 for c in range(NUM_CARDS)]
BOODLE_STAKE = 1  # each player, on each boodle card, before each hand
KITTY_STAKE = 2  # each player, on the Kitty, before each hand
STAKE = BOODLE_STAKE * len(BOODLE_CARDS) + KITTY_STAKE

# -- where a card is -------------------------------------------------------------------------------
WIDOW = -1
PLAYED = -2

# -- phases ---------------------------------------------------------------------------------------
LEAD, FOLLOW, OVER = 0, 1, 2
HALTED = 3  # a search rollout's copy after the hand it stops at (``MichiganState.halt_at_hand_end``)
PHASE_NAMES = ("lead", "follow", "over")
NO_SUIT = -1


def deal_sizes(n: int) -> list[int]:
    """Cards received by each of the n+1 recipients in deal order: the seats clockwise from
    the dealer's left (the dealer last), then the widow, which takes each round's last card."""
    each, extra = divmod(NUM_CARDS, n + 1)
    return [each + (1 if k < extra else 0) for k in range(n + 1)]


def _bits(mask: int) -> list[int]:
    """Indices of the set bits of ``mask``, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


class MichiganGame(Game):
    FACTS = FACTS
    # observer_cls (the observation, ``observation.MichiganObserver``) is set by the package's __init__:
    # the observation module reads these rules, so the rules do not import it
    OPTIONS: ClassVar[Mapping[str, Option]] = {
        "num_players": Option(4, allowed=(3, 4, 5, 6, 7, 8), doc="players, 3-8"),
        "num_hands": Option(lambda opts: opts["num_players"], check=int_range(1),
                            doc="hands in the session (default one rotation: num_players hands)"),
        "reward": Option("chips", allowed=("chips", "win"),
                         doc="chips: each step's chip change; win: +1 shared by the top balances, -1 shared by the rest"),
    }

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.num_players = n = self.options["num_players"]
        self.num_hands = self.options["num_hands"]
        self.chip_rewards = self.options["reward"] == "chips"
        self.num_actions = NUM_ACTIONS
        self.sizes = deal_sizes(n)
        self.max_game_length = self.num_hands * (NUM_CARDS - self.sizes[-1])
        o = {}
        o["hand"] = NUM_CARDS  # own cards, by card id
        o["played"] = NUM_CARDS * n  # per card id: relative seat that played it (this hand)
        o["known_widow"] = NUM_CARDS  # cards that a stop has shown to be in the widow
        o["sequence_suit"] = 4  # suit of the sequence being followed
        o["sequence_next"] = 13  # Michigan rank 2..A of the card needed next
        o["stopped_suit"] = 4  # the suit that just stopped (the leader must change suit if able)
        o["phase"] = 2  # lead, follow
        o["to_act"] = n  # relative seat of the player to act
        o["dealer"] = n  # relative seat of the dealer
        o["layout"] = len(BOODLE_CARDS) + 1  # A♥ K♣ Q♦ J♠ then the Kitty, x/(x+50)
        o["balances"] = n  # per relative seat, 0.5 + 0.5 x/(|x|+50)
        o["counts"] = n + 1  # cards held per relative seat, then the widow, /13
        o["hands_played"] = 1  # hands finished / num_hands
        self.observation_layout = o
        self.observation_size = sum(o.values())
        self.offsets = piece_offsets(o)[0]
        #: the state array's pieces beyond every seat's observation (``State.state_array``)
        self.hidden_layout = {"widow": NUM_CARDS}  # the widow's cards (the hands are in the observations)

    def new_initial_state(self, seed: int | None = None, deal: Mapping | None = None) -> MichiganState:
        return MichiganState(self, seed, deal)

    def action_name(self, action: int) -> str:
        if 0 <= action < NUM_ACTIONS:
            return f"play {format_card(action)}"
        return f"action {action}"


class MichiganState(State):
    #: Set on a throwaway copy by a search whose rollouts end with the current hand: the hand's
    #: last card pays as always (the Kitty, the cards left, the next hand's stakes) but the next
    #: hand is not shuffled and dealt (the most expensive step of such a rollout), and the copy
    #: is left ``HALTED``: its balances and ``hands_played`` read as after that card, nothing
    #: more may be played on it. Never set on a game's own state.
    halt_at_hand_end = False

    def __init__(self, game: MichiganGame, seed: int | None, deal: Mapping | None) -> None:
        self.game = game
        self.n = n = game.num_players
        self.rng = np.random.default_rng(seed)
        self.balances: list[float] = [0] * n
        self.boodle = [0] * len(BOODLE_CARDS)
        self.kitty = 0
        self.hands_played = 0
        self.winners: list[int] = []
        self._zeros = quiet_rewards(n)
        self._rewards = self._zeros
        self._returns = np.zeros(n)
        # The first hand's contributions are made here, before any step: they are paid out as
        # part of the first step's rewards so that the rewards sum to the final balance.
        self._pending: np.ndarray | None = None
        if deal is None:
            dealer = int(self.rng.integers(n))  # the high cut
            owner = self._shuffled_owner(dealer)
        else:
            dealer, owner = self._rigged_owner(deal)
        self._start_hand(dealer, owner)
        self._legal = self._compute_legal()
        if game.chip_rewards:
            self._pending = np.full(n, -float(STAKE))

    # -- dealing ------------------------------------------------------------------------------------
    def _recipients(self, dealer: int) -> list[int]:
        n = self.n
        return [(dealer + k) % n for k in range(1, n + 1)] + [WIDOW]

    def _shuffled_owner(self, dealer: int) -> list[int]:
        pack = self.rng.permutation(NUM_CARDS).tolist()
        recipients = self._recipients(dealer)
        k = len(recipients)
        owner = [0] * NUM_CARDS
        for i, c in enumerate(pack):
            owner[c] = recipients[i % k]
        return owner

    def _rigged_owner(self, deal: Mapping) -> tuple[int, list[int]]:
        n = self.n
        form = "format: {'dealer': seat, 'hands': [[card, ...] per seat], 'widow': [card, ...]}"
        if not isinstance(deal, Mapping):
            raise ValueError(f"deal must be a dict, got {deal!r}; {form}")
        unknown = sorted(set(deal) - {"dealer", "hands", "widow"})
        if unknown:
            raise ValueError(f"unknown deal key(s) {unknown}; allowed: dealer, hands, widow")
        for key in ("dealer", "hands", "widow"):
            if key not in deal:
                raise ValueError(f"deal is missing {key!r}; {form}")
        dealer = deal["dealer"]
        if isinstance(dealer, bool) or not isinstance(dealer, (int, np.integer)) or not 0 <= dealer < n:
            raise ValueError(f"deal dealer={dealer!r} must be a seat 0..{n - 1}")
        dealer = int(dealer)
        hands = deal["hands"]
        if not isinstance(hands, (list, tuple)) or len(hands) != n:
            raise ValueError(f"deal hands must be a list of {n} lists (one per seat), got {hands!r}")
        if not isinstance(deal["widow"], (list, tuple)):
            raise ValueError(f"deal widow must be a list of cards, got {deal['widow']!r}")
        piles = []
        for seat, h in enumerate(hands):
            if not isinstance(h, (list, tuple)):
                raise ValueError(f"deal hands[{seat}] must be a list of cards, got {h!r}")
            piles.append([parse_card(c) for c in h])
        widow = [parse_card(c) for c in deal["widow"]]
        check_all_once([c for p in piles + [widow] for c in p], "deal")
        sizes = self.game.sizes
        for k, who in enumerate(self._recipients(dealer)):
            got = len(widow) if who == WIDOW else len(piles[who])
            if got != sizes[k]:
                name = "the widow" if who == WIDOW else f"seat {who}"
                expect = ", ".join(f"seat {s}: {sz}" for s, sz in zip(self._recipients(dealer)[:-1], sizes))
                raise ValueError(
                    f"deal: {name} holds {got} cards but the deal gives it {sizes[k]} (dealer {dealer}, "
                    f"{n} players: {expect}, widow: {sizes[-1]}; one card at a time from the dealer's left, "
                    f"the widow last in each round)")
        owner = [WIDOW] * NUM_CARDS
        for seat, p in enumerate(piles):
            for c in p:
                owner[c] = seat
        return dealer, owner

    def _start_hand(self, dealer: int, owner: list[int]) -> None:
        """Contributions, then the hand laid out from ``owner``; the dealer's left leads."""
        n = self.n
        self.dealer = dealer
        self.owner = owner
        self._dealt = (dealer, tuple(owner))  # for deal(): owner by card id as dealt
        self._set_hands()
        counts = [0] * n
        for o in owner:
            if o >= 0:
                counts[o] += 1
        self.counts = counts
        self.widow_count = NUM_CARDS - sum(counts)
        self.played: list[tuple[int, int]] = []  # (card id, seat) in play order, this hand
        self.known_widow = 0  # bitmask of card ids shown to be in the widow by a stop
        self._contribute()
        self.phase = LEAD
        self.player = (dealer + 1) % n
        self.need = -1  # card to follow with (FOLLOW)
        self.stopped_suit = NO_SUIT

    def _contribute(self) -> None:
        """Every player's stakes for a hand: one chip on each boodle card, two on the Kitty."""
        n = self.n
        for s in range(n):
            self.balances[s] -= STAKE
        for b in range(len(self.boodle)):
            self.boodle[b] += BOODLE_STAKE * n
        self.kitty += KITTY_STAKE * n

    def _set_hands(self) -> None:
        """Each seat's hand from ``owner``, as two bitmasks: ``hands`` by Michigan bit (suit
        fields in rank order, for the lowest card of a suit) and ``hand_ids`` by card id."""
        hands = [0] * self.n
        ids = [0] * self.n
        for c, o in enumerate(self.owner):
            if o >= 0:
                hands[o] |= 1 << BIT_OF_CARD[c]
                ids[o] |= 1 << c
        self.hands = hands
        self.hand_ids = ids

    # -- rules ------------------------------------------------------------------------------------------
    def lowest_cards(self, seat: int) -> list[int]:
        """The lowest card of each suit ``seat`` holds (suit order ♣♦♥♠)."""
        h = self.hands[seat]
        out = []
        for s in range(4):
            m = (h >> (13 * s)) & SUIT_FIELD
            if m:
                out.append(CARD_OF_BIT[13 * s + (m & -m).bit_length() - 1])
        return out

    def _compute_legal(self) -> list[int]:
        """The legal cards: the card that follows (follow), the lowest of each suit held (lead),
        another suit than the one just stopped where the leader holds one. Found once per
        position, as the position is reached (``_legal``: the list, the mask and the guard)."""
        if self.phase == FOLLOW:
            return [self.need]
        if self.phase >= OVER:  # over, or a halted rollout copy
            return []
        leads = self.lowest_cards(self.player)
        if self.stopped_suit != NO_SUIT:
            other = [c for c in leads if SUIT[c] != self.stopped_suit]
            if other:  # a different suit if they hold one; else the stopped suit again (fallback)
                return other
        return leads

    def legal_actions(self) -> list[int]:
        return list(self._legal)

    def legal_actions_mask(self) -> np.ndarray:
        return legal_mask(NUM_ACTIONS, self._legal)

    def apply(self, action: int) -> None:
        a = self.check_legal(action)
        n = self.n
        p = self.player
        chips = self.game.chip_rewards
        delta = self._pending
        self._pending = None
        # play the card
        self.hands[p] &= ~(1 << BIT_OF_CARD[a])
        self.hand_ids[p] &= ~(1 << a)
        self.counts[p] -= 1
        self.owner[a] = PLAYED
        self.played.append((a, p))
        seen = self.seen
        if seen is not None:
            seen.played(p, a)
        self.stopped_suit = NO_SUIT
        b = BOODLE_OF_CARD[a]
        if b >= 0 and self.boodle[b]:  # played legally from a hand: collect the boodle card
            amount = self.boodle[b]
            self.boodle[b] = 0
            self.balances[p] += amount
            if seen is not None:
                seen.collected(p, b)
            if chips:
                if delta is None:
                    delta = np.zeros(n)
                delta[p] += amount
        if self.counts[p] == 0:
            delta = self._go_out(p, delta)
        else:
            nxt = NEXT_CARD[a]
            o = self.owner[nxt] if nxt >= 0 else PLAYED
            if o >= 0:  # its holder must play it, wherever they sit
                self.phase = FOLLOW
                self.player = o
                self.need = nxt
            else:  # an ace, or the next card is in the widow or already played: a stop
                if o == WIDOW:
                    self.known_widow |= 1 << nxt
                    if seen is not None:
                        seen.widow_shown(nxt)
                self.phase = LEAD
                self.need = -1
                self.stopped_suit = SUIT[a]
        self._legal = self._compute_legal()
        if chips:
            self._rewards = self._zeros if delta is None else delta
        elif self.phase == OVER:
            self._rewards = win_loss_rewards(n, self.winners)
        else:
            self._rewards = self._zeros
        if self._rewards is not self._zeros:
            self._returns += self._rewards

    def _go_out(self, p: int, delta: np.ndarray | None) -> np.ndarray | None:
        """``p`` played their last card: the Kitty and 1 chip per card left in each opponent's
        hand; then the next hand (new contributions) or the end of the session (the split).
        Returns this step's chip changes (``delta`` plus these) when rewards are chips."""
        n = self.n
        seen = self.seen
        if seen is not None:
            seen.hand_ended()
        if self.game.chip_rewards and delta is None:
            delta = np.zeros(n)
        gain = self.kitty
        self.kitty = 0
        for s in range(n):
            if s != p:
                self.balances[s] -= self.counts[s]
                gain += self.counts[s]
                if delta is not None:
                    delta[s] -= self.counts[s]
        self.balances[p] += gain
        if delta is not None:
            delta[p] += gain
        self.hands_played += 1
        if self.hands_played >= self.game.num_hands:
            share = (sum(self.boodle) + self.kitty) / n
            self.boodle = [0] * len(self.boodle)
            top = max(self.balances)  # whole chips: ties are exact before the equal split
            self.winners = [s for s in range(n) if self.balances[s] == top]
            self.balances = [x + share for x in self.balances]
            if delta is not None:
                delta += share
            self.phase = OVER
            self.player = TERMINAL
            self.need = -1
        elif self.halt_at_hand_end:  # a rollout's copy: the stakes, not the deal (see the class)
            self._contribute()
            if delta is not None:
                delta -= STAKE
            self.phase = HALTED
            self.player = TERMINAL
            self.need = -1
        else:
            dealer = (self.dealer + 1) % n
            self._start_hand(dealer, self._shuffled_owner(dealer))
            if delta is not None:
                delta -= STAKE
        return delta

    def check_legal(self, action: Any) -> int:
        """The kernel's shared guard, with a fast path for a legal int action."""
        if type(action) is int and action in self._legal:
            return action
        return super().check_legal(action)

    # -- protocol ----------------------------------------------------------------------------------------
    def current_player(self) -> int:
        return TERMINAL if self.phase == OVER else self.player

    def is_terminal(self) -> bool:
        return self.phase == OVER

    def layout(self) -> dict[str, float]:
        out = {name: amount for name, amount in zip(BOODLE_NAMES, self.boodle)}
        out["Kitty"] = self.kitty
        return out

    # -- views ---------------------------------------------------------------------------------------------
    def hand_cards(self, seat: int) -> list[int]:
        """``seat``'s cards, by card id."""
        return _bits(self.hand_ids[seat])

    def known_widow_cards(self) -> list[int]:
        return list(_bits(self.known_widow))

    def phase_name(self) -> str:
        return PHASE_NAMES[self.phase]

    def action_to_string(self, action: int) -> str:
        if not 0 <= action < NUM_ACTIONS:
            return self.game.action_name(action)
        text = f"{'lead' if self.phase == LEAD else 'play'} {format_card(action)}"
        b = BOODLE_OF_CARD[action]
        if b >= 0 and self.boodle[b]:
            text += f" (collects {self.boodle[b]})"
        return text

    def _sequence(self) -> dict | None:
        if self.phase != FOLLOW:
            return None
        return {"suit": SUIT[self.need], "next_rank": MRANK[self.need], "next_card": self.need}

    def public_view(self, player: int) -> dict:
        return {
            "seat": player,
            "phase": PHASE_NAMES[self.phase],
            "to_act": self.current_player(),
            "leading": self.phase == LEAD and self.player == player,
            "dealer": self.dealer,
            "hand_number": min(self.hands_played + 1, self.game.num_hands),
            "num_hands": self.game.num_hands,
            "hand": self.hand_cards(player),
            "played": list(self.played),
            "sequence": self._sequence(),
            "stopped_suit": self.stopped_suit if self.phase == LEAD else NO_SUIT,
            "known_widow": self.known_widow_cards(),
            "layout": self.layout(),
            "balances": list(self.balances),
            "card_counts": list(self.counts),
            "widow_count": self.widow_count,
        }

    def scoreboard(self) -> tuple[str, list[float]]:
        return "chips", [float(b) for b in self.balances]

    def deal(self) -> dict:
        dealer, owner = self._dealt
        return {"dealer": dealer, "hands": [[c for c in range(NUM_CARDS) if owner[c] == s] for s in range(self.n)],
                "widow": [c for c in range(NUM_CARDS) if owner[c] == WIDOW]}

    def render(self, player: int | None = None) -> str:
        n = self.n
        hand = min(self.hands_played + 1, self.game.num_hands)
        title = (f"Michigan, {n} players, hand {hand}/{self.game.num_hands}, dealer {self.dealer}, "
                 f"phase {PHASE_NAMES[self.phase]}")
        lines = [title]
        lines.append("layout: " + "  ".join(f"{k} {v:g}" for k, v in self.layout().items()))
        by_suit: list[list[str]] = [[] for _ in range(4)]
        for c, s in self.played:
            by_suit[SUIT[c]].append(f"{format_card(c)}/{s}")
        for s in range(4):
            if by_suit[s]:
                lines.append(f"played {SUIT_SYMBOLS[s]} (card/player): " + " ".join(by_suit[s]))
        for s in range(n):
            mark = ">" if s == self.current_player() else " "
            k = self.counts[s]
            you = " (you): " + (format_cards(self.hand_cards(s)) or "-") + "," if s == player else ":"
            lines.append(f"{mark} player {s}{you} {k} card{'' if k == 1 else 's'}, balance {self.balances[s]:g}")
        lines.append(f"  widow: {self.widow_count} card{'' if self.widow_count == 1 else 's'}"
                     + (f" (known: {format_cards(self.known_widow_cards())})"
                        if self.known_widow else ""))
        if self.phase == FOLLOW:
            lines.append(f"player {self.player} must play {format_card(self.need)}")
        elif self.phase == LEAD:
            stop = (f" (stopped: {SUIT_SYMBOLS[self.stopped_suit]})" if self.stopped_suit != NO_SUIT else "")
            lines.append(f"player {self.player} leads{stop}")
        else:
            lines.append("session over; top balance: " + ", ".join(f"player {w}" for w in self.winners))
        return "\n".join(lines)

    def full_state(self) -> dict:
        return {
            "dealer": self.dealer, "phase": PHASE_NAMES[self.phase], "to_act": self.current_player(),
            "hands": [self.hand_cards(s) for s in range(self.n)],
            "widow": [c for c in range(NUM_CARDS) if self.owner[c] == WIDOW],
            "played": [list(cs) for cs in self.played],
            "sequence": self._sequence(),
            "stopped_suit": self.stopped_suit,
            "known_widow": self.known_widow_cards(),
            "layout": self.layout(), "balances": list(self.balances),
            "hands_played": self.hands_played, "winners": list(self.winners),
        }

    def hidden_pieces(self) -> dict[str, np.ndarray]:
        return {"widow": one_hot(NUM_CARDS, [c for c in range(NUM_CARDS) if self.owner[c] == WIDOW])}

    def clone(self) -> MichiganState:
        c = object.__new__(MichiganState)
        c.__dict__.update(self.__dict__)
        c._rng = None  # the copy builds its generator only if it deals again (State.rng)
        c._rng_state = self._rng.bit_generator.state if self._rng is not None else self._rng_state
        c.balances = list(self.balances)
        c.boodle = list(self.boodle)
        c.owner = list(self.owner)
        c.hands = list(self.hands)
        c.hand_ids = list(self.hand_ids)
        c.counts = list(self.counts)
        c.played = list(self.played)
        c.winners = list(self.winners)
        c._returns = self._returns.copy()
        if self._pending is not None:
            c._pending = self._pending.copy()
        if self._rewards is not self._zeros:
            c._rewards = self._rewards.copy()
        c._legal = list(self._legal)
        c.seen = None  # the clone's first observation builds its own observer
        return c

    def resample_hidden(self, player: int, rng: np.random.Generator) -> MichiganState:
        """Re-deal every card ``player`` cannot see among the other hands and the widow, each
        keeping its count. Known facts stay: the player's own hand, played cards, the card
        the current follower must play (everyone sees whose turn it is) and the cards a stop
        has shown to be in the widow. (What the leads showed is kept by ``resample_inferred``.)"""
        c = self.clone()
        cards = self._unknown_cards(player)
        slots = [c.owner[card] for card in cards]
        for card, who in zip(cards, rng.permutation(len(slots)).tolist()):
            c.owner[card] = slots[who]
        c._set_hands()
        c._legal = c._compute_legal()
        return c

    def _unknown_cards(self, player: int) -> list[int]:
        """The cards ``player`` cannot place: not its own, not played, not the card the
        follower must play, not shown to be in the widow."""
        need = self.need if self.phase == FOLLOW else -1
        return [card for card in range(NUM_CARDS)
                if self.owner[card] not in (player, PLAYED) and card != need and not self.known_widow >> card & 1]

    def lead_exclusions(self) -> list[int]:
        """What this hand's leads showed, per seat: a bitmask of card ids the seat cannot hold.
        A lead is its leader's lowest card of the suit (no lower card of it is held, and cards
        never come back to a hand), and a leader who leads the suit that just stopped holds no
        other suit. A play is a lead when it is the hand's first or does not follow the card
        before it (whose next card, held by nobody, stopped the sequence)."""
        out = [0] * self.n
        prev = -1
        for card, seat in self.played:
            if prev < 0 or card != NEXT_CARD[prev]:
                out[seat] |= _LOWER_IDS[card]
                if prev >= 0 and SUIT[prev] == SUIT[card]:  # the stopped suit again: no other suit held
                    out[seat] |= _OTHER_SUITS_IDS[SUIT[card]]
            prev = card
        return out

    def resample_inferred(self, player: int, rng: np.random.Generator) -> MichiganState:
        """``resample_hidden``'s re-deal, keeping also what the leads showed
        (``lead_exclusions``): the cards some owner may not hold go first (the most constrained
        first), each to a random owner that may hold it, weighted by the room it has left; the
        other cards then fill the room left at random. Dealt again when a card is stranded
        (rarely); as ``resample_hidden`` deals when the leads rule out nothing unseen."""
        excluded = self.lead_exclusions()
        excluded[player] = 0
        cards = self._unknown_cards(player)
        unknown = sum(1 << card for card in cards)
        if not any(e & unknown for e in excluded):
            return self.resample_hidden(player, rng)
        room: dict[int, int] = {}
        for card in cards:
            room[self.owner[card]] = room.get(self.owner[card], 0) + 1
        owners = list(room)
        ruled = [o for o in owners if o >= 0 and excluded[o] & unknown]
        constrained = []  # (owners that may hold it, card)
        free = []
        for card in cards:
            if any(excluded[o] >> card & 1 for o in ruled):
                constrained.append(([o for o in owners if o == WIDOW or not excluded[o] >> card & 1], card))
            else:
                free.append(card)
        constrained.sort(key=lambda x: len(x[0]))
        k = len(constrained)
        for _ in range(8):
            left = dict(room)
            deal = []
            draws = rng.random(k).tolist()  # one call: numpy's per-draw cost is the expense here
            for (options, card), u in zip(constrained, draws):
                options = [o for o in options if left[o]]
                if not options:
                    break
                x = u * sum(left[o] for o in options)
                for o in options:  # an owner with room left, weighted by its room
                    x -= left[o]
                    if x < 0:
                        break
                deal.append((card, o))
                left[o] -= 1
            else:
                slots = [o for o in owners for _ in range(left[o])]
                c = self.clone()
                for card, o in deal:
                    c.owner[card] = o
                for card, who in zip(free, rng.permutation(len(slots)).tolist()):
                    c.owner[card] = slots[who]
                c._set_hands()
                c._legal = c._compute_legal()
                return c
        return self.resample_hidden(player, rng)

