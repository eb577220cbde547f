"""How much of the search's departures from the heuristic a scorer can learn (issue 18).

Reads a label file saved by ``pretrain.save_labels`` from a run with ``features: hinted`` (the
heuristic's move is in each observation), fits action-scorer variants on 80% of the labels with
the cloning loss, and reports on the held-out 20%: agreement, the share of the search's
departures from the hint it predicts (recall) and how often it departs where the search did not.
A scratch diagnostic, not a timed test:

  python benchmarks/departure_fit.py runs/crib2h-labels/labels.npz --players 2 --variants 5:8 20:8 20:32

Each variant is ``epochs:action_hidden`` (net [256, 128], Adam 3e-4, batch 256, one torch thread).
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def fit_variant(data: dict, game, epochs: int, hidden: int, seed: int = 0) -> list[dict]:
    import torch
    from gymnasium import spaces
    from muggins_env.agents.features import action_features
    from muggins_env.train.scorer_policy import ActionScorerPolicy

    obs, acts, masks = data["obs"], data["actions"], data["masks"]
    n_act = game.num_actions
    hint = obs[:, -n_act:].argmax(1)
    perm = np.random.default_rng(seed).permutation(len(acts))
    cut = int(0.8 * len(acts))
    train, test = perm[:cut], perm[cut:]
    af = action_features("cribbage_v0", game, "hinted")
    torch.manual_seed(seed)
    policy = ActionScorerPolicy(spaces.Box(0, 1, (obs.shape[1],), np.float32), spaces.Discrete(n_act), lambda _: 3e-4,
                                net_arch=[256, 128], action_index=af.index, action_static=af.static,
                                action_hidden=hidden)
    opt = torch.optim.Adam(policy.parameters(), lr=3e-4)
    x, y = torch.as_tensor(obs), torch.as_tensor(acts)
    gen = np.random.default_rng(seed + 1)
    rows = []
    for ep in range(1, epochs + 1):
        policy.set_training_mode(True)
        for idx in np.array_split(gen.permutation(train), max(1, len(train) // 256)):
            _, log_prob, _ = policy.evaluate_actions(x[idx], y[idx], action_masks=masks[idx])
            opt.zero_grad()
            (-log_prob.mean()).backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            opt.step()
        if ep % 5 == 0 or ep == epochs:
            policy.set_training_mode(False)
            with torch.no_grad():
                best = policy.get_distribution(x[test], action_masks=masks[test]).distribution.probs.argmax(1).numpy()
            label, h = acts[test], hint[test]
            dep = label != h
            rows.append({"epoch": ep, "held_out_agreement": round(float((best == label).mean()), 4),
                         "departures_predicted": round(float((best[dep] == label[dep]).mean()), 3),
                         "false_departures": round(float((best[~dep] != h[~dep]).mean()), 4)})
    return rows


def main() -> None:
    import torch
    from muggins_env.agents import make_game
    from muggins_env.agents.features import make_features

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("labels", help="a labels.npz saved by a hinted cribbage run")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--variants", nargs="+", default=["5:8", "20:8", "20:32"], help="epochs:action_hidden")
    args = p.parse_args()
    torch.set_num_threads(1)
    torch.distributions.Distribution.set_default_validate_args(False)
    game = make_game("cribbage_v0", {"num_players": args.players})
    with np.load(args.labels, allow_pickle=False) as z:
        data = {k: z[k] for k in ("obs", "actions", "masks")}
    size = game.observation_size + make_features("hinted", "cribbage_v0", game).size
    if data["obs"].shape[1] != size:
        raise SystemExit(f"{args.labels}: observations of {data['obs'].shape[1]}; a hinted cribbage "
                         f"{args.players}-player label file has {size}")
    hint = data["obs"][:, -game.num_actions:].argmax(1)
    print(f"{len(data['actions'])} labels; the search departs from the hint on {np.mean(hint != data['actions']):.1%}")
    for spec in args.variants:
        epochs, hidden = (int(v) for v in spec.split(":"))
        t0 = time.perf_counter()
        for row in fit_variant(data, game, epochs, hidden):
            print(f"epochs {epochs} hidden {hidden}: {row}")
        print(f"  ({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
