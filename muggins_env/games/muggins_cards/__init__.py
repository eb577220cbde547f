"""Muggins, the card game: the rules (``rules``) and the observation kept beside them
(``observation``)."""

from ...kernel.declaration import GameDeclaration
from .observation import CardsObserver
from .rules import (
    CALL,
    COMMON_PILE,
    NUM_ACTIONS,
    OPPONENT_DISCARD,
    OVER,
    OWN_DISCARD,
    PASS,
    PLACE,
    RANK0,
    RECHOOSE,
    REVIEW,
    MugginsCardsGame,
    MugginsCardsState,
    fits,
)

__all__ = [
    "CALL",
    "COMMON_PILE",
    "DECLARATION",
    "NUM_ACTIONS",
    "OPPONENT_DISCARD",
    "OVER",
    "OWN_DISCARD",
    "PASS",
    "PLACE",
    "RANK0",
    "RECHOOSE",
    "REVIEW",
    "CardsObserver",
    "MugginsCardsGame",
    "MugginsCardsState",
    "fits",
]

#: the observation module reads the rules, so the two meet here
MugginsCardsGame.observer_cls = CardsObserver

#: the game's one declaration (muggins_env.kernel.declaration; docs/design.md, "Adding a game")
DECLARATION = GameDeclaration(
    game=MugginsCardsGame,
    title="Muggins (cards)",
    rules_text=(
        "Muggins, the card game (docs/rules/muggins_cards.md). Each player turns up the cards of "
        "a face-down stock one at a time and must put each on a pile whose top card is exactly one "
        "rank away (ace low, king high, no wrap; suits do not matter): a common pile first, then an "
        "opponent's discard pile, then only the player's own discard pile. A player who misses a "
        "required play can be caught: another player calls 'Muggins!' and the offender takes cards "
        "from everyone else. The first player to get rid of every card wins."),
    drawing="muggins_cards",
    heuristic="muggins_env.agents.heuristic_muggins_cards:MugginsCardsHeuristic",
    evaluator="muggins_env.agents.heuristic_muggins_cards:MugginsCardsEvaluator",
    table_evaluator=None,
    table_heuristic=None,
    net_heuristic=None,
    features="muggins_env.agents.features:MugginsCardsFeatures",
    action_features="muggins_env.agents.features:muggins_cards_actions",
    narrator="muggins_env.play.tui.narrate:muggins_cards_notes",
)
