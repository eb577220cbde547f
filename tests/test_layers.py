"""The house shows its floors (issue 30, item 9): which folder may import which.

From the bottom: the core (``muggins_env/``: kernel, games, env, wrappers, records, extras),
``agents/`` (with the model zoo), ``play/`` (the session, the terminal and the browser, the
demo), ``eval/``, ``train/``. A module imports only from its own floor or one below, not even
lazily (an import inside a function counts the same), so no two folders import each other.
The deprecated aliases of the old paths (``muggins_env/_moved.py`` and the two-line modules
that call it) are the one exception: they name the new module only to be replaced by it.
The old paths still import, warn, and give the very same objects.
"""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: folder of the checkout -> installed package (setup.py ROOTS), bottom floor first
FLOORS = {"muggins_env": "muggins_env", "agents": "muggins_env.agents", "play": "muggins_env.play",
          "eval": "muggins_env.eval", "train": "muggins_env.train"}
RANK = {pkg: i for i, pkg in enumerate(FLOORS.values())}

#: old path -> new path (issue 30): deprecated aliases
MOVED_MODULES = {
    "muggins_env.session": "muggins_env.play.session",
    "muggins_env.demo": "muggins_env.play.demo",
    "muggins_env.zoo": "muggins_env.agents.zoo",
    **{f"muggins_env.tui.{m}": f"muggins_env.play.tui.{m}" for m in ("narrate", "play", "replay", "text")},
    **{f"muggins_env.web.{m}": f"muggins_env.play.web.{m}"
       for m in ("app", "cli", "guard", "limits", "players", "storage", "tables", "thinkers")},
}
MOVED_PACKAGES = {"muggins_env.tui": "muggins_env.play.tui", "muggins_env.web": "muggins_env.play.web"}
ALIAS_FILES = {"muggins_env/_moved.py"} | {
    "/".join(old.split(".")) + ("/__init__.py" if old in MOVED_PACKAGES or old == "muggins_env.zoo" else ".py")
    for old in (*MOVED_MODULES, *MOVED_PACKAGES)}


def _module_name(path: Path) -> tuple[str, bool]:
    rel = path.relative_to(ROOT)
    parts = [FLOORS[rel.parts[0]], *rel.parts[1:]]
    is_pkg = parts[-1] == "__init__.py"
    parts = parts[:-1] if is_pkg else [*parts[:-1], parts[-1][:-3]]
    return ".".join(p for p in ".".join(parts).split(".") if p), is_pkg


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every module ``path`` imports, at any depth of its code, as (line, absolute name)."""
    name, is_pkg = _module_name(path)
    package = name if is_pkg else name.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            out += [(node.lineno, f"{target}.{a.name}") for a in node.names]  # a name may be a module
        elif (isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None))
              == "import_module" and node.args and isinstance(node.args[0], ast.Constant)):
            out.append((node.lineno, str(node.args[0].value)))
    return out


def _floor(module: str) -> str | None:
    """The package of the floor ``module`` belongs to (None: not this project's)."""
    if module != "muggins_env" and not module.startswith("muggins_env."):
        return None
    for pkg in sorted(FLOORS.values(), key=len, reverse=True):
        if module == pkg or module.startswith(pkg + "."):
            return pkg
    return None


def _sources() -> list[Path]:
    return [p for folder in FLOORS for p in sorted((ROOT / folder).rglob("*.py"))
            if "__pycache__" not in p.parts]


def test_no_floor_imports_one_above_it():
    wrong, edges = [], set()
    for path in _sources():
        rel = path.relative_to(ROOT).as_posix()
        own = _floor(_module_name(path)[0])
        for line, target in _imports(path):
            floor = _floor(target)
            if floor is None or floor == own or target == "muggins_env.configs" or target.startswith(
                    "muggins_env.configs."):
                continue
            edges.add((own, floor))
            if RANK[floor] > RANK[own] and rel not in ALIAS_FILES:
                wrong.append(f"{rel}:{line} imports {target}")
    assert not wrong, "imports from a floor above:\n" + "\n".join(wrong)
    # the arrows between floors, all pointing down (what docs/design.md's layout shows)
    above = {(a, b) for a, b in edges if RANK[b] > RANK[a]}
    assert above <= {("muggins_env", "muggins_env.agents"), ("muggins_env", "muggins_env.play")}  # the aliases


def test_no_import_cycle_between_modules_of_the_agents():
    """ppo.py and scorer.py imported each other; what both need is in policy.py now."""
    graph: dict[str, set[str]] = {}
    for path in sorted((ROOT / "agents").rglob("*.py")):
        name, _ = _module_name(path)
        graph[name] = set()
        for _, target in _imports(path):
            for t in (target, target.rpartition(".")[0]):  # `from .x import y`: module x (or y)
                if t.startswith("muggins_env.agents.") and t != name:
                    graph[name].add(t)
    graph = {m: {t for t in ts if t in graph} for m, ts in graph.items()}
    plain = {m: ts for m, ts in graph.items() if not m.endswith(".__init__") and m != "muggins_env.agents"}

    def cycle_from(start: str) -> list[str] | None:
        stack = [(start, [start])]
        while stack:
            node, trail = stack.pop()
            for nxt in plain.get(node, ()):
                if nxt == start:
                    return [*trail, nxt]
                if nxt not in trail and nxt in plain:
                    stack.append((nxt, [*trail, nxt]))
        return None

    assert "muggins_env.agents.scorer" not in plain["muggins_env.agents.policy"]
    assert "muggins_env.agents.ppo" not in plain["muggins_env.agents.scorer"]
    cycles = [c for m in plain if (c := cycle_from(m))]
    assert not cycles, f"import cycles between modules of agents/: {cycles}"


def test_the_core_and_the_agents_load_nothing_above_them():
    code = """
import sys
import muggins_env, muggins_env.env, muggins_env.wrappers, muggins_env.records, muggins_env.extras
for name in muggins_env.ENV_NAMES:
    muggins_env.make(name).reset(seed=0)
above = lambda *floors: sorted(m for m in sys.modules if m.split(".")[:2][-1] in floors and m.startswith("muggins_env."))
assert not above("agents", "play", "eval", "train"), above("agents", "play", "eval", "train")
from muggins_env.wrappers import SeatEnv
env = SeatEnv("cribbage_v0", opponents="heuristic", seed=1)  # a spec: the agents' factory, by entry point
env.reset(seed=1)
import muggins_env.agents, muggins_env.agents.zoo, muggins_env.agents.ppo, muggins_env.agents.search
muggins_env.agents.make_agent("zoo:cribbage_v0", "cribbage_v0", {"num_players": 2})
assert not above("play", "eval", "train"), above("play", "eval", "train")
import muggins_env.play.session, muggins_env.play.demo, muggins_env.play.tui.play, muggins_env.play.web.tables
assert not above("eval", "train"), above("eval", "train")
print("ok")
"""
    done = subprocess.run([sys.executable, "-W", "error::DeprecationWarning", "-c", code], check=False, capture_output=True,
                          text=True, timeout=120, cwd=ROOT / "tests")
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def _public(module) -> list[str]:
    return [a for a in vars(module) if not a.startswith("__")]


@pytest.mark.parametrize("old", sorted(MOVED_MODULES))
def test_an_old_module_path_warns_and_is_the_new_module(old):
    new = importlib.import_module(MOVED_MODULES[old])
    sys.modules.pop(old, None)  # as on a first import
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        module = importlib.import_module(old)
    moved = [w for w in seen if issubclass(w.category, DeprecationWarning) and old in str(w.message)]
    assert moved and MOVED_MODULES[old] in str(moved[0].message)
    assert module is new and sys.modules[old] is new
    parent, _, child = old.rpartition(".")
    assert getattr(sys.modules[parent], child) is new
    assert all(getattr(module, a) is getattr(new, a) for a in _public(new))


@pytest.mark.parametrize("old", sorted(MOVED_PACKAGES))
def test_an_old_package_path_warns_and_hands_out_the_new_objects(old):
    new = importlib.import_module(MOVED_PACKAGES[old])
    for name in [m for m in sys.modules if m == old or m.startswith(old + ".")]:
        sys.modules.pop(name)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        package = importlib.import_module(old)
        first = next(m for m in MOVED_MODULES if m.startswith(old + "."))
        submodule = importlib.import_module(first)
    messages = [str(w.message) for w in seen if issubclass(w.category, DeprecationWarning)]
    assert any(old in m and MOVED_PACKAGES[old] in m for m in messages)
    assert any(first in m for m in messages)
    assert submodule is importlib.import_module(MOVED_MODULES[first])
    assert getattr(package, first.rpartition(".")[2]) is submodule
    assert all(getattr(package, a) is getattr(new, a) for a in _public(new))


def test_the_old_names_used_in_code_give_the_same_objects():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from muggins_env.play.session import GameSession
        from muggins_env.play.web.app import create_app
        from muggins_env.play.web.tables import Table

        from muggins_env.session import GameSession as OldSession
        from muggins_env.web.app import create_app as old_create_app
        from muggins_env.web.tables import Table as OldTable
        from muggins_env.zoo import list_models
    assert OldSession is GameSession and old_create_app is create_app and OldTable is Table
    assert list_models() and "cribbage_v0" in list_models()


@pytest.mark.parametrize("module", ["muggins_env.demo", "muggins_env.web.cli", "muggins_env.tui.play",
                                    "muggins_env.tui.replay"])
def test_python_dash_m_of_an_old_path_still_runs_the_command(module):
    done = subprocess.run([sys.executable, "-m", module, "--help"], check=False, capture_output=True, text=True, timeout=120,
                          cwd=ROOT / "tests")
    new = MOVED_MODULES[module]
    assert done.returncode == 0 and done.stdout.startswith("usage: muggins-"), done.stderr
    assert "DeprecationWarning" in done.stderr and new in done.stderr and "Traceback" not in done.stderr


def test_the_package_data_moved_with_the_code():
    zoo = importlib.resources.files("muggins_env.agents.zoo")
    assert zoo.joinpath("cribbage_v0", "default", "model.npz").is_file()
    static = importlib.resources.files("muggins_env.play.web").joinpath("static")
    assert static.joinpath("index.html").is_file() and static.joinpath("favicon.svg").is_file()
    assert not (ROOT / "muggins_env" / "web" / "static").exists() and not (ROOT / "muggins_env" / "zoo" / "cribbage_v0").exists()


def test_the_core_finds_the_agents_factory_by_entry_point():
    from muggins_env import agents, wrappers

    wrappers.agent_factory.cache_clear()
    assert wrappers.agent_factory() is agents.make_agent
    assert type(wrappers.make_spec_agent("heuristic", "cribbage_v0", {})).__module__.startswith("muggins_env.agents.")
