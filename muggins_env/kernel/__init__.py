"""The shared rules kernel: cards, tiles, seats, options, the Game/State protocol and a game's
declaration."""

from .cards import (
    NUM_CARDS,
    RANK,
    SUIT,
    card_id,
    check_all_once,
    format_card,
    format_cards,
    parse_card,
    parse_cards,
    rank_of,
    suit_of,
)
from .declaration import GameDeclaration, load_hook
from .game import (
    TERMINAL,
    Game,
    GameFacts,
    IllegalActionError,
    State,
    legal_mask,
    one_hot,
    piece_offsets,
    pile_order,
)
from .observer import Observer
from .options import Option, int_range, resolve_options
from .rewards import win_loss_rewards
from .seats import (
    absolute_seat,
    clockwise_from_left,
    first_clockwise,
    left_of,
    num_teams,
    opponents_clockwise,
    relative_seat,
    team_of,
    teammates,
)
from .tiles import format_tile, format_tiles, num_tiles, parse_tile, parse_tiles, tile_id

__all__ = [
    "NUM_CARDS",
    "RANK",
    "SUIT",
    "TERMINAL",
    "Game",
    "GameDeclaration",
    "GameFacts",
    "IllegalActionError",
    "Observer",
    "Option",
    "State",
    "absolute_seat",
    "card_id",
    "check_all_once",
    "clockwise_from_left",
    "first_clockwise",
    "format_card",
    "format_cards",
    "format_tile",
    "format_tiles",
    "int_range",
    "left_of",
    "legal_mask",
    "load_hook",
    "num_teams",
    "num_tiles",
    "one_hot",
    "opponents_clockwise",
    "parse_card",
    "parse_cards",
    "parse_tile",
    "parse_tiles",
    "piece_offsets",
    "pile_order",
    "rank_of",
    "relative_seat",
    "resolve_options",
    "suit_of",
    "team_of",
    "teammates",
    "tile_id",
    "win_loss_rewards",
]
