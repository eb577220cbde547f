"""Shared setup of the search allocation tests: decisions of heuristic self-play with a given
number of candidates, scripted rollouts, and a six-candidate cribbage lay-away."""

from __future__ import annotations

import numpy as np
from muggins_env.agents import make_agent, make_game

from muggins_env.decision import agent_inputs


def positions(game_id: str, options: dict, seed: int, want: int, kmin: int, kmax: int):
    """Decisions of heuristic self-play where the search weighs kmin..kmax candidates."""
    game = make_game(game_id, options)
    heuristic = make_agent("heuristic", game_id, options)
    probe = make_agent("search:2", game_id, options)
    rng = np.random.default_rng(seed)
    out = []
    for g in range(40):
        state = game.new_initial_state(seed=seed + g)
        while not state.is_terminal() and len(out) < want:
            p = state.current_player()
            mask = state.legal_actions_mask()
            obs, info = agent_inputs(probe, state, p, mask)
            if mask.sum() > 1:
                probe.act(obs, mask.copy(), np.random.default_rng(0), info)
                if kmin <= len(probe.last_values) <= kmax:
                    out.append(state.clone())
            obs, info = agent_inputs(heuristic, state, p, mask)
            state.apply(int(heuristic.act(obs, mask.copy(), rng, info)))
        if len(out) >= want:
            return out
    raise AssertionError(f"fewer than {want} positions with {kmin}-{kmax} candidates")


def decide(agent, state, seed: int) -> int:
    p = state.current_player()
    mask = state.legal_actions_mask()
    obs, info = agent_inputs(agent, state, p, mask)
    return int(agent.act(obs, mask.copy(), np.random.default_rng(seed), info))


def scripted(agent, worth: dict[int, float], own: float = 0.0):
    """Replace the rollouts by known values (the move's worth plus the world's noise, the same
    for every move of one world: the rollouts' replayed stream; plus, with ``own`` > 0, noise of
    each rollout's own of that deviation); return the actions played."""
    log = []
    noise = np.random.default_rng(5)

    def rollout(state, action, player, rng):
        log.append(action)
        value = worth[action] + float(rng.normal(0, 0.05))
        return value + float(noise.normal(0, own)) if own else value

    agent._rollout = rollout
    return log


def lay_away(seed: int, spec: str = "search:120,alloc=halving"):
    """A standard cribbage lay-away (six candidates) for ``spec``: the agent, its inputs, the
    heuristic's move and its candidates."""
    game_id, options = "cribbage_v0", {"num_players": 2, "muggins": False}
    state = positions(game_id, options, seed, 1, 6, 6)[0]
    agent = make_agent(spec, game_id, options)
    mask = state.legal_actions_mask()
    obs, info = agent_inputs(agent, state, state.current_player(), mask)
    default = int(agent.heuristic.act(obs, mask.copy(), np.random.default_rng(1), info))
    cands = [int(a) for a in agent.heuristic.candidates(info["view"], mask.nonzero()[0], 6)]
    assert default in cands and len(cands) == 6
    return agent, obs, mask, info, default, cands
