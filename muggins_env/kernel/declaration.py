"""A game's ONE declaration: its facts and the hooks every layer looks it up by.

Each game module ends with ``DECLARATION = GameDeclaration(...)``; ``muggins_env.games.GAMES``
lists the games (env id -> module) and ``muggins_env.games.declaration(env_id)`` reads one. Every
registry keyed by env id is derived from these (the env ids, the rules text of text players, the
heuristic, search evaluator, features, the terminal's move notes, the browser's title and
drawing), so adding a game touches the places docs/design.md's "Adding a game" lists.

The hooks of the floors above the games (agents, play) are named by an import path,
``"muggins_env.agents.heuristic_cribbage:CribbageHeuristic"``, never imported here: the floor
that uses a hook resolves it with ``load_hook`` when it needs it, so nothing imports upward.
tests/games/test_declarations.py checks that every path resolves, to the floor its field names.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, fields
from typing import Any

#: the hook fields and the floor whose module each one names (None: the hook may be absent)
HOOK_FLOORS = {"heuristic": "muggins_env.agents", "evaluator": "muggins_env.agents",
               "table_evaluator": "muggins_env.agents", "table_heuristic": "muggins_env.agents",
               "net_heuristic": "muggins_env.agents",
               "features": "muggins_env.agents", "action_features": "muggins_env.agents",
               "narrator": "muggins_env.play"}


@dataclass(frozen=True)
class GameDeclaration:
    """Every field is given (no defaults): a hook a game lacks is declared ``None``."""

    game: type  # the kernel Game class; its FACTS.name is the env id
    title: str  # the short name menus and the browser's table page show, e.g. "Cribbage"
    rules_text: str  # the rules in a few sentences (what a text player is told; full rules: docs/rules/)
    drawing: str  # the key of the browser's drawing function (play/web/static/draw.js's DRAW)
    heuristic: str  # "module:Class" of the heuristic agent (a HeuristicBase taking the game)
    evaluator: str | None  # "module:Class" of the search's state evaluator (None: plain rollouts)
    # "module:Class" of the evaluator valuing a rollout stopped at the end of the deal by the position
    # values (search:N,value=table; None: the game has no position values)
    table_evaluator: str | None
    # "module:Class" of the heuristic that weighs the chance to win by the position values instead of
    # points (heuristic:value=table; None: the game has none)
    table_heuristic: str | None
    # "module:Class" of the heuristic that ranks its plays by points less the next seat's expected
    # answer (heuristic:value=net; None: the game has none)
    net_heuristic: str | None
    features: str | None  # "module:Class" of the derived features (a Features; None: the game has none)
    action_features: str  # "module:function": fn(game, derived offset or None) -> ActionFeatures
    narrator: str | None  # "module:function": fn(before view, after view, move) -> note lines (None: none)

    @property
    def env_id(self) -> str:
        return self.game.FACTS.name

    def hooks(self) -> dict[str, str | None]:
        """The hook fields by name (their import paths)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name in HOOK_FLOORS}


def load_hook(path: str) -> Any:
    """The object an import path ``"package.module:name"`` names (imported now)."""
    module, sep, name = path.partition(":")
    if not sep or not module or not name:
        raise ValueError(f"hook path {path!r} is not 'package.module:name'")
    return getattr(importlib.import_module(module), name)
