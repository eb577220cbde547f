"""Cribbage's speed devices: each exists only for speed (the rules give the same without it)."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np


def shared_mask(num_actions: int, actions: Iterable[int]) -> np.ndarray:
    """A read-only mask for a phase whose legal actions never change: returned as it is, so
    the step builds none (``State.legal_actions_mask`` may return a shared read-only array)."""
    mask = np.zeros(num_actions, dtype=np.int8)
    mask[list(actions)] = 1
    mask.flags.writeable = False
    return mask



class Memo(dict):
    """``memo[key]``: ``compute(key)``, computed once; a hit is a plain dict lookup, with no
    Python call (search rollouts repeat the same plays and shows). Emptied at ``limit`` entries."""

    __slots__ = ("compute", "limit")

    def __init__(self, compute, limit: int = 1 << 16) -> None:
        super().__init__()
        self.compute, self.limit = compute, limit

    def __missing__(self, key):
        if len(self) >= self.limit:
            self.clear()
        value = self[key] = self.compute(key)
        return value
