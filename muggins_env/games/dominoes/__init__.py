"""Muggins dominoes and the Fives family (docs/rules/dominoes.md §2): layouts and counting (``layout``),
the Game and State (``rules``)."""

from ...kernel.declaration import GameDeclaration
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
from .observation import DominoesObserver
from .rules import FACTS, LEAD_SLOT, PLAY, DominoesGame, DominoesState

__all__ = [
           "DECLARATION",
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


#: the observation module reads the rules' phases, so the two meet here
DominoesGame.observer_cls = DominoesObserver

#: the game's one declaration (muggins_env.kernel.declaration; docs/design.md, "Adding a game")
DECLARATION = GameDeclaration(
    game=DominoesGame,
    title="Muggins dominoes",
    rules_text=(
        "Muggins dominoes, the All Fives family (docs/rules/dominoes.md). Players play tiles in "
        "turn, each matching an open end of the layout (a double may be a spinner that opens more "
        "arms); a player who cannot play draws from the boneyard (or knocks). After a play, when "
        "the pips of the open ends add up to a multiple of 5 the player scores that sum. A player "
        "announces the score of its own play; a wrong announcement may be called 'Muggins!' by an "
        "opponent. The hand ends when a player dominoes (plays its last tile: it scores the pips "
        "left in the other hands) or the game blocks; the first to reach the target wins."),
    drawing="dominoes",
    heuristic="muggins_env.agents.heuristic_dominoes:DominoesHeuristic",
    evaluator="muggins_env.agents.heuristic_dominoes:DominoesEvaluator",
    table_evaluator="muggins_env.agents.heuristic_dominoes:DominoesTableEvaluator",
    table_heuristic=None,
    net_heuristic="muggins_env.agents.heuristic_dominoes:NetDominoesHeuristic",
    features="muggins_env.agents.features:DominoesFeatures",
    action_features="muggins_env.agents.features:dominoes_actions",
    narrator="muggins_env.play.tui.narrate:dominoes_notes",
)
