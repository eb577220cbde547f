"""The house shows its floors (issue 30, item 9; issue 46, item 1): which folder may import which.

From the bottom: the core (``muggins_env/``: kernel, games, env, wrappers, records, extras),
``agents/`` (with the model zoo), ``play/`` (the session, the terminal and the browser, the
demo), ``eval/``, ``train/``. A module imports only from its own floor or one below, not even
lazily (an import inside a function counts the same), so no two folders import each other. The
one exception is named here: the core reaches the agents' factory by one lazy import
(``UPWARD``). Every import says where its code is: no relative import climbs out of its folder
of the checkout, and the folders that install as ``muggins_env.*`` import with absolute names.
No floor above the core reads the core's private names.
A game's declaration names the hooks of the floors above by import path; only those floors
resolve them. A game's rules report their moves to its observer (``games/<game>/observation.py``)
and name no piece of the observation (``OBSERVED``).
"""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from tests import ROOT

#: folder of the checkout -> installed package (setup.py ROOTS), bottom floor first
FLOORS = {"muggins_env": "muggins_env", "agents": "muggins_env.agents", "play": "muggins_env.play",
          "eval": "muggins_env.eval", "train": "muggins_env.train"}
RANK = {pkg: i for i, pkg in enumerate(FLOORS.values())}

#: the imports that name a floor above their own: (file, imported name) -> why
UPWARD = {("muggins_env/wrappers.py", "muggins_env.agents.factory.make_agent"):
          "SeatEnv(opponents='heuristic') builds its opponents by the agents' factory, lazily"}


def _module_name(path: Path) -> tuple[str, bool]:
    rel = path.relative_to(ROOT)
    parts = [{**FLOORS, "configs": "muggins_env.configs"}[rel.parts[0]], *rel.parts[1:]]
    is_pkg = parts[-1] == "__init__.py"
    parts = parts[:-1] if is_pkg else [*parts[:-1], parts[-1][:-3]]
    return ".".join(p for p in ".".join(parts).split(".") if p), is_pkg


def _imports(path: Path, relative_only: bool = False) -> list[tuple[int, str]]:
    """Every module ``path`` imports, at any depth of its code, as (line, absolute name)
    (``relative_only``: only the relative ones)."""
    name, is_pkg = _module_name(path)
    package = name if is_pkg else name.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import) and not relative_only:
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and (node.level or not relative_only):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            out += [(node.lineno, f"{target}.{a.name}") for a in node.names]  # a name may be a module
        elif (not relative_only and isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None))
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
    wrong, edges, used = [], set(), set()
    for path in _sources():
        rel = path.relative_to(ROOT).as_posix()
        own = _floor(_module_name(path)[0])
        for line, target in _imports(path):
            floor = _floor(target)
            if floor is None or floor == own or target == "muggins_env.configs" or target.startswith(
                    "muggins_env.configs."):
                continue
            edges.add((own, floor))
            if RANK[floor] > RANK[own]:
                if (rel, target) in UPWARD:
                    used.add((rel, target))
                else:
                    wrong.append(f"{rel}:{line} imports {target}")
    assert not wrong, "imports from a floor above:\n" + "\n".join(wrong)
    assert used == set(UPWARD), f"named upward imports no longer made: {set(UPWARD) - used}"
    # the arrows between floors, all pointing down (what docs/design.md's layout shows) but the named one
    above = {(a, b) for a, b in edges if RANK[b] > RANK[a]}
    assert above == {("muggins_env", "muggins_env.agents")}


def _folder_of(module: str) -> str | None:
    """The folder of the checkout that holds ``module`` (None: not this project's)."""
    roots = {**FLOORS, "configs": "muggins_env.configs"}  # configs/: data, no floor of its own
    for folder, pkg in sorted(roots.items(), key=lambda kv: len(kv[1]), reverse=True):
        if module == pkg or module.startswith(pkg + "."):
            return folder
    return None


def test_no_relative_import_climbs_out_of_its_folder():
    """``from ..games.cribbage import scoring`` in agents/ resolves only once installed (agents/ is
    muggins_env.agents): a reader and an editor would look for ``agents/../games``."""
    wrong = []
    for path in [*_sources(), *sorted((ROOT / "configs").rglob("*.py"))]:
        rel = path.relative_to(ROOT)
        for line, target in _imports(path, relative_only=True):
            if _folder_of(target) != rel.parts[0]:
                wrong.append(f"{rel.as_posix()}:{line} reaches {target} in {_folder_of(target)}/")
    assert not wrong, "relative imports out of their folder:\n" + "\n".join(wrong)


@pytest.mark.parametrize("folder", ["agents", "play", "train", "eval", "configs"])
def test_the_folders_installed_as_muggins_env_import_by_absolute_names(folder):
    relative = [f"{p.relative_to(ROOT).as_posix()}:{line} imports {target}"
                for p in sorted((ROOT / folder).rglob("*.py")) for line, target in _imports(p, relative_only=True)]
    assert not relative, "use the absolute muggins_env.… name:\n" + "\n".join(relative)


def _private_names_of_the_core() -> set[str]:
    """The core's private names: module-level ones, and the attributes and methods of its objects."""
    names = set()
    for path in sorted((ROOT / "muggins_env").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
                names.add(node.attr)
            elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):  # __slots__ entries
                names.add(node.value)
    return {n for n in names if n.startswith("_") and not n.startswith("__")}


def test_no_floor_above_the_core_reads_its_private_names():
    """``scoring._MULTISET4`` from agents/, ``aec._state`` from train/: a floor above uses what the
    core makes public, so that the core may change what is private to it."""
    private = _private_names_of_the_core()
    wrong = []
    for path in _sources():
        rel = path.relative_to(ROOT).as_posix()
        if _floor(_module_name(path)[0]) == "muggins_env":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and not node.level and _floor(node.module or "") == "muggins_env":
                wrong += [f"{rel}:{node.lineno} imports {node.module}.{a.name}" for a in node.names
                          if a.name.startswith("_")]
            elif (isinstance(node, ast.Attribute) and node.attr in private
                  and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))):
                wrong.append(f"{rel}:{node.lineno} reads {ast.unparse(node)}")
    assert not wrong, "reach-ins into the core:\n" + "\n".join(wrong)


def test_the_core_resolves_no_hook_of_a_floor_above():
    """A game's declaration names its heuristic, features and narrator by import path; only the
    floor that uses a hook resolves it (``load_hook``), so the core never imports upward by one."""
    calls = []
    for path in sorted((ROOT / "muggins_env").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "load_hook":
                calls.append(f"{path.relative_to(ROOT).as_posix()}:{node.lineno}")
    assert not calls, "the core resolves a hook of a floor above:\n" + "\n".join(calls)
    users = {p.relative_to(ROOT).as_posix() for folder in ("agents", "play") for p in (ROOT / folder).rglob("*.py")
             if "load_hook(" in p.read_text()}
    assert users == {"agents/factory.py", "agents/features.py", "play/tui/narrate.py"}


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
from muggins_env.games import declarations
from muggins_env.text_view import text_view
for name, decl in declarations().items():  # the declarations name hooks above, and import none of them
    muggins_env.make(name).reset(seed=0)
    text_view(decl.game().new_initial_state(seed=0), 0, [])
above = lambda *floors: sorted(m for m in sys.modules if m.split(".")[:2][-1] in floors and m.startswith("muggins_env."))
assert not above("agents", "play", "eval", "train"), above("agents", "play", "eval", "train")
from muggins_env.wrappers import SeatEnv
env = SeatEnv("cribbage_v0", opponents="heuristic", seed=1)  # a spec: the agents' factory, by its lazy import
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


def test_the_package_data_moved_with_the_code():
    zoo = importlib.resources.files("muggins_env.agents.zoo")
    assert zoo.joinpath("cribbage_v0", "default", "model.npz").is_file()
    static = importlib.resources.files("muggins_env.play.web").joinpath("static")
    assert static.joinpath("index.html").is_file() and static.joinpath("favicon.svg").is_file()
    assert not (ROOT / "muggins_env" / "web" / "static").exists() and not (ROOT / "muggins_env" / "zoo" / "cribbage_v0").exists()


def test_the_deprecated_aliases_of_old_paths_are_gone():
    for old in ("muggins_env/_moved.py", "muggins_env/session.py", "muggins_env/demo.py", "muggins_env/tui",
                "muggins_env/web", "muggins_env/zoo"):
        assert not (ROOT / old).exists(), old
    for old in ("muggins_env.session", "muggins_env.tui", "muggins_env.web.app", "muggins_env.zoo"):
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module(old)


def test_the_core_makes_spec_agents_by_the_agents_factory(monkeypatch):
    from muggins_env.agents import factory

    from muggins_env import wrappers

    made = []
    real = factory.make_agent
    monkeypatch.setattr(factory, "make_agent", lambda *a: made.append(a) or real(*a))
    agent = wrappers.make_spec_agent("heuristic", "cribbage_v0", {})
    assert made == [("heuristic", "cribbage_v0", {})]
    assert type(agent).__module__ == "muggins_env.agents.heuristic_cribbage"


#: the games whose observation is an observer beside the rules (``games/<module>/observation.py``;
#: issue 46, item 3): the module of the game in ``muggins_env.games.GAMES``
OBSERVED = ["cribbage", "dominoes", "michigan", "muggins_cards"]


def _state_class(tree: ast.Module) -> ast.ClassDef:
    """The rules module's State subclass: the rule functions."""
    (cls,) = [node for node in tree.body if isinstance(node, ast.ClassDef)
              and any(getattr(b, "id", None) == "State" for b in node.bases)]
    return cls


@pytest.mark.parametrize("module", OBSERVED)
def test_the_rules_report_moves_to_the_observer_and_name_no_observation_offset(module):
    from muggins_env.kernel.observer import Observer

    package = importlib.import_module(f"muggins_env.games.{module}")
    observation = importlib.import_module(f"muggins_env.games.{module}.observation")
    observer = package.DECLARATION.game.observer_cls
    assert issubclass(observer, Observer) and observer.__module__ == observation.__name__
    path = ROOT / "muggins_env" / "games" / module / "rules.py"
    tree = ast.parse(path.read_text(), str(path))
    assert not [target for _, target in _imports(path) if ".observation" in target], \
        "the rules import nothing of the observation module"
    state = _state_class(tree)
    methods = {node.name for node in state.body if isinstance(node, ast.FunctionDef)}
    assert "observation" not in methods, "the kernel's State.observation asks the observer"
    # what an observer keeps (its slots), and where an observation's pieces start
    kept = {name for cls in observer.__mro__ for name in getattr(cls, "__slots__", ())} - {"state"}
    offsets = {"offsets", "obs_at", "observation_layout", "observation_size"}
    reported = set()
    for node in ast.walk(state):
        if isinstance(node, ast.Attribute):
            assert node.attr not in kept | offsets, \
                f"{path.name}:{node.lineno} names {node.attr!r}, a piece of the observation"
            if isinstance(node.value, ast.Name) and node.value.id == "seen":
                reported.add(node.attr)
    assert reported, "the rules report their moves to state.seen"
    assert reported <= set(dir(observer)), f"{sorted(reported - set(dir(observer)))}: not the observer's"
