"""The agent protocol, the random agent and the helpers every agent shares.

An agent plays one seat. At each decision the harness (or ``SeatEnv``) calls

    agent.act(observation, action_mask, rng, info=None) -> int

- ``observation``: the player's float32 observation vector (may be ``None`` inside search
  rollouts: baseline agents never need it);
- ``action_mask``: int8, 1 exactly at the legal actions;
- ``rng``: a ``numpy.random.Generator`` owned by the caller (all of an agent's randomness
  comes from it, so a seed fixes a tournament);
- ``info``: what else the player may know. Either the env's per-agent ``infos`` dict (the
  readable view under ``"view"``) or the readable view itself (``SeatEnv`` passes
  ``state.public_view(p)``); ``player_view(info)`` accepts both. It may also carry
  ``"resample"``: a callable ``resample(rng) -> State`` returning a *determinised* kernel
  state consistent with what the player knows (``state.resample_hidden(player, rng)``),
  never the true state. Search agents need it.

Agents never read the full state or another player's hidden cards: they see only the above.
Optional attributes: ``needs_info`` (False: the caller may skip building the readable view),
``needs_sampler`` (True: the caller must put ``"resample"`` in ``info``), ``inferred_worlds``
(True: that sampler is ``state.resample_inferred``, which keeps also what the public moves
showed), ``reset()``
(called before every game), ``name``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Agent(Protocol):
    def act(self, observation: np.ndarray | None, action_mask: np.ndarray, rng: np.random.Generator,
            info: dict | None = None) -> int: ...


def player_view(info: dict | None) -> dict:
    """The readable per-player view from an env ``infos`` entry or a bare ``public_view`` dict."""
    if not info:
        return {}
    view = info.get("view")
    if isinstance(view, dict):
        return view
    if "action_mask" in info:  # an env info without the readable extras (the default)
        raise ValueError("this info has no readable 'view': make the env with readable_infos=True, "
                         "or pass {'view': env.unwrapped.readable_info()['view']}")
    return info


def state_sampler(info: dict | None) -> Callable[[np.random.Generator], Any] | None:
    return info.get("resample") if info else None


def legal_of(action_mask: np.ndarray) -> np.ndarray:
    legal = np.flatnonzero(action_mask)
    if len(legal) == 0:
        raise ValueError("the action mask has no legal action (is the episode over?)")
    return legal


class RandomAgent:
    """Uniform over the legal actions (spec ``random``), for every game."""

    needs_info = False
    needs_sampler = False
    name = "random"

    def act(self, observation, action_mask, rng, info=None) -> int:
        legal = legal_of(action_mask)
        return int(legal[rng.integers(len(legal))]) if len(legal) > 1 else int(legal[0])

    def __repr__(self) -> str:
        return "RandomAgent()"


class HeuristicBase:
    """Base of the per-game heuristics: ``choose(view, legal, rng)`` on the readable view.

    Heuristics decide from the readable view and the legal actions only (never the
    observation vector), so that search rollouts can call them on any determinised state
    through ``act_on_state``.
    """

    needs_info = True
    needs_sampler = False
    name = "heuristic"

    def __init__(self, game: Any) -> None:
        self.game = game

    def choose(self, view: dict, legal: np.ndarray, rng: np.random.Generator) -> int:
        raise NotImplementedError

    def act(self, observation, action_mask, rng, info=None) -> int:
        legal = legal_of(action_mask)
        if len(legal) == 1:
            return int(legal[0])
        a = int(self.choose(player_view(info), legal, rng))
        if not action_mask[a]:  # a heuristic bug must never become an illegal move
            raise AssertionError(f"{type(self).__name__} chose illegal action {a}; legal {legal.tolist()}")
        return a

    def explain(self, view: dict, legal: np.ndarray, action: int) -> str:
        """Why the heuristic plays ``action`` here, in one sentence (a human seat's hint). The
        heuristics say it in their game's terms; this is the fallback."""
        if len(legal) == 1:
            return "it is the only legal move"
        return f"it is the first choice of the {type(self).__name__} strategy"

    def act_on_state(self, state: Any, rng: np.random.Generator) -> int:
        """The heuristic's move for the player to act in ``state`` (search rollouts); it uses
        only ``state.public_view(player)`` and the mask, exactly what ``act`` receives."""
        legal = state.legal_actions_mask().nonzero()[0]  # flatnonzero's result, without its ravel
        if len(legal) == 1:
            return int(legal[0])
        return int(self.choose(state.public_view(state.current_player()), legal, rng))

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"
