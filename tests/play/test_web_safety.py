"""``muggins-serve`` against a hostile web and a crowd (ASGI test client): the operator's players
only (no spec or path from a request), other sites' pages, host names and content types
refused, bounded input with short clear errors, agents that think off the request path within a
time budget, rate limits, stand-ins for people who went away, and honest turns."""

from __future__ import annotations

import json
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("starlette")
from muggins_env.play.web.app import create_app
from muggins_env.play.web.players import Roster
from starlette.websockets import WebSocketDisconnect

from muggins_env import ENV_NAMES
from tests.play.test_web_api import SMALL, SettledClient, _create, _seat_url, _token


@pytest.fixture
def client():
    with SettledClient(create_app(delay=0)) as c:
        yield c


def _post(client, body, **headers):
    return client.post("/api/tables", content=body if isinstance(body, bytes) else json.dumps(body).encode(),
                       headers={"content-type": "application/json", **headers})


# -- no code or path from the web --------------------------------------------------------------------
def test_a_model_path_is_never_loaded_and_its_existence_never_told(client, monkeypatch, tmp_path):
    calls = []
    from muggins_env import agents

    real = agents.make_agent
    monkeypatch.setattr(agents, "make_agent", lambda spec, *a, **k: calls.append(spec) or real(spec, *a, **k))
    planted = tmp_path / "model.zip"
    planted.write_bytes(b"PK\x03\x04 not a model")
    twin = tmp_path / "nodel.zip"  # the same length, no such file
    r1, r2 = (_post(client, {"game": "cribbage_v0", "seats": ["human", f"ppo:{p}"]}) for p in (planted, twin))
    assert r1.status_code == r2.status_code == 400 and r1.json() == r2.json()
    short_planted = Path(tempfile.mkstemp(suffix=".zip", dir="/tmp")[1])
    try:
        errors = []
        for spec in (f"ppo:{short_planted}", "ppo:/nonexistent.zip", "rllib:/etc", "search:200,horizon=9"):
            r = _post(client, {"game": "cribbage_v0", "seats": ["human", spec]})
            assert r.status_code == 400
            errors.append(r.json()["error"].replace(repr(spec), "SPEC"))
    finally:
        short_planted.unlink()
    assert len(set(errors)) == 1 and "is not one of this server's players" in errors[0]
    assert "heuristic" in errors[0] and "search:N for N <= 400" in errors[0]
    assert not [c for c in calls if c.startswith(("ppo:", "rllib:"))]
    assert not client.app.state.tables.tables


def test_search_is_capped_and_the_operators_players_are_offered_by_name_only():
    roster = Roster({"house": "search:20"}, max_search=100)
    with SettledClient(create_app(delay=0, roster=roster)) as c:
        r = _post(c, {"game": "cribbage_v0", "seats": ["human", "search:101"]})
        assert r.status_code == 400 and "search:N for N <= 100" in r.json()["error"]
        players = c.get("/api/games").json()["cribbage_v0"]["players"]
        names = [p["name"] for p in players]
        assert names[:3] == ["random", "heuristic", "search:100"] and "search:400" not in names
        assert "house" in names and "zoo:cribbage_v0" in names and "zoo:michigan_v0" not in names
        assert "search:20" not in json.dumps(c.get("/api/games").json())  # the spec behind a name stays put
        created = _create(c, "cribbage_v0", ["human", "house"], {"target": 61})
        st = c.get(_seat_url(created, 0), headers={"x-seat-token": _token(created["links"]["0"])}).json()
        assert st["seats"][1]["name"] == "house" and "search:20" not in json.dumps(st)
        table = c.app.state.tables.tables[created["table"]]
        assert table.session.record.seats == ["human", "house"]
        assert type(table.session.agents[1]).__name__ == "SearchAgent" and table.session.agents[1].budget == 20


def test_the_strongest_players_are_offered_by_name_within_the_search_cap():
    capped = Roster(max_search=100)
    assert "best:muggins_dominoes_v0" in capped.players and "best:cribbage_v0" not in capped.players
    full = Roster()
    assert {"best:cribbage_v0", "best:michigan_v0", "best:muggins_cards_v0/mistakes"} <= set(full.players)
    assert not full.players["best:cribbage_v0"].inline  # a search: it thinks on a thinker thread
    with SettledClient(create_app(delay=0, roster=capped)) as c:
        names = [p["name"] for p in c.get("/api/games").json()["muggins_dominoes_v0"]["players"]]
        assert "best:muggins_dominoes_v0" in names and "best:michigan_v0" not in names
        r = _post(c, {"game": "cribbage_v0", "seats": ["human", "best:cribbage_v0"]})
        assert r.status_code == 400 and "is not one of this server's players" in r.json()["error"]
        created = _create(c, "muggins_dominoes_v0", ["human", "best:muggins_dominoes_v0"])
        agent = c.app.state.tables.tables[created["table"]].session.agents[1]
        assert type(agent).__name__ == "SearchAgent" and agent.prior == "hybrid" and agent.budget == 100


def test_a_bad_operator_player_stops_the_server_at_start():
    with pytest.raises(ValueError, match="unknown agent spec 'wizard'"):
        Roster({"w": "wizard"})
    with pytest.raises(ValueError, match="player name 'human'"):
        Roster({"human": "random"})


# -- other sites, other host names, other content types ---------------------------------------------
def test_another_sites_page_cannot_create_or_play(client):
    body = {"game": "cribbage_v0", "seats": ["human", "random"]}
    r = client.post("/api/tables", content=json.dumps(body).encode(), headers={"content-type": "text/plain"})
    assert r.status_code == 415 and "application/json" in r.json()["error"]
    for origin in ("http://evil.example", "null", "http://localhost.evil.example", "http://localhost:9999"):
        r = _post(client, body, origin=origin)
        assert r.status_code == 403 and "refused" in r.json()["error"], origin
    assert not client.app.state.tables.tables
    assert _post(client, body, origin="http://localhost").status_code == 201  # the server's own page
    assert _post(client, body).status_code == 201  # no Origin: curl, a script


def test_a_rebinding_host_name_gets_no_answer_but_addresses_do():
    app = create_app(delay=0, allowed_hosts=["games.example.org"])
    with SettledClient(app) as c:
        for host in ("evil.example", "evil.example:8000", "127.0.0.1.evil.example"):
            r = c.get("/api/games", headers={"host": host})
            assert r.status_code == 403 and "does not answer to the host name" in r.json()["error"]
        for host in ("127.0.0.1:8000", "[::1]:8000", "localhost", "games.example.org:443", "192.168.1.20"):
            assert c.get("/api/games", headers={"host": host}).status_code == 200, host


def test_a_websocket_from_another_site_is_told_and_closed(client):
    created = _create(client, "muggins_dominoes_v0", ["human", "human"], {"episode": "hand"})
    with client.websocket_connect(f"/ws/tables/{created['table']}/seats/0", headers={"origin": "http://evil.example"}) as ws:
        msg = ws.receive_json()
        assert msg["type"] == "error" and "refused" in msg["error"]
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 4403


# -- bad input: a clear 4xx, a short message ------------------------------------------------------------
@pytest.mark.parametrize(("body", "status", "words"), [
    (b"[" * 100_000, 413, "larger than"),
    (b"[" * 5_000, 400, "deeper than 8"),
    (b'{"game": "cribbage_v0", "seats": ["human", "random"], "seed": ' + b"9" * 5000 + b"}", 400, "too long"),
    (b'{"game": "cribbage_v0", "seats": ["human", "random"], "seed": 1e999}', 400, "out of range"),
    (b'{"game": NaN}', 400, "not a JSON value"),
    (b"\xff\xfe", 400, "not UTF-8"),
    (b'{"game": "' + b"x" * 15_000 + b'"}', 400, "unknown game"),
    (b'{"game": "cribbage_v0", "seats": ["human", "random"], "options": {"target": "' + b"y" * 9000 + b'"}}',
     400, "at most 40 characters"),
    (b'{"game": "cribbage_v0", "seats": ["human", "' + b"z" * 9000 + b'"]}', 400, "at most 40 characters"),
    (b'{"game": "cribbage_v0", "seats": ["human", "random"], "seed": -1}', 400, "seed=-1"),
    (b'{"game": "cribbage_v0", "seats": ["human", "random"], "seed": 18446744073709551616}', 400, "2**63"),
])
def test_bad_bodies_get_a_clear_short_error(client, body, status, words):
    r = _post(client, body)
    assert r.status_code == status, r.text
    assert words in r.json()["error"] and len(r.json()["error"]) < 400
    assert not client.app.state.tables.tables


def test_a_large_body_is_refused_before_it_is_read(client):
    r = client.post("/api/tables", content=b"{" + b" " * 10_000_000 + b"}",
                    headers={"content-type": "application/json"})
    assert r.status_code == 413 and len(r.text) < 200


@pytest.mark.parametrize(("frame", "words"), [
    ("not json", "not JSON"),
    ("[" * 1000, "deeper than 8"),
    ('{"token": ' + "7" * 5000 + "}", "too long"),
    ('{"token": "x", "more": 1}', 'the first message must be {"token"'),
    (b"\x00\x01binary", "text messages"),
    ("x" * 5000, "too long"),
])
def test_a_bad_websocket_hello_is_answered_and_closed(client, frame, words):
    created = _create(client)
    with client.websocket_connect(f"/ws/tables/{created['table']}/seats/0") as ws:
        ws.send_bytes(frame) if isinstance(frame, bytes) else ws.send_text(frame)
        msg = ws.receive_json()
        assert msg["type"] == "error" and words in msg["error"] and len(msg["error"]) < 300
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert 4400 <= closed.value.code < 4500


def test_junk_after_the_hello_closes_only_that_socket(client):
    created = _create(client)
    url = f"/ws/tables/{created['table']}/seats/0"
    with client.websocket_connect(url) as ws:
        ws.send_json({"token": _token(created["links"]["0"])})
        assert ws.receive_json()["type"] == "state"
        ws.send_bytes(b"\x00" * 10)
        assert "text messages" in ws.receive_json()["error"]
    with client.websocket_connect(url) as ws:  # the seat rejoins as before
        ws.send_json({"token": _token(created["links"]["0"])})
        assert ws.receive_json()["state"]["seat"] == 0


def test_bad_paths_and_moves_are_4xx(client):
    created = _create(client)
    h = {"x-seat-token": _token(created["links"]["0"])}
    for path in (f"/api/tables/{created['table']}/seats/{'9' * 5000}", f"/api/tables/{'t' * 5000}/seats/0",
                 f"/api/tables/{created['table']}/seats/-1"):
        r = client.get(path, headers=h)
        assert r.status_code == 404 and len(r.json()["error"]) < 200
    for body, status in ((b'{"action": ' + b"1" * 5000 + b"}", 400), (b'{"action": 100000000000000000000}', 409),
                         (b'{"action": 1, "x": 2}', 400), (b'{"action": 1}' + b" " * 20000, 413)):
        r = client.post(_seat_url(created, 0, "/move"), content=body, headers={**h, "content-type": "application/json"})
        assert r.status_code == status, (body[:30], r.text)
    assert client.get(_seat_url(created, 0), headers=h).json()["ply"] == 0


# -- limits that protect live games ---------------------------------------------------------------------
def test_table_creation_is_rate_limited_per_client_address():
    with SettledClient(create_app(delay=0, create_rate=6)) as c:  # 6 a minute, 2 at once
        codes = [_post(c, {"game": "cribbage_v0", "seats": ["human", "random"]}) for _ in range(4)]
        assert [r.status_code for r in codes] == [201, 201, 429, 429]
        assert "too many new tables" in codes[2].json()["error"]
        assert 1 <= int(codes[2].headers["retry-after"]) <= 10
        assert len(c.app.state.tables.tables) == 2


class SlowRoster(Roster):
    """The package's players plus ``slow``: an agent that thinks until the test lets it go."""

    def __init__(self, release: threading.Event, **kwargs):
        super().__init__(**kwargs)
        self.release = release

    def resolve(self, name):
        from muggins_env.play.web.players import Player

        return Player("slow", "search:1", "slow") if name == "slow" else super().resolve(name)

    def make(self, name, game, options=None):
        if name != "slow":
            return super().make(name, game, options)
        release = self.release

        class Slow:
            def act(self, obs, mask, rng, info=None):
                release.wait(30)
                return int(np.flatnonzero(mask)[-1])

        agent = Slow()
        agent.name = "slow"
        return agent


def _unsettled(c, method, path, **kwargs):  # a request that does not wait for the agents to settle
    return super(SettledClient, c).request(method, path, **kwargs)


def test_a_thinking_agent_blocks_neither_its_table_nor_the_server():
    release = threading.Event()
    app = create_app(delay=0, roster=SlowRoster(release), agent_workers=1, move_seconds=60)
    try:
        with SettledClient(app) as c:
            body = {"game": "cribbage_v0", "seats": ["slow", "human"], "seed": 3}
            tables = [_unsettled(c, "POST", "/api/tables", json=body) for _ in range(4)]
            assert all(r.status_code == 201 for r in tables)
            created = tables[0].json()
            # the one thinker is busy for as long as the test likes; pages, files and tables still answer
            h = {"x-seat-token": _token(created["links"]["1"])}
            for path, headers in (("/", {}), ("/static/table.js", {}), ("/api/games", {}), (_seat_url(created, 1), h)):
                start = time.monotonic()
                r = _unsettled(c, "GET", path, headers=headers)
                assert r.status_code == 200 and time.monotonic() - start < 1.0, path
            st = _unsettled(c, "GET", _seat_url(created, 1), headers=h).json()
            assert st["to_act"] == 0 and not st["your_turn"] and st["legal_moves"] == []
            r = _unsettled(c, "POST", _seat_url(created, 1, "/move"), headers=h, json={"action": 0})
            assert r.status_code == 409 and "turn" in r.json()["error"]
            release.set()
            c.settle()
            assert _unsettled(c, "GET", _seat_url(created, 1), headers=h).json()["ply"] >= 1
    finally:
        release.set()


def test_an_agent_past_its_time_budget_is_replaced_by_the_heuristics_move_and_said_so():
    release = threading.Event()
    app = create_app(delay=0, roster=SlowRoster(release), move_seconds=0.2)
    try:
        with SettledClient(app) as c:
            created = _post(c, {"game": "cribbage_v0", "seats": ["slow", "human"], "seed": 3}).json()
            st = c.get(_seat_url(created, 1), headers={"x-seat-token": _token(created["links"]["1"])}).json()
            assert st["ply"] >= 1 and any("took longer than 0.2 s" in n for n in st["notices"])
    finally:
        release.set()


def test_an_away_person_is_replaced_by_the_chosen_stand_in_and_the_others_are_told():
    with SettledClient(create_app(delay=0, seat_timeout=0.3)) as c:
        r = _post(c, {"game": "muggins_dominoes_v0", "seats": ["human", "human"], "options": {"episode": "hand"},
                      "seed": 4, "stand_ins": ["random", "heuristic"]})
        created = r.json()
        h = [{"x-seat-token": _token(created["links"][str(p)])} for p in (0, 1)]
        st = c.get(_seat_url(created, 0), headers=h[0]).json()
        away = st["to_act"]
        here = 1 - away
        for _ in range(100):
            time.sleep(0.1)
            c.settle()
            st = c.get(_seat_url(created, here), headers=h[here]).json()
            if st["seats"][away]["stand_in"]:
                break
        assert st["seats"][away]["stand_in"] and st["seats"][away]["name"] == ["random", "heuristic"][away]
        assert any(f"player {away} was away" in n for n in st["notices"])
        r = c.post(_seat_url(created, away, "/move"), headers=h[away], json={"action": 0})
        assert r.status_code == 409 and "since you were away" in r.json()["error"]


def test_stand_ins_are_checked(client):
    for stand_ins, words in ((["heuristic"], "one entry per seat"), ([None, "heuristic"], "not a human seat"),
                             (["wizard", None], "not one of this server's players")):
        r = _post(client, {"game": "cribbage_v0", "seats": ["human", "random"], "stand_ins": stand_ins})
        assert r.status_code == 400 and words in r.json()["error"], stand_ins


# -- honest turns -------------------------------------------------------------------------------------
@pytest.mark.parametrize("game", ENV_NAMES)
def test_a_seat_is_told_its_turn_only_for_a_real_choice(client, game, monkeypatch):
    from muggins_env.play.web.tables import Table

    told = []
    build = Table.payload

    def spy(self, seat, log_from=0):
        out = build(self, seat, log_from)
        s = self.session
        legal = s.legal_moves() if s.to_act == seat else {}
        if out["your_turn"]:
            told.append(len(legal))
            assert len(legal) >= 2 and len(out["legal_moves"]) == len(legal)
        elif s.to_act == seat and not s.is_over:
            assert len(legal) == 1 and out["legal_moves"] == []  # the server plays it
        return out

    monkeypatch.setattr(Table, "payload", spy)
    from tests.play.test_web_api import _play_out

    n = SMALL[game].get("num_players", 2)
    created = _create(client, game, ["human", "human"] + ["heuristic"] * (n - 2), SMALL[game], seed=5)
    _play_out(client, created, np.random.default_rng(2))
    assert told


# -- games last ---------------------------------------------------------------------------------------
def test_a_finished_games_record_outlives_a_restart_until_it_expires(tmp_path):
    from tests.play.test_web_api import _play_out

    db = tmp_path / "tables.sqlite3"
    with SettledClient(create_app(delay=0, db=db)) as c:
        created = _create(c, "muggins_dominoes_v0", ["human", "heuristic"], {"episode": "hand"}, seed=9)
        final = _play_out(c, created, np.random.default_rng(3))
        h = {"x-seat-token": _token(created["links"]["0"])}
        before = c.get(_seat_url(created, 0, "/record"), headers=h).json()
    assert final["over"]
    with SettledClient(create_app(delay=0, db=db)) as c:  # a new server on the same database
        assert not c.app.state.tables.tables  # a finished game is not replayed at start, only when asked
        r = c.get(_seat_url(created, 0, "/record"), headers=h)
        assert r.status_code == 200 and r.json()["moves"] == before["moves"]
        assert c.get(_seat_url(created, 0), headers={"x-seat-token": "wrong"}).status_code == 403
    time.sleep(0.2)
    with SettledClient(create_app(delay=0, db=db, keep_days=0.1 / 86400)) as c:  # kept 0.1 s
        r = c.get(_seat_url(created, 0, "/record"), headers=h)
        assert r.status_code == 404 and "kept" in r.json()["error"]
