"""Show one game of each env move by move: who acts, the move in words, the points it scored
and the new scores, with the table at the start, at each new hand and at the end.

``python -m muggins_env.demo [--game ID] [--seed N] [--agents SPEC ...]`` (``make play``): the
game is played by agents through a game session, and what is printed is the replay of its game
record (``muggins_env.records``), so it also checks that every env's records replay. Needs no
training extras.
"""

from __future__ import annotations

import argparse

from . import ENV_NAMES, make
from .records import replay
from .session import GameSession
from .tui.replay import game_lines


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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=ENV_NAMES, action="append", help="env id (default: all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--agents", nargs="+", default=["heuristic"], metavar="SPEC",
                        help="agent specs, cycled over the seats (default: heuristic)")
    parser.add_argument("--tables", action="store_true", help="draw the table after every move")
    args = parser.parse_args(argv)
    for name in args.game or ENV_NAMES:
        print(play(name, args.seed, args.agents, args.tables))
        print()


if __name__ == "__main__":
    main()
