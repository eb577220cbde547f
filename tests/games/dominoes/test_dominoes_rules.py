"""muggins_dominoes_v0 rules: every worked example of docs/rules/dominoes.md §2.6b through the env API with
rigged deals, the first-play rule, forced play, drawing, passing, blocked hands, bonuses,
partnerships, the target, the muggins rule (forfeit and claim), layouts and options."""

import numpy as np
import pytest

from muggins_env.games.dominoes import DominoesGame, bonus_points, round_to
from muggins_env.games.dominoes.layout import VARIANTS
from muggins_env.kernel.tiles import HALVES, num_tiles, parse_tile, parse_tiles
from muggins_env.muggins_dominoes_v0 import raw_env


def rig(hands, boneyard=(), set_max=6):
    """A deal with these hands; the boneyard starts with ``boneyard`` (top first) and holds
    the rest of the set after it, in id order."""
    hands = [parse_tiles(h, set_max) for h in hands]
    top = parse_tiles(list(boneyard), set_max)
    used = {t for h in hands for t in h} | set(top)
    rest = [t for t in range(num_tiles(set_max)) if t not in used]
    return {"hands": hands, "boneyard": top + rest}


def make(hands, boneyard=(), **opts):
    e = raw_env(readable_infos=True, **opts)  # the tests read the readable infos
    e.reset(seed=0, options={"deal": rig(hands, boneyard, opts.get("set_max", 6))})
    return e


def seat(e):
    return int(e.agent_selection.split("_")[1])


def legal(e):
    return set(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]).tolist())


def play(e, tile, slot, announce=None):
    """Play ``tile`` at ``slot``; with the muggins rule on, announce ``announce`` and let every
    opponent accept."""
    e.step(e.game.play_action(tile, slot))
    if e.kernel_state.phase_name() == "announce":
        e.step(e.game.announce_action(announce))
        while e.kernel_state.phase_name() == "respond":
            e.step(e.game.ACCEPT)


def offsets(game):
    """Where each named piece of the observation starts."""
    names = list(game.observation_layout)
    return {k: sum(game.observation_layout[x] for x in names[:i]) for i, k in enumerate(names)}


def count(e):
    return e.kernel_state.layout.count


def scores(e):
    return e.kernel_state.scores


# -- docs/rules/dominoes.md §2.6b worked examples ----------------------------------------------------------------
DOUBLE_IDS = {t for t, (hi, lo) in enumerate(HALVES) if hi == lo}
PIP_SUM = [hi + lo for hi, lo in HALVES]
HIGH = [hi for hi, _ in HALVES]
FILL0, FILL1 = ["3-2", "2-1"], ["3-1", "2-0"]  # tiles that never match the examples' ends


@pytest.mark.parametrize("muggins", ["off", "forfeit", "claim"])
def test_foster_line_example(muggins):
    e = make([["5-5", "0-0", "0-4"] + FILL0, ["5-0", "5-6"] + FILL1], muggins=muggins)
    steps = [  # (seat, tile, slot, count, score of the play)
        (0, "5-5", 0, 10, 10),  # set: 10
        (1, "5-0", 1, 10, 10),  # the 5-5 is still a crosswise double at an end: 10 + 0
        (0, "0-0", 1, 10, 10),  # crosswise on the 0 end: 10 + 0
        (1, "5-6", 2, 6, 0),  # on the 5-5: 6 + 0
        (0, "0-4", 1, 10, 10),  # on the 0-0: 6 + 4
    ]
    expected = [0, 0]
    for s, tile, slot, c, pts in steps:
        assert seat(e) == s
        play(e, tile, slot, announce=pts)
        expected[s] += pts
        assert count(e) == c
        assert scores(e) == expected


def test_largest_line_count_is_twenty_with_six_six_and_four_four_crosswise():
    e = make([["6-6", "4-4"] + FILL0, ["6-4", "3-1", "2-0"]], muggins="off")
    play(e, "6-6", 0)
    play(e, "6-4", 1)
    assert count(e) == 4 + 12
    play(e, "4-4", 1)  # crosswise on the 4: both ends are crosswise doubles
    assert count(e) == 8 + 12 and scores(e) == [20, 0]
    assert e.game.max_announcement == 20


def test_britannica_line_example_four_three_scores_five():
    # reach open ends 2 | 4: 6-6 lead, 6-2 on one side, 6-4 on the other (the 6-6 is covered)
    e = make([["6-6", "6-4", "3-1"], ["6-2", "4-3", "4-4"]], muggins="off")
    play(e, "6-6", 0)
    play(e, "6-2", 1)
    play(e, "6-4", 2)
    assert count(e) == 2 + 4
    before = scores(e)[1]
    play(e, "4-3", 2)
    assert count(e) == 2 + 3 and scores(e)[1] == before + 5


def test_britannica_line_example_four_four_crosswise_scores_ten():
    e = make([["6-6", "6-4", "3-1"], ["6-2", "4-3", "4-4"]], muggins="off")
    play(e, "6-6", 0)
    play(e, "6-2", 1)
    play(e, "6-4", 2)
    before = scores(e)[1]
    play(e, "4-4", 2)
    assert count(e) == 2 + 8 and scores(e)[1] == before + 10


SPINNER_HANDS = [["5-5", "5-4", "5-6", "3-2"], ["5-0", "5-1", "4-4", "2-2"]]
SPINNER_PLAYS = [("5-5", 0), ("5-0", 1), ("5-4", 2), ("5-1", 3), ("5-6", 4), ("4-4", 2)]


@pytest.mark.parametrize("variant,counts,points", [
    ("all_fives", [10, 10, 4, 5, 11, 15], [10, 10, 0, 5, 0, 15]),
    ("five_up", [10, 10, 4, 5, 11, 15], [2, 2, 0, 1, 0, 3]),
])
@pytest.mark.parametrize("muggins", ["off", "forfeit"])
def test_spinner_examples(variant, counts, points, muggins):
    e = make(SPINNER_HANDS, variant=variant, muggins=muggins)
    expected = [0, 0]
    for i, ((tile, slot), c, pts) in enumerate(zip(SPINNER_PLAYS, counts, points)):
        assert seat(e) == i % 2
        play(e, tile, slot, announce=pts)
        expected[i % 2] += pts
        assert count(e) == c, (tile, slot)
        assert scores(e) == expected


def test_all_fives_spinner_sides_before_ends_and_only_the_first_double_spins():
    e = make(SPINNER_HANDS, variant="all_fives", muggins="off")
    play(e, "5-5", 0)
    # only the sides (arms 1, 2) are open: 5-0 may not go on an end yet
    assert legal(e) == {e.game.play_action("5-0", 1), e.game.play_action("5-0", 2),
                        e.game.play_action("5-1", 1), e.game.play_action("5-1", 2)}
    play(e, "5-0", 1)
    play(e, "5-4", 2)
    ends = e.kernel_state.open_ends()
    assert [(x["slot"], x["pip"]) for x in ends] == [(1, 0), (2, 4), (3, 5), (4, 5)]
    play(e, "5-1", 3)
    play(e, "5-6", 4)
    play(e, "4-4", 2)
    ends = {x["slot"]: x for x in e.kernel_state.open_ends()}
    assert ends[2]["crosswise_double"] and not ends[2]["spinner"]  # the 4-4 does not spin in all_fives
    assert sorted(ends) == [1, 2, 3, 4]


def test_five_up_every_double_spins_and_opens_the_next_arms():
    e = make(SPINNER_HANDS, variant="five_up", muggins="off")
    for tile, slot in SPINNER_PLAYS:
        play(e, tile, slot)
    ends = {x["slot"]: x for x in e.kernel_state.open_ends()}
    assert ends[2]["spinner"] and ends[2]["spinner_counts"]  # 4-4 spins with a free side: counts 8
    assert 5 not in ends  # its ends (arms 5, 6) open only once its other side is covered
    assert e.game.num_slots == 2 * 6 + 5


def test_five_up_inner_spinner_ends_open_after_its_side_is_covered():
    e = make([["5-5", "5-4", "4-2", "3-1"], ["5-0", "4-4", "6-1", "1-0"]], variant="five_up", muggins="off")
    play(e, "5-5", 0)
    play(e, "5-0", 1)
    play(e, "5-4", 2)
    play(e, "4-4", 2)  # spinner on arm 2; reserves arms 5, 6 (the lead spinner has 3, 4)
    assert {x["slot"] for x in e.kernel_state.open_ends()} == {1, 2, 3, 4}
    assert count(e) == 0 + 8  # arm 1 open 0, the 4-4 counts 8 (the lead spinner is covered)
    play(e, "4-2", 2)  # covers its other side: it stops counting and its ends open
    ends = {x["slot"]: x["pip"] for x in e.kernel_state.open_ends()}
    assert ends == {1: 0, 2: 2, 3: 5, 4: 5, 5: 4, 6: 4}
    assert count(e) == 0 + 2
    assert e.game.play_action("1-0", 1) in legal(e)  # seat 1 has 1-0 for the 0 end


def test_sniff_example():
    e = make([["4-4", "1-4", "3-2"], ["6-4", "3-3", "2-2"]], variant="sniff", muggins="off")
    play(e, "4-4", 0)
    assert count(e) == 8 and scores(e) == [0, 0]
    play(e, "6-4", 1)
    assert count(e) == 4 + 4 + 6
    play(e, "1-4", 2)
    assert count(e) == 6 + 1 + 4 + 4 and scores(e) == [15, 0]


def test_sniff_an_arm_on_one_end_leaves_only_the_other_end_counting():
    e = make([["4-4", "1-4", "3-2"], ["6-4", "4-2", "3-3"]], variant="sniff", muggins="off")
    play(e, "4-4", 0)
    play(e, "6-4", 1)
    play(e, "1-4", 2)
    assert e.game.play_action("4-2", 3) in legal(e) and e.game.play_action("4-2", 4) in legal(e)
    play(e, "4-2", 3)
    assert count(e) == 6 + 1 + 2 + 4  # the covered end no longer counts, the other 4 does


def test_fives_and_threes_example():
    # nobody holds a double: 6-3 leads (weight 9, before 5-4 by the higher half); seat 1
    # cannot play, draws the 6-6 and must play it
    e = make([["6-3", "3-2", "4-0"], ["5-4", "2-1", "5-1"]], boneyard=["6-6"], variant="fives_and_threes",
             muggins="off")
    assert legal(e) == {e.game.play_action("6-3", 0)}
    play(e, "6-3", 0)
    assert count(e) == 9 and scores(e) == [3, 0]
    assert seat(e) == 1 and e.kernel_state.drawn == [0, 1]
    assert legal(e) == {e.game.play_action("6-6", 1)}
    play(e, "6-6", 1)
    assert count(e) == 12 + 3 and scores(e) == [3, 8]
    play(e, "3-2", 2)
    assert count(e) == 12 + 2 and scores(e) == [3, 8]


def test_end_of_hand_example_27_and_3_pips_score_25_plus_5():
    e = make([["6-6"], ["6-5", "6-4", "4-2"], ["2-1"]], num_players=3, muggins="off")
    play(e, "6-6", 0)  # 12: no score, and seat 0 has dominoed
    last = e.kernel_state.last_hand
    assert last["how"] == "domino" and last["seat"] == 0 and last["pips"] == [0, 27, 3]
    assert scores(e) == [30, 0, 0]
    assert e.kernel_state.hand_no == 2  # the game goes on with a new deal


@pytest.mark.parametrize("pips,rounded", [(2, 0), (3, 5), (27, 25), (28, 30), (0, 0), (5, 5), (12, 10), (13, 15)])
def test_bonus_rounding_to_the_nearest_five(pips, rounded):
    assert round_to(pips, 5) == rounded
    assert bonus_points(VARIANTS["muggins"], pips) == rounded
    assert bonus_points(VARIANTS["five_up"], pips) == rounded // 5
    assert bonus_points(VARIANTS["fives_and_threes"], pips) == rounded // 5


@pytest.mark.parametrize("pips,rounded", [(4, 3), (5, 6), (2, 3), (1, 0), (9, 9)])
def test_all_threes_rounds_to_the_nearest_three(pips, rounded):
    assert bonus_points(VARIANTS["all_threes"], pips) == rounded


@pytest.mark.parametrize("hand1,variant,bonus", [
    (["1-1"], "muggins", 0),  # 2 -> 0
    (["2-1"], "muggins", 5),  # 3 -> 5
    (["6-5", "6-4", "4-2"], "muggins", 25),  # 27 -> 25
    (["6-5", "6-4", "4-3"], "muggins", 30),  # 28 -> 30
    (["6-5", "6-4", "4-3"], "five_up", 6),  # 28 -> 30, one point per five
    (["6-5", "6-4", "4-3"], "fives_and_threes", 6),
    (["4-1"], "all_threes", 6),  # 5 -> 6
])
def test_domino_bonus_through_the_env(hand1, variant, bonus):
    e = make([["6-6"], hand1], variant=variant, muggins="off")
    play(e, "6-6", 0)
    assert e.kernel_state.last_hand["bonus"] == bonus
    lead_score = {"muggins": 0, "five_up": 0, "fives_and_threes": 4, "all_threes": 12}[variant]  # 12 counted
    assert scores(e) == [lead_score + bonus, 0]


# -- first play, forced play, drawing, passing, blocked hands ------------------------------------------
def test_first_play_highest_double_leads_and_play_goes_to_its_left():
    e = make([["6-5", "2-2", "4-1"], ["3-3", "6-4", "1-0"], ["5-4", "2-0", "1-1"]], num_players=3)
    assert seat(e) == 1
    assert legal(e) == {e.game.play_action("3-3", 0)}  # forced: one legal action
    play(e, "3-3", 0, announce=0)
    assert seat(e) == 2


def test_first_play_without_doubles_heaviest_tile_and_ties_by_high_half():
    e = make([["5-1", "4-0"], ["6-0", "3-1"]])
    assert seat(e) == 1 and legal(e) == {e.game.play_action("6-0", 0)}  # 6-0 before 5-1 (both 6)
    e = make([["5-4", "2-0"], ["6-2", "3-1"]])
    assert seat(e) == 0 and legal(e) == {e.game.play_action("5-4", 0)}  # 9 beats 8


def test_a_player_who_can_play_must_play_and_may_not_draw_or_pass():
    e = make([["6-6", "3-0"], ["6-1", "5-2", "2-0"]], muggins="off")
    play(e, "6-6", 0)
    assert legal(e) == {e.game.play_action("6-1", 1), e.game.play_action("6-1", 2)}
    assert e.kernel_state.drawn == [0, 0]


def test_drawing_until_a_playable_tile_which_must_then_be_played():
    e = make([["6-6", "3-0"], ["5-2", "2-0"]], boneyard=["4-1", "3-2", "6-5", "1-0"], muggins="off")
    play(e, "6-6", 0)
    st = e.kernel_state
    assert st.drawn == [0, 3] and sorted(st.hands[1]) == sorted(parse_tiles("5-2 2-0 4-1 3-2 6-5"))
    assert len(st.boneyard) == 28 - 2 - 2 - 3
    assert st.full_state()["boneyard"][0] == parse_tile("1-0")
    assert legal(e) == {e.game.play_action("6-5", 1), e.game.play_action("6-5", 2)}
    obs = e.observe("player_0")["observation"]
    assert obs[offsets(e.game)["drawn"] + 1] == pytest.approx(3 / 28)  # seat 1 is relative seat 1 for player 0


def test_boneyard_reserve_stops_drawing_and_the_player_passes():
    e = make([["6-6", "6-1", "3-0"], ["5-2", "2-0"]], boneyard=["4-1", "3-2", "6-5"], muggins="off",
             boneyard_reserve=20, hand_size=1)
    # 23 tiles in the boneyard, 20 reserved: seat 1 may draw 3, and the third (6-5) plays
    st = e.kernel_state
    assert len(st.boneyard) == 23 and e.game.reserve == 20
    play(e, "6-6", 0)
    assert st.drawn == [0, 3] and legal(e) == {e.game.play_action("6-5", 1), e.game.play_action("6-5", 2)}
    e = make([["6-6", "6-1", "3-0"], ["5-2", "2-0"]], boneyard=["4-1", "3-2", "6-5"], muggins="off",
             boneyard_reserve=21, hand_size=1)
    play(e, "6-6", 0)
    st = e.kernel_state
    assert st.drawn == [0, 2] and len(st.boneyard) == 21
    assert legal(e) == {e.game.PASS}  # cannot play, the boneyard is down to the reserve; seat 0 can play
    e.step(e.game.PASS)
    assert seat(e) == 0 and e.game.play_action("6-1", 1) in legal(e)


def test_pass_is_the_only_action_when_nothing_fits_and_the_boneyard_is_empty():
    e = make([["6-6", "6-2", "5-0"], ["3-0", "2-1"]], muggins="off", boneyard_reserve=23, hand_size=1)
    play(e, "6-6", 0)
    assert seat(e) == 1 and legal(e) == {e.game.PASS}
    e.step(e.game.PASS)
    play(e, "6-2", 1)
    assert seat(e) == 1 and legal(e) == {e.game.play_action("2-1", 1)}


def test_blocked_hand_lowest_pips_win_the_difference_rounded():
    # after the 6-6 nobody holds a 6 and the boneyard is reserved: blocked at once
    e = make([["6-6", "1-0"], ["3-0", "2-1"]], muggins="off", boneyard_reserve=24, hand_size=1)
    play(e, "6-6", 0)
    last = e.kernel_state.last_hand
    assert last["how"] == "blocked" and last["pips"] == [1, 6] and last["side"] == 0
    assert last["bonus"] == 5 and scores(e) == [5, 0]  # 6 - 1 = 5


def test_blocked_hand_exact_tie_scores_nothing():
    e = make([["6-6", "2-1"], ["3-0"]], muggins="off", boneyard_reserve=25, hand_size=1)
    play(e, "6-6", 0)
    last = e.kernel_state.last_hand
    assert last["how"] == "blocked" and last["pips"] == [3, 3] and last["side"] == -1
    assert scores(e) == [0, 0]


def test_blocked_hand_three_players_sum_of_opponents_minus_own():
    e = make([["6-6", "2-1"], ["4-4"], ["5-4"]], num_players=3, muggins="off", boneyard_reserve=24, hand_size=1)
    play(e, "6-6", 0)
    last = e.kernel_state.last_hand
    assert last["pips"] == [3, 8, 9] and last["side"] == 0
    assert last["bonus"] == 15 and scores(e) == [15, 0, 0]  # 8 + 9 - 3 = 14 -> 15


def test_blocked_hand_in_five_up_divides_by_five():
    e = make([["6-6", "1-0"], ["3-0", "4-3"]], variant="five_up", muggins="off", boneyard_reserve=24, hand_size=1)
    play(e, "6-6", 0)
    assert e.kernel_state.last_hand["bonus"] == 2  # 10 - 1 = 9 -> 10 -> 2


# -- partnerships, the target, episodes, rewards --------------------------------------------------------
def test_partners_hands_count_together_as_one_opponent():
    e = make([["6-6"], ["1-1", "0-0"], ["6-5"], ["1-0"]], num_players=4, partnerships=True, muggins="off")
    play(e, "6-6", 0)  # seat 0 dominoes; side 1 holds 2 + 0 (seat 1) and 1 (seat 3): 3 -> 5, not 0 + 0
    last = e.kernel_state.last_hand
    assert last["side"] == 0 and last["pips"] == [11, 3] and last["bonus"] == 5
    assert e.kernel_state.scores == [5, 0]
    view = e.infos[e.agent_selection]["view"]
    assert view["scores"] == [5, 0] and view["teams"] == [0, 1, 0, 1]


def test_partnership_scores_of_either_partner_go_to_the_shared_side_score():
    e = make([["5-5", "3-1"], ["5-2", "4-1"], ["2-0", "4-3"], ["3-3", "6-1"]], num_players=4,
             partnerships=True, muggins="off")
    play(e, "5-5", 0)  # seat 0: 10
    play(e, "5-2", 1)  # 2 + 10 = 12
    assert scores(e) == [10, 0]
    play(e, "2-0", 1)  # seat 2 (partner of seat 0): 0 + 10 = 10
    assert scores(e) == [20, 0]
    obs0 = e.observe("player_0")["observation"]
    obs2 = e.observe("player_2")["observation"]
    at = offsets(e.game)["scores"]
    assert obs0[at] == obs2[at] == pytest.approx(20 / 150) and obs0[at + 1] == obs2[at + 1] == 0


def test_the_game_ends_at_once_when_a_play_reaches_the_target():
    e = make([["5-5", "3-1"], ["5-0", "2-1"]], muggins="off", target=10)
    play(e, "5-5", 0)
    assert all(e.terminations.values()) and not any(e.truncations.values())
    assert e.rewards == {"player_0": 1.0, "player_1": -1.0}
    assert e.kernel_state.winners() == [0]


def test_the_game_ends_when_the_end_of_hand_bonus_reaches_the_target():
    e = make([["6-6"], ["6-5", "6-4", "4-2"]], muggins="off", target=25)
    play(e, "6-6", 0)
    assert all(e.terminations.values()) and scores(e) == [25, 0]
    assert e.rewards == {"player_0": 1.0, "player_1": -1.0}


def test_an_announcement_reaching_the_target_ends_the_game_only_once_settled():
    e = make([["5-5", "3-1"], ["5-0", "2-1"]], target=10)
    e.step(e.game.play_action("5-5", 0))
    e.step(e.game.announce_action(10))
    assert scores(e) == [10, 0] and not any(e.terminations.values())  # credited, under review
    e.step(e.game.ACCEPT)
    assert all(e.terminations.values()) and e.rewards["player_0"] == 1.0
    # a wrong announcement reaching the target is called and the game goes on
    e = make([["6-4", "3-1"], ["5-0", "2-1"]], target=10)
    e.step(e.game.play_action("6-4", 0))
    e.step(e.game.announce_action(15))
    e.step(e.game.MUGGINS)
    assert scores(e) == [0, 0] and not any(e.terminations.values())


def test_three_players_win_rewards_and_hand_episode():
    e = make([["6-6"], ["6-5", "6-4", "4-2"], ["2-1"]], num_players=3, muggins="off", episode="hand")
    play(e, "6-6", 0)
    assert all(e.terminations.values())
    assert e.rewards == pytest.approx({"player_0": 1.0, "player_1": -0.5, "player_2": -0.5})


def test_hand_episode_with_tied_scores_is_a_draw():
    e = make([["6-6", "2-1"], ["3-0"]], muggins="off", boneyard_reserve=25, hand_size=1, episode="hand")
    play(e, "6-6", 0)
    assert all(e.terminations.values()) and e.rewards == {"player_0": 0.0, "player_1": 0.0}


def test_max_hands_truncates_the_game_as_a_draw():
    e = make([["6-6"], ["2-1"]], muggins="off", max_hands=1)
    play(e, "6-6", 0)
    assert scores(e) == [5, 0]
    assert all(e.truncations.values()) and not any(e.terminations.values())
    assert e.rewards == {"player_0": 0.0, "player_1": 0.0}


def test_points_reward_is_the_score_difference_over_the_target():
    e = make([["5-5", "3-1"], ["5-0", "2-1"]], muggins="off", reward="points")
    play(e, "5-5", 0)
    assert e.rewards == pytest.approx({"player_0": 10 / 200, "player_1": -10 / 200})
    e = make([["5-5", "3-1"], ["5-0", "2-1"], ["4-0", "2-0"]], num_players=3, muggins="off", reward="points")
    play(e, "5-5", 0)
    assert e.rewards == pytest.approx({"player_0": 10 / 150, "player_1": -5 / 150, "player_2": -5 / 150})


def test_next_hand_is_dealt_from_the_episode_generator_and_led_by_the_first_play_rule():
    hands = []
    for seed in (0, 0, 1):
        e = raw_env(muggins="off")
        e.reset(seed=seed, options={"deal": rig([["6-6"], ["2-1"]])})
        play(e, "6-6", 0)
        st = e.kernel_state
        assert st.hand_no == 2 and st.plays == [] and [len(h) for h in st.hands] == [7, 7]
        assert len(st.boneyard) == 14
        doubles = [(t, s) for s, h in enumerate(st.hands) for t in h if t in DOUBLE_IDS]
        if doubles:
            tile, holder = max(doubles)  # double ids grow with the pip
        else:
            tile, holder = max((PIP_SUM[t], HIGH[t], t, s) for s, h in enumerate(st.hands) for t in h)[2:]
        assert seat(e) == holder and legal(e) == {e.game.play_action(tile, 0)}
        hands.append(st.hands)
    assert hands[0] == hands[1] and hands[0] != hands[2]


# -- the muggins rule ----------------------------------------------------------------------------------
def lead_55(**opts):
    """Seat 0 leads 5-5 (true score 10); the env waits for its announcement."""
    e = make([["5-5", "3-1"], ["5-0", "2-1"], ["4-0", "2-0"]][:opts.get("num_players", 2)], **opts)
    e.step(e.game.play_action("5-5", 0))
    assert e.kernel_state.phase_name() == "announce" and seat(e) == 0
    assert legal(e) == set(range(e.game.ANNOUNCE, e.game.ANNOUNCE + e.game.max_announcement + 1))
    return e


@pytest.mark.parametrize("muggins", ["forfeit", "claim"])
def test_correct_announcement_accepted_stands(muggins):
    e = lead_55(muggins=muggins)
    e.step(e.game.announce_action(10))
    assert scores(e) == [10, 0] and seat(e) == 1 and legal(e) == {e.game.ACCEPT, e.game.MUGGINS}
    e.step(e.game.ACCEPT)
    assert scores(e) == [10, 0]
    assert e.kernel_state.last_review == {"seat": 0, "announced": 10, "true_score": 10, "caller": -1,
                                          "founded": False}
    assert seat(e) == 1 and e.kernel_state.phase_name() == "play"


@pytest.mark.parametrize("muggins", ["forfeit", "claim"])
def test_false_call_on_a_correct_announcement_has_no_effect(muggins):
    e = lead_55(muggins=muggins)
    e.step(e.game.announce_action(10))
    e.step(e.game.MUGGINS)
    assert scores(e) == [10, 0]
    assert e.kernel_state.last_review["caller"] == 1 and not e.kernel_state.last_review["founded"]


@pytest.mark.parametrize("muggins", ["forfeit", "claim"])
def test_low_announcement_not_called_stands_even_if_wrong(muggins):
    e = lead_55(muggins=muggins)
    e.step(e.game.announce_action(5))
    e.step(e.game.ACCEPT)
    assert scores(e) == [5, 0]


def test_low_announcement_called_forfeit_takes_the_points_back():
    e = lead_55(muggins="forfeit")
    e.step(e.game.announce_action(5))
    assert scores(e) == [5, 0]  # credited at once
    e.step(e.game.MUGGINS)
    assert scores(e) == [0, 0] and e.kernel_state.last_review["founded"]


def test_low_announcement_called_claim_gives_the_caller_the_true_score():
    e = lead_55(muggins="claim")
    e.step(e.game.announce_action(5))
    e.step(e.game.MUGGINS)
    assert scores(e) == [0, 10]


def test_silence_on_a_scoring_play_called_with_claim():
    e = lead_55(muggins="claim")
    e.step(e.game.announce_action(0))
    e.step(e.game.MUGGINS)
    assert scores(e) == [0, 10]


def test_over_announcement_called_forfeit_and_claim():
    e = lead_55(muggins="forfeit")
    e.step(e.game.announce_action(15))
    e.step(e.game.MUGGINS)
    assert scores(e) == [0, 0]
    e = lead_55(muggins="claim")
    e.step(e.game.announce_action(15))
    e.step(e.game.MUGGINS)
    assert scores(e) == [0, 10]


def test_responders_are_asked_clockwise_and_the_first_call_settles():
    e = lead_55(muggins="claim", num_players=3)
    e.step(e.game.announce_action(5))
    assert seat(e) == 1
    e.step(e.game.ACCEPT)
    assert seat(e) == 2 and e.kernel_state.phase_name() == "respond"
    e.step(e.game.MUGGINS)
    assert scores(e) == [0, 0, 10]
    assert e.kernel_state.phase_name() == "play" and seat(e) == 1


def test_in_partnerships_only_the_other_side_responds():
    e = make([["5-5", "3-1"], ["2-2", "2-1"], ["5-0", "4-1"], ["3-3", "3-2"]], num_players=4,
             partnerships=True)
    e.step(e.game.play_action("5-5", 0))
    e.step(e.game.announce_action(10))
    assert seat(e) == 1
    e.step(e.game.ACCEPT)
    assert seat(e) == 3  # seat 2 is the partner: not asked
    e.step(e.game.ACCEPT)
    assert e.kernel_state.phase_name() == "play" and seat(e) == 1


def test_muggins_off_credits_the_true_score_without_announcement():
    e = make([["5-5", "3-1"], ["5-0", "2-1"]], muggins="off")
    e.step(e.game.play_action("5-5", 0))
    assert scores(e) == [10, 0] and e.kernel_state.phase_name() == "play" and seat(e) == 1


def test_observation_shows_the_announcement_under_review_and_the_count():
    e = lead_55(muggins="forfeit")
    e.step(e.game.announce_action(7))
    g = e.game
    o = g.observation_layout
    at = offsets(g)
    obs = e.observe("player_1")["observation"]
    assert obs[at["announcement"] + 7] == 1 and obs[at["announcement"]:at["announcement"] + o["announcement"]].sum() == 1
    assert obs[at["count"]] == pytest.approx(10 / g.max_count)
    assert obs[at["phase"] + 2] == 1  # respond
    assert obs[at["scores"]] == 0 and obs[at["scores"] + 1] == pytest.approx(7 / 200)  # own side first
    view = e.infos["player_1"]["view"]
    assert view["review"] == {"seat": 0, "announced": 7, "responders": [1], "asking": 0}
    assert "true_score" not in repr(view["review"])


# -- options ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("opts,match", [
    ({"num_players": 5}, "num_players"),
    ({"num_players": 2, "partnerships": True}, "partnerships"),
    ({"num_players": 3, "partnerships": True}, "partnerships"),
    ({"variant": "draw"}, "variant"),
    ({"set_max": 7}, "set_max"),
    ({"hand_size": 0}, "hand_size"),
    ({"hand_size": 15}, "hand_size"),
    ({"num_players": 4, "hand_size": 7, "boneyard_reserve": 1}, "boneyard_reserve"),
    ({"boneyard_reserve": -1}, "boneyard_reserve"),
    ({"muggins": "on"}, "muggins"),
    ({"target": 0}, "target"),
    ({"target": "200"}, "target"),
    ({"episode": "match"}, "episode"),
    ({"reward": "score"}, "reward"),
    ({"max_hands": 0}, "max_hands"),
    ({"partnership": True}, "partnership"),
])
def test_invalid_options_raise_naming_them(opts, match):
    with pytest.raises(ValueError, match=match):
        raw_env(**opts)


@pytest.mark.parametrize("variant,n,target", [
    ("muggins", 2, 200), ("muggins", 3, 150), ("muggins", 4, 150), ("all_threes", 2, 200),
    ("all_fives", 4, 150), ("sniff", 2, 200), ("fives_and_threes", 2, 61), ("five_up", 4, 61),
])
def test_default_targets_and_hand_sizes(variant, n, target):
    g = DominoesGame(variant=variant, num_players=n)
    assert g.target == target and g.hand_size == (5 if n == 4 else 7)


@pytest.mark.parametrize("set_max,tiles", [(6, 28), (9, 55), (12, 91), (15, 136)])
def test_action_space_per_set_is_bounded(set_max, tiles):
    for variant, slots in (("muggins", 3), ("sniff", 5), ("five_up", 2 * set_max + 5)):
        g = DominoesGame(variant=variant, set_max=set_max)
        assert g.num_tiles == tiles and g.num_slots == slots
        assert g.PASS == tiles * slots
        assert g.num_actions == tiles * slots + g.max_announcement + 4 <= 5000
        assert g.MUGGINS == g.num_actions - 1 and g.ACCEPT == g.num_actions - 2


def test_max_announcement_per_variant_double_six():
    """all_threes: 18, not 21 (no line count is 21: two ends, each a pip or a crosswise double;
    issue 16.7); five_up: 15, not 21 (no layout counts more than 75); the exact ranges of every
    configuration are in test_dominoes_counts.py."""
    expected = {"muggins": 20, "all_threes": 18, "fives_and_threes": 8, "all_fives": 35, "sniff": 35,
                "five_up": 15}
    for variant, m in expected.items():
        assert DominoesGame(variant=variant).max_announcement == m


@pytest.mark.parametrize("deal,match", [
    ({"hands": [["6-6"]]}, "2 lists"),
    ({"hands": [["6-6"], []], "boneyard": []}, "empty"),
    ({"hands": [["6-6"], ["6-6"]]}, "twice"),
    ({"hands": [["6-6"], ["5-5"]], "boneyard": []}, "missing"),
    ({"hands": [["6-7"], ["5-5"]]}, "6-7"),
    ({"hands": [["6-6"], ["5-5"]], "dealer": 0}, "dealer"),
    ({"boneyard": []}, "hands"),
    ("6-6", "dict"),
])
def test_invalid_deals_raise_naming_the_problem(deal, match):
    e = raw_env()
    with pytest.raises(ValueError, match=match):
        e.reset(seed=0, options={"deal": deal})


def test_rigged_deal_accepts_ids_and_both_notations():
    e = raw_env()
    hands = [[parse_tile("6-6"), "5:4"], ["4-5"]]
    with pytest.raises(ValueError, match="twice"):
        e.reset(seed=0, options={"deal": {"hands": hands, "boneyard": []}})
    rest = [t for t in range(28) if t not in (parse_tile("6-6"), parse_tile("5-4"), parse_tile("3-1"))]
    e.reset(seed=0, options={"deal": {"hands": [[27, "5:4"], ["1-3"]], "boneyard": rest}})
    assert e.kernel_state.hands == [[27, parse_tile("5-4")], [parse_tile("3-1")]]
    assert e.kernel_state.full_state()["boneyard"] == rest
