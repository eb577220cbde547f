"""Michigan, the stops game with a payment layout: the rules (``rules``) and the observation
kept beside them (``observation``)."""

from ...kernel.declaration import GameDeclaration
from .observation import MichiganObserver
from .rules import (
    BOODLE_CARDS,
    BOODLE_NAMES,
    BOODLE_OF_CARD,
    FOLLOW,
    HALTED,
    LEAD,
    NUM_ACTIONS,
    OVER,
    PLAYED,
    WIDOW,
    MichiganGame,
    MichiganState,
    deal_sizes,
)

__all__ = [
    "BOODLE_CARDS",
    "BOODLE_NAMES",
    "BOODLE_OF_CARD",
    "DECLARATION",
    "FOLLOW",
    "HALTED",
    "LEAD",
    "NUM_ACTIONS",
    "OVER",
    "PLAYED",
    "WIDOW",
    "MichiganGame",
    "MichiganObserver",
    "MichiganState",
    "deal_sizes",
]

#: the observation module reads the rules, so the two meet here
MichiganGame.observer_cls = MichiganObserver

#: the game's one declaration (muggins_env.kernel.declaration; docs/design.md, "Adding a game")
DECLARATION = GameDeclaration(
    game=MichiganGame,
    title="Michigan",
    rules_text=(
        "Michigan, a stops game (docs/rules/michigan.md). Before each hand every player puts chips "
        "on the four boodle cards of the layout (A♥, K♣, Q♦, J♠) and on the Kitty. Cards are dealt "
        "to the players and a widow (an extra hand). The leader plays the lowest card it holds of a "
        "suit, and whoever holds the next higher card of that suit plays it, and so on, until the run "
        "stops (the next card is in the widow or already played, or the ace is reached); the last "
        "player to play then leads again, a new suit if possible. Playing the card matching a "
        "boodle card wins the chips on it. The first player out of cards takes the Kitty and one "
        "chip from each other player for every card left in that player's hand."),
    drawing="michigan",
    heuristic="muggins_env.agents.heuristic_michigan:MichiganHeuristic",
    evaluator="muggins_env.agents.heuristic_michigan:MichiganEvaluator",
    table_evaluator=None,
    table_heuristic=None,
    net_heuristic=None,
    features=None,
    action_features="muggins_env.agents.features:michigan_actions",
    narrator=None,
)
