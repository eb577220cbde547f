"""Imitation warm start: behaviour cloning of a teacher agent before PPO (config ``pretrain``).

PPO from scratch has to discover by trial the arithmetic a counting game rewards (the exact
count to announce, which lay-away keeps the best hand), and on cribbage it did not within
the two-hour budget. Starting the policy from a teacher's moves (``heuristic`` by default)
and the value head from the teacher's discounted returns puts PPO where the heuristic is,
so that its updates improve on it instead of rediscovering it.

The demonstrations are collected through the very ``SeatEnv`` the learner trains in (same
observation with the same derived features, same opponents minus self-play, same reward
scale), with the teacher choosing the learner's moves from the learner's view only. Then
``epochs`` passes of minibatch Adam minimise ``-log pi(teacher action | obs, mask) +
vf_coef * (V(obs) - return)^2`` on the SB3 policy itself.

``rounds`` > 1 is DAgger: each further round plays ``decisions`` more decisions with the
policy fitted so far choosing the moves, the teacher labelling each of them (what it would
have played there), and refits on everything collected. The clone then learns the teacher's
answer in the positions its own mistakes lead to, which plain cloning never shows it. With a
``search:N`` teacher this is expert iteration's imitation step.

A search teacher costs tens of milliseconds a decision, so ``workers`` processes collect
shares of the decisions side by side (worker k with seed ``seed + 7919 k``; one worker is the
serial collection), and ``first_teacher`` (e.g. ``heuristic``) is fitted first on
``first_decisions`` cheap decisions: the few search labels then only have to teach where the
search departs from the heuristic, not the whole game from scratch.

Search labels are the expensive part (75 ms a cribbage decision at ``search:200``), so they can
be kept: ``save_labels`` writes every decision fitted to ``<out>/labels.npz`` with what they
depend on (game, options, features, teacher, reward settings), and ``labels_from`` fits saved
files with the new ones. Expert iteration can then grow its label set over several runs (or
several machines) instead of paying for all of it in one.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import numpy as np
from muggins_env.agents import make_game
from muggins_env.agents.features import make_features
from muggins_env.train.pool import OpponentPool

from muggins_env.decision import agent_action
from muggins_env.wrappers import SeatEnv, make_spec_agent


def collect(cfg: dict, decisions: int, seed: int, actor: Any = None) -> dict[str, np.ndarray]:
    """``decisions`` learner decisions labelled by the teacher: observations, masks, the
    teacher's actions and the discounted returns (``ppo.gamma``) that followed them. The moves
    played are the teacher's, or ``actor``'s (a numpy policy on the learner's observation).
    With ``pretrain.contested_only`` only the decisions where the teacher weighed two or more
    moves count and are kept (a search teacher's candidates; otherwise two or more legal
    actions): where a game's real choices are rare, the labels go to them."""
    game_id, options = cfg["game"], cfg["env_options"]
    teacher = make_spec_agent(cfg["pretrain"]["teacher"], game_id, dict(options))
    o = cfg["opponents"]
    weights = {"random": float(o["random"]), "heuristic": float(o["heuristic"])}
    if sum(weights.values()) <= 0:  # a pure self-play config: imitate against the heuristic
        weights = {"heuristic": 1.0}
    pool = OpponentPool(game_id, options, weights, o["sampling"])
    game = make_game(game_id, options)
    env = SeatEnv(game, seat=None if cfg["seat"] == "random" else cfg["seat"], opponents=pool,
                  skip_forced=cfg["skip_forced"], seed=seed, reward_scale=cfg["reward_scale"],
                  features=make_features(cfg["features"], game_id, game))
    rng = np.random.default_rng(seed + 1)
    gamma = float(cfg["ppo"]["gamma"])
    contested_only = bool(cfg["pretrain"].get("contested_only", False))
    obs_l, mask_l, act_l, ret_l, keep_l, val_l, kept = [], [], [], [], [], [], 0
    obs, _ = env.reset()
    episode_rewards: list[float] = []
    while True:
        mask = env.action_masks()
        m8 = mask.astype(np.int8)
        action = int(agent_action(teacher, env.state, env.learner, m8, rng))
        weighed = getattr(teacher, "last_values", None)
        keep_l.append(len(weighed) >= 2 if weighed is not None else int(m8.sum()) >= 2)
        val_l.append(weighed or None)  # the values as an array once, at the end
        kept += keep_l[-1]
        obs_l.append(obs)
        mask_l.append(mask)
        act_l.append(action)
        if actor is not None:
            action = actor.act(obs, m8, rng, deterministic=False)
        obs, reward, terminated, truncated, _ = env.step(action)
        episode_rewards.append(float(reward))
        if terminated or truncated:
            g, rets = 0.0, []
            for r in reversed(episode_rewards):
                g = r + gamma * g
                rets.append(g)
            ret_l.extend(reversed(rets))
            episode_rewards = []
            if (kept if contested_only else len(act_l)) >= decisions:
                break
            obs, _ = env.reset()
    keep = np.asarray(keep_l, bool) if contested_only else np.ones(len(act_l), bool)
    return {"obs": np.asarray(obs_l, np.float32)[keep], "masks": np.asarray(mask_l, bool)[keep],
            "actions": np.asarray(act_l, np.int64)[keep], "returns": np.asarray(ret_l, np.float32)[keep],
            VALUES_KEY: _values_array(val_l, len(mask_l[0]) if mask_l else 0)[keep]}


def _values_array(weighed: list[dict[int, float] | None], width: int) -> np.ndarray:
    """Per decision the teacher's value of each move it weighed, NaN elsewhere."""
    out = np.full((len(weighed), width), np.nan, np.float32)
    for i, values in enumerate(weighed):
        for a, v in (values or {}).items():
            out[i, a] = v
    return out


LABEL_KEYS = ("obs", "masks", "actions", "returns")
VALUES_KEY = "values"  # a search teacher's mean value of each weighed move (NaN: not weighed), kept for
# analysis (how much a model's choices are worth by the search's own values); older files lack it
LABELS_FILE = "labels.npz"


def _concat(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """The parts end to end; a part without the teacher's values gets NaN rows."""
    out = {k: np.concatenate([p[k] for p in parts]) for k in LABEL_KEYS}
    if any(VALUES_KEY in p for p in parts):
        out[VALUES_KEY] = np.concatenate([p[VALUES_KEY] if VALUES_KEY in p else
                                          np.full(p["masks"].shape, np.nan, np.float32) for p in parts])
    return out


def collect_parallel(cfg: dict, decisions: int, seed: int, actor: Any = None,
                     workers: int = 1) -> dict[str, np.ndarray]:
    """``collect`` split over ``workers`` processes (spawned: the trainer's torch threads are
    never forked); the shares are concatenated in worker order, so the data is reproducible."""
    if workers <= 1:
        return collect(cfg, decisions, seed, actor)
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    shares = [decisions // workers + (k < decisions % workers) for k in range(workers)]
    jobs = [(k, n) for k, n in enumerate(shares) if n > 0]
    with ProcessPoolExecutor(len(jobs), mp_context=mp.get_context("spawn")) as ex:
        parts = list(ex.map(collect, [cfg] * len(jobs), [n for _, n in jobs],
                            [seed + 7919 * k for k, _ in jobs], [actor] * len(jobs)))
    return _concat(parts)


def label_meta(cfg: dict) -> dict:
    """What a label set depends on: labels are reusable only by a run where all of it is equal."""
    return {"game": cfg["game"], "env_options": dict(cfg["env_options"]), "features": cfg["features"],
            "teacher": cfg["pretrain"]["teacher"], "contested_only": bool(cfg["pretrain"]["contested_only"]),
            "gamma": float(cfg["ppo"]["gamma"]), "reward_scale": float(cfg["reward_scale"])}


def save_labels(path: str | Path, data: dict[str, np.ndarray], cfg: dict) -> Path:
    path = Path(path)
    valued = VALUES_KEY in data and bool(np.isfinite(data[VALUES_KEY]).any())  # not for a heuristic teacher
    keys = LABEL_KEYS + ((VALUES_KEY,) if valued else ())
    np.savez_compressed(path, **{k: data[k] for k in keys}, meta=np.array(json.dumps(label_meta(cfg))))
    return path


def load_labels(path: str | Path, cfg: dict) -> dict[str, np.ndarray]:
    """A saved label set (a file, or a run folder holding ``labels.npz``), checked against ``cfg``."""
    p = Path(path)
    if p.is_dir():
        p = p / LABELS_FILE
    if not p.is_file():
        raise FileNotFoundError(f"pretrain.labels_from: no label file at {str(path)!r} (a labels.npz written by "
                                "pretrain.save_labels, or the run folder holding it)")
    with np.load(p, allow_pickle=False) as z:
        missing = [k for k in (*LABEL_KEYS, "meta") if k not in z.files]
        if missing:
            raise ValueError(f"pretrain.labels_from: {str(p)!r} is not a label file (missing {', '.join(missing)})")
        meta = json.loads(str(z["meta"]))
        data = {k: z[k] for k in LABEL_KEYS + ((VALUES_KEY,) if VALUES_KEY in z.files else ())}
    want = label_meta(cfg)
    if not cfg["pretrain"].get("same_teacher", True):  # expert iteration: each round's search is another
        want.pop("teacher")
    for key, value in want.items():
        if meta.get(key) != value:
            raise ValueError(f"pretrain.labels_from: {str(p)!r} has {key}={meta.get(key)!r}, this run has "
                             f"{key}={value!r}; labels are reusable only with the same {', '.join(want)}")
    return data


def agreement(policy: Any, data: dict[str, np.ndarray]) -> float:
    """Share of the demonstrations where the policy's most probable legal action is the teacher's."""
    import torch

    with torch.no_grad():
        obs = torch.as_tensor(data["obs"])
        dist = policy.get_distribution(obs, action_masks=data["masks"])
        best = dist.distribution.probs.argmax(dim=1).numpy()
    return float(np.mean(best == data["actions"]))


def imitate(model: Any, cfg: dict, seed: int, log=print, out: str | Path | None = None) -> dict[str, Any]:
    """Collect the teacher's decisions (with any saved ones) and fit ``model.policy`` to them;
    return what was done. With ``save_labels`` every decision fitted goes to ``out/labels.npz``."""
    import torch
    from muggins_env.agents.ppo import policy_from_sb3

    pc = cfg["pretrain"]
    workers = pc["workers"]
    t0 = time.perf_counter()
    opt = torch.optim.Adam(model.policy.parameters(), lr=pc["learning_rate"])
    cached = [load_labels(p, cfg) for p in pc["labels_from"]]  # first: a bad file stops the run at once
    reused = sum(len(c["actions"]) for c in cached)
    if cached:
        whose = repr(pc["teacher"]) if pc.get("same_teacher", True) else "earlier teachers"
        log(f"reusing {reused} saved decisions of {whose} from {len(cached)} label file(s)")
    first = None
    if pc["first_teacher"] != "none":
        first_cfg = {**cfg, "pretrain": {**pc, "teacher": pc["first_teacher"], "contested_only": False}}
        first_data = collect_parallel(first_cfg, pc["first_decisions"], seed + 500, workers=workers)
        _fit(model.policy, opt, first_data, cfg, seed + 500)
        first = {"teacher": pc["first_teacher"], "decisions": len(first_data["actions"]),
                 "agreement_after": round(agreement(model.policy, first_data), 4)}
        log(f"first imitation: {first['decisions']} decisions of {pc['first_teacher']!r}, the policy's best "
            f"move is the teacher's on {first['agreement_after']:.1%} of them")
        del first_data
    t1 = time.perf_counter()
    new = [collect_parallel(cfg, pc["decisions"], seed, workers=workers)] if pc["decisions"] > 0 else []
    data = _concat(cached + new)
    t_collect = time.perf_counter() - t1
    before = agreement(model.policy, data)
    rounds = []
    for r in range(pc["rounds"]):
        if r:
            t1 = time.perf_counter()
            fresh = collect_parallel(cfg, pc["decisions"], seed + 1000 * r, actor=policy_from_sb3(model.policy),
                                     workers=workers)
            t_collect += time.perf_counter() - t1
            on_own = agreement(model.policy, fresh)  # on the positions the clone reaches itself
            data = _concat([data, fresh])
            rounds.append(round(on_own, 4))
            log(f"DAgger round {r + 1}: the clone's best move is the teacher's on {on_own:.1%} of "
                f"{len(fresh['actions'])} decisions it reached itself")
        _fit(model.policy, opt, data, cfg, seed + r)
    after = agreement(model.policy, data)
    n = len(data["actions"])
    if pc["save_labels"]:
        if out is None:
            raise ValueError("pretrain.save_labels needs the run's output folder")
        path = save_labels(Path(out) / LABELS_FILE, data, cfg)
        log(f"saved the {n} decisions fitted to {path} (pretrain.labels_from reuses them)")
    stats = {"teacher": pc["teacher"], "decisions": n, "reused": reused, "epochs": pc["epochs"], "rounds": pc["rounds"],
             "agreement_before": round(before, 4), "agreement_after": round(after, 4),
             "agreement_on_own_play": rounds, "workers": workers, "first": first,
             "collect_seconds": round(t_collect, 1), "seconds": round(time.perf_counter() - t0, 1)}
    log(f"imitation warm start: {n} decisions of {pc['teacher']!r}, the policy's best move is the "
        f"teacher's on {before:.1%} -> {after:.1%} of them ({stats['seconds']} s)")
    return stats


def _fit(policy: Any, opt: Any, data: dict[str, np.ndarray], cfg: dict, seed: int) -> None:
    """``pretrain.epochs`` passes of minibatch Adam on the cloning and value losses."""
    import torch

    pc = cfg["pretrain"]
    policy.set_training_mode(True)
    n = len(data["actions"])
    obs = torch.as_tensor(data["obs"])
    actions = torch.as_tensor(data["actions"])
    returns = torch.as_tensor(data["returns"])
    masks = data["masks"]
    vf = float(cfg["ppo"]["vf_coef"])
    gen = np.random.default_rng(seed + 2)
    for _ in range(pc["epochs"]):
        for idx in np.array_split(gen.permutation(n), max(1, n // pc["batch_size"])):
            values, log_prob, _ = policy.evaluate_actions(obs[idx], actions[idx], action_masks=masks[idx])
            loss = -log_prob.mean() + vf * torch.nn.functional.mse_loss(values.flatten(), returns[idx])
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), cfg["ppo"]["max_grad_norm"])
            opt.step()
    policy.set_training_mode(False)
