"""What an agent receives at a decision, built in one place for every harness.

``SeatEnv``'s opponents, the RLlib env's lineup, the evaluation's games, the game session's
agent seats, the imitation teacher and the search's rollout policy all ask ``agent_inputs``
what to hand ``agent.act(observation, action_mask, rng, info)`` (the protocol is in
``muggins_env.agents.base``). An agent gets only what it declares it needs:

- ``observation``: ``state.observation(p)`` (a fresh array), None when ``needs_observation`` is False;
- ``info``: None when the agent needs neither the readable view (``needs_info``, default True),
  the sampler (``needs_sampler``) nor the decision in words (``needs_text``); else the dict
  ``{"view", "action_mask", "seat", "phase"}`` with ``"resample"`` (``resample(rng)`` =
  ``state.resample_hidden(p, rng)``, or ``state.resample_inferred(p, rng)`` for an agent with
  ``inferred_worlds`` True) for ``needs_sampler`` and ``"text"``
  (``text_view(state, p, history)``) for ``needs_text``. ``SeatEnv`` documents the bare view for
  an agent that needs only the view (``bare_view=True``); ``player_view(info)`` reads either.

``play_forced_moves`` plays the decisions no agent is asked about (one legal action, the envs'
``skip_forced``), and ``apply_action`` applies an agent's action with them, for the AEC env and the
RLlib env alike.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .kernel.game import State
from .text_view import text_view

#: the moves as the seat saw them, or a function giving them (called only for a ``needs_text`` agent)
History = Sequence[tuple[int, str]] | Callable[[], Sequence[tuple[int, str]]] | None


def agent_inputs(agent: Any, state: State, p: int, mask: np.ndarray, history: History = None,
                 bare_view: bool = False, snapshot: bool = False) -> tuple[np.ndarray | None, Any]:
    """``(observation, info)`` for ``agent`` deciding at seat ``p`` of ``state`` with ``mask``
    (see the module docstring). ``snapshot``: the sampler draws from a clone of ``state``
    taken now (the agent may think in another thread while the state moves on)."""
    needs_sampler = getattr(agent, "needs_sampler", False)
    needs_text = getattr(agent, "needs_text", False)
    if needs_sampler or needs_text or getattr(agent, "needs_info", True):
        view = state.public_view(p)
        if bare_view and not (needs_sampler or needs_text):
            info = view
        else:
            info = {"view": view, "action_mask": mask, "seat": p, "phase": state.phase_name()}
            if needs_sampler:
                source = state.clone() if snapshot else state
                if getattr(agent, "inferred_worlds", False):
                    info["resample"] = lambda rng, s=source, q=p: s.resample_inferred(q, rng)
                else:
                    info["resample"] = lambda rng, s=source, q=p: s.resample_hidden(q, rng)
            if needs_text:
                seen = history() if callable(history) else history
                info["text"] = text_view(state, p, seen or ())
    else:
        info = None
    observation = state.observation(p) if getattr(agent, "needs_observation", True) else None
    return observation, info


def play_forced_moves(state: State) -> np.ndarray | None:
    """Apply every decision of ``state`` that has a single legal action (``skip_forced``); return
    the per-seat sum of the rewards they paid, a new array, or None when there was none."""
    total = None
    while not state.is_terminal():
        legal = state.legal_actions()
        if len(legal) != 1:
            break
        state.apply(legal[0])
        r = state.rewards()
        total = r.copy() if total is None else total + r
    return total


def apply_action(state: State, action: int, skip_forced: bool) -> np.ndarray:
    """Apply ``action`` (validated by the game) and, with ``skip_forced``, the forced moves after it;
    return what they paid every seat. Where nothing was forced this is ``state.rewards()`` itself
    (the read-only zeros of a quiet step, which the AEC env tells apart by identity), else a new array."""
    state.apply(action)
    gained = state.rewards()
    if skip_forced:
        more = play_forced_moves(state)
        if more is not None:
            gained = gained + more
    return gained


def agent_action(agent: Any, state: State, p: int, mask: np.ndarray, rng: np.random.Generator,
                 history: History = None, bare_view: bool = True) -> int:
    """What ``agent`` plays in seat ``p`` of ``state``: ``agent.act`` on ``agent_inputs``."""
    observation, info = agent_inputs(agent, state, p, mask, history, bare_view)
    return agent.act(observation, mask, rng, info)
