"""Seat arithmetic: clockwise order, relative seats and partnerships.

Seats are 0..n-1 clockwise; "left of X" is (X+1) mod n (docs/rules/index.md, common conventions).
"""

from __future__ import annotations

from collections.abc import Callable


def left_of(seat: int, n: int) -> int:
    return (seat + 1) % n


def clockwise_from_left(seat: int, n: int) -> list[int]:
    """The other seats in the order X+1, X+2, ... (wrapping), X excluded."""
    return [(seat + k) % n for k in range(1, n)]


def first_clockwise(seat: int, n: int, pred: Callable[[int], bool]) -> int | None:
    """First seat clockwise from ``seat``'s left that satisfies ``pred``, or None."""
    for k in range(1, n):
        s = (seat + k) % n
        if pred(s):
            return s
    return None


def relative_seat(observer: int, seat: int, n: int) -> int:
    """Where ``seat`` sits as seen by ``observer``: 0 self, 1 the left neighbour, ..."""
    return (seat - observer) % n


def absolute_seat(observer: int, rel: int, n: int) -> int:
    return (observer + rel) % n


def team_of(seat: int, n: int, partnerships: bool) -> int:
    """Partnerships seat partners opposite (0 & 2 against 1 & 3); otherwise each seat is a team."""
    return seat % 2 if partnerships else seat


def num_teams(n: int, partnerships: bool) -> int:
    return 2 if partnerships else n


def teammates(seat: int, n: int, partnerships: bool) -> list[int]:
    t = team_of(seat, n, partnerships)
    return [s for s in range(n) if team_of(s, n, partnerships) == t]


def opponents_clockwise(seat: int, n: int, partnerships: bool) -> list[int]:
    """Seats of the other side, clockwise from ``seat``'s left (responders to a count)."""
    t = team_of(seat, n, partnerships)
    return [s for s in clockwise_from_left(seat, n) if team_of(s, n, partnerships) != t]
