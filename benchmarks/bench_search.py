"""Speed of the ``search:N`` agent per game: the search of today against its frozen reference.

Plays whole games of ``search:N`` (seat 0) against the heuristic (every other seat) through the
tournament harness (``muggins_env.eval.tournament.play_game``, forced moves skipped, as
``muggins-eval`` plays them), for every game at its default options, twice per deal: once with
``search:N`` as ``make_agent`` builds it today and once with ``ReferenceSearchAgent``
(``benchmarks/search_reference.py``: the search loop and the view-per-step rollouts as they were
before the speed-up). Both play the same deals with the same seeds, interleaved (the order
alternates from round to round), so a burst of load from other processes hits both alike; each
figure is the best (smallest) of ``--repeats`` rounds. Since both make the same decisions, both
play the same games: the run checks that their returns and decision counts agree.

Reports per game seconds per game and games per second of each, and the speed-up (reference
seconds / new seconds). ``--clock cpu`` (the default) times this process's CPU time (what a
single-threaded loop on a shared machine should compare); ``--clock wall`` wall-clock time.

    python benchmarks/bench_search.py                                  # all four games, 3 rounds
    python benchmarks/bench_search.py --games cribbage_v0 --repeats 5 --json bench_search.json
    python benchmarks/bench_search.py --budget cribbage_v0=200 --deals 2 --no-reference
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from muggins_env.agents import make_agent, make_game
from muggins_env.eval.tournament import play_game
from search_reference import make_reference_search

#: the budget per game (the README's strength table: cribbage at 400, Michigan at 200, the others 100)
BUDGETS = {"cribbage_v0": 400, "muggins_dominoes_v0": 100, "michigan_v0": 200, "muggins_cards_v0": 100,
           "muggins_cards_v0/mistakes": 100}
#: configurations beyond a game's default options (name -> game id, options): card Muggins with
#: mistakes is the zoo's configuration, where the search weighs moves (at the defaults it rarely does)
CONFIGS = {"muggins_cards_v0/mistakes": ("muggins_cards_v0", {"mistakes": True})}
CLOCKS = {"cpu": time.process_time, "wall": time.perf_counter}


def _agents(search, game_id: str, options: dict, n: int) -> list:
    return [search] + [make_agent("heuristic", game_id, options) for _ in range(n - 1)]


def _one(make_search, game, game_id: str, options: dict, seed: int, clock) -> tuple[float, tuple]:
    """Seconds of one game with a fresh ``make_search()`` in seat 0 (deal ``seed``; fresh agents,
    so that no cache of an earlier round of the same deal helps), and what the game came to."""
    n = game.num_players
    agents = _agents(make_search(), game_id, options, n)
    rngs = [np.random.default_rng([seed, seat, 0x5EA]) for seat in range(n)]
    gc.collect()
    t0 = clock()
    state, decisions, plies = play_game(game, agents, seed, rngs)
    dt = clock() - t0
    return dt, (tuple(float(x) for x in state.returns()), decisions, plies)


def bench_game(game_id: str, budget: int, options: dict, deals: int, repeats: int, seed: int,
               reference: bool, clock) -> dict:
    game = make_game(game_id, options)
    def new():
        return make_agent(f"search:{budget}", game_id, options)

    def ref():
        return make_reference_search(game_id, options, budget=budget)

    ref = ref if reference else None
    best_new = best_ref = float("inf")
    agree = True
    for r in range(repeats):
        t_new = t_ref = 0.0
        for d in range(deals):
            s = seed + d
            order = ("new", "ref") if (r + d) % 2 == 0 else ("ref", "new")
            out = {}
            for which in order:
                if which == "new":
                    dt, out["new"] = _one(new, game, game_id, options, s, clock)
                    t_new += dt
                elif ref is not None:
                    dt, out["ref"] = _one(ref, game, game_id, options, s, clock)
                    t_ref += dt
            if ref is not None and out["new"] != out["ref"]:
                agree = False
                print(f"  ! {game_id} deal {s}: the new search and the reference played different games: "
                      f"{out['new']} vs {out['ref']}", file=sys.stderr)
        best_new = min(best_new, t_new / deals)
        if ref is not None:
            best_ref = min(best_ref, t_ref / deals)
        print(f"  round {r + 1}/{repeats}: new {t_new / deals:.3f} s/game"
              + (f", reference {t_ref / deals:.3f} s/game" if ref is not None else ""), flush=True)
    row = {"game": game_id, "spec": f"search:{budget}", "options": options, "deals": deals,
           "repeats": repeats, "new_s_per_game": best_new, "new_games_per_s": 1.0 / best_new}
    if ref is not None:
        row.update(reference_s_per_game=best_ref, reference_games_per_s=1.0 / best_ref,
                   speedup=best_ref / best_new, same_games=agree)
    return row


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", nargs="+", default=list(BUDGETS), choices=list(BUDGETS))
    p.add_argument("--budget", nargs="*", default=[], metavar="GAME=N", help="rollouts per decision per game")
    p.add_argument("--deals", type=int, default=1, help="games per round (each deal played by both)")
    p.add_argument("--repeats", type=int, default=3, help="rounds; the best round is reported")
    p.add_argument("--seed", type=int, default=100)
    p.add_argument("--clock", choices=list(CLOCKS), default="cpu")
    p.add_argument("--no-reference", action="store_true", help="time only today's search")
    p.add_argument("--json", type=Path, default=None)
    args = p.parse_args(argv)
    budgets = dict(BUDGETS)
    for item in args.budget:
        g, _, n = item.partition("=")
        if g not in budgets or not n.isdigit():
            p.error(f"--budget {item!r}: use GAME=N with GAME one of {', '.join(budgets)}")
        budgets[g] = int(n)
    clock = CLOCKS[args.clock]
    rows = []
    for g in args.games:
        game_id, options = CONFIGS.get(g, (g, {}))
        print(f"{g} search:{budgets[g]} vs heuristic, options {options or 'default'} ({args.clock} clock)", flush=True)
        row = bench_game(game_id, budgets[g], options, args.deals, args.repeats, args.seed, not args.no_reference,
                         clock)
        rows.append({**row, "game": g})
    print()
    print("| game | spec | reference s/game | new s/game | reference games/s | new games/s | speed-up |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        if "speedup" in r:
            print(f"| {r['game']} | {r['spec']} | {r['reference_s_per_game']:.3f} | {r['new_s_per_game']:.3f} | "
                  f"{r['reference_games_per_s']:.3f} | {r['new_games_per_s']:.3f} | {r['speedup']:.2f}x"
                  + ("" if r["same_games"] else " (games differ!)") + " |")
        else:
            print(f"| {r['game']} | {r['spec']} | - | {r['new_s_per_game']:.3f} | - | {r['new_games_per_s']:.3f} | - |")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return 0 if all(r.get("same_games", True) for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
