"""Shared checks of a game's inferred worlds (``resample_inferred``, ``search:N,worlds=inferred``):
the per-game tests say what a fact is and when a hand breaks it; these play the games."""

from collections.abc import Callable
from typing import Any

import numpy as np
from muggins_env.agents.factory import make_agent, make_game

from muggins_env.decision import agent_inputs


def survey_worlds(game_id: str, opts: dict, seeds: range, facts: Callable[[Any], list],
                  breaks: Callable[[Any, int, Any], bool], size: Callable[[Any], int]) -> dict:
    """Random games of ``game_id``: at every decision the true hands break no fact of any seat
    (``facts(state)``: one per seat, read from the true state; ``breaks(hands_state, seat, fact)``),
    and the decider's inferred world observes as the true state. Returns the counts of facts
    (``size``), of other seats' worlds, and of those whose inferred or uniform hands break one."""
    game = make_game(game_id, opts)
    rng = np.random.default_rng(7)
    out = {"facts": 0, "worlds": 0, "inferred_broken": 0, "uniform_broken": 0}
    for seed in seeds:
        state = game.new_initial_state(seed=seed)
        while not state.is_terminal():
            p = state.current_player()
            known = facts(state)
            for s in range(state.n):
                out["facts"] += size(known[s])
                assert not breaks(state, s, known[s]), f"the true hand of seat {s} breaks {known[s]}"
            inferred, uniform = state.resample_inferred(p, rng), state.resample_hidden(p, rng)
            assert np.array_equal(inferred.observation(p), state.observation(p))
            for s in range(state.n):
                if s != p:
                    out["worlds"] += 1
                    out["inferred_broken"] += bool(breaks(inferred, s, known[s]))
                    out["uniform_broken"] += bool(breaks(uniform, s, known[s]))
            state.apply(int(rng.choice(state.legal_actions())))
    return out


def play_search(spec: str, game_id: str, opts: dict | None = None, seed: int = 5, steps: int = 100) -> Any:
    """``spec`` at every seat for up to ``steps`` decisions, handed its inputs by the harnesses'
    one builder (``agent_inputs``); every move must be legal. Returns the agent."""
    agent = make_agent(spec, game_id, opts)
    state = make_game(game_id, opts).new_initial_state(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if state.is_terminal():
            break
        p = state.current_player()
        mask = state.legal_actions_mask()
        obs, info = agent_inputs(agent, state, p, mask)
        a = agent.act(obs, mask.copy(), rng, info)
        assert mask[a] == 1, f"{spec} chose illegal {a}"
        state.apply(a)
    return agent
