"""What every numpy policy shares: the activations and the masked softmax over logits.

``ppo.py`` (the MLP actor, ``NumpyPolicy``, and the loaders) and ``scorer.py`` (the per-action
scorer, ``ScorerPolicy``) both build on ``MaskedPolicy``; ``ppo.py`` imports ``scorer.py``, never
the other way round.
"""

from __future__ import annotations

import os

import numpy as np

ACTIVATIONS = {
    "tanh": np.tanh,
    "relu": lambda x: np.maximum(x, 0.0),
    "identity": lambda x: x,
}
_TORCH_ACTIVATIONS = {"Tanh": "tanh", "ReLU": "relu", "Identity": "identity"}


class MaskedPolicy:
    """Masked softmax over ``logits(obs)`` (subclasses may score only the legal actions)."""

    def logits(self, obs: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def legal_logits(self, obs: np.ndarray, legal: np.ndarray) -> np.ndarray:
        return self.logits(obs)[legal]

    def to_arrays(self) -> dict[str, np.ndarray]:
        raise NotImplementedError

    def save(self, path: str | os.PathLike) -> None:
        np.savez(path, **self.to_arrays())

    def probabilities(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        z = np.where(np.asarray(mask, bool), self.logits(obs).astype(np.float64), -np.inf)
        z = np.exp(z - z.max(axis=-1, keepdims=True))
        return z / z.sum(axis=-1, keepdims=True)

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator | None = None,
            deterministic: bool = True) -> int:
        legal = np.flatnonzero(mask)
        if len(legal) == 1:
            return int(legal[0])
        z = self.legal_logits(obs, legal)
        if deterministic or rng is None:
            return int(legal[int(np.argmax(z))])
        p = np.exp(z - z.max())
        p /= p.sum()
        i = int(np.searchsorted(np.cumsum(p), rng.random()))
        return int(legal[min(i, len(legal) - 1)])
