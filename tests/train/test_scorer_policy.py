"""The ``action_scorer`` policy: its numpy export computes what the torch network computes, it
never picks a masked action, and a short run trains, saves, resumes and loads as an agent."""

import numpy as np
import pytest
import torch
from muggins_env.agents import make_game
from muggins_env.agents.features import action_features, make_features
from muggins_env.agents.ppo import load_npz, load_ppo_agent, policy_from_sb3
from muggins_env.agents.scorer import ScorerPolicy
from muggins_env.train.config import from_dict
from muggins_env.train.scorer_policy import ActionScorerPolicy

from muggins_env.wrappers import SeatEnv
from tests.conformance import plays_as_model

CASES = [("cribbage_v0", {"num_players": 2}, "derived"), ("cribbage_v0", {"num_players": 4}, "none"),
         ("muggins_dominoes_v0", {"num_players": 2}, "derived"),
         ("muggins_cards_v0", {"num_players": 4, "mistakes": True}, "derived"), ("michigan_v0", {}, "none"),
         ("cribbage_v0", {"num_players": 4}, "hinted"), ("michigan_v0", {}, "hinted"),
         ("muggins_cards_v0", {"num_players": 4, "mistakes": True}, "extended")]


def _policy(game_id, opts, features, seed=0, hidden=8):
    from gymnasium import spaces

    game = make_game(game_id, opts)
    extra = make_features(features, game_id, game)
    size = game.observation_size + (extra.size if extra is not None else 0)
    af = action_features(game_id, game, features)
    torch.manual_seed(seed)
    policy = ActionScorerPolicy(spaces.Box(0, 1, (size,), np.float32), spaces.Discrete(game.num_actions),
                                lambda _: 1e-3, net_arch=[32, 16], action_index=af.index,
                                action_static=af.static, action_hidden=hidden)
    with torch.no_grad():  # weights of ordinary size everywhere (the output layers start tiny)
        for p in policy.parameters():
            p.add_(torch.randn_like(p) * 0.3)
    return policy, size, game.num_actions


@pytest.mark.parametrize(("game_id", "opts", "features"), CASES)
@pytest.mark.parametrize("hidden", [8, 0])
def test_numpy_export_equals_the_torch_network(game_id, opts, features, hidden, tmp_path):
    policy, size, n = _policy(game_id, opts, features, hidden=hidden)
    exported = policy_from_sb3(policy)
    assert isinstance(exported, ScorerPolicy)
    exported.save(tmp_path / "p.npz")
    loaded = load_npz(tmp_path / "p.npz")
    rng = np.random.default_rng(1)
    x = rng.random((64, size)).astype(np.float32)
    masks = rng.random((64, n)) < 0.3
    masks[:, 0] = True
    with torch.no_grad():
        logits = policy.mlp_extractor.forward_actor(torch.as_tensor(x)).numpy()
        probs = policy.get_distribution(torch.as_tensor(x), action_masks=masks).distribution.probs.numpy()
    assert logits.shape == (64, n) and np.ptp(logits, axis=1).min() > 1e-3  # not a constant network
    for p in (exported, loaded):
        np.testing.assert_allclose(p.logits(x), logits, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(p.probabilities(x, masks), probs, rtol=1e-4, atol=1e-6)
        for i in range(8):  # one decision at a time, scoring only the legal actions
            legal = np.flatnonzero(masks[i])
            assert p.act(x[i], masks[i]) == legal[np.argmax(logits[i, legal])]


def test_only_legal_actions_are_ever_chosen_or_given_probability():
    policy, size, n = _policy("cribbage_v0", {"num_players": 2}, "derived", seed=3)
    p = policy_from_sb3(policy)
    rng = np.random.default_rng(2)
    for _ in range(200):
        x = rng.random(size).astype(np.float32)
        mask = np.zeros(n, np.int8)
        mask[rng.choice(n, size=rng.integers(1, 6), replace=False)] = 1
        probs = p.probabilities(x, mask)
        assert probs[mask == 0].max(initial=0) == 0 and abs(probs.sum() - 1) < 1e-9
        assert mask[p.act(x, mask)] == 1
        assert mask[p.act(x, mask, rng, deterministic=False)] == 1


def test_action_features_read_the_per_action_blocks():
    game_id, opts = "cribbage_v0", {"num_players": 2}
    game = make_game(game_id, opts)
    af = action_features(game_id, game, "derived")
    from muggins_env.agents.features import CribbageFeatures

    x = np.zeros(game.observation_size + CribbageFeatures.size, np.float32)
    base = game.observation_size
    x[base + CribbageFeatures.DEAL_VALUE + 7] = 0.8  # the deal value of laying away card 7
    x[base + 12] = 1.0  # the true count under review is 12
    f = af(x)
    assert f[7, 5] == pytest.approx(0.8) and f[:52, 5].sum() == pytest.approx(0.8)
    from muggins_env.games.cribbage.rules import ANNOUNCE

    assert f[ANNOUNCE + 12, 6] == 1.0 and f[ANNOUNCE:ANNOUNCE + 30, 6].sum() == 1.0
    with pytest.raises(ValueError, match="unknown env 'nope'; known envs: muggins_cards_v0, cribbage_v0"):
        action_features("nope", game, "derived")


def tiny_scorer(**over):
    cfg = {
        "game": "cribbage_v0", "env_options": {"num_players": 2}, "features": "derived",
        "opponents": {"random": 1.0, "heuristic": 0.0, "self": 1.0},
        "self_play": {"snapshot_every": 128, "window": 2},
        "ppo": {"n_steps": 32, "batch_size": 64, "n_epochs": 1, "net_arch": [16], "policy": "action_scorer",
                "action_hidden": 8},
        "budget": {"total_timesteps": 256, "n_envs": 4},
        "checkpoint_every": 128,
        "eval": {"deals": 2, "opponents": ["random"]},
        "pretrain": {"teacher": "heuristic", "decisions": 100, "epochs": 1},
    }
    cfg.update(over)
    return from_dict(cfg)


def test_short_scorer_run_saves_resumes_and_loads_as_agent(tmp_path):
    from muggins_env.train.trainer import train
    from sb3_contrib import MaskablePPO

    out = tmp_path / "run"
    card = train(tiny_scorer(), out, progress_bar=False, log=lambda *a: None)
    assert card["timesteps"] >= 256 and card["pretrain"]["decisions"] >= 100
    assert str(np.load(out / "model.npz")["kind"]) == "action_scorer"
    assert len(list((out / "snapshots").glob("*.npz"))) >= 2
    card2 = train(tiny_scorer(budget={"total_timesteps": 512, "n_envs": 4}), out,
                  resume=out / "checkpoints" / "step_256.zip", progress_bar=False, evaluate_at_end=False,
                  log=lambda *a: None)
    assert card2["timesteps"] >= 512
    model = MaskablePPO.load(str(out / "model.zip"), device="cpu")
    assert isinstance(model.policy, ActionScorerPolicy)
    agent = load_ppo_agent(out, "cribbage_v0", {"num_players": 2})
    assert isinstance(agent.policy, ScorerPolicy)
    game = make_game("cribbage_v0", {"num_players": 2})
    env = SeatEnv("cribbage_v0", {"num_players": 2}, seed=4, features=make_features("derived", "cribbage_v0", game))
    assert plays_as_model(model, agent, env, games=2) > 20


class _LastLegal:
    """An actor that always plays the highest legal action (announces 29, overcounts...)."""

    def act(self, obs, mask, rng=None, deterministic=True):
        return int(np.flatnonzero(mask)[-1])


def test_dagger_rounds_label_the_clones_own_positions_with_the_teachers_moves(tmp_path):
    from muggins_env.train.pretrain import collect
    from muggins_env.train.trainer import train

    from muggins_env.games.cribbage.rules import ANNOUNCE

    cfg = tiny_scorer(opponents={"random": 0.0, "heuristic": 1.0, "self": 0.0})
    teacher_played = collect(cfg, 150, seed=7)
    own = collect(cfg, 150, seed=7, actor=_LastLegal())
    assert not np.array_equal(own["actions"][:40], teacher_played["actions"][:40]) or \
        not np.array_equal(own["obs"][:40], teacher_played["obs"][:40])
    assert all(own["masks"][i, a] for i, a in enumerate(own["actions"]))
    base = make_game("cribbage_v0", {"num_players": 2}).observation_size
    announcing = own["masks"][:, ANNOUNCE:ANNOUNCE + 30].all(axis=1)
    assert announcing.sum() >= 3
    for i in np.flatnonzero(announcing):  # the label is the true count, whatever the actor announced
        assert own["actions"][i] == ANNOUNCE + int(np.argmax(own["obs"][i, base:base + 30]))
    card = train(tiny_scorer(pretrain={"teacher": "heuristic", "decisions": 100, "epochs": 1, "rounds": 2},
                             eval={"deals": 0, "opponents": ["random"]}),
                 tmp_path / "run", progress_bar=False, log=lambda *a: None)
    pre = card["pretrain"]
    assert pre["rounds"] == 2 and len(pre["agreement_on_own_play"]) == 1 and pre["decisions"] >= 200


def test_card_muggins_common_piles_differ_by_the_rank_they_cover():
    """Two fitting common piles (tops 5 and 7, a 6 in play) must not look alike to the scorer:
    each placement carries the rank it covers, read from the real observation."""
    from muggins_env.agents.features import MugginsCardsFeatures

    from muggins_env import muggins_cards_v0
    from muggins_env.kernel.cards import parse_card, rank_of

    commons = [parse_card("5♣"), parse_card("7♦")]
    six = parse_card("6♥")
    rest = [c for c in range(52) if c not in commons and c != six]
    stocks = [[six] + rest[:12], rest[12:25], rest[25:37], rest[37:49]]
    env = muggins_cards_v0.raw_env(num_players=4, mistakes=True, readable_infos=True)  # the features read the view
    env.reset(seed=0, options={"deal": {"dealer": 3, "stocks": stocks, "commons": commons}})
    agent = env.agent_selection
    obs = env.observe(agent)
    assert obs["action_mask"][0] and obs["action_mask"][1]
    game = env.game
    extra = MugginsCardsFeatures(game)
    x = np.concatenate([obs["observation"], extra(env.infos[agent]["view"], obs["action_mask"])])
    f = action_features("muggins_cards_v0", game, "derived")(x)
    assert f[0, 2 + rank_of(commons[0])] == 1.0 and f[0, 3:16].sum() == 1.0  # pile 0 covers the 5 (rank_of: A = 1)
    assert f[1, 2 + rank_of(commons[1])] == 1.0 and f[1, 3:16].sum() == 1.0  # pile 1 covers the 7
    assert rank_of(commons[1]) - rank_of(commons[0]) == 2
    assert f[0, 0] == f[1, 0] == 1.0  # both are correct placements
    assert f[10, 3:16].sum() == 0.0  # the own discard covers no common rank
