"""Declared, validated game options: every game lists its options once, with the allowed values.

A wrong name or value raises ``ValueError`` naming it and what is allowed, so a typo in a
config never silently plays another game.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Option:
    """One option: its default and either a set of allowed values or a checker.

    ``default`` may be a callable taking the already-resolved options (for defaults that
    depend on other options, like a target that depends on the player count).
    ``check`` returns an error text (what is allowed) or None when the value is fine.
    """

    default: Any
    allowed: tuple | None = None
    check: Callable[[Any], str | None] | None = None
    doc: str = ""

    def validate(self, name: str, value: Any) -> Any:
        if self.allowed is not None:
            # bools are ints in Python: keep True from passing for 1 (and 1 for True)
            ok = any(value == a and isinstance(value, bool) == isinstance(a, bool) for a in self.allowed)
            if not ok:
                raise ValueError(f"option {name}={value!r} is not allowed; allowed values: "
                                 + ", ".join(repr(a) for a in self.allowed))
        if self.check is not None:
            problem = self.check(value)
            if problem:
                raise ValueError(f"option {name}={value!r} is not allowed: {problem}")
        return value


def int_range(lo: int, hi: int | None = None) -> Callable[[Any], str | None]:
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
