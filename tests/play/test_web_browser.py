"""A real browser at the web tables: headless Chromium (Debian's package) driven by Playwright
against ``muggins-serve`` started by the test on a free port of 127.0.0.1.

Every game is played to its end by clicking (hand cards or tiles where a move names them,
else the move buttons), with screenshots saved (``MUGGINS_SCREENSHOTS=dir`` keeps them: the
pictures in docs/screenshots, which README.md and docs/play.md show, come from there); two
browser contexts play one table as two humans, one of them reloading its page mid-game. Skipped only when Chromium or the ``[web]`` extra is missing.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
sync_api = pytest.importorskip("playwright.sync_api")

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
if not Path(CHROMIUM).exists():
    pytest.skip("Debian's chromium is not installed (apt-get install -y chromium)", allow_module_level=True)

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
#: small games: one hand, short targets, few players
GAMES = [  # (env, options, seats); the screenshot is taken at the SHOT_AT-th click
    ("muggins_cards_v0", {"num_players": 3, "mistakes": True}, ["human", "heuristic", "heuristic"]),
    ("muggins_dominoes_v0", {"episode": "hand", "variant": "all_fives"}, ["human", "heuristic"]),
    ("michigan_v0", {"num_players": 3, "num_hands": 1}, ["human", "heuristic", "heuristic"]),
    ("cribbage_v0", {"target": 61}, ["human", "heuristic"]),
]
SHOT_AT = {"muggins_cards_v0": 8, "muggins_dominoes_v0": 14, "michigan_v0": 3, "cribbage_v0": 10}
DECISION = "#over:not([hidden]), #moves .move"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "muggins_env.play.web.cli", "--port", str(port), "--delay", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                urllib.request.urlopen(base + "/api/games", timeout=1).read()
                break
            except OSError:
                if proc.poll() is not None:
                    raise RuntimeError("muggins-serve exited: " + proc.stdout.read().decode()) from None
                time.sleep(0.1)
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as pw:
        # launch() gives every run a fresh temporary profile (user-data-dir)
        b = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    d = Path(os.environ.get("MUGGINS_SCREENSHOTS") or tmp_path_factory.mktemp("screenshots"))
    d.mkdir(parents=True, exist_ok=True)
    return d


def _create(base: str, game: str, options: dict, seats: list[str], seed: int) -> dict:
    req = urllib.request.Request(base + "/api/tables", method="POST", headers={"content-type": "application/json"},
                                 data=json.dumps({"game": game, "options": options, "seats": seats,
                                                  "seed": seed}).encode())
    return json.loads(urllib.request.urlopen(req, timeout=30).read())


def _click_once(page) -> str | None:
    """One decision by clicking: a hand card or tile that legal moves name, then a place of the
    table that one move names (a pile, an arm's end), else a move button. None: the page redrew
    the element between finding and clicking it (a server update), so nothing was clicked."""
    try:
        return _click(page)
    except sync_api.Error as e:
        if "not attached to the DOM" in str(e):
            return None
        raise


def _click(page) -> str:
    hand = page.locator(".hand .playable")
    if hand.count():
        target = hand.first.element_handle()
        target.click()
        # one move names it: played (the page redraws the hand); several: it is selected and
        # the move buttons narrow down to its moves
        page.wait_for_function("(el) => !el.isConnected || el.classList.contains('selected')", arg=target,
                               timeout=30_000)
        if not page.locator(".hand .selected").count():
            return "hand"
    place = page.locator(".target-on")
    button = place.first if place.count() else page.locator("#moves .move").first
    handle = button.element_handle()
    button.click()
    handle.wait_for_element_state("hidden", timeout=30_000)  # the page redrew after the move
    return "place" if place.count() else "button"


def _play_out(page, shot: Path | None, shot_at: int = 6, limit: int = 400) -> Counter:
    """Click until the game is over; the picture is of the ``shot_at``-th decision, or the first
    one after it where a card, tile or place is clickable (or the last one of a shorter game).
    Returns how many clicks went to hands, places and buttons."""
    kinds: Counter = Counter()
    pictured = False  # a picture with something clickable on the table
    idle_since = None
    while True:
        page.wait_for_selector(DECISION, timeout=30_000)
        if page.locator("#over").is_visible():
            return kinds
        if not page.locator("#moves .move").count():  # redrawn between the wait and now: wait again
            idle_since = idle_since or time.monotonic()
            assert time.monotonic() - idle_since < 30, "no move offered for 30 s and the game is not over"
            time.sleep(0.05)
            continue
        idle_since = None
        clicks = sum(kinds.values())
        clickable = page.locator(".target-on, .hand .playable").count() > 0
        if shot is not None and (clicks < shot_at or (clickable and not pictured)):
            page.screenshot(path=str(shot), full_page=True)
            pictured = clickable
        kind = _click_once(page)
        if kind is None:  # redrawn under the click: look again
            continue
        kinds[kind] += 1
        assert not page.locator("#error").inner_text(), page.locator("#error").inner_text()
        assert clicks < limit, "the game did not end"


@pytest.mark.parametrize(("game", "options", "seats"), GAMES, ids=[g for g, _, _ in GAMES])
def test_play_a_full_game_by_clicking(server, browser, shots, game, options, seats):
    links = _create(server, game, options, seats, seed=11)["links"]
    ctx = browser.new_context(viewport={"width": 1280, "height": 860}, accept_downloads=True)
    try:
        page = ctx.new_page()
        errors: list = []
        page.on("pageerror", lambda e: errors.append(str(e)))  # a script error while drawing fails the test
        page.goto(server + links["0"])
        kinds = _play_out(page, shots / f"{game}.png", SHOT_AT[game])
        assert not errors, errors
        # cards and tiles are played from the hand; card Muggins' card in play onto its piles
        assert kinds["place" if game == "muggins_cards_v0" else "hand"] > 0, kinds
        over = page.locator("#over")
        assert over.is_visible()
        assert "Game over" in page.locator("#over-title").inner_text()
        page.screenshot(path=str(shots / f"{game}-over.png"))
        with page.expect_download() as dl:
            page.click("#download")
        record = json.loads(Path(dl.value.path()).read_text(encoding="utf-8"))
        assert record["env_id"] == game and record["finished"] and record["seats"] == seats
        assert len(page.locator("#log li").all()) == len(record["moves"])
        assert (shots / f"{game}.png").stat().st_size > 10_000
    finally:
        ctx.close()


def test_two_humans_share_a_table_and_a_reload_loses_nothing(server, browser, shots):
    links = _create(server, "muggins_dominoes_v0", {"episode": "hand"}, ["human", "human"], seed=5)["links"]
    ctxs = [browser.new_context(viewport={"width": 1280, "height": 860}) for _ in range(2)]
    try:
        pages = [c.new_page() for c in ctxs]
        errors: list = []
        for pg in pages:
            pg.on("pageerror", lambda e: errors.append(str(e)))
        for p, page in enumerate(pages):
            page.goto(server + links[str(p)])
            page.wait_for_selector(".hand .tile")
        moves, reloaded = 0, False
        while not all(pg.locator("#over").is_visible() for pg in pages):
            acting = [pg for pg in pages if pg.locator("#moves .move").count()]
            if not acting:  # the seat to act may render its moves later (a loaded machine): wait on both
                waited = time.monotonic()
                while not any(pg.locator(DECISION).count() for pg in pages):
                    assert time.monotonic() - waited < 30, "no seat was offered a move"
                    time.sleep(0.05)
                continue
            assert len(acting) == 1, "both seats were offered moves at once"
            page = acting[0]
            if moves == 4 and not reloaded:  # a reloaded page rejoins its seat by its link
                hand = page.locator(".hand").inner_html()
                log = page.locator("#log").inner_text()
                page.reload()
                page.wait_for_selector("#moves .move")
                assert page.locator(".hand").inner_html() == hand
                assert page.locator("#log").inner_text() == log
                reloaded = True
                # the other seat's tiles are drawn face down, and only its count is known
                assert page.locator(".players .tile.back").count() > 0
                assert page.locator(".players .tile:not(.back)").count() == 0
                page.screenshot(path=str(shots / "two-humans.png"))
            button = page.locator("#moves .move").first
            handle = button.element_handle()
            button.click()
            handle.wait_for_element_state("hidden", timeout=30_000)
            moves += 1
            assert moves < 400
        assert reloaded and not errors, errors
        for pg in pages:
            assert "Game over" in pg.locator("#over-title").inner_text()
    finally:
        for c in ctxs:
            c.close()


def test_create_a_table_in_the_form_and_join_by_its_link(server, browser, shots):
    ctx = browser.new_context(viewport={"width": 1100, "height": 700})
    try:
        page = ctx.new_page()
        page.goto(server + "/")
        page.select_option("#game", "cribbage_v0")
        page.select_option('[data-option="target"]', "61")
        page.select_option('select[name="seat1"]', "random")
        page.click("#create-btn")
        link = page.locator(".seat-link")
        link.wait_for()
        assert link.count() == 1 and link.get_attribute("data-seat") == "0"
        page.screenshot(path=str(shots / "create.png"), full_page=True)
        link.click()
        page.wait_for_selector(".hand .card.playable")
        assert page.locator(".hand .card").count() == 6
        assert "61" in page.locator(".crib-board").inner_text()  # drawn by the declared drawing key
        assert page.locator("#title").inner_text() == "Cribbage" and page.title().startswith("Cribbage")  # its title
        assert "P1 random" in page.locator("#seats-bar").inner_text()
        # the seat choices are the server's players by name: no agent spec, no path
        page.goto(server + "/")
        page.select_option("#game", "cribbage_v0")
        choices = page.locator('select[name="seat1"] option').evaluate_all("(os) => os.map((o) => o.value)")
        assert {"human", "random", "heuristic", "search:100", "zoo:cribbage_v0"} <= set(choices)
        assert not [c for c in choices if c.startswith(("ppo:", "rllib:"))]
    finally:
        ctx.close()


def test_the_form_offers_each_network_only_for_the_options_it_plays(server, browser):
    """standard cribbage (muggins off) gets its own zoo and best: players; the muggins ones leave"""
    ctx = browser.new_context(viewport={"width": 1100, "height": 700})
    try:
        page = ctx.new_page()
        page.goto(server + "/")
        page.select_option("#game", "cribbage_v0")

        def offered():
            return set(page.locator('select[name="seat1"] option').evaluate_all("(os) => os.map((o) => o.value)"))

        assert {"zoo:cribbage_v0", "best:cribbage_v0", "heuristic"} <= offered()
        assert not {"zoo:cribbage_v0/standard", "best:cribbage_v0/standard", "zoo:cribbage_v0/4p"} & offered()
        page.select_option('select[name="seat1"]', "zoo:cribbage_v0")
        page.select_option('[data-option="muggins"]', "false")
        assert {"zoo:cribbage_v0/standard", "best:cribbage_v0/standard", "heuristic"} <= offered()
        assert not {"zoo:cribbage_v0", "best:cribbage_v0", "zoo:cribbage_v0/standard_4p"} & offered()
        # the muggins network left with its options: the seat falls back to the heuristic
        assert page.locator('select[name="seat1"]').input_value() == "heuristic"
        page.select_option('[data-option="num_players"]', "4")
        assert {"zoo:cribbage_v0/standard_4p", "best:cribbage_v0/standard_4p"} <= offered()
        assert not {"zoo:cribbage_v0/standard", "zoo:cribbage_v0/4p"} & offered()
        page.select_option('[data-option="num_players"]', "2")
        page.select_option('select[name="seat1"]', "zoo:cribbage_v0/standard")
        page.click("#create-btn")
        page.locator(".seat-link").wait_for()
        page.locator(".seat-link").click()
        page.wait_for_selector(".hand .card.playable")
        assert "P1 zoo:cribbage_v0/standard" in page.locator("#seats-bar").inner_text()
    finally:
        ctx.close()
