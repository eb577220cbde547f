"""``muggins-serve`` as a process: a SIGTERM stops it within seconds even while an agent thinks,
and a restart resumes every game of every env where it was (the person reconnects by the same
link and finishes it); in headless Chromium, the page shows the server away and reconnects by
itself, and another site's page cannot create a table."""

from __future__ import annotations

import json
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from muggins_env import ENV_NAMES
from muggins_env.records import GameRecord, replay
from tests.play.test_web_api import SMALL


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """``muggins-serve`` in a subprocess on 127.0.0.1."""

    def __init__(self, db: Path, port: int | None = None, *extra: str) -> None:
        self.db, self.port, self.extra = db, port or _free_port(), extra
        self.base = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen | None = None

    def start(self) -> Server:
        self.proc = subprocess.Popen([sys.executable, "-m", "muggins_env.play.web.cli", "--port", str(self.port),
                                      "--delay", "0", "--db", str(self.db), *self.extra],
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        for _ in range(300):
            try:
                urllib.request.urlopen(self.base + "/api/server", timeout=1).read()
                return self
            except OSError:
                if self.proc.poll() is not None:
                    raise RuntimeError("muggins-serve exited: " + self.proc.stdout.read().decode()) from None
                time.sleep(0.1)
        raise RuntimeError("muggins-serve did not start")

    def stop(self) -> float:
        """SIGTERM; the seconds it took to exit."""
        start = time.monotonic()
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return float("inf")
        return time.monotonic() - start

    def output(self) -> str:
        return self.proc.stdout.read().decode() if self.proc.stdout else ""

    def call(self, method: str, path: str, body: dict | None = None, token: str | None = None) -> tuple[int, dict]:
        headers = {"content-type": "application/json"}
        if token:
            headers["x-seat-token"] = token
        req = urllib.request.Request(self.base + path, method=method, headers=headers,
                                     data=json.dumps(body).encode() if body is not None else None)
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())


def _state_when_ready(server: Server, table: str, seat: int, token: str) -> dict:
    """The seat's state once the agents have played: its real choice, or the end."""
    for _ in range(600):
        _, st = server.call("GET", f"/api/tables/{table}/seats/{seat}", token=token)
        if st["your_turn"] or st["over"] or st["error"]:
            return st
        time.sleep(0.02)
    raise AssertionError(f"table {table}: seat {seat} never got a decision")


def _play(server: Server, table: str, token: str, rng: np.random.Generator, moves: int | None) -> dict:
    """Seat 0 plays ``moves`` random legal moves (None: to the end); returns its last state."""
    st = _state_when_ready(server, table, 0, token)
    played = 0
    while not st["over"] and (moves is None or played < moves):
        assert not st["error"], st["error"]
        action = st["legal_moves"][int(rng.integers(len(st["legal_moves"])))][0]
        code, out = server.call("POST", f"/api/tables/{table}/seats/0/move", {"action": action}, token)
        assert code == 200, out
        played += 1
        st = _state_when_ready(server, table, 0, token)
    return st


def _ws_state(server: Server, table: str, token: str) -> dict:
    from websockets.sync.client import connect

    with connect(f"ws://127.0.0.1:{server.port}/ws/tables/{table}/seats/0", open_timeout=10) as ws:
        ws.send(json.dumps({"token": token}))
        return json.loads(ws.recv(timeout=10))


def test_sigterm_stops_a_busy_server_within_seconds_and_a_restart_resumes_every_game(tmp_path):
    pytest.importorskip("websockets")
    db = tmp_path / "tables.sqlite3"
    thinker = ("--agent", "slow=search:300000", "--move-seconds", "600")
    server = Server(db, None, *thinker).start()
    games, before = {}, {}
    try:
        for i, game in enumerate(ENV_NAMES):
            n = SMALL[game].get("num_players", 2)
            code, created = server.call("POST", "/api/tables", {"game": game, "seats": ["human"] + ["heuristic"] * (n - 1),
                                                                "options": SMALL[game], "seed": 40 + i})
            assert code == 201, created
            token = created["links"]["0"].split("#", 1)[1]
            games[game] = (created["table"], token)
            before[game] = _play(server, created["table"], token, np.random.default_rng(i), moves=3)
            assert before[game]["ply"] > 3 and not before[game]["over"]
        code, _busy = server.call("POST", "/api/tables", {"game": "cribbage_v0", "seats": ["slow", "human"], "seed": 1})
        assert code == 201
        time.sleep(1.0)  # the search is thinking on its thread now
    finally:
        took = server.stop()
    assert took < 5, f"SIGTERM took {took:.1f} s"
    assert "Traceback" not in server.output()
    with sqlite3.connect(db) as con:  # every table and move was written as it was played
        assert con.execute("SELECT COUNT(*) FROM tables").fetchone()[0] == len(ENV_NAMES) + 1
        tokens = {t for _, t in games.values()}
        stored = " ".join(r[0] for r in con.execute("SELECT token_hashes FROM tables"))
        assert not any(t in stored for t in tokens)  # only their hashes

    server = Server(db, server.port, *thinker).start()
    try:
        for i, game in enumerate(ENV_NAMES):
            table, token = games[game]
            pushed = _ws_state(server, table, token)  # the person reconnects by the same link
            assert pushed["type"] == "state"
            st = pushed["state"]
            for key in ("ply", "view", "legal_moves", "scores", "log", "text"):
                assert st[key] == before[game][key], (game, key)
            final = _play(server, table, token, np.random.default_rng(100 + i), moves=None)
            assert final["over"]
            with urllib.request.urlopen(urllib.request.Request(
                    f"{server.base}/api/tables/{table}/seats/0/record", headers={"x-seat-token": token})) as r:
                record = GameRecord.from_dict(json.loads(r.read()))
            assert record.finished and record.env_id == game
            assert replay(record) == pytest.approx(final["result"]["returns"])
        code, st = server.call("GET", f"/api/tables/{games['cribbage_v0'][0]}/seats/0", token="wrong")
        assert code == 403  # a resumed table still checks its tokens
    finally:
        assert server.stop() < 5


# -- in the browser ------------------------------------------------------------------------------------
def _browser():
    sync_api = pytest.importorskip("playwright.sync_api")
    import shutil

    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(chromium).exists():
        pytest.skip("Debian's chromium is not installed (apt-get install -y chromium)")
    from tests.play.test_web_browser import ARGS

    return sync_api, chromium, ARGS


def test_the_page_shows_the_server_away_and_reconnects_by_itself(tmp_path):
    sync_api, chromium, args = _browser()
    from tests.play.test_web_browser import _play_out

    db = tmp_path / "tables.sqlite3"
    server = Server(db).start()
    _, created = server.call("POST", "/api/tables", {"game": "muggins_dominoes_v0", "seats": ["human", "heuristic"],
                                                     "options": {"episode": "hand"}, "seed": 5})
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, headless=True, args=args)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 860})
            page.goto(server.base + created["links"]["0"])
            page.wait_for_selector("#moves .move")
            page.locator("#moves .move").first.click()
            page.wait_for_function("document.querySelectorAll('#log li').length > 1")
            page.wait_for_selector("#moves .move")
            assert server.stop() < 5
            page.wait_for_selector("#away:not([hidden])", timeout=10_000)
            # read once the server is gone: no update can land after it (the seats after the
            # click may still be moving when the human's buttons first show)
            log = page.locator("#log").inner_text()
            assert "reconnecting" in page.locator("#away").inner_text()
            assert page.locator("#moves .move").count() == 0  # no live buttons on a stale board
            assert page.locator(".hand .playable").count() == 0
            server = Server(db, server.port).start()
            page.wait_for_selector("#away", state="hidden", timeout=15_000)
            page.wait_for_selector("#moves .move")
            assert page.locator("#log").inner_text() == log
            _play_out(page, None)
            assert "Game over" in page.locator("#over-title").inner_text()
        finally:
            browser.close()
            server.stop()


EVIL = """<!doctype html><html><body><script>
const target = "{target}";
const body = JSON.stringify({{game: "cribbage_v0", seats: ["human", "ppo:/tmp/planted.zip"]}});
const ok = {{game: "cribbage_v0", seats: ["human", "random"]}};
(async () => {{
  const results = [];
  for (const [mode, type, b] of [["no-cors", "text/plain", body], ["no-cors", "text/plain", JSON.stringify(ok)],
                                ["cors", "application/json", JSON.stringify(ok)]]) {{
    try {{ const r = await fetch(target + "/api/tables", {{method: "POST", mode, headers: {{"content-type": type}}, body: b}});
          results.push(mode + ":" + r.type + ":" + r.status); }}
    catch (e) {{ results.push(mode + ":blocked"); }}
  }}
  const ws = new WebSocket(target.replace("http", "ws") + "/ws/tables/x/seats/0");
  ws.onmessage = (ev) => {{ results.push("ws:" + JSON.parse(ev.data).error); }};
  ws.onclose = (ev) => {{ results.push("ws-closed:" + ev.code); document.title = "done"; window.results = results; }};
}})();
</script></body></html>"""


def test_another_sites_page_in_the_browser_cannot_create_a_table(tmp_path):
    sync_api, chromium, args = _browser()
    db = tmp_path / "tables.sqlite3"
    server = Server(db).start()
    site = tmp_path / "site"
    site.mkdir()
    (site / "evil.html").write_text(EVIL.format(target=server.base))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), partial(SimpleHTTPRequestHandler, directory=str(site)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        with sync_api.sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, headless=True, args=args)
            try:
                page = browser.new_page()
                page.goto(f"http://127.0.0.1:{httpd.server_address[1]}/evil.html")
                page.wait_for_function("document.title === 'done'", timeout=15_000)
                results = page.evaluate("window.results")
            finally:
                browser.close()
        assert "cors:blocked" in results  # the JSON request needs a preflight the server never grants
        assert "ws-closed:4403" in results and any(r.startswith("ws:requests from the page at") for r in results)
        with sqlite3.connect(db) as con:
            assert con.execute("SELECT COUNT(*) FROM tables").fetchone()[0] == 0
        code, _ = server.call("POST", "/api/tables", {"game": "cribbage_v0", "seats": ["human", "random"]})
        assert code == 201  # the server itself works: it refused the page, not everything
    finally:
        httpd.shutdown()
        server.stop()
