"""The terminal face and the demo: ``make play`` shows one game paced; a typed move gets
"did you mean"; dominoes moves typed as tile and arm; a responder never sees the true score
before the review settles; the table tells each settled count, pegging score and verdict."""

import pytest

from tests import ROOT


def test_make_play_can_show_one_game_paced(monkeypatch, capsys):
    import os
    import shutil
    import subprocess

    from muggins_env.play import demo

    slept = []
    monkeypatch.setattr(demo.time, "sleep", slept.append)
    demo.main(["--game", "michigan_v0", "--delay", "0.25"])
    out = capsys.readouterr().out
    assert out.count("== ") == 1 and "michigan" in out.lower()
    assert slept == [0.25] * (len(out.splitlines()) - 1)  # a pause after every line of the game
    with pytest.raises(SystemExit):
        demo.main(["--delay", "-1"])
    root = ROOT
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


# -- dominoes typed: the typed form, and no true score for a responder ------------------


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


# -- the terminal tells what happened ------------------------------------------------------------


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
