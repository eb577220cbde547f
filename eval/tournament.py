"""Duplicate-deal, seat-rotated tournaments on the kernel games.

``run_tournament(game_id, options, agents, deals, seed)`` plays every deal once for every
seating of the schedule and records every game:

- Deal ``d`` has the seed ``deal_seed(seed, d)``; the game seed is derived from it exactly as
  the PettingZoo adapter does in ``env.reset(seed=deal_seed)``, so every seating of a deal
  gets the same cards (duplicate format: luck cancels), and a recorded game can be replayed
  through the env with its ``deal_seed``.
- Seatings (``schedule``): ``lineup="cycle"`` (default) fills the seats by cycling the agent
  list (2 agents, 4 seats: A B A B, so partnerships seat each agent's team opposite) and
  takes every distinct rotation of it (2 players: the agents alternate seats; 3-8 players:
  the field rotates round the table); ``lineup="field"`` puts each agent alone against a
  field cycled from the others (A B B B, then B A A A), with every rotation;
  ``lineup="single"`` only the first agent alone against the field (A B B B rotated: a
  candidate against opponents). Every deal is played by every seating.
- Agents see only what their player may know, as every harness gives it
  (``muggins_env.decision.agent_inputs``): the observation, the mask and ``info``
  (``{"view": state.public_view(p), "action_mask", "seat", "phase"}``, plus ``"resample"``
  for search agents and ``"text"`` for agents with ``needs_text``, the history being every
  move as seat ``p`` saw it).
- Work is split by deal over a ``ProcessPoolExecutor`` (default ``os.cpu_count()``
  workers); every random stream is seeded from (seed, deal, seating, seat), so the results
  do not depend on the number of workers or their timing.

"win" = the seat's side has the top return; tied sides share the win (1/k each), so the
parity win rate of a seat is 1 / number of sides.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from muggins_env.decision import agent_action
from muggins_env.env import ADAPTER_OPTIONS
from muggins_env.kernel.seeds import game_seed_of
from muggins_env.text_view import HistoryKeeper

LINEUPS = ("cycle", "field", "single")


def deal_seed(seed: int, deal: int) -> int:
    """The reset seed of deal ``deal`` of a tournament with master ``seed``."""
    return int(np.random.default_rng([int(seed), int(deal), 0xD1]).integers(2**62))


def schedule(num_agents: int, num_seats: int, lineup: str = "cycle") -> list[tuple[int, ...]]:
    """The seatings (agent index per seat) every deal is played with."""
    if lineup not in LINEUPS:
        raise ValueError(f"lineup={lineup!r} is not allowed; allowed: {', '.join(LINEUPS)}")
    if num_agents < 1:
        raise ValueError("give at least one agent")
    if num_agents > num_seats:
        raise ValueError(f"{num_agents} agents do not fit {num_seats} seats")
    if lineup == "cycle":
        bases = [tuple(i % num_agents for i in range(num_seats))]
    else:
        bases = []
        for a in range(1 if lineup == "single" else num_agents):
            others = [b for b in range(num_agents) if b != a] or [a]
            bases.append(tuple([a] + [others[i % len(others)] for i in range(num_seats - 1)]))
    out: list[tuple[int, ...]] = []
    for base in bases:
        for r in range(num_seats):
            seating = base[-r:] + base[:-r] if r else base
            if seating not in out:
                out.append(seating)
    return out


def seat_sides(game: Any) -> list[int]:
    """Side (team) of every seat, as the game says (``Game.sides``: partners opposite share one)."""
    return [int(side) for side in game.sides()]


def final_scores(state: Any) -> list[float]:
    """The game's own final score per seat, higher better: its scoreboard (points in cribbage and
    dominoes, chip balance in Michigan), negated where fewer is better (card Muggins: minus the
    cards a player still holds)."""
    _, values = state.scoreboard()
    sign = 1.0 if state.game.scoreboard_higher_wins else -1.0
    return [sign * v for v in values]


def win_shares(returns: Sequence[float], sides: Sequence[int]) -> list[float]:
    """Per seat: 1/k if its side is among the k sides with the top return, else 0."""
    side_ret: dict[int, float] = {}
    for s, side in enumerate(sides):
        side_ret.setdefault(side, float(returns[s]))
    top = max(side_ret.values())
    winners = [side for side, r in side_ret.items() if abs(r - top) <= 1e-9]
    return [1.0 / len(winners) if sides[s] in winners else 0.0 for s in range(len(sides))]


@dataclass
class GameRecord:
    deal: int
    deal_seed: int
    seating_index: int
    seating: list[int]  # agent index per seat
    returns: list[float]
    scores: list[float]
    win_share: list[float]
    decisions: int  # decisions the agents were asked (forced ones excluded with skip_forced)
    plies: int  # every applied action
    truncated: bool
    seconds: float
    #: seat (str) -> what that seat's agent counted during this game (its ``stats()``: a
    #: language-model player's answers, illegal answers, retries, fallbacks, tokens, seconds);
    #: None when no agent of the game keeps stats (results.json then omits the key)
    agent_stats: dict | None = None


def agent_stats_of(agent: Any) -> dict | None:
    """``agent.stats()`` (numbers by name) when the agent keeps stats, else None."""
    fn = getattr(agent, "stats", None)
    return dict(fn()) if callable(fn) else None


def stats_delta(before: dict | None, after: dict | None) -> dict | None:
    """What an agent counted between two ``stats()`` snapshots."""
    if after is None:
        return None
    before = before or {}
    return {k: v - before.get(k, 0) for k, v in after.items() if isinstance(v, (int, float))}


@dataclass
class TournamentResult:
    game_id: str
    options: dict
    agents: list[str]  # labels
    specs: list[str]
    deals: int
    seed: int
    lineup: str
    seatings: list[list[int]]
    num_players: int
    sides: list[int]
    records: list[GameRecord] = field(default_factory=list)
    seconds: float = 0.0
    workers: int = 1


def agent_labels(agents: Sequence[Any]) -> list[str]:
    labels: list[str] = []
    for a in agents:
        base = a if isinstance(a, str) else getattr(a, "name", type(a).__name__)
        label, k = str(base), 2
        while label in labels:
            label = f"{base}#{k}"
            k += 1
        labels.append(label)
    return labels


# -- playing -------------------------------------------------------------------------------------
_WORKER_AGENTS: dict[tuple, Any] = {}
_WORKER_GAMES: dict[tuple, Any] = {}


def _game(game_id: str, options: dict) -> Any:
    key = (game_id, tuple(sorted((k, repr(v)) for k, v in options.items())))
    if key not in _WORKER_GAMES:
        from muggins_env.agents import make_game

        _WORKER_GAMES[key] = make_game(game_id, options)
    return _WORKER_GAMES[key]


def _agent(agent: Any, game_id: str, options: dict, seat: int, index: int) -> Any:
    if not isinstance(agent, str):
        return agent
    key = (agent, game_id, tuple(sorted((k, repr(v)) for k, v in options.items())), seat, index)
    if key not in _WORKER_AGENTS:
        from muggins_env.agents import make_agent

        _WORKER_AGENTS[key] = make_agent(agent, game_id, options)
    return _WORKER_AGENTS[key]


def play_game(game: Any, agents: Sequence[Any], reset_seed: int, rngs: Sequence[np.random.Generator],
              skip_forced: bool = True, max_plies: int = 1_000_000) -> tuple[Any, int, int]:
    """Play one game on the kernel (seat ``s`` played by ``agents[s]``); return the final
    state, the decisions asked of agents and the plies applied."""
    state = game.new_initial_state(seed=game_seed_of(reset_seed))
    decisions = plies = 0
    for a in agents:
        reset = getattr(a, "reset", None)
        if callable(reset):
            reset()
    # every seat's moves as that seat saw them, kept only for agents that read the decision as text
    history = HistoryKeeper(len(agents)) if any(getattr(a, "needs_text", False) for a in agents) else None
    while not state.is_terminal():
        p = state.current_player()
        mask = state.legal_actions_mask()
        if skip_forced and mask.sum() == 1:
            action = int(mask.argmax())
        else:
            action = agent_action(agents[p], state, p, mask.copy(), rngs[p],
                                  history.of(p) if history is not None else None, bare_view=False)
            decisions += 1
        action = state.check_legal(action)  # agents never get an illegal move past the harness
        if history is not None:
            history.before_apply(state, action)
        state.apply(action)
        plies += 1
        if plies >= max_plies:
            raise RuntimeError(f"game exceeded {max_plies} plies (reset seed {reset_seed}); "
                               "bound the episode with the game's move-limit option")
    return state, decisions, plies


def _play_deals(task: tuple) -> list[GameRecord]:
    game_id, options, agents, seatings, deals, seed, skip_forced = task
    game = _game(game_id, options)
    sides = seat_sides(game)
    out = []
    for d in deals:
        ds = deal_seed(seed, d)
        for si, seating in enumerate(seatings):
            players = [_agent(agents[i], game_id, options, seat, i) for seat, i in enumerate(seating)]
            rngs = [np.random.default_rng([int(seed), int(d), si, seat, 0xA6]) for seat in range(len(seating))]
            before = [agent_stats_of(a) for a in players]
            t0 = time.perf_counter()
            state, decisions, plies = play_game(game, players, ds, rngs, skip_forced)
            seconds = time.perf_counter() - t0
            returns = [float(x) for x in state.returns()]
            counted = {str(seat): delta for seat, (a, b) in enumerate(zip(players, before))
                       if (delta := stats_delta(b, agent_stats_of(a))) is not None}
            out.append(GameRecord(
                deal=d, deal_seed=ds, seating_index=si, seating=list(seating), returns=returns,
                scores=final_scores(state), win_share=win_shares(returns, sides), decisions=decisions,
                plies=plies, truncated=bool(state.is_truncated()), seconds=seconds, agent_stats=counted or None))
    return out


def run_tournament(game_id: str, options: dict | None, agents: Sequence[Any], deals: int, seed: int = 0,
                   workers: int | None = None, lineup: str = "cycle", skip_forced: bool = True,
                   progress: bool = True, chunk: int | None = None) -> TournamentResult:
    """Play ``deals`` duplicate deals for every seating; ``agents`` are specs (or agent objects)."""
    options = {k: v for k, v in dict(options or {}).items() if k not in ADAPTER_OPTIONS}  # skip_forced is the harness's own
    if isinstance(deals, bool) or not isinstance(deals, (int, np.integer)) or deals < 1:
        raise ValueError(f"deals={deals!r} must be an int >= 1")
    agents = list(agents)
    game = _game(game_id, options)  # clear errors for a wrong game id or option, here
    for a in agents:  # and for a wrong agent spec
        if isinstance(a, str):
            from muggins_env.agents import make_agent

            make_agent(a, game_id, options)
    seatings = schedule(len(agents), game.num_players, lineup)
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, (int, np.integer))
                                or workers < 1):
        raise ValueError(f"workers={workers!r} must be an int >= 1 (or None: all cores)")
    workers = (os.cpu_count() or 1) if workers is None else int(workers)
    workers = min(workers, deals)
    if chunk is None:
        chunk = max(1, min(16, deals // (workers * 4) or 1))
    tasks = [(game_id, options, agents, seatings, list(range(s, min(s + chunk, deals))), seed, skip_forced)
             for s in range(0, deals, chunk)]
    result = TournamentResult(game_id=game_id, options=options, agents=agent_labels(agents),
                              specs=[a if isinstance(a, str) else repr(a) for a in agents], deals=deals,
                              seed=seed, lineup=lineup, seatings=[list(s) for s in seatings],
                              num_players=game.num_players, sides=seat_sides(game), workers=workers)
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=deals, desc=f"{game_id} deals", unit="deal", leave=False)
    t0 = time.perf_counter()
    records: list[GameRecord] = []
    if workers == 1:
        for t in tasks:
            records.extend(_play_deals(t))
            if bar is not None:
                bar.update(len(t[4]))
    else:
        with ProcessPoolExecutor(max_workers=workers) as ex:
            for t, recs in zip(tasks, ex.map(_play_deals, tasks)):
                records.extend(recs)
                if bar is not None:
                    bar.update(len(t[4]))
    if bar is not None:
        bar.close()
    records.sort(key=lambda r: (r.deal, r.seating_index))
    result.records = records
    result.seconds = time.perf_counter() - t0
    return result
