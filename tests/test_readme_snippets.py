"""Every ```python block of README.md runs as written (issue 30, item 5), each in a fresh namespace."""

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


def python_blocks(text: str) -> list[tuple[int, str]]:
    """(first line number, code) of every ```python block."""
    return [(text.count("\n", 0, m.start(1)) + 1, m.group(1)) for m in _BLOCK.finditer(text)]


def test_the_extraction_finds_the_blocks():
    text = "intro\n```python\nx = 1\n```\n```bash\nls\n```\n```python\ny = 2\nz = 3\n```\n"
    assert python_blocks(text) == [(3, "x = 1\n"), (9, "y = 2\nz = 3\n")]


BLOCKS = python_blocks(README.read_text(encoding="utf-8"))


def test_the_readme_has_python_snippets():
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize("line,code", BLOCKS, ids=[f"README.md:{line}" for line, _ in BLOCKS])
def test_readme_snippet_runs_as_written(line, code, capsys):
    exec(compile(code, f"README.md:{line}", "exec"), {"__name__": "__readme__"})  # noqa: S102 (the README's own code)
