"""Speed devices of Muggins dominoes, apart from what the game means: each exists only because
the AEC loop builds an observation and a mask at every step (docs/benchmarks.md). Each writes
what a plain build would, byte for byte (tests/equivalence/ checks it against fresh builds)."""

from __future__ import annotations

import struct
import weakref
from typing import Any

import numpy as np

from ...kernel.game import piece_offsets
from .phases import OVER


class ObservationPlan:
    """Whole pieces of one game's observation written in one ``struct.pack_into`` each (one
    call costs less than a numpy write per entry, and bytes packed ready cost less than floats)."""

    __slots__ = ("arm_at", "arm_pieces", "arm_width", "at", "count_share", "none", "one_hots", "pack_arm",
                 "pack_tail", "tail_at", "tile_share")

    def __init__(self, g: Any) -> None:
        #: where each named piece starts, as attributes
        self.at = at = piece_offsets(g.observation_layout)[1]
        n, t, sm = g.num_players, g.num_tiles, g.set_max
        # the scalars' quotients, looked up rather than divided (the same floats)
        self.tile_share = [k / t for k in range(t + 1)]  # tiles in a hand, drawn, in the boneyard
        self.count_share = [c / g.max_count for c in range(g.max_count + 1)]
        # the run from count to to_act: the scalars as floats, then the phase, mover and to_act
        # one-hots as bytes, one per [phase][relative mover][relative seat to act]
        scalars = at.phase - at.count
        width = 3 + 2 * n
        assert at.to_act + n == at.phase + width
        self.pack_tail = struct.Struct(f"{scalars}f{4 * width}s").pack_into
        self.tail_at = 4 * at.count

        def one_hot(phase: int, mover: int, to_act: int) -> bytes:
            out = [0.0] * width
            out[phase] = out[3 + mover] = out[3 + n + to_act] = 1.0
            return struct.pack(f"{width}f", *out)

        self.none = bytes(4 * width)  # the game is over: no phase, mover or player to act
        self.one_hots = [[[one_hot(p, m, a) for a in range(n)] for m in range(n)] for p in range(OVER)]
        # an open arm's piece (open, pip one-hot, crosswise, spinner, spinner counts), as bytes
        # per [pip][crosswise][spinner][counts]
        self.arm_width = w = sm + 5
        self.arm_at = at.arms

        def arm(pip: int, crosswise: int, spinner: int, counts: int) -> bytes:
            out = [0.0] * w
            out[0] = out[1 + pip] = 1.0
            out[sm + 2], out[sm + 3], out[sm + 4] = crosswise, spinner, counts
            return struct.pack(f"{w}f", *out)

        self.arm_pieces = [[[[arm(p, c, s, k) for k in (0, 1)] for s in (0, 1)] for c in (0, 1)]
                           for p in range(sm + 1)]
        self.pack_arm = struct.Struct(f"{4 * w}s").pack_into

    def write_arm(self, board: np.ndarray, lay: Any, k: int) -> None:
        """Write open arm ``k`` of layout ``lay`` into ``board`` (the whole piece)."""
        crosswise, spinner, counts = lay.end_kind(k)
        self.pack_arm(board, 4 * (self.arm_at + (k - 1) * self.arm_width),
                      self.arm_pieces[lay.pip[k]][crosswise][spinner][counts])


#: one plan per game (a weak key: a game's plan goes with it)
_PLANS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def observation_plan(g: Any) -> ObservationPlan:
    plan = _PLANS.get(g)
    if plan is None:
        plan = _PLANS[g] = ObservationPlan(g)
    return plan


class SharedMasks:
    """Read-only legal masks kept per legal set (``State.legal_actions_mask`` may return a shared
    read-only array): the same sets recur all game long, and one kept costs no copy."""

    __slots__ = ("masks", "zeros")

    #: sets kept at most (then forgotten at once: a game has far fewer in play at a time)
    LIMIT = 16384

    def __init__(self, num_actions: int) -> None:
        self.masks: dict[tuple[int, ...], np.ndarray] = {}
        self.zeros = np.zeros(num_actions, dtype=np.int8)

    def of(self, legal) -> np.ndarray:
        key = tuple(legal)
        mask = self.masks.get(key)
        if mask is None:
            if len(self.masks) >= self.LIMIT:
                self.masks.clear()
            mask = self.zeros.copy()
            for a in key:  # a few item writes beat an index array
                mask[a] = 1
            mask.flags.writeable = False
            self.masks[key] = mask
        return mask
