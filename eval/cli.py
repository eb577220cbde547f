"""``muggins-eval`` / ``python -m muggins_env.eval``: duplicate-deal tournaments from the shell.

Example::

    python -m muggins_env.eval --game cribbage_v0 --opt num_players=2 \\
        --agents heuristic random --deals 300 --seed 0 --out runs/eval/cribbage

prints the table, and writes results.json, summary.csv, games.csv, h2h.csv and
win_rates.png (learning_curve.png for several ``ppo:`` checkpoints) into ``--out``.
``--config my_eval.yaml`` reads the same keys from a YAML mapping (game, options, agents,
deals, seed, lineup, workers, out); command-line flags override it.

``--merge runs/a runs/b ...`` plays nothing: it pools saved runs of one experiment (same
game, options, agents and lineup; different seeds) and reports them as one tournament
(``merge.py``), e.g. a long evaluation run in chunks.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from muggins_env.eval.report import print_table, save_results, summarise
from muggins_env.eval.tournament import LINEUPS, run_tournament

from muggins_env.extras import report_missing
from muggins_env.kernel.options import parse_opt, parse_value  # noqa: F401  (parse_value: this module's API)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="muggins-eval", description="Duplicate-deal, seat-rotated tournaments "
                                "between agents (random, heuristic, search:N, ppo:path) on a muggins_env game.")
    p.add_argument("--config", help="YAML preset (keys: game, options, agents, deals, seed, lineup, workers)")
    p.add_argument("--game", help="env id, e.g. cribbage_v0 (default: the game of the zoo: agents, with the "
                   "options on their model card unless --opt or --config gives options)")
    p.add_argument("--opt", action="append", default=[], metavar="KEY=VALUE", help="game option (repeatable)")
    p.add_argument("--agents", nargs="+", help="agent specs: random heuristic search:200 ppo:path/model.zip "
                   "rllib:run_dir zoo:<env_id> zoo:<env_id>/<name> (--list-agents names the zoo models)")
    p.add_argument("--deals", type=int, help="number of deals (each played by every seating); default 100")
    p.add_argument("--seed", type=int, help="master seed (same seed, same results); default 0")
    p.add_argument("--out", help="directory for results.json, CSVs and PNG plots")
    p.add_argument("--lineup", choices=LINEUPS, help="cycle (default: A B A B ... rotated), field (A B B B and B A A A rotated) or single (A B B B rotated)")
    p.add_argument("--workers", type=int, help="processes (default: all cores)")
    p.add_argument("--no-skip-forced", action="store_true", help="ask agents even single-action decisions")
    p.add_argument("--no-progress", action="store_true", help="no progress bar while the games are played")
    p.add_argument("--no-plot", action="store_true", help="with --out: write no PNG plots (win_rates.png, "
                   "learning_curve.png), only results.json and the CSVs")
    p.add_argument("--save-games", type=int, default=0, metavar="K", help="also save the first K games "
                   "(deal, then seating order) as game records in <out>/games/ (muggins-replay reads them)")
    p.add_argument("--merge", nargs="+", metavar="DIR", help="pool saved runs (their --out folders) of one "
                   "experiment with different seeds into one report; plays nothing")
    p.add_argument("--list-agents", action="store_true", help="name the agent kinds and the zoo models, then exit")
    return p


def list_agents() -> int:
    from muggins_env.agents import AGENT_KINDS, HEURISTIC_SPEC_HELP, SEARCH_SPEC_HELP
    from muggins_env.agents.zoo import best_players, list_models, model_card

    print("agent kinds: " + ", ".join(AGENT_KINDS))
    print("heuristic settings:")
    print("\n".join("  " + line for line in HEURISTIC_SPEC_HELP.splitlines()))
    print("search settings:")
    print("\n".join("  " + line for line in SEARCH_SPEC_HELP.splitlines()))
    print("zoo models (spec zoo:<name>):")
    for name in list_models():
        card = model_card(name)
        print(f"  zoo:{name:28s} {card.get('summary', '')}")
    print("the strongest player of each zoo configuration (spec best:<name>):")
    for name, record in best_players().items():
        print(f"  best:{name:27s} = {record['spec']}")
        print(f"  {'':32s} {record.get('summary') or 'not yet evaluated against ' + record['compared_with']}")
    return 0


def game_of_zoo_agents(agents: Sequence[str]) -> tuple[str | None, dict | None]:
    """The game (and the options on the model card) of the ``zoo:`` and ``best:`` agents among ``agents``:
    (None, None) without one; a ValueError when they play different games or options."""
    from muggins_env.agents.zoo import model_card

    found: dict[str, tuple[str, dict]] = {}
    for spec in agents:
        if str(spec).startswith(("zoo:", "best:")):
            name = str(spec).partition(":")[2]
            found[spec] = (name.partition("/")[0], dict(model_card(name)["game_options"]))
    if not found:
        return None, None
    kinds = {(g, tuple(sorted(o.items()))) for g, o in found.values()}
    if len(kinds) > 1:
        raise ValueError(f"the zoo agents {', '.join(found)} play different games or options "
                         f"({'; '.join(f'{s}: {g} {o}' for s, (g, o) in found.items())}); give --game (and --opt)")
    return next(iter(found.values()))


PRESET_KEYS = ("game", "options", "agents", "deals", "seed", "lineup", "workers", "out")


def load_preset(path: str) -> dict:
    """A ``--config`` YAML preset, checked: a clear error for a missing file, bad YAML, an
    unknown key or a value of the wrong shape."""
    import yaml

    try:
        text = Path(path).read_text()
    except OSError as e:
        raise ValueError(f"cannot read config {path!r}: {e.strerror or e}") from None
    try:
        cfg = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise ValueError(f"config {path!r} is not valid YAML: {e}") from None
    cfg = {} if cfg is None else cfg
    if not isinstance(cfg, dict):
        raise ValueError(f"config {path!r} must be a mapping with keys {', '.join(PRESET_KEYS)}; "
                         f"got {type(cfg).__name__} {cfg!r}")
    unknown = sorted(map(str, set(cfg) - set(PRESET_KEYS)))
    if unknown:
        raise ValueError(f"unknown key(s) {', '.join(unknown)} in {path}; allowed: {', '.join(PRESET_KEYS)}")
    agents = cfg.get("agents")
    if agents is not None and (not isinstance(agents, list) or not all(isinstance(a, str) for a in agents)):
        raise ValueError(f"config {path!r}: agents must be a list of agent specs "
                         f"(e.g. [heuristic, random]), got {agents!r}")
    if not isinstance(cfg.get("options", {}) or {}, dict):
        raise ValueError(f"config {path!r}: options must be a mapping (e.g. {{num_players: 3}}), "
                         f"got {cfg['options']!r}")
    return cfg


def merge_main(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from muggins_env.eval.merge import load_result, merge_results

    playing = [f"--{k.replace('_', '-')}" for k in ("config", "game", "agents", "deals", "seed", "lineup",
                                                     "workers") if getattr(args, k) is not None]
    if args.opt:
        playing.append("--opt")
    if playing:
        parser.error(f"--merge pools saved runs and plays nothing; drop {', '.join(playing)}")
    try:
        runs = [load_result(d) for d in args.merge]
        result = merge_results(runs, names=args.merge)
    except ValueError as e:
        print(f"muggins-eval: error: {e}", file=sys.stderr)
        return 2
    summary = summarise(result)
    summary["merged_from"] = [{"run": d, "seed": r.seed, "deals": r.deals, "games": len(r.records)}
                              for d, r in zip(args.merge, runs)]
    print(f"pooled {len(runs)} runs: {result.deals} deals, {len(result.records)} games")
    return report(result, summary, args.out, plot=not args.no_plot)


def report(result, summary: dict, out: str | None, plot: bool) -> int:
    """Print the table and, with an output folder, write the result files."""
    print_table(summary)
    if out:
        for path in save_results(result, summary, out, plot=plot):
            print(f"wrote {path}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.list_agents:
        return list_agents()
    if report_missing("muggins-eval", "eval"):
        return 1
    if args.merge:
        return merge_main(parser, args)
    cfg: dict = {}
    if args.config:
        try:
            cfg = load_preset(args.config)
        except ValueError as e:
            parser.error(str(e))
    game = args.game or cfg.get("game")
    agents = args.agents or cfg.get("agents")
    zoo_options = None
    if not game and agents:
        try:
            game, zoo_options = game_of_zoo_agents(agents)
        except ValueError as e:
            parser.error(str(e))
    if not game:
        parser.error("give --game (e.g. --game cribbage_v0)")
    if not agents:
        parser.error("give --agents (e.g. --agents heuristic random)")
    if args.save_games and not (args.out or cfg.get("out")):
        parser.error("--save-games needs --out (the records go to <out>/games/)")
    if args.save_games < 0:
        parser.error(f"--save-games {args.save_games}: give a number of games >= 0")
    options = dict(cfg.get("options") or {})
    if zoo_options is not None and not options and not args.opt:
        options = zoo_options
        print(f"{game} {options}: the game and options of {', '.join(a for a in agents if a.startswith('zoo:'))}",
              flush=True)
    if any(str(a).startswith("ppo:") for a in agents) and report_missing("muggins-eval", "train", "a ppo: agent"):
        return 1
    try:
        for text in args.opt:
            k, v = parse_opt(text)
            options[k] = v
        # an explicit 0 is bad input (an error below), not "use the default"
        deals = args.deals if args.deals is not None else cfg.get("deals", 100)
        result = run_tournament(game, options, list(agents), deals,
                                seed=args.seed if args.seed is not None else cfg.get("seed", 0),
                                workers=args.workers if args.workers is not None else cfg.get("workers"),
                                lineup=args.lineup or cfg.get("lineup", "cycle"),
                                skip_forced=not args.no_skip_forced, progress=not args.no_progress)
    except (ValueError, FileNotFoundError) as e:
        print(f"muggins-eval: error: {e}", file=sys.stderr)
        return 2
    status = report(result, summarise(result), args.out or cfg.get("out"), plot=not args.no_plot)
    if args.save_games:
        from muggins_env.eval.saved_games import save_games

        paths = save_games(result, args.save_games, args.out or cfg.get("out"), skip_forced=not args.no_skip_forced)
        print(f"saved {len(paths)} game record(s) in {paths[0].parent if paths else '-'} "
              "(muggins-replay FILE steps through one)")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
