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

