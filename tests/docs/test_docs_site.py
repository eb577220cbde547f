"""The documentation site (issue 33): it builds with warnings as errors, every page is reached by
its navigation in a real browser, no internal link is broken, every env has its page generated
from its docstring, and no file of the repository cites a rules reference that is not in it."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urldefrag, urlparse

import pytest

import muggins_env
from tests import ROOT

DOCS = ROOT / "docs"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
#: pages Sphinx makes by itself (no navigation entry leads to them)
GENERATED = {"genindex.html", "search.html"}


def _conf():
    spec = importlib.util.spec_from_file_location("docs_conf", DOCS / "conf.py")
    conf = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conf)
    return conf


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    pytest.importorskip("sphinx")
    pytest.importorskip("myst_parser")
    pytest.importorskip("furo")
    out = tmp_path_factory.mktemp("html")
    run = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", str(DOCS), str(out)],
                         capture_output=True, text=True, cwd=ROOT, check=False)
    assert run.returncode == 0, run.stdout + run.stderr  # a warning is an error
    return out


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        for key in ("href", "src"):
            if tag in ("a", "img", "link", "script") and a.get(key):
                self.hrefs.append(a[key])


def _parse(path: Path) -> _Links:
    p = _Links()
    p.feed(path.read_text(encoding="utf-8"))
    return p


def test_every_internal_link_and_anchor_of_the_site_resolves(site):
    pages = {p: _parse(p) for p in site.rglob("*.html")}
    broken = []
    for page, links in pages.items():
        for href in links.hrefs:
            url = urlparse(href)
            if url.scheme or href.startswith(("//", "mailto:")):
                continue  # external: not checked (the site has none it depends on)
            target, frag = urldefrag(href)
            target = urlparse(target).path  # without a ?v= cache key
            path = (page.parent / unquote(target)).resolve() if target else page
            if not path.exists():
                broken.append(f"{page.relative_to(site)} -> {href}")
            elif frag and path.suffix == ".html" and frag not in pages[path].ids:
                broken.append(f"{page.relative_to(site)} -> {href} (no such anchor)")
    assert not broken, broken


def test_every_env_and_every_game_has_its_page(site):
    for env_id in muggins_env.ENV_NAMES:
        html = (site / "envs" / f"{env_id}.html").read_text(encoding="utf-8")
        assert f"muggins_env/{env_id}.py" in html  # generated from that module's docstring
        assert "Options" in html and "Actions" in html and "Version history" in html
    for game in ("muggins_cards", "dominoes", "michigan", "cribbage"):
        html = (site / "rules" / f"{game}.html").read_text(encoding="utf-8")
        assert "Decisions where the sources leave a case open" in html and "Sources" in html
    for page in ("getting-started", "api", "agents", "training", "zoo", "play", "rllib", "openspiel", "records",
                 "benchmarks", "results", "design", "development"):
        assert (site / f"{page}.html").is_file(), page


def test_the_navigation_reaches_every_page_in_a_real_browser(site):
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed (apt-get install -y chromium)")
    want = {p.relative_to(site).as_posix() for p in site.rglob("*.html")} - GENERATED
    seen: set[str] = set()
    errors: list[str] = []
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        queue = ["index.html"]
        while queue:
            rel = queue.pop()
            if rel in seen:
                continue
            seen.add(rel)
            page.goto((site / rel).as_uri())
            assert page.title(), rel
            assert page.locator("article").count() >= 1, rel  # the theme drew the page
            # the navigation: the sidebar's tree and the previous/next links
            for href in page.eval_on_selector_all(".sidebar-tree a, .related-pages a", "els => els.map(e => e.href)"):
                url = urlparse(urldefrag(href)[0])
                if url.scheme == "file":
                    target = Path(unquote(url.path)).resolve()
                    if site in target.parents:
                        queue.append(target.relative_to(site).as_posix())
        browser.close()
    assert want <= seen, sorted(want - seen)
    assert not errors, errors


#: folders that are not the project's text (environments, caches, build output, local runs); the
#: checkout need not be a git repository (CI tests a plain copy), so the tree is walked
_NOT_PROJECT = {".git", ".venv", "__pycache__", ".pytest_cache", ".hypothesis", ".ruff_cache", "runs",
                "build", "dist", "muggins-games", "_build", "node_modules"}


def _project_files() -> list[str]:
    out = []
    for path in ROOT.rglob("*"):
        rel = path.relative_to(ROOT)
        if any(part in _NOT_PROJECT or part.endswith(".egg-info") for part in rel.parts[:-1]):
            continue
        if rel.parts[:2] == ("docs", "envs"):  # generated from the env docstrings
            continue
        if path.is_file():
            out.append(rel.as_posix())
    return out


def test_no_file_cites_a_rules_reference_outside_the_repository_and_every_citation_exists():
    files = _project_files()
    anchors = _conf().rules_anchors()
    cite = re.compile(r"docs/rules/(\w+)\.md §([0-9][0-9a-z.]*[0-9a-z])")
    outside, missing = [], []
    for f in files:
        path = ROOT / f
        if f == "tests/docs/test_docs_site.py" or not path.is_file() or path.suffix not in (
                ".py", ".md", ".yaml", ".js", ".html", ".toml", ".txt", ".json"):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if "RULES.md" in text or "DESIGN.md" in text:
            outside.append(f)
        for game, section in cite.findall(text):
            if "." in section and (game, section) not in anchors:
                missing.append(f"{f}: docs/rules/{game}.md §{section}")
    assert not outside, outside
    assert not missing, missing


def test_a_citation_in_an_env_docstring_becomes_a_link_to_its_section():
    conf = _conf()
    anchors = conf.rules_anchors()
    assert ("cribbage", "4.2c") in anchors and ("dominoes", "2.8") in anchors
    text = conf.link_citations("see docs/rules/cribbage.md §4.2c, and docs/rules/michigan.md §3", anchors)
    assert text == (f"see [rules §4.2c](../rules/cribbage.md#{anchors[('cribbage', '4.2c')]}), "
                    "and [rules §3](../rules/michigan.md)")
    with pytest.raises(ValueError, match=r"docs/rules/cribbage.md §9.9: the page has no such section"):
        conf.link_citations("docs/rules/cribbage.md §9.9", anchors)
