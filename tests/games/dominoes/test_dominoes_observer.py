"""The dominoes observation lives beside the rules (issue 46 item 3): the rules report what they
did to the state's observer and name no observation offset; the observer holds its state weakly
and survives clones, pickles and deep copies observing exactly as the state it follows."""

from __future__ import annotations

import ast
import copy
import gc
import pickle
import random
import weakref
from pathlib import Path

import numpy as np
import pytest

from muggins_env.games.dominoes import DominoesGame
from muggins_env.games.dominoes.observation import DominoesObserver

RULES = Path(__file__).resolve().parents[3] / "muggins_env" / "games" / "dominoes"


@pytest.mark.parametrize("module", ["rules.py", "layout.py"])
def test_the_rules_write_no_observation_offset(module):
    tree = ast.parse((RULES / module).read_text())
    attributes = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    # the offsets as attributes (``at``) and the kept board are the observer's alone; the Game
    # states its public ``observation_offsets`` and never reads them
    assert not {"obs_at", "at", "board", "_board"} & (attributes | names)
    assert not [node for node in ast.walk(tree) if isinstance(node, ast.Attribute)
                and node.attr == "observation_offsets" and isinstance(node.ctx, ast.Load)]
    assert "float32" not in attributes | names  # the rules build no observation array
    # nothing of the observation module: the package's __init__ wires the observer in
    assert not [node for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                and node.module and "observation" in node.module]
    assert DominoesGame.observer_cls is DominoesObserver


def test_the_rules_report_only_what_happened_to_the_observer():
    tree = ast.parse((RULES / "rules.py").read_text())
    reported = {node.func.attr for node in ast.walk(tree)
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "seen"}
    assert reported == {"new_hand", "played"}
    assert all(callable(getattr(DominoesObserver, name)) for name in reported)


def _observed_midgame(options: dict, seed: int = 4, moves: int = 12):
    state = DominoesGame(**options).new_initial_state(seed=seed)
    rng = random.Random(seed)
    for _ in range(moves):
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])
        state.observation(state.current_player())
    return state


def test_an_observed_state_is_freed_without_the_cycle_collector():
    gc.disable()
    try:
        state = _observed_midgame({"variant": "five_up"})
        clone = state.clone()
        clone.observation(0)
        alive = weakref.ref(state), weakref.ref(clone)
        del state, clone
        assert [r() for r in alive] == [None, None]  # freed by reference counts alone
    finally:
        gc.enable()


@pytest.mark.parametrize("options", [{"variant": "fives_1863"}, {"variant": "five_up"},
                                     {"variant": "sniff", "num_players": 3}])
@pytest.mark.parametrize("how", ["clone", "pickle", "deepcopy"])
def test_copies_of_an_observed_state_observe_as_it_does(options, how):
    state = _observed_midgame(options)
    make = {"clone": lambda s: s.clone(), "pickle": lambda s: pickle.loads(pickle.dumps(s)),
            "deepcopy": copy.deepcopy}[how]
    twin = make(state)
    assert twin.seen is not state.seen and twin.seen.state is twin
    rng = random.Random(1)
    while not state.is_terminal():
        for p in range(state.n):
            np.testing.assert_array_equal(twin.observation(p), state.observation(p))
        legal = state.legal_actions()
        action = legal[rng.randrange(len(legal))]
        state.apply(action)
        twin.apply(action)
        fresh = twin.clone()
        fresh.seen = None  # built from the state alone
        np.testing.assert_array_equal(twin.observation(0), fresh.observation(0))
