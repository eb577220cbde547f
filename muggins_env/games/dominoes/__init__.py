"""Muggins dominoes and the Fives family (docs/rules/dominoes.md §2): layouts and counting (``layout``),
the Game and State (``rules``)."""

from .layout import (
           VARIANTS,
           Layout,
           Variant,
           bonus_points,
           count_bound,
           max_announcement,
           play_score,
           round_to,
)
from .rules import FACTS, LEAD_SLOT, PLAY, DominoesGame, DominoesState

__all__ = [
           "FACTS",
           "LEAD_SLOT",
           "PLAY",
           "VARIANTS",
           "DominoesGame",
           "DominoesState",
           "Layout",
           "Variant",
           "bonus_points",
           "count_bound",
           "max_announcement",
           "play_score",
           "round_to",
]
