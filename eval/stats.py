"""Interval statistics of the evaluation harness (kept small and tested against known values).

- ``wilson_interval(successes, n)``: the Wilson score interval of a proportion (successes may
  be fractional: shared wins count 1/k). 50 of 100 -> (0.4038, 0.5962).
- ``bootstrap_ci(values, clusters=None)``: the percentile bootstrap interval of a mean; with
  ``clusters`` (e.g. the deal of every game) whole clusters are resampled, which keeps the
  correlation of the games played on one deal (duplicate format) honest.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

Z95 = 1.959963984540054  # the 97.5% quantile of the standard normal


def wilson_interval(successes: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion ``successes / n`` (nan, nan when n = 0)."""
    if n <= 0:
        return float("nan"), float("nan")
    if not 0 <= successes <= n:
        raise ValueError(f"successes={successes} must lie in [0, n={n}]")
    p = successes / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def bootstrap_ci(values: Sequence[float], clusters: Sequence | None = None, n_boot: int = 2000,
                 alpha: float = 0.05, seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of ``values`` (resampling ``clusters`` whole
    when given). Deterministic for a given ``seed``; (nan, nan) for an empty sample."""
    x = np.asarray(values, dtype=np.float64)
    if x.size == 0:
        return float("nan"), float("nan")
    if clusters is None:
        sums, counts = x, np.ones_like(x)
    else:
        _, inv = np.unique(np.asarray(clusters), return_inverse=True)
        sums = np.bincount(inv, weights=x)
        counts = np.bincount(inv).astype(np.float64)
    k = len(sums)
    rng = np.random.default_rng(seed)
    means = np.empty(n_boot)
    step = max(1, 2_000_000 // max(k, 1))  # bound the index matrix's memory
    for start in range(0, n_boot, step):
        stop = min(n_boot, start + step)
        idx = rng.integers(0, k, size=(stop - start, k))
        means[start:stop] = sums[idx].sum(axis=1) / counts[idx].sum(axis=1)
    lo, hi = np.quantile(means, [alpha / 2, 1 - alpha / 2])
    return float(lo), float(hi)


def mean(values: Sequence[float]) -> float:
    x = np.asarray(values, dtype=np.float64)
    return float(x.mean()) if x.size else float("nan")
