"""The rest of the Fives family (docs/rules/dominoes.md §2.8) through the env API with rigged deals: every
worked example, the orthogonal options and presets, the double lead and its redeal, knocking,
the extra play, what the observation shows of them, and bad option combinations."""

import pytest

from muggins_env.games.dominoes import DominoesGame
from muggins_env.games.dominoes.layout import nearest_prime
from muggins_env.kernel.tiles import parse_tile, parse_tiles
from tests.games.dominoes.test_dominoes_rules import legal, make, offsets, play, scores, seat


def step_score(e, tile, slot, announce=None):
    """Play and return (count, the points the player's side gained)."""
    side = e.game.teams[seat(e)]
    before = scores(e)[side]
    play(e, tile, slot, announce)
    return e.kernel_state.layout.count, scores(e)[side] - before


# -- presets and options -----------------------------------------------------------------------
@pytest.mark.parametrize("variant,scoring,spinners", [
    ("muggins", "fives", "none"), ("all_threes", "threes", "none"), ("fives_and_threes", "fives_and_threes", "none"),
    ("all_fives", "fives", "first"), ("sniff", "fives", "sniff"), ("five_up", "per_five", "every"),
    ("fives_1863", "per_five", "none"), ("primes", "primes", "none")])
def test_presets_set_the_options(variant, scoring, spinners):
    g = DominoesGame(variant=variant)
    assert (g.options["scoring"], g.options["spinners"]) == (scoring, spinners)
    assert g.options["lead"] == "heaviest" and not g.options["knocking"] and not g.options["extra_play"]


def test_fives_1863_defaults_and_explicit_options_override_the_preset():
    g = DominoesGame(variant="fives_1863")
    assert (g.target, g.muggins, g.win_bonus, g.set_max) == (31, "off", 1, 6)
    g = DominoesGame(variant="fives_1863", muggins="claim", win_bonus=5, target=61)
    assert (g.target, g.muggins, g.win_bonus) == (61, "claim", 5)
    g = DominoesGame(variant="muggins", scoring="threes")
    assert g.variant.threes and not g.variant.fives and g.options["spinners"] == "none"
    assert DominoesGame(variant="primes", num_players=3).target == 150


@pytest.mark.parametrize("opts,match", [
    ({"knocking": True}, "knocking=True needs 3 or 4 players"),
    ({"scoring": "sevens"}, "allowed values: 'fives', 'threes'"),
    ({"spinners": "all"}, "allowed values: 'none', 'first', 'sniff', 'every'"),
    ({"lead": "lowest"}, "allowed values: 'heaviest', 'double'"),
    ({"win_bonus": -1}, "'pips' or an int >= 0"),
    ({"win_bonus": "tiles"}, "'pips' or an int >= 0"),
    ({"win_bonus": True}, "'pips' or an int >= 0"),
    ({"extra_play": "yes"}, "allowed values: False, True"),
    ({"variant": "cribbage_dominoes"}, "'fives_1863', 'primes'"),
])
def test_bad_options_name_what_is_allowed(opts, match):
    with pytest.raises(ValueError, match=match):
        DominoesGame(**opts)


def test_new_actions_come_after_the_old_ones_with_readable_names():
    base = DominoesGame(num_players=3)
    g = DominoesGame(num_players=3, knocking=True, extra_play=True)
    assert (g.PASS, g.ANNOUNCE, g.ACCEPT, g.MUGGINS) == (base.PASS, base.ANNOUNCE, base.ACCEPT, base.MUGGINS)
    assert (g.KNOCK, g.DRAW, g.STOP) == (base.num_actions, base.num_actions + 1, base.num_actions + 2)
    assert g.num_actions == base.num_actions + 3
    assert [g.action_name(a) for a in (g.KNOCK, g.DRAW, g.STOP)] == ["knock", "draw", "stop (no extra play)"]
    only_extra = DominoesGame(extra_play=True)
    assert only_extra.STOP == DominoesGame().num_actions and only_extra.KNOCK == only_extra.DRAW == -1
    assert base.KNOCK == base.DRAW == base.STOP == -1


# -- the worked examples of §2.8 ---------------------------------------------------------------
def test_fives_and_threes_with_a_spinner_example():
    e = make([["3-3", "3-4", "1-0", "5-1"], ["3-6", "3-2", "5-0", "1-1"]],
             variant="fives_and_threes", spinners="first", muggins="off")
    assert step_score(e, "3-3", 0) == (6, 2)
    assert step_score(e, "3-6", 1) == (12, 4)  # 6 + 6: the spinner has a free side
    assert step_score(e, "3-4", 2) == (10, 2)  # the spinner stops counting: 6 + 4
    assert step_score(e, "3-2", 3) == (12, 4)  # on a spinner end: 6 + 4 + 2


def test_fives_1863_example_and_the_win_bonus():
    e = make([["5-5", "5-1"], ["5-0", "4-3", "2-1"]], variant="fives_1863")
    assert legal(e) == {e.game.play_action("5-5", 0)}  # no announcement follows: muggins is off
    assert step_score(e, "5-5", 0) == (10, 2)
    assert step_score(e, "5-0", 1) == (10, 2)  # 10 + 0
    play(e, "5-1", 2)  # seat 0 dominoes: the end of the hand scores no pips, 1 point
    last = e.kernel_state.last_hand
    assert last["how"] == "domino" and last["bonus"] == 1 and scores(e) == [3, 2]
    e = make([["5-5", "5-1"], ["5-0", "4-3", "2-1"]], variant="fives_1863", win_bonus=5)
    play(e, "5-5", 0)
    play(e, "5-0", 1)
    play(e, "5-1", 2)
    assert scores(e) == [2 + 5, 2]


def test_fives_1863_blocked_hand_lowest_total_scores_the_bonus_and_a_tie_nothing():
    e = make([["6-6", "1-0"], ["3-0", "2-1"]], variant="fives_1863", boneyard_reserve=24, hand_size=1)
    play(e, "6-6", 0)
    last = e.kernel_state.last_hand
    assert last["how"] == "blocked" and last["side"] == 0 and last["bonus"] == 1 and scores(e) == [1, 0]  # 12 does not score
    e = make([["6-6", "2-1"], ["3-0"]], variant="fives_1863", boneyard_reserve=25, hand_size=1)
    play(e, "6-6", 0)
    assert e.kernel_state.last_hand["side"] == -1 and scores(e) == [0, 0]


@pytest.mark.parametrize("rest,bonus", [(["4-0", "3-1"], 5), (["5-3", "1-0"], 7), (["6-3", "1-0"], 11),
                                        (["6-4", "3-0"], 11), (["1-0"], 2)])
def test_primes_example_and_the_bonus_is_the_heaviest_tile_rounded_to_a_prime(rest, bonus):
    e = make([["6-5", "2-1"], ["5-2"] + rest], variant="primes")
    assert legal(e) == {e.game.play_action("6-5", 0)}  # no double in the hands: the heaviest tile leads
    assert step_score(e, "6-5", 0, announce=11) == (11, 11)
    assert step_score(e, "5-2", 2, announce=0) == (8, 0)  # 6 + 2
    play(e, "2-1", 2, announce=7)  # 6 + 1, and seat 0 dominoes
    last = e.kernel_state.last_hand
    assert last["how"] == "domino" and last["bonus"] == bonus and scores(e) == [11 + 7 + bonus, 0]


def test_nearest_prime_ties_go_to_the_larger():
    assert [nearest_prime(x) for x in (0, 1, 2, 4, 8, 9, 10, 12, 13, 26)] == [2, 2, 2, 5, 7, 11, 11, 13, 13, 29]


def test_primes_blocked_hand_scores_the_opponents_heaviest_tile():
    e = make([["6-6", "2-1"], ["4-4"], ["5-4"]], variant="primes", num_players=3, muggins="off",
             boneyard_reserve=24, hand_size=1)
    play(e, "6-6", 0)
    last = e.kernel_state.last_hand
    assert last["side"] == 0 and last["bonus"] == 11  # heaviest opponent tile 5-4 = 9 -> 11


# -- the double lead ---------------------------------------------------------------------------
def test_double_lead_the_highest_double_leads_even_against_a_heavier_tile():
    e = make([["6-5", "3-1"], ["2-2", "4-0"]], lead="double")
    assert seat(e) == 1 and legal(e) == {e.game.play_action("2-2", 0)}


def test_double_lead_nobody_holds_a_double_the_hands_are_dealt_again():
    deal = [["6-5", "3-1"], ["5-4", "4-0"]]
    e = make(deal, lead="heaviest")
    assert legal(e) == {e.game.play_action("6-5", 0)} and e.kernel_state.redeals == 0
    e = make(deal, lead="double")
    st = e.kernel_state
    assert st.redeals >= 1
    assert sorted(t for h in st.hands for t in h) != sorted(parse_tiles(["6-5", "3-1", "5-4", "4-0"]))
    assert [len(h) for h in st.hands] == [7, 7] and len(st.boneyard) == 14
    assert sorted([t for h in st.hands for t in h] + st.boneyard) == list(range(28))
    (lead,) = legal(e)
    tile, slot = e.game.decode_play(lead)
    doubles = [t for h in st.hands for t in h if t in {parse_tile(f"{d}-{d}") for d in range(7)}]
    assert slot == 0 and tile == max(doubles)
    assert e.infos[e.agent_selection]["view"]["redeals"] == st.redeals


def test_double_lead_redeals_come_from_the_episode_generator():
    game = DominoesGame(lead="double", num_players=4, hand_size=1)
    redeals = []
    for seed in range(12):
        a, b = game.new_initial_state(seed=seed), game.new_initial_state(seed=seed)
        assert a.redeals == b.redeals and a.hands == b.hands and a.boneyard == b.boneyard
        assert any(t in DOUBLES for h in a.hands for t in h)
        redeals.append(a.redeals)
    assert max(redeals) > 0 and min(redeals) == 0


DOUBLES = {parse_tile(f"{d}-{d}") for d in range(7)}


# -- knocking ------------------------------------------------------------------------------------
KNOCK_DEAL = [["6-6", "6-3", "6-4"], ["2-1", "3-2"], ["5-5", "4-2"]]


def test_knock_skips_the_next_player_and_forces_a_scoring_play():
    e = make(KNOCK_DEAL, boneyard=["1-0", "6-1"], num_players=3, knocking=True, muggins="off")
    g = e.game
    play(e, "6-6", 0)
    assert seat(e) == 1 and legal(e) == {g.KNOCK, g.DRAW}  # no 6, the boneyard has tiles
    info = e.infos["player_1"]
    assert info["legal_moves"] == {g.KNOCK: "knock", g.DRAW: "draw"}
    obs = e.observe("player_1")["observation"]
    assert obs[offsets(g)["knock_choice"]] == 1
    e.step(g.KNOCK)
    # player 2 is skipped; player 0 must make a scoring play: 6-3 (12 + 3 = 15), not 6-4 (16)
    assert seat(e) == 0 and legal(e) == {g.play_action("6-3", 1), g.play_action("6-3", 2)}
    view = e.infos["player_0"]["view"]
    assert view["knock"] == {"knocker": 1, "skipped": 2, "forced": 0}
    obs = e.observe("player_0")["observation"]
    assert obs[offsets(g)["knocker"] + 1] == 1 and obs[offsets(g)["knock_choice"]] == 0
    assert e.kernel_state.drawn == [0, 0, 0]
    assert step_score(e, "6-3", 1) == (15, 15)
    # play goes on clockwise from the scorer: the skipped player lost the turn
    assert seat(e) == 1 and legal(e) == {g.play_action("3-2", 1)}
    assert e.kernel_state.last_knock == {"knocker": 1, "skipped": 2, "forced": 0, "scored": True}
    assert e.observe("player_0")["observation"][offsets(g)["knocker"]:offsets(g)["knocker"] + 3].sum() == 0


def test_knock_without_a_scoring_play_reverts_to_the_knocker_who_draws():
    deal = [["6-6", "6-4", "5-0"], ["2-1", "3-2"], ["5-5", "4-2"]]
    e = make(deal, boneyard=["1-0", "6-1"], num_players=3, knocking=True, muggins="off")
    g = e.game
    play(e, "6-6", 0)
    e.step(g.KNOCK)  # player 0 could play 6-4 (16) but has no scoring play
    st = e.kernel_state
    assert seat(e) == 1 and st.drawn == [0, 2, 0]  # the knocker drew 1-0, then 6-1, which plays
    assert legal(e) == {g.play_action("6-1", 1), g.play_action("6-1", 2)}
    assert st.last_knock == {"knocker": 1, "skipped": 2, "forced": 0, "scored": False}
    play(e, "6-1", 1)
    assert seat(e) == 2  # then the skipped player, and on clockwise


def test_drawing_without_knocking_is_always_allowed():
    e = make(KNOCK_DEAL, boneyard=["1-0", "6-1"], num_players=3, knocking=True, muggins="off")
    g = e.game
    play(e, "6-6", 0)
    e.step(g.DRAW)
    assert seat(e) == 1 and e.kernel_state.drawn == [0, 2, 0]
    assert legal(e) == {g.play_action("6-1", 1), g.play_action("6-1", 2)}
    play(e, "6-1", 2)
    assert seat(e) == 2


def test_knock_in_partnerships_the_partner_must_score():
    deal = [["6-6", "1-0"], ["2-1", "3-2"], ["5-5", "4-2"], ["6-3", "6-4"]]
    e = make(deal, boneyard=["1-1"], num_players=4, partnerships=True, knocking=True)
    g = e.game
    play(e, "6-6", 0, announce=0)
    assert seat(e) == 1 and legal(e) == {g.KNOCK, g.DRAW}
    e.step(g.KNOCK)
    assert seat(e) == 3 and legal(e) == {g.play_action("6-3", 1), g.play_action("6-3", 2)}
    play(e, "6-3", 2, announce=15)  # announced and reviewed by the other side as any play
    assert scores(e) == [0, 15] and seat(e) == 0


def test_no_knock_when_the_boneyard_is_down_to_the_reserve():
    e = make(KNOCK_DEAL, num_players=3, knocking=True, muggins="off", boneyard_reserve=21, hand_size=1)
    play(e, "6-6", 0)
    assert seat(e) == 1 and legal(e) == {e.game.PASS}


# -- the extra play --------------------------------------------------------------------------------
def test_extra_play_after_a_double_with_stop_and_no_second_extra():
    e = make([["5-5", "5-0", "4-1", "3-1"], ["6-2", "2-1", "6-1"]], extra_play=True, muggins="off")
    g = e.game
    assert step_score(e, "5-5", 0) == (10, 10)
    assert seat(e) == 0 and legal(e) == {g.play_action("5-0", 1), g.play_action("5-0", 2), g.STOP}
    assert e.infos["player_0"]["legal_moves"][g.STOP] == "stop (no extra play)"
    assert e.observe("player_0")["observation"][offsets(g)["extra"]] == 1
    assert e.infos["player_0"]["view"]["extra_play"] is True
    assert step_score(e, "5-0", 1) == (10, 10)  # scores, but the extra tile gives no further extra play
    assert seat(e) == 1 and e.observe("player_1")["observation"][offsets(g)["extra"]] == 0


def test_extra_play_may_be_declined():
    e = make([["5-5", "5-0", "4-1"], ["6-2", "5-1"]], extra_play=True, muggins="off")
    play(e, "5-5", 0)
    e.step(e.game.STOP)
    assert seat(e) == 1 and len(e.kernel_state.hands[0]) == 2


def test_extra_play_after_a_score_not_after_a_plain_play_and_never_the_last_tile():
    e = make([["6-6", "1-0", "3-3"], ["6-4", "4-1", "2-0"]], extra_play=True, muggins="off")
    g = e.game
    play(e, "6-6", 0)  # a double: extra play offered only if a tile fits (none: 1-0, 3-3)
    assert seat(e) == 1
    assert step_score(e, "6-4", 1) == (16, 0)  # neither a double nor a score: no extra
    assert seat(e) == 0
    e = make([["6-6", "6-5"], ["2-1", "3-0", "4-0"]], extra_play=True, muggins="off")
    play(e, "6-6", 0)  # seat 0 holds one tile: the extra play would be its last, so the turn passes
    assert seat(e) == 1 and e.kernel_state.hands[0] == [parse_tile("6-5")]
    e = make([["6-6", "3-0", "1-0"], ["6-3", "3-2", "4-1", "5-2"]], extra_play=True, muggins="off")
    play(e, "6-6", 0)
    assert step_score(e, "6-3", 1) == (15, 15)
    assert seat(e) == 1 and legal(e) == {g.play_action("3-2", 1), g.STOP}  # a score: seat 1 may play again


def test_extra_play_with_the_muggins_rule_each_play_is_announced_and_reviewed_first():
    e = make([["5-5", "5-0", "4-1", "3-1"], ["6-2", "2-1", "6-1"]], extra_play=True)
    g = e.game
    e.step(g.play_action("5-5", 0))
    assert e.kernel_state.phase_name() == "announce" and seat(e) == 0
    e.step(g.announce_action(10))
    assert e.kernel_state.phase_name() == "respond" and seat(e) == 1
    e.step(g.ACCEPT)
    assert e.kernel_state.phase_name() == "play" and seat(e) == 0 and g.STOP in legal(e)
    e.step(g.play_action("5-0", 1))
    assert e.kernel_state.phase_name() == "announce"
    e.step(g.announce_action(10))
    e.step(g.ACCEPT)
    assert scores(e) == [20, 0] and seat(e) == 1


def test_knock_and_extra_play_together_the_forced_scorer_may_play_again():
    deal = [["6-6", "6-4", "4-3", "3-1", "2-0"], ["2-1", "5-2"], ["5-5", "0-0"]]
    e = make(deal, boneyard=["1-0"], num_players=3, knocking=True, extra_play=True, muggins="off")
    g = e.game
    play(e, "6-6", 0)  # a double: seat 0 plays again
    assert seat(e) == 0 and g.STOP in legal(e)
    assert step_score(e, "6-4", 1) == (16, 0)  # the extra tile: no further extra play
    assert seat(e) == 1 and legal(e) == {g.KNOCK, g.DRAW}
    e.step(g.KNOCK)
    assert seat(e) == 0 and legal(e) == {g.play_action("4-3", 1)}  # 12 + 3 = 15; 6-3 would make 7
    assert step_score(e, "4-3", 1) == (15, 15)  # a score: an extra play (3-1 fits)
    assert seat(e) == 0 and legal(e) == {g.play_action("3-1", 1), g.STOP}
