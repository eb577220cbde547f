"""``search:N,alloc=race``: rounds of worlds until the best candidate is settled (successive
elimination), between RACE_MIN and RACE_MAX times N rollouts a decision.

- Its name says it, and a wrong value's error lists it.
- A move far better than the rest is found in the fewest rounds the floor allows, and the others
  leave; moves whose rollouts are equal in every world leave after one round, the default staying.
- A close choice runs to the cap and no further; the default leaves only when beaten by more than
  max(RACE_DROP, z) standard errors; it plays legal moves in whole games.
"""

from __future__ import annotations

import numpy as np
import pytest
from muggins_env.agents import make_agent
from muggins_env.agents.search import RACE_DROP, RACE_MAX, RACE_MIN, RACE_ROUNDS

from tests.agents.search_checks import lay_away, scripted
from tests.games.worlds_checks import play_search

SPEC = "search:120,alloc=race"


def test_named_apart_and_listed_in_the_error():
    assert make_agent("search:100,alloc=race", "muggins_dominoes_v0").name == "search:100,alloc=race"
    with pytest.raises(ValueError) as e:
        make_agent("search:100,alloc=greedy", "muggins_dominoes_v0")
    assert "alloc='greedy'" in str(e.value) and "uniform, halving, race" in str(e.value)


def test_a_far_better_move_settles_the_race_at_the_floor():
    agent, obs, mask, info, default, cands = lay_away(5000, SPEC)
    others = [a for a in cands if a != default]
    worth = {default: 0.0, **{a: 0.1 * (i + 1) for i, a in enumerate(others)}}
    best = others[-1]
    worth[best] = 2.0
    log = scripted(agent, worth)
    assert int(agent.act(obs, mask.copy(), np.random.default_rng(1), info)) == best
    batch = 120 // (RACE_ROUNDS * 6)  # 5 worlds a round for six candidates
    # round 1 (30 rollouts) is under the floor (0.3 N = 36): nobody leaves; after round 2 all do
    assert batch * 6 < RACE_MIN * 120 <= 2 * batch * 6
    assert len(log) == 2 * batch * 6
    assert sorted(set(log)) == sorted(cands)
    assert agent.last_values[best] == pytest.approx(2.0, abs=0.05)


def test_equal_moves_leave_after_one_round_and_the_default_is_played():
    agent, obs, mask, info, default, cands = lay_away(5100, SPEC)
    log = scripted(agent, {a: 0.5 for a in cands})  # the same value in every world
    assert int(agent.act(obs, mask.copy(), np.random.default_rng(1), info)) == default
    assert len(log) == 6 * (120 // (RACE_ROUNDS * 6))  # one round of every candidate


def test_a_close_choice_runs_to_the_cap():
    agent, obs, mask, info, _default, cands = lay_away(5200, SPEC)
    log = scripted(agent, {a: 0.0 for a in cands}, own=1.0)
    agent.act(obs, mask.copy(), np.random.default_rng(1), info)
    assert 120 < len(log) <= RACE_MAX * 120  # past N, since nothing settles it; never past the cap


def test_the_default_leaves_only_beyond_z():
    """The default far worse than one move: with z = 1 it leaves and that move is played; with
    z larger than the whole gap in standard errors it stays to the cap and is played."""
    for spec, kept in ((SPEC, False), (SPEC + ",z=1000", True)):
        agent, obs, mask, info, default, cands = lay_away(5300, spec)
        better = next(a for a in cands if a != default)
        worth = {a: -10.0 for a in cands}
        worth[default], worth[better] = 0.0, 1.0
        log = scripted(agent, worth, own=0.1)
        chosen = int(agent.act(obs, mask.copy(), np.random.default_rng(1), info))
        assert (chosen == default) == kept, spec
        if kept:  # the default stayed in every round, beside the better move
            assert log.count(default) == log.count(better) > RACE_MIN * 120 / 6
        else:
            assert chosen == better and RACE_DROP >= agent.z


@pytest.mark.parametrize("game_id,opts", [("muggins_dominoes_v0", {}),
                                          ("cribbage_v0", {"num_players": 2, "muggins": False}),
                                          ("michigan_v0", {})])
def test_plays_legal_moves_in_whole_games(game_id, opts):
    agent = play_search("search:24,alloc=race,worlds=inferred", game_id, opts, seed=3, steps=80)
    assert agent.name == "search:24,worlds=inferred,alloc=race"
