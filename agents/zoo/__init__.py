"""The model zoo: trained policies shipped inside the package, played with no torch.

Each model is a folder ``<env_id>/<name>/`` holding ``model.npz`` (the numpy actor,
``agents/ppo.py`` / ``agents/scorer.py``) and ``model_card.json`` (the game options it was
trained for, the training config and preset, steps, time and its evaluation against the
heuristic). Agent specs: ``zoo:<env_id>`` is the model named ``default``, ``zoo:<env_id>/<name>``
another configuration (``zoo:cribbage_v0/4p``). A model only plays the game options on its
card (the reward option aside, which changes what is paid, not what is played); anything else
is a clear error naming the difference and the spec of the same kind that fits (``zoo:cribbage_v0``
asked for standard cribbage, ``muggins=False``, names ``zoo:cribbage_v0/standard``; a ``best:``
spec names a ``best:`` one). Regenerate a model with the ``regenerate``
command on its card (its preset in ``configs/``).

The strongest player of each configuration is not always a network alone: ``players.json``
names, per zoo configuration, the spec of the strongest player the package ships for it (today
the search guided by that configuration's network), with what it was measured against. Spec
``best:<env_id>`` / ``best:<env_id>/<name>`` plays it (``load_best_agent``); the record says
how strong it is, so a user can pick it by name without reading the results.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

DEFAULT = "default"
#: options that change the rewards, not the game a model sees and plays
PAYOFF_OPTIONS = ("reward",)


PLAYERS_FILE = "players.json"


def _root() -> Any:
    return resources.files(__name__)


def list_models() -> list[str]:
    """Every zoo model as its agent spec argument (``cribbage_v0``, ``cribbage_v0/4p``, ...)."""
    out = []
    for game in sorted((d for d in _root().iterdir() if d.is_dir() and not d.name.startswith("_")),
                       key=lambda d: d.name):
        for m in sorted((d for d in game.iterdir() if d.is_dir() and d.joinpath("model.npz").is_file()),
                        key=lambda d: d.name):
            out.append(game.name if m.name == DEFAULT else f"{game.name}/{m.name}")
    return out


def _folder(name: str) -> tuple[str, str, Any]:
    game_id, _, model = name.partition("/")
    model = model or DEFAULT
    folder = _root().joinpath(game_id, model)
    if not folder.joinpath("model.npz").is_file():
        raise ValueError(f"no zoo model {name!r}; available: {', '.join(list_models()) or 'none'}")
    return game_id, model, folder


def model_card(name: str) -> dict:
    """The card of zoo model ``name`` (``cribbage_v0`` or ``cribbage_v0/4p``)."""
    return json.loads(_folder(name)[2].joinpath("model_card.json").read_text())


def play_options(options: dict) -> dict:
    return {k: v for k, v in options.items() if k not in PAYOFF_OPTIONS}


def trained_options(game_id: str, card: dict) -> dict:
    """The options a model plays, resolved by today's game: an option added after the model was
    trained takes its default, which keeps the old game (new options are byte-identical when off)."""
    from muggins_env.agents import make_game

    return play_options(make_game(game_id, card["game_options"]).options)


def fitting_models(game_id: str, options: dict | None = None) -> list[str]:
    """The zoo models that play ``game_id`` with these options (the reward option aside)."""
    from muggins_env.agents import make_game

    asked = play_options(make_game(game_id, options).options)
    return [m for m in list_models() if m.split("/")[0] == game_id and trained_options(game_id, model_card(m)) == asked]


def check_options(name: str, game_id: str, options: dict | None = None, kind: str = "zoo") -> Any:
    """The folder of zoo model ``name`` if it plays ``game_id`` with ``options``; else a ValueError
    naming the difference and the ``<kind>:`` spec that fits (``zoo`` or ``best``), if one exists."""
    from muggins_env.agents import make_game

    zoo_game, _, folder = _folder(name)
    offered = list_models() if kind == "zoo" else list(best_players())
    # a best: player plays its network's options: the message is the network's, the hint a best: spec
    head = "" if kind == "zoo" else f"best:{name} plays what its network plays: "
    if zoo_game != game_id:
        listed = ", ".join(m if kind == "zoo" else f"best:{m}" for m in offered if m.split("/")[0] == game_id)
        raise ValueError(f"{head}zoo model {name!r} plays {zoo_game}, not {game_id}; "
                         f"{'zoo models' if kind == 'zoo' else 'best players'} for {game_id}: {listed or 'none'}")
    card = json.loads(folder.joinpath("model_card.json").read_text())
    asked, trained = play_options(make_game(game_id, options).options), trained_options(game_id, card)
    if asked != trained:
        diff = ", ".join(f"{k}={asked.get(k)!r} (trained: {trained.get(k)!r})"
                         for k in sorted(set(asked) | set(trained)) if asked.get(k) != trained.get(k))
        fits = [m for m in fitting_models(game_id, options) if m in offered]
        hint = f"; use {kind}:{fits[0]}" if fits else f"; no {kind}: spec plays these options"
        raise ValueError(f"{head}zoo model {name!r} was trained for {game_id} with {trained}, not these options: "
                         f"{diff}{hint}")
    return folder


def load_zoo_agent(name: str, game_id: str, options: dict | None = None, deterministic: bool = True) -> Any:
    """The agent of spec ``zoo:name`` playing ``game_id`` with env ``options``."""
    import numpy as np
    from muggins_env.agents import make_game
    from muggins_env.agents.features import make_features
    from muggins_env.agents.ppo import PPOAgent, policy_from_arrays

    folder = check_options(name, game_id, options)
    game = make_game(game_id, options)
    with folder.joinpath("model.npz").open("rb") as f, np.load(f, allow_pickle=False) as data:
        policy = policy_from_arrays({k: data[k] for k in data.files})
    features = make_features(policy.features, game_id, game)
    extra = features.size if features is not None else 0
    if policy.obs_size != game.observation_size + extra or policy.num_actions != game.num_actions:
        raise ValueError(f"zoo model {name!r} expects observations of {policy.obs_size} and "
                         f"{policy.num_actions} actions; {game_id} {options or {}} has "
                         f"{game.observation_size + extra} and {game.num_actions}")
    return PPOAgent(policy, deterministic=deterministic, name=f"zoo:{name}", features=features)


def best_players() -> dict[str, dict]:
    """``players.json``: zoo configuration -> its strongest player's record (``spec``, what it
    was compared with, its evaluation)."""
    return json.loads(_root().joinpath(PLAYERS_FILE).read_text())


def best_player(name: str) -> dict:
    """The record of ``best:name`` (a ValueError naming the configurations that have one)."""
    players = best_players()
    if name not in players:
        raise ValueError(f"no best player {name!r}; available: {', '.join(f'best:{n}' for n in players)}")
    return players[name]


def load_best_agent(name: str, game_id: str, options: dict | None = None) -> Any:
    """The agent of spec ``best:name``: the spec on its record, for the options of zoo model
    ``name`` only (checked by loading that model, so the errors are the zoo's)."""
    from muggins_env.agents import make_agent

    record = best_player(name)
    check_options(name, game_id, options, kind="best")  # the network's game and options, or the best: that fits
    agent = make_agent(record["spec"], game_id, options)
    agent.name = f"best:{name}"
    return agent
