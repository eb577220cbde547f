"""PPO training: configs validate (and reject bad values clearly), a few-hundred-step run
saves, resumes and loads as an agent, the trained policy respects the masks, the CLI works."""

import json

import numpy as np
import pytest
from muggins_env.agents.ppo import NumpyPolicy, PPOAgent, load_ppo_agent
from muggins_env.train.cli import main
from muggins_env.train.config import ConfigError, from_dict, list_presets, load_config
from muggins_env.train.pool import OpponentPool

from muggins_env.wrappers import SeatEnv
from tests.conformance import plays_as_model

GAME = "muggins_cards_v0"


def tiny(**over):
    cfg = {
        "game": GAME, "env_options": {"num_players": 4},
        "opponents": {"random": 1.0, "heuristic": 0.0, "self": 1.0},
        "self_play": {"snapshot_every": 128, "window": 2},
        "ppo": {"n_steps": 32, "batch_size": 64, "n_epochs": 1, "net_arch": [16]},
        "budget": {"total_timesteps": 256, "n_envs": 4},
        "checkpoint_every": 128,
        "eval": {"deals": 3, "opponents": ["random"]},
    }
    cfg.update(over)
    return from_dict(cfg)


# -- configs ----------------------------------------------------------------------------------------
def test_every_packaged_preset_validates():
    from muggins_env import ENV_NAMES

    presets = list_presets()
    assert f"{GAME}/quick" in presets and f"{GAME}/full" in presets
    for name in presets:
        game, preset = name.split("/")
        if game not in ENV_NAMES:  # configs may land before their env is registered
            continue
        cfg = load_config(game=game, preset=preset)
        assert cfg["game"] == game
        assert cfg["ppo"]["batch_size"] <= cfg["ppo"]["n_steps"] * cfg["budget"]["n_envs"]


@pytest.mark.parametrize("game", __import__("muggins_env").ENV_NAMES)
def test_every_registered_game_has_quick_and_full_presets_that_validate(game):
    """Each env id of ENV_NAMES ships both presets; they validate, their opponent pool can be
    built (the heuristic exists) and evaluation plays on the game's win/loss reward."""
    from muggins_env.train.trainer import _make_pool

    assert {"quick", "full"} <= set(list_presets(game))
    for preset in ("quick", "full"):
        cfg = load_config(game=game, preset=preset)
        assert cfg["game"] == game
        assert cfg["budget"]["total_timesteps"] > 0 and cfg["eval"]["deals"] > 0
        assert "heuristic" in cfg["eval"]["opponents"] and "random" in cfg["eval"]["opponents"]
        pool = _make_pool(cfg)  # fails if an opponent kind with weight > 0 is unavailable
        assert set(pool.kinds) == {k for k in ("random", "heuristic", "self") if cfg["opponents"][k] > 0}
        assert {**cfg["env_options"], **cfg["eval"]["env_options"]}.get("reward", "win") in ("win", "chips")
    full, quick = load_config(game=game, preset="full"), load_config(game=game, preset="quick")
    assert full["budget"]["total_timesteps"] > quick["budget"]["total_timesteps"]
    assert full["eval"]["deals"] >= 2000  # the acceptance measure: at least 2,000 duplicate deals


@pytest.mark.parametrize("raw, message", [
    ({"game": "chess_v0"}, r"config game='chess_v0' is not allowed; expected one of"),
    ({"game": GAME, "ppo": {"learning_rate": -1}}, r"ppo.learning_rate=-1 is not allowed; expected a number > 0"),
    ({"game": GAME, "ppo": {"n_epochs": 2.5}}, r"ppo.n_epochs=2.5 .*an integer"),
    ({"game": GAME, "ppo": {"activation": "sigmoid"}}, r"ppo.activation='sigmoid' .*'tanh', 'relu'"),
    ({"game": GAME, "ppo": {"net_arch": []}}, r"ppo.net_arch=\[\] .*layer sizes"),
    ({"game": GAME, "ppo": {"lr": 0.1}}, r"unknown config key\(s\) 'lr' in 'ppo'; allowed: learning_rate"),
    ({"game": GAME, "budgett": {}}, r"unknown config key\(s\) 'budgett'"),
    ({"game": GAME, "budget": {"vec_env": "ray"}}, r"budget.vec_env='ray' .*'batched', 'dummy', 'subproc'"),
    ({"game": GAME, "budget": {"n_envs": 0}}, r"budget.n_envs=0 .*>= 1"),
    ({"game": GAME, "opponents": {"random": 0, "heuristic": 0, "self": 0}}, r"weights .* must be > 0"),
    ({"game": GAME, "opponents": {"sampling": "game"}}, r"opponents.sampling='game'"),
    ({"game": GAME, "self_play": {"latest_ratio": 1.5}}, r"self_play.latest_ratio=1.5 .*<= 1"),
    ({"game": GAME, "skip_forced": "yes"}, r"skip_forced='yes' .*true or false"),
    ({"game": GAME, "seat": 5}, r"config seat=5 is not allowed; expected 'random' or 0..3"),
    ({"game": GAME, "env_options": {"num_players": 9}}, r"env_options: option num_players=9"),
    ({"game": GAME, "env_options": {"colour": 1}}, r"env_options: unknown option"),
    ({"game": GAME, "ppo": {"batch_size": 10**6}}, r"batch_size=1000000 is larger than a rollout"),
    ({"game": GAME, "eval": {"opponents": []}}, r"eval.opponents=\[\]"),
])
def test_config_rejects_bad_values_with_clear_errors(raw, message):
    with pytest.raises(ConfigError, match=message):
        from_dict(raw)


def test_config_file_errors(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text("game: muggins_cards_v0\nppo: {gamma: 2}\n")
    with pytest.raises(ConfigError, match="ppo.gamma=2"):
        load_config(p)
    p.write_text("[1, 2")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(p)
    with pytest.raises(ConfigError, match="no preset 'huge'.*available: full, quick"):
        load_config(game=GAME, preset="huge")
    with pytest.raises(ConfigError, match="cannot read config .*nope.yaml"):
        load_config(tmp_path / "nope.yaml")
    with pytest.raises(ConfigError, match="unknown game 'chess'; known games: muggins_cards_v0"):
        load_config(game="chess", preset="quick")
    p.write_text("game: muggins_cards_v0\n")
    assert load_config(p)["ppo"]["gamma"] == 0.99  # defaults fill the rest


# -- opponent pool ------------------------------------------------------------------------------------
def _policy(seed, obs, actions):
    r = np.random.default_rng(seed)
    return NumpyPolicy([(r.normal(size=(8, obs)), r.normal(size=8))], (r.normal(size=(actions, 8)), r.normal(size=actions)))


def test_curriculum_moves_the_opponent_weights_linearly_then_holds():
    from muggins_env.train.trainer import _make_pool, curriculum_weights

    cfg = tiny(opponents={"random": 3.0, "heuristic": 1.0, "self": 0.0},
               curriculum={"steps": 1000, "random": 0.0, "heuristic": 1.0, "self": 1.0})
    assert curriculum_weights(cfg, 0) == {"random": 0.75, "heuristic": 0.25, "self": 0.0}
    # halfway: (0.75 + 0) / 2, (0.25 + 0.5) / 2, (0 + 0.5) / 2
    assert curriculum_weights(cfg, 500) == pytest.approx({"random": 0.375, "heuristic": 0.375, "self": 0.25})
    assert curriculum_weights(cfg, 5000) == pytest.approx({"random": 0.0, "heuristic": 0.5, "self": 0.5})
    pool = _make_pool(cfg)
    assert pool.kinds == ["random", "heuristic", "self"]  # self is reachable later: made now
    pool.set_weights(curriculum_weights(cfg, 5000))
    pool.add_snapshot(_policy(0, 165, 13), 0)
    rng = np.random.default_rng(0)
    assert {pool(rng, 0, 4).name for _ in range(60)} == {"heuristic", "self"}
    no_curriculum = tiny(opponents={"random": 1.0, "heuristic": 0.0, "self": 1.0})
    assert curriculum_weights(no_curriculum, 10**6) == {"random": 1.0, "heuristic": 0.0, "self": 1.0}
    with pytest.raises(ValueError, match="over the pool's kinds"):
        _make_pool(no_curriculum).set_weights({"heuristic": 1.0})
    with pytest.raises(ConfigError, match="curriculum: the final weights"):
        tiny(curriculum={"steps": 10, "random": 0.0, "heuristic": 0.0, "self": 0.0})
    with pytest.raises(ConfigError, match=r"curriculum.steps=-1 .*>= 0"):
        tiny(curriculum={"steps": -1})


def test_pool_window_latest_ratio_and_table_sampling():
    pool = OpponentPool(GAME, {"num_players": 4}, {"self": 1.0}, "table", window=2, latest_ratio=1.0)
    rng = np.random.default_rng(0)
    assert pool(rng, 0, 4).name == "random"  # no snapshot yet
    for step in (10, 20, 30):
        pool.add_snapshot(_policy(step, 165, 13), step)
    assert pool.snapshot_steps() == [20, 30]  # window of 2
    lineup = pool(rng, 1, 4)
    assert sorted(lineup) == [0, 2, 3] and lineup.name == "self"
    assert {a.name for a in lineup.values()} == {"self@30"}  # latest_ratio 1: always the latest
    pool.latest_ratio = 0.0
    assert {pool(rng, 1, 4)[0].name for _ in range(20)} == {"self@20"}  # 0: always an older one


# -- training --------------------------------------------------------------------------------------
def test_short_run_saves_resumes_and_loads_as_agent(tmp_path):
    from muggins_env.train.trainer import train

    out = tmp_path / "run"
    card = train(tiny(), out, progress_bar=False, log=lambda *a: None)
    assert card["timesteps"] >= 256
    for f in ("model.zip", "model.npz", "config.yaml", "model_card.json", "eval.json"):
        assert (out / f).exists(), f
    assert sorted(p.name for p in (out / "checkpoints").glob("*.zip")) == ["step_128.zip", "step_256.zip"]
    assert len(list((out / "snapshots").glob("*.npz"))) >= 2
    assert any((out / "tb").rglob("events.out.tfevents.*"))
    saved = json.loads((out / "model_card.json").read_text())
    assert saved["game"] == GAME and saved["evaluation"][0]["opponent"] == "random"
    assert saved["evaluation"][0]["games"] == 3 * 4  # 3 duplicate deals x 4 seats

    # resume from the latest checkpoint up to a larger budget
    logs = []
    card2 = train(tiny(budget={"total_timesteps": 512, "n_envs": 4}), out, resume=out / "checkpoints" / "step_256.zip",
                  progress_bar=False, evaluate_at_end=False, log=logs.append)
    assert 512 <= card2["timesteps"] < 512 + 128
    assert "resumed from" in logs[0] and "at 256 steps (2 self-play snapshots)" in logs[0]
    assert card2["self_play_snapshots"][-1] > 256  # self-play went on after the resume

    # the saved model loads as an agent (numpy fast path and the SB3 zip give the same policy)
    agent = load_ppo_agent(out, GAME, {"num_players": 4})
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(str(out / "model.zip"), device="cpu")
    env = SeatEnv(GAME, {"num_players": 4}, seed=5)
    rng = np.random.default_rng(0)
    for _ in range(30):
        obs, _ = env.reset()
        mask = env.action_masks()
        a, _ = model.predict(obs, action_masks=mask, deterministic=True)
        assert agent.act(obs, mask.astype(np.int8), rng) == int(a)
    from muggins_env.agents import make_game

    size4 = make_game(GAME, {"num_players": 4}).observation_size
    with pytest.raises(ValueError, match=f"expects observations of {size4}"):
        load_ppo_agent(out, GAME, {"num_players": 5})
    with pytest.raises(FileNotFoundError):
        load_ppo_agent(tmp_path / "nowhere", GAME, {"num_players": 4})


@pytest.mark.parametrize("opts", [{"num_players": 3, "knocking": True, "extra_play": True, "variant": "primes"},
                                  {"num_players": 2, "variant": "fives_1863", "lead": "double"}])
def test_short_run_on_the_dominoes_family_options(tmp_path, opts):
    """docs/rules/dominoes.md §2.8: training and its evaluation run with knocking, the extra play, the new
    presets and the double lead (the knock, draw and stop actions are in the policy's space)."""
    from muggins_env.agents import make_game
    from muggins_env.agents.features import derived_features
    from muggins_env.train.trainer import train
    from sb3_contrib import MaskablePPO

    game_id = "muggins_dominoes_v0"
    cfg = tiny(game=game_id, env_options={**opts, "episode": "hand"}, features="derived",
               opponents={"random": 1.0, "heuristic": 1.0, "self": 1.0}, eval={"deals": 1, "opponents": ["heuristic"]})
    card = train(cfg, tmp_path / "run", progress_bar=False, log=lambda *a: None)
    game = make_game(game_id, {**opts, "episode": "hand"})
    model = MaskablePPO.load(str(tmp_path / "run" / "model.zip"), device="cpu")
    assert model.action_space.n == game.num_actions
    assert model.observation_space.shape == (game.observation_size + derived_features(game_id, game).size,)
    assert card["evaluation"][0]["games"] == opts["num_players"]


def test_short_run_with_derived_features_saves_resumes_and_loads_as_agent(tmp_path):
    from muggins_env.agents import make_game
    from muggins_env.agents.features import derived_features
    from muggins_env.train.trainer import train
    from sb3_contrib import MaskablePPO

    game_id, opts = "muggins_dominoes_v0", {"num_players": 2}
    cfg = tiny(game=game_id, env_options=opts, features="derived",
               opponents={"random": 1.0, "heuristic": 1.0, "self": 1.0})
    out = tmp_path / "run"
    card = train(cfg, out, progress_bar=False, log=lambda *a: None)
    game = make_game(game_id, opts)
    size = game.observation_size + derived_features(game_id, game).size
    assert card["config"]["features"] == "derived" and card["evaluation"][0]["games"] == 3 * 2
    model = MaskablePPO.load(str(out / "model.zip"), device="cpu")
    assert model.observation_space.shape == (size,)
    card2 = train(from_dict({**cfg, "budget": {"total_timesteps": 512, "n_envs": 4}}), out,
                  resume=out / "checkpoints" / "step_256.zip", progress_bar=False, evaluate_at_end=False,
                  log=lambda *a: None)
    assert card2["timesteps"] >= 512
    # the saved policy records its features: ppo:path rebuilds them from the view in info and
    # plays exactly what the SB3 model plays on the featured observation
    model = MaskablePPO.load(str(out / "model.zip"), device="cpu")
    agent = load_ppo_agent(out, game_id, opts)
    assert agent.needs_info and agent.policy.features == "derived"
    env = SeatEnv(game_id, opts, seed=2, features=derived_features(game_id, game))
    assert plays_as_model(model, agent, env, games=10) > 20


def test_training_run_follows_the_curriculum(tmp_path):
    from muggins_env.train.trainer import train
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    cfg = tiny(opponents={"random": 1.0, "heuristic": 0.0, "self": 0.0},
               curriculum={"steps": 256, "random": 0.0, "heuristic": 1.0, "self": 0.0},
               budget={"total_timesteps": 384, "n_envs": 4}, eval={"deals": 0, "opponents": ["random"]})
    train(cfg, tmp_path, progress_bar=False, log=lambda *a: None)
    ea = EventAccumulator(str(next((tmp_path / "tb").iterdir())))
    ea.Reload()
    heur = {e.step: e.value for e in ea.Scalars("curriculum/heuristic")}
    # rollouts of 4 envs x 32 steps start at 0, 128, 256: weights 0, 0.5, then 1 (held)
    assert heur == {128: 0.0, 256: 0.5, 384: 1.0}
    kinds = {t.split("/")[0] for t in ea.Tags()["scalars"] if t.startswith("vs_")}
    assert {"vs_random", "vs_heuristic"} <= kinds  # both kinds played along the way


def test_trained_policy_respects_masks(tmp_path):
    from muggins_env.train.trainer import train

    train(tiny(eval={"deals": 0, "opponents": ["random"]}), tmp_path, progress_bar=False, log=lambda *a: None)
    for deterministic in (True, False):
        agent = PPOAgent(NumpyPolicy.load(tmp_path / "model.npz"), deterministic=deterministic)
        env = SeatEnv(GAME, {"num_players": 4}, seed=1, skip_forced=False)
        rng = np.random.default_rng(1)
        env.reset()
        for _ in range(2000):
            mask = env.action_masks()
            a = agent.act(env.state.observation(env.learner), mask.astype(np.int8), rng)
            assert mask[a], (a, mask)
            _, _, term, trunc, _ = env.step(a)
            if term or trunc:
                env.reset()
    # probabilities put zero mass on illegal actions
    pol = NumpyPolicy.load(tmp_path / "model.npz")
    mask = np.zeros(13, np.int8)
    mask[[2, 7]] = 1
    p = pol.probabilities(np.full(pol.obs_size, 0.5, np.float32), mask)
    assert p.sum() == pytest.approx(1) and p[[0, 1, 3, 4, 5, 6, 8, 9, 10, 11, 12]].sum() == 0


def test_cli_trains_evaluates_and_resumes(tmp_path, capsys):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        "game: muggins_cards_v0\nenv_options: {num_players: 4}\n"
        "opponents: {random: 1, heuristic: 0, self: 0}\n"
        "ppo: {n_steps: 32, batch_size: 64, n_epochs: 1, net_arch: [16]}\n"
        "budget: {total_timesteps: 128, n_envs: 2, vec_env: dummy}\n"
        "checkpoint_every: 64\neval: {deals: 2, opponents: [random]}\n")
    out = tmp_path / "run"
    assert main(["--config", str(cfg), "--out", str(out), "--seed", "4", "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "mean return" in text and "random" in text and f"ppo:{out}" in text
    assert json.loads((out / "model_card.json").read_text())["seed"] == 4
    assert main(["--resume", str(out), "--timesteps", "192", "--eval-deals", "0", "--no-progress"]) == 0
    assert "resumed from" in capsys.readouterr().out
    assert main(["--game", GAME, "--preset", "nope", "--out", str(out)]) == 2
    assert "no preset 'nope'" in capsys.readouterr().err
    assert main([]) == 2


# -- imitation warm start ---------------------------------------------------------------------------
def test_pretrain_config_is_validated():
    with pytest.raises(ConfigError, match=r"pretrain.teacher='wizard' is not allowed; expected 'none' or an agent spec"):
        from_dict({"game": GAME, "pretrain": {"teacher": "wizard", "decisions": 10}})
    with pytest.raises(ConfigError, match=r"pretrain.decisions=0 is not allowed with pretrain.teacher='heuristic'"):
        from_dict({"game": GAME, "pretrain": {"teacher": "heuristic"}})
    with pytest.raises(ConfigError, match=r"pretrain.epochs=0 .*>= 1"):
        from_dict({"game": GAME, "pretrain": {"teacher": "heuristic", "decisions": 10, "epochs": 0}})
    assert from_dict({"game": GAME})["pretrain"]["teacher"] == "none"  # off unless asked


def test_demonstrations_are_the_teachers_legal_moves_with_their_discounted_outcome():
    """With reward=win and gamma=1 every decision's return is its game's outcome (2-player
    cribbage: +-1, same for every decision of an episode); with gamma<1 it shrinks by gamma
    per later decision of the same episode."""
    from muggins_env.train.pretrain import collect

    def cfg(gamma):
        return tiny(game="cribbage_v0", env_options={"num_players": 2, "reward": "win"}, features="derived",
                    opponents={"random": 1.0, "heuristic": 1.0, "self": 0.0},
                    ppo={"n_steps": 32, "batch_size": 64, "n_epochs": 1, "net_arch": [16], "gamma": gamma},
                    pretrain={"teacher": "heuristic", "decisions": 60})

    data = collect(cfg(1.0), 60, seed=3)
    n = len(data["actions"])
    assert n >= 60 and data["obs"].shape[0] == data["masks"].shape[0] == data["returns"].shape[0] == n
    assert all(data["masks"][i, a] for i, a in enumerate(data["actions"]))
    assert set(np.unique(data["returns"])) <= {-1.0, 1.0}
    again = collect(cfg(0.5), 60, seed=3)  # same seed: the same games
    assert np.array_equal(again["actions"], data["actions"])
    # the last decision of an episode carries the outcome undiscounted, the one before half of it
    ends = np.flatnonzero(np.abs(again["returns"]) == 1.0)
    assert len(ends) >= 1 and ends[-1] == n - 1
    assert np.isclose(again["returns"][n - 2], 0.5 * again["returns"][n - 1])


def test_imitation_moves_the_policy_to_the_teacher(tmp_path):
    """The warm start fits the policy to the heuristic's moves (far above what the untrained
    policy agrees on) and is recorded in the model card."""
    from muggins_env.train.trainer import train

    cfg = tiny(game="cribbage_v0", env_options={"num_players": 2}, features="derived",
               opponents={"random": 0.0, "heuristic": 1.0, "self": 0.0},
               ppo={"n_steps": 32, "batch_size": 64, "n_epochs": 1, "net_arch": [64]},
               budget={"total_timesteps": 128, "n_envs": 4},
               pretrain={"teacher": "heuristic", "decisions": 3000, "epochs": 8, "batch_size": 64},
               eval={"deals": 0, "opponents": ["random"]})
    card = train(cfg, tmp_path / "run", progress_bar=False, log=lambda *a: None)
    pre = card["pretrain"]
    assert pre["decisions"] >= 3000 and pre["teacher"] == "heuristic"
    assert pre["agreement_before"] < 0.5
    assert pre["agreement_after"] > pre["agreement_before"] + 0.3
    saved = json.loads((tmp_path / "run" / "model_card.json").read_text())
    assert saved["pretrain"] == pre


def test_the_progress_bar_total_is_the_number_of_steps_really_made(tmp_path, monkeypatch):
    from muggins_env.train.trainer import train
    from sb3_contrib import MaskablePPO

    asked = []
    learn = MaskablePPO.learn

    def spy(self, total_timesteps, *args, **kwargs):
        asked.append(total_timesteps)  # what the progress bar shows as its total
        return learn(self, total_timesteps, *args, **kwargs)

    monkeypatch.setattr(MaskablePPO, "learn", spy)
    # rollouts of 4 envs x 32 steps = 128: a budget of 200 makes 256 steps
    card = train(tiny(budget={"total_timesteps": 200, "n_envs": 4}, eval={"deals": 0, "opponents": ["random"]}),
                 tmp_path, progress_bar=False, log=lambda *a: None)
    assert asked == [256] and card["timesteps"] == 256
