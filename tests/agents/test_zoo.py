"""The model zoo: every shipped model loads, fits its env and plays only legal moves; a model
refuses options it was not trained for; ``zoo:`` specs and ``--list-agents`` name them; playing
needs no torch."""

import json
import subprocess
import sys

import numpy as np
import pytest
from muggins_env.agents import make_agent, make_game, parse_spec
from muggins_env.agents.zoo import list_models, model_card
from muggins_env.eval.cli import main as eval_main

import muggins_env

MODELS = list_models()


def test_the_zoo_ships_a_default_cribbage_model():
    assert "cribbage_v0" in MODELS


@pytest.mark.parametrize("name", MODELS)
def test_each_shipped_model_loads_fits_its_env_and_plays_only_legal_moves(name):
    card = model_card(name)
    game_id, options = card["game"], card["game_options"]
    assert name.split("/")[0] == game_id and card["evaluation"] and card["regenerate"]
    agent = make_agent(f"zoo:{name}", game_id, options)
    game = make_game(game_id, options)
    assert agent.policy.num_actions == game.num_actions
    env = muggins_env.make(game_id, raw=True, readable_infos=True, **options)  # zoo agents read the view
    env.reset(seed=11)
    rng = np.random.default_rng(0)
    moves = 0
    for a in env.agent_iter(max_iter=400):
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        action = agent.act(obs["observation"], obs["action_mask"], rng, info)
        assert obs["action_mask"][action] == 1, (name, action)
        env.step(action)  # the raw env raises on an illegal action
        moves += 1
    assert moves > 20


def test_a_zoo_model_refuses_options_it_was_not_trained_for():
    with pytest.raises(ValueError, match=r"zoo model 'cribbage_v0' was trained for cribbage_v0 .*num_players=4"):
        make_agent("zoo:cribbage_v0", "cribbage_v0", {"num_players": 4})
    with pytest.raises(ValueError, match="zoo model 'cribbage_v0' plays cribbage_v0, not michigan_v0"):
        make_agent("zoo:cribbage_v0", "michigan_v0", {})
    with pytest.raises(ValueError, match="no zoo model 'cribbage_v0/nope'; available: .*cribbage_v0"):
        make_agent("zoo:cribbage_v0/nope", "cribbage_v0", {})
    with pytest.raises(ValueError, match="name the model"):
        parse_spec("zoo:")
    # the reward option changes what is paid, not the game played
    assert make_agent("zoo:cribbage_v0", "cribbage_v0", {"reward": "win"}) is not None


def test_list_agents_names_the_zoo_models(capsys):
    assert eval_main(["--list-agents"]) == 0
    out = capsys.readouterr().out
    assert "zoo" in out.splitlines()[0]
    for name in MODELS:
        assert f"zoo:{name}" in out


@pytest.mark.parametrize(("spec", "opts"), [("zoo:cribbage_v0", []), ("zoo:cribbage_v0/4p", ["--opt", "num_players=4"])])
def test_a_zoo_model_plays_in_the_harness_without_torch(spec, opts, tmp_path):
    """``muggins-eval --game cribbage_v0 --agents zoo:cribbage_v0 heuristic`` with torch unimportable
    (the 4-player model's hinted features run the heuristic: numpy too)."""
    code = ("import sys; sys.modules['torch'] = None; sys.modules['stable_baselines3'] = None; "
            "from muggins_env.eval.cli import main; "
            f"raise SystemExit(main(['--game', 'cribbage_v0', *{opts!r}, '--agents', {spec!r}, 'heuristic', "
            f"'--deals', '1', '--workers', '1', '--no-progress', '--no-plot', '--out', {str(tmp_path)!r}]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    summary = json.loads((tmp_path / "results.json").read_text())["summary"]
    assert summary["games"] == 2 and summary["agents"][0]["spec"] == spec  # one deal, both ways round
