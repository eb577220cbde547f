"""Time per move of two agents on the same games (issue 47: "time per move reported for both sides").

Plays ``--games`` games of agent A against agent B (A at the even seats in even games, at the odd
ones in odd games: with 4 in partnerships, a partnership of each), through the tournament harness's ``play_game`` (forced moves skipped, as
``muggins-eval`` plays them), and times every ``act`` call of each with this process's CPU time
(so load from other processes on a shared machine hits neither), reporting milliseconds per
decision of each. A timing, not a strength test (the games are few):

    python benchmarks/time_per_move.py --game cribbage_v0 --opt muggins=false \\
        --agents search:100,value=table search:100 --games 6 --seed 1
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import numpy as np
from strongest_players import Timed  # this folder: run as python benchmarks/time_per_move.py


def _opt(text: str) -> tuple[str, Any]:
    key, _, value = text.partition("=")
    if value.lower() in ("true", "false"):
        return key, value.lower() == "true"
    return key, int(value) if value.lstrip("-").isdigit() else value


def main(argv: list[str] | None = None) -> None:
    from muggins_env.agents import make_agent, make_game
    from muggins_env.eval.tournament import play_game

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", required=True)
    ap.add_argument("--opt", action="append", default=[], type=_opt, help="a game option, key=value")
    ap.add_argument("--agents", nargs=2, required=True, metavar=("A", "B"))
    ap.add_argument("--games", type=int, default=6)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    options = dict(args.opt)
    game = make_game(args.game, options)
    n = game.num_players
    if n % 2:
        raise SystemExit(f"time_per_move seats the two agents alternately: an even number of players, not {n}")
    timed = [Timed(make_agent(spec, args.game, options), spec, clock=time.process_time) for spec in args.agents]
    for g in range(args.games):
        seats = [timed[(s + g) % 2] for s in range(n)]
        rngs = [np.random.default_rng((args.seed, g, s)) for s in range(n)]
        play_game(game, seats, args.seed * 1000 + g // 2, rngs)
    out = {spec: {"moves": t.moves, "ms_per_move": round(1000 * t.seconds / max(t.moves, 1), 2)}
           for spec, t in zip(args.agents, timed)}
    print(json.dumps({"game": args.game, "options": options, "games": args.games, "seed": args.seed,
                      "clock": "process CPU", "agents": out}))


if __name__ == "__main__":
    main()
