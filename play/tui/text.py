"""Plain-text lines of a game, shared by the terminal UI, the replayer and ``make play``."""

from __future__ import annotations

from collections.abc import Sequence


def seat_label(player: int, seats: Sequence[str], you: Sequence[int] = ()) -> str:
    """``player 1 (heuristic)``, ``player 0 (you)``; human seats are just ``player 2``."""
    if player in you:
        return f"player {player} (you)" if len(you) == 1 else f"player {player}"
    kind = seats[player]
    return f"player {player}" if kind == "human" else f"player {player} ({kind})"


def number(x: float) -> str:
    return f"{x:g}"


def scores_line(unit: str, scores: Sequence[float]) -> str:
    return f"{unit}: " + ", ".join(f"player {p}: {number(s)}" for p, s in enumerate(scores))


def points_text(unit: str, points: Sequence[float]) -> str:
    """What a move changed on the scoreboard: ``+2 player 1``; empty when nothing."""
    return ", ".join(f"{'+' if d > 0 else ''}{number(d)} player {p}" for p, d in enumerate(points) if d)


def move_line(move: dict, unit: str, seats: Sequence[str], you: Sequence[int] = ()) -> str:
    """One move as a seat saw it (``GameSession.seen``): who, the move, the points, the scores."""
    who = seat_label(move["player"], seats, you)
    text = f"{move['ply'] + 1:>4}. {who}: {move['move']}" + (" (forced)" if move["forced"] else "")
    gained = points_text(unit, move["points"])
    if gained:
        text += f"   ({gained}; {unit} now {' / '.join(number(s) for s in move['scores'])})"
    return text


def result_lines(returns: Sequence[float], scores: Sequence[float] | None, unit: str, truncated: bool) -> list[str]:
    """The end of a game: who won (the top return) and every seat's return and score."""
    top = max(returns)
    winners = [p for p, r in enumerate(returns) if abs(r - top) <= 1e-9]
    if truncated:
        head = "the game was stopped by its move limit"
    elif len(winners) == len(returns):
        head = "a draw"
    elif len(winners) == 1:
        head = f"player {winners[0]} wins"
    else:
        head = "players " + ", ".join(map(str, winners)) + " win"
    lines = [f"final result: {head}"]
    for p, r in enumerate(returns):
        score = f", {unit} {number(scores[p])}" if scores is not None else ""
        lines.append(f"  player {p}: return {r:+.3f}{score}")
    return lines
