"""What an agent receives at a decision (``muggins_env.decision``): only what it declares it
needs, built by one function that every harness calls."""

from __future__ import annotations

import ast

import numpy as np
import pytest
from muggins_env.agents import make_game

from muggins_env.decision import agent_action, agent_inputs, apply_action
from muggins_env.text_view import text_view
from tests import ROOT


class Declares:
    """An agent that records what it was handed."""

    def __init__(self, **needs) -> None:
        self.__dict__.update(needs)
        self.got = None

    def act(self, observation, action_mask, rng, info=None):
        self.got = (observation, action_mask, info)
        return int(np.flatnonzero(action_mask)[0])


@pytest.fixture
def decision():
    state = make_game("cribbage_v0", {"num_players": 3}).new_initial_state(seed=4)
    p = state.current_player()
    return state, p, state.legal_actions_mask()


def test_an_agent_that_needs_nothing_gets_none(decision):
    state, p, mask = decision
    assert agent_inputs(Declares(needs_info=False, needs_observation=False), state, p, mask) == (None, None)


def test_the_observation_is_the_seats_own_fresh_array(decision):
    state, p, mask = decision
    obs, _ = agent_inputs(Declares(needs_info=False), state, p, mask)
    assert np.array_equal(obs, state.observation(p)) and not np.shares_memory(obs, state.observation(p))


def test_the_view_alone_is_the_bare_view_only_where_asked(decision):
    state, p, mask = decision
    _, bare = agent_inputs(Declares(), state, p, mask, bare_view=True)
    assert bare == state.public_view(p)
    _, info = agent_inputs(Declares(), state, p, mask)
    assert info == {"view": state.public_view(p), "action_mask": mask, "seat": p, "phase": state.phase_name()}


@pytest.mark.parametrize("bare_view", [True, False])
def test_a_sampler_draws_worlds_of_what_the_seat_knows(decision, bare_view):
    state, p, mask = decision
    _, info = agent_inputs(Declares(needs_sampler=True), state, p, mask, bare_view=bare_view)
    assert set(info) == {"view", "action_mask", "seat", "phase", "resample"}
    world = info["resample"](np.random.default_rng(1))
    assert world.public_view(p) == state.public_view(p)
    expected = state.resample_hidden(p, np.random.default_rng(1))
    assert world.full_state() == expected.full_state()


def test_an_agent_asking_for_inferred_worlds_gets_resample_inferred(decision):
    state, p, mask = decision
    calls = []
    state.resample_inferred = lambda q, rng: calls.append(q) or "inferred world"
    _, info = agent_inputs(Declares(needs_sampler=True, inferred_worlds=True), state, p, mask)
    assert info["resample"](np.random.default_rng(1)) == "inferred world" and calls == [p]
    _, plain = agent_inputs(Declares(needs_sampler=True), state, p, mask)
    assert plain["resample"](np.random.default_rng(1)) != "inferred world" and calls == [p]


def test_a_snapshot_sampler_draws_from_the_state_as_it_was(decision):
    state, p, mask = decision
    _, live = agent_inputs(Declares(needs_sampler=True), state, p, mask)
    _, snap = agent_inputs(Declares(needs_sampler=True), state, p, mask, snapshot=True)
    before = state.public_view(p)
    state.apply(int(np.flatnonzero(mask)[0]))
    assert snap["resample"](np.random.default_rng(2)).public_view(p) == before
    assert live["resample"](np.random.default_rng(2)).public_view(p) != before


def test_a_text_agent_gets_the_decision_in_words_with_its_history(decision):
    state, p, mask = decision
    history = [(p, "something it saw")]
    _, info = agent_inputs(Declares(needs_text=True, needs_info=False), state, p, mask, history)
    assert info["text"] == text_view(state, p, history)
    calls = []
    _, lazy = agent_inputs(Declares(needs_text=True), state, p, mask, lambda: calls.append(1) or history)
    assert lazy["text"] == info["text"] and calls == [1]
    agent_inputs(Declares(), state, p, mask, lambda: calls.append(1) or history)
    assert calls == [1]  # a history function is called only for an agent that reads text


@pytest.mark.parametrize("game_id, options", [("cribbage_v0", {"reward": "points"}), ("michigan_v0", {}),
                                              ("muggins_dominoes_v0", {})])
def test_apply_action_pays_what_the_action_and_the_forced_moves_after_it_paid(game_id, options):
    """Checked against applying by hand on a clone: the action, then each single-legal decision."""
    state = make_game(game_id, options).new_initial_state(seed=11)
    rng = np.random.default_rng(11)
    forced_seen = quiet_seen = forced_paid = 0
    while not state.is_terminal():
        action = int(rng.choice(state.legal_actions()))
        by_hand = state.clone()
        by_hand.apply(action)
        expected = by_hand.rewards().copy()
        forced = 0
        while not by_hand.is_terminal() and len(by_hand.legal_actions()) == 1:
            by_hand.apply(by_hand.legal_actions()[0])
            expected = expected + by_hand.rewards()
            forced_paid += bool(by_hand.rewards().any())
            forced += 1
        gained = apply_action(state, action, skip_forced=True)
        assert gained.tolist() == expected.tolist()
        assert state.state_array().tolist() == by_hand.state_array().tolist()
        forced_seen += forced > 0
        if forced == 0 and not expected.any():
            assert gained is state.rewards()  # the quiet step's shared zeros, which the AEC env tests by identity
            quiet_seen += 1
    assert forced_seen and quiet_seen
    if game_id != "muggins_dominoes_v0":  # (a dominoes pass or draw pays nothing)
        assert forced_paid, "no forced move paid anything: the sum over them went untested"


def test_apply_action_without_skip_forced_applies_the_action_alone(decision):
    state = decision[0]
    by_hand = state.clone()
    action = state.legal_actions()[0]
    by_hand.apply(action)
    gained = apply_action(state, action, skip_forced=False)
    assert gained.tolist() == by_hand.rewards().tolist()
    assert state.state_array().tolist() == by_hand.state_array().tolist()


def test_agent_action_hands_the_agent_its_inputs(decision):
    state, p, mask = decision
    agent = Declares()
    assert agent_action(agent, state, p, mask, np.random.default_rng(0)) == int(np.flatnonzero(mask)[0])
    obs, got_mask, info = agent.got
    assert np.array_equal(obs, state.observation(p)) and got_mask is mask and info == state.public_view(p)


#: every harness that asks an agent to move, by module
HARNESSES = ["muggins_env/wrappers.py", "eval/tournament.py", "play/session.py", "train/pretrain.py",
             "agents/search.py"]


@pytest.mark.parametrize("path", HARNESSES)
def test_every_harness_builds_an_agents_inputs_by_the_one_function(path):
    tree = ast.parse((ROOT / path).read_text())
    names = {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module == "muggins_env.decision"
             or isinstance(n, ast.ImportFrom) and n.module == "decision" and n.level == 1 for a in n.names}
    assert names & {"agent_inputs", "agent_action"}, f"{path} does not use muggins_env.decision"
    hand_built = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Call)
                  and getattr(n.func, "attr", None) == "resample_hidden"]
    assert not hand_built, f"{path} builds a sampler itself at lines {hand_built}"
