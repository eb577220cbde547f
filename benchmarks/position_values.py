"""Cribbage position values (issue 47, item 1): per-deal point records, then the win tables.

Two steps, both seeded (the plan: ``benchmarks/results/position_values/PLAN.md``):

``record``: plays single deals of the heuristic against itself (every seat ``heuristic``, as
its search rollouts play it; ``--agent SPEC`` seats another agent everywhere, e.g. ``search:400``
for the points per deal of issue 47's item 6, whose play near the target depends on the score,
so its deals from 0-0 give its points per deal, not an exact table) and saves, per deal, the ordered scoring events read from the
kernel state's scores after each action: his heels, every point of the play as it is pegged,
then the show (the hands in the order they are counted, then the crib) and, with muggins, a
claim's points as it settles. Each event is (side relative to the dealer: 0 the dealer's side,
1 the other; points; kind: 0 heels, 1 play, 2 hand, 3 crib, 4 claim). Deal ``i`` of a run is
``game.new_initial_state(seed=seed + i)`` played with ``default_rng((seed, i))``; the
heuristic's play does not depend on the score, so deals from 0-0 are samples of the deal of any
position. It also plays whole games (targets 121 and 61) to check the tables against.

    python benchmarks/position_values.py record --players 2 --muggins false --deals 500000 \\
        --seed 47000 --games 3000 --out runs/position_values/p2_standard.npz

``points``: the points per deal of pooled records (mean and standard error, dealer and pone,
by kind): ``python benchmarks/position_values.py points runs/position_values/s400_*.npz``.

``deal-points``: the per-deal point distributions that ``heuristic:value=table`` reads for
what it cannot see (``agents/tables/cribbage_deal_points_v0.npz``): each side's pegging (his
heels with the dealer's), each hand by its seat after the dealer's, the crib; 2 and 4 players,
standard counting (the heuristic counts truly, so muggins deals are the same):

    python benchmarks/position_values.py deal-points --deals 20000 --seed 47500000 \\
        --write agents/tables/cribbage_deal_points_v0.npz

``calibrate``: the shipped table against whole games at every deal's start, binned by the
table's chance (``--games 2000 --seed 47900000``).

``table``: dynamic programming over the recorded deals (the chunks of one configuration and
player pooled) (``agents.position_values.solve_race``)
for targets 121 and 61; writes the package's table file, a plot and a summary (the first
dealer's chance at 0-0 with its standard error from ten batches of deals, the check against
the recorded games, the average points per deal split into play, hand and crib):

    python benchmarks/position_values.py table runs/position_values/*.npz \\
        --write agents/tables/cribbage_v0.npz --plot docs/_static/position_values_cribbage.png \\
        --summary benchmarks/results/position_values/summary.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

HEELS, PLAY, HAND, CRIB, CLAIM = range(5)
KIND_NAMES = ("heels", "play", "hand", "crib", "claim")
TARGETS = (121, 61)


def _bool(text: str) -> bool:
    if text.lower() in ("true", "1", "yes"):
        return True
    if text.lower() in ("false", "0", "no"):
        return False
    raise argparse.ArgumentTypeError(f"{text!r} is not true or false")


class AtEverySeat:
    """An agent (any spec) at every seat of a kernel state, given what the tournament harness
    gives it (``eval.tournament.play_game``: the observation, the mask, the view, the sampler);
    forced moves are played without asking."""

    def __init__(self, agent) -> None:
        self.agent = agent
        self.sampler = getattr(agent, "needs_sampler", False)

    def act_on_state(self, state, rng: np.random.Generator) -> int:
        mask = state.legal_actions_mask()
        legal = mask.nonzero()[0]
        if len(legal) == 1:
            return int(legal[0])
        p = state.current_player()
        info = {"action_mask": mask, "seat": p, "phase": state.phase_name(), "view": state.public_view(p)}
        if self.sampler:
            info["resample"] = lambda r, _s=state, _p=p: _s.resample_hidden(_p, r)
        return int(self.agent.act(state.observation(p), mask.copy(), rng, info))


def make_player(spec: str, options: dict, game):
    """``heuristic``: the game's heuristic itself (its ``act_on_state``, the search rollouts'
    moves); any other agent spec at every seat through ``AtEverySeat``."""
    from muggins_env.agents import make_agent, make_heuristic

    if spec == "heuristic":
        return make_heuristic("cribbage_v0", options, game)
    return AtEverySeat(make_agent(spec, "cribbage_v0", options))


def deal_events(state, heuristic, rng: np.random.Generator) -> list[tuple[int, int, int]]:
    """Play ``state``'s current deal to its end with ``heuristic`` (anything with
    ``act_on_state``: ``make_player``) at every seat; its scoring events in the order they were
    scored: (side relative to the dealer's, points, kind)."""
    from muggins_env.games.cribbage.rules import ANNOUNCE_PHASE, DISCARD, RESPOND
    from muggins_env.games.cribbage.rules import PLAY as PLAY_PHASE

    g = state.game
    teams, sides = g.teams, g.num_sides
    dealer_side = teams[state.dealer]
    rel = [(s - dealer_side) % sides for s in range(sides)]
    events: list[tuple[int, int, int]] = []
    deal = state.deals
    start = list(state.scores)
    pending = None  # a count under review: [counter's side, kind, points per side so far]
    while not state.is_terminal() and state.deals == deal:
        phase = state.phase
        before = list(state.scores)
        review = state.review
        state.apply(heuristic.act_on_state(state, rng))
        delta = [a - b for a, b in zip(state.scores, before)]
        if phase == DISCARD:
            for s in range(sides):
                if delta[s]:
                    events.append((rel[s], delta[s], HEELS))
        elif phase == PLAY_PHASE:
            # counted automatically (no muggins): the show ran inside the last card's action
            if state.deals != deal:
                shows = state.previous_shown
            elif state.is_terminal():
                shows = state.shown
            else:
                shows = []
            shown = [(teams[rv["counter"]], rv["announced"], CRIB if rv["is_crib"] else HAND) for rv in shows]
            for side, points, _ in shown:
                delta[side] -= points
            for s in range(sides):
                if delta[s]:
                    if delta[s] < 0:
                        raise AssertionError(f"negative play points {delta} (shows {shown})")
                    events.append((rel[s], delta[s], PLAY))
            events += [(rel[side], points, kind) for side, points, kind in shown if points]
        elif phase in (ANNOUNCE_PHASE, RESPOND):
            if pending is None:
                pending = [teams[review["counter"]], CRIB if review["is_crib"] else HAND, [0] * sides]
            pending[2] = [a + b for a, b in zip(pending[2], delta)]
            if state.phase != RESPOND:  # settled: the counter's net points first (the rules' order)
                counter, kind, got = pending
                if got[counter]:
                    events.append((rel[counter], got[counter], kind))
                for s in range(sides):
                    if s != counter and got[s]:
                        events.append((rel[s], got[s], CLAIM))
                if min(got) < 0:
                    raise AssertionError(f"a settled count left negative points {got}")
                pending = None
    totals = [0] * sides
    for side, points, _ in events:
        totals[side] += points
    gained = [state.scores[s] - start[s] for s in range(sides)]
    if [totals[rel[s]] for s in range(sides)] != gained:
        raise AssertionError(f"events {events} do not add up to the deal's points {gained}")
    return events


def record(args: argparse.Namespace) -> None:
    from muggins_env.agents import make_game

    opts = {"num_players": args.players, "muggins": args.muggins, "target": 121}
    game = make_game("cribbage_v0", opts)
    heuristic = make_player(args.agent, opts, game)
    sides, pts, kinds, starts = [], [], [], [0]
    t0 = time.perf_counter()
    for i in range(args.deals):
        state = game.new_initial_state(seed=args.seed + i)
        ev = deal_events(state, heuristic, np.random.default_rng((args.seed, i)))
        if sum(p for _, p, _ in ev) < 1:
            raise AssertionError(f"deal {i} scored no point")
        for side, p, kind in ev:
            sides.append(side)
            pts.append(p)
            kinds.append(kind)
        starts.append(len(pts))
        if args.progress and (i + 1) % args.progress == 0:
            print(f"{i + 1} deals, {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    deal_seconds = time.perf_counter() - t0
    # whole games of the same players: who dealt first and who won, per target
    games = {}
    t1 = time.perf_counter()
    for target in TARGETS:
        g_opts = {**opts, "target": target}
        g = make_game("cribbage_v0", g_opts)
        h = make_player(args.agent, g_opts, g)
        first, winner = [], []
        for j in range(args.games):
            seed = args.seed + 10_000_000 + (target * 1_000_000) + j
            state = g.new_initial_state(seed=seed)
            first.append(g.teams[state.dealer])
            rng = np.random.default_rng((seed, 1))
            while not state.is_terminal():
                state.apply(h.act_on_state(state, rng))
            winner.append(state.winner_side)
        games[target] = (np.array(first, np.int8), np.array(winner, np.int8))
    game_seconds = time.perf_counter() - t1
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    meta = {"players": args.players, "muggins": args.muggins, "deals": args.deals, "seed": args.seed,
            "games": args.games, "player": args.agent, "deal_seconds": round(deal_seconds, 1),
            "game_seconds": round(game_seconds, 1), "kinds": KIND_NAMES}
    np.savez_compressed(out, side=np.array(sides, np.int8), points=np.array(pts, np.int8),
                        kind=np.array(kinds, np.int8), start=np.array(starts, np.int64),
                        **{f"games{t}_first": games[t][0] for t in TARGETS},
                        **{f"games{t}_winner": games[t][1] for t in TARGETS},
                        meta=np.array(json.dumps(meta)))
    print(json.dumps(meta), flush=True)


def load_record(path: str) -> dict:
    with np.load(path, allow_pickle=False) as z:
        rec = {k: z[k] for k in z.files}
    rec["meta"] = json.loads(str(rec["meta"]))
    return rec


def pooled_records(paths: list[str]) -> list[dict]:
    """The records of ``paths``, those of one configuration and player (chunks of one run)
    pooled into one, in the order given: their deals, and their games, one after another."""
    groups: dict[tuple, list[dict]] = {}
    for path in paths:
        rec = load_record(path)
        m = rec["meta"]
        groups.setdefault((m["players"], m["muggins"], m["player"]), []).append(rec)
    out = []
    for recs in groups.values():
        if len(recs) == 1:
            out.append(recs[0])
            continue
        rec = {k: np.concatenate([r[k] for r in recs]) for k in ("side", "points", "kind")}
        ends = np.cumsum([r["start"][-1] for r in recs])
        rec["start"] = np.concatenate([[0]] + [r["start"][1:] + (ends[i - 1] if i else 0) for i, r in enumerate(recs)])
        for t in TARGETS:
            for k in (f"games{t}_first", f"games{t}_winner"):
                rec[k] = np.concatenate([r[k] for r in recs])
        rec["meta"] = {**recs[0]["meta"], "deals": int(len(rec["start"]) - 1),
                       "games": int(sum(r["meta"]["games"] for r in recs)),
                       "seeds": [r["meta"]["seed"] for r in recs], "chunks": len(recs)}
        out.append(rec)
    return out


def table(args: argparse.Namespace) -> None:
    from muggins_env.agents.position_values import DealEvents, solve_race, table_key

    tables, summary = {}, {}
    for rec in pooled_records(args.records):
        meta = rec["meta"]
        deals = DealEvents(rec["side"], rec["points"], rec["start"])
        config = f"p{meta['players']}_{'muggins' if meta['muggins'] else 'standard'}"
        per_kind = per_deal_points(rec)
        row = {"record": meta, "points_per_deal": per_kind, "targets": {}}
        for target in TARGETS:
            t0 = time.perf_counter()
            v = solve_race(deals, target)
            seconds = time.perf_counter() - t0
            # ten batches of deals: the spread of V(0, 0) over them, / sqrt(10), its standard error
            k = len(deals)
            parts = [solve_race(deals.subset(np.arange(b, k, 10)), target)[0, 0] for b in range(10)]
            first, winner = rec[f"games{target}_first"], rec[f"games{target}_winner"]
            share = float(np.mean(first == winner)) if len(first) else float("nan")
            n = len(first)
            row["targets"][target] = {
                "first_dealer": float(v[0, 0]), "first_dealer_se": float(np.std(parts, ddof=1) / np.sqrt(10)),
                "games": n, "games_first_dealer": share,
                "games_se": float(np.sqrt(share * (1 - share) / n)) if n else float("nan"),
                "solve_seconds": round(seconds, 2)}
            tables[table_key(meta["players"], target, meta["muggins"])] = v.astype(np.float32)
        summary[config] = row
        print(config, json.dumps(row["targets"]), flush=True)
    if args.write:
        Path(args.write).parent.mkdir(parents=True, exist_ok=True)
        info = {key: summary[key]["record"] for key in summary}
        np.savez_compressed(args.write, **tables, info=np.array(json.dumps(info, sort_keys=True)))
    if args.summary:
        Path(args.summary).parent.mkdir(parents=True, exist_ok=True)
        Path(args.summary).write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n")
    if args.plot:
        plot(tables, args.plot)


def per_deal_points(rec: dict) -> dict:
    """Average points per deal of the dealer's side and the other, by kind (heels, play, hand,
    crib, claim), and in all."""
    k = len(rec["start"]) - 1
    out = {}
    for side, name in ((0, "dealer"), (1, "pone")):
        sel = rec["side"] == side
        by = np.bincount(rec["kind"][sel], weights=rec["points"][sel].astype(np.float64), minlength=5) / k
        out[name] = {KIND_NAMES[i]: round(float(by[i]), 4) for i in range(5)}
        out[name]["total"] = round(float(by.sum()), 4)
    return out


def points(args: argparse.Namespace) -> None:
    """Points per deal of records pooled (one configuration and player), each with its standard
    error over deals: the dealer's side and the other, by kind and in all."""
    recs = [load_record(path) for path in args.records]
    config = {(r["meta"]["players"], r["meta"]["muggins"], r["meta"]["player"]) for r in recs}
    if len(config) != 1:
        raise SystemExit(f"records of different configurations or players: {sorted(config)}")
    per_deal = []  # (deals, side, kind) points
    for r in recs:
        k = len(r["start"]) - 1
        deal_of = np.repeat(np.arange(k), np.diff(r["start"]))
        grid = np.zeros((k, 2, 5))
        np.add.at(grid, (deal_of, r["side"].astype(np.int64), r["kind"].astype(np.int64)), r["points"])
        per_deal.append(grid)
    grid = np.concatenate(per_deal)
    n = len(grid)
    out = {"records": [r["meta"] for r in recs], "deals": n}
    for side, name in ((0, "dealer"), (1, "pone")):
        row = {}
        for i, kind in enumerate(KIND_NAMES):
            x = grid[:, side, i]
            row[kind] = [round(float(x.mean()), 3), round(float(x.std(ddof=1) / np.sqrt(n)), 3)]
        x = grid[:, side].sum(axis=1)
        row["total"] = [round(float(x.mean()), 3), round(float(x.std(ddof=1) / np.sqrt(n)), 3)]
        out[name] = row
    text = json.dumps(out, indent=1)
    print(text)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text + "\n")


class _HandsAtPlay:
    """``heuristic`` at every seat, noting each seat's four kept cards and the starter as the
    play begins (the hands the show will count)."""

    def __init__(self, heuristic) -> None:
        self.heuristic = heuristic
        self.kept = None

    def act_on_state(self, state, rng: np.random.Generator) -> int:
        from muggins_env.games.cribbage.rules import PLAY as PLAY_PHASE

        if self.kept is None and state.phase == PLAY_PHASE:
            self.kept = ([list(h) for h in state.hands], state.starter_card)
        return self.heuristic.act_on_state(state, rng)


def deal_points(args: argparse.Namespace) -> None:
    """Histograms (0..29 points, a share of the deals each) of the heuristic's per-deal points:
    ``p{n}_peg_dealer`` / ``p{n}_peg_pone`` (each side's pegging, heels with the dealer's),
    ``p{n}_hand_{k}`` (the hand of the seat ``k`` places after the dealer's, 0 the dealer) and
    ``p{n}_crib``; deal ``i`` is seed ``seed + i`` with ``default_rng((seed, i))``."""
    from muggins_env.agents import make_game

    from muggins_env.games.cribbage.scoring import fast_score

    out, info = {}, {}
    for players in (2, 4):
        opts = {"num_players": players, "muggins": False, "target": 121}
        game = make_game("cribbage_v0", opts)
        h = make_player("heuristic", opts, game)
        peg = np.zeros((2, 30))
        hands = np.zeros((players, 30))
        crib = np.zeros(30)
        t0 = time.perf_counter()
        for i in range(args.deals):
            state = game.new_initial_state(seed=args.seed + i)
            dealer = state.dealer
            player = _HandsAtPlay(h)
            ev = deal_events(state, player, np.random.default_rng((args.seed, i)))
            side_peg = [0, 0]
            for side, p, kind in ev:
                if kind in (HEELS, PLAY):
                    side_peg[side] += p
            for s in (0, 1):
                peg[s, min(side_peg[s], 29)] += 1
            kept, starter = player.kept
            for k in range(players):
                hands[k, fast_score(kept[(dealer + k) % players], starter, False)] += 1
            crib_points = [p for side, p, kind in ev if kind == CRIB]
            crib[sum(crib_points)] += 1
        for name, row in (("peg_dealer", peg[0]), ("peg_pone", peg[1]), ("crib", crib),
                          *((f"hand_{k}", hands[k]) for k in range(players))):
            out[f"p{players}_{name}"] = (row / args.deals).astype(np.float64)
        info[f"p{players}"] = {"deals": args.deals, "seed": args.seed, "muggins": False,
                               "seconds": round(time.perf_counter() - t0, 1)}
        print(players, {k: round(float(v @ np.arange(30)), 3) for k, v in out.items() if k.startswith(f"p{players}")},
              flush=True)
    if args.write:
        Path(args.write).parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(args.write, **out, info=np.array(json.dumps(info, sort_keys=True)))


def calibrate(args: argparse.Namespace) -> None:
    """The shipped table against whole games, at every deal's start (not only 0-0): the games'
    positions binned by the table's chance for the dealer's side, each bin's mean chance against
    the share of its positions whose dealer's side went on to win."""
    from muggins_env.agents import make_game
    from muggins_env.agents.position_values import dealer_table

    opts = {"num_players": args.players, "muggins": args.muggins, "target": args.target}
    game = make_game("cribbage_v0", opts)
    player = make_player(args.agent, opts, game)
    v = dealer_table(args.players, args.target, args.muggins)
    chance, won = [], []
    for j in range(args.games):
        state = game.new_initial_state(seed=args.seed + j)
        rng = np.random.default_rng((args.seed, j))
        starts = []
        deal = 0
        while not state.is_terminal():
            if state.deals != deal:  # a deal begins: the position the table values
                deal = state.deals
                side = game.teams[state.dealer]
                starts.append((side, float(v[state.scores[side], state.scores[1 - side]])))
            state.apply(player.act_on_state(state, rng))
        for side, c in starts:
            chance.append(c)
            won.append(float(state.winner_side == side))
    chance, won = np.array(chance), np.array(won)
    edges = np.linspace(0, 1, args.bins + 1)
    which = np.clip(np.digitize(chance, edges) - 1, 0, args.bins - 1)
    rows = []
    for b in range(args.bins):
        sel = which == b
        if sel.any():
            share = float(won[sel].mean())
            rows.append({"bin": [round(float(edges[b]), 2), round(float(edges[b + 1]), 2)], "positions": int(sel.sum()),
                         "table": round(float(chance[sel].mean()), 4), "won": round(share, 4)})
    out = {"players": args.players, "muggins": args.muggins, "target": args.target, "agent": args.agent,
           "games": args.games, "seed": args.seed, "positions": len(chance),
           "brier": round(float(np.mean((chance - won) ** 2)), 5), "bins": rows}
    text = json.dumps(out, indent=1)
    print(text)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text + "\n")


def plot(tables: dict, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = [k for k in ("p2_t121_standard", "p2_t61_standard", "p4_t121_standard") if k in tables]
    fig, axes = plt.subplots(1, len(keys), figsize=(5.4 * len(keys), 4.4), squeeze=False)
    for ax, key in zip(axes[0], keys):
        v = tables[key]
        target = v.shape[0]
        im = ax.imshow(v, origin="lower", vmin=0, vmax=1, cmap="RdBu_r", extent=(0, target, 0, target))
        ax.contour(np.arange(target) + 0.5, np.arange(target) + 0.5, v, levels=[0.1, 0.25, 0.5, 0.75, 0.9],
                   colors="k", linewidths=0.6)
        ax.set_xlabel("pone's score (the other side)")
        ax.set_ylabel("dealer's score")
        players, target_name, rules = key.split("_")
        ax.set_title(f"{players[1:]} players, {rules}, to {target_name[1:]}: 0-0 {v[0, 0]:.3f}", fontsize=9)
    fig.subplots_adjust(wspace=0.35)
    fig.colorbar(im, ax=axes[0].tolist(), shrink=0.8, label="chance the dealer's side wins")
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110, bbox_inches="tight")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    r = sub.add_parser("record", help="play seeded heuristic deals and save their scoring events")
    r.add_argument("--players", type=int, choices=(2, 4), default=2)
    r.add_argument("--muggins", type=_bool, default=False, help="true or false")
    r.add_argument("--agent", default="heuristic",
                   help="the agent spec at every seat (default heuristic; e.g. search:400 for item 6's row)")
    r.add_argument("--deals", type=int, required=True)
    r.add_argument("--seed", type=int, required=True)
    r.add_argument("--games", type=int, default=0, help="whole games per target, to check the table against")
    r.add_argument("--progress", type=int, default=0, help="print a line every N deals")
    r.add_argument("--out", required=True)
    t = sub.add_parser("table", help="the win tables from recorded deals")
    t.add_argument("records", nargs="+")
    t.add_argument("--write", help="the package table file to write (agents/tables/cribbage_v0.npz)")
    t.add_argument("--plot", help="a PNG of the standard-game tables")
    t.add_argument("--summary", help="a JSON summary")
    q = sub.add_parser("points", help="points per deal of pooled records, with standard errors")
    q.add_argument("records", nargs="+")
    q.add_argument("--out", help="a JSON file")
    d = sub.add_parser("deal-points", help="the per-deal point histograms heuristic:value=table reads")
    d.add_argument("--deals", type=int, required=True)
    d.add_argument("--seed", type=int, required=True)
    d.add_argument("--write", help="the package file to write (agents/tables/cribbage_deal_points_v0.npz)")
    c = sub.add_parser("calibrate", help="the shipped table against whole games, at every deal's start")
    c.add_argument("--players", type=int, choices=(2, 4), default=2)
    c.add_argument("--muggins", type=_bool, default=False)
    c.add_argument("--target", type=int, choices=TARGETS, default=121)
    c.add_argument("--agent", default="heuristic")
    c.add_argument("--games", type=int, required=True)
    c.add_argument("--seed", type=int, required=True)
    c.add_argument("--bins", type=int, default=10)
    c.add_argument("--out", help="a JSON file")
    args = ap.parse_args(argv)
    {"record": record, "table": table, "points": points, "calibrate": calibrate,
     "deal-points": deal_points}[args.command](args)


if __name__ == "__main__":
    main()
