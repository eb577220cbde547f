"""Cribbage with muggins counting: the scoring API (public) and the rules state machine."""

from ...kernel.declaration import GameDeclaration
from .observation import CribbageObserver
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
    "DECLARATION",
    "GO",
    "MUGGINS",
    "NUM_ACTIONS",
    "OVERCOUNT",
    "Breakdown",
    "CribbageGame",
    "CribbageObserver",
    "CribbageState",
    "PlayBreakdown",
    "discard_values",
    "play_breakdown",
    "score_breakdown",
    "score_hand",
    "score_hands_batch",
    "score_play",
]


#: the observation module reads the rules, so the two meet here; the state's ``observation`` is
#: the observer's ``observe`` (the kernel's ``State.observation``, with one call less a step)
CribbageGame.observer_cls = CribbageObserver
CribbageState.observation = CribbageObserver.observe

#: the game's one declaration (muggins_env.kernel.declaration; docs/design.md, "Adding a game")
DECLARATION = GameDeclaration(
    game=CribbageGame,
    title="Cribbage",
    rules_text=(
        "Cribbage (docs/rules/cribbage.md), played to a target score. Each hand every player lays "
        "away cards face down to the dealer's crib, a starter card is turned, then the players lay "
        "cards in turn, the running count never above 31: a count of 15 or 31 scores 2, pairs, runs "
        "and the last card score too; 'go' when you cannot lay. Then each hand (with the starter) is "
        "shown and scored: fifteens 2, pairs 2, runs, flushes, his nobs; the dealer also scores the "
        "crib. With muggins counting a player announces the points of its own hand; an opponent who "
        "sees points missed may call 'muggins' and take them, or call an overcount. The first side "
        "to reach the target wins."),
    drawing="cribbage",
    heuristic="muggins_env.agents.heuristic_cribbage:CribbageHeuristic",
    evaluator="muggins_env.agents.heuristic_cribbage:CribbageEvaluator",
    table_evaluator="muggins_env.agents.heuristic_cribbage:CribbageTableEvaluator",
    table_heuristic="muggins_env.agents.heuristic_cribbage_table:CribbageTableHeuristic",
    net_heuristic=None,
    features="muggins_env.agents.features:CribbageFeatures",
    action_features="muggins_env.agents.features:cribbage_actions",
    narrator="muggins_env.play.tui.narrate:cribbage_notes",
)
