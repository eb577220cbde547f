"""The games of the suite: ``GAMES`` lists them, env id -> the module that declares the game
(its ``DECLARATION``, a ``muggins_env.kernel.declaration.GameDeclaration``). A game's module is
imported only when its declaration is asked for (``import muggins_env`` stays cheap)."""

from __future__ import annotations

import importlib

from ..kernel.declaration import GameDeclaration

#: env id -> the game's module under muggins_env.games (the order menus and listings follow)
GAMES = {"muggins_cards_v0": "muggins_cards", "cribbage_v0": "cribbage", "muggins_dominoes_v0": "dominoes",
         "michigan_v0": "michigan"}


def declaration(env_id: str) -> GameDeclaration:
    """The declaration of the game ``env_id`` (a clear ValueError for an unknown id)."""
    if env_id not in GAMES:
        raise ValueError(f"unknown env {env_id!r}; known envs: {', '.join(GAMES)}")
    return importlib.import_module(f"muggins_env.games.{GAMES[env_id]}").DECLARATION


def declarations() -> dict[str, GameDeclaration]:
    """Every game's declaration by env id, in ``GAMES``' order."""
    return {env_id: declaration(env_id) for env_id in GAMES}
