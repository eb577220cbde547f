"""Cribbage position values (issue 47, item 1) and the search that values rollouts by them (item 2).

- ``solve_race`` against a plain recursion over the same deals (an independent implementation:
  it walks each deal's events in order and recurses with the sides swapped), and against a race
  with a closed form;
- the shipped tables: every configuration loads, values in [0, 1], rising in the dealer's own
  score and falling in the other side's (exactly: a fixed distribution of deals and more points
  for a side can only bring its crossing earlier, deal by deal), ``win_chance`` from either side,
  at a reached target, and its errors;
- the recorder's events add up to the deal's points and come in the game's order;
- ``search:N,value=table``: named apart from ``search:N``, legal in every configuration with a
  table, a clear error elsewhere.
"""

from __future__ import annotations

import sys
from functools import cache

import numpy as np
import pytest
from muggins_env.agents import make_agent, make_game
from muggins_env.agents.position_values import (
    DOMINOES_TARGETS,
    PLAYERS,
    TARGETS,
    DealEvents,
    dealer_table,
    dominoes_table,
    solve_race,
    table_info,
    win_chance,
)

from tests import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
from position_values import CRIB, HAND, HEELS, PLAY, deal_events, make_player
from position_values_dominoes import BONUS, hand_events

CONFIGS = [(n, t, m) for n in PLAYERS for t in TARGETS for m in (True, False)]


def _events(deals):
    side, points, start = [], [], [0]
    for ev in deals:
        for s, p in ev:
            side.append(s)
            points.append(p)
        start.append(len(points))
    return DealEvents(side, points, start)


def _recursion(deals, target):
    @cache
    def v(d, p):
        total = 0.0
        for ev in deals:
            score = [d, p]
            result = None
            for s, x in ev:
                score[s] += x
                if score[s] >= target:
                    result = 1.0 if s == 0 else 0.0
                    break
            total += result if result is not None else 1.0 - v(score[1], score[0])
        return total / len(deals)

    return v


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_solve_race_matches_a_plain_recursion(seed):
    rng = np.random.default_rng(seed)
    deals = [[(int(rng.integers(2)), int(rng.integers(1, 6))) for _ in range(rng.integers(1, 5))]
             for _ in range(9)]
    target = 17
    v = solve_race(_events(deals), target)
    ref = _recursion(tuple(map(tuple, deals)), target)
    assert v.shape == (target, target)
    for d in range(target):
        for p in range(target):
            assert v[d, p] == pytest.approx(ref(d, p), abs=1e-12)


def _recursion_same_roles(deals, target):
    """Every deal for side 0 as recorded; a deal that scores nothing comes back (solved out)."""
    scoring = [ev for ev in deals if ev]
    stay = (len(deals) - len(scoring)) / len(deals)

    @cache
    def v(a, b):
        total = 0.0
        for ev in scoring:
            score = [a, b]
            result = None
            for s, x in ev:
                score[s] += x
                if score[s] >= target:
                    result = 1.0 if s == 0 else 0.0
                    break
            total += result if result is not None else v(score[0], score[1])
        return total / len(deals) / (1.0 - stay)

    return v


@pytest.mark.parametrize("seed", [0, 1])
def test_solve_race_without_alternating_roles_matches_a_plain_recursion(seed):
    rng = np.random.default_rng(seed)
    deals = [[(int(rng.integers(2)), int(rng.integers(1, 6))) for _ in range(rng.integers(0, 4))]
             for _ in range(9)]
    deals[0] = []  # a deal that scores nothing
    target = 15
    v = solve_race(_events(deals), target, alternate=False)
    ref = _recursion_same_roles(tuple(map(tuple, deals)), target)
    for a in range(target):
        for b in range(target):
            assert v[a, b] == pytest.approx(ref(a, b), abs=1e-12)
    # with every deal recorded from both sides the race is fair: V[a, b] + V[b, a] = 1
    both = deals + [[(1 - s, x) for s, x in ev] for ev in deals]
    w = solve_race(_events(both), target, alternate=False)
    assert np.allclose(w + w.T, 1.0)


def test_the_order_within_a_deal_decides():
    # one deal: the pone pegs 2, then the dealer 3: at 8-9 to 10 the pone gets there first
    v = solve_race(_events([[(1, 2), (0, 3)]]), 10)
    assert v[8, 9] == 0.0 and v[8, 7] == 1.0  # (at 8-7 the pone reaches 9 only: the dealer's 11 wins)
    # the same points the other way round: the dealer first
    assert solve_race(_events([[(0, 3), (1, 2)]]), 10)[8, 9] == 1.0


def test_a_race_with_a_closed_form():
    # every deal: the dealer's side scores 1, nothing else. From (d, p) the sides alternate
    # scoring one point a deal, the dealer first: the dealer wins iff it needs no more than the pone
    target = 12
    v = solve_race(_events([[(0, 1)]]), target)
    d, p = np.meshgrid(np.arange(target), np.arange(target), indexing="ij")
    assert np.array_equal(v, (target - d <= target - p).astype(float))


def test_deal_events_reject_bad_records():
    with pytest.raises(ValueError, match="positive"):
        DealEvents([0], [0], [0, 1])
    with pytest.raises(ValueError, match="start"):
        DealEvents([0, 1], [1, 2], [0, 1])
    with pytest.raises(ValueError, match="no point"):
        solve_race(DealEvents([0], [1], [0, 1, 1]), 5)
    with pytest.raises(ValueError, match="no point"):
        solve_race(DealEvents([], [], [0, 0]), 5, alternate=False)


@pytest.mark.parametrize("num_players, target, muggins", CONFIGS)
def test_shipped_tables_are_consistent(num_players, target, muggins):
    v = dealer_table(num_players, target, muggins)
    assert v.shape == (target, target) and v.dtype == np.float32 and not v.flags.writeable
    assert np.all((v >= 0) & (v <= 1))
    # exactly monotone (float32 rounding aside): more of one's own points never hurts
    assert np.all(np.diff(v, axis=0) >= -1e-6), "the dealer's chance falls as its score rises"
    assert np.all(np.diff(v, axis=1) <= 1e-6), "the dealer's chance rises with the other side's score"
    # one point short against a far-behind side: the dealer wins (the last card alone is a point)
    assert v[target - 1, 0] > 0.99 and v[0, target - 1] < 0.2
    # the first dealer is ahead at 0-0 (published: 55.5%-56% between equal players)
    assert 0.5 < v[0, 0] < 0.6


def test_win_chance_reads_the_table_from_either_side():
    v = dealer_table(2, 121, False)
    assert win_chance([30, 50], 0, muggins=False) == pytest.approx([v[30, 50], 1 - v[30, 50]])
    assert win_chance([30, 50], 1, muggins=False) == pytest.approx([1 - v[50, 30], v[50, 30]])
    assert sum(win_chance([100, 7], 1, num_players=4, target=121)) == pytest.approx(1.0)
    assert win_chance([121, 80], 1, muggins=False) == [1.0, 0.0]  # a side at the target has won
    assert win_chance([40, 61], 0, target=61) == [0.0, 1.0]


@pytest.mark.parametrize("bad, match", [
    ({"scores": [1, 2, 3], "dealer_side": 0}, "two sides"),
    ({"scores": [1, 2], "dealer_side": 2}, "dealer side 0 or 1"),
    ({"scores": [-1, 2], "dealer_side": 0}, ">= 0"),
    ({"scores": [121, 121], "dealer_side": 0}, "both sides"),
    ({"scores": [1, 2], "dealer_side": 0, "num_players": 3}, "num_players=3"),
    ({"scores": [1, 2], "dealer_side": 0, "target": 100}, "target=100"),
])
def test_win_chance_errors_name_the_value(bad, match):
    with pytest.raises(ValueError, match=match):
        win_chance(**bad)


def test_table_info_says_how_each_table_was_made():
    info = table_info()
    for n in PLAYERS:
        for m in (True, False):
            rec = info[f"p{n}_{'muggins' if m else 'standard'}"]
            assert rec["players"] == n and rec["muggins"] is m and rec["player"] == "heuristic"
            assert rec["deals"] > 0 and isinstance(rec["seed"], int)


@pytest.mark.parametrize("num_players, muggins", [(2, True), (2, False), (4, True), (4, False)])
def test_recorded_events_add_up_in_the_games_order(num_players, muggins):
    opts = {"num_players": num_players, "muggins": muggins}
    game = make_game("cribbage_v0", opts)
    heuristic = make_agent("heuristic", "cribbage_v0", opts)
    for seed in range(4):
        state = game.new_initial_state(seed=seed)
        dealer_side = game.teams[state.dealer]
        ev = deal_events(state, heuristic, np.random.default_rng(seed))
        assert state.deals == 2  # played to the next deal's start
        totals = [0, 0]
        for side, points, _ in ev:
            totals[side] += points
        assert totals == [state.scores[dealer_side], state.scores[1 - dealer_side]]
        kinds = [k for _, _, k in ev]
        # heels first, then the play, the hands, the crib (each once at most: a 0 scores no event)
        order = [HEELS, PLAY, HAND, CRIB]
        assert kinds == sorted(kinds, key=order.index)
        assert kinds.count(HEELS) <= 1 and kinds.count(CRIB) <= 1 and kinds.count(HAND) <= num_players
        assert PLAY in kinds  # the last card (or a 31) always pegs
        crib = [p for s, p, k in ev if k == CRIB]
        assert all(s == 0 for s, _, k in ev if k in (HEELS, CRIB))  # the dealer's side's
        assert crib == [rv["true"] for rv in state.previous_shown if rv["is_crib"] and rv["true"]]


def test_recorder_seats_any_agent_spec():
    """``--agent search:N`` (issue 47, item 6's row for the search): the search at every seat,
    given the view and the sampler, plays legal moves and its events add up (``deal_events``
    checks the sum against the scores)."""
    opts = {"num_players": 2, "muggins": True, "target": 121}
    game = make_game("cribbage_v0", opts)
    player = make_player("search:4", opts, game)
    state = game.new_initial_state(seed=7)
    ev = deal_events(state, player, np.random.default_rng(7))
    assert state.deals == 2 and sum(p for _, p, _ in ev) == sum(state.scores)
    assert type(make_player("heuristic", opts, game)).__name__ == "CribbageHeuristic"


def _play_checking(spec, opts, seed, game_id="cribbage_v0"):
    game = make_game(game_id, opts)
    agent = make_agent(spec, game_id, opts)
    rng = np.random.default_rng(seed)
    state = game.new_initial_state(seed=seed)
    searched = 0
    while not state.is_terminal() and searched < 12:
        p = state.current_player()
        mask = state.legal_actions_mask()
        info = {"action_mask": mask, "view": state.public_view(p),
                "resample": lambda r, _s=state, _p=p: _s.resample_hidden(_p, r)}
        action = agent.act(state.observation(p), mask.copy(), rng, info)
        assert mask[action] == 1, f"{spec} chose illegal {action}:\n{state.render()}"
        searched += mask.sum() > 1
        state.apply(action)
    return agent


@pytest.mark.parametrize("opts", [{"num_players": 2}, {"num_players": 2, "muggins": False, "target": 61},
                                  {"num_players": 4, "muggins": False}])
def test_search_valued_by_the_table_respects_masks(opts):
    agent = _play_checking("search:8,value=table", opts, seed=3)
    assert agent.name == "search:8,value=table"
    assert agent.last_values is not None


def test_search_value_setting_keeps_the_plain_search_and_names_errors():
    assert make_agent("search:8", "cribbage_v0").name == "search:8"
    assert make_agent("search:8,value=rollout", "cribbage_v0").name == "search:8"
    with pytest.raises(ValueError, match="value=best"):
        make_agent("search:8,value=best", "cribbage_v0")
    with pytest.raises(ValueError, match="3 players"):
        make_agent("search:8,value=table", "cribbage_v0", {"num_players": 3})
    with pytest.raises(ValueError, match="lowball"):
        make_agent("search:8,value=table", "cribbage_v0", {"lowball": True})
    with pytest.raises(ValueError, match="not michigan_v0"):
        make_agent("search:8,value=table", "michigan_v0")


def test_table_value_of_a_rollout_is_the_chance_as_a_return():
    from muggins_env.agents.heuristic_cribbage import CribbageTableEvaluator

    game = make_game("cribbage_v0", {"num_players": 2, "muggins": False})
    ev = CribbageTableEvaluator(game)
    state = game.new_initial_state(seed=0)
    state.scores = [40, 70]
    dealer_side = game.teams[state.dealer]
    chance = win_chance(state.scores, dealer_side, muggins=False)
    for player in (0, 1):
        assert ev.value(state, player, None) == pytest.approx(2 * chance[game.teams[player]] - 1)


# -- Muggins dominoes ----------------------------------------------------------------------------
@pytest.mark.parametrize("num_players", [2, 4])
def test_dominoes_tables_are_consistent(num_players):
    v = dominoes_table(num_players)
    target = DOMINOES_TARGETS[num_players]
    assert v.shape == (target, target) and not v.flags.writeable
    assert np.all((v >= 0) & (v <= 1))
    assert np.allclose(v + v.T, 1.0, atol=1e-6)  # each hand counted from both sides: a fair race
    assert np.all(np.diff(v, axis=0) >= -1e-6) and np.all(np.diff(v, axis=1) <= 1e-6)
    assert v[0, 0] == pytest.approx(0.5, abs=1e-6) and v[target - 5, 0] > 0.99
    rec = table_info("muggins_dominoes_v0")[f"p{num_players}_t{target}"]
    assert rec["players"] == num_players and rec["partnerships"] is (num_players == 4) and rec["hands"] > 0


def test_dominoes_table_errors_name_the_value():
    with pytest.raises(ValueError, match="num_players=3"):
        dominoes_table(3)
    with pytest.raises(ValueError, match="michigan_v0"):
        table_info("michigan_v0")


@pytest.mark.parametrize("opts", [{"num_players": 2}, {"num_players": 4, "partnerships": True}])
def test_dominoes_recorded_events_add_up(opts):
    game = make_game("muggins_dominoes_v0", opts)
    heuristic = make_agent("heuristic", "muggins_dominoes_v0", opts)
    for seed in range(4):
        state = game.new_initial_state(seed=seed)
        ev = hand_events(state, heuristic, np.random.default_rng(seed))
        assert state.hand_no == 2  # played to the next hand's start
        totals = [0, 0]
        for side, points, _ in ev:
            totals[side] += points
        assert totals == state.scores
        kinds = [k for _, _, k in ev]
        last = state.last_hand
        if last["side"] >= 0 and last["bonus"]:  # the bonus, last, to the side that won the hand
            assert kinds[-1] == BONUS and ev[-1][:2] == (last["side"], last["bonus"])
        assert kinds.count(BONUS) <= 1


@pytest.mark.parametrize("opts", [{"num_players": 2}, {"num_players": 4, "partnerships": True}])
def test_dominoes_search_valued_by_the_table_respects_masks(opts):
    agent = _play_checking("search:8,value=table", opts, seed=4, game_id="muggins_dominoes_v0")
    assert agent.name == "search:8,value=table"


@pytest.mark.parametrize("opts, match", [
    ({"num_players": 3}, "3 players"),
    ({"num_players": 4}, "4 players"),
    ({"num_players": 2, "variant": "all_fives"}, "variant='all_fives'"),
    ({"num_players": 2, "target": 100}, "target=100"),
])
def test_dominoes_search_value_table_refuses_other_games(opts, match):
    with pytest.raises(ValueError, match=match):
        make_agent("search:8,value=table", "muggins_dominoes_v0", opts)


def test_dominoes_table_value_of_a_rollout_is_the_chance_as_a_return():
    from muggins_env.agents.heuristic_dominoes import DominoesTableEvaluator

    game = make_game("muggins_dominoes_v0", {"num_players": 2, "reward": "points"})  # reward: free
    ev = DominoesTableEvaluator(game)
    state = game.new_initial_state(seed=0)
    state.scores = [120, 95]
    v = dominoes_table(2)
    assert ev.value(state, 0, None) == pytest.approx(2 * v[120, 95] - 1)
    assert ev.value(state, 1, None) == pytest.approx(2 * v[95, 120] - 1)
