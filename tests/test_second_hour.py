"""Issue 30, "the second hour": what a newcomer hits after the quick start (items 3-8)."""

import hashlib
import json

import pytest

GAME = "muggins_cards_v0"


# -- 3. --resume never destroys a finished model; a non-empty --out needs --overwrite ------------------
def _config(tmp_path, eval_deals=0):
    cfg = tmp_path / "c.yaml"
    # rollouts of 2 envs x 32 steps: the run ends at 128 steps, its checkpoints are at 96 (and 192, ...)
    cfg.write_text(
        f"game: {GAME}\nenv_options: {{num_players: 4}}\n"
        "opponents: {random: 1, heuristic: 0, self: 0}\n"
        "ppo: {n_steps: 32, batch_size: 64, n_epochs: 1, net_arch: [16]}\n"
        "budget: {total_timesteps: 128, n_envs: 2, vec_env: dummy}\n"
        f"checkpoint_every: 96\neval: {{deals: {eval_deals}, opponents: [random]}}\n")
    return cfg


def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _tb_steps(out):
    """{folder: {tag: [steps]}} of the run's TensorBoard logs."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    runs = {}
    for folder in sorted((out / "tb").iterdir()):
        files = []
        for path in folder.glob("events.out.tfevents.*"):
            ea = EventAccumulator(str(path))
            ea.Reload()
            files.append(ea)
        # in the order the runs wrote them: TensorBoard reads a folder's files by name, and the writer's
        # per-process counter at the end of the name is not zero-padded ('.10' before '.9' in one second)
        files.sort(key=lambda ea: min((e.wall_time for t in ea.Tags()["scalars"] for e in ea.Scalars(t)),
                                      default=0.0))
        tags: dict[str, list[int]] = {}
        for ea in files:
            for t in ea.Tags()["scalars"]:
                tags.setdefault(t, []).extend(e.step for e in ea.Scalars(t))
        runs[folder.name] = tags
    return runs


def _no_step_twice(runs):
    for folder, tags in runs.items():
        for tag, steps in tags.items():
            assert steps == sorted(set(steps)), (folder, tag, steps)


def test_resume_of_a_finished_run_needs_a_larger_budget_and_starts_from_its_final_model(tmp_path, capsys):
    from muggins_env.train.cli import main

    out = tmp_path / "run"
    assert main(["--config", str(_config(tmp_path)), "--out", str(out), "--no-progress"]) == 0
    capsys.readouterr()
    assert sorted(p.name for p in (out / "checkpoints").glob("*.zip")) == ["step_96.zip"]
    final = _digest(out / "model.zip")
    # without --timesteps (the config's 128 = the run's own steps), or with one not above: refused
    for extra in ([], ["--timesteps", "128"], ["--timesteps", "100"]):
        assert main(["--resume", str(out), "--no-progress", *extra]) == 2, extra
        err = capsys.readouterr().err
        assert "finished run of 128 steps" in err and "give --timesteps larger than 128" in err, err
        assert _digest(out / "model.zip") == final
    # an earlier checkpoint resumed into the run itself would replace the finished model: refused
    assert main(["--resume", str(out / "checkpoints" / "step_96.zip"), "--timesteps", "256", "--no-progress"]) == 2
    assert "holds a finished model of 128 steps" in capsys.readouterr().err
    assert _digest(out / "model.zip") == final
    # a larger budget continues from the final model (step 128), not from the checkpoint at 96
    assert main(["--resume", str(out), "--timesteps", "192", "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert f"resumed from {out / 'model.zip'} at 128 steps" in text, text
    assert json.loads((out / "model_card.json").read_text())["timesteps"] == 192
    runs = _tb_steps(out)
    _no_step_twice(runs)
    assert len(runs) == 1  # the learning curve goes on in the same folder: 64, 128, then 192
    assert next(iter(runs.values()))["time/fps"] == [64, 128, 192], runs


def test_resume_of_an_unfinished_run_logs_no_step_twice_in_one_tensorboard_folder(tmp_path, capsys):
    from muggins_env.train.cli import main

    out = tmp_path / "run"
    assert main(["--config", str(_config(tmp_path)), "--out", str(out), "--no-progress"]) == 0
    for f in ("model.zip", "model.npz", "model_card.json"):  # as if it had stopped after step 128
        (out / f).unlink()
    capsys.readouterr()
    assert main(["--resume", str(out), "--no-progress"]) == 0  # from its latest checkpoint, step 96
    assert f"resumed from {out / 'checkpoints' / 'step_96.zip'} at 96 steps" in capsys.readouterr().out
    runs = _tb_steps(out)
    _no_step_twice(runs)
    assert len(runs) == 2  # steps 96.. again go to a folder of their own


def test_training_into_a_non_empty_out_needs_overwrite_which_clears_the_old_run(tmp_path, capsys):
    from muggins_env.train.cli import main

    out = tmp_path / "run"
    assert main(["--config", str(_config(tmp_path, eval_deals=1)), "--out", str(out), "--no-progress"]) == 0
    (out / "notes.txt").write_text("mine")
    capsys.readouterr()
    cfg2 = _config(tmp_path)
    cfg2.write_text(cfg2.read_text().replace("checkpoint_every: 96", "checkpoint_every: 64"))
    before = _digest(out / "model.zip")
    assert main(["--config", str(cfg2), "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert f"--out {out} is not empty" in err and "--overwrite" in err and f"--resume {out}" in err, err
    assert _digest(out / "model.zip") == before and (out / "eval.json").exists()
    assert main(["--config", str(cfg2), "--out", str(out), "--no-progress", "--overwrite"]) == 0
    # the old run is gone (its checkpoint at 96, its eval.json); what was not the run's stays
    assert sorted(p.name for p in (out / "checkpoints").glob("*.zip")) == ["step_128.zip", "step_64.zip"]
    assert not (out / "eval.json").exists() and (out / "notes.txt").read_text() == "mine"
    assert len(list((out / "tb").iterdir())) == 1


def test_the_python_api_refuses_the_same(tmp_path):
    from muggins_env.train.config import load_config
    from muggins_env.train.trainer import RunDirError, train

    cfg = load_config(_config(tmp_path))
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "model.zip").write_bytes(b"not mine to lose")
    with pytest.raises(RunDirError, match="is not empty"):
        train(cfg, tmp_path / "run", progress_bar=False, log=lambda *a: None)
    assert (tmp_path / "run" / "model.zip").read_bytes() == b"not mine to lose"


# -- 8. small things -------------------------------------------------------------------------------
def test_a_huge_action_is_the_action_space_error_whatever_gymnasium_does(monkeypatch):
    import numpy as np
    from gymnasium.spaces import Discrete

    import muggins_env
    from muggins_env.env import ActionOutOfBoundsError

    def contains_of_gymnasium_1_0(self, x):  # Gymnasium 1.0: np.int64(10**20) raises OverflowError
        as_int64 = np.int64(x) if isinstance(x, int) else x
        return bool(self.start <= as_int64 < self.start + self.n)

    monkeypatch.setattr(Discrete, "contains", contains_of_gymnasium_1_0)
    env = muggins_env.make("cribbage_v0")
    env.reset(seed=0)
    for action in (10**20, -(10**20), 2**64):
        with pytest.raises(ActionOutOfBoundsError, match=r"not in the action space Discrete\(\d+\); allowed: an int"):
            env.step(action)
    env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))  # still playable


def test_lowball_cribbage_names_the_winning_side_of_two():
    from muggins_env.agents import make_game

    for n, sides in ((2, 2), (4, 2), (3, 3)):
        game = make_game("cribbage_v0", {"num_players": n, "lowball": True})
        state = game.new_initial_state(seed=5)
        rng = __import__("numpy").random.default_rng(5)
        while not state.is_terminal():
            state.apply(int(rng.choice(state.legal_actions())))
        full = state.full_state()
        assert full["loser_side"] in range(sides)
        assert full["winner_side"] == (1 - full["loser_side"] if sides == 2 else -1), (n, full["winner_side"])
        if sides == 2:  # the winner's seats are the ones with +1
            assert all((state.returns()[s] > 0) == (game.teams[s] == full["winner_side"]) for s in range(n))


def test_a_missing_extra_is_one_line_of_one_form_exit_1_everywhere(monkeypatch, capsys, tmp_path):
    import importlib.util
    import sys

    from muggins_env.eval.cli import main as eval_main
    from muggins_env.play.tui import play as play_cli
    from muggins_env.play.tui import replay as replay_cli
    from muggins_env.train.cli import main as train_main

    from muggins_env import extras

    real = importlib.util.find_spec
    hidden = {"ray", "rich", "openskill"}
    monkeypatch.setattr(extras.importlib.util, "find_spec", lambda name, *a: None if name in hidden else real(name, *a))
    form = r"^muggins-(\w+): error: .+ needs the \[(\w+)\] extra \(missing: .+\); install it with: pip install 'muggins-env\[\2\]'$"
    import re

    runs = {
        "train": lambda: train_main(["--backend", "rllib", "--game", "michigan_v0", "--out", "/nonexistent/x"]),
        "eval": lambda: eval_main(["--game", "michigan_v0", "--agents", "heuristic", "random", "--deals", "1"]),
        "play": lambda: play_cli.main(["--game", "michigan_v0"]),
        "replay": lambda: replay_cli.main([str(record)]),
    }
    from muggins_env.play.session import GameSession

    session = GameSession("michigan_v0", ["heuristic"] * 4, seed=1)
    list(session.advance())
    record = session.record.save(tmp_path / "game.json")
    for prog, run in runs.items():
        assert run() == 1, prog
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and re.match(form, err[0]), (prog, err)
        assert err[0].startswith(f"muggins-{prog}: error: ")
    # rich importable but broken: the same line, not a traceback
    hidden.clear()
    monkeypatch.setitem(sys.modules, "rich.console", None)
    assert play_cli.main(["--game", "michigan_v0"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("muggins-play: error: this command needs the [play] extra")


def test_the_docs_name_only_extras_that_exist_and_no_registry_install():
    """README.md and the pages under docs/ (the install notes are on docs/getting-started.md)."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
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


def test_eval_tables_show_whole_agent_names(capsys):
    from muggins_env.eval import run_tournament, summarise
    from muggins_env.eval.report import print_table

    result = run_tournament("muggins_cards_v0", {}, ["heuristic", "random"], deals=1, seed=0, workers=1,
                            progress=False)
    summary = summarise(result, n_boot=50)
    names = [f"ppo:runs/quick-michigan_v0/checkpoints/step_{k}00000.zip" for k in (1, 2, 3)]
    a, b = summary["agents"]
    summary["agents"] = [dict(a, agent=names[0]), dict(b, agent=names[1]), dict(b, agent=names[2])]
    m = summary["head_to_head"]["matrix"]
    summary["head_to_head"] = {"agents": names, "matrix": [[None, m[0][1], m[0][1]], [m[1][0], None, 0.5],
                                                           [m[1][0], 0.5, None]]}
    print_table(summary)
    out = capsys.readouterr().out
    for i, name in enumerate(names):
        assert out.count(name) == 2, (name, out)  # its row of the table and of the head-to-head
        assert f"#{i + 1} {name}" in out
    assert "…" not in out


def test_eval_help_names_zoo_specs_and_every_flag_has_help():
    from muggins_env.eval.cli import build_parser

    parser = build_parser()
    for action in parser._actions:
        assert action.help, action.option_strings
    agents = next(a for a in parser._actions if "--agents" in a.option_strings)
    assert "zoo:" in agents.help


def test_eval_takes_the_game_and_options_of_a_zoo_agent(capsys):
    from muggins_env.eval.cli import main

    assert main(["--agents", "zoo:cribbage_v0/4p", "heuristic", "--deals", "1", "--workers", "1",
                 "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("cribbage_v0 {'num_players': 4,")
    assert "zoo:cribbage_v0/4p" in out and "cribbage_v0" in out
    with pytest.raises(SystemExit) as e:
        main(["--agents", "zoo:cribbage_v0/4p", "zoo:michigan_v0", "--deals", "1"])
    assert e.value.code == 2
    assert "play different games or options" in capsys.readouterr().err


def test_train_list_says_a_word_on_each_preset(capsys):
    from muggins_env.train.cli import main
    from muggins_env.train.config import list_presets

    assert main(["--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == list_presets()
    assert all(len(line.split()) > 3 for line in lines), lines
    full = next(line for line in lines if line.startswith("cribbage_v0/full "))
    assert "Cribbage with muggins counting, 2 players, a game to 121: a real run" in full


def test_make_play_can_show_one_game_paced(monkeypatch, capsys):
    import os
    import shutil
    import subprocess
    from pathlib import Path

    from muggins_env.play import demo

    slept = []
    monkeypatch.setattr(demo.time, "sleep", slept.append)
    demo.main(["--game", "michigan_v0", "--delay", "0.25"])
    out = capsys.readouterr().out
    assert out.count("== ") == 1 and "michigan" in out.lower()
    assert slept == [0.25] * (len(out.splitlines()) - 1)  # a pause after every line of the game
    with pytest.raises(SystemExit):
        demo.main(["--delay", "-1"])
    root = Path(__file__).resolve().parents[1]
    if shutil.which("make") is None:  # what make would run, from the Makefile's text
        recipe = (root / "Makefile").read_text().split("\nplay:")[1].splitlines()[1]
        assert "--game $(GAME)" in recipe and "--delay $(DELAY)" in recipe
        return

    def make_play(*args):
        done = subprocess.run(["make", "-n", "-s", "play", *args], cwd=root, capture_output=True, text=True,
                              check=True, env={"PATH": os.environ["PATH"]})
        return done.stdout.splitlines()[-1]

    assert make_play("GAME=cribbage_v0", "DELAY=0.3").endswith(
        "-m muggins_env.play.demo --game cribbage_v0 --delay 0.3")
    assert make_play().endswith("-m muggins_env.play.demo")


def test_a_typo_gets_did_you_mean():
    from muggins_env.play.session import MoveError, match_move

    moves = {0: "accept", 1: "overcount", **{2 + k: f"muggins {k + 1}" for k in range(29)}}
    with pytest.raises(MoveError, match=r"'acept' is not a legal move; did you mean 'accept'\? legal moves: "):
        match_move("acept", moves)
    with pytest.raises(MoveError, match=r"did you mean 'overcount'\?"):
        match_move("overcont", moves)
    with pytest.raises(MoveError) as e:
        match_move("seven of hearts please", moves)
    assert "did you mean" not in str(e.value)


# -- 6. terminal play, dominoes: the typed form, and no true score for a responder ------------------
def test_a_tile_and_an_arm_number_name_the_move_even_when_an_open_pip_is_that_number():
    from muggins_env.play.session import MoveError, match_move

    moves = {10: "5-1 on arm 1 (open 5)", 11: "5-1 on arm 2 (open 1)", 20: "6-4 on arm 1 (open 6)",
             21: "6-4 on arm 2 (open 4)"}
    for typed, action in (("5-1 1", 10), ("5-1 arm 1", 10), ("5-1 on arm 1", 10), ("1-5 1", 10),
                          ("5-1 2", 11), ("5-1 on arm 2", 11), ("6-4 2", 21), ("4-6 1", 20)):
        assert match_move(typed, moves) == action, typed
    with pytest.raises(MoveError, match="fits several moves: 5-1 on arm 1 .*5-1 on arm 2"):
        match_move("5-1", moves)


def test_a_responder_is_not_shown_the_true_score_before_the_review_is_settled():
    from muggins_env.play.session import GameSession

    checked = 0
    for seed in range(40):
        s = GameSession("muggins_dominoes_v0", ["heuristic", "human"], seed=seed)
        while not s.is_over and checked < 3:
            list(s.advance())
            if s.is_over:
                break
            state = s.env.kernel_state
            if state.phase_name() == "respond":
                mover, announced, true, _ = state.full_state()["review"]
                seat = s.view(1)
                review = [line for line in seat.table.splitlines() if line.startswith("under review")]
                assert review == [f"under review: player {mover} announced {announced}"], seat.table
                assert "true score" not in seat.table
                # the full table (replays, the end of a game) still tells it
                assert f"under review: player {mover} announced {announced} (true score {true})" in s.full_table()
                checked += 1
            s.play(1, next(iter(s.legal_moves())))
        if checked >= 3:
            break
    assert checked >= 3


# -- 7. terminal play tells what happened ------------------------------------------------------------
def _terminal(env_id, seats, seed, options=None):
    """A TerminalTable over a session of agents; yields (kernel state before, move, printed text) per move."""
    import io

    from muggins_env.play.session import GameSession
    from muggins_env.play.tui.play import TerminalTable
    from rich.console import Console

    s = GameSession(env_id, seats, seed=seed, options=options or {})
    buf = io.StringIO()
    table = TerminalTable(s, [0], 0, Console(file=buf, width=250, color_system=None, highlight=False))
    while not s.is_over:
        before = s.env.kernel_state.clone()
        m = s.step_once()
        start = buf.tell()
        table.draw_move(m)
        yield before, m, buf.getvalue()[start:]


def test_cribbage_in_the_terminal_tells_each_settled_count_and_each_pegging_score():
    import re

    from muggins_env.kernel.cards import format_card

    counts = pegs = 0
    for seed, seats in ((0, ["heuristic", "heuristic"]), (3, ["random", "heuristic"])):
        for before, m, text in _terminal("cribbage_v0", seats, seed, {"target": 61}):
            lines = text.splitlines()
            # a count the move settled (the kernel's review before it), with its breakdown, before the next deal
            rv = before.review
            if rv is not None and before.phase_name() == "respond":
                whose = f"player {rv['counter']}'s {'crib' if rv['is_crib'] else 'hand'}"
                cards = " ".join(format_card(c) for c in rv["cards"])
                note = [line for line in lines if whose in line and cards in line]
                if note:
                    counts += 1
                    assert f"+ starter {format_card(before.starter_card)} = {rv['true']} (" in note[0]
                    for part, value in rv["breakdown"].items():
                        assert (f"{part} {value}" in note[0]) == bool(value), (part, note[0])
                    assert f"announced {rv['announced']}" in note[0]
                    if m.new_hand:  # shown before the next deal is
                        assert text.index(note[0]) < text.index("a new hand is dealt")
            # the reasons of a pegging score add up to the points it scored
            if before.phase_name() == "play" and m.points[m.player] > 0 and m.name.startswith("lay "):
                note = [line for line in lines if line.strip().startswith(f"player {m.player}: count ")]
                assert note, text
                assert sum(map(int, re.findall(r"for (\d+)", note[0]))) == m.points[m.player], note[0]
                pegs += 1
    assert counts >= 6 and pegs >= 4


def test_cribbage_counts_say_accepted_muggins_overcount_or_unfounded():
    from muggins_env.kernel.cards import format_card

    seen = set()
    for seed in range(6):
        for before, m, text in _terminal("cribbage_v0", ["random", "random"], seed, {"target": 61}):
            if before.phase_name() != "respond":
                continue
            rv = before.review
            cards = " ".join(format_card(c) for c in rv["cards"])
            note = [line for line in text.splitlines() if cards in line and "announced" in line]
            if not note:
                continue  # another responder is still to answer
            a, t = rv["announced"], rv["true"]
            if m.name == "accept":
                assert "accepted" in note[0]
                seen.add("accepted")
            elif m.name.startswith("muggins"):
                if t > a:
                    assert "muggins! player" in note[0] and f"of the {t - a} missed" in note[0]
                    seen.add("muggins")
                else:
                    assert "the muggins call was unfounded" in note[0]
                    seen.add("false muggins")
            elif m.name == "overcount":
                if a > t:
                    assert f"overcount by {a - t}: {a - t} moved to player {m.player}" in note[0]
                    seen.add("overcount")
                else:
                    assert "the overcount call was unfounded" in note[0]
                    seen.add("overcount unfounded")
    assert {"accepted", "muggins", "false muggins"} <= seen, seen


def test_dominoes_and_card_muggins_calls_get_a_verdict():
    verdicts = {}
    for seed in range(3):
        for before, m, text in _terminal("muggins_dominoes_v0", ["random", "heuristic"], seed, {"target": 61}):
            if m.name == "Muggins!":
                founded = before.full_state()["review"][1] != before.full_state()["review"][2]
                assert (" founded" in text) == founded and (" unfounded" in text) == (not founded), text
                verdicts.setdefault("dominoes", set()).add(founded)
    for seed in range(3):
        for before, m, text in _terminal("muggins_cards_v0", ["random", "heuristic", "random"], seed,
                                         {"num_players": 3, "mistakes": True}):
            if m.name == "Muggins!":
                correct = before.review[2]
                assert (": unfounded," in text) == correct and (": founded," in text) == (not correct), text
                verdicts.setdefault("cards", set()).add(not correct)
    assert verdicts == {"dominoes": {True, False}, "cards": {True, False}}


def test_one_score_line_and_your_crib_only_when_it_is_yours():
    import io

    from muggins_env.play.session import GameSession
    from muggins_env.play.tui.play import TerminalTable
    from rich.console import Console

    for dealer_is_you in (False, True):
        for seed in range(10):
            s = GameSession("cribbage_v0", ["human", "heuristic"], seed=seed)
            if (s.env.kernel_state.dealer == 0) == dealer_is_you:
                break
        buf = io.StringIO()
        table = TerminalTable(s, [0], 0, Console(file=buf, width=200, color_system=None))
        while len(s.env.kernel_state.laid_away[0]) < 2:  # lay away two cards (the other seat as it comes)
            list(s.advance())
            s.play(0, next(iter(s.legal_moves())))
        table.draw_table(0)
        text = buf.getvalue()
        score_lines = [line for line in text.splitlines() if "player 0: 0" in line or "side 0" in line]
        assert len(score_lines) == 1 and "scores: player 0: 0  player 1: 0" in score_lines[0], text
        dealer = s.env.kernel_state.dealer
        assert ("your crib discards:" in text) == dealer_is_you, text
        assert ("you laid away " in text and f"to player {dealer}'s crib" in text) == (not dealer_is_you), text
        assert ("crib: yours" if dealer_is_you else f"crib: player {dealer}'s") in text


# -- 4. TensorBoard's vs_<kind>/win_rate is the evaluation's win rate ----------------------------------
def test_the_logged_win_rate_is_the_win_share_the_evaluation_counts():
    from types import SimpleNamespace

    from muggins_env.train.config import from_dict
    from muggins_env.train.trainer import _callbacks, _make_pool

    cfg = from_dict({"game": "michigan_v0", "env_options": {"num_players": 4, "reward": "chips"},
                     "opponents": {"random": 0.0, "heuristic": 1.0, "self": 0.0}, "checkpoint_every": 0})
    cb = _callbacks(cfg, _make_pool(cfg), None, None, True)
    logged = {}
    cb.model = SimpleNamespace(num_timesteps=10, logger=SimpleNamespace(record=logged.__setitem__))
    cb.next_snapshot, cb.next_ckpt = 10**9, None

    def episode(seat, returns, r):
        return {"seat": seat, "returns": returns, "opponents": "heuristic", "episode": {"r": r, "l": 9}}

    # 4-player Michigan: a positive return that is not the top one is no win; a tie on top is a half
    cb.locals = {"dones": [True, True, True, False],
                 "infos": [episode(0, [3, 5, -4, -4], 3.0), episode(1, [3, 5, -4, -4], 5.0),
                           episode(0, [6, 6, -6, -6], 6.0), {"seat": 2}]}
    cb._on_step()
    cb._on_rollout_end()
    assert logged["vs_heuristic/win_rate"] == pytest.approx((0 + 1 + 0.5) / 3)
    assert logged["vs_heuristic/mean_return"] == pytest.approx(14 / 3)
