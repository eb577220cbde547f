"""Expert iteration as a training command: rounds whose teacher is the search guided by the
previous round's network, labels that grow, one pre-registered evaluation a round, resumable."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from muggins_env.train import cli
from muggins_env.train.config import ConfigError, load_config
from muggins_env.train.expert_iteration import EXIT_FILE, round_config, teacher_spec

TINY = {"pretrain": {"first_decisions": 300, "decisions": 60, "epochs": 1, "workers": 1},
        "expert_iteration": {"search": 4, "decisions": 60, "eval_deals": 2}, "ppo": {"net_arch": [16]}}


def test_each_round_is_taught_by_the_search_the_previous_round_guides(tmp_path):
    cfg = load_config(game="muggins_dominoes_v0", preset="exit", overrides=TINY)
    assert teacher_spec(cfg, None) == "search:4"
    rc = round_config(cfg, 2, tmp_path)
    assert rc["pretrain"]["teacher"] == f"search:4,policy=ppo:{tmp_path / 'round_1'},rollout=heuristic,prior=policy"
    assert rc["pretrain"]["labels_from"] == [str(tmp_path / "round_1" / "labels.npz")]  # it holds round 0's too
    assert rc["pretrain"]["first_teacher"] == "heuristic" and not rc["pretrain"]["same_teacher"]
    assert rc["expert_iteration"]["rounds"] == 0 and rc["eval"]["deals"] == 0
    none = load_config(game="muggins_dominoes_v0", preset="exit", overrides={**TINY, "expert_iteration": {
        **TINY["expert_iteration"], "guide": "none"}})
    assert round_config(none, 1, tmp_path)["pretrain"]["teacher"] == "search:4"


def test_a_bad_expert_iteration_setting_is_refused():
    with pytest.raises(ConfigError, match="guide"):
        load_config(game="muggins_dominoes_v0", preset="exit", overrides={"expert_iteration": {"guide": "magic"}})
    with pytest.raises(ConfigError, match="rounds"):
        load_config(game="muggins_dominoes_v0", preset="exit", overrides={"expert_iteration": {"rounds": -1}})


def test_rounds_run_grow_their_labels_and_resume(tmp_path, capsys):
    import yaml

    out = tmp_path / "exit"
    cfg_file = tmp_path / "tiny.yaml"
    base = load_config(game="muggins_dominoes_v0", preset="exit", overrides={
        **TINY, "expert_iteration": {**TINY["expert_iteration"], "rounds": 2}})
    cfg_file.write_text(yaml.safe_dump(base))
    assert cli.main(["--config", str(cfg_file), "--out", str(out), "--no-progress"]) == 0
    curve = json.loads((out / EXIT_FILE).read_text())["rounds"]
    assert [r["round"] for r in curve] == [0, 1]
    assert curve[0]["teacher"] == "search:4" and f"policy=ppo:{out / 'round_0'}" in curve[1]["teacher"]
    assert curve[1]["labels"] == curve[0]["labels"] + curve[1]["new_labels"] and curve[1]["new_labels"] >= 60
    for r in curve:
        for side in ("vs_heuristic", "vs_teacher"):
            assert r[side]["deals"] == 2 and 0 <= r[side]["win_rate"] <= 1
        assert (out / f"round_{r['round']}" / "model.npz").is_file()
    # a non-empty --out is refused; --resume keeps the finished rounds and runs the next one
    assert cli.main(["--config", str(cfg_file), "--out", str(out)]) == 2
    assert "is not empty" in capsys.readouterr().err
    more = yaml.safe_load((out / "config.yaml").read_text())
    more["expert_iteration"]["rounds"] = 3
    (out / "config.yaml").write_text(yaml.safe_dump(more))
    before = (out / "round_0" / "model.npz").stat().st_mtime_ns
    assert cli.main(["--resume", str(out), "--no-progress"]) == 0
    curve = json.loads((out / EXIT_FILE).read_text())["rounds"]
    assert [r["round"] for r in curve] == [0, 1, 2]
    for k in (1, 2):  # each round fits the labels so far once, and its own new ones
        assert curve[k]["new_labels"] >= 60 and curve[k]["labels"] == curve[k - 1]["labels"] + curve[k]["new_labels"]
    assert (out / "round_0" / "model.npz").stat().st_mtime_ns == before  # kept, not retrained
    assert "round 0: kept" in capsys.readouterr().out


@pytest.mark.parametrize("game", ["cribbage_v0", "michigan_v0"])
def test_the_other_exit_presets_run_a_round(tmp_path, game):
    from muggins_env.train.expert_iteration import run

    cfg = load_config(game=game, preset="exit", overrides={
        "pretrain": {"first_decisions": 200, "decisions": 30, "epochs": 1, "workers": 1}, "ppo": {"net_arch": [16]},
        "expert_iteration": {"rounds": 1, "search": 2, "decisions": 30, "eval_deals": 1}})
    rows = run(cfg, tmp_path / "exit", log=lambda *_: None, workers=1)
    assert len(rows) == 1 and rows[0]["teacher"] == "search:2" and rows[0]["labels"] >= 30
    assert rows[0]["vs_heuristic"]["deals"] == 1 and (tmp_path / "exit" / "round_0" / "model.npz").is_file()
