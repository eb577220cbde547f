"""The documentation and the tools agree (issue 16; issue 33: README.md and the pages under docs/
together): the run folders the commands on any page read are the ones a command on some page or
`make demo` writes; the default `--out` is make demo's folder; the eval table's legend is explained
where the statistics are (docs/agents.md)."""

import re

import pytest

from tests import ROOT

DOCS = ROOT / "docs"
READMES = [ROOT / "README.md", ROOT / "configs" / "README.md",
           *sorted(p for p in DOCS.rglob("*.md") if "_build" not in p.relative_to(DOCS).parts)]


def make_demo():
    """(default GAME, the folder `make demo` writes) from the Makefile."""
    text = (ROOT / "Makefile").read_text()
    game = re.search(r"^GAME \?= (\S+)", text, re.MULTILINE).group(1)
    command = re.search(r"^demo:.*\n\t(.*)$", text, re.MULTILINE).group(1)
    return game, re.search(r"--out (\S+)", command).group(1).replace("$(GAME)", game)


def test_the_pages_checked_include_the_docs():
    names = {p.relative_to(ROOT).as_posix() for p in READMES}
    assert {"README.md", "docs/training.md", "docs/zoo.md", "docs/agents.md", "docs/getting-started.md"} <= names


def test_every_run_folder_the_readmes_read_is_one_a_command_writes():
    _, demo_out = make_demo()
    text = "\n".join(p.read_text() for p in READMES)
    written = set(re.findall(r"--out (runs/[^\s`\]]+)", text)) | {demo_out}
    read = re.findall(r"ppo:(runs/[^\s`]+)", text) + re.findall(r"--resume (runs/[^\s`]+)", text)
    assert read  # the docs do evaluate and resume runs
    for folder in read:
        parent, _, last = folder.rpartition("/")
        if re.fullmatch(r"round_\d+", last) and parent in written:
            continue  # an expert iteration run writes one folder per round
        assert folder in written, f"the docs read {folder}, which no command of README.md, docs/ or make demo writes"
    assert f"--out {demo_out}" in (ROOT / "README.md").read_text()  # the quick start's training command is make demo
    assert f"--out {demo_out}" in (DOCS / "training.md").read_text()  # and so is the training page's first one


def test_muggins_train_writes_to_the_folder_make_demo_names_by_default(monkeypatch, tmp_path, capsys):
    from muggins_env.train import cli, trainer

    game, demo_out = make_demo()
    used = []
    monkeypatch.setattr(trainer, "train", lambda cfg, out, **kw: used.append(out) or
                        {"timesteps": 0, "train_seconds": 0.0})
    monkeypatch.chdir(tmp_path)
    assert cli.main(["--game", game, "--preset", "quick", "--no-progress"]) == 0
    assert used == [demo_out]
    assert f"agent spec ppo:{demo_out}" in capsys.readouterr().out


def test_the_eval_table_legend_is_printed_under_the_table_and_explained_in_the_docs(capsys):
    pytest.importorskip("openskill")  # the [eval] extra
    from muggins_env.eval import format_table, print_table, run_tournament, summarise
    from muggins_env.eval.report import LEGEND

    summary = summarise(run_tournament("muggins_cards_v0", {"mistakes": True}, ["heuristic", "random"], 10,
                                       seed=0, workers=1, progress=False))
    lines = format_table(summary).splitlines()
    rows = lines[2:2 + len(summary["agents"])]
    assert lines[2 + len(summary["agents"])] == LEGEND
    for row, agent in zip(rows, summary["agents"]):
        assert ("*" in row.split("[")[0]) == agent["beats_parity"]
    assert any(a["beats_parity"] for a in summary["agents"])  # the mark is exercised
    print_table(summary)
    printed = capsys.readouterr().out
    assert LEGEND in printed and printed.index(LEGEND) < printed.index("head-to-head")
    statistics = (DOCS / "agents.md").read_text().split("## The statistics")[1]
    assert "`*`" in statistics and "`rating`" in statistics


def test_the_docs_name_only_extras_that_exist_and_no_registry_install():
    """README.md and the pages under docs/ (the install notes are on docs/getting-started.md)."""
    import re

    root = ROOT
    section = (root / "pyproject.toml").read_text().split("[project.optional-dependencies]")[1].split("\n[")[0]
    extras = set(re.findall(r"^(\w+) = \[", section, re.MULTILINE))
    assert {"eval", "train", "play", "web", "dev", "rllib"} <= extras
    pages = [root / "README.md", *sorted(p for p in (root / "docs").rglob("*.md") if "_build" not in p.parts)]
    text = "\n".join(p.read_text() for p in pages)
    named = {e for group in re.findall(r"""(?:muggins-env|\.)\[([\w,]+)\]""", text) for e in group.split(",")}
    assert named and named <= extras, named - extras
    assert "pip install muggins-env" not in text  # not on PyPI
    for page in (root / "README.md", root / "docs" / "getting-started.md"):
        assert "pip install ." in page.read_text() and "pip wheel" in page.read_text(), page
    assert "muggins-games/" in (root / ".gitignore").read_text().splitlines()
