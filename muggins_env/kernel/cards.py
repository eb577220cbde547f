"""Playing cards as small ints, shared by every card game of the suite.

Card id contract (stable, used in every action space and deal format):
``id = suit * 13 + (rank - 1)`` with suits clubs, diamonds, hearts, spades (0..3)
and ranks A=1 .. K=13.  So ``0`` is A♣, ``12`` is K♣, ``13`` is A♦, ``51`` is K♠.
Games that rank aces high (Michigan) keep the same ids and order ranks themselves.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

NUM_CARDS = 52
NUM_RANKS = 13
SUIT_SYMBOLS = "♣♦♥♠"
SUIT_LETTERS = "CDHS"
RANK_NAMES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")

_RANK_ALIASES = {name: i + 1 for i, name in enumerate(RANK_NAMES)}
_RANK_ALIASES.update({"T": 10, "1": 1})
_SUIT_ALIASES = {s: i for i, s in enumerate(SUIT_SYMBOLS)}
_SUIT_ALIASES.update({s: i for i, s in enumerate(SUIT_LETTERS)})
_SUIT_ALIASES.update({"♧": 0, "♢": 1, "♡": 2, "♤": 3})

#: rank (1..13) of every card id, and suit (0..3): lookups beat arithmetic in hot loops.
RANK = np.array([c % 13 + 1 for c in range(NUM_CARDS)], dtype=np.int8)
SUIT = np.array([c // 13 for c in range(NUM_CARDS)], dtype=np.int8)
RANK_LIST = [int(r) for r in RANK]
SUIT_LIST = [int(s) for s in SUIT]


def card_id(rank: int, suit: int) -> int:
    if not (1 <= rank <= 13) or not (0 <= suit <= 3):
        raise ValueError(f"no card with rank {rank!r} and suit {suit!r} (rank 1..13, suit 0..3)")
    return suit * 13 + rank - 1


def rank_of(card: int) -> int:
    return card % 13 + 1


def suit_of(card: int) -> int:
    return card // 13


def parse_card(text: str | int) -> int:
    """Parse ``"10♦"``, ``"10D"``, ``"TD"``, ``"td"``, ``"A♠"`` (or pass an id through)."""
    if isinstance(text, (int, np.integer)) and not isinstance(text, bool):
        return check_card(int(text))
    if not isinstance(text, str):
        raise ValueError(f"card {text!r} is neither a card id 0..51 nor a string like '10♦' or 'TD'")
    s = text.strip().upper()
    if len(s) < 2 or s[:-1] not in _RANK_ALIASES or s[-1] not in _SUIT_ALIASES:
        raise ValueError(
            f"malformed card {text!r}: expected a rank (A 2-10 T J Q K) then a suit "
            f"(♣♦♥♠ or C D H S), e.g. '10♦', 'TD', 'A♠'"
        )
    return card_id(_RANK_ALIASES[s[:-1]], _SUIT_ALIASES[s[-1]])


def check_card(card: int) -> int:
    if isinstance(card, bool) or not isinstance(card, (int, np.integer)) or not 0 <= card < NUM_CARDS:
        raise ValueError(f"card id {card!r} is out of range: card ids are ints 0..51")
    return int(card)


def parse_cards(cards: Iterable[str | int] | str) -> list[int]:
    """Parse a list of cards, or one string of space-separated cards."""
    if isinstance(cards, str):
        cards = cards.split()
    return [parse_card(c) for c in cards]


def format_card(card: int) -> str:
    return RANK_NAMES[card % 13] + SUIT_SYMBOLS[card // 13]


def format_cards(cards: Iterable[int]) -> str:
    return " ".join(format_card(c) for c in cards)


def check_all_once(cards: Iterable[int], what: str = "deal", universe: int = NUM_CARDS, fmt=None) -> None:
    """Raise ``ValueError`` unless ``cards`` holds each id 0..universe-1 exactly once."""
    fmt = fmt or format_card
    seen: dict[int, int] = {}
    for c in cards:
        seen[c] = seen.get(c, 0) + 1
    twice = sorted(c for c, k in seen.items() if k > 1)
    missing = sorted(set(range(universe)) - set(seen))
    if twice or missing:
        parts = []
        if twice:
            parts.append("twice: " + ", ".join(map(fmt, twice)))
        if missing:
            parts.append("missing: " + ", ".join(map(fmt, missing)))
        raise ValueError(f"invalid {what}: every id 0..{universe - 1} must appear exactly once ({'; '.join(parts)})")
