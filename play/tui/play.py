"""``muggins-play``: play a muggins_env game against the agents in the terminal.

    muggins-play --game cribbage_v0 --opponents heuristic
    muggins-play --game michigan_v0 --opt num_players=4 --humans 0,2 --opponents heuristic random

The table is drawn from the seat of the human to act (own hand, public piles or layout,
scores, the last moves as that seat saw them); the legal moves are numbered. Type a number, a
move's name or words of it (``5H``, ``go``, ``announce 12``, ``muggins 4``, ``6-4 2``), or
``hint``, ``log``, ``table``, ``help``, ``quit``. With several humans (hot seat) a "pass to
player N" screen hides the previous hand. Every game is saved as a game record (``--save``;
by default ``muggins-games/<env>-seed<seed>-<time>.json``), also when it is left with quit,
Ctrl-C or the end of input; ``muggins-replay`` steps through it.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from muggins_env.play.session import HUMAN, GameSession, MoveError
from muggins_env.play.tui.narrate import notes
from muggins_env.play.tui.prompt import ask
from muggins_env.play.tui.text import move_line, result_lines, scores_line, seat_label

from muggins_env import ENV_NAMES
from muggins_env.extras import report_missing
from muggins_env.kernel.options import parse_opt

QUIT = ("quit", "exit", "q")

HELP = """Type the number of a move, or the move itself: its name or words of it
(cards as 5H, 5♥, TD; tiles as 6-4; e.g. "5H", "go", "announce 12", "muggins 4", "6-4 2").
  hint   what the heuristic would play here, and why
  log    every move so far (as your seat saw it)
  table  draw the table again
  help   this text
  quit   save the game record and leave (Ctrl-C or Ctrl-D do the same)"""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="muggins-play", description="Play a muggins_env game against agents "
                                "in the terminal (one or more human seats).")
    p.add_argument("--game", required=True, choices=ENV_NAMES, metavar="ENV_ID",
                   help="env id: " + ", ".join(ENV_NAMES))
    p.add_argument("--opt", action="append", default=[], metavar="KEY=VALUE", help="game option (repeatable)")
    seats = p.add_mutually_exclusive_group()
    seats.add_argument("--seat", type=int, help="your seat (default 0)")
    seats.add_argument("--humans", help="human seats, comma-separated (hot seat), e.g. 0,2")
    p.add_argument("--opponents", nargs="+", default=["heuristic"], metavar="SPEC",
                   help="agent specs for the other seats, cycled (default: heuristic): random heuristic "
                        "search:200 ppo:path/model.zip, the zoo's zoo:<name> and best:<name> (muggins-eval "
                        "--list-agents names them; each plays the options on its card, e.g. "
                        "zoo:cribbage_v0/standard with --opt muggins=false)")
    p.add_argument("--seed", type=int, help="deal seed (default: random; printed, and kept in the record)")
    p.add_argument("--delay", type=float, default=0.6, help="seconds between agents' moves (default 0.6)")
    p.add_argument("--save", help="game record path (default: muggins-games/<env>-seed<seed>-<time>.json)")
    return p


def _humans(args: argparse.Namespace, n: int, parser: argparse.ArgumentParser) -> list[int]:
    if args.humans is not None:
        try:
            humans = sorted({int(x) for x in args.humans.split(",") if x.strip()})
        except ValueError:
            parser.error(f"--humans {args.humans!r}: give seat numbers separated by commas, e.g. 0,2")
    else:
        humans = [0 if args.seat is None else args.seat]
    bad = [h for h in humans if not 0 <= h < n]
    if bad or not humans:
        parser.error(f"human seat(s) {bad or humans} do not exist: this game has seats 0..{n - 1}")
    return humans


class TerminalTable:
    """The rich console face of one session."""

    def __init__(self, session: GameSession, humans: Sequence[int], delay: float, console) -> None:
        self.s = session
        self.humans = list(humans)
        self.delay = max(0.0, delay)
        self.con = console
        self.last_human: int | None = None
        self.hot_seat = len(self.humans) > 1
        self.before: dict | None = self.public_view()  # the public view before the next move

    # -- drawing -------------------------------------------------------------------------------
    def out(self, text: str = "", style: str | None = None) -> None:
        self.con.print(text, style=style, markup=False, highlight=False)

    def you(self) -> list[int]:
        return [self.last_human] if self.hot_seat and self.last_human is not None else self.humans

    def public_view(self) -> dict:
        """The public view the notes are read from (a human seat's: what is public is the same)."""
        return self.s.env.kernel_state.public_view(self.humans[0])

    def draw_move(self, m) -> None:
        seat = self.last_human if self.hot_seat else (self.humans[0] if len(self.humans) == 1 else None)
        line = move_line(self.s.seen(m, seat), self.s.record.score_unit, self.s.seats, self.you())
        self.out(line, style="bold" if m.player in self.humans else None)
        before, self.before = self.before, self.public_view()
        if before is not None:  # what the move did, in words (counts settled, pegging, verdicts)
            for note in notes(self.s.env_id, before, self.before, m):
                self.out(f"        {note}", style="cyan")
        if m.new_hand:
            self.con.rule(f"a new hand is dealt (hand {len(self.s.record.deals)})")

    def draw_table(self, p: int) -> None:
        from rich.panel import Panel
        from rich.text import Text

        v = self.s.view(p)
        title = f"{self.s.env.game.FACTS.long_name} - seed {self.s.seed} - you are player {p}"
        self.con.print(Panel(Text(v.table), title=title, expand=False))
        if not any(line.startswith("scores: ") for line in v.table.splitlines()):  # one score line
            self.out(scores_line(v.score_unit, v.scores))
        if v.recent and self.hot_seat:  # the screen was cleared: what happened since this seat's turn
            self.out("last moves:")
            for r in v.recent[-5:]:
                self.out(move_line(r, v.score_unit, self.s.seats, [p]))
        self.draw_moves(v.legal_moves)

    def draw_moves(self, legal: dict) -> None:
        from rich.columns import Columns
        from rich.text import Text

        self.out("your moves:", style="bold")
        self.con.print(Columns([Text(f"{k:>2}) {name}") for k, name in enumerate(legal.values(), 1)],
                               padding=(0, 3)))

    # -- the game --------------------------------------------------------------------------------
    def run(self) -> None:
        s = self.s
        self.out(f"{s.env.game.FACTS.long_name}: " + ", ".join(
            seat_label(p, s.seats, self.humans) for p in range(s.num_players)) + f"; seed {s.seed}")
        self.out('type "help" for the commands')
        while not s.is_over:
            for m in s.advance():
                self.draw_move(m)
                if m.player not in self.humans and not s.is_over and self.delay:
                    time.sleep(self.delay)
            if s.is_over:
                break
            self.turn(s.to_act)
        self.finish()

    def turn(self, p: int) -> None:
        s = self.s
        if self.hot_seat and p != self.last_human:
            self.con.clear()
            if ask(self.con, f"Pass to player {p} and press Enter ").strip().lower() in QUIT:
                raise _Quit
            self.con.clear()
        self.last_human = p
        self.draw_table(p)
        while True:
            text = ask(self.con, f"player {p}> ").strip()
            low = text.lower()
            if not low:
                continue
            if low in QUIT:
                raise _Quit
            if low in ("help", "?", "h"):
                self.out(HELP)
                continue
            if low in ("table", "t"):
                self.draw_table(p)
                continue
            if low == "log":
                for m in s.record.moves:
                    self.out(move_line(s.seen(m, p), s.record.score_unit, s.seats, [p]))
                continue
            legal = s.legal_moves()
            if low == "hint":
                _, name, why = s.hint(p)
                self.out(f"hint: {name} - {why}", style="cyan")
                continue
            try:
                if low.isdigit():
                    k = int(low)
                    if not 1 <= k <= len(legal):
                        raise MoveError(f"there is no move {k}: choose 1..{len(legal)}, or type a move")
                    move = s.play(p, list(legal)[k - 1])
                else:
                    move = s.play(p, text)
            except MoveError as e:
                self.out(str(e), style="red")
                continue
            self.draw_move(move)
            return

    def finish(self) -> None:
        s = self.s
        from rich.panel import Panel
        from rich.text import Text

        self.con.print(Panel(Text(s.full_table()), title="the end (every card shown)", expand=False))
        for line in result_lines(s.returns(), s.record.scores, s.record.score_unit, s.record.truncated):
            self.out(line, style="bold")


class _Quit(Exception):
    pass


def default_path(session: GameSession) -> Path:
    return Path("muggins-games") / f"{session.env_id}-seed{session.seed}-{time.strftime('%Y%m%d-%H%M%S')}.json"


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if report_missing("muggins-play", "play", imports=("rich.console",)):
        return 1
    from rich.console import Console
    try:
        options = dict(parse_opt(t) for t in args.opt)
        from muggins_env import make

        n = len(make(args.game, raw=True, **options).possible_agents)
        humans = _humans(args, n, parser)
        agents = [args.opponents[i % len(args.opponents)] for i in range(n - len(humans))]
        seats = [HUMAN if p in humans else agents.pop(0) for p in range(n)]
        session = GameSession(args.game, seats, options=options, seed=args.seed)
    except ValueError as e:
        print(f"muggins-play: error: {e}", file=sys.stderr)
        return 2
    path = Path(args.save) if args.save else default_path(session)
    console = Console(highlight=False)
    table = TerminalTable(session, humans, args.delay, console)
    status = 0
    try:
        table.run()
    except _Quit:
        console.print("\nleaving the game.", markup=False)
    except EOFError:
        console.print("\nend of input: leaving the game.", markup=False)
    except KeyboardInterrupt:
        console.print("\ninterrupted: leaving the game.", markup=False)
        status = 130
    try:
        session.record.save(path)
    except OSError as e:  # the game is not lost: it goes to the temporary folder instead
        fallback = Path(tempfile.gettempdir()) / default_path(session).name
        print(f"muggins-play: could not save the game record to {str(path)!r} ({e.strerror or e}); "
              f"saving it to {fallback}", file=sys.stderr)
        path = session.record.save(fallback)
    k = len(session.record.moves)
    done = "" if session.record.finished else f" (unfinished, {k} move{'' if k == 1 else 's'})"
    console.print(f"game record saved to {path}{done}; replay it with: muggins-replay {path}", markup=False,
                  soft_wrap=True)
    return status


if __name__ == "__main__":
    raise SystemExit(main())
