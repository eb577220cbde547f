"""``muggins-replay FILE [--seat N]``: step through a saved game record, forward and back.

The record is replayed through the env first (and checked: actors, move names, rewards,
returns). Then each position is drawn from one seat's view (``--seat N``: that player's
table, the other players' face-down cards unnamed) or the full view (default: every card).
Keys: Enter or ``n`` next move, ``b`` back, a number goes to that move, ``s`` start,
``e`` end, ``q`` quit. ``--auto`` prints the whole game without asking (``--delay`` between
moves; ``--tables`` draws the table after every move, not only at each new hand and the end).
A language-model player's exchanges (``MoveRecord.llm``: what it was asked, what it answered,
what was parsed, a retry's reason, a fallback) are shown under its moves, in the full view and
from that player's own seat.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

from muggins_env.play.session import GameSession
from muggins_env.play.tui.prompt import ask
from muggins_env.play.tui.text import move_line, result_lines, scores_line

from muggins_env.extras import report_missing
from muggins_env.records import GameRecord, MoveRecord, RecordError, load, positions

HELP = "Enter/n: next move   b: back   <number>: go to that move   s: start   e: end   q: quit"


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def llm_lines(move: MoveRecord, seat: int | None = None) -> list[str]:
    """What a language-model player was asked and answered for ``move`` (``MoveRecord.llm``),
    shown in the full view and to the seat that played it only (its prompt is that seat's view)."""
    if not move.llm or (seat is not None and seat != move.player):
        return []
    out = []
    for e in move.llm:
        if "fallback" in e:
            out.append(f"     fallback {e['fallback']} plays {e.get('move')}")
        elif "error" in e:
            out.append(f"     model asked, no answer: {_short(e['error'])}")
        else:
            verdict = (f"-> {e.get('move')}" if e.get("legal") else f"refused: {_short(e.get('reason', ''), 100)}")
            out.append(f"     model asked ({len(e.get('prompt') or [])} message(s)), answered {_short(e.get('answer', ''))!r}"
                       f"; parsed {e.get('parsed')!r} {verdict}")
    return out


def game_lines(record: GameRecord, seat: int | None = None, tables: bool = False) -> list[str]:
    """The whole game as text, move by move, from ``seat``'s view (None: the full view): the
    table at the start, at each new hand (before its first move) and at the end."""
    states = positions(record)
    you = [seat] if seat is not None else []
    unit = record.score_unit
    opts = " " + ", ".join(f"{k}={v}" for k, v in record.options.items()) if record.options else ""
    lines = [f"== {record.env_id}{opts}, seed {record.seed}: "
             + ", ".join(f"player {p} {kind}" for p, kind in enumerate(record.seats)), states[0].render(seat)]
    for m, after in zip(record.moves, states[1:]):
        lines.append(move_line(GameSession.seen(m, seat), unit, record.seats, you))
        lines += llm_lines(m, seat)
        if m.new_hand:
            lines.append(f"-- a new hand is dealt; {scores_line(unit, m.scores)}")
        if tables or m.new_hand:
            lines.append(after.render(seat))
    if record.finished:
        lines.append(states[-1].render(seat))
        lines += result_lines(record.returns, record.scores, unit, record.truncated)
    else:
        lines.append(f"(the record stops after move {len(record.moves)}: the game was left unfinished)")
    return lines


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="muggins-replay", description="Step through a saved muggins_env game "
                                "record, from one seat's view or the full view.")
    p.add_argument("file", help="a game record (JSON) written by muggins-play or muggins-eval --save-games")
    p.add_argument("--seat", type=int, help="draw the game from this seat's view (default: the full view)")
    p.add_argument("--auto", action="store_true", help="print the whole game move by move, without asking")
    p.add_argument("--tables", action="store_true", help="with --auto: draw the table after every move")
    p.add_argument("--delay", type=float, default=0.0, help="with --auto: seconds between moves")
    return p


def interactive(record: GameRecord, seat: int | None, console) -> None:
    from rich.panel import Panel
    from rich.text import Text

    states = positions(record)
    last = len(record.moves)
    k = 0
    while True:
        view = "the full view" if seat is None else f"player {seat}'s view"
        title = f"{record.env_id} seed {record.seed} - move {k}/{last} - {view}"
        console.print(Panel(Text(states[k].render(seat)), title=title, expand=False))
        if k:
            m = record.moves[k - 1]
            console.print("last move: " + move_line(GameSession.seen(m, seat), record.score_unit, record.seats,
                                                    [seat] if seat is not None else []).strip(), markup=False)
            for line in llm_lines(m, seat):
                console.print(line, markup=False)
        if k == last and record.finished:
            for line in result_lines(record.returns, record.scores, record.score_unit, record.truncated):
                console.print(line, markup=False)
        key = ask(console, "replay> ").strip().lower()
        if key in ("q", "quit", "exit"):
            return
        if key in ("", "n", "next"):
            k = min(k + 1, last)
        elif key in ("b", "back", "p"):
            k = max(k - 1, 0)
        elif key in ("s", "start"):
            k = 0
        elif key in ("e", "end"):
            k = last
        elif key.isdigit() and int(key) <= last:
            k = int(key)
        else:
            console.print(f"{key!r}? " + HELP + f" (moves 0..{last})", markup=False)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        record = load(args.file)
        if args.seat is not None and not 0 <= args.seat < len(record.seats):
            raise RecordError(f"--seat {args.seat}: this game has seats 0..{len(record.seats) - 1}")
        if args.auto:
            for line in game_lines(record, args.seat, args.tables):
                print(line, flush=True)
                if args.delay:
                    time.sleep(args.delay)
            return 0
        if report_missing("muggins-replay", "play", "the interactive replay (else --auto)", imports=("rich.console",)):
            return 1
        from rich.console import Console
        console = Console(highlight=False)
        console.print(HELP, markup=False)
        try:
            interactive(record, args.seat, console)
        except (EOFError, KeyboardInterrupt):
            console.print("", markup=False)
    except RecordError as e:
        print(f"muggins-replay: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
