"""The one derivation of a game's seed from a stream of seeds.

A reset seed names the same deal everywhere (the AEC env's ``reset(seed=s)``, a tournament's
deal ``s``, a game session's ``seed=s``) because every harness draws the game's seed from its
generator the same way: ``game_seed(rng)``, the first draw of ``default_rng(s)`` for a reset
seed ``s`` (``game_seed_of``).
"""

from __future__ import annotations

import numpy as np

#: game seeds are drawn from ``[0, GAME_SEEDS)``
GAME_SEEDS = 2**63 - 1


def game_seed(rng: np.random.Generator) -> int:
    """The next game seed of the stream ``rng``."""
    return int(rng.integers(GAME_SEEDS))


def game_seed_of(reset_seed: int) -> int:
    """The game seed that ``reset(seed=reset_seed)`` gives the kernel."""
    return game_seed(np.random.default_rng(reset_seed))
