"""Every ```python block of README.md and of the documentation pages (docs/**/*.md) runs as
written (issue 30, item 5; issue 33), each in a fresh namespace; and every ```bash block marked
by a ``% doc-test`` line (a MyST comment, invisible in the site) runs its commands, with the
marker's ``A => B`` substitutions (``;``-separated) making a slow command small, in a scratch
folder with the package's console scripts on the PATH. A ```python block of an optional
extra's feature skips, naming the extra, when a module of that extra is missing (``make test``
installs none of them; CI installs every one, so there it runs); any other missing module fails."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from muggins_env.extras import extra_of
from tests import ROOT

README = ROOT / "README.md"
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


_SHELL = re.compile(r"^% doc-test(?::(?P<subs>[^\n]*))?\n```bash\n(?P<code>.*?)^```", re.MULTILINE | re.DOTALL)


def doc_files() -> list[Path]:
    """README.md, then every Markdown page under docs/ (not the build output, nor the env pages
    ``make docs`` generates from the env docstrings)."""
    pages = sorted(p for p in (ROOT / "docs").rglob("*.md")
                   if not {"_build", "envs"} & set(p.relative_to(ROOT / "docs").parts))
    return [README, *pages]


def shell_commands(text: str) -> list[tuple[int, str]]:
    """(line number, command) of every command of every marked ```bash block, continuation lines
    joined, comments dropped, the marker's substitutions applied."""
    out = []
    for m in _SHELL.finditer(text):
        subs = [tuple(x.strip() for x in pair.split("=>")) for pair in (m.group("subs") or "").split(";") if "=>" in pair]
        code = m.group("code").replace("\\\n", " ")
        first = text.count("\n", 0, m.start("code")) + 1
        for k, line in enumerate(code.splitlines()):
            cmd = line.split(" #", 1)[0].strip()
            if not cmd or cmd.startswith("#"):
                continue
            for a, b in subs:
                cmd = cmd.replace(a, b)
            out.append((first + k, re.sub(r"\s+", " ", cmd)))
    return out


def python_blocks(text: str) -> list[tuple[int, str]]:
    """(first line number, code) of every ```python block."""
    return [(text.count("\n", 0, m.start(1)) + 1, m.group(1)) for m in _BLOCK.finditer(text)]


def test_the_extraction_finds_the_blocks():
    text = "intro\n```python\nx = 1\n```\n```bash\nls\n```\n```python\ny = 2\nz = 3\n```\n"
    assert python_blocks(text) == [(3, "x = 1\n"), (9, "y = 2\nz = 3\n")]


def test_the_shell_extraction_applies_the_markers_substitutions():
    text = ("% doc-test: --deals 200 => --deals 1 ; xq => yz\n```bash\nmuggins-eval --deals 200 \\\n    xq  # note\n"
            "# a comment\n```\n```bash\nnot marked\n```\n")
    assert shell_commands(text) == [(3, "muggins-eval --deals 1 yz")]


BLOCKS = [(path.relative_to(ROOT).as_posix(), line, code)
          for path in doc_files() for line, code in python_blocks(path.read_text(encoding="utf-8"))]


def test_the_readme_and_the_docs_have_python_snippets():
    assert len([b for b in BLOCKS if b[0] == "README.md"]) >= 1
    assert len([b for b in BLOCKS if b[0].startswith("docs/")]) >= 2
    assert (ROOT / "docs" / "api.md") in doc_files()


@pytest.mark.parametrize("where,line,code", BLOCKS, ids=[f"{where}:{line}" for where, line, _ in BLOCKS])
def test_doc_snippet_runs_as_written(where, line, code, capsys):
    try:
        exec(compile(code, f"{where}:{line}", "exec"), {"__name__": "__doc_snippet__"})  # noqa: S102 (the docs' own code)
    except ModuleNotFoundError as e:
        # a snippet of an optional extra's feature (make test installs none of them; CI installs
        # every one and runs it): skipped, naming the extra, only when an extra's module is missing
        extra = extra_of(e.name or "")
        if extra is None:
            raise
        pytest.skip(f"{where}:{line} needs the [{extra}] extra ({e.name} is not installed)")


COMMANDS = [(path.relative_to(ROOT).as_posix(), line, cmd)
            for path in doc_files() for line, cmd in shell_commands(path.read_text(encoding="utf-8"))]


def test_the_docs_mark_shell_commands_to_run():
    assert {where for where, _, _ in COMMANDS} >= {"docs/zoo.md", "docs/agents.md"}


@pytest.mark.parametrize("where,line,cmd", COMMANDS, ids=[f"{where}:{line}" for where, line, _ in COMMANDS])
def test_doc_command_runs(where, line, cmd, tmp_path):
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    run = subprocess.run(["bash", "-c", cmd], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600,
                         check=False)
    assert run.returncode == 0, f"{where}:{line}: {cmd}\n{run.stdout[-2000:]}\n{run.stderr[-2000:]}"


def test_a_snippet_of_a_missing_extra_skips_naming_it_and_any_other_missing_module_fails(monkeypatch):
    openspiel = next(b for b in BLOCKS if b[0] == "docs/openspiel.md")
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # import pyspiel fails as without [openspiel]
    with pytest.raises(pytest.skip.Exception, match=r"needs the \[openspiel\] extra \(pyspiel is not installed\)"):
        test_doc_snippet_runs_as_written(*openspiel, capsys=None)
    with pytest.raises(ModuleNotFoundError, match="no_such_module"):
        test_doc_snippet_runs_as_written("docs/x.md", 1, "import no_such_module\n", capsys=None)
