"""``best:<config>``: the strongest shipped player of each zoo configuration (issue 31 item 6) is
one spec per configuration, guided by that configuration's network, listed by ``--list-agents``,
playing only legal moves and only the options its network was trained for."""

import numpy as np
import pytest
from muggins_env.agents import make_agent, make_game, parse_spec
from muggins_env.agents.search import SearchAgent
from muggins_env.agents.zoo import best_player, best_players, list_models, model_card
from muggins_env.eval.cli import main as eval_main
from muggins_env.eval.tournament import play_game

PLAYERS = best_players()


def _config(name):
    card = model_card(name)
    return card["game"], sorted((k, v) for k, v in card["game_options"].items() if k != "reward")


def test_every_zoo_configuration_has_one_best_player_and_no_other():
    """one record per configuration (game and options), named by the zoo model of that configuration
    (an older model of the same configuration, e.g. zoo:michigan_v0/full, has none of its own)"""
    assert set(PLAYERS) <= set(list_models())
    configs = [str(_config(n)) for n in PLAYERS]
    assert len(set(configs)) == len(configs) and set(configs) == {str(_config(n)) for n in list_models()}


@pytest.mark.parametrize("name", sorted(PLAYERS))
def test_a_best_player_is_its_networks_search_at_the_compared_searchs_budget(name):
    record = PLAYERS[name]
    kind, _, kwargs = parse_spec(record["spec"])
    ckind, cn, ckwargs = parse_spec(record["compared_with"])
    assert (kind, ckind) == ("search", "search") and ckwargs == {"budget": int(cn)}
    assert kwargs["budget"] == ckwargs["budget"]  # the same rollouts a move as the search it must beat
    policy = kwargs["policy"]  # a zoo network of this configuration (the one it was measured with)
    assert policy.startswith("zoo:") and _config(policy[4:]) == _config(name)
    assert kwargs["prior"] == "hybrid" and kwargs["rollout"] == "heuristic"


@pytest.mark.parametrize("name", sorted(PLAYERS))
def test_a_best_player_plays_only_legal_moves_on_its_configuration(name):
    card = model_card(name)
    game_id, options = card["game"], card["game_options"]
    agent = make_agent(f"best:{name}", game_id, options)
    assert isinstance(agent, SearchAgent) and agent.name == f"best:{name}"
    assert agent.prior == "hybrid" and agent.policy.name == parse_spec(PLAYERS[name]["spec"])[2]["policy"]
    agent.budget = 12  # the same agent on a small budget: a test, not an evaluation
    weighed = []

    class Checked:  # every move legal, every weighed candidate legal
        needs_info = needs_sampler = True

        def act(self, observation, action_mask, rng, info=None):
            action = agent.act(observation, action_mask, rng, info)
            assert action_mask[action] == 1, (name, action)
            assert set(agent.last_values) <= set(np.flatnonzero(action_mask))
            weighed.append(bool(agent.last_values))
            return action

    game = make_game(game_id, options)
    rngs = [np.random.default_rng(s) for s in range(game.num_players)]
    state, decisions, _ = play_game(game, [Checked()] * game.num_players, 5, rngs)  # check_legal on every move
    assert state.is_terminal() and decisions == len(weighed) > 0
    assert any(weighed)  # the search weighed candidates, not only forced moves


def test_best_refuses_options_its_network_was_not_trained_for_and_unknown_names():
    with pytest.raises(ValueError, match=r"zoo model 'cribbage_v0' was trained for cribbage_v0 .*num_players=4"):
        make_agent("best:cribbage_v0", "cribbage_v0", {"num_players": 4})
    with pytest.raises(ValueError, match=r"no best player 'cribbage_v0/nope'; available: best:cribbage_v0"):
        make_agent("best:cribbage_v0/nope", "cribbage_v0", {})
    with pytest.raises(ValueError, match="name the model, e.g. best:cribbage_v0"):
        parse_spec("best:")
    assert best_player("michigan_v0")["compared_with"] == "search:200"


def test_list_agents_names_every_best_player_with_its_spec(capsys):
    assert eval_main(["--list-agents"]) == 0
    out = capsys.readouterr().out
    for name, record in PLAYERS.items():
        assert f"best:{name}" in out and record["spec"] in out


def test_muggins_eval_infers_the_game_and_options_of_a_best_player(capsys):
    assert eval_main(["--agents", "best:michigan_v0", "heuristic", "--deals", "1", "--workers", "1",
                      "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "best:michigan_v0" in out and "michigan_v0" in out
