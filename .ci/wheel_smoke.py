"""Smoke test of the built wheel, run by .ci/run in a fresh venv holding only the base install
(``pip install dist/*.whl``: no torch, no extras). Not a pytest file: it must import the
installed package, never the checkout, so run it from outside the repository:

    python .ci/wheel_smoke.py

Checks: the package imports from site-packages; every env plays a whole game raw and wrapped,
through PettingZoo's and Gymnasium's registries, and with the heuristic agent; the package data
(training presets, the zoo models, the position values, the web pages) is there; every console command of the
distribution either works with the base install or stops with one line naming the extra to
install (exit 1, no traceback).
A new console command needs an entry in COMMANDS (the check fails until it has one).
"""

from __future__ import annotations

import importlib.metadata
import importlib.resources
import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np

#: console command -> (arguments of a short run, the extra it needs or None for the base install)
COMMANDS = {
    "muggins-demo": (["--game", "michigan_v0", "--seed", "1"], None),
    "muggins-eval": (["--game", "michigan_v0", "--agents", "heuristic", "random", "--deals", "1"], "eval"),
    "muggins-train": (["--list"], "train"),
    "muggins-play": (["--game", "michigan_v0", "--humans", "0", "--opponents", "heuristic"], "play"),
    "muggins-replay": (["--auto", "RECORD"], None),
    "muggins-serve": (["--port", "0"], "web"),  # RECORD: a game record this script saves first
}
#: ``python -m`` forms of the commands
MODULES = {"muggins_env.play.demo": "muggins-demo", "muggins_env.eval": "muggins-eval",
           "muggins_env.train": "muggins-train"}
DIST = "muggins-env"


def check(condition: bool, message: str) -> None:
    if not condition:
        raise SystemExit(f"wheel smoke test FAILED: {message}")


def play_to_the_end(env, rng: np.random.Generator, choose=None) -> int:
    steps = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            action = None
        elif choose is not None:
            action = choose(agent, obs)
        else:
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
        steps += 1
    return steps


def check_installed() -> None:
    import muggins_env

    where = Path(muggins_env.__file__).resolve()
    check("site-packages" in where.parts, f"muggins_env imported from {where}, not from the installed wheel")
    check(importlib.util.find_spec("torch") is None, "torch is installed: this must be the base install")
    print(f"muggins_env {muggins_env.__version__} from {where.parent}")


def check_envs() -> None:
    import gymnasium
    import pettingzoo
    from muggins_env.agents import make_agent

    import muggins_env

    for name in muggins_env.ENV_NAMES:
        rng = np.random.default_rng(0)
        for env in (muggins_env.make(name, raw=True), muggins_env.make(name),
                    pettingzoo.make("aec", f"muggins_env/{name}")):
            env.reset(seed=1)
            steps = play_to_the_end(env, rng)
            check(steps > 0 and not env.agents, f"{name}: a random game did not end")
        env = muggins_env.make(name, raw=True, readable_infos=True)  # the heuristic reads the view
        env.reset(seed=2)
        agents = {a: make_agent("heuristic", name, {}) for a in env.possible_agents}
        play_to_the_end(env, rng, lambda a, obs, e=env, ag=agents, r=rng: ag[a].act(
            obs["observation"], obs["action_mask"], r, e.infos[a]["view"]))
        check(env.kernel_state.is_terminal(), f"{name}: a heuristic game did not end")
        seat = gymnasium.make(f"muggins_env/{name}-seat", opponents="heuristic")
        _, info = seat.reset(seed=3)
        done = False
        while not done:
            mask = seat.unwrapped.action_masks()
            _, _, term, trunc, info = seat.step(int(rng.choice(np.flatnonzero(mask))))
            done = term or trunc
        check("returns" in info, f"{name}: the seat env episode did not end")
        print(f"{name}: raw, wrapped, PettingZoo registry, heuristic and gymnasium seat env play to the end")


def check_package_data() -> None:
    import muggins_env

    configs = importlib.resources.files("muggins_env.configs")
    for name in muggins_env.ENV_NAMES:
        for preset in ("quick", "full"):
            check(configs.joinpath(name, f"{preset}.yaml").is_file(), f"preset {name}/{preset}.yaml not in the wheel")
    from muggins_env.agents.zoo import list_models, load_zoo_agent, model_card

    models = list_models()
    check(len(models) >= len(muggins_env.ENV_NAMES), f"zoo models in the wheel: {models}")
    for name in models:
        card = model_card(name)
        load_zoo_agent(name, name.split("/")[0], card["game_options"])
    static = importlib.resources.files("muggins_env.play.web").joinpath("static")
    for page in ("index.html", "table.html", "table.js", "create.js", "style.css", "favicon.svg"):
        check(static.joinpath(page).is_file(), f"web page {page} not in the wheel")
    from muggins_env.agents.position_values import PLAYERS, TARGETS, dealer_table, dominoes_table

    for n in PLAYERS:
        for target in TARGETS:
            for muggins in (True, False):
                check(dealer_table(n, target, muggins).shape == (target, target), "cribbage position values")
        check(abs(float(dominoes_table(n)[0, 0]) - 0.5) < 1e-6, "dominoes position values")
    print(f"package data: every training preset, the zoo ({len(models)} models, each loads), the position "
          "values and the web pages are in the wheel")


def run(argv: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(argv, capture_output=True, text=True, timeout=600, check=False)


def save_record() -> str:
    """A finished game between heuristics, saved as a game record for muggins-replay."""
    import tempfile

    from muggins_env.play.session import GameSession

    session = GameSession("michigan_v0", ["heuristic"] * 4, seed=3)
    for _ in session.advance():
        pass
    check(session.is_over, "a session of heuristics did not finish")
    return str(session.record.save(Path(tempfile.mkdtemp()) / "game.json"))


def check_commands() -> None:
    record = save_record()
    scripts = {ep.name for ep in importlib.metadata.distribution(DIST).entry_points
               if ep.group == "console_scripts"}
    check(scripts == set(COMMANDS), f"console commands {sorted(scripts)} but COMMANDS in .ci/wheel_smoke.py "
                                    f"lists {sorted(COMMANDS)}: add the new command there")
    bin_dir = Path(sys.executable).parent
    forms = [([str(bin_dir / name)], name) for name in COMMANDS]
    forms += [([sys.executable, "-m", module], name) for module, name in MODULES.items()]
    for prefix, name in forms:
        args, extra = COMMANDS[name]
        args = [record if a == "RECORD" else a for a in args]
        shown = " ".join([Path(prefix[0]).name, *prefix[1:], *args])
        helped = run([*prefix, "--help"])
        check(helped.returncode == 0 and "usage" in helped.stdout, f"`{shown} --help` failed:\n{helped.stderr}")
        done = run([*prefix, *args])
        err = done.stderr.strip()
        check("Traceback" not in done.stderr, f"`{shown}` crashed:\n{done.stderr}")
        if extra is None:
            check(done.returncode == 0, f"`{shown}` exited {done.returncode}:\n{err}")
            print(f"{shown}: works with the base install")
        else:
            hint = f"pip install 'muggins-env[{extra}]'"
            check(done.returncode == 1 and len(err.splitlines()) == 1 and hint in err,
                  f"`{shown}` without [{extra}] should exit 1 with one line naming {hint}; "
                  f"it exited {done.returncode} with:\n{err}")
            print(f"{shown}: needs [{extra}] and says so: {err}")


def main() -> None:
    check_installed()
    check_envs()
    check_package_data()
    check_commands()
    print("wheel smoke test passed")


if __name__ == "__main__":
    main()
