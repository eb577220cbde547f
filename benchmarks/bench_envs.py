"""Random-play throughput of every env, side by side with OpenSpiel and PettingZoo references.

Measures player decisions per second (chance events are timed but not counted) and games per
second, for each game and a few configurations, through:
  kernel   the rules ``State`` API (``legal_actions`` / ``apply``)
  raw      ``raw_env`` with the AEC loop (``last()``, mask, ``step``)
  wrapped  the wrapped ``env()`` (PettingZoo classic wrappers)
  seat     the single-agent seat env used for training (when ``muggins_env.wrappers`` has it)
plus memory per live game and the cost of ``clone()``. With ``--reference`` (needs the
``bench`` extra: open_spiel, shimmy, pygame) it runs OpenSpiel's ``cribbage`` (pyspiel and
Shimmy's PettingZoo wrapper), ``python_block_dominoes`` and PettingZoo's ``connect_four_v3`` in
the same run and prints the ratios ours / theirs. Several repeats, medians, JSON output.

    python benchmarks/bench_envs.py                       # all games, ~2 s per measurement
    python benchmarks/bench_envs.py --games cribbage_v0 --reference --json bench.json
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import sys
import time
import tracemalloc

import numpy as np

import muggins_env

CONFIGS: dict[str, list[dict]] = {
    "muggins_cards_v0": [{"num_players": 4}, {"num_players": 4, "mistakes": True}, {"num_players": 7}],
    "cribbage_v0": [{"num_players": 2, "muggins": False}, {"num_players": 2}, {"num_players": 3},
                    {"num_players": 4}],
    "muggins_dominoes_v0": [{"num_players": 2, "variant": v} for v in
                            ("muggins", "all_threes", "fives_and_threes", "all_fives", "sniff", "five_up")]
                           + [{"num_players": 4, "partnerships": True}, {"num_players": 2, "set_max": 9}],
    "michigan_v0": [{"num_players": 4}, {"num_players": 8}],
}


def _timed(fn, seconds: float) -> tuple[float, float]:
    """Run ``fn()`` (one game, returns its decisions) until ``seconds`` pass: (decisions/s, games/s)."""
    decisions = games = 0
    start = time.perf_counter()
    while True:
        decisions += fn()
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return decisions / elapsed, games / elapsed


def kernel_game(game, rng: random.Random):
    def one() -> int:
        state = game.new_initial_state(seed=rng.randrange(2**31))
        n = 0
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))] if len(legal) > 1 else legal[0])
            n += 1
        return n
    return one


def aec_game(env, rng: random.Random):
    def one() -> int:
        env.reset(seed=rng.randrange(2**31))
        n = 0
        for _ in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"] if isinstance(obs, dict) else info["action_mask"])
            env.step(int(legal[rng.randrange(len(legal))]))
            n += 1
        return n
    return one


def seat_game(name: str, options: dict, rng: random.Random):
    try:
        from muggins_env.wrappers import SeatEnv  # the training view (issue 7)
    except ImportError:
        return None
    try:
        env = SeatEnv(name, env_options=options, opponents=["random"], seed=rng.randrange(2**31))
    except TypeError:
        return None

    def one() -> int:
        env.reset(seed=rng.randrange(2**31))
        n, done = 0, False
        while not done:
            legal = np.flatnonzero(env.action_masks())
            _, _, term, trunc, _ = env.step(int(legal[rng.randrange(len(legal))]))
            done = term or trunc
            n += 1
        return n
    return one


def memory_and_clone(game, seed: int = 0) -> tuple[float, float]:
    """Bytes per live mid-game state (tracemalloc over 200 states) and microseconds per clone()."""
    rng = random.Random(seed)

    def midgame(s: int):
        state = game.new_initial_state(seed=s)
        for _ in range(10):
            if state.is_terminal():
                break
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
        return state

    gc.collect()
    tracemalloc.start()
    base = tracemalloc.take_snapshot()
    states = [midgame(s) for s in range(200)]
    used = sum(stat.size_diff for stat in tracemalloc.take_snapshot().compare_to(base, "filename"))
    tracemalloc.stop()
    per_state = used / len(states)
    state = states[0]
    reps = 2000
    start = time.perf_counter()
    for _ in range(reps):
        state.clone()
    return per_state, (time.perf_counter() - start) / reps * 1e6


def reference_rows(seconds: float, repeats: int) -> dict[str, dict]:
    """OpenSpiel and PettingZoo figures measured in this run (missing packages are reported)."""
    out: dict[str, dict] = {}
    try:
        import pyspiel

        def spiel(game_name: str):
            game = pyspiel.load_game(game_name)
            rng = random.Random(0)

            def one() -> int:
                state = game.new_initial_state()
                n = 0
                while not state.is_terminal():
                    if state.is_chance_node():
                        outcomes = state.chance_outcomes()
                        state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
                        continue
                    legal = state.legal_actions()
                    state.apply_action(legal[rng.randrange(len(legal))])
                    n += 1
                return n
            return one

        out["openspiel cribbage (pyspiel)"] = _median(spiel("cribbage"), seconds, repeats)
        try:
            import open_spiel.python.games  # noqa: F401  (registers the python games)
            out["openspiel python_block_dominoes"] = _median(spiel("python_block_dominoes"), seconds, repeats)
        except Exception as exc:  # pragma: no cover - reported, not hidden
            out["openspiel python_block_dominoes"] = {"error": repr(exc)}
        try:
            from shimmy import OpenSpielCompatibilityV0
            shim = OpenSpielCompatibilityV0(game_name="cribbage")
            out["openspiel cribbage (shimmy AEC)"] = _median(aec_game(shim, random.Random(0)), seconds, repeats)
        except Exception as exc:  # pragma: no cover
            out["openspiel cribbage (shimmy AEC)"] = {"error": repr(exc)}
    except ImportError as exc:
        out["openspiel"] = {"error": f"{exc!r}: pip install -e '.[bench]'"}
    try:
        from pettingzoo.classic import connect_four_v3
        out["pettingzoo connect_four_v3 (AEC)"] = _median(aec_game(connect_four_v3.env(), random.Random(0)),
                                                          seconds, repeats)
    except Exception as exc:
        out["pettingzoo connect_four_v3 (AEC)"] = {"error": repr(exc)}
    return out


def _median(fn, seconds: float, repeats: int) -> dict:
    runs = [_timed(fn, seconds) for _ in range(repeats)]
    return {"decisions_per_s": statistics.median(r[0] for r in runs),
            "games_per_s": statistics.median(r[1] for r in runs)}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description="random-play throughput of every env")
    parser.add_argument("--games", nargs="*", default=None, help="env ids (default: all)")
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    parser.add_argument("--repeats", type=int, default=3, help="repeats per measurement (median)")
    parser.add_argument("--apis", nargs="*", default=["kernel", "raw", "wrapped", "seat"])
    parser.add_argument("--reference", action="store_true", help="also run OpenSpiel/PettingZoo references")
    parser.add_argument("--json", default=None, help="write the results here")
    args = parser.parse_args(argv)
    names = args.games or muggins_env.ENV_NAMES
    unknown = [g for g in names if g not in muggins_env.ENV_NAMES]
    if unknown:
        parser.error(f"unknown env(s) {unknown}; known: {muggins_env.ENV_NAMES}")
    results: dict = {"ours": [], "reference": {}}
    print(f"{'env':22s} {'options':42s} {'api':8s} {'decisions/s':>12s} {'games/s':>9s}")
    for name in names:
        for options in CONFIGS.get(name, [{}]):
            row = {"env": name, "options": options}
            game = muggins_env.game_class(name)(**options)
            makers = {
                "kernel": lambda: kernel_game(game, random.Random(1)),
                "raw": lambda: aec_game(muggins_env.make(name, raw=True, **options), random.Random(1)),
                "wrapped": lambda: aec_game(muggins_env.make(name, **options), random.Random(1)),
                "seat": lambda: seat_game(name, options, random.Random(1)),
            }
            for api in args.apis:
                fn = makers[api]()
                if fn is None:
                    continue
                row[api] = _median(fn, args.seconds, args.repeats)
                print(f"{name:22s} {json.dumps(options):42s} {api:8s} "
                      f"{row[api]['decisions_per_s']:12,.0f} {row[api]['games_per_s']:9,.1f}", flush=True)
            row["bytes_per_state"], row["clone_us"] = memory_and_clone(game)
            print(f"{'':22s} {'':42s} memory {row['bytes_per_state']:,.0f} B/state, "
                  f"clone {row['clone_us']:.1f} µs", flush=True)
            results["ours"].append(row)
    if args.reference:
        results["reference"] = reference_rows(args.seconds, args.repeats)
        print("\nreferences (same run):")
        for k, v in results["reference"].items():
            print(f"  {k:40s} " + (f"{v['decisions_per_s']:12,.0f} decisions/s" if "error" not in v
                                   else v["error"]))
        print_ratios(results)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return results


def print_ratios(results: dict) -> None:
    ref = results["reference"]

    def rate(key: str) -> float | None:
        return ref.get(key, {}).get("decisions_per_s")

    c4 = rate("pettingzoo connect_four_v3 (AEC)")
    print("\nratios (ours / theirs):")
    for row in results["ours"]:
        label = f"{row['env']} {json.dumps(row['options'])}"
        if c4 and "raw" in row:
            print(f"  {label:64s} AEC / connect_four_v3 = {row['raw']['decisions_per_s'] / c4:6.2f}  (target >= 3)")
        if row["env"] == "cribbage_v0" and row["options"] == {"num_players": 2, "muggins": False}:
            for ours, theirs, target in (("kernel", "openspiel cribbage (pyspiel)", 0.5),
                                         ("raw", "openspiel cribbage (shimmy AEC)", 10)):
                if rate(theirs) and ours in row:
                    r = row[ours]["decisions_per_s"] / rate(theirs)
                    print(f"  {label:64s} {ours} / {theirs} = {r:6.2f}  (target >= {target})")
        if row["env"] == "muggins_dominoes_v0" and row["options"] == {"num_players": 2, "variant": "muggins"}:
            theirs = rate("openspiel python_block_dominoes")
            if theirs and "kernel" in row:
                print(f"  {label:64s} kernel / python_block_dominoes = "
                      f"{row['kernel']['decisions_per_s'] / theirs:6.2f}  (target >= 1)")


if __name__ == "__main__":
    main(sys.argv[1:])
