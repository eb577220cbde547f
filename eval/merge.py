"""Pooling tournaments run in pieces (``muggins-eval --merge DIR ...``).

Long evaluations (a search agent at a few seconds a decision) run as many small tournaments:
different seeds, different processes or machines, different days. ``merge_results`` pools
their saved games into one ``TournamentResult`` so the summary (Wilson and by-deal bootstrap
intervals, head-to-head, ratings) is computed over every game at once by the same code as a
single run. It only pools runs of the same experiment: the same game and options, agent
specs, lineup and seatings; and never the same deals twice (two runs with the same seed play
the same cards). Deal numbers are renumbered in order so that deals of different runs stay
different clusters for the bootstrap.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from muggins_env.eval.tournament import GameRecord, TournamentResult


def load_result(path: str | Path) -> TournamentResult:
    """A tournament saved by ``save_results`` (``results.json`` in ``path``, or the file itself)."""
    p = Path(path)
    if p.is_dir():
        p = p / "results.json"
    try:
        data = json.loads(p.read_text())
    except OSError as e:
        raise ValueError(f"cannot read tournament results {str(p)!r}: {e.strerror or e}") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"{str(p)!r} is not a results.json written by muggins-eval: {e}") from None
    try:
        s = data["summary"]
        return TournamentResult(
            game_id=s["game"], options=dict(s["options"]), agents=[a["agent"] for a in s["agents"]],
            specs=[a["spec"] for a in s["agents"]], deals=int(s["deals"]), seed=int(s["seed"]),
            lineup=s["lineup"], seatings=[list(x) for x in s["seatings"]], num_players=int(s["num_players"]),
            sides=list(s["sides"]), records=[GameRecord(**g) for g in data["games"]],
            seconds=float(s.get("seconds") or 0.0), workers=int(s.get("workers") or 1))
    except (KeyError, TypeError) as e:
        raise ValueError(f"{str(p)!r} is not a results.json written by muggins-eval (missing or bad {e})") from None


#: what two runs must share to be pooled (TournamentResult attribute, readable name)
_SAME = (("game_id", "game"), ("options", "options"), ("specs", "agent specs"), ("lineup", "lineup"),
         ("seatings", "seatings"), ("sides", "sides"))


def merge_results(results: Sequence[TournamentResult], names: Sequence[str] | None = None) -> TournamentResult:
    """One tournament holding every game of ``results`` (runs of the same experiment with
    different seeds), deals renumbered 0, 1, ... in run order."""
    results = list(results)
    if not results:
        raise ValueError("give at least one tournament to merge")
    names = list(names) if names is not None else [f"run {i}" for i in range(len(results))]
    first = results[0]
    seeds: dict[int, str] = {}
    for r, name in zip(results, names):
        for attr, label in _SAME:
            if getattr(r, attr) != getattr(first, attr):
                raise ValueError(f"cannot merge {name} with {names[0]}: different {label} "
                                 f"({getattr(r, attr)!r} vs {getattr(first, attr)!r})")
        if r.seed in seeds:
            raise ValueError(f"{name} and {seeds[r.seed]} both have seed {r.seed}: they played the same "
                             "deals, and pooling them would count those deals twice")
        seeds[r.seed] = name
    merged = TournamentResult(game_id=first.game_id, options=first.options, agents=first.agents,
                              specs=first.specs, deals=0, seed=first.seed, lineup=first.lineup,
                              seatings=first.seatings, num_players=first.num_players, sides=first.sides,
                              seconds=sum(r.seconds for r in results),
                              workers=max(r.workers for r in results))
    for r in results:
        renumber = {d: merged.deals + i for i, d in enumerate(sorted({g.deal for g in r.records}))}
        merged.records.extend(GameRecord(**{**vars(g), "deal": renumber[g.deal]}) for g in r.records)
        merged.deals += len(renumber)
    merged.records.sort(key=lambda g: (g.deal, g.seating_index))
    return merged
