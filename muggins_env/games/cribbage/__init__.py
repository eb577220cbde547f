"""Cribbage with muggins counting: the scoring API (public) and the rules state machine."""

from .rules import ACCEPT, ANNOUNCE, GO, MUGGINS, NUM_ACTIONS, OVERCOUNT, CribbageGame, CribbageState
from .scoring import (
    Breakdown,
    PlayBreakdown,
    discard_values,
    play_breakdown,
    score_breakdown,
    score_hand,
    score_hands_batch,
    score_play,
)

__all__ = [
    "ACCEPT",
    "ANNOUNCE",
    "GO",
    "MUGGINS",
    "NUM_ACTIONS",
    "OVERCOUNT",
    "Breakdown",
    "CribbageGame",
    "CribbageState",
    "PlayBreakdown",
    "discard_values",
    "play_breakdown",
    "score_breakdown",
    "score_hand",
    "score_hands_batch",
    "score_play",
]
