"""A command run without its extra says in one line which extra to install (issue 16)."""

import importlib.util

import pytest
from muggins_env.eval.cli import main as eval_main
from muggins_env.train.cli import main as train_main

from muggins_env import extras


@pytest.fixture
def without(monkeypatch):
    """Pretend the given modules are not installed."""

    def hide(*names):
        real = importlib.util.find_spec
        monkeypatch.setattr(extras.importlib.util, "find_spec",
                            lambda name, *a: None if name in names else real(name, *a))

    return hide


def test_muggins_eval_without_the_eval_extra_says_which_extra(without, capsys):
    without("openskill", "matplotlib")
    code = eval_main(["--game", "michigan_v0", "--agents", "heuristic", "random", "--deals", "1"])
    err = capsys.readouterr().err.strip()
    assert code == 1
    assert err == ("muggins-eval: error: this command needs the [eval] extra (missing: matplotlib, openskill); "
                   "install it with: pip install 'muggins-env[eval]'")


def test_muggins_eval_with_a_ppo_agent_needs_the_train_extra(without, capsys):
    without("torch", "sb3_contrib")
    code = eval_main(["--game", "michigan_v0", "--agents", "ppo:runs/x", "random", "--deals", "1"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(err) == 1
    assert err[0].startswith("muggins-eval: error: a ppo: agent needs the [train] extra (missing: torch, sb3_contrib); "
                             "install it with: pip install 'muggins-env[train]'")


def test_muggins_train_without_the_train_extra_says_which_extra(without, capsys):
    without("torch")
    assert train_main(["--list"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [("muggins-train: error: this command needs the [train] extra (missing: torch); "
                   "install it with: pip install 'muggins-env[train]'")]


def test_extra_modules_are_import_names_installed_by_the_extras():  # CI installs [train,dev]
    assert extras.missing_modules("eval") == [] and extras.missing_modules("train") == []


def test_extra_of_names_the_extra_that_installs_a_module():
    assert extras.extra_of("pyspiel") == "openspiel" and extras.extra_of("ray.rllib.algorithms") == "rllib"
    assert extras.extra_of("llama_cpp") == "llm" and extras.extra_of("rich") == "play"
    assert extras.extra_of("numpy") is None and extras.extra_of("") is None


def test_a_missing_extra_is_one_line_of_one_form_exit_1_everywhere(monkeypatch, capsys, tmp_path):
    import importlib.util
    import sys

    from muggins_env.eval.cli import main as eval_main
    from muggins_env.play.tui import play as play_cli
    from muggins_env.play.tui import replay as replay_cli
    from muggins_env.play.web.cli import main as serve_main
    from muggins_env.train.cli import main as train_main

    from muggins_env import extras

    real = importlib.util.find_spec
    hidden = {"ray", "rich", "openskill", "uvicorn"}
    monkeypatch.setattr(extras.importlib.util, "find_spec", lambda name, *a: None if name in hidden else real(name, *a))
    form = r"^muggins-(\w+): error: .+ needs the \[(\w+)\] extra \(missing: .+\); install it with: pip install 'muggins-env\[\2\]'$"
    import re

    runs = {
        "train": lambda: train_main(["--backend", "rllib", "--game", "michigan_v0", "--out", "/nonexistent/x"]),
        "eval": lambda: eval_main(["--game", "michigan_v0", "--agents", "heuristic", "random", "--deals", "1"]),
        "play": lambda: play_cli.main(["--game", "michigan_v0"]),
        "replay": lambda: replay_cli.main([str(record)]),
        "serve": lambda: serve_main([]),
    }
    from muggins_env.play.session import GameSession

    session = GameSession("michigan_v0", ["heuristic"] * 4, seed=1)
    list(session.advance())
    record = session.record.save(tmp_path / "game.json")
    for prog, run in runs.items():
        assert run() == 1, prog
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and re.match(form, err[0]), (prog, err)
        assert err[0].startswith(f"muggins-{prog}: error: ")
    # rich importable but broken: the same line, not a traceback
    hidden.clear()
    monkeypatch.setitem(sys.modules, "rich.console", None)
    assert play_cli.main(["--game", "michigan_v0"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("muggins-play: error: this command needs the [play] extra")
