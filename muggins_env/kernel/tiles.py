"""Domino tiles as small ints, shared by every dominoes game of the suite.

Tile id contract: a tile with halves ``high >= low`` has id ``high * (high + 1) // 2 + low``.
The order is 0-0, 1-0, 1-1, 2-0, 2-1, 2-2, ... so a double-N set is exactly the ids
``0 .. (N+1)(N+2)/2 - 1`` and a smaller set's ids are a prefix of a larger set's:
double-6 has 28 tiles (ids 0..27), double-9 55, double-12 91, double-15 136.
Notation ``"5-3"`` (high half first); parsing accepts either order (``"3-5"``) and ``"5:3"``.
"""

from __future__ import annotations

from collections.abc import Iterable

MAX_PIPS = 15
SET_SIZES = {n: (n + 1) * (n + 2) // 2 for n in (6, 9, 12, 15)}


def tile_id(a: int, b: int) -> int:
    hi, lo = (a, b) if a >= b else (b, a)
    if lo < 0 or hi > MAX_PIPS:
        raise ValueError(f"no tile {a}-{b}: halves run from 0 to {MAX_PIPS}")
    return hi * (hi + 1) // 2 + lo


def num_tiles(set_max: int) -> int:
    return (set_max + 1) * (set_max + 2) // 2


#: halves of every tile id up to double-15: (high, low)
HALVES: list[tuple[int, int]] = [(hi, lo) for hi in range(MAX_PIPS + 1) for lo in range(hi + 1)]
HIGH = [h for h, _ in HALVES]
LOW = [lo for _, lo in HALVES]
IS_DOUBLE = [h == lo for h, lo in HALVES]
WEIGHT = [h + lo for h, lo in HALVES]


def halves(tile: int) -> tuple[int, int]:
    return HALVES[tile]


def parse_tile(text: str | int, set_max: int = MAX_PIPS) -> int:
    """Parse ``"5-3"`` / ``"3-5"`` / ``"5:3"`` (or pass an id through) into a tile id."""
    if isinstance(text, int) and not isinstance(text, bool):
        return check_tile(text, set_max)
    if not isinstance(text, str):
        raise ValueError(f"tile {text!r} is neither a tile id nor a string like '5-3'")
    parts = text.strip().replace(":", "-").split("-")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise ValueError(f"malformed tile {text!r}: expected two pip counts like '5-3'")
    a, b = int(parts[0]), int(parts[1])
    if max(a, b) > set_max:
        raise ValueError(f"tile {text!r} is not in a double-{set_max} set (halves 0..{set_max})")
    return tile_id(a, b)


def check_tile(tile: int, set_max: int = MAX_PIPS) -> int:
    n = num_tiles(set_max)
    if isinstance(tile, bool) or not isinstance(tile, int) or not 0 <= tile < n:
        raise ValueError(f"tile id {tile!r} is out of range: a double-{set_max} set has ids 0..{n - 1}")
    return tile


def parse_tiles(tiles: Iterable[str | int] | str, set_max: int = MAX_PIPS) -> list[int]:
    if isinstance(tiles, str):
        tiles = tiles.split()
    return [parse_tile(t, set_max) for t in tiles]


def format_tile(tile: int) -> str:
    hi, lo = HALVES[tile]
    return f"{hi}-{lo}"


def format_tiles(tiles: Iterable[int]) -> str:
    return " ".join(format_tile(t) for t in tiles)
