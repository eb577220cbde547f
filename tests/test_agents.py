"""Baseline agents: spec parsing, legality over many states of every game, the resampler the
search agent relies on, and hand-checked heuristic decisions."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from muggins_env.agents import HEURISTICS, RandomAgent, make_agent, make_game, parse_spec, player_view
from muggins_env.agents.search import SearchAgent


def _available(game_id: str) -> bool:
    try:
        importlib.import_module(f"muggins_env.{game_id}")
    except ImportError:
        return False
    return True


GAMES = [g for g in HEURISTICS if _available(g)]
#: small, bounded configurations per game (and the player counts each allows)
CONFIGS = {
    "muggins_cards_v0": [{"num_players": 4, "max_turns": 150}, {"num_players": 3, "max_turns": 150},
                         {"num_players": 4, "mistakes": True, "max_turns": 150}],
    "michigan_v0": [{"num_players": 3, "num_hands": 1}, {"num_players": 4, "num_hands": 1}],
    "muggins_dominoes_v0": [{"num_players": 2, "episode": "hand"}, {"num_players": 3, "episode": "hand"},
                            {"num_players": 4, "partnerships": True, "episode": "hand"},
                            {"num_players": 2, "episode": "hand", "variant": "all_fives", "muggins": "claim"},
                            {"num_players": 2, "episode": "hand", "variant": "five_up"}],
    "cribbage_v0": [{"num_players": 2, "target": 61}, {"num_players": 3, "target": 61},
                    {"num_players": 4, "target": 61}],
}
CASES = [(g, o) for g in GAMES for o in CONFIGS.get(g, [{}])]


# -- specs ------------------------------------------------------------------------------------------------
def test_parse_spec():
    assert parse_spec("random") == ("random", "", {})
    assert parse_spec("search:200") == ("search", "200", {"budget": 200})
    assert parse_spec("search:50,z=0.5,max_candidates=3") == (
        "search", "50", {"budget": 50, "z": 0.5, "max_candidates": 3})
    assert parse_spec("ppo:runs/a:b/model.zip") == ("ppo", "runs/a:b/model.zip", {})


@pytest.mark.parametrize("spec, message", [
    ("alphazero", "unknown agent spec 'alphazero'"),
    ("search:-3", "search:N"),
    ("search:10,depth=3", "unknown search setting"),
    ("random:3", "takes no arguments"),
    ("ppo:", "give the model path"),
    ("", "known kinds"),
])
def test_bad_specs_are_clear_errors(spec, message):
    with pytest.raises(ValueError, match=message):
        make_agent(spec, "michigan_v0", {})


def test_unknown_game_and_option_are_clear_errors():
    with pytest.raises(ValueError, match="unknown env"):
        make_agent("random", "go_v0", {})
    with pytest.raises(ValueError, match="num_players"):
        make_agent("heuristic", "michigan_v0", {"num_players": 20})


def test_ppo_spec_is_lazy_and_reports_missing_files(tmp_path):
    with pytest.raises(FileNotFoundError):
        make_agent(f"ppo:{tmp_path}/nothing.zip", "michigan_v0", {})


def test_kinds_built():
    assert isinstance(make_agent("random", "michigan_v0"), RandomAgent)
    s = make_agent("search:40", "michigan_v0")
    assert isinstance(s, SearchAgent) and s.budget == 40 and s.needs_sampler


def test_player_view_accepts_infos_or_view():
    assert player_view({"action_mask": 1, "view": {"seat": 2}}) == {"seat": 2}
    assert player_view({"seat": 2}) == {"seat": 2}
    assert player_view(None) == {}


# -- legality and the resampler over many states of every game ---------------------------------------------
def _info(state, p):
    mask = state.legal_actions_mask()
    return {"action_mask": mask, "view": state.public_view(p),
            "resample": lambda rng, _s=state, _p=p: _s.resample_hidden(_p, rng)}


@pytest.mark.parametrize("game_id, options", CASES, ids=[f"{g}-{i}" for i, (g, _) in enumerate(CASES)])
@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 2**31 - 1))
def test_every_agent_returns_legal_actions(game_id, options, seed):
    game = make_game(game_id, options)
    agents = [make_agent(s, game_id, options) for s in ("random", "heuristic", "search:4")]
    rng = np.random.default_rng(seed)
    state = game.new_initial_state(seed=seed)
    searched = 0
    for _ in range(3000):
        if state.is_terminal():
            break
        p = state.current_player()
        mask = state.legal_actions_mask()
        k = int(rng.integers(3)) if searched < 6 else int(rng.integers(2))
        agent = agents[k]
        action = agent.act(state.observation(p), mask.copy(), rng, _info(state, p))
        assert mask[action] == 1, f"{agent!r} chose illegal {action} in {game_id}:\n{state.render()}"
        if k == 2 and mask.sum() > 1:
            searched += 1
        state.apply(action)


@pytest.mark.parametrize("game_id, options", CASES, ids=[f"{g}-{i}" for i, (g, _) in enumerate(CASES)])
def test_resample_keeps_what_the_player_knows(game_id, options):
    """Everything the player may know (observation, readable view, mask when acting) stays;
    the true state is untouched; and what it cannot see does change (somewhere)."""
    game = make_game(game_id, options)
    rng = np.random.default_rng(11)
    state = game.new_initial_state(seed=5)
    heur = make_agent("heuristic", game_id, options)
    changed = checked = 0
    for step in range(400):
        if state.is_terminal():
            break
        if step % 3 == 0:
            before_full = repr(state.full_state())
            for p in range(game.num_players):
                other = state.resample_hidden(p, rng)
                assert other is not state
                assert np.array_equal(other.observation(p), state.observation(p))
                assert repr(other.public_view(p)) == repr(state.public_view(p))
                assert other.current_player() == state.current_player()
                if p == state.current_player():
                    assert np.array_equal(other.legal_actions_mask(), state.legal_actions_mask())
                changed += repr(other.full_state()) != before_full
                checked += 1
            assert repr(state.full_state()) == before_full  # the true state is untouched
        state.apply(heur.act_on_state(state, rng) if step % 2 else int(rng.choice(state.legal_actions())))
    assert checked > 0 and changed > 0


def test_search_never_receives_the_true_state():
    game = make_game("michigan_v0", {"num_players": 3, "num_hands": 1})
    state = game.new_initial_state(seed=2)
    seen = []

    def sampler(rng):
        s = state.resample_hidden(state.current_player(), rng)
        seen.append(s)
        return s

    agent = make_agent("search:12", "michigan_v0", {"num_players": 3, "num_hands": 1})
    while len(state.legal_actions()) < 2:
        state.apply(state.legal_actions()[0])
    p = state.current_player()
    a = agent.act(state.observation(p), state.legal_actions_mask(), np.random.default_rng(0),
                  {"view": state.public_view(p), "resample": sampler})
    assert a in state.legal_actions()
    assert seen and all(s is not state for s in seen)
    with pytest.raises(ValueError, match="resample"):
        agent.act(state.observation(p), state.legal_actions_mask(), np.random.default_rng(0),
                  state.public_view(p))
