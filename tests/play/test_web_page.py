"""What a person reads at the table, in headless Chromium: a prompt that fits the decision, the
cribbage play grouped by series, counts in words ("1 card"), no stray numbers, a dominoes line and
a text view that stay inside a narrow window, and a favicon."""

from __future__ import annotations

import json
import re
import time
import urllib.request

import numpy as np

from tests.play.test_web_browser import _create, browser, server  # noqa: F401 - the module's fixtures


def _call(base: str, path: str, token: str, body: dict | None = None) -> dict:
    req = urllib.request.Request(base + path, method="POST" if body is not None else "GET",
                                 headers={"x-seat-token": token, "content-type": "application/json"},
                                 data=json.dumps(body).encode() if body is not None else None)
    return json.loads(urllib.request.urlopen(req, timeout=30).read())


def _drive(base: str, created: dict, until, rng: np.random.Generator, limit: int = 400) -> dict:
    """Seat 0 plays random legal moves until ``until(state)`` holds at its turn; returns that state."""
    table, token = created["table"], created["links"]["0"].split("#", 1)[1]
    path = f"/api/tables/{table}/seats/0"
    moves_made, end = 0, time.monotonic() + 60
    while moves_made < limit and time.monotonic() < end:
        st = _call(base, path, token)
        if st["over"]:
            break
        if not st["your_turn"]:  # the agents are playing
            time.sleep(0.02)
            continue
        if until(st):
            return st
        moves = st["legal_moves"]
        _call(base, path + "/move", token, {"action": moves[int(rng.integers(len(moves)))][0]})
        moves_made += 1
    raise AssertionError("the position was never reached")


def _page(browser, base: str, created: dict, width: int = 1280):  # noqa: F811
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.goto(base + created["links"]["0"])
    page.wait_for_function("typeof state !== 'undefined' && state !== null && !document.body.classList.contains('away')")
    return page


def test_the_prompt_fits_the_decision_and_the_play_shows_its_series(server, browser):  # noqa: F811
    created = _create(server, "cribbage_v0", {}, ["human", "heuristic"], seed=3)
    rng = np.random.default_rng(1)
    st = _drive(server, created, lambda s: s["phase"] == "play" and len(s["view"]["play"]) > len(s["view"]["series"]), rng)
    page = _page(browser, server, created)
    try:
        zones = page.locator(".series")
        assert zones.count() >= 2  # the series before the last go or 31, and the one in play
        assert zones.last.locator(".card").count() == len(st["view"]["series"])
        assert f"count {st['view']['count']}" in zones.last.inner_text()
        assert "click a highlighted card" in page.locator("#prompt").inner_text()
    finally:
        page.close()
    for phase, prompt in (("announce", "Announce your count: choose a number"),
                          ("respond", "Accept what was announced, or call muggins")):
        _drive(server, created, lambda s, phase=phase: s["phase"] == phase, rng)
        page = _page(browser, server, created)
        try:
            assert page.locator("#prompt").inner_text() == prompt
        finally:
            page.close()


def test_counts_read_in_words_and_an_empty_hand_shows_no_number(server, browser):  # noqa: F811
    created = _create(server, "michigan_v0", {"num_players": 3, "num_hands": 1}, ["human", "heuristic", "heuristic"],
                      seed=2)
    page = _page(browser, server, created)
    try:
        assert page.evaluate("[count(1, 'card'), count(2, 'card'), count(0, 'tile')]") == ["1 card", "2 cards", "0 tiles"]
        _call(server, f"/api/tables/{created['table']}/seats/0", created["links"]["0"].split("#", 1)[1])
        page.evaluate("render(Object.assign({}, state, {ply: state.ply + 1, view: Object.assign({}, state.view, "
                      "{card_counts: state.view.card_counts.map((n, p) => p === state.seat ? n : [1, 0][p % 2])})}))")
        board = page.locator("#board").inner_text()
        assert not re.search(r"\b1 (cards|tiles|chips)\b", board)
        assert "1 card" in board and "0 cards" in board
        assert "0" not in page.locator(".players .stack-label").all_inner_texts()
    finally:
        page.close()


def test_the_dominoes_line_and_the_text_view_stay_inside_a_narrow_window(server, browser):  # noqa: F811
    created = _create(server, "muggins_dominoes_v0", {"episode": "hand", "variant": "muggins"}, ["human", "heuristic"],
                      seed=7)
    _drive(server, created, lambda s: len(s["view"]["plays"]) >= 12, np.random.default_rng(4))
    page = _page(browser, server, created, width=700)
    try:
        page.locator("details summary").click()  # open the text view
        over = page.evaluate("""() => [...document.querySelectorAll('.domino-layout, .felt, #text')]
            .map((e) => e.scrollWidth - e.clientWidth)""")
        assert max(over) <= 2, over
    finally:
        page.close()


def test_the_page_has_a_favicon(server):  # noqa: F811
    with urllib.request.urlopen(server + "/favicon.ico", timeout=10) as r:
        assert r.status == 200 and "svg" in r.headers["content-type"] and b"<svg" in r.read()
