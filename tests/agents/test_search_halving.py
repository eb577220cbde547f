"""``search:N,alloc=halving``: the same N rollouts shared in rounds that drop the worse half of
the candidates (sequential halving), so the last candidates standing get the most worlds.

- Its name says it, a wrong value is a clear error, and ``alloc=uniform`` is the plain search.
- With two candidates there is one round: exactly the plain search's decision and values.
- With six: three rounds, never more than N rollouts, the worse half dropped after each round
  by its mean, the heuristic's move (kept without evidence) played in every world, and the
  best move found when it is better by far; it plays legal moves in whole games.
"""

from __future__ import annotations

import numpy as np
import pytest
from muggins_env.agents import make_agent

from tests.agents.search_checks import decide, lay_away, positions, scripted
from tests.games.worlds_checks import play_search


def test_named_apart_and_wrong_values_are_clear_errors():
    assert make_agent("search:100,alloc=halving", "muggins_dominoes_v0").name == "search:100,alloc=halving"
    assert make_agent("search:100,alloc=uniform", "muggins_dominoes_v0").name == "search:100"
    with pytest.raises(ValueError) as e:
        make_agent("search:100,alloc=greedy", "muggins_dominoes_v0")
    assert "alloc='greedy'" in str(e.value) and "uniform, halving" in str(e.value)


def test_two_candidates_are_the_plain_search():
    plain = make_agent("search:40", "muggins_dominoes_v0")
    halving = make_agent("search:40,alloc=halving", "muggins_dominoes_v0")
    for i, state in enumerate(positions("muggins_dominoes_v0", {}, 4700, 8, 2, 2)):
        assert decide(plain, state, i) == decide(halving, state, i)
        assert plain.last_values == halving.last_values and len(plain.last_values) == 2


def test_six_candidates_in_three_rounds_within_the_budget():
    agent, obs, mask, info, default, cands = lay_away(4800)
    # the default worth least, one other move worth far more than the rest
    others = [a for a in cands if a != default]
    worth = {default: 0.0, **{a: 0.1 * (i + 1) for i, a in enumerate(others)}}
    best = others[-1]
    worth[best] = 2.0
    log = scripted(agent, worth)
    chosen = int(agent.act(obs, mask.copy(), np.random.default_rng(1), info))
    assert chosen == best
    assert len(log) <= 120
    # round 1: 6 candidates x 6 worlds; round 2: the best 3 and the default x 10 worlds;
    # round 3: the best 2 and the default x 13 worlds
    r1, r2, r3 = log[:36], log[36:76], log[76:]
    assert sorted(set(r1)) == sorted(cands) and len(r1) == 36
    assert set(r2) == {default, others[-1], others[-2], others[-3]} and len(r2) == 40
    assert set(r3) == {default, others[-1], others[-2]} and len(r3) == 39
    assert set(agent.last_values) == set(cands)
    assert agent.last_values[best] == pytest.approx(2.0, abs=0.05)


def test_the_default_stays_without_evidence():
    agent, obs, mask, info, default, cands = lay_away(4900)
    # every move worth the same: none beats the default by z standard errors
    calls = []

    def rollout(state, action, player, rng):
        calls.append(action)
        return 0.5

    agent._rollout = rollout
    assert int(agent.act(obs, mask.copy(), np.random.default_rng(1), info)) == default
    assert calls.count(default) == max(calls.count(a) for a in cands) >= 6 + 10  # in every world
    assert len(set(calls)) == 6 and len(calls) <= 120


@pytest.mark.parametrize("game_id,opts", [("muggins_dominoes_v0", {}),
                                          ("cribbage_v0", {"num_players": 2, "muggins": False}),
                                          ("michigan_v0", {})])
def test_plays_legal_moves_in_whole_games(game_id, opts):
    agent = play_search("search:24,alloc=halving,worlds=inferred", game_id, opts, seed=3, steps=80)
    assert agent.name == "search:24,worlds=inferred,alloc=halving"
