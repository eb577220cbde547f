"""Every ```python block of README.md and of the documentation pages (docs/**/*.md) runs as
written (issue 30, item 5; issue 33), each in a fresh namespace; and every ```bash block marked
by a ``% doc-test`` line (a MyST comment, invisible in the site) runs its commands, with the
marker's ``A => B`` substitutions (``;``-separated) making a slow command small, in a scratch
folder with the package's console scripts on the PATH. A ```python block right after a
``% needs [extra]: module ...`` line (a MyST comment) needs an optional extra: it skips, naming
the extra, when one of those modules is missing (CI installs every extra, so there it runs)."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


_NEEDS = re.compile(r"^% needs \[(?P<extra>[\w,-]+)\]:(?P<modules>[ \w.]+)\n```python\n", re.MULTILINE)
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


def block_needs(text: str) -> dict[int, tuple[str, list[str]]]:
    """First code line of each ```python block marked ``% needs [extra]: modules`` -> (extra, modules)."""
    return {text.count("\n", 0, m.end()) + 1: (m.group("extra"), m.group("modules").split())
            for m in _NEEDS.finditer(text)}


def test_the_needs_marker_names_the_extra_and_the_modules_of_the_next_block():
    text = "intro\n% needs [interop]: torchrl tensordict\n```python\nx = 1\n```\n```python\ny = 2\n```\n"
    assert python_blocks(text) == [(4, "x = 1\n"), (7, "y = 2\n")]
    assert block_needs(text) == {4: ("interop", ["torchrl", "tensordict"])}


def test_the_extraction_finds_the_blocks():
    text = "intro\n```python\nx = 1\n```\n```bash\nls\n```\n```python\ny = 2\nz = 3\n```\n"
    assert python_blocks(text) == [(3, "x = 1\n"), (9, "y = 2\nz = 3\n")]


def test_the_shell_extraction_applies_the_markers_substitutions():
    text = ("% doc-test: --deals 200 => --deals 1 ; xq => yz\n```bash\nmuggins-eval --deals 200 \\\n    xq  # note\n"
            "# a comment\n```\n```bash\nnot marked\n```\n")
    assert shell_commands(text) == [(3, "muggins-eval --deals 1 yz")]


BLOCKS = [(path.relative_to(ROOT).as_posix(), line, code)
          for path in doc_files() for line, code in python_blocks(path.read_text(encoding="utf-8"))]
NEEDS = {(path.relative_to(ROOT).as_posix(), line): need
         for path in doc_files() for line, need in block_needs(path.read_text(encoding="utf-8")).items()}


def test_the_readme_and_the_docs_have_python_snippets():
    assert len([b for b in BLOCKS if b[0] == "README.md"]) >= 1
    assert len([b for b in BLOCKS if b[0].startswith("docs/")]) >= 2
    assert (ROOT / "docs" / "api.md") in doc_files()


@pytest.mark.parametrize("where,line,code", BLOCKS, ids=[f"{where}:{line}" for where, line, _ in BLOCKS])
def test_doc_snippet_runs_as_written(where, line, code, capsys):
    extra, modules = NEEDS.get((where, line), (None, []))
    for module in modules:
        pytest.importorskip(module, reason=f"the [{extra}] extra is not installed (pip install -e '.[{extra}]')")
    exec(compile(code, f"{where}:{line}", "exec"), {"__name__": "__doc_snippet__"})  # noqa: S102 (the docs' own code)


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
