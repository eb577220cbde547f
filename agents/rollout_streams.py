"""The search's random streams: every rollout of a world sees a fresh ``default_rng(seed)``
without paying numpy's seeding per rollout (a search makes thousands per decision).

``ReplayStream`` records the first rollout's draws and replays them to the others, and seeds its
generator at most once a world; it is exact (``tests/equivalence/test_search.py``);
docs/benchmarks.md has what it saves.
"""

from __future__ import annotations

from typing import Any

import numpy as np

_PLAIN = (int, float, str, bool, type(None))


def _plain(args: tuple) -> bool:
    """Arguments that compare by value (recorded draws are matched by them)."""
    for x in args:
        t = type(x)
        if t in _PLAIN or (t is tuple and _plain(x)):
            continue
        return False
    return True


class ReplayStream:
    """A world's rollouts replay the first one's draws (why: most draw the same few values).

    ``np.random.default_rng(seed)`` afresh for every rollout of a world, for the price of one
    generator: seeded the first time a rollout of the world draws from it (many never do).
    The first rollout's draws are recorded (method, arguments, result, state after); a later
    rollout of the world that makes the same draws in the same order gets copies of the same
    results without drawing, and the first draw that differs, or any other use of the
    generator (its ``bit_generator``, ...), restores the generator to the state the recorded
    draws before it left and plays live from there. Either way a rollout sees exactly the
    stream of a generator seeded with ``seed``."""

    __slots__ = ("_bits", "_epoch", "_gen", "_log", "_pos", "_seed", "_state", "_synced")

    _worlds = 0  # every world of every stream gets its own epoch (stream_key never repeats)

    def __init__(self) -> None:
        self._bits = np.random.PCG64(0)
        self._gen = np.random.Generator(self._bits)
        self.world(0)
        self.rollout()

    def world(self, seed: int) -> None:
        self._seed, self._state, self._log = seed, None, []
        ReplayStream._worlds += 1
        self._epoch = ReplayStream._worlds

    def stream_key(self) -> tuple | None:
        """A hashable name of the generator's state, cheap, while the rollout replays or records
        the world's draws (the same key means the same state); None once it plays live."""
        return (self._epoch, self._pos) if self._pos >= 0 else None

    def skip(self, name: str, *args: Any) -> None:
        """Move past the draw ``name(*args)`` without its result, for a caller that kept what
        it computed from it (under ``stream_key()``): as if it had drawn it."""
        pos = self._pos
        if 0 <= pos < len(self._log) and self._log[pos][0] == name and self._log[pos][1] == args:
            self._pos, self._synced = pos + 1, False
        else:
            getattr(self, name)(*args)

    def rollout(self) -> ReplayStream:
        self._pos, self._synced = 0, False
        return self

    def _sync(self) -> None:
        """The generator to the state after the first ``_pos`` recorded draws."""
        if self._pos:
            self._bits.state = self._log[self._pos - 1][3]
        else:
            if self._state is None:
                self._state = np.random.PCG64(self._seed).state
            self._bits.state = self._state
        self._synced = True

    def _live(self) -> np.random.Generator:
        if not self._synced:
            self._sync()
        self._pos = -1  # no more replay or recording in this rollout
        return self._gen

    def random(self, *args: Any, **kwargs: Any) -> Any:
        return self._draw("random", args, kwargs)

    def integers(self, *args: Any, **kwargs: Any) -> Any:
        return self._draw("integers", args, kwargs)

    def permutation(self, *args: Any, **kwargs: Any) -> Any:
        return self._draw("permutation", args, kwargs)

    def choice(self, *args: Any, **kwargs: Any) -> Any:
        return self._draw("choice", args, kwargs)

    def _draw(self, name: str, args: tuple, kwargs: dict) -> Any:
        pos = self._pos
        if pos < 0 or kwargs or not _plain(args):
            return getattr(self._live(), name)(*args, **kwargs)
        log = self._log
        if pos < len(log):
            rec = log[pos]
            if rec[0] == name and rec[1] == args:
                self._pos, self._synced = pos + 1, False
                out = rec[2]
                return out.copy() if isinstance(out, np.ndarray) else out
            return getattr(self._live(), name)(*args)
        if not self._synced:
            self._sync()
        out = getattr(self._gen, name)(*args)
        log.append((name, args, out.copy() if isinstance(out, np.ndarray) else out, self._bits.state))
        self._pos = pos + 1
        return out

    def __getattr__(self, name: str) -> Any:  # anything but the replayed draws: played live
        if name.startswith("_"):  # (an unset slot while copying or unpickling: not the generator's)
            raise AttributeError(name)
        return getattr(self._live(), name)
