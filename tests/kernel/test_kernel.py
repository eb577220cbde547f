"""The shared kernel: card and tile ids, parsing, seats, options, the reward rule."""

import numpy as np
import pytest

from muggins_env.kernel import cards, options, rewards, seats, tiles
from muggins_env.kernel.options import Option


@pytest.mark.parametrize("text,expected", [
    ("A♣", 0), ("K♣", 12), ("A♦", 13), ("10♦", 22), ("10D", 22), ("TD", 22), ("td", 22),
    ("A♠", 39), ("K♠", 51), ("Q♥", 37), ("5h", 30), (" 7s ", 45),
])
def test_parse_card_contract(text, expected):
    # id = suit * 13 + (rank - 1), suits clubs, diamonds, hearts, spades
    assert cards.parse_card(text) == expected


def test_card_ids_rank_suit_and_format_round_trip():
    for c in range(52):
        assert cards.card_id(cards.rank_of(c), cards.suit_of(c)) == c
        assert cards.parse_card(cards.format_card(c)) == c
        assert cards.RANK[c] == cards.rank_of(c) and cards.SUIT[c] == cards.suit_of(c)
    assert cards.format_card(22) == "10♦"
    assert cards.format_cards([0, 51]) == "A♣ K♠"


@pytest.mark.parametrize("bad", ["", "1", "11♦", "ZZ", "10X", "♦10", "AH2", 52, -1, True, 3.0, None])
def test_malformed_card_raises_naming_it(bad):
    with pytest.raises(ValueError) as err:
        cards.parse_card(bad)
    assert repr(bad) in str(err.value) or str(bad) in str(err.value)


def test_check_all_once_names_duplicates_and_missing():
    deck = list(range(52))
    cards.check_all_once(deck)
    with pytest.raises(ValueError, match="twice: A♣.*missing: K♠"):
        cards.check_all_once([0] + deck[:-1])


def test_tile_ids_are_a_prefix_order_and_parse_both_ways():
    assert [tiles.format_tile(t) for t in range(6)] == ["0-0", "1-0", "1-1", "2-0", "2-1", "2-2"]
    assert tiles.num_tiles(6) == 28 and tiles.num_tiles(9) == 55
    assert tiles.num_tiles(12) == 91 and tiles.num_tiles(15) == 136
    assert tiles.parse_tile("5-3") == tiles.parse_tile("3-5") == tiles.tile_id(5, 3)
    assert tiles.format_tile(tiles.parse_tile("3:5")) == "5-3"
    assert tiles.tile_id(6, 6) == 27  # the last tile of double-six
    with pytest.raises(ValueError, match="double-6"):
        tiles.parse_tile("7-1", set_max=6)
    with pytest.raises(ValueError, match="malformed"):
        tiles.parse_tile("5/3")


def test_seats_clockwise_and_partnerships():
    assert seats.left_of(3, 4) == 0
    assert seats.clockwise_from_left(1, 4) == [2, 3, 0]
    assert seats.first_clockwise(0, 4, lambda s: s in (2, 3)) == 2
    assert seats.first_clockwise(0, 4, lambda s: False) is None
    assert seats.relative_seat(3, 0, 4) == 1 and seats.absolute_seat(3, 1, 4) == 0
    assert seats.opponents_clockwise(0, 4, True) == [1, 3]
    assert seats.opponents_clockwise(1, 3, False) == [2, 0]
    assert seats.teammates(1, 4, True) == [1, 3]


def test_options_validate_names_and_values():
    declared = {"num_players": Option(4, allowed=(3, 4, 5)), "flag": Option(False, allowed=(False, True)),
                "limit": Option(lambda o: o["num_players"] * 10, check=options.int_range(1))}
    assert options.resolve_options(declared, {}, "g") == {"num_players": 4, "flag": False, "limit": 40}
    assert options.resolve_options(declared, {"num_players": 3, "limit": 7}, "g")["limit"] == 7
    with pytest.raises(ValueError, match="num_players=9.*allowed values: 3, 4, 5"):
        options.resolve_options(declared, {"num_players": 9}, "g")
    with pytest.raises(ValueError, match="flag=1 "):  # 1 is not True
        options.resolve_options(declared, {"flag": 1}, "g")
    with pytest.raises(ValueError, match="unknown option.*'colour'.*known options: num_players, flag, limit"):
        options.resolve_options(declared, {"colour": 1}, "g")
    with pytest.raises(ValueError, match="limit=0"):
        options.resolve_options(declared, {"limit": 0}, "g")


def test_win_loss_rewards():
    assert np.allclose(rewards.win_loss_rewards(4, [2]), [-1 / 3, -1 / 3, 1, -1 / 3])
    assert np.allclose(rewards.win_loss_rewards(4, [1], teams=[0, 1, 0, 1]), [-1, 1, -1, 1])
    assert np.allclose(rewards.win_loss_rewards(3, [0, 1]), [0.5, 0.5, -1])
    assert np.allclose(rewards.win_loss_rewards(3, []), 0)


def test_quiet_rewards_is_one_read_only_zeros_array_per_seat_count():
    a = rewards.quiet_rewards(3)
    assert a is rewards.quiet_rewards(3) and a is not rewards.quiet_rewards(4)
    assert a.tolist() == [0.0, 0.0, 0.0] and a.dtype == np.float64 and not a.flags.writeable
    with pytest.raises(ValueError):
        a[0] = 1.0


@pytest.mark.parametrize("game_id", ["cribbage_v0", "muggins_dominoes_v0", "michigan_v0", "muggins_cards_v0"])
def test_every_game_reports_a_step_that_pays_nothing_with_the_quiet_rewards(game_id):
    """What the envs test by identity: a game's rewards after a step that pays nothing."""
    from muggins_env.agents import make_game

    state = make_game(game_id).new_initial_state(seed=3)
    quiet = rewards.quiet_rewards(state.game.num_players)
    rng = np.random.default_rng(3)
    seen = 0
    while not state.is_terminal():
        state.apply(int(rng.choice(np.flatnonzero(state.legal_actions_mask()))))
        r = state.rewards()
        if not r.flags.writeable:  # a read-only rewards array is the shared zeros
            assert r is quiet
        seen += r is quiet
    assert seen > 0
