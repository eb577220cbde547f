"""The observation beside the rules (issue 46, item 3): cribbage's rules write no observation
(no offset, no kept array) and report their moves to the observer by its named methods only;
a state nobody observes, and every clone, carries no observer; legality is one list per phase,
which the mask and ``apply``'s guard agree with."""

from __future__ import annotations

import ast
import random

import numpy as np
import pytest

from muggins_env.games.cribbage import ACCEPT, ANNOUNCE, GO, MUGGINS, OVERCOUNT, CribbageGame, CribbageState
from muggins_env.games.cribbage import observation as observation_module
from muggins_env.games.cribbage.observation import CribbageObserver
from muggins_env.kernel.game import IllegalActionError
from tests import ROOT

RULES = ROOT / "muggins_env" / "games" / "cribbage" / "rules.py"
#: the names of the observation's layout and kept arrays: none may appear in the rules
OBSERVATION_NAMES = {"board", "_board", "obs_at", "gather", "hand_at", "discards_at", "played_at", "to_act_at",
                     "shown_block", "play_end", "review_end", "board_size", "observation_offsets",
                     "put", "fill", "Board", "board_of", "PART_MAX"}


def _rules_tree() -> ast.Module:
    return ast.parse(RULES.read_text(), str(RULES))


def test_the_rules_import_nothing_from_the_observation():
    imported = {(node.module, a.name) for node in ast.walk(_rules_tree()) if isinstance(node, ast.ImportFrom)
                for a in node.names if node.module and "observation" in node.module}
    assert imported == set()
    assert CribbageGame.observer_cls is CribbageObserver  # wired in the package's __init__
    assert CribbageState.observation is CribbageObserver.observe  # the kernel's, in one call


def test_the_rules_name_no_observation_offset_or_kept_array():
    tree = _rules_tree()
    read = {node.attr for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Store)}
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    assert not read & OBSERVATION_NAMES, sorted(read & OBSERVATION_NAMES)
    assert not names & OBSERVATION_NAMES, sorted(names & OBSERVATION_NAMES)
    assert "float32" not in RULES.read_text()  # no observation array is made there either


def test_the_rules_tell_the_observer_only_by_its_named_methods():
    """Every call on ``seen`` in the rules is one of the observer's reports (not ``observation``)."""
    calls = {node.func.attr for node in ast.walk(_rules_tree())
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
             and isinstance(node.func.value, ast.Name) and node.func.value.id == "seen"}
    reports = {name for name, value in vars(CribbageObserver).items()
               if callable(value) and not name.startswith("_") and name not in ("observation", "observe")}
    assert calls and calls <= reports, sorted(calls - reports)
    assert reports <= calls, sorted(reports - calls)  # no report the rules never make


def _random_game(state, rng: random.Random, observe: bool) -> None:
    while not state.is_terminal():
        if observe:
            state.observation(state.current_player())
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])


@pytest.mark.parametrize("options", [{"num_players": 2}, {"num_players": 3, "muggins": False},
                                     {"num_players": 4, "target": 61}])
def test_a_state_nobody_observes_and_every_clone_carry_no_observer(options):
    game = CribbageGame(**options)
    state = game.new_initial_state(seed=1)
    _random_game(state, random.Random(1), observe=False)
    assert state.seen is None  # a kernel loop that never observes builds nothing
    watched = game.new_initial_state(seed=2)
    rng = random.Random(2)
    for _ in range(12):
        legal = watched.legal_actions()
        watched.apply(legal[rng.randrange(len(legal))])
        watched.observation(0)
    assert isinstance(watched.seen, CribbageObserver) and watched.seen.state is watched
    assert watched.clone().seen is None
    assert watched.resample_hidden(0, np.random.default_rng(3)).seen is None


def test_one_board_layout_per_player_count():
    assert observation_module.board_of(CribbageGame(num_players=3)) is observation_module.board_of(
        CribbageGame(num_players=3, target=61, muggins=False))
    assert observation_module.board_of(CribbageGame(num_players=2)).size == CribbageGame().observation_size + 2 * 52


def _rules_legal(state) -> list[int]:
    """The legal actions as docs/rules/cribbage.md states them, from the state's public facts."""
    phase, player = state.phase_name(), state.current_player()
    if phase == "over":
        return []
    if phase == "discard":
        return sorted(state.hands[player])
    if phase == "play":
        fits = [c for c in sorted(state.hands[player]) if min(c % 13 + 1, 10) <= 31 - state.count]
        return fits or [GO]
    if phase == "announce":
        return [ANNOUNCE + k for k in range(30)]
    return [ACCEPT, OVERCOUNT] + [MUGGINS + k for k in range(1, 30)]


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_the_mask_and_the_guard_agree_with_the_legal_list(num_players):
    """Every phase: ``legal_actions()`` is what the rules say, move after move (the list kept
    between moves never goes stale, in the state or its clones); the mask has 1 exactly there;
    ``apply`` refuses every other action."""
    game = CribbageGame(num_players=num_players)
    rng = random.Random(num_players)
    phases = set()
    for seed in range(3):
        state = game.new_initial_state(seed=seed)
        while not state.is_terminal():
            state.legal_actions_mask()  # (asked first, as the env does)
            twin = state.clone()
            legal = state.legal_actions()
            assert legal == _rules_legal(state) == twin.legal_actions()
            phases.add(state.phase_name())
            expected = np.zeros(game.num_actions, dtype=np.int8)
            expected[legal] = 1
            np.testing.assert_array_equal(state.legal_actions_mask(), expected)
            for action in rng.sample([a for a in range(game.num_actions) if a not in legal], 3):
                with pytest.raises(IllegalActionError, match=f"illegal action {action} "):
                    state.clone().apply(action)
            action = legal[rng.randrange(len(legal))]
            state.apply(action)
            if not twin.is_terminal() and rng.random() < 0.5:  # the clone moves on by itself
                twin.apply(action)
                assert twin.legal_actions() == _rules_legal(twin)
        assert state.legal_actions() == [] and not state.legal_actions_mask().any()
    assert phases == {"discard", "play", "announce", "respond"}
