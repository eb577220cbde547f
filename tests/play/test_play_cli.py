"""``muggins-play`` and ``muggins-replay`` driven through a pseudo-terminal with scripted input:
a full game of every env against agents, bad entries, hints, hot seat, Ctrl-C and end of
input; the screen text and the saved game record are checked."""

from __future__ import annotations

import os
import re
import sys

import pytest

from muggins_env import ENV_NAMES, records

pexpect = pytest.importorskip("pexpect")
pytest.importorskip("rich")

#: small games so that a whole one stays quick
SMALL = {"muggins_cards_v0": ["num_players=3", "mistakes=true"], "cribbage_v0": ["target=61"],
         "muggins_dominoes_v0": ["target=61"], "michigan_v0": ["num_players=3", "num_hands=1"]}
PROMPT = r"player (\d)> "
ENV = dict(os.environ, NO_COLOR="1", COLUMNS="120", LINES="50", TERM="xterm")


def _sigint_default() -> None:
    """The child's Ctrl-C as at a terminal: a test run started in the background by a script
    (``(make test &)``) hands its children SIGINT ignored, and Python then installs no
    KeyboardInterrupt, so the Ctrl-C tests would wait for an interruption that cannot come."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def spawn(*args: str, timeout: float = 30) -> pexpect.spawn:
    return pexpect.spawn(sys.executable, ["-m", *args], env=ENV, encoding="utf-8", timeout=timeout,
                         dimensions=(50, 120), preexec_fn=_sigint_default)


def play(env_id: str, save, *extra: str) -> pexpect.spawn:
    opts = [a for o in SMALL[env_id] for a in ("--opt", o)]
    return spawn("muggins_env.play.tui.play", "--game", env_id, *opts, "--seed", "7", "--delay", "0",
                 "--save", str(save), *extra)


def finish(child: pexpect.spawn) -> int:
    child.expect(pexpect.EOF)
    child.close()
    return child.exitstatus if child.exitstatus is not None else -child.signalstatus


@pytest.mark.parametrize("env_id", ENV_NAMES)
def test_a_full_game_against_agents_through_a_terminal(env_id, tmp_path):
    save = tmp_path / "game.json"
    child = play(env_id, save, "--opponents", "heuristic", "random")
    child.expect("type \"help\" for the commands")
    prompts = 0
    typed = False
    while True:
        i = child.expect([PROMPT, "final result: ([^\r\n]+)"])
        if i == 1:
            break
        assert child.match.group(1) == "0"
        screen = child.before
        assert "you are player 0" in screen and "your moves:" in screen
        if not typed:  # the first decision typed as text: the name of the first legal move
            first = re.search(r"your moves:.*?\n\s*1\) ([^\r\n]+?)(?:\s{3,}|\r)", screen, re.DOTALL).group(1).strip()
            child.sendline(first)
            typed = True
        else:
            child.sendline("1")
        prompts += 1
    result = child.match.group(1)
    child.expect("game record saved to")
    assert finish(child) == 0
    rec = records.load(save)
    assert rec.finished and rec.seats[0] == "human" and rec.seats[1:] == ["heuristic", "random"][:len(rec.seats) - 1]
    human = [m for m in rec.moves if m.player == 0 and not m.forced]
    assert prompts >= 1 and len(human) == prompts and all(m.by == "human" for m in human)
    assert records.replay(rec) == pytest.approx(rec.returns)
    top = max(rec.returns)
    winners = [p for p, r in enumerate(rec.returns) if r == top]
    assert (f"player {winners[0]} wins" in result) if len(winners) == 1 else ("win" in result or "draw" in result)


def test_bad_entries_hints_and_help_never_lose_the_game_then_ctrl_c_saves_it(tmp_path):
    save = tmp_path / "cr.json"
    child = play("cribbage_v0", save)
    child.expect(PROMPT)
    child.sendline("seven of hearts please")
    child.expect("'seven of hearts please' is not a legal move; legal moves: lay away")
    child.expect(PROMPT)
    child.sendline("99")
    child.expect("there is no move 99: choose 1..6")
    child.expect(PROMPT)
    child.sendline("announce 12")
    child.expect("'announce 12' is not a legal move")
    child.expect(PROMPT)
    child.sendline("hint")
    child.expect(r"hint: (lay away \S+) - laying away .* keeps the best hand")
    hinted = child.match.group(1)
    child.expect(PROMPT)
    child.sendline("help")
    child.expect("what the heuristic would play here")
    child.expect(PROMPT)
    child.sendline(hinted.split()[-1])  # the card alone, as typed text
    child.expect(f"\\d+\\. player 0 \\(you\\): {re.escape(hinted)}")
    child.expect(PROMPT)
    child.sendcontrol("c")
    child.expect("interrupted: leaving the game", timeout=90)  # a loaded CI machine can be slow to save
    child.expect(r"game record saved to [\s\S]*unfinished,\s+\d+\s+moves")  # a long path wraps the line
    assert finish(child) == 130
    rec = records.load(save)
    assert not rec.finished and [m.name for m in rec.moves if m.player == 0] == [hinted]
    records.replay(rec)  # an unfinished record replays too


def test_end_of_input_saves_the_game_and_exits_cleanly(tmp_path):
    save = tmp_path / "mi.json"
    child = play("michigan_v0", save)
    child.expect(PROMPT)
    child.sendeof()
    child.expect("end of input: leaving the game")
    child.expect("game record saved to")
    assert finish(child) == 0
    assert records.load(save).moves is not None


def test_hot_seat_hides_the_previous_hand(tmp_path):
    save = tmp_path / "hot.json"
    child = play("cribbage_v0", save, "--humans", "0,1")
    seen = []
    for _ in range(4):  # two lay-aways each: the turn passes once from 0 to 1
        i = child.expect(["Pass to player (\\d) and press Enter", PROMPT])
        if i == 0:
            seen.append(int(child.match.group(1)))
            # the screen was cleared just before: nothing of the previous seat's table remains on it
            assert "\x1b[2J" in child.before and "(you)" not in child.before.rsplit("\x1b[2J", 1)[1]
            child.sendline("")
            child.expect(PROMPT)
        player = int(child.match.group(1))
        screen = child.before
        hand = re.search(rf"player {player} \(you\): hand ([^ ]+ [^ ]+)", screen)
        assert hand, screen
        child.sendline("1")
    assert seen[:2] == [1, 0]  # dealer 0: player 1 lays away first
    child.expect(["Pass to player 1 and press Enter", PROMPT])
    child.sendline("quit")  # on the pass screen or at the prompt
    child.expect("leaving the game")
    assert finish(child) == 0
    rec = records.load(save)
    assert [m.player for m in rec.moves[:4]] == [1, 1, 0, 0] and rec.seats == ["human", "human"]


def test_bad_arguments_are_clear_errors(tmp_path):
    child = spawn("muggins_env.play.tui.play", "--game", "cribbage_v0", "--seat", "5")
    child.expect("human seat\\(s\\) \\[5\\] do not exist: this game has seats 0..1")
    assert finish(child) == 2
    child = spawn("muggins_env.play.tui.play", "--game", "cribbage_v0", "--opponents", "alphazero")
    child.expect("unknown agent spec 'alphazero'")
    assert finish(child) == 2
    child = spawn("muggins_env.play.tui.play", "--game", "cribbage_v0", "--opt", "target=7")
    child.expect("muggins-play: error: .*target=7")
    assert finish(child) == 2


def test_replay_steps_forward_and_back_from_a_seat(tmp_path):
    from muggins_env.play.session import GameSession

    s = GameSession("cribbage_v0", ["heuristic", "random"], options={"target": 61}, seed=3)
    list(s.advance())
    path = s.record.save(tmp_path / "g.json")
    child = spawn("muggins_env.play.tui.replay", str(path), "--seat", "1")
    child.expect(f"move 0/{len(s.record.moves)} - player 1's view")
    child.sendline("")
    child.expect("move 1/")
    child.expect("last move: 1\\. player 0 \\(heuristic\\): lay away a card")  # face down for seat 1
    child.sendline("n")
    child.expect("move 2/")
    child.sendline("b")
    child.expect("move 1/")
    child.sendline("e")
    child.expect(f"final result: player {max(range(2), key=lambda p: s.returns()[p])} wins")
    child.sendline("zz")
    child.expect("'zz'\\? Enter/n: next move")
    child.sendline("q")
    assert finish(child) == 0
    child = spawn("muggins_env.play.tui.replay", str(path), "--auto")
    child.expect("1\\. player 0 \\(heuristic\\): lay away [^a]")  # the full view names the card
    child.expect("final result")
    assert finish(child) == 0
    bad = tmp_path / "bad.json"
    bad.write_text("[]")
    child = spawn("muggins_env.play.tui.replay", str(bad))
    child.expect("muggins-replay: error: .*not a muggins_env game record")
    assert finish(child) == 2


def test_without_rich_the_command_names_the_extra(monkeypatch, capsys):
    from muggins_env.play.tui import play as play_cli

    monkeypatch.setitem(sys.modules, "rich.console", None)  # import fails as if rich were missing
    assert play_cli.main(["--game", "cribbage_v0"]) == 1
    assert "pip install 'muggins-env[play]'" in capsys.readouterr().err


@pytest.mark.parametrize("env_id", ENV_NAMES)
def test_make_play_shows_every_move_of_one_game(env_id):
    from muggins_env.play import demo

    text = demo.play(env_id, seed=1)
    moves = re.findall(r"^ +(\d+)\. player (\d) \(heuristic\): (.+)$", text, re.MULTILINE)
    assert [int(k) for k, _, _ in moves] == list(range(1, len(moves) + 1))
    assert "final result: " in text and text.count("== ") == 1
    # a move that scored says how much and the scores after it
    scored = [line for line in text.splitlines() if " now " in line]
    assert scored and all(re.search(r"\((?:[+-]\d+ player \d(?:, )?)+; .+ now [-\d /]+\)$", s) for s in scored)


def test_eval_save_games_keeps_tournament_games_as_records(tmp_path):
    from muggins_env.eval import run_tournament
    from muggins_env.eval.saved_games import save_games

    result = run_tournament("michigan_v0", {"num_players": 3, "num_hands": 1}, ["heuristic", "random"], deals=2,
                            seed=4, workers=1, progress=False)
    paths = save_games(result, 3, tmp_path)
    assert [p.name for p in paths] == ["deal0-seating0.json", "deal0-seating1.json", "deal0-seating2.json"]
    for p, g in zip(paths, result.records):
        rec = records.load(p)
        assert rec.seed == g.deal_seed and rec.returns == pytest.approx(g.returns)
        assert rec.seats == [result.specs[i] for i in g.seating] and rec.meta["tournament"]["deal"] == g.deal
        assert records.replay(rec) == pytest.approx(g.returns)


def test_eval_save_games_needs_an_output_folder(capsys):
    from muggins_env.eval.cli import main

    with pytest.raises(SystemExit) as e:
        main(["--game", "michigan_v0", "--agents", "heuristic", "random", "--deals", "1", "--save-games", "2"])
    assert e.value.code == 2 and "--save-games needs --out" in capsys.readouterr().err


def test_an_unwritable_save_path_falls_back_to_the_temporary_folder(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    child = play("michigan_v0", blocker / "sub" / "game.json")  # a folder under a file: cannot be made
    child.expect(PROMPT)
    child.sendline("quit")
    child.expect(r"saving it to (\S+\.json)")
    fallback = child.match.group(1)
    child.expect("game record saved to")
    assert finish(child) == 0
    assert records.load(fallback).env_id == "michigan_v0"
    os.remove(fallback)


_SIGNAL_BEFORE_THE_READ = """
import os, signal, sys, threading, time
from muggins_env.play.tui.prompt import read_line
signal.signal(signal.SIGINT, signal.default_int_handler)  # as at a terminal, whatever the test run inherited
# the SIGINT's C handler runs (on another thread) while the main thread is on its way into the
# read, past Python's last check of the signal flag: what a Ctrl-C typed the moment the prompt
# appears meets on a loaded machine
threading.Thread(target=lambda: (time.sleep(0.5), os.kill(os.getpid(), signal.SIGINT)), daemon=True).start()
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
try:
    read_line()
except KeyboardInterrupt:
    print("interrupted", flush=True)
    sys.exit(130)
print("read a line", flush=True)
"""


def test_a_ctrl_c_that_lands_just_before_the_prompts_read_still_interrupts_it():
    import subprocess

    # stdin stays open and silent: input() would wait in read() for a line forever
    silent, keep_open = os.pipe()
    try:
        proc = subprocess.Popen([sys.executable, "-c", _SIGNAL_BEFORE_THE_READ], stdin=silent,
                                stdout=subprocess.PIPE, text=True)
        try:
            out, _ = proc.communicate(timeout=30)
        finally:
            proc.kill()
    finally:
        os.close(silent)
        os.close(keep_open)
    assert proc.returncode == 130 and out.strip() == "interrupted"


def test_the_prompts_reader_returns_piped_lines_one_at_a_time_then_end_of_input():
    import subprocess

    code = ("from muggins_env.play.tui.prompt import read_line\nout = []\ntry:\n    while True:\n"
            "        out.append(read_line())\nexcept EOFError:\n    print(out)\n")
    proc = subprocess.run([sys.executable, "-c", code], check=True, input="7\nhint\r\nlay away 5♥\nno newline",
                          capture_output=True, text=True, timeout=30)
    assert proc.stdout.strip() == repr(["7", "hint", "lay away 5♥", "no newline"])
