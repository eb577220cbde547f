"""Zoo and best: specs and the game options they play: standard cribbage (``muggins=False``) has
its own networks and best: players; a spec asked for options it does not play names the spec of
its kind that does; muggins-eval, muggins-play and muggins-serve offer the standard players on
standard tables and only there."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from muggins_env.agents import make_agent, parse_spec
from muggins_env.agents.search import SearchAgent
from muggins_env.agents.zoo import best_players, fitting_models, list_models, model_card

#: the zoo configurations of cribbage: (zoo name, options that select it)
CRIBBAGE = [
    ("cribbage_v0", {}),
    ("cribbage_v0/4p", {"num_players": 4}),
    ("cribbage_v0/standard", {"muggins": False}),
    ("cribbage_v0/standard_4p", {"num_players": 4, "muggins": False}),
]


@pytest.mark.parametrize(("name", "options"), CRIBBAGE[2:])
def test_standard_cribbage_has_a_network_and_a_best_player_whose_card_names_its_options(name, options):
    card = model_card(name)
    assert card["game"] == "cribbage_v0" and card["game_options"]["muggins"] is False
    assert card["game_options"]["num_players"] == options.get("num_players", 2)
    assert "muggins=False" in card["game_options_text"] and "muggins=False" in card["summary"]
    assert "--opt muggins=False" in card["regenerate"] and "zoo_export" in card["regenerate"]
    assert card["evaluation"]["options"]["muggins"] is False and card["evaluation"]["deals"] >= 2000
    record = best_players()[name]
    kind, _, kwargs = parse_spec(record["spec"])
    assert (kind, record["compared_with"]) == ("search", "search:400")
    # the network it was measured with: this one, or this one's earlier network kept under a name of its own
    assert kwargs["policy"] in (f"zoo:{name}", f"zoo:{name}_clone") and kwargs["policy"][4:] in fitting_models(
        "cribbage_v0", options)


@pytest.mark.parametrize(("name", "options"), CRIBBAGE)
def test_each_cribbage_configuration_has_its_own_network_first_and_besides_only_those_it_replaced(name, options):
    fits = fitting_models("cribbage_v0", options)
    assert fits[0] == name and fitting_models("cribbage_v0", {**options, "reward": "points"}) == fits  # reward changes no game
    # besides it only a network it replaced, kept loadable (its card says so)
    assert all(model_card(m)["note"].startswith(f"zoo:{name} until") for m in fits[1:])


@pytest.mark.parametrize(("name", "options"), CRIBBAGE)
@pytest.mark.parametrize("kind", ["zoo", "best"])
def test_a_spec_for_other_options_names_the_one_that_fits(kind, name, options):
    for other, other_options in CRIBBAGE:
        if other == name:
            continue
        with pytest.raises(ValueError, match=rf"not these options: .*; use {kind}:{other}$"):
            make_agent(f"{kind}:{name}", "cribbage_v0", other_options)


@pytest.mark.parametrize("kind", ["zoo", "best"])
def test_options_no_model_plays_are_refused_saying_so(kind):
    with pytest.raises(ValueError, match=rf"target=61 \(trained: 121\); no {kind}: spec plays these options"):
        make_agent(f"{kind}:cribbage_v0/standard", "cribbage_v0", {"muggins": False, "target": 61})
    with pytest.raises(ValueError, match=r"plays cribbage_v0, not michigan_v0; .*michigan_v0"):
        make_agent(f"{kind}:cribbage_v0/standard", "michigan_v0", {})


def test_a_best_player_is_built_on_its_own_options():
    agent = make_agent("best:cribbage_v0/standard", "cribbage_v0", {"muggins": False})
    assert isinstance(agent, SearchAgent) and agent.name == "best:cribbage_v0/standard"
    # the record keeps the network it was measured with, the clone that was zoo:cribbage_v0/standard then
    assert agent.policy.name == "zoo:cribbage_v0/standard_clone" and agent.budget == 400


def test_muggins_eval_takes_the_standard_options_from_the_card(tmp_path):
    """no --game or --opt: the zoo card's muggins=False is the game played, with torch unimportable"""
    code = ("import sys; sys.modules['torch'] = None; sys.modules['stable_baselines3'] = None; "
            "from muggins_env.eval.cli import main; "
            "raise SystemExit(main(['--agents', 'zoo:cribbage_v0/standard', 'heuristic', '--deals', '1', "
            f"'--workers', '1', '--no-progress', '--no-plot', '--out', {str(tmp_path)!r}]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    summary = json.loads((tmp_path / "results.json").read_text())["summary"]
    assert summary["options"]["muggins"] is False and summary["games"] == 2


# -- muggins-play ------------------------------------------------------------------------------

ENV = dict(os.environ, NO_COLOR="1", COLUMNS="120", LINES="50", TERM="xterm")


def _play(*args: str):
    """muggins-play in a pseudo-terminal (skipped without pexpect or the [play] extra's rich)"""
    pexpect = pytest.importorskip("pexpect")
    pytest.importorskip("rich")
    return pexpect.spawn(sys.executable, ["-m", "muggins_env.play.tui.play", "--game", "cribbage_v0", "--seed", "7",
                                          "--delay", "0", *args], env=ENV, encoding="utf-8", timeout=60,
                         dimensions=(50, 120))


def _exit_status(child) -> int:
    import pexpect

    child.expect(pexpect.EOF)
    child.close()
    return child.exitstatus


@pytest.mark.parametrize("spec", ["zoo:cribbage_v0/standard", "best:cribbage_v0/standard"])
def test_muggins_play_seats_the_standard_players_on_a_standard_table(spec, tmp_path):
    child = _play("--opt", "muggins=false", "--opponents", spec, "--save", str(tmp_path / "g.json"))
    child.expect(r"player 0> ")
    child.sendline("quit")
    assert _exit_status(child) == 0
    assert json.loads((tmp_path / "g.json").read_text())["seats"] == ["human", spec]


def test_muggins_play_names_the_network_that_fits_the_table():
    child = _play("--opt", "muggins=false", "--opponents", "zoo:cribbage_v0")
    child.expect(r"muggins-play: error: .*use zoo:cribbage_v0/standard")
    assert _exit_status(child) == 2


# -- muggins-serve -----------------------------------------------------------------------------


def test_muggins_serve_offers_the_standard_players_with_their_options():
    pytest.importorskip("starlette")
    from muggins_env.play.web.players import Roster
    from muggins_env.play.web.tables import games_catalog

    players = {p["name"]: p for p in games_catalog(Roster())["cribbage_v0"]["players"]}
    for name in list_models():
        if name.startswith("cribbage_v0"):
            for spec in [f"zoo:{name}"] + ([f"best:{name}"] if name in best_players() else []):
                assert players[spec]["options"]["muggins"] is model_card(name)["game_options"]["muggins"]
    assert "muggins off" in players["zoo:cribbage_v0/standard"]["doc"]
    assert "muggins" not in players["zoo:cribbage_v0"]["doc"]  # on by default: not named
    assert "options" not in players["heuristic"] and "options" not in players["search:400"]


def test_muggins_serve_seats_a_standard_player_only_on_a_standard_table():
    pytest.importorskip("starlette")
    from muggins_env.play.web.players import Roster

    roster = Roster()
    agent = roster.make("best:cribbage_v0/standard", "cribbage_v0", {"muggins": False})
    assert isinstance(agent, SearchAgent) and agent.name == "best:cribbage_v0/standard"
    assert roster.make("zoo:cribbage_v0/standard_4p", "cribbage_v0", {"num_players": 4, "muggins": False})
    with pytest.raises(ValueError, match="use best:cribbage_v0/standard$"):
        roster.make("best:cribbage_v0", "cribbage_v0", {"muggins": False})
    with pytest.raises(ValueError, match="use zoo:cribbage_v0$"):
        roster.make("zoo:cribbage_v0/standard", "cribbage_v0", {})


@pytest.mark.parametrize(("preset", "n", "name", "teacher"), [
    ("standard", 2, "cribbage_v0/standard_clone", "heuristic"),
    ("standard_4p", 4, "cribbage_v0/standard_4p_clone", "heuristic"),
    ("standard_taught", 2, "cribbage_v0/standard", "search:220,value=table,alloc=race"),
    ("standard_4p_taught", 4, "cribbage_v0/standard_4p", "search:180,value=table,alloc=race"),
])
def test_the_standard_presets_train_standard_cribbage_as_their_zoo_models_were(preset, n, name, teacher):
    from muggins_env.train.config import load_config

    cfg = load_config(game="cribbage_v0", preset=preset)
    assert cfg["env_options"]["muggins"] is False and cfg["env_options"]["num_players"] == n
    card = model_card(name)
    assert card["preset"] == preset and card["config"]["env_options"] == cfg["env_options"]
    assert card["features"] == cfg["features"] == "hinted"
    assert card["pretrain"]["teacher"] == cfg["pretrain"]["teacher"] == teacher
