"""Every game declares every field once, beside the game, and every registry keyed by env id is
derived from those declarations (issue 46, item 2; docs/design.md, "Adding a game")."""

from __future__ import annotations

import ast
import dataclasses
import importlib
import re

import numpy as np
import pytest
from muggins_env.agents.base import HeuristicBase
from muggins_env.agents.features import ActionFeatures, Features
from muggins_env.eval.tournament import final_scores, seat_sides

import muggins_env
from muggins_env.games import GAMES, declaration, declarations
from muggins_env.kernel.declaration import HOOK_FLOORS, GameDeclaration, load_hook
from tests import ROOT

#: the hooks a game may declare None, and what None means
OPTIONAL_HOOKS = {"evaluator", "table_evaluator", "table_heuristic", "net_heuristic", "features", "narrator"}


def test_every_field_is_declared_by_every_game():
    # no field has a default: a declaration that leaves one out does not construct
    assert all(f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
               for f in dataclasses.fields(GameDeclaration))
    with pytest.raises(TypeError):
        GameDeclaration(game=muggins_env.game_class("cribbage_v0"), title="Cribbage")  # type: ignore[call-arg]
    for env_id, module in GAMES.items():
        decl = importlib.import_module(f"muggins_env.games.{module}").DECLARATION
        assert isinstance(decl, GameDeclaration) and decl is declaration(env_id)
        assert decl.env_id == env_id == decl.game.FACTS.name
        for f in dataclasses.fields(decl):
            value = getattr(decl, f.name)
            assert value is not None or f.name in OPTIONAL_HOOKS, (env_id, f.name)
            assert not isinstance(value, str) or value.strip(), (env_id, f.name)


def test_unknown_env_id_names_the_known_ones():
    with pytest.raises(ValueError, match="unknown env 'chess_v0'; known envs: muggins_cards_v0, cribbage_v0"):
        declaration("chess_v0")


@pytest.mark.parametrize("env_id", list(GAMES))
def test_every_hook_resolves_in_its_floor(env_id):
    decl = declaration(env_id)
    game = decl.game(**({"num_players": 3} if env_id in ("muggins_cards_v0", "michigan_v0") else {}))
    for name, path in decl.hooks().items():
        if path is None:
            continue
        assert path.split(":")[0].startswith(HOOK_FLOORS[name] + "."), (env_id, name, path)
        assert load_hook(path) is not None
    assert issubclass(load_hook(decl.heuristic), HeuristicBase)
    assert isinstance(load_hook(decl.action_features)(game, None), ActionFeatures)
    if decl.features is not None:
        feats = load_hook(decl.features).for_game(game)
        assert isinstance(feats, Features) and feats.size > 0
    if decl.narrator is not None:  # what it says: tests/play/test_terminal.py
        assert callable(load_hook(decl.narrator))


def test_load_hook_names_a_bad_path():
    with pytest.raises(ValueError, match="'muggins_env.agents' is not 'package.module:name'"):
        load_hook("muggins_env.agents")


def test_every_registry_holds_exactly_the_declared_games():
    decls = declarations()
    assert muggins_env.ENV_NAMES == list(decls)
    for env_id, decl in decls.items():
        page = importlib.import_module(f"muggins_env.{env_id}")  # the env page
        assert page.raw_env.game_cls is decl.game is muggins_env.game_class(env_id)
        assert page.raw_env.metadata["name"] == env_id
        # the rules text points at the game's rules page, which exists
        rules_page = re.search(r"docs/rules/(\w+)\.md", decl.rules_text).group(1)
        assert (ROOT / "docs" / "rules" / f"{rules_page}.md").exists()
        assert (ROOT / "configs" / env_id).is_dir()  # its training presets
    # the browser draws every declared game and nothing else
    draw = (ROOT / "play" / "web" / "static" / "draw.js").read_text()
    keys = re.search(r"const DRAW = \{([^}]*)\}", draw).group(1)
    assert {k.split(":")[0].strip() for k in keys.split(",")} == {d.drawing for d in decls.values()}
    assert {p.name for p in (ROOT / "configs").iterdir() if p.is_dir() and not p.name.startswith("_")} == set(decls)


#: modules outside the games that still branch on one env id, and why
ENV_ID_BRANCHES = {"muggins_env/openspiel.py": "the OpenSpiel bridge's compact chance encoding of a dominoes deal"}


def test_nothing_outside_a_game_branches_on_its_env_id():
    """``game.FACTS.name == "cribbage_v0"`` outside the game's own modules guesses what the
    declaration or the kernel protocol (``Game.sides``, ``State.scoreboard``) should say."""
    ids = set(GAMES)
    own = {f"muggins_env/{env_id}.py" for env_id in ids}  # the env pages
    wrong, used = [], set()
    for folder in ("muggins_env", "agents", "play", "eval", "train"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel.startswith("muggins_env/games/") or rel in own:
                continue
            tree = ast.parse(path.read_text())
            consts = {n.targets[0].id: n.value.value for n in tree.body if isinstance(n, ast.Assign)
                      and isinstance(n.targets[0], ast.Name) and isinstance(n.value, ast.Constant)}
            for node in ast.walk(tree):
                if not isinstance(node, ast.Compare):
                    continue
                for side in [node.left, *node.comparators]:
                    value = side.value if isinstance(side, ast.Constant) else consts.get(getattr(side, "id", None))
                    if value in ids:
                        if rel in ENV_ID_BRANCHES:
                            used.add(rel)
                        else:
                            wrong.append(f"{rel}:{node.lineno} compares with {value!r}")
    assert not wrong, "branches on an env id outside the game:\n" + "\n".join(wrong)
    assert used == set(ENV_ID_BRANCHES)


def test_sides_and_scoreboard_come_from_the_kernel_protocol():
    cases = {("cribbage_v0", 4): [0, 1, 0, 1], ("cribbage_v0", 3): [0, 1, 2],
             ("muggins_dominoes_v0", 4): [0, 1, 2, 3], ("michigan_v0", 4): [0, 1, 2, 3],
             ("muggins_cards_v0", 4): [0, 1, 2, 3]}
    for (env_id, n), sides in cases.items():
        game = declaration(env_id).game(num_players=n)
        assert game.sides() == seat_sides(game) == sides, env_id
    partners = declaration("muggins_dominoes_v0").game(num_players=4, partnerships=True)
    assert partners.sides() == [0, 1, 0, 1]
    # card Muggins' scoreboard counts the cards still held: fewer is better, so the score is its negative
    game = declaration("muggins_cards_v0").game(num_players=3)
    state = game.new_initial_state(seed=1)
    unit, held = state.scoreboard()
    assert unit == "cards left" and not game.scoreboard_higher_wins
    assert final_scores(state) == [-h for h in held] and min(held) > 0
    crib = declaration("cribbage_v0").game(num_players=4)
    state = crib.new_initial_state(seed=0)
    rng = np.random.default_rng(0)
    while state.phase_name() == "discard":
        state.apply(int(rng.choice(state.legal_actions())))
    state.scores[1] = 7  # the second side's points, shown for both of its seats
    assert final_scores(state) == [0.0, 7.0, 0.0, 7.0]
