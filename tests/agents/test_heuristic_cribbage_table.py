"""``heuristic:value=table`` (issue 47 item 2): the cribbage heuristic that weighs the chance to win.

- the spec: ``heuristic`` takes nothing or ``value=points|table``, clear errors otherwise; the
  table player is named apart (``heuristic:value=table``); games and configurations without a
  table refuse it, naming those that have one;
- ``heuristic`` (and ``heuristic:value=points``) is exactly today's player: seeded games give the
  digests the code before this change gave;
- ``race_chance`` (the deal raced to the target in scoring order) against a plain enumeration;
- constructed boards where weighing the chance to win must choose differently from points, and
  obviously rightly: a safe play that keeps a won show, a lay-away that guarantees the points
  the pone needs, pegging out;
- legal moves in every configuration with a table (2 and 4 players, muggins on and off, 121 and 61).
"""

from __future__ import annotations

import hashlib
import itertools

import numpy as np
import pytest
from muggins_env.agents import make_agent, make_game, parse_spec
from muggins_env.agents.heuristic_cribbage import CribbageHeuristic
from muggins_env.agents.heuristic_cribbage_table import CribbageTableHeuristic
from muggins_env.agents.position_values import deal_points, dealer_table, race_chance
from muggins_env.eval.cli import main as eval_main

from muggins_env.games.cribbage.scoring import fast_score
from muggins_env.kernel.cards import parse_card, parse_cards

STANDARD = {"num_players": 2, "muggins": False}


# -- the spec ------------------------------------------------------------------------------------
def test_spec_takes_value_points_or_table_only():
    assert parse_spec("heuristic") == ("heuristic", "", {})
    assert parse_spec("heuristic:value=table") == ("heuristic", "", {"value": "table"})
    assert parse_spec("heuristic:value=points") == ("heuristic", "", {"value": "points"})
    for bad in ("heuristic:value=best", "heuristic:5", "heuristic:depth=2", "heuristic:value=table,z=1"):
        with pytest.raises(ValueError, match=r"value=points\|table"):
            parse_spec(bad)


def test_the_table_player_is_named_apart_and_the_plain_one_is_unchanged():
    table = make_agent("heuristic:value=table", "cribbage_v0", STANDARD)
    assert type(table) is CribbageTableHeuristic and table.name == "heuristic:value=table"
    for spec in ("heuristic", "heuristic:value=points"):
        plain = make_agent(spec, "cribbage_v0", STANDARD)
        assert type(plain) is CribbageHeuristic and plain.name == "heuristic"


@pytest.mark.parametrize("game_id", ["michigan_v0", "muggins_cards_v0", "muggins_dominoes_v0"])
def test_games_without_a_table_heuristic_refuse_it_naming_cribbage(game_id):
    with pytest.raises(ValueError, match=rf"exist for cribbage_v0 only \(not {game_id}\)"):
        make_agent("heuristic:value=table", game_id)


@pytest.mark.parametrize(("opts", "named"), [({"num_players": 3}, "3 players"),
                                             ({"lowball": True, "muggins": False}, "lowball")])
def test_cribbage_configurations_without_a_table_refuse_it(opts, named):
    with pytest.raises(ValueError, match=rf"heuristic:value=table.*{named}.*tables exist for 2 players and 4"):
        make_agent("heuristic:value=table", "cribbage_v0", opts)


def test_list_agents_names_the_table_heuristic(capsys):
    assert eval_main(["--list-agents"]) == 0
    assert "heuristic:value=table" in capsys.readouterr().out


# -- the plain heuristic is today's ---------------------------------------------------------------
#: sha256 (first 16 hex digits) of every action of 3 seeded games (seeds 470-472, generator seed j),
#: through ``act`` on the view and through ``act_on_state``, and the number of actions: computed with
#: the code before ``heuristic:value=table`` existed (commit 6595bf5)
PLAIN_DIGESTS = [
    ({"num_players": 2, "muggins": False}, "9b7a6d41bcea83d9", 312),
    ({"num_players": 2}, "f356833cd6f257f4", 447),
    ({"num_players": 4, "target": 61}, "2ef743422795493d", 340),
    ({"num_players": 3}, "89e7ccfd7a14fd66", 937),
    ({"num_players": 2, "lowball": True, "muggins": False}, "80ff3bd8c1a464fe", 587),
]


@pytest.mark.parametrize(("opts", "digest", "moves"), PLAIN_DIGESTS)
@pytest.mark.parametrize("spec", ["heuristic", "heuristic:value=points"])
@pytest.mark.parametrize("path", ["act", "state"])
def test_plain_heuristic_plays_as_before(opts, digest, moves, spec, path):
    game = make_game("cribbage_v0", opts)
    agent = make_agent(spec, "cribbage_v0", opts)
    actions = []
    for j in range(3):
        state = game.new_initial_state(seed=470 + j)
        rng = np.random.default_rng(j)
        while not state.is_terminal():
            if path == "act":
                p = state.current_player()
                a = agent.act(None, state.legal_actions_mask(), rng, {"view": state.public_view(p)})
            else:
                a = agent.act_on_state(state, rng)
            actions.append(a)
            state.apply(a)
    assert (hashlib.sha256(np.array(actions, np.int16).tobytes()).hexdigest()[:16], len(actions)) == (digest, moves)


# -- the race through a deal ----------------------------------------------------------------------
def _enumerated(start_gain, events, need, end):
    """The own side's chance by enumerating every outcome of the events in order."""
    total = 0.0
    supports = [[(z, p) for z, p in enumerate(q) if p] for _, q in events]
    for outcome in itertools.product(*supports):
        chance = float(np.prod([p for _, p in outcome]))
        gains = list(start_gain)
        result = None
        for (side, _), (z, _) in zip(events, outcome):
            gains[side] += z
            if gains[side] >= need[side]:
                result = 1.0 if side == 0 else 0.0
                break
        total += chance * (result if result is not None else end[gains[0], gains[1]])
    return total


def test_race_chance_matches_an_enumeration():
    rng = np.random.default_rng(5)
    need = (9, 7)
    end = rng.random(need)
    events = []
    for side in (1, 0, 1, 0, 0):
        q = rng.random(rng.integers(2, 6))
        q[rng.random(len(q)) < 0.3] = 0.0
        q[0] += 0.1
        events.append((side, q / q.sum()))
    starts = [(0, 0), (3, 1), (8, 6)]
    grid = np.zeros((len(starts), 9, 7))
    for k, (i, j) in enumerate(starts):
        grid[k, i, j] = 1.0
    got = race_chance(grid, events, need, end)
    want = [_enumerated(s, events, need, end) for s in starts]
    assert got == pytest.approx(want, abs=1e-12)


def test_race_chance_takes_per_alternative_events_and_the_won_share():
    need = (3, 3)
    end = np.full(need, 0.25)
    own = np.array([[1.0, 0, 0, 0], [0, 0, 0, 1.0]])  # nothing, or the three points it lacks
    start = np.zeros((2, 1, 1))
    start[:, 0, 0] = 0.5
    got = race_chance(start, [(0, own)], need, end, won=np.array([0.5, 0.5]))
    assert got == pytest.approx([0.5 + 0.5 * 0.25, 1.0])
    with pytest.raises(ValueError, match="below the needs"):
        race_chance(np.ones((1, 4, 1)), [], need, end)


def test_deal_points_are_distributions_with_the_documented_means():
    pts = deal_points(2)
    for v in pts.values():
        assert v.shape == (30,) and v.min() >= 0 and v.sum() == pytest.approx(1.0)
    mean = {k: float(v @ np.arange(30)) for k, v in pts.items()}
    # docs/results.md (400,000 deals): dealer play 3.23 + heels 0.15, pone 2.01, hands 7.99 / 8.12, crib 4.75
    assert mean["peg_dealer"] == pytest.approx(3.38, abs=0.1) and mean["peg_pone"] == pytest.approx(2.01, abs=0.1)
    assert mean["hand_0"] == pytest.approx(7.99, abs=0.15) and mean["hand_1"] == pytest.approx(8.12, abs=0.15)
    assert mean["crib"] == pytest.approx(4.75, abs=0.15)
    assert set(deal_points(4)) == {"peg_dealer", "peg_pone", "crib", "hand_0", "hand_1", "hand_2", "hand_3"}


# -- boards where the chance to win decides ---------------------------------------------------------
def _view(**kw):
    view = {"seat": 1, "dealer": 0, "teams": [0, 1], "target": 121, "crib_discards": [], "lay_away": 2,
            "starter": None, "play": [], "series": [], "count": 0, "gone": [], "review": None, "shown": [],
            "previous_deal_shown": []}
    view.update(kw)
    view["team"] = view["teams"][view["seat"]]
    return view


def _agents():
    return (make_agent("heuristic:value=table", "cribbage_v0", STANDARD),
            make_agent("heuristic", "cribbage_v0", STANDARD))


def test_pone_whose_show_wins_takes_the_safe_play_over_the_fifteen():
    """The pone (seat 1) at 118 holds 6♠ K♠ 5♥ 5♦ with the starter K♥: its hand counts 12, and the
    pone counts first, so it wins unless the dealer (at 119) pegs the 2 points it lacks first. The
    dealer led 9♣. The 6 makes fifteen for 2 (the pone to 120, not out) but any 6 the dealer holds
    pairs it for the 2 that win the dealer the game; the K answers to nothing (every other king is
    seen: the starter and the pone's crib cards; 19 leaves no fifteen, no 31, no run). Points say the
    6; the chance to win says the K."""
    table, plain = _agents()
    hand = parse_cards("6S KS 5H 5D")
    starter = parse_card("KH")
    assert fast_score(hand, starter, False) == 12
    nine = parse_card("9C")
    view = _view(phase="play", scores=[119, 118], hand=sorted(hand), crib_discards=parse_cards("KD KC"),
                 starter=starter, play=[(0, nine)], series=[nine], count=9, hand_sizes=[3, 4])
    legal = np.array(sorted(hand))
    assert plain.choose(view, legal, np.random.default_rng(0)) == parse_card("6S")
    assert table.choose(view, legal, np.random.default_rng(0)) == parse_card("KS")
    ranked = table.play_ranking(view, legal)
    assert ranked[0][0] == pytest.approx(1.0) and ranked[1][0] < 0.9  # the 6 loses to any 6 held
    # far from the target the same board is worth points: both take the fifteen
    far = dict(view, scores=[40, 38])
    assert table.choose(far, legal, np.random.default_rng(0)) == parse_card("6S")


def test_pegs_out_when_it_can():
    """The pone at 119 needs 2: the 5 on the dealer's 10 makes fifteen and wins now, whatever the
    other cards offer (the plain heuristic takes it too: a requirement, not a difference)."""
    table, _ = _agents()
    ten = parse_card("10C")
    for hand in (parse_cards("5S 9D 9H 2C"), parse_cards("5S KD 4H 4C")):
        view = _view(phase="play", scores=[100, 119], hand=sorted(hand), crib_discards=parse_cards("AC AD"),
                     starter=parse_card("QH"), play=[(0, ten)], series=[ten], count=10, hand_sizes=[3, 4])
        assert table.choose(view, np.array(sorted(hand)), np.random.default_rng(0)) == parse_card("5S")


def test_pone_lacking_four_keeps_the_two_pairs_that_guarantee_them():
    """The pone (seat 1) at 117 lacks 4; the dealer at 100 lacks 21, more than any play gives, and
    the pone's hand is counted before the dealer's: a hand that scores 4 with every starter wins the
    game (whatever the crib). From 3♣ 3♦ 10♦ K♦ K♥ J♠ the two pairs (3♣ 3♦ K♦ K♥) do; the plain
    heuristic's keep (3♣ 3♦ K♦ J♠: more points on average, fewer given to the dealer's crib) does
    not. Checked with the game's scorer over every starter the pone has not seen."""
    table, plain = _agents()
    cards = parse_cards("3C 3D 10D KD KH JS")
    view = _view(phase="discard", scores=[100, 117], hand=sorted(cards), hand_sizes=[6, 6])

    def kept(agent):
        v = dict(view)
        first = agent.choose(v, np.array(v["hand"]), np.random.default_rng(1))
        v = dict(v, hand=[c for c in v["hand"] if c != first], crib_discards=[first], hand_sizes=[6, 5])
        second = agent.choose(v, np.array(v["hand"]), np.random.default_rng(2))
        return [c for c in cards if c not in (first, second)]

    def fewest(keep):
        return min(fast_score(keep, s, False) for s in range(52) if s not in cards)

    assert sorted(kept(table)) == sorted(parse_cards("3C 3D KD KH")) and fewest(kept(table)) >= 4
    assert fewest(kept(plain)) < 4


# -- legal in every configuration with a table ------------------------------------------------------
@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("muggins", [True, False])
@pytest.mark.parametrize("target", [121, 61])
def test_masks_respected_in_every_configuration_with_a_table(players, muggins, target):
    opts = {"num_players": players, "muggins": muggins, "target": target}
    game = make_game("cribbage_v0", opts)
    table = make_agent("heuristic:value=table", "cribbage_v0", opts)
    plain = make_agent("heuristic", "cribbage_v0", opts)
    assert table.table is dealer_table(players, target, muggins)
    for j in range(2):
        state = game.new_initial_state(seed=4700 + j)
        rng = np.random.default_rng(j)
        asked = 0
        while not state.is_terminal():
            p = state.current_player()
            mask = state.legal_actions_mask()
            agent = table if game.teams[p] == j % 2 else plain
            view = state.public_view(p)
            a = agent.act(None, mask.copy(), rng, {"view": view})
            assert mask[a] == 1, f"chose illegal {a}:\n{state.render()}"
            if agent is table and mask.sum() > 1:
                asked += 1
                assert table.explain(view, np.flatnonzero(mask), a)
            state.apply(a)
        assert asked > 10


def test_the_answer_is_the_partners_when_both_opponents_are_out_of_the_series():
    view = {"seat": 0, "teams": [0, 1, 0, 1], "hand_sizes": [2, 1, 2, 1], "gone": []}
    assert CribbageTableHeuristic.next_side(view) == 1
    assert CribbageTableHeuristic.next_side(dict(view, gone=[1, 3])) == 0  # seat 2, the partner, answers
    assert CribbageTableHeuristic.next_side(dict(view, gone=[1], hand_sizes=[2, 1, 0, 1])) == 1  # seat 3
    # nobody to answer (two players, the other out): counted as the other side's, as the plain penalty is
    assert CribbageTableHeuristic.next_side({"seat": 1, "teams": [0, 1], "hand_sizes": [1, 2], "gone": [0]}) == 1
