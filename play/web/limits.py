"""Bounds on what a client may send the server, and how much of it an error may quote.

Everything that reaches ``muggins-serve`` from outside is untrusted: a body is read only up to
``MAX_BODY`` bytes, JSON is parsed only after its nesting is checked (Python's parser recurses,
so ``"[" * 100000`` would end in a ``RecursionError``) and with numbers of at most
``MAX_NUMBER_CHARS`` characters (a 5,000-digit integer costs quadratic time to read and raises
past 4,300 digits), and an error message quotes at most ``QUOTE_CHARS`` characters of a value.
``RateLimiter`` spaces out table creations per client address.
"""

from __future__ import annotations

import json
import math
import time
from typing import Any

MAX_BODY = 16 * 1024  # bytes of an HTTP request body
MAX_WS_MESSAGE = 4 * 1024  # characters of a WebSocket message
MAX_DEPTH = 8  # nesting of JSON arrays and objects
MAX_NUMBER_CHARS = 24  # characters of one JSON number
QUOTE_CHARS = 40  # characters of a client's value an error message may quote


class InputError(ValueError):
    """Input the server refuses before looking at its meaning: ``status`` is the HTTP status."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def short(value: Any, limit: int = QUOTE_CHARS) -> str:
    """``repr(value)`` cut to ``limit`` characters (an error never echoes a whole large value)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10 ** limit:
        return f"<an int of {len(str(abs(value)))} digits>"
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _depth(text: str) -> int:
    """The deepest nesting of arrays and objects in JSON ``text`` (brackets inside strings skipped)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def _number(kind: type):
    def parse(text: str) -> Any:
        if len(text) > MAX_NUMBER_CHARS:
            raise InputError(f"a number of {len(text)} characters is too long (at most {MAX_NUMBER_CHARS})")
        value = kind(text)
        if isinstance(value, float) and not math.isfinite(value):
            raise InputError(f"the number {short(text)} is out of range")
        return value
    return parse


def _constant(name: str) -> Any:
    raise InputError(f"{name} is not a JSON value")


def parse_json(raw: bytes | str, what: str = "the request body") -> Any:
    """JSON ``raw`` parsed within the bounds above (an ``InputError`` naming what is wrong)."""
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise InputError(f"{what} is not UTF-8 text") from None
    if _depth(raw) > MAX_DEPTH:
        raise InputError(f"{what} nests arrays or objects deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(raw, parse_int=_number(int), parse_float=_number(float), parse_constant=_constant)
    except json.JSONDecodeError as e:
        raise InputError(f"{what} is not JSON ({e.msg} at line {e.lineno} column {e.colno})") from None


class RateLimiter:
    """A token bucket per client address: ``per_minute`` actions, at most ``burst`` at once."""

    MAX_CLIENTS = 10_000  # addresses remembered; full buckets are forgotten first

    def __init__(self, per_minute: float, burst: int | None = None, clock=time.monotonic) -> None:
        if per_minute < 0:
            raise ValueError(f"per_minute={per_minute!r} must be >= 0 (0: no limit)")
        self.rate = per_minute / 60.0
        self.burst = float(burst if burst is not None else max(1, math.ceil(per_minute / 4)))
        self.clock = clock
        self.buckets: dict[str, tuple[float, float]] = {}  # address -> (tokens, at)

    def _tokens(self, address: str, now: float) -> float:
        tokens, at = self.buckets.get(address, (self.burst, now))
        return min(self.burst, tokens + (now - at) * self.rate)

    def take(self, address: str) -> float:
        """Take one action for ``address``: 0.0 when allowed, else the seconds to wait."""
        if self.rate == 0:
            return 0.0
        now = self.clock()
        tokens = self._tokens(address, now)
        if tokens < 1:
            return (1 - tokens) / self.rate
        if len(self.buckets) >= self.MAX_CLIENTS:
            self.buckets = {a: b for a, b in self.buckets.items() if self._tokens(a, now) < self.burst}
        self.buckets[address] = (tokens - 1, now)
        return 0.0
