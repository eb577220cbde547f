"""The strongest shipped player of each zoo configuration against the search it must beat.

For every configuration in ``agents/zoo/players.json`` (issue 31 items 5 and 6) it plays,
on the card's own game options, duplicate deals with every seat rotated (``lineup="single"``:
the player alone against a field of the opponent):
- ``best:<name>`` (the record's spec) against its ``compared_with`` search (head to head);
- the network alone, ``zoo:<name>``, against the same search (the zoo card's "vs search" figure).
Each agent's own thinking time is measured (a wrapper around ``act``), so the time per move of
the strongest player and of the search it is compared with are reported side by side.

    python benchmarks/strongest_players.py --out benchmarks/results/zoo/strongest
    python benchmarks/strongest_players.py --configs michigan_v0 --deals 100 --seed 34000
    python benchmarks/strongest_players.py --against heuristic --no-network --out DIR   # best:<name> vs the heuristic
    python benchmarks/strongest_players.py --configs cribbage_v0 --no-best --out DIR    # the network alone, added to DIR's file
    python benchmarks/strongest_players.py --out DIR --write   # the figures onto players.json and the cards

``--write`` stores each measured row on the record (``evaluation``, ``summary``) and on the zoo
model's card (``vs_search``); nothing is written for a configuration that was not run.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

ZOO = Path(__file__).resolve().parents[1] / "agents" / "zoo"


class Timed:
    """An agent whose ``act`` calls are timed (seconds and count, over every seat it holds) by
    ``clock`` (wall time; ``time.process_time`` for this process's CPU time)."""

    def __init__(self, agent: Any, label: str, clock: Any = time.perf_counter) -> None:
        self.agent, self.name, self.clock = agent, label, clock
        self.needs_info = getattr(agent, "needs_info", True)
        self.needs_sampler = getattr(agent, "needs_sampler", False)
        self.seconds, self.moves = 0.0, 0

    def reset(self) -> None:
        reset = getattr(self.agent, "reset", None)
        if callable(reset):
            reset()

    def act(self, observation, action_mask, rng, info=None) -> int:
        t0 = self.clock()
        a = self.agent.act(observation, action_mask, rng, info)
        self.seconds += self.clock() - t0
        self.moves += 1
        return a

    def __repr__(self) -> str:
        return self.name


def head_to_head(game_id: str, options: dict, spec: str, opponent: str, deals: int, seed: int) -> dict:
    from muggins_env.agents import make_agent
    from muggins_env.eval import run_tournament
    from muggins_env.eval.report import summarise

    a = Timed(make_agent(spec, game_id, options), spec)
    b = Timed(make_agent(opponent, game_id, options), opponent)
    result = run_tournament(game_id, options, [a, b], deals, seed=seed, workers=1, lineup="single", progress=False)
    s = summarise(result)["agents"][0]
    return {"agent": spec, "opponent": opponent, "deals": deals, "seed": seed, "games": len(result.records),
            "win_rate": round(s["win_rate"], 4), "win_rate_ci95": [round(x, 4) for x in s["win_rate_dup_ci95"]],
            "parity": s["parity"], "beats_parity": bool(s["beats_parity_dup"]),
            "below_parity": bool(s["below_parity_dup"]),
            "mean_return": round(s["mean_return"], 4), "mean_return_ci95": [round(x, 4) for x in s["mean_return_ci95"]],
            "ms_per_move": round(1000 * a.seconds / max(1, a.moves), 2),
            "opponent_ms_per_move": round(1000 * b.seconds / max(1, b.moves), 2),
            "seconds": round(result.seconds, 1)}


def verdict(row: dict) -> str:
    return "beats" if row["beats_parity"] else "loses to" if row["below_parity"] else "ties"


def main(argv: list[str] | None = None) -> int:
    from muggins_env.agents.zoo import best_players, model_card, play_options

    players = best_players()
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--configs", nargs="+", default=list(players), help=f"zoo configurations ({', '.join(players)})")
    p.add_argument("--deals", type=int, default=100, help="duplicate deals per pairing (default 100)")
    p.add_argument("--seed", type=int, default=34000, help="first deal seed (default 34000)")
    p.add_argument("--no-network", action="store_true", help="only the strongest player, not the network alone")
    p.add_argument("--no-best", action="store_true", help="only the network alone, not the strongest player")
    p.add_argument("--against", default=None, help="play this opponent instead of the record's search (e.g. "
                   "heuristic); rows go to <config>.vs_<opponent>.json")
    p.add_argument("--out", default=None, help="folder for <config>.json per configuration")
    p.add_argument("--write", action="store_true", help="store the rows from --out on players.json and the cards")
    args = p.parse_args(argv)
    unknown = [c for c in args.configs if c not in players]
    if unknown:
        p.error(f"unknown configuration(s) {unknown}; allowed: {', '.join(players)}")
    out = Path(args.out) if args.out else None
    if args.write:
        if out is None:
            p.error("--write needs --out (the folder of the measured rows)")
        return write(players, args.configs, out)
    if args.no_best and args.no_network:
        p.error("--no-best with --no-network leaves nothing to play")
    if out:
        out.mkdir(parents=True, exist_ok=True)
    for name in args.configs:
        record = players[name]
        card = model_card(name)
        game_id, options = card["game"], play_options(card["game_options"])
        suffix = f".vs_{args.against.replace(':', '_')}" if args.against else ""
        path = out / f"{name.replace('/', '_')}{suffix}.json" if out else None
        # a row measured earlier stays in the file unless this run measures it again
        rows = json.loads(path.read_text()) if path and path.is_file() else {}
        rows.update({"config": name, "game": game_id, "options": options})
        opponent = args.against or record["compared_with"]
        if not args.no_best:
            rows["best"] = head_to_head(game_id, options, record["spec"], opponent, args.deals, args.seed)
            print(json.dumps(rows["best"]), flush=True)
        if not args.no_network:
            rows["network"] = head_to_head(game_id, options, f"zoo:{name}", opponent, args.deals, args.seed)
            print(json.dumps(rows["network"]), flush=True)
        if path:
            path.write_text(json.dumps(rows, indent=1) + "\n")
    return 0


def write(players: dict, configs: list[str], out: Path) -> int:
    for name in configs:
        stem = name.replace("/", "_")
        path, vs_h = out / f"{stem}.json", out / f"{stem}.vs_heuristic.json"
        record = players[name]
        if vs_h.is_file():
            record["vs_heuristic"] = json.loads(vs_h.read_text())["best"]
        if not path.is_file():
            print(f"{name}: no {path}: not measured against {record['compared_with']}")
            continue
        rows = json.loads(path.read_text())
        if "best" not in rows:
            print(f"{name}: no best row in {path}")
            continue
        best = rows["best"]
        record["evaluation"] = best
        record["summary"] = (
            f"{verdict(best)} {best['opponent']} head to head: win rate {best['win_rate']:.3f} "
            f"[{best['win_rate_ci95'][0]:.3f}, {best['win_rate_ci95'][1]:.3f}] over {best['deals']} duplicate deals "
            f"(seed {best['seed']}, parity {best['parity']:.2f}), {best['ms_per_move']:.0f} ms a move vs "
            f"{best['opponent_ms_per_move']:.0f}"
            + (f"; vs heuristic {record['vs_heuristic']['win_rate']:.3f}" if "vs_heuristic" in record else ""))
        if "network" in rows:
            card_path = ZOO / name.partition("/")[0] / (name.partition("/")[2] or "default") / "model_card.json"
            card = json.loads(card_path.read_text())
            card["vs_search"] = rows["network"]
            card_path.write_text(json.dumps(card, indent=1) + "\n")
        print(f"{name}: {record['summary']}")
    (ZOO / "players.json").write_text(json.dumps(players, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
