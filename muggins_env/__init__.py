"""muggins_env: PettingZoo AEC environments for the Muggins family of traditional games."""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

from .games import GAMES

#: every env id of the suite (modules ``muggins_env.<id>``), from the games' list (``muggins_env.games``)
ENV_NAMES = list(GAMES)


def _module(name: str):
    if name not in ENV_NAMES:
        raise ValueError(f"unknown env {name!r}; known envs: {', '.join(ENV_NAMES)}")
    return importlib.import_module(f"muggins_env.{name}")


def make(name: str, raw: bool = False, **options: Any):
    """``make("cribbage_v0", num_players=2)``: the wrapped env (``raw=True`` for ``raw_env``)."""
    mod = _module(name)
    return mod.raw_env(**options) if raw else mod.env(**options)


def game_class(name: str):
    """The kernel ``Game`` class behind an env id (rules without the RL API)."""
    return _module(name).raw_env.game_cls


def _register_with_pettingzoo() -> None:
    """``pettingzoo.make("aec", "muggins_env/cribbage_v0")`` where PettingZoo has a registry."""
    try:
        from pettingzoo import register
    except ImportError:  # PettingZoo before its registry: make() above still works
        return
    for name in ENV_NAMES:
        register("aec", f"muggins_env/{name}", entry_point=f"muggins_env.{name}:env")


_register_with_pettingzoo()


def _register_with_gymnasium() -> None:
    """``gymnasium.make("muggins_env/cribbage_v0-seat", env_options={...}, opponents="heuristic")``:
    one seat of every env as a single-agent gymnasium env (``muggins_env.wrappers.SeatEnv``)."""
    from gymnasium.envs.registration import register, registry

    for name in ENV_NAMES:
        env_id = f"muggins_env/{name}-seat"
        if env_id not in registry:
            register(env_id, entry_point="muggins_env.wrappers:SeatEnv", kwargs={"game": name})


_register_with_gymnasium()
