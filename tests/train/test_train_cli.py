"""``muggins-train`` as a newcomer meets it after the quick start: ``--resume`` never destroys a
finished model, a non-empty ``--out`` needs ``--overwrite``, ``--list`` says a word on each preset,
and the logged win rate is the evaluation's."""

import hashlib
import json

import pytest

GAME = "muggins_cards_v0"


# -- --resume never destroys a finished model; a non-empty --out needs --overwrite ------------------


def _config(tmp_path, eval_deals=0):
    cfg = tmp_path / "c.yaml"
    # rollouts of 2 envs x 32 steps: the run ends at 128 steps, its checkpoints are at 96 (and 192, ...)
    cfg.write_text(
        f"game: {GAME}\nenv_options: {{num_players: 4}}\n"
        "opponents: {random: 1, heuristic: 0, self: 0}\n"
        "ppo: {n_steps: 32, batch_size: 64, n_epochs: 1, net_arch: [16]}\n"
        "budget: {total_timesteps: 128, n_envs: 2, vec_env: dummy}\n"
        f"checkpoint_every: 96\neval: {{deals: {eval_deals}, opponents: [random]}}\n")
    return cfg


def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _tb_steps(out):
    """{folder: {tag: [steps]}} of the run's TensorBoard logs."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    runs = {}
    for folder in sorted((out / "tb").iterdir()):
        files = []
        for path in folder.glob("events.out.tfevents.*"):
            ea = EventAccumulator(str(path))
            ea.Reload()
            files.append(ea)
        # in the order the runs wrote them: TensorBoard reads a folder's files by name, and the writer's
        # per-process counter at the end of the name is not zero-padded ('.10' before '.9' in one second)
        files.sort(key=lambda ea: min((e.wall_time for t in ea.Tags()["scalars"] for e in ea.Scalars(t)),
                                      default=0.0))
        tags: dict[str, list[int]] = {}
        for ea in files:
            for t in ea.Tags()["scalars"]:
                tags.setdefault(t, []).extend(e.step for e in ea.Scalars(t))
        runs[folder.name] = tags
    return runs


def _no_step_twice(runs):
    for folder, tags in runs.items():
        for tag, steps in tags.items():
            assert steps == sorted(set(steps)), (folder, tag, steps)


def test_resume_of_a_finished_run_needs_a_larger_budget_and_starts_from_its_final_model(tmp_path, capsys):
    from muggins_env.train.cli import main

    out = tmp_path / "run"
    assert main(["--config", str(_config(tmp_path)), "--out", str(out), "--no-progress"]) == 0
    capsys.readouterr()
    assert sorted(p.name for p in (out / "checkpoints").glob("*.zip")) == ["step_96.zip"]
    final = _digest(out / "model.zip")
    # without --timesteps (the config's 128 = the run's own steps), or with one not above: refused
    for extra in ([], ["--timesteps", "128"], ["--timesteps", "100"]):
        assert main(["--resume", str(out), "--no-progress", *extra]) == 2, extra
        err = capsys.readouterr().err
        assert "finished run of 128 steps" in err and "give --timesteps larger than 128" in err, err
        assert _digest(out / "model.zip") == final
    # an earlier checkpoint resumed into the run itself would replace the finished model: refused
    assert main(["--resume", str(out / "checkpoints" / "step_96.zip"), "--timesteps", "256", "--no-progress"]) == 2
    assert "holds a finished model of 128 steps" in capsys.readouterr().err
    assert _digest(out / "model.zip") == final
    # a larger budget continues from the final model (step 128), not from the checkpoint at 96
    assert main(["--resume", str(out), "--timesteps", "192", "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert f"resumed from {out / 'model.zip'} at 128 steps" in text, text
    assert json.loads((out / "model_card.json").read_text())["timesteps"] == 192
    runs = _tb_steps(out)
    _no_step_twice(runs)
    assert len(runs) == 1  # the learning curve goes on in the same folder: 64, 128, then 192
    assert next(iter(runs.values()))["time/fps"] == [64, 128, 192], runs


def test_resume_of_an_unfinished_run_logs_no_step_twice_in_one_tensorboard_folder(tmp_path, capsys):
    from muggins_env.train.cli import main

    out = tmp_path / "run"
    assert main(["--config", str(_config(tmp_path)), "--out", str(out), "--no-progress"]) == 0
    for f in ("model.zip", "model.npz", "model_card.json"):  # as if it had stopped after step 128
        (out / f).unlink()
    capsys.readouterr()
    assert main(["--resume", str(out), "--no-progress"]) == 0  # from its latest checkpoint, step 96
    assert f"resumed from {out / 'checkpoints' / 'step_96.zip'} at 96 steps" in capsys.readouterr().out
    runs = _tb_steps(out)
    _no_step_twice(runs)
    assert len(runs) == 2  # steps 96.. again go to a folder of their own


def test_training_into_a_non_empty_out_needs_overwrite_which_clears_the_old_run(tmp_path, capsys):
    from muggins_env.train.cli import main

    out = tmp_path / "run"
    assert main(["--config", str(_config(tmp_path, eval_deals=1)), "--out", str(out), "--no-progress"]) == 0
    (out / "notes.txt").write_text("mine")
    capsys.readouterr()
    cfg2 = _config(tmp_path)
    cfg2.write_text(cfg2.read_text().replace("checkpoint_every: 96", "checkpoint_every: 64"))
    before = _digest(out / "model.zip")
    assert main(["--config", str(cfg2), "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert f"--out {out} is not empty" in err and "--overwrite" in err and f"--resume {out}" in err, err
    assert _digest(out / "model.zip") == before and (out / "eval.json").exists()
    assert main(["--config", str(cfg2), "--out", str(out), "--no-progress", "--overwrite"]) == 0
    # the old run is gone (its checkpoint at 96, its eval.json); what was not the run's stays
    assert sorted(p.name for p in (out / "checkpoints").glob("*.zip")) == ["step_128.zip", "step_64.zip"]
    assert not (out / "eval.json").exists() and (out / "notes.txt").read_text() == "mine"
    assert len(list((out / "tb").iterdir())) == 1


def test_the_python_api_refuses_the_same(tmp_path):
    from muggins_env.train.config import load_config
    from muggins_env.train.trainer import RunDirError, train

    cfg = load_config(_config(tmp_path))
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "model.zip").write_bytes(b"not mine to lose")
    with pytest.raises(RunDirError, match="is not empty"):
        train(cfg, tmp_path / "run", progress_bar=False, log=lambda *a: None)
    assert (tmp_path / "run" / "model.zip").read_bytes() == b"not mine to lose"


def test_train_list_says_a_word_on_each_preset(capsys):
    from muggins_env.train.cli import main
    from muggins_env.train.config import list_presets

    assert main(["--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == list_presets()
    assert all(len(line.split()) > 3 for line in lines), lines
    full = next(line for line in lines if line.startswith("cribbage_v0/full "))
    assert "Cribbage with muggins counting, 2 players, a game to 121: a real run" in full


# -- TensorBoard's vs_<kind>/win_rate is the evaluation's win rate ----------------------------------


def test_the_logged_win_rate_is_the_win_share_the_evaluation_counts():
    from types import SimpleNamespace

    from muggins_env.train.config import from_dict
    from muggins_env.train.trainer import _callbacks, _make_pool

    cfg = from_dict({"game": "michigan_v0", "env_options": {"num_players": 4, "reward": "chips"},
                     "opponents": {"random": 0.0, "heuristic": 1.0, "self": 0.0}, "checkpoint_every": 0})
    cb = _callbacks(cfg, _make_pool(cfg), None, None, True)
    logged = {}
    cb.model = SimpleNamespace(num_timesteps=10, logger=SimpleNamespace(record=logged.__setitem__))
    cb.next_snapshot, cb.next_ckpt = 10**9, None

    def episode(seat, returns, r):
        return {"seat": seat, "returns": returns, "opponents": "heuristic", "episode": {"r": r, "l": 9}}

    # 4-player Michigan: a positive return that is not the top one is no win; a tie on top is a half
    cb.locals = {"dones": [True, True, True, False],
                 "infos": [episode(0, [3, 5, -4, -4], 3.0), episode(1, [3, 5, -4, -4], 5.0),
                           episode(0, [6, 6, -6, -6], 6.0), {"seat": 2}]}
    cb._on_step()
    cb._on_rollout_end()
    assert logged["vs_heuristic/win_rate"] == pytest.approx((0 + 1 + 0.5) / 3)
    assert logged["vs_heuristic/mean_return"] == pytest.approx(14 / 3)
