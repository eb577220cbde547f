"""Declared, validated game options: every game lists its options once, with the allowed values.

A wrong name or value raises ``ValueError`` naming it and what is allowed, so a typo in a
config never silently plays another game.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Option:
    """One option: its default and either a set of allowed values or a checker.

    ``default`` may be a callable taking the already-resolved options (for defaults that
    depend on other options, like a target that depends on the player count).
    ``check`` returns an error text (what is allowed) or None when the value is fine.
    ``since`` is the env version that introduced the option (the env pages' version history):
    an option added to a ``_v0`` env keeps the old game as its default, so it is still ``v0``'s
    contract, and says so here.
    """

    default: Any
    allowed: tuple | None = None
    check: Callable[[Any], str | None] | None = None
    doc: str = ""
    since: str = "v0"

    def validate(self, name: str, value: Any) -> Any:
        """The value as the game uses it (a numpy int, bool or str becomes the plain Python one)."""
        value = plain(value)
        if self.allowed is not None:
            # a value of another kind never passes for an allowed one: True is not 1, 4.0 not 4
            ok = any(value == a and _kind(value) == _kind(a) for a in self.allowed)
            if not ok:
                raise ValueError(f"option {name}={value!r} is not allowed; allowed values: "
                                 + ", ".join(repr(a) for a in self.allowed))
        if self.check is not None:
            problem = self.check(value)
            if problem:
                raise ValueError(f"option {name}={value!r} is not allowed: {problem}")
        return value


def plain(value: Any) -> Any:
    """A numpy bool, integer or string as the Python one (``np.int64(4)`` -> 4); anything else as is."""
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.str_):
        return str(value)
    return value


def _kind(value: Any) -> type:
    for kind in (bool, int, float, str):  # bool first: True is an int too
        if isinstance(value, kind):
            return kind
    return type(value)


def int_range(lo: int, hi: int | None = None) -> Callable[[Any], str | None]:
    """A check for an int option (after ``plain``: numpy ints pass, bools and floats do not)."""

    def check(v: Any) -> str | None:
        if isinstance(v, bool) or not isinstance(v, int) or v < lo or (hi is not None and v > hi):
            return f"expected an int from {lo} to {hi}" if hi is not None else f"expected an int >= {lo}"
        return None

    return check


def resolve_options(declared: Mapping[str, Option], given: Mapping[str, Any], game: str) -> dict[str, Any]:
    """Validate ``given`` against ``declared`` and fill in the defaults, in declaration order."""
    unknown = sorted(set(given) - set(declared))
    if unknown:
        raise ValueError(f"unknown option(s) {', '.join(map(repr, unknown))} for {game}; "
                         f"known options: {', '.join(declared)}")
    out: dict[str, Any] = {}
    for name, opt in declared.items():
        if name in given and given[name] is not None:
            out[name] = opt.validate(name, given[name])
        else:
            out[name] = opt.default(out) if callable(opt.default) else opt.default
    return out


def parse_value(raw: str) -> object:
    """An option value from the command line: int, float, true/false, none, else the string
    (so ``muggins=off`` stays the string "off", unlike YAML 1.1)."""
    for conv in (int, float):
        try:
            return conv(raw)
        except ValueError:
            pass
    low = raw.lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("none", "null"):
        return None
    return raw


def parse_opt(text: str) -> tuple[str, object]:
    """``--opt key=value`` of a command (``muggins-eval``, ``muggins-play``): ``(key, value)``."""
    if "=" not in text:
        raise ValueError(f"--opt {text!r}: write key=value, e.g. --opt num_players=2")
    key, _, raw = text.partition("=")
    return key.strip(), parse_value(raw.strip())
