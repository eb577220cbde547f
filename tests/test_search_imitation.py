"""Imitation of the search (expert iteration's imitation step): the label collection splits over
processes without changing what a worker collects, ``contested_only`` keeps exactly the decisions
where the teacher weighed two or more moves, and ``first_teacher`` fits a cheap clone first."""

import numpy as np
import pytest
from muggins_env.train.config import ConfigError, from_dict
from muggins_env.train.pretrain import collect, collect_parallel

from .test_train import tiny


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


# -- soft targets: fitting the search's values, not only its move -----------------------------------
def test_soft_targets_are_a_softmax_of_the_weighed_values_and_one_hot_elsewhere():
    from muggins_env.train.pretrain import soft_targets

    nan = np.nan
    data = {"masks": np.ones((4, 3), bool), "actions": np.array([0, 2, 1, 0]),
            "values": np.array([[0.1, nan, 0.0],  # two weighed: e^1 / (e^1 + e^0) on move 0
                                [0.0, 0.0, 0.0],  # three equal values: a third each
                                [nan, 0.3, nan],  # one weighed move: the teacher's move only
                                [nan, nan, nan]], np.float32)}  # no values: the teacher's move
    t = soft_targets(data, 0.1)
    e = np.e / (np.e + 1)
    assert np.allclose(t[0], [e, 0, 1 - e]) and np.allclose(t[1], [1 / 3] * 3)
    assert np.array_equal(t[2], [0, 1, 0]) and np.array_equal(t[3], [1, 0, 0])
    assert soft_targets(data, 0.0) is None  # plain cloning
    no_values = {k: data[k] for k in ("masks", "actions")}  # a label file saved before the values
    assert np.array_equal(soft_targets(no_values, 0.1), np.eye(3)[[0, 2, 1, 0]])
    # a lower temperature puts more weight on the better move
    assert soft_targets(data, 0.02)[0, 0] > 0.99


def test_collected_values_are_the_teachers_weighed_values(monkeypatch):
    """Each kept decision carries the mean value of every move the search weighed (NaN for the
    others), so a saved label set can be fitted to the values later."""
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


def _probability_of_teacher_move(tmp_path, name, temperature):
    """Fit 40 cribbage decisions whose values make the teacher's move worth 0.75 of the soft
    target (the other legal move 0.25) and return the fitted policy's mean probability of it."""
    from muggins_env.agents.ppo import load_npz
    from muggins_env.train.pretrain import save_labels

    cfg = crib()
    data = collect(cfg, 40, seed=9)
    values = np.full(data["masks"].shape, np.nan, np.float32)
    for i, (mask, a) in enumerate(zip(data["masks"], data["actions"])):
        other = next(int(b) for b in np.flatnonzero(mask) if b != a)
        values[i, a], values[i, other] = 0.0, -0.1 * np.log(3.0)  # softmax at 0.1: 3/4 and 1/4
    data["values"] = values
    path = save_labels(tmp_path / f"{name}.npz", data, cfg)
    _run(tmp_path, name, decisions=0, labels_from=[str(path)], epochs=150, soft_targets=temperature,
                   learning_rate=3e-3)
    policy = load_npz(tmp_path / name / "model.npz")
    probs = [policy.probabilities(o, m)[a] for o, m, a in zip(data["obs"], data["masks"], data["actions"])]
    return float(np.mean(probs))


def test_soft_targets_fit_the_values_spread_where_plain_cloning_fits_the_move(tmp_path):
    soft = _probability_of_teacher_move(tmp_path, "soft", 0.1)
    hard = _probability_of_teacher_move(tmp_path, "hard", 0.0)
    assert 0.65 < soft < 0.85, soft  # the 3:1 target, not certainty
    assert hard > 0.93, hard


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


def test_soft_targets_option_is_validated():
    with pytest.raises(ConfigError, match=r"pretrain.soft_targets=-0.1 is not allowed"):
        from_dict({"game": "cribbage_v0", "pretrain": {"teacher": "heuristic", "decisions": 10,
                                                      "soft_targets": -0.1}})
    assert from_dict({"game": "cribbage_v0"})["pretrain"]["soft_targets"] == 0.0
