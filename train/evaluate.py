"""End-of-training evaluation: the trained agent against ``random`` and ``heuristic``.

Uses the project's tournament harness (``muggins_env.eval.evaluate_agent``: the agent alone
against a field of each opponent, every seat, duplicate deals); without it, this module's own
duplicate-deal match: every deal (a seed) is
played once from each seat by the agent, the other seats all held by the opponent, so that
the luck of the cards cancels out. Per deal, the agent's mean return over its seats; the
table reports the mean return per game and the win rate (return > 0) with 95% intervals
over deals (normal approximation). Parity (an agent as strong as the opponent) is a mean
return of 0 in the zero-sum games.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
from muggins_env.train.pool import make_opponent

from muggins_env.wrappers import SeatEnv


def _ci(values: np.ndarray) -> tuple[float, float, float]:
    m = float(values.mean()) if len(values) else float("nan")
    if len(values) < 2:
        return m, float("nan"), float("nan")
    h = 1.96 * float(values.std(ddof=1)) / math.sqrt(len(values))
    return m, m - h, m + h


def duplicate_match(agent: Any, opponent_spec: str, game_id: str, options: dict, deals: int,
                    skip_forced: bool = True, seed: int = 12345) -> dict:
    """The agent against ``opponent_spec`` over ``deals`` duplicate deals (every seat each)."""
    opponent_factory = {}

    def sample(rng, learner, n):
        return {p: opponent_factory.setdefault(p, make_opponent(opponent_spec, game_id, options))
                for p in range(n) if p != learner}

    env = SeatEnv(game_id, options, opponents=sample, skip_forced=skip_forced, skip_decisionless=False)
    n = env.game.num_players
    rng = np.random.default_rng(seed)
    deal_returns = np.zeros(deals)
    deal_wins = np.zeros(deals)
    games = 0
    t0 = time.perf_counter()
    for d in range(deals):
        deal_seed = int(rng.integers(2**62))
        ret_sum = win_sum = 0.0
        for seat in range(n):
            env.fixed_seat = seat
            obs, _ = env.reset(seed=deal_seed)
            ret = env.pending_reward
            done = env.state.is_terminal()
            while not done:
                info = env.state.public_view(env.learner) if getattr(agent, "needs_info", False) else None
                a = agent.act(obs, env.action_masks().astype(np.int8), rng, info)
                obs, r, term, trunc, _ = env.step(a)
                ret += r
                done = term or trunc
            ret_sum += ret
            win_sum += ret > 0
            games += 1
        deal_returns[d] = ret_sum / n
        deal_wins[d] = win_sum / n
    m, lo, hi = _ci(deal_returns)
    w, wlo, whi = _ci(deal_wins)
    return {"opponent": opponent_spec, "deals": deals, "games": games, "mean_return": m,
            "mean_return_ci95": [lo, hi], "win_rate": w, "win_rate_ci95": [wlo, whi],
            "win_rate_parity": 1.0 / n, "beats": bool(lo > 0), "seconds": time.perf_counter() - t0}


def evaluate(agent: Any, game_id: str, options: dict, opponents: list[str], deals: int,
             skip_forced: bool = True, seed: int = 12345) -> list[dict]:
    try:
        from muggins_env.eval import evaluate_agent  # the project's harness (issue 6)
    except ImportError:
        evaluate_agent = None
    rows = []
    for spec in opponents:
        try:
            make_opponent(spec, game_id, options)
        except (ValueError, ImportError, FileNotFoundError) as e:  # e.g. no heuristic yet for this game
            rows.append({"opponent": spec, "deals": 0, "games": 0, "error": str(e)})
            continue
        if evaluate_agent is not None:
            rows.extend(evaluate_agent(agent, game_id, options, opponents=[spec], deals=deals, seed=seed))
        else:
            rows.append(duplicate_match(agent, spec, game_id, options, deals, skip_forced, seed))
    return rows


def format_table(rows: list[dict], title: str = "") -> str:
    lines = [title] if title else []
    lines.append(f"{'opponent':<12} {'deals':>6} {'games':>6} {'mean return [95% CI]':>28} "
                 f"{'win rate [95% CI]':>26} {'parity':>7}")
    for r in rows:
        if "error" in r:
            lines.append(f"{r['opponent']:<12} not evaluated: {r['error']}")
            continue
        lo, hi = r["mean_return_ci95"]
        wlo, whi = r["win_rate_ci95"]
        lines.append(f"{r['opponent']:<12} {r['deals']:>6} {r['games']:>6} "
                     f"{r['mean_return']:>+9.3f} [{lo:+.3f}, {hi:+.3f}] "
                     f"{r['win_rate']:>9.3f} [{wlo:.3f}, {whi:.3f}] {r['win_rate_parity']:>7.3f}")
    return "\n".join(lines)


def evaluate_policy(policy: Any, cfg: dict, seed: int, title: str, name: str = "ppo", log: Any = print) -> list[dict]:
    """The end-of-run evaluation of a trained numpy policy per ``cfg["eval"]`` (both backends):
    its most probable moves, with the derived features it was trained with; the table is logged."""
    from muggins_env.agents import make_game
    from muggins_env.agents.features import make_features
    from muggins_env.agents.ppo import PPOAgent

    game = make_game(cfg["game"], cfg["env_options"])
    agent = PPOAgent(policy, deterministic=True, name=name, features=make_features(policy.features, cfg["game"], game))
    opts = {**cfg["env_options"], **cfg["eval"]["env_options"]}
    rows = evaluate(agent, cfg["game"], opts, cfg["eval"]["opponents"], cfg["eval"]["deals"], cfg["skip_forced"],
                    seed=seed + 777)
    log(format_table(rows, title))
    return rows
