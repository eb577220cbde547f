"""``zoo_export``'s card: its ``regenerate`` repeats the evaluation it records, seating included."""

from __future__ import annotations

import json

import pytest
from muggins_env.train.zoo_export import export


def _run_and_eval(tmp_path, lineup):
    run = tmp_path / "run"
    run.mkdir()
    (run / "model.npz").write_bytes(b"weights")
    cfg = {"features": "derived", "ppo": {"policy": "action_scorer"}}
    (run / "model_card.json").write_text(json.dumps({
        "game": "michigan_v0", "env_options": {"num_players": 4, "reward": "chips"}, "config": cfg,
        "timesteps": 0, "train_seconds": 1.0, "seed": 6}))
    ev = tmp_path / "eval"
    ev.mkdir()
    agent = {"agent": "ppo:x", "spec": "ppo:x", "samples": 8, "win_rate": 0.3, "win_rate_ci95": [0.2, 0.4],
             "win_rate_dup_ci95": [0.26, 0.34], "parity": 0.25, "beats_parity_dup": True,
             "below_parity_dup": False, "mean_return": 1.0, "mean_return_ci95": [0.5, 1.5]}
    (ev / "results.json").write_text(json.dumps({"summary": {
        "game": "michigan_v0", "options": {}, "deals": 2, "seed": 58000, "games": 8, "seconds": 1.0,
        "lineup": lineup, "agents": [agent]}}))
    return run, ev


@pytest.mark.parametrize(("lineup", "flag"), [("single", " --lineup single "), ("field", " --lineup field "),
                                              ("cycle", None)])
def test_the_regenerate_command_evaluates_with_the_recorded_lineup(tmp_path, lineup, flag):
    run, ev = _run_and_eval(tmp_path, lineup)
    dest = export(run, "default", ev, preset="taught", zoo=tmp_path / "zoo")
    card = json.loads((dest / "model_card.json").read_text())
    assert card["evaluation"]["lineup"] == lineup
    evaluate = card["regenerate"].split(" && ")[1]
    assert evaluate.startswith("muggins-eval --game michigan_v0 --agents ppo:")
    assert "--deals 2 --seed 58000" in evaluate
    if flag is None:  # muggins-eval's default seating: no flag
        assert "--lineup" not in evaluate
    else:
        assert flag in evaluate
