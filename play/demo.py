"""Show one game of each env move by move: who acts, the move in words, the points it scored
and the new scores, with the table at the start, at each new hand and at the end.

``python -m muggins_env.play.demo [--game ID] [--seed N] [--agents SPEC ...] [--delay S] [--pause]``
(``make play``, ``make play GAME=cribbage_v0 DELAY=0.3``): ``--delay`` paces the lines,
``--pause`` waits for Enter after each game. The game is played by agents through a game
session, and what is printed is the replay of its game record (``muggins_env.records``), so it
also checks that every env's records replay. Needs no training extras.
"""

from __future__ import annotations

import argparse
import sys
import time

from muggins_env.play.session import GameSession
from muggins_env.play.tui.replay import game_lines

from muggins_env import ENV_NAMES, make
from muggins_env.records import replay


def play(name: str, seed: int, agents: list[str] | None = None, tables: bool = False) -> str:
    agents = agents or ["heuristic"]
    n = len(make(name, raw=True).possible_agents)
    session = GameSession(name, [agents[i % len(agents)] for i in range(n)], seed=seed)
    for _ in session.advance():
        pass
    record = session.record
    if replay(record) != session.returns():  # replay() raises first on any difference
        raise AssertionError(f"{name}: the record did not replay to the game's returns")
    return "\n".join(game_lines(record, tables=tables))


def _seconds(text: str) -> float:
    value = float(text)
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"--delay {text!r}: give seconds >= 0, e.g. --delay 0.3")
    return value


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="muggins-demo", description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=ENV_NAMES, action="append", help="env id (repeatable; default: all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--agents", nargs="+", default=["heuristic"], metavar="SPEC",
                        help="agent specs, cycled over the seats (default: heuristic)")
    parser.add_argument("--tables", action="store_true", help="draw the table after every move")
    parser.add_argument("--delay", type=_seconds, default=0.0, metavar="S",
                        help="seconds to wait after each line (default 0: all at once)")
    parser.add_argument("--pause", action="store_true", help="wait for Enter after each game")
    args = parser.parse_args(argv)
    names = args.game or ENV_NAMES
    for i, name in enumerate(names):
        for line in play(name, args.seed, args.agents, args.tables).splitlines():
            print(line, flush=True)
            if args.delay:
                time.sleep(args.delay)
        print()
        if args.pause and i + 1 < len(names):
            print(f"(Enter: the next game, {names[i + 1]})", end="", flush=True)
            if not sys.stdin.readline():
                break


if __name__ == "__main__":
    main()
