"""Search settings judged decision by decision: mean regret against a reference, and time a decision.

Whole games need thousands of deals to tell two searches apart; this judges them on the same
positions against one reference, with far less noise, as a screen before a pre-registered match.

``positions``: seeded self-play games of ``--player`` (default ``search:100``); each decision with
two or more legal moves is kept with chance ``--rate``, as the game's seed and the actions that led
there (JSON: replayed, never unpickled). Its reference values: every legal move (at most ``--cap``,
the heuristic's best ones, where it ranks more) played out in the same ``--worlds`` worlds drawn
from what the player may know (``resample_inferred``) with the search's own rollouts and evaluator.

``regret``: each agent decides at every position once (its own seeded stream); its regret is the
best move's reference value less that of its move (0 when it is the best). Reported per agent: the
mean regret with its 95% interval, the paired difference to the first agent, the share of moves
outside the valued ones (not counted), and the CPU milliseconds of its decisions.

    python benchmarks/decision_regret.py positions --game muggins_dominoes_v0 --games 50 \\
        --seed 92000 --worlds 600 --out runs/regret/dominoes_92000.json
    python benchmarks/decision_regret.py regret runs/regret/dominoes_*.json --agents search:100 \\
        search:200,worlds=inferred
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np


def _opt(text: str) -> tuple[str, Any]:
    key, _, value = text.partition("=")
    if value.lower() in ("true", "false"):
        return key, value.lower() == "true"
    return key, int(value) if value.lstrip("-").isdigit() else value


def _replay(game: Any, seed: int, actions: list[int]) -> Any:
    state = game.new_initial_state(seed=seed)
    for a in actions:
        state.apply(a)
    return state


def positions(args: argparse.Namespace) -> None:
    from muggins_env.agents import make_agent, make_game

    from muggins_env.decision import agent_inputs

    options = dict(args.opt)
    game = make_game(args.game, options)
    player = make_agent(args.player, args.game, options)
    reference = make_agent("search:100,worlds=inferred", args.game, options)
    heuristic = reference.heuristic
    pick = np.random.default_rng([args.seed, 7])
    out = []
    for g in range(args.games):
        seed = args.seed + g
        state = game.new_initial_state(seed=seed)
        rng = np.random.default_rng(seed)
        actions: list[int] = []
        while not state.is_terminal():
            p = state.current_player()
            mask = state.legal_actions_mask()
            legal = [int(a) for a in np.flatnonzero(mask)]
            if len(legal) >= 2 and pick.random() < args.rate:
                _, info = agent_inputs(reference, state.clone(), p, mask.copy())
                if len(legal) > args.cap and hasattr(heuristic, "candidates"):
                    legal = sorted(int(a) for a in heuristic.candidates(info["view"], np.array(legal), args.cap))
                values = reference._evaluate(legal, list(range(len(legal))), args.worlds, info["resample"],
                                             np.random.default_rng([seed, len(actions)]))
                out.append({"seed": seed, "actions": list(actions), "moves": legal,
                            "values": values.mean(axis=0).round(6).tolist(),
                            "se": (values.std(axis=0, ddof=1) / np.sqrt(args.worlds)).round(6).tolist()})
            obs, info = agent_inputs(player, state, p, mask)
            a = int(player.act(obs, mask.copy(), rng, info))
            actions.append(a)
            state.apply(a)
        print(f"game {g + 1}/{args.games}: {len(out)} positions", flush=True)
    with open(args.out, "w") as f:
        json.dump({"game": args.game, "options": options, "player": args.player, "worlds": args.worlds,
                   "positions": out}, f)


def regret(args: argparse.Namespace) -> None:
    from muggins_env.agents import make_agent, make_game

    from muggins_env.decision import agent_inputs

    sets = [json.loads(Path(path).read_text()) for path in args.files]
    game_id, options = sets[0]["game"], sets[0]["options"]
    if any((s["game"], s["options"]) != (game_id, options) for s in sets):
        raise SystemExit("the position files are of different games or options")
    found = [p for s in sets for p in s["positions"]]
    game = make_game(game_id, options)
    first = None
    print(f"{len(found)} positions of {game_id} {options}")
    for spec in args.agents:
        agent = make_agent(spec, game_id, options)
        regrets = np.full(len(found), np.nan)
        cpu = 0.0
        for i, pos in enumerate(found):
            state = _replay(game, pos["seed"], pos["actions"])
            p = state.current_player()
            mask = state.legal_actions_mask()
            obs, info = agent_inputs(agent, state, p, mask)
            t = time.process_time()
            a = int(agent.act(obs, mask.copy(), np.random.default_rng([i, 11]), info))
            cpu += time.process_time() - t
            if a in pos["moves"]:
                values = pos["values"]
                regrets[i] = max(values) - values[pos["moves"].index(a)]
        n = np.count_nonzero(~np.isnan(regrets))
        mean = float(np.nanmean(regrets))
        half = 1.96 * float(np.nanstd(regrets, ddof=1)) / np.sqrt(n)
        line = f"{spec}: regret {mean * 1e3:.2f}e-3 +- {half * 1e3:.2f}"
        if first is None:
            first = regrets
        else:
            both = ~np.isnan(regrets) & ~np.isnan(first)
            d = regrets[both] - first[both]
            line += (f", minus the first's {d.mean() * 1e3:+.2f}e-3 "
                     f"+- {1.96 * d.std(ddof=1) / np.sqrt(len(d)) * 1e3:.2f}")
        line += f", outside {len(found) - n}, {cpu / len(found) * 1e3:.2f} ms a decision"
        print(line, flush=True)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    pp = sub.add_parser("positions", help="positions of seeded self-play and their reference values")
    pp.add_argument("--game", required=True)
    pp.add_argument("--opt", action="append", default=[], type=_opt, help="a game option, key=value")
    pp.add_argument("--player", default="search:100")
    pp.add_argument("--games", type=int, default=50)
    pp.add_argument("--seed", type=int, default=0)
    pp.add_argument("--rate", type=float, default=1 / 6, help="the chance a decision is kept")
    pp.add_argument("--cap", type=int, default=8, help="the most moves valued at one position")
    pp.add_argument("--worlds", type=int, default=600)
    pp.add_argument("--out", required=True)
    rp = sub.add_parser("regret", help="each agent's regret on the positions")
    rp.add_argument("files", nargs="+")
    rp.add_argument("--agents", nargs="+", required=True)
    args = ap.parse_args(argv)
    positions(args) if args.command == "positions" else regret(args)


if __name__ == "__main__":
    main()
