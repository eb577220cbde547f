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
