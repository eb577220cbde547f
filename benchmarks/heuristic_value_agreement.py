"""Where weighing the chance to win changes the heuristic's move (issue 47, item 2): a diagnostic.

Plays cribbage games of ``heuristic:value=table`` against ``heuristic`` (the table player in seat
``j % 2`` of game ``j``) and, at every decision of the table player with two or more legal
moves, asks ``heuristic`` too, with a copy of the same generator (so the same crib completions:
only the weighing differs), counting how often they differ by phase and by the band of the
leading side's score as the decision is made. Not a strength test:

    python benchmarks/heuristic_value_agreement.py --games 200 --seed 47610000 --muggins false

``--rollouts R`` also judges each decision where they differ: ``R`` worlds resampled from the
player's view (``state.resample_hidden``: the hidden cards and the later deals), each played to
the end of the game from both moves (the same world and generator for both: paired) with
``heuristic`` at every seat; the gain of the table's move is the difference of the player's
side's wins. Reported by band: the mean gain per differing decision with its standard error
(over decisions) and the sum of the gains per game, an estimate of what the differences are
worth in win rate against ``heuristic`` (each game's differences judged apart, the later play
the heuristic's).
"""

from __future__ import annotations

import argparse
import collections
import copy
import itertools
import json

import numpy as np

#: the bands of the leading side's score (their lower edges) with target 121
BANDS = (0, 60, 90, 100, 110)


def band_of(score: int, target: int) -> str:
    edges = [round(b * target / 121) for b in BANDS] + [target]
    for lo, hi in itertools.pairwise(edges):
        if lo <= score < hi:
            return f"{lo}-{hi - 1}"
    return f"{target}+"


def judged(state, player: int, table_move: int, plain_move: int, heuristic, rollouts: int,
           rng: np.random.Generator) -> float:
    """The table move's gain over the plain one: wins of the player's side over ``rollouts``
    paired worlds (the same resampled world and generator for both moves), played to the end
    with ``heuristic`` at every seat, as a share."""
    side = state.game.teams[player]
    total = 0
    for _ in range(rollouts):
        world = state.resample_hidden(player, rng)
        seed = int(rng.integers(2**63))
        for move, sign in ((table_move, 1), (plain_move, -1)):
            s = world.clone()
            s.apply(move)
            r = np.random.default_rng(seed)
            while not s.is_terminal():
                s.apply(heuristic.act_on_state(s, r))
            total += sign * (s.winner_side == side)
    return total / rollouts


def gain_row(g: np.ndarray, games: int) -> dict:
    return {"decisions": len(g), "mean_gain": round(float(g.mean()), 4) if len(g) else None,
            "se": round(float(g.std(ddof=1) / np.sqrt(len(g))), 4) if len(g) > 1 else None,
            "per_game": round(float(g.sum() / games), 4),
            "per_game_se": round(float(g.std(ddof=1) * np.sqrt(len(g)) / games), 4) if len(g) > 1 else None}


def main(argv: list[str] | None = None) -> None:
    from muggins_env.agents import make_agent, make_game

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=47610000)
    ap.add_argument("--players", type=int, choices=(2, 4), default=2)
    ap.add_argument("--muggins", choices=("true", "false"), default="false")
    ap.add_argument("--target", type=int, choices=(121, 61), default=121)
    ap.add_argument("--rollouts", type=int, default=0, help="judge each difference by R paired rollouts")
    ap.add_argument("--out", help="a JSON file")
    args = ap.parse_args(argv)
    opts = {"num_players": args.players, "muggins": args.muggins == "true", "target": args.target}
    game = make_game("cribbage_v0", opts)
    table = make_agent("heuristic:value=table", "cribbage_v0", opts)
    plain = make_agent("heuristic", "cribbage_v0", opts)
    counts: dict = collections.defaultdict(lambda: [0, 0])
    gains: dict = collections.defaultdict(list)
    judge = np.random.default_rng((args.seed, 1))
    wins = 0
    for j in range(args.games):
        state = game.new_initial_state(seed=args.seed + j)
        rng = np.random.default_rng((args.seed, j))
        side = game.teams[j % game.num_players]
        while not state.is_terminal():
            p = state.current_player()
            mask = state.legal_actions_mask()
            info = {"action_mask": mask, "view": state.public_view(p)}
            if game.teams[p] != side:
                state.apply(plain.act(None, mask.copy(), rng, info))
                continue
            twin = copy.deepcopy(rng)
            a = table.act(None, mask.copy(), rng, info)
            if mask.sum() > 1:
                b = plain.act(None, mask.copy(), twin, info)
                row = counts[(state.phase_name(), band_of(max(state.scores), args.target))]
                row[0] += 1
                row[1] += a != b
                if a != b and args.rollouts:
                    gains[band_of(max(state.scores), args.target)].append(
                        judged(state, p, a, b, plain, args.rollouts, judge))
            state.apply(a)
        wins += state.winner_side == side
    out = {f"{phase} {band}": {"decisions": n, "differ": d, "share": round(d / n, 4)}
           for (phase, band), (n, d) in sorted(counts.items(), key=lambda kv: (kv[0][0], int(kv[0][1].split("-")[0].rstrip("+"))))}
    report = {"options": opts, "games": args.games, "seed": args.seed, "table_player_won": wins, "counts": out}
    if args.rollouts:
        report["rollouts"] = args.rollouts
        report["gains"] = {}
        every = []
        for band in sorted(gains, key=lambda b: int(b.split("-")[0].rstrip("+"))):
            g = np.array(gains[band])
            every += gains[band]
            report["gains"][band] = gain_row(g, args.games)
        report["gains"]["all"] = gain_row(np.array(every), args.games)
    text = json.dumps(report, indent=1)
    print(text)
    if args.out:
        from pathlib import Path

        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    main()
