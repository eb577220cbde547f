"""The search's random streams: every rollout of a world sees a fresh ``default_rng(seed)``
without paying numpy's seeding per rollout (a search makes thousands per decision).

``ReplayStream`` records the first rollout's draws and replays them to the others;
``pcg64_seeded_state`` is numpy's seeding of a PCG64 without its ``SeedSequence`` objects.
Both are exact (``tests/equivalence/test_search.py``); docs/benchmarks.md has what they save.
"""

from __future__ import annotations

from typing import Any

import numpy as np

# -- np.random.PCG64(seed).state without numpy's SeedSequence objects -------------------------------
# Why: the search seeds two streams per world, and building a SeedSequence is most of that cost.
# The same computation (SeedSequence's hash mixing of the seed's 32-bit words into a pool of 4,
# its generate_state(4, uint64), then PCG64's set_seed: two steps of the 128-bit LCG), for
# seeds below 2**64.
_M32 = 0xFFFFFFFF
_M128 = (1 << 128) - 1
_PCG_MULT = 0x2360ED051FC65DA44385DF649FCCF645


def _hash_consts(init: int, mult: int, n: int) -> list[int]:
    out = [init]
    for _ in range(n):
        out.append((out[-1] * mult) & _M32)
    return out


_HASH_A = _hash_consts(0x43B0D7E5, 0x931E8875, 16)  # SeedSequence's INIT_A, MULT_A
_HASH_B = _hash_consts(0x8B51F9DD, 0x58F38DED, 8)  # INIT_B, MULT_B
_MIX_L, _MIX_R = 0xCA01F9DD, 0x4973F715


def pcg64_seeded_state(seed: int) -> dict:
    """``np.random.PCG64(seed).state`` (numpy's own for seeds outside 0 .. 2**64 - 1)."""
    if seed < 0 or seed >> 64:
        return np.random.PCG64(seed).state
    lo, hi = seed & _M32, seed >> 32
    words = (lo, hi) if hi else (lo,)
    ha = _HASH_A
    pool = []
    for i in range(4):
        v = ((words[i] if i < len(words) else 0) ^ ha[i]) * ha[i + 1] & _M32
        pool.append(v ^ v >> 16)
    k = 4
    for src in range(4):
        for dst in range(4):
            if src != dst:
                v = (pool[src] ^ ha[k]) * ha[k + 1] & _M32
                k += 1
                v ^= v >> 16
                r = (_MIX_L * pool[dst] - _MIX_R * v) & _M32
                pool[dst] = r ^ r >> 16
    hb = _HASH_B
    out = []
    for i in range(8):
        v = (pool[i & 3] ^ hb[i]) * hb[i + 1] & _M32
        out.append(v ^ v >> 16)
    initstate = (out[0] | out[1] << 32) << 64 | (out[2] | out[3] << 32)
    inc = ((out[4] | out[5] << 32) << 65 | (out[6] | out[7] << 32) << 1 | 1) & _M128
    state = ((inc + initstate) * _PCG_MULT + inc) & _M128
    return {"bit_generator": "PCG64", "state": {"state": state, "inc": inc}, "has_uint32": 0, "uinteger": 0}


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
                self._state = pcg64_seeded_state(self._seed)
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
