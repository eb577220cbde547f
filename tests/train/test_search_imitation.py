"""Imitation of the search (expert iteration's imitation step): the label collection splits over
processes without changing what a worker collects, ``contested_only`` keeps exactly the decisions
where the teacher weighed two or more moves, and ``first_teacher`` fits a cheap clone first."""

import numpy as np
import pytest
from muggins_env.train.config import ConfigError, from_dict
from muggins_env.train.pretrain import collect, collect_parallel

from tests import ROOT
from tests.train.test_train import tiny


def crib(skip_forced=True, **pretrain):
    return tiny(game="cribbage_v0", env_options={"num_players": 2}, features="derived", skip_forced=skip_forced,
                opponents={"random": 0.0, "heuristic": 1.0, "self": 0.0},
                pretrain={"teacher": "heuristic", "decisions": 40, **pretrain})


def test_parallel_collection_is_each_workers_serial_collection_in_order():
    cfg = crib()
    par = collect_parallel(cfg, 81, seed=4, workers=2)
    first, second = collect(cfg, 41, 4), collect(cfg, 40, 4 + 7919)  # 81 = 41 + 40
    for key in ("obs", "masks", "actions", "returns"):
        assert np.array_equal(par[key], np.concatenate([first[key], second[key]])), key
    assert not np.array_equal(first["actions"][:20], second["actions"][:20])  # the workers' seeds differ


def test_contested_only_keeps_the_decisions_where_the_search_weighed_two_moves(monkeypatch):
    """Every kept decision is one where the teacher compared two or more candidates (its
    ``last_values``); the decisions it settled alone (a single candidate) are dropped."""
    from muggins_env.agents.search import SearchAgent
    from muggins_env.train import pretrain

    weighed, single = [], []
    real_act = SearchAgent.act

    def act(self, observation, action_mask, rng, info=None):
        a = real_act(self, observation, action_mask, rng, info)
        (weighed if len(self.last_values) >= 2 else single).append(a)
        return a

    monkeypatch.setattr(SearchAgent, "act", act)
    cfg = crib(teacher="search:8", contested_only=True)
    data = pretrain.collect(cfg, 12, seed=2)
    assert len(data["actions"]) >= 12 and len(single) > 0  # cribbage has single-candidate decisions
    assert len(data["actions"]) == len(weighed)
    assert all(data["masks"][i].sum() >= 2 for i in range(len(data["actions"])))
    assert list(data["actions"]) == weighed  # the kept labels are the weighed decisions' moves, in order


def test_contested_only_with_a_plain_teacher_keeps_decisions_with_two_legal_moves():
    data = collect(crib(skip_forced=False, contested_only=True), 50, seed=6)
    assert len(data["actions"]) >= 50
    assert data["masks"].sum(axis=1).min() >= 2
    everything = collect(crib(skip_forced=False), 50, seed=6)
    assert everything["masks"].sum(axis=1).min() == 1  # forced moves exist and were dropped above


def test_first_teacher_is_validated():
    with pytest.raises(ConfigError, match=r"pretrain.first_teacher='heuristic' needs pretrain.teacher .*"
                                          r"first_decisions >= 1 \(is 0\)"):
        from_dict({"game": "cribbage_v0", "pretrain": {"teacher": "search:10", "decisions": 10,
                                                      "first_teacher": "heuristic"}})
    with pytest.raises(ConfigError, match=r"needs pretrain.teacher \(is 'none'\)"):
        from_dict({"game": "cribbage_v0", "pretrain": {"first_teacher": "heuristic", "first_decisions": 10}})
    with pytest.raises(ConfigError, match=r"pretrain.workers=0 is not allowed"):
        from_dict({"game": "cribbage_v0", "pretrain": {"teacher": "heuristic", "decisions": 10, "workers": 0}})
    with pytest.raises(ConfigError, match=r"pretrain.contested_only='yes' is not allowed"):
        from_dict({"game": "cribbage_v0", "pretrain": {"teacher": "heuristic", "decisions": 10,
                                                      "contested_only": "yes"}})


def test_first_teacher_clone_then_the_main_teacher_in_a_short_run(tmp_path):
    """The first stage fits the heuristic (its agreement is recorded and far above an untrained
    policy's), then the search labels are collected by two processes and fitted."""
    from muggins_env.train.trainer import train

    cfg = tiny(game="cribbage_v0", env_options={"num_players": 2}, features="derived",
               opponents={"random": 0.0, "heuristic": 1.0, "self": 0.0},
               ppo={"n_steps": 32, "batch_size": 64, "n_epochs": 1, "net_arch": [64]},
               budget={"total_timesteps": 128, "n_envs": 4},
               pretrain={"first_teacher": "heuristic", "first_decisions": 3000, "teacher": "search:6",
                         "decisions": 40, "contested_only": True, "workers": 2, "epochs": 8,
                         "batch_size": 64},
               eval={"deals": 0, "opponents": ["random"]})
    card = train(cfg, tmp_path / "run", progress_bar=False, log=lambda *a: None)
    pre = card["pretrain"]
    assert pre["first"]["teacher"] == "heuristic" and pre["first"]["decisions"] >= 3000
    assert pre["first"]["agreement_after"] > 0.6  # an untrained policy agrees on < 0.5 (test_train)
    assert pre["teacher"] == "search:6" and pre["workers"] == 2 and pre["decisions"] >= 40
    # then the fit on the search's own labels moves the clone towards them
    assert pre["agreement_after"] > pre["agreement_before"]


def _run(tmp_path, name, **pretrain):
    from muggins_env.train.trainer import train

    cfg = tiny(game="cribbage_v0", env_options={"num_players": 2}, features="derived",
               opponents={"random": 0.0, "heuristic": 1.0, "self": 0.0},
               ppo={"n_steps": 32, "batch_size": 64, "n_epochs": 1, "net_arch": [64]},
               budget={"total_timesteps": 128, "n_envs": 4},
               pretrain={"teacher": "heuristic", "epochs": 2, "batch_size": 64, **pretrain},
               eval={"deals": 0, "opponents": ["random"]})
    return cfg, train(cfg, tmp_path / name, progress_bar=False, log=lambda *a: None)


def test_saved_labels_are_the_decisions_collected_and_a_later_run_fits_them_with_its_own(tmp_path):
    """``save_labels`` writes exactly what ``collect`` gathers for the run's seed; a second run
    with ``labels_from`` fits the saved decisions plus its new ones (and saves both)."""
    from muggins_env.train.pretrain import load_labels

    cfg, card = _run(tmp_path, "a", decisions=60, save_labels=True)
    saved = load_labels(tmp_path / "a", cfg)  # a run folder is accepted for its labels.npz
    again = collect(cfg, 60, cfg["seed"])
    for key in ("obs", "masks", "actions", "returns"):
        assert np.array_equal(saved[key], again[key]), key
    assert card["pretrain"]["decisions"] == len(saved["actions"]) >= 60 and card["pretrain"]["reused"] == 0

    cfg_b, card_b = _run(tmp_path, "b", decisions=30, save_labels=True,
                         labels_from=[str(tmp_path / "a" / "labels.npz")])
    both = load_labels(tmp_path / "b", cfg_b)
    n_a = len(saved["actions"])
    assert card_b["pretrain"]["reused"] == n_a
    assert card_b["pretrain"]["decisions"] == len(both["actions"]) >= n_a + 30
    assert np.array_equal(both["obs"][:n_a], saved["obs"])  # the saved ones first, then the new

    # only the saved labels: no collection at all
    _, card_c = _run(tmp_path, "c", decisions=0, labels_from=[str(tmp_path / "b")])
    assert card_c["pretrain"]["decisions"] == len(both["actions"]) and card_c["pretrain"]["collect_seconds"] < 1


def test_labels_from_another_game_setup_or_teacher_is_refused_with_the_difference(tmp_path):
    from muggins_env.train.pretrain import load_labels, save_labels

    cfg = crib()
    data = collect(cfg, 20, 1)
    path = save_labels(tmp_path / "labels.npz", data, cfg)
    assert len(load_labels(path, cfg)["actions"]) == len(data["actions"])
    with pytest.raises(ValueError, match=r"has teacher='heuristic', this run has teacher='search:8'"):
        load_labels(path, crib(teacher="search:8"))
    with pytest.raises(ValueError, match=r"has features='derived', this run has features='none'"):
        load_labels(path, {**cfg, "features": "none"})
    with pytest.raises(FileNotFoundError, match=r"no label file at .*nowhere"):
        load_labels(tmp_path / "nowhere", cfg)
    np.savez(tmp_path / "other.npz", obs=np.zeros(3))
    with pytest.raises(ValueError, match=r"is not a label file \(missing masks, actions, returns, meta\)"):
        load_labels(tmp_path / "other.npz", cfg)


def test_label_options_are_validated():
    with pytest.raises(ConfigError, match=r"pretrain.labels_from=.* is not allowed.*a list of paths"):
        from_dict({"game": "cribbage_v0", "pretrain": {"teacher": "heuristic", "decisions": 10,
                                                      "labels_from": "runs/x"}})
    with pytest.raises(ConfigError, match=r"pretrain.decisions=0 is not allowed .* no pretrain.labels_from"):
        from_dict({"game": "cribbage_v0", "pretrain": {"teacher": "heuristic", "decisions": 0}})
    with pytest.raises(ConfigError, match=r"need pretrain.teacher \(is 'none'\)"):
        from_dict({"game": "cribbage_v0", "pretrain": {"labels_from": ["runs/x"]}})
    with pytest.raises(ConfigError, match=r"pretrain.rounds=2 \(DAgger\) needs pretrain.decisions >= 1"):
        from_dict({"game": "cribbage_v0", "pretrain": {"teacher": "heuristic", "decisions": 0, "rounds": 2,
                                                      "labels_from": ["runs/x"]}})
    cfg = from_dict({"game": "cribbage_v0", "pretrain": {"teacher": "heuristic", "decisions": 0,
                                                        "labels_from": ["runs/x"]}})
    assert cfg["pretrain"]["labels_from"] == ["runs/x"] and cfg["pretrain"]["save_labels"] is False


# -- the search's values kept with its labels (for benchmarks/label_values.py) ------------------------
def test_collected_values_are_the_teachers_weighed_values(monkeypatch):
    """Each kept decision carries the mean value of every move the search weighed (NaN for the
    others), so a saved label set can later say what a model's choices are worth."""
    from muggins_env.agents.search import SearchAgent
    from muggins_env.train import pretrain

    seen = []
    real_act = SearchAgent.act

    def act(self, observation, action_mask, rng, info=None):
        a = real_act(self, observation, action_mask, rng, info)
        if len(self.last_values) >= 2:
            seen.append(dict(self.last_values))
        return a

    monkeypatch.setattr(SearchAgent, "act", act)
    data = pretrain.collect(crib(teacher="search:8", contested_only=True), 10, seed=3)
    assert len(seen) == len(data["actions"]) >= 10
    for row, weighed, action in zip(data["values"], seen, data["actions"]):
        assert sorted(np.flatnonzero(np.isfinite(row))) == sorted(weighed)
        assert all(np.isclose(row[a], v) for a, v in weighed.items())
        assert np.isfinite(row[action])  # the move played is one weighed (z=1 may keep the heuristic's)


def test_saved_values_round_trip_and_older_label_files_still_load(tmp_path):
    from muggins_env.train.pretrain import LABEL_KEYS, load_labels, save_labels

    cfg = crib()
    data = collect(cfg, 20, 1)
    data["values"][:, 0] = 0.5
    loaded = load_labels(save_labels(tmp_path / "new.npz", data, cfg), cfg)
    assert np.array_equal(loaded["values"], data["values"], equal_nan=True)
    old = tmp_path / "old.npz"  # as written before values were kept
    np.savez_compressed(old, **{k: data[k] for k in LABEL_KEYS}, meta=np.load(tmp_path / "new.npz")["meta"])
    assert "values" not in load_labels(old, cfg)
    # a teacher that weighs nothing (the heuristic) saves no values at all
    assert not np.isfinite(data["values"][:, 1:]).any()
    plain = {**data, "values": np.full_like(data["values"], np.nan)}
    assert "values" not in load_labels(save_labels(tmp_path / "plain.npz", plain, cfg), cfg)


def _label_values_module():
    import importlib.util

    path = ROOT / "benchmarks" / "label_values.py"
    spec = importlib.util.spec_from_file_location("label_values", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_label_values_gain_is_the_search_value_of_the_choice_over_the_hints():
    """``benchmarks/label_values.py``: a choice's gain is the search's value of the chosen move less
    that of the heuristic's move, over the rows where the search valued both."""
    mod = _label_values_module()
    nan = np.nan
    values = np.array([[0.1, nan, 0.3], [0.0, 0.4, nan], [0.5, 0.5, nan], [0.2, nan, 0.0]], np.float32)
    hint = np.array([0, 0, 0, 0])
    choice = np.array([2, 1, 0, 1])  # +0.2, +0.4, 0 (keeps the hint), and a move never valued (skipped)
    departs, mean, se = mod.gain(values, hint, choice)
    assert departs == pytest.approx(2 / 3) and mean == pytest.approx(0.2)
    assert se == pytest.approx(np.std([0.2, 0.4, 0.0], ddof=1) / np.sqrt(3))


def test_label_values_refuses_labels_without_the_heuristics_move(tmp_path):
    from muggins_env.train.pretrain import save_labels

    cfg = crib()  # features: derived, no hint among the observation's columns
    data = collect(cfg, 20, 1)
    data["values"][:, 0] = 0.5
    path = save_labels(tmp_path / "derived.npz", data, cfg)
    with pytest.raises(SystemExit, match=r"not the heuristic's move .* features: hinted or extended"):
        _label_values_module().main([str(path)])
