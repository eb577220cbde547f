"""Training configs: YAML presets (``configs/<env_id>/<preset>.yaml``), defaults, validation.

Every key is declared here with its type and allowed values; an unknown key or a bad value
raises ``ConfigError`` (a ``ValueError``) naming the key path, the value and what is allowed.
A preset file may hold only the keys it changes: the rest come from ``DEFAULTS``. ``CONFIG``
declares each key once: its default, its check and what it means.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from muggins_env.agents.features import FEATURE_SETS


class ConfigError(ValueError):
    """A config key or value that is not allowed."""


def _num(lo: float | None = None, hi: float | None = None, integer: bool = False,
         lo_open: bool = False) -> Callable[[Any], str | None]:
    def check(v: Any) -> str | None:
        kinds = (int,) if integer else (int, float)
        if isinstance(v, bool) or not isinstance(v, kinds):
            return "an integer" if integer else "a number"
        if lo is not None and (v <= lo if lo_open else v < lo):
            return f"{'>' if lo_open else '>='} {lo}"
        if hi is not None and v > hi:
            return f"<= {hi}"
        return None

    def described(v: Any) -> str | None:
        bad = check(v)
        if bad is None:
            return None
        parts = ["an integer" if integer else "a number"]
        if lo is not None:
            parts.append(f"{'>' if lo_open else '>='} {lo}")
        if hi is not None:
            parts.append(f"<= {hi}")
        return " ".join(parts)

    return described


def _choice(*allowed: Any) -> Callable[[Any], str | None]:
    def check(v: Any) -> str | None:
        ok = any(v == a and type(v) is type(a) for a in allowed)
        return None if ok else "one of " + ", ".join(map(repr, allowed))

    return check


def _bool(v: Any) -> str | None:
    return None if isinstance(v, bool) else "true or false"


def _dict(v: Any) -> str | None:
    return None if isinstance(v, dict) else "a mapping"


def _seat(v: Any) -> str | None:
    if v == "random" or (isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 8):
        return None
    return "'random' or a seat index 0..7"


def _net_arch(v: Any) -> str | None:
    if isinstance(v, list) and v and all(isinstance(x, int) and not isinstance(x, bool) and 1 <= x <= 4096
                                         for x in v):
        return None
    return "a non-empty list of layer sizes (integers 1..4096)"


def _opponent_list(v: Any) -> str | None:
    if isinstance(v, list) and v and all(isinstance(x, str) and x for x in v):
        return None
    return "a non-empty list of agent specs (e.g. [random, heuristic])"


def _path_list(v: Any) -> str | None:
    ok = isinstance(v, list) and all(isinstance(x, str) and x for x in v)
    return None if ok else "a list of paths (label files or run folders)"


def _teacher(v: Any) -> str | None:
    if v == "none":
        return None
    if isinstance(v, str) and v:
        from muggins_env.agents import parse_spec

        try:
            parse_spec(v)
            return None
        except ValueError as e:
            return f"'none' or an agent spec ({e})"
    return "'none' or an agent spec (e.g. heuristic)"


def _resources(v: Any) -> str | None:
    if isinstance(v, dict) and all(isinstance(k, str) and k and isinstance(x, (int, float)) and not isinstance(x, bool)
                                   and x >= 0 for k, x in v.items()):
        return None
    return "a mapping of Ray custom resource names to amounts >= 0"


def _game(v: Any) -> str | None:
    from muggins_env import ENV_NAMES

    return None if v in ENV_NAMES else "one of " + ", ".join(ENV_NAMES)


@dataclass(frozen=True)
class Key:
    """One config key: its default, its check (None when the value is allowed, else what is
    expected: its type and allowed values, in words) and what it means."""

    default: Any
    check: Callable[[Any], str | None]
    doc: str = ""


#: every config key, as nested mappings of ``Key``: the one declaration ``DEFAULTS`` and the
#: validation are read from (the order is the order of a dumped config)
CONFIG: dict[str, Any] = {
    "game": Key(None, _game, "env id, required"),
    "backend": Key("sb3", _choice("sb3", "rllib"),
                   '"sb3" (train/trainer.py) or "rllib" (train/rllib_backend.py, the [rllib] extra)'),
    "env_options": Key({}, _dict, "options of the game (validated by the game itself)"),
    "skip_forced": Key(True, _bool, "single-legal-action decisions are applied automatically"),
    "reward_scale": Key(1.0, _num(0, 1000, lo_open=True),
                        "multiplies the learner's training rewards (evaluation is unscaled)"),
    "seat": Key("random", _seat, 'the learner\'s seat: "random" each episode, or a seat index'),
    "seed": Key(0, _num(0, integer=True), "seed of the run"),
    "torch_threads": Key(1, _num(1, 256, integer=True),
                         "1: on a 2-core machine more threads spin against the env stepping (20x slower)"),
    "features": Key("none", _choice(*FEATURE_SETS),
                    '"derived": append the arithmetic of the player\'s view (agents/features.py)'),
    "opponents": {  # relative weights of the opponent kinds, drawn per episode
        "random": Key(0.25, _num(0)),
        "heuristic": Key(0.25, _num(0)),
        "self": Key(0.5, _num(0), "frozen snapshots of the learner"),
        "sampling": Key("table", _choice("table", "seat"),
                        '"table": one kind for the whole table; "seat": one per seat'),
    },
    "curriculum": {  # the opponent weights move linearly from `opponents` to these over `steps`
        "steps": Key(0, _num(0, integer=True), "learner steps of the move (0: no curriculum)"),
        "random": Key(0.0, _num(0)),
        "heuristic": Key(1.0, _num(0)),
        "self": Key(0.0, _num(0)),
    },
    "pretrain": {  # imitation warm start before PPO (train/pretrain.py)
        "teacher": Key("none", _teacher,
                       'an agent spec whose moves the policy first imitates ("heuristic"), or "none"'),
        "decisions": Key(0, _num(0, integer=True), "teacher decisions collected in the learner's seat"),
        "epochs": Key(5, _num(1, 1000, integer=True)),
        "batch_size": Key(256, _num(1, integer=True)),
        "learning_rate": Key(1.0e-3, _num(0, 1, lo_open=True)),
        "rounds": Key(1, _num(1, 100, integer=True),
                      "> 1: DAgger, each further round played by the clone and labelled by the teacher"),
        "workers": Key(1, _num(1, 256, integer=True),
                       "processes collecting the teacher's decisions (a search teacher is slow)"),
        "first_teacher": Key("none", _teacher, "a cheaper teacher fitted first (e.g. heuristic before search:N)"),
        "first_decisions": Key(0, _num(0, integer=True),
                               "its decisions (fitted for `epochs` passes before the main teacher's)"),
        "contested_only": Key(False, _bool,
                              "keep only the main teacher's decisions between two or more candidates"),
        "save_labels": Key(False, _bool, "write the main teacher's decisions to <out>/labels.npz (reusable)"),
        "labels_from": Key([], _path_list,
                           "saved label files (or run folders holding labels.npz) fitted with the new ones"),
        "same_teacher": Key(True, _bool,
                            "labels_from must be the same teacher's (False: any teacher's, as expert iteration)"),
    },
    "expert_iteration": {  # rounds of search labels with the network guiding the search (train/expert_iteration.py)
        "rounds": Key(0, _num(0, 100, integer=True), "0: a plain run"),
        "search": Key(100, _num(1, 100000, integer=True), "N of the search:N teacher"),
        "guide": Key("rollout", _choice("rollout", "prior", "both", "none"),
                     "how the previous round's model guides the search: rollout, prior, both, none"),
        "decisions": Key(4000, _num(1, integer=True), "new labelled decisions per round"),
        "eval_deals": Key(200, _num(1, integer=True),
                          "duplicate deals of each round's evaluation (vs heuristic and vs its teacher)"),
        "eval_seed": Key(31000, _num(0, integer=True),
                         "the evaluation's seed: the same deals every round, fixed before the run"),
    },
    "self_play": {
        "snapshot_every": Key(20000, _num(1, integer=True), "learner steps between snapshots"),
        "window": Key(5, _num(1, 1000, integer=True), "snapshots kept"),
        "latest_ratio": Key(0.5, _num(0, 1), "share of self-play games against the latest snapshot"),
        "deterministic": Key(False, _bool, "snapshots sample their moves (False) or play the argmax"),
    },
    "ppo": {
        "learning_rate": Key(3.0e-4, _num(0, 1, lo_open=True)),
        "n_steps": Key(256, _num(2, integer=True), "per env, per rollout"),
        "batch_size": Key(512, _num(2, integer=True)),
        "n_epochs": Key(4, _num(1, 100, integer=True)),
        "gamma": Key(0.99, _num(0, 1)),
        "gae_lambda": Key(0.95, _num(0, 1)),
        "clip_range": Key(0.2, _num(0, 1, lo_open=True)),
        "ent_coef": Key(0.01, _num(0, 1)),
        "vf_coef": Key(0.5, _num(0, 10)),
        "max_grad_norm": Key(0.5, _num(0, 100, lo_open=True)),
        "net_arch": Key([128, 128], _net_arch),
        "activation": Key("tanh", _choice("tanh", "relu")),
        "policy": Key("mlp", _choice("mlp", "action_scorer"),
                      '"mlp": one logit per action index; "action_scorer": every action scored by shared '
                      "weights from its own features (agents.features.action_features, train/scorer_policy.py)"),
        "action_hidden": Key(8, _num(0, 4096, integer=True),
                             "action_scorer: width of the shared network of an action's features (0: linear)"),
    },
    "budget": {
        "total_timesteps": Key(100000, _num(0, integer=True), "learner decisions"),
        "n_envs": Key(16, _num(1, 1024, integer=True)),
        "vec_env": Key("batched", _choice("batched", "dummy", "subproc"),
                       '"batched" (in-process, fastest), "dummy", "subproc"'),
    },
    "checkpoint_every": Key(50000, _num(0, integer=True), "learner steps between checkpoints (0: none)"),
    "rllib": {  # the rllib backend only (ppo.batch_size is its minibatch, ppo.n_epochs its epochs)
        "num_env_runners": Key(0, _num(0, 4096, integer=True), "sampling actors (0: sample in the driver process)"),
        "envs_per_runner": Key(8, _num(1, 1024, integer=True), "games stepped by each env runner"),
        "num_learners": Key(0, _num(0, 1024, integer=True), "learner actors (0: learn in the driver process)"),
        "train_batch_size": Key(4096, _num(2, integer=True), "env steps sampled per training iteration"),
        "cpus_per_env_runner": Key(1.0, _num(0, 256),
                                   "Ray's logical CPUs reserved per env runner (and per learner actor)"),
        "resources_per_env_runner": Key({}, _resources,
                                        "Ray custom resources per env runner (placement on chosen nodes)"),
        # false avoids ray 2.60's MultiAgentEnvRunner converting every finished episode again on every
        # env step, and trained the Michigan quick preset faster with single_agent too (153 s against 188 s)
        "episodes_to_numpy": Key(False, _bool, "RLlib's episodes_to_numpy (RLlib's default: true)"),
        # MugginsSeatVectorEnv of SeatEnvs (SB3's seat env) sampled by SeatEnvRunner, RLlib's
        # SingleAgentEnvRunner with a lean loop (~4x the multi-agent rate)
        "env_runner": Key("single_agent", _choice("multi_agent", "single_agent"),
                          '"single_agent": the learner\'s seats of a runner\'s games as one Gymnasium vector env; '
                          '"multi_agent": MugginsMultiAgentEnv in RLlib\'s MultiAgentEnvRunner (the same games, '
                          "rewards and pool)"),
        "pipeline": Key("auto", _choice(True, False, "auto"),
                        "true: the env runners sample the next batch while the learner trains on the last "
                        "(train/rllib_pipeline.py: one iteration of policy lag; needs num_env_runners >= 1); "
                        '"auto": true with one or more env runners, false when the driver samples'),
    },
    "eval": {
        "deals": Key(200, _num(0, integer=True), "duplicate deals per opponent (each played from every seat)"),
        "opponents": Key(["random", "heuristic"], _opponent_list),
        "env_options": Key({}, _dict, "overrides of env_options for evaluation (e.g. reward: win)"),
    },
}


def _defaults(tree: dict) -> dict:
    return {k: _defaults(v) if isinstance(v, dict) else copy.deepcopy(v.default) for k, v in tree.items()}


#: the default config (a preset file holds only the keys it changes)
DEFAULTS: dict[str, Any] = _defaults(CONFIG)


def _validate(cfg: dict, tree: dict, path: str) -> None:
    if not isinstance(cfg, dict):
        raise ConfigError(f"config {path or 'file'} must be a mapping, got {cfg!r}")
    unknown = sorted(set(cfg) - set(tree))
    if unknown:
        where = f" in {path!r}" if path else ""
        raise ConfigError(f"unknown config key(s) {', '.join(map(repr, unknown))}{where}; "
                          f"allowed: {', '.join(tree)}")
    for key, rule in tree.items():
        full = f"{path}.{key}" if path else key
        value = cfg.get(key)
        if isinstance(rule, dict):
            _validate(value, rule, full)
            continue
        bad = rule.check(value)
        if bad is not None:
            raise ConfigError(f"config {full}={value!r} is not allowed; expected {bad}")


def merge(base: dict, override: dict) -> dict:
    """Deep merge (mappings merged key by key; ``env_options``-like dicts too)."""
    out = copy.deepcopy(base)
    for k, v in (override or {}).items():
        if isinstance(v, dict) and isinstance(out.get(k), dict) and k not in ("env_options",):
            out[k] = merge(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


def validate(cfg: dict) -> dict:
    """Check every key and value; then the cross-key rules and the game's own options."""
    _validate(cfg, CONFIG, "")
    opp = cfg["opponents"]
    if opp["random"] + opp["heuristic"] + opp["self"] <= 0:
        raise ConfigError("config opponents: the weights random + heuristic + self must be > 0")
    cur = cfg["curriculum"]
    if cur["steps"] > 0 and cur["random"] + cur["heuristic"] + cur["self"] <= 0:
        raise ConfigError("config curriculum: the final weights random + heuristic + self must be > 0")
    ppo, budget = cfg["ppo"], cfg["budget"]
    rollout = ppo["n_steps"] * budget["n_envs"]
    if cfg["rllib"]["pipeline"] == "auto":  # pipelined wherever env runners can overlap with the update
        cfg["rllib"]["pipeline"] = cfg["rllib"]["num_env_runners"] >= 1
    if cfg["backend"] == "rllib":
        rl = cfg["rllib"]
        if ppo["batch_size"] > rl["train_batch_size"]:
            raise ConfigError(f"config ppo.batch_size={ppo['batch_size']} is larger than an iteration's batch "
                              f"(rllib.train_batch_size = {rl['train_batch_size']})")
        if rl["pipeline"] and rl["num_env_runners"] < 1:
            raise ConfigError("config rllib.pipeline=true needs rllib.num_env_runners >= 1 (it overlaps the env "
                              f"runners' sampling with the learner's update), got num_env_runners = "
                              f"{rl['num_env_runners']}")
        if cfg["pretrain"]["teacher"] != "none":
            raise ConfigError(f"config pretrain.teacher={cfg['pretrain']['teacher']!r} is not allowed with "
                              "backend='rllib'; expected 'none' (the imitation warm start is SB3's)")
    elif ppo["batch_size"] > rollout:
        raise ConfigError(f"config ppo.batch_size={ppo['batch_size']} is larger than a rollout "
                          f"(ppo.n_steps * budget.n_envs = {rollout})")
    pre = cfg["pretrain"]
    if pre["teacher"] != "none" and pre["decisions"] < 1 and not pre["labels_from"]:
        raise ConfigError(f"config pretrain.decisions={pre['decisions']} is not allowed with "
                          f"pretrain.teacher={pre['teacher']!r} and no pretrain.labels_from; expected an "
                          "integer >= 1")
    if pre["teacher"] == "none" and (pre["labels_from"] or pre["save_labels"]):
        raise ConfigError("config pretrain.labels_from / pretrain.save_labels need pretrain.teacher "
                          "(is 'none'): the labels are the teacher's decisions")
    if pre["rounds"] > 1 and pre["decisions"] < 1:
        raise ConfigError(f"config pretrain.rounds={pre['rounds']} (DAgger) needs pretrain.decisions >= 1 "
                          f"(is {pre['decisions']}): each round collects that many more")
    if pre["first_teacher"] != "none" and (pre["teacher"] == "none" or pre["first_decisions"] < 1):
        raise ConfigError(f"config pretrain.first_teacher={pre['first_teacher']!r} needs pretrain.teacher "
                          f"(is {pre['teacher']!r}) and pretrain.first_decisions >= 1 (is {pre['first_decisions']})")
    if cfg["expert_iteration"]["rounds"] and cfg["backend"] == "rllib":
        raise ConfigError("config expert_iteration.rounds > 0 is not allowed with backend='rllib'; expected "
                          "backend 'sb3' (the rounds fit the action scorer by imitation)")
    from muggins_env import game_class

    gcls = game_class(cfg["game"])
    for name, opts in (("env_options", cfg["env_options"]),
                       ("eval.env_options", {**cfg["env_options"], **cfg["eval"]["env_options"]})):
        try:
            game = gcls(**opts)
        except ValueError as e:
            raise ConfigError(f"config {name}: {e}") from e
    seat = cfg["seat"]
    if seat != "random" and seat >= game.num_players:
        raise ConfigError(f"config seat={seat} is not allowed; expected 'random' or 0..{game.num_players - 1}")
    return cfg


def from_dict(raw: dict) -> dict:
    if not isinstance(raw, dict):
        raise ConfigError(f"a config must be a mapping, got {type(raw).__name__}")
    return validate(merge(DEFAULTS, raw))


def load_config(path: str | Path | None = None, game: str | None = None, preset: str | None = None,
                overrides: dict | None = None) -> dict:
    """A validated config from a YAML file, or from the packaged preset ``game``/``preset``."""
    if path is not None:
        try:
            text = Path(path).read_text()
        except OSError as e:
            raise ConfigError(f"cannot read config {str(path)!r}: {e.strerror or e}") from None
        source = str(path)
    else:
        if game is None:
            raise ConfigError("give a config file, or a game and a preset")
        preset = preset or "quick"
        from muggins_env import ENV_NAMES

        if game not in ENV_NAMES:
            raise ConfigError(f"unknown game {game!r}; known games: {', '.join(ENV_NAMES)}")
        try:
            text = resources.files("muggins_env.configs").joinpath(game, f"{preset}.yaml").read_text()
        except (FileNotFoundError, OSError):
            raise ConfigError(f"no preset {preset!r} for {game!r}; available: "
                              + (", ".join(list_presets(game)) or "none")) from None
        source = f"{game}/{preset}.yaml"
    try:
        raw = yaml.safe_load(text) or {}
    except yaml.YAMLError as e:
        raise ConfigError(f"config {source} is not valid YAML: {e}") from e
    if not isinstance(raw, dict):
        raise ConfigError(f"config {source} must be a mapping at top level")
    if game is not None and raw.get("game", game) != game:
        raise ConfigError(f"config {source} is for {raw['game']!r}, not {game!r}")
    raw.setdefault("game", game)
    return from_dict(merge(raw, overrides or {}))


def list_presets(game: str | None = None) -> list[str]:
    root = resources.files("muggins_env.configs")
    out = []
    for d in sorted((p for p in root.iterdir() if p.is_dir() and not p.name.startswith("_")), key=lambda p: p.name):
        if game is not None and d.name != game:
            continue
        for f in sorted((p for p in d.iterdir() if p.name.endswith(".yaml")), key=lambda p: p.name):
            out.append(f.name[:-5] if game else f"{d.name}/{f.name[:-5]}")
    return out


def dump(cfg: dict) -> str:
    return yaml.safe_dump(cfg, sort_keys=False)
