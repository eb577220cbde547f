"""Play one game of each env between random agents, render the end and print the result.

``python -m muggins_env.demo [--game ID] [--seed N]``: a smoke test of the whole stack that
needs no training extras.
"""

from __future__ import annotations

import argparse

import numpy as np

from . import ENV_NAMES, make


def play(name: str, seed: int) -> str:
    env = make(name, raw=True, render_mode="ansi")
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    decisions = 0
    totals = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        totals[agent] += reward
        if term or trunc:
            action = None
        else:
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            decisions += 1
        env.step(action)
    lines = [f"== {name} (seed {seed}): {decisions} decisions by random agents", env.render()]
    lines.append("returns: " + ", ".join(f"{a} {r:+.3f}" for a, r in totals.items()))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=ENV_NAMES, action="append", help="env id (default: all)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    for name in args.game or ENV_NAMES:
        print(play(name, args.seed))
        print()


if __name__ == "__main__":
    main()
