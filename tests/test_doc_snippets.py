"""Every ```python block of README.md and of the documentation pages (docs/**/*.md) runs as
written (issue 30, item 5; issue 33), each in a fresh namespace."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


def doc_files() -> list[Path]:
    """README.md, then every Markdown page under docs/ (not the build output)."""
    pages = sorted(p for p in (ROOT / "docs").rglob("*.md") if "_build" not in p.relative_to(ROOT / "docs").parts)
    return [README, *pages]


def python_blocks(text: str) -> list[tuple[int, str]]:
    """(first line number, code) of every ```python block."""
    return [(text.count("\n", 0, m.start(1)) + 1, m.group(1)) for m in _BLOCK.finditer(text)]


def test_the_extraction_finds_the_blocks():
    text = "intro\n```python\nx = 1\n```\n```bash\nls\n```\n```python\ny = 2\nz = 3\n```\n"
    assert python_blocks(text) == [(3, "x = 1\n"), (9, "y = 2\nz = 3\n")]


BLOCKS = [(path.relative_to(ROOT).as_posix(), line, code)
          for path in doc_files() for line, code in python_blocks(path.read_text(encoding="utf-8"))]


def test_the_readme_and_the_docs_have_python_snippets():
    assert len([b for b in BLOCKS if b[0] == "README.md"]) >= 1
    assert len([b for b in BLOCKS if b[0].startswith("docs/")]) >= 2
    assert (ROOT / "docs" / "api.md") in doc_files()


@pytest.mark.parametrize("where,line,code", BLOCKS, ids=[f"{where}:{line}" for where, line, _ in BLOCKS])
def test_doc_snippet_runs_as_written(where, line, code, capsys):
    exec(compile(code, f"{where}:{line}", "exec"), {"__name__": "__doc_snippet__"})  # noqa: S102 (the docs' own code)
