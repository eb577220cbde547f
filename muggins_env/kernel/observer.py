"""A player's observation, kept beside the rules instead of inside them (issue 46, item 3).

Each game's observation lives in a module of its own (``games/<game>/observation.py``): an
``Observer`` subclass that knows the observation's layout (every offset) and builds a player's
array from the state. Rebuilding a whole observation at every step costs more than a step of
the rules, so an observer may keep arrays between calls and bring them up to date from what the
rules did: the rules report their moves by calling the observer's methods named for them
(``state.seen.played(seat, card)``), only when ``state.seen`` is not None; a rule never names an
offset, and a state nobody observes (search rollouts, kernel loops) pays one test per move.

The state makes its observer the first time ``observation`` is asked for; a clone starts without
one unless the observer copies itself (``clone_for``).
"""

from __future__ import annotations

from typing import Any

import numpy as np


class Observer:
    """The observations of one state (subclass per game). ``observation(player)`` returns a new
    float32 array of ``game.observation_size`` holding only what ``player`` may know."""

    __slots__ = ("state",)

    def __init__(self, state: Any) -> None:
        self.state = state

    def observation(self, player: int) -> np.ndarray:
        raise NotImplementedError

    def clone_for(self, state: Any) -> Observer | None:
        """The observer of ``state``, a clone of this one's state (None: the clone builds its
        own when first observed). Copying what is kept pays where clones are observed at once."""
        return None
