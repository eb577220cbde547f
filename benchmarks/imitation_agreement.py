"""How closely a trained policy picks its teacher's move, on fresh positions, by phase.

  python benchmarks/imitation_agreement.py runs/crib2-scorer --decisions 20000 --seed 99

The teacher (``heuristic`` by default) plays the learner's seat of the run's training env
(same opponents, features and options as ``pretrain.collect``) from a seed the run never saw;
at every decision with more than one legal move the policy's most probable legal move is
compared with the teacher's. ``--same-rank`` (card games whose actions 0-51 are card ids)
counts another card of the same rank as the same move, as the README's figures do.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

import numpy as np


def main(argv=None) -> int:
    from muggins_env.agents.ppo import load_policy
    from muggins_env.train.config import from_dict
    from muggins_env.train.pretrain import _teacher_info
    from muggins_env.train.trainer import _make_env_fn

    from muggins_env.wrappers import make_spec_agent

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("run", help="a training run directory (config.yaml via model_card.json, model.npz)")
    p.add_argument("--teacher", default="heuristic")
    p.add_argument("--decisions", type=int, default=20000)
    p.add_argument("--seed", type=int, default=99)
    p.add_argument("--same-rank", action="store_true")
    args = p.parse_args(argv)
    cfg = from_dict(json.loads((Path(args.run) / "model_card.json").read_text())["config"])
    cfg["opponents"] = {**cfg["opponents"], "self": 0.0}
    if cfg["opponents"]["random"] + cfg["opponents"]["heuristic"] <= 0:
        cfg["opponents"]["heuristic"] = 1.0
    from muggins_env.train.pool import OpponentPool

    o = cfg["opponents"]
    pool = OpponentPool(cfg["game"], cfg["env_options"], {"random": o["random"], "heuristic": o["heuristic"]},
                        o["sampling"])
    env = _make_env_fn(cfg, pool, args.seed, 0)()
    policy = load_policy(args.run)
    teacher = make_spec_agent(args.teacher, cfg["game"], dict(cfg["env_options"]))
    rng = np.random.default_rng(args.seed)
    same, total = Counter(), Counter()
    obs, _ = env.reset()
    n = 0
    while n < args.decisions:
        mask = env.action_masks()
        m8 = mask.astype(np.int8)
        want = int(teacher.act(env.state.observation(env.learner), m8, rng, _teacher_info(env, teacher, m8)))
        if mask.sum() > 1:
            got = policy.act(obs, m8)
            phase = str(env.state.public_view(env.learner).get("phase", "all"))
            ok = got == want or (args.same_rank and got < 52 and want < 52 and got % 13 == want % 13)
            same[phase] += ok
            total[phase] += 1
            n += 1
        obs, _, term, trunc, _ = env.step(want)
        if term or trunc:
            obs, _ = env.reset()
    for phase in sorted(total):
        print(f"{phase:<10} {same[phase] / total[phase]:.3f}  ({total[phase]} decisions)")
    print(f"{'all':<10} {sum(same.values()) / n:.3f}  ({n} decisions)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
