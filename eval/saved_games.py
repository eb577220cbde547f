"""``muggins-eval --save-games K``: chosen games of a tournament kept as game records.

A tournament plays on the kernel for speed and keeps only each game's outcome. A game is
fully determined by its deal seed, its seating and the agents' generators (seeded from
(seed, deal, seating, seat), see ``tournament._play_deals``), so the chosen games are played
again through a ``GameSession`` with exactly those seeds, which records every action; each
replay is checked against the tournament's returns before it is saved.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from muggins_env.eval.tournament import TournamentResult


def save_games(result: TournamentResult, count: int, out: str | Path, skip_forced: bool = True) -> list[Path]:
    """Save the first ``count`` games of ``result`` (in deal, then seating order) as game
    records ``<out>/games/deal<d>-seating<s>.json``; return their paths."""
    from muggins_env.play.session import GameSession

    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 0:
        raise ValueError(f"--save-games {count!r} must be an int >= 0")
    folder = Path(out) / "games"
    paths = []
    for g in result.records[:count]:
        seats = [result.specs[i] for i in g.seating]
        rngs = [np.random.default_rng([int(result.seed), int(g.deal), g.seating_index, seat, 0xA6])
                for seat in range(len(seats))]
        meta = {"tournament": {"deal": g.deal, "seating_index": g.seating_index, "seating": list(g.seating),
                               "agents": list(result.agents), "seed": result.seed}}
        session = GameSession(result.game_id, seats, options=result.options, seed=g.deal_seed, rngs=rngs,
                              auto_forced=skip_forced, meta=meta)
        for _ in session.advance():
            pass
        if not np.allclose(session.returns(), g.returns):
            raise RuntimeError(f"deal {g.deal}, seating {g.seating_index}: the recorded replay reached "
                               f"{session.returns()}, the tournament {g.returns}")
        paths.append(session.record.save(folder / f"deal{g.deal}-seating{g.seating_index}.json"))
    return paths
