"""Random-play throughput of every env, side by side with OpenSpiel and PettingZoo references.

Measures player decisions per second (chance events are timed but not counted) and games per
second, for each game and a few configurations, through:
  kernel   the rules ``State`` API (``legal_actions`` / ``apply``)
  raw      ``raw_env`` with the AEC loop (``last()``, mask, ``step``), the default infos
  raw_lean the same with ``readable_infos=False`` (infos hold only the mask: since issue 45
           the default too, the readable infos being opt-in)
  wrapped  the wrapped ``env()`` (PettingZoo classic wrappers)
  seat     the single-agent seat env used for training (when ``muggins_env.wrappers`` has it)
plus memory per live game and the cost of ``clone()``. With ``--reference`` (needs the
``bench`` extra: open_spiel, shimmy, pygame) it runs OpenSpiel's ``cribbage`` (pyspiel and
Shimmy's PettingZoo wrapper), ``python_block_dominoes`` and PettingZoo's ``connect_four_v3`` in
the same run and prints the ratios ours / theirs (every config's raw and raw_lean AEC loop
against Shimmy's cribbage: target >= 10; ``--paired`` also times each AEC loop right after a
slice of Shimmy and reports the median of those ratios, steadier on a shared machine than a ratio
of two medians taken minutes apart). Several repeats, medians, JSON output.
With ``--scorer``: the cribbage batch scorer (all 12,994,800 hand-and-starter rows, checked
against the published distribution) and the cribbage heuristic's lay-away decision.

Rounds: every measurement runs once per round and the median over ``--repeats`` rounds is
reported, so a burst of load from other processes hits ours and the references alike.
``--clock cpu`` (the default) times with this process's CPU time, which is what a ratio
between two single-threaded loops should compare on a shared machine; ``--clock wall``
gives wall-clock rates (what an idle machine would show).

    python benchmarks/bench_envs.py                       # all games, ~2 s per measurement
    python benchmarks/bench_envs.py --games cribbage_v0 --reference --json bench.json
    python benchmarks/bench_envs.py --seconds 1 --repeats 3 --reference --scorer   # everything
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
from pathlib import Path

import numpy as np

import muggins_env

CONFIGS: dict[str, list[dict]] = {
    "muggins_cards_v0": [{"num_players": 4}, {"num_players": 4, "mistakes": True}, {"num_players": 7}],
    "cribbage_v0": [{"num_players": 2, "muggins": False}, {"num_players": 2}, {"num_players": 3},
                    {"num_players": 4}],
    "muggins_dominoes_v0": [{"num_players": 2, "variant": v} for v in
                            ("muggins", "all_threes", "fives_and_threes", "all_fives", "sniff", "five_up")]
                           + [{"num_players": 4, "partnerships": True}, {"num_players": 2, "set_max": 9}]
                           + [{"num_players": 2, "variant": v} for v in ("fives_1863", "primes")]
                           + [{"num_players": 3, "knocking": True, "extra_play": True}],
    "michigan_v0": [{"num_players": 4}, {"num_players": 8}],
}


APIS = ("kernel", "raw", "raw_lean", "wrapped", "seat")
CLOCKS = {"cpu": time.process_time, "wall": time.perf_counter}
_clock = CLOCKS["cpu"]


def _timed(fn, seconds: float) -> tuple[float, float]:
    """Run ``fn()`` (one game, returns its decisions) until ``seconds`` pass: (decisions/s, games/s)."""
    decisions = games = 0
    clock = _clock
    start = clock()
    while True:
        decisions += fn()
        games += 1
        elapsed = clock() - start
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
            # ndarray.nonzero: np.flatnonzero's ravel costs ~1 us a step, the same for every env
            legal = (obs["action_mask"] if isinstance(obs, dict) else info["action_mask"]).nonzero()[0]
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


def reference_makers() -> tuple[dict[str, object], dict[str, dict]]:
    """The OpenSpiel and PettingZoo reference loops (name -> one-game function) and the
    references that could not be built (name -> {"error": ...}: missing packages are reported)."""
    makers: dict[str, object] = {}
    errors: dict[str, dict] = {}
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

        makers["openspiel cribbage (pyspiel)"] = spiel("cribbage")
        try:
            import open_spiel.python.games  # noqa: F401  (registers the python games)
            makers["openspiel python_block_dominoes"] = spiel("python_block_dominoes")
        except Exception as exc:  # noqa: BLE001 - reported, not hidden
            errors["openspiel python_block_dominoes"] = {"error": repr(exc)}
        try:
            from shimmy import OpenSpielCompatibilityV0
            shim = OpenSpielCompatibilityV0(game_name="cribbage")
            makers["openspiel cribbage (shimmy AEC)"] = aec_game(shim, random.Random(0))
        except Exception as exc:  # noqa: BLE001 - reported, not hidden
            errors["openspiel cribbage (shimmy AEC)"] = {"error": repr(exc)}
    except ImportError as exc:
        errors["openspiel"] = {"error": f"{exc!r}: pip install -e '.[bench]'"}
    try:
        from pettingzoo.classic import connect_four_v3
        makers["pettingzoo connect_four_v3 (AEC)"] = aec_game(connect_four_v3.env(), random.Random(0))
    except Exception as exc:  # noqa: BLE001 - reported, not hidden
        errors["pettingzoo connect_four_v3 (AEC)"] = {"error": repr(exc)}
    return makers, errors


def _median(runs: list[tuple[float, float]]) -> dict:
    return {"decisions_per_s": statistics.median(r[0] for r in runs),
            "games_per_s": statistics.median(r[1] for r in runs),
            "decisions_per_s_runs": [round(r[0], 1) for r in runs]}


def scorer_figures(repeats: int, decisions: int = 200) -> dict:
    """The cribbage batch scorer over all 12,994,800 hand-and-starter rows (wall seconds; the
    rows are built once, outside the timing) and the cribbage heuristic's lay-away decision
    (milliseconds per decision, on positions of random play, 2 players: 6 cards, 4: 5 cards)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_cribbage_scoring import bench_all_hands

    out = {"all_hands": bench_all_hands(repeats)}
    try:
        from muggins_env.agents.heuristic_cribbage import CribbageHeuristic
    except ImportError as exc:  # pragma: no cover - the agents package is optional here
        out["heuristic_discard"] = {"error": repr(exc)}
        return out
    from muggins_env.games.cribbage.rules import DISCARD, CribbageGame

    for n in (2, 4):
        game = CribbageGame(num_players=n)
        agent = CribbageHeuristic(game)
        rng, nrng = random.Random(0), np.random.default_rng(0)
        states = []
        seed = 0
        while len(states) < decisions:
            state = game.new_initial_state(seed=seed)
            seed += 1
            while not state.is_terminal() and len(states) < decisions:
                if state.phase == DISCARD:
                    states.append(state.clone())
                legal = state.legal_actions()
                state.apply(legal[rng.randrange(len(legal))])
        agent.act_on_state(states[0], nrng)  # warm-up
        t = time.perf_counter()
        for state in states:
            agent.act_on_state(state, nrng)
        out[f"heuristic_discard_{n}p"] = {"decisions": len(states),
                                          "ms_per_decision": (time.perf_counter() - t) / len(states) * 1e3}
    return out


def main(argv: list[str] | None = None) -> dict:
    global _clock
    parser = argparse.ArgumentParser(description="random-play throughput of every env")
    parser.add_argument("--games", nargs="*", default=None, help="env ids (default: all)")
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    parser.add_argument("--repeats", type=int, default=3, help="rounds (median over them)")
    parser.add_argument("--apis", nargs="*", default=list(APIS), choices=APIS)
    parser.add_argument("--reference", action="store_true", help="also run OpenSpiel/PettingZoo references")
    parser.add_argument("--scorer", action="store_true",
                        help="also time the cribbage batch scorer and the heuristic's lay-away decision")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu",
                        help="cpu: this process's CPU time (robust on a shared machine); wall: wall clock")
    parser.add_argument("--paired", action="store_true",
                        help="with --reference: also time each raw / raw_lean AEC loop right after a slice of "
                             "Shimmy's cribbage, every round, and report the median of those paired ratios "
                             "(a burst of load then hits both sides of a ratio alike)")
    parser.add_argument("--json", default=None, help="write the results here")
    args = parser.parse_args(argv)
    _clock = CLOCKS[args.clock]
    if args.paired and not args.reference:
        parser.error("--paired compares with Shimmy's cribbage: it needs --reference")
    names = args.games if args.games is not None else muggins_env.ENV_NAMES
    unknown = [g for g in names if g not in muggins_env.ENV_NAMES]
    if unknown:
        parser.error(f"unknown env(s) {unknown}; known: {muggins_env.ENV_NAMES}")
    results: dict = {"clock": args.clock, "seconds": args.seconds, "repeats": args.repeats,
                     "ours": [], "reference": {}}
    # every measurement: (row, api or reference name, one-game function)
    plan: list[tuple[dict, str, object]] = []
    for name in names:
        for options in CONFIGS.get(name, [{}]):
            row = {"env": name, "options": options}
            game = muggins_env.game_class(name)(**options)
            for api in args.apis:
                if api == "kernel":
                    fn = kernel_game(game, random.Random(1))
                elif api == "seat":
                    fn = seat_game(name, options, random.Random(1))
                elif api == "raw_lean":
                    fn = aec_game(muggins_env.make(name, raw=True, readable_infos=False, **options), random.Random(1))
                else:
                    fn = aec_game(muggins_env.make(name, raw=api == "raw", **options), random.Random(1))
                if fn is not None:
                    plan.append((row, api, fn))
            row["bytes_per_state"], row["clone_us"] = memory_and_clone(game)
            results["ours"].append(row)
    if args.reference:
        refs, errors = reference_makers()
        results["reference"].update(errors)
        plan += [(results["reference"], key, fn) for key, fn in refs.items()]
    runs: dict[int, list] = {i: [] for i in range(len(plan))}
    for r in range(args.repeats):
        print(f"round {r + 1}/{args.repeats}: {len(plan)} measurements of {args.seconds:g} s", flush=True)
        for i, (_, _, fn) in enumerate(plan):
            runs[i].append(_timed(fn, args.seconds))
    for i, (row, key, _) in enumerate(plan):
        row[key] = _median(runs[i])
    shim = refs.get("openspiel cribbage (shimmy AEC)") if args.reference else None
    if args.paired and shim is not None:
        pairs = [(row, api, fn) for row, api, fn in plan if api in ("raw", "raw_lean") and row is not results["reference"]]
        for r in range(args.repeats):
            print(f"paired round {r + 1}/{args.repeats}: {len(pairs)} pairs of {args.seconds:g} s", flush=True)
            for row, api, fn in pairs:
                theirs = _timed(shim, args.seconds)[0]
                row.setdefault("paired_shimmy_ratios", {}).setdefault(api, []).append(_timed(fn, args.seconds)[0] / theirs)
    print(f"\nrandom legal play, median of {args.repeats} rounds, {args.clock} clock")
    print(f"{'env':22s} {'options':48s} {'api':8s} {'decisions/s':>12s} {'games/s':>9s}")
    for row in results["ours"]:
        opts = json.dumps(row["options"])
        for api in args.apis:
            if api in row:
                print(f"{row['env']:22s} {opts:48s} {api:8s} "
                      f"{row[api]['decisions_per_s']:12,.0f} {row[api]['games_per_s']:9,.1f}")
        print(f"{'':22s} {'':48s} memory {row['bytes_per_state']:,.0f} B/state, "
              f"clone {row['clone_us']:.1f} µs")
    if args.reference:
        print("\nreferences (same rounds):")
        for k, v in results["reference"].items():
            print(f"  {k:40s} " + (f"{v['decisions_per_s']:12,.0f} decisions/s" if "error" not in v
                                   else v["error"]))
        print_ratios(results)
    if args.scorer:
        results["scorer"] = sc = scorer_figures(args.repeats)
        a = sc["all_hands"]
        print(f"\ncribbage batch scorer: all {a['rows']:,} hand+starter rows in {a['seconds_median']:.2f} s "
              f"(median of {args.repeats}; target < 10 s), published distribution matched: "
              f"{a.get('matches_published_distribution', 'n/a')}")
        for n in (2, 4):
            d = sc.get(f"heuristic_discard_{n}p", sc.get("heuristic_discard", {}))
            if "ms_per_decision" in d:
                print(f"cribbage heuristic lay-away decision, {n} players: {d['ms_per_decision']:.2f} ms "
                      f"(mean of {d['decisions']})")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return results


def print_ratios(results: dict) -> None:
    ref = results["reference"]

    def rate(key: str) -> float | None:
        return ref.get(key, {}).get("decisions_per_s")

    c4 = rate("pettingzoo connect_four_v3 (AEC)")
    shim = rate("openspiel cribbage (shimmy AEC)")
    print("\nratios (ours / theirs):")
    for row in results["ours"]:
        label = f"{row['env']} {json.dumps(row['options'])}"
        if c4 and "raw" in row:
            print(f"  {label:64s} AEC / connect_four_v3 = {row['raw']['decisions_per_s'] / c4:6.2f}  (target >= 3)")
        if shim and ("raw" in row or "raw_lean" in row):  # every env's AEC loop against Shimmy's cribbage
            side = "   ".join(f"{api} {row[api]['decisions_per_s'] / shim:6.2f}" for api in ("raw", "raw_lean")
                               if api in row)
            print(f"  {label:64s} AEC / openspiel cribbage (shimmy AEC): {side}  (target >= 10)")
        paired = row.get("paired_shimmy_ratios")
        if paired:
            side = "   ".join(f"{api} {statistics.median(v):6.2f} [{min(v):.2f}-{max(v):.2f}]"
                               for api, v in paired.items())
            print(f"  {label:64s} the same, paired (median [range]): {side}")
        if row["env"] == "cribbage_v0" and row["options"] == {"num_players": 2, "muggins": False}:
            theirs = "openspiel cribbage (pyspiel)"
            if rate(theirs) and "kernel" in row:
                r = row["kernel"]["decisions_per_s"] / rate(theirs)
                print(f"  {label:64s} kernel / {theirs} = {r:6.2f}  (target >= 0.5)")
        if row["env"] == "muggins_dominoes_v0" and row["options"] == {"num_players": 2, "variant": "muggins"}:
            theirs = rate("openspiel python_block_dominoes")
            if theirs and "kernel" in row:
                print(f"  {label:64s} kernel / python_block_dominoes = "
                      f"{row['kernel']['decisions_per_s'] / theirs:6.2f}  (target >= 1)")


if __name__ == "__main__":
    main(sys.argv[1:])
