"""Issue 47 item 5 on the zoo cards: every configuration's network says which strongest player it is
measured against, how much of that player's margin over the heuristic it keeps, and the gap to half
of it where it falls short (``teaching``, written by benchmarks/zoo_teaching.py)."""

import pytest
from muggins_env.agents import parse_spec
from muggins_env.agents.zoo import best_players, model_card

CONFIGS = sorted(best_players())


@pytest.mark.parametrize("name", CONFIGS)
def test_each_configurations_network_states_the_strongest_players_margin_and_its_gap(name):
    t = model_card(name).get("teaching")
    assert t is not None, f"zoo:{name} has no teaching block"
    parity, strong, net = t["parity"], t["strongest_vs_heuristic"], t["network_vs_heuristic"]
    assert parity in (0.5, 0.25)
    lo, hi = t["strongest_ci95"]
    assert lo <= strong <= hi and t["strongest_deals"] > 0 and t["strongest"]
    lo, hi = t["network_ci95"]
    assert lo <= net <= hi and t["network_deals"] > 0
    assert t["goal"] == pytest.approx(parity + (strong - parity) / 2, abs=1e-4)
    assert t["gap"] == pytest.approx(max(0.0, t["goal"] - net), abs=1e-4)
    assert t["reached"] == (net >= t["goal"] - 1e-9)
    assert ("goal reached" in t["summary"]) == t["reached"] and t["taught_by"]


def test_the_dominoes_network_keeps_half_the_strongest_players_margin():
    t = model_card("muggins_dominoes_v0")["teaching"]
    assert t["reached"] and t["network_vs_heuristic"] - 0.5 >= (t["strongest_vs_heuristic"] - 0.5) / 2
    assert t["strongest"].startswith("search:95,policy=heuristic:value=net")


def test_a_network_measured_by_its_own_cards_evaluation_states_that_figure():
    """The teaching block's figure for the network is the card's own evaluation where both name the
    same deals (seed and size), e.g. Michigan's network taught by the search (addendum 22)."""
    checked = []
    for name in CONFIGS:
        card = model_card(name)
        t, ev = card["teaching"], card["evaluation"]
        if f"seed {ev.get('seed')}" not in t["network_source"] or t["network_deals"] != ev.get("deals"):
            continue
        own = next(a for a in ev["agents"] if a["spec"].startswith(("ppo:", "zoo:")))
        assert t["network_vs_heuristic"] == pytest.approx(own["win_rate"], abs=5e-4), name
        assert t["network_ci95"] == pytest.approx(own["win_rate_dup_ci95"], abs=5e-4), name
        checked.append(name)
    assert "michigan_v0" in checked


def test_michigans_network_is_taught_by_the_search_and_keeps_half_its_margin():
    card = model_card("michigan_v0")
    assert card["preset"] == "taught" and card["pretrain"]["teacher"] == "search:190,worlds=inferred,alloc=halving,z=0.5"
    assert card["teaching"]["reached"] and card["evaluation"]["deals"] == 4000
    assert "--lineup single" in card["regenerate"]  # the seating its evaluation was played in
    assert model_card("michigan_v0/exit")["note"].startswith("zoo:michigan_v0 until")


def test_four_player_cribbages_network_is_taught_by_the_race_and_best_keeps_the_network_it_measured():
    card = model_card("cribbage_v0/4p")
    assert card["preset"] == "scorer_hinted_4p_taught"
    assert card["pretrain"]["teacher"] == "search:180,value=table,alloc=race"
    assert card["game_options"]["num_players"] == 4 and card["game_options"]["muggins"] is True
    assert model_card("cribbage_v0/4p_search200")["pretrain"]["teacher"] == "search:200"
    _, _, kwargs = parse_spec(best_players()["cribbage_v0/4p"]["spec"])
    assert kwargs["policy"] == "zoo:cribbage_v0/4p_search200"


def test_card_muggins_network_is_taught_by_k_and_best_keeps_the_network_it_measured():
    from muggins_env.agents import parse_spec

    card = model_card("muggins_cards_v0/mistakes")
    assert card["preset"] == "scorer_hinted_k" and card["features"] == "hinted"
    assert card["pretrain"]["teacher"] == "search:20,horizon=1000"
    assert card["game_options"]["mistakes"] is True and card["game_options"]["num_players"] == 4
    assert card["evaluation"]["deals"] == 16000 and card["evaluation"]["seed"] == 58004
    old = model_card("muggins_cards_v0/mistakes_ppo")
    assert old["preset"] == "scorer" and old["note"].startswith("zoo:muggins_cards_v0/mistakes until")
    assert "teaching" not in old  # item 5's block belongs to the configuration's current network
    _, _, kwargs = parse_spec(best_players()["muggins_cards_v0/mistakes"]["spec"])
    assert kwargs["policy"] == "zoo:muggins_cards_v0/mistakes_ppo"
