"""The web tables' HTTP and WebSocket API through Starlette's ASGI test client: creating tables,
seat tokens, refused moves, full games of every env with agents, the game record, bounded
memory, and the information boundary (no message to a seat names a card hidden from it)."""

from __future__ import annotations

import json
import re
import time

import numpy as np
import pytest

pytest.importorskip("starlette")
from muggins_env.play.web import cli
from muggins_env.play.web.app import create_app
from muggins_env.play.web.tables import Table
from starlette.testclient import TestClient
from starlette.websockets import WebSocket

from muggins_env import ENV_NAMES
from muggins_env.kernel.cards import parse_card
from muggins_env.kernel.tiles import tile_id
from muggins_env.records import GameRecord, replay

#: small games: one hand, short targets
SMALL = {
    "muggins_cards_v0": {"num_players": 3, "mistakes": True},
    "muggins_dominoes_v0": {"episode": "hand", "variant": "all_fives"},
    "michigan_v0": {"num_players": 3, "num_hands": 1},
    "cribbage_v0": {"target": 61},
}


class SettledClient(TestClient):
    """A test client whose requests return once the tables' agents have played (the server runs
    them in tasks of their own, after the response)."""

    def __init__(self, app, **kwargs):
        super().__init__(app, base_url="http://localhost", **kwargs)

    def websocket_connect(self, url, *args, **kwargs):
        return super().websocket_connect("ws://localhost" + url if url.startswith("/") else url, *args, **kwargs)

    def request(self, *args, **kwargs):
        response = super().request(*args, **kwargs)
        self.settle()
        return response

    def settle(self, seconds: float = 60) -> None:
        tables = self.app.state.tables.tables
        end = time.monotonic() + seconds
        while any(t.task is not None for t in list(tables.values())):
            assert time.monotonic() < end, "the agents did not finish"
            time.sleep(0.002)


@pytest.fixture
def client():
    with SettledClient(create_app(delay=0)) as c:
        yield c


def _create(client, game="cribbage_v0", seats=("human", "heuristic"), options=None, seed=3, status=201):
    r = client.post("/api/tables", json={"game": game, "seats": list(seats), "options": options or {},
                                         "seed": seed})
    assert r.status_code == status, r.text
    return r.json()


def _token(link: str) -> str:
    return link.split("#", 1)[1]


def _seat_url(created: dict, seat: int, what: str = "") -> str:
    return f"/api/tables/{created['table']}/seats/{seat}{what}"


# -- creating tables -------------------------------------------------------------------------------
@pytest.mark.parametrize(("body", "words"), [
    ({"game": "chess", "seats": ["human", "random"]}, ["unknown game 'chess'", "cribbage_v0"]),
    ({"game": "cribbage_v0", "seats": ["human"]}, ["1 seat(s) given for 2 players"]),
    ({"game": "cribbage_v0", "seats": ["human", "wizard"]}, ["wizard"]),
    ({"game": "cribbage_v0", "seats": ["heuristic", "random"]}, ["at least one seat must be 'human'"]),
    ({"game": "cribbage_v0", "seats": ["human", "random"], "options": {"target": 99}}, ["target=99", "121, 61"]),
    ({"game": "cribbage_v0", "seats": ["human", "random"], "options": {"colour": 1}}, ["unknown option", "colour"]),
    ({"game": "cribbage_v0", "seats": ["human", "random"], "seed": "x"}, ["seed='x'"]),
    ({"game": "cribbage_v0", "seats": ["human", "random"], "players": 2}, ["unknown field", "players"]),
])
def test_a_bad_table_is_refused_naming_the_value(client, body, words):
    r = client.post("/api/tables", json=body)
    assert r.status_code == 400
    for w in words:
        assert w in r.json()["error"]


def test_malformed_json_is_refused(client):
    r = client.post("/api/tables", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 400 and "not JSON" in r.json()["error"]


def test_each_human_seat_gets_its_own_unguessable_link(client):
    created = _create(client, "michigan_v0", ["human", "heuristic", "human"], {"num_players": 3})
    assert set(created["links"]) == {"0", "2"}
    tokens = [_token(link) for link in created["links"].values()]
    assert len(set(tokens)) == 2 and all(len(t) >= 32 for t in tokens)
    assert created["links"]["2"].startswith(f"/table/{created['table']}/2#")
    other = _create(client, "michigan_v0", ["human", "heuristic", "human"], {"num_players": 3})
    assert other["table"] != created["table"] and not set(tokens) & {_token(x) for x in other["links"].values()}


# -- tokens ----------------------------------------------------------------------------------------
def test_wrong_missing_or_other_seats_token_is_refused(client):
    created = _create(client, "muggins_dominoes_v0", ["human", "human"], {"episode": "hand"})
    t0, t1 = _token(created["links"]["0"]), _token(created["links"]["1"])
    for what in ("", "/record"):
        for headers in ({}, {"x-seat-token": "guess"}, {"x-seat-token": t1}):
            r = client.get(_seat_url(created, 0, what), headers=headers)
            assert r.status_code == 403, (what, headers)
            assert "not the token of seat 0" in r.json()["error"]
            assert "view" not in r.json()
    r = client.post(_seat_url(created, 0, "/move"), headers={"x-seat-token": t1}, json={"action": 0})
    assert r.status_code == 403
    assert client.get(_seat_url(created, 0), headers={"x-seat-token": t0}).json()["seat"] == 0
    assert client.get(_seat_url(created, 1), headers={"x-seat-token": t1}).json()["seat"] == 1


def test_agent_seats_and_unknown_tables_have_no_endpoint(client):
    created = _create(client)
    t0 = _token(created["links"]["0"])
    r = client.get(_seat_url(created, 1), headers={"x-seat-token": t0})
    assert r.status_code == 404 and "not a human seat" in r.json()["error"]
    r = client.get("/api/tables/nope/seats/0", headers={"x-seat-token": t0})
    assert r.status_code == 404 and "no table 'nope'" in r.json()["error"]


def test_websocket_refuses_a_wrong_token_and_pushes_to_the_right_one(client):
    created = _create(client, "muggins_dominoes_v0", ["human", "human"], {"episode": "hand"})
    url = f"/ws/tables/{created['table']}/seats/0"
    with client.websocket_connect(url) as ws:
        ws.send_json({"token": _token(created["links"]["1"])})
        msg = ws.receive_json()
        assert msg["type"] == "error" and "not the token of seat 0" in msg["error"]
    with client.websocket_connect(url) as ws:
        ws.send_json({"token": _token(created["links"]["0"])})
        msg = ws.receive_json()
        assert msg["type"] == "state" and msg["state"]["seat"] == 0


# -- moves -----------------------------------------------------------------------------------------
def _human_dominoes(client):
    created = _create(client, "muggins_dominoes_v0", ["human", "human"], {"episode": "hand"}, seed=4)
    h = [{"x-seat-token": _token(created["links"][str(p)])} for p in (0, 1)]
    state = client.get(_seat_url(created, 0), headers=h[0]).json()
    return created, h, state


def test_out_of_turn_and_illegal_moves_are_refused_and_change_nothing(client):
    created, h, state = _human_dominoes(client)
    actor = state["to_act"]
    waiting = 1 - actor
    st = client.get(_seat_url(created, actor), headers=h[actor]).json()
    legal = [a for a, _ in st["legal_moves"]]
    assert legal
    r = client.post(_seat_url(created, waiting, "/move"), headers=h[waiting], json={"action": legal[0]})
    assert r.status_code == 409 and f"it is player {actor}'s turn, not player {waiting}'s" in r.json()["error"]
    illegal = next(a for a in range(200) if a not in legal)
    r = client.post(_seat_url(created, actor, "/move"), headers=h[actor], json={"action": illegal})
    assert r.status_code == 409 and f"action {illegal} is not legal" in r.json()["error"]
    assert "legal moves" in r.json()["error"]
    for bad in ("6-4", 1.5, True, None):
        r = client.post(_seat_url(created, actor, "/move"), headers=h[actor], json={"action": bad})
        assert r.status_code == 400 and "must be an action index" in r.json()["error"]
    r = client.post(_seat_url(created, actor, "/move"), headers=h[actor], json={})
    assert r.status_code == 400 and '{"action": index}' in r.json()["error"]
    after = client.get(_seat_url(created, actor), headers=h[actor]).json()
    assert after["ply"] == st["ply"] and after["view"] == st["view"]
    r = client.post(_seat_url(created, actor, "/move"), headers=h[actor], json={"action": legal[0]})
    assert r.status_code == 200 and r.json()["ply"] > st["ply"]


def test_a_failing_agent_stops_the_table_with_its_message(client):
    created = _create(client, "muggins_dominoes_v0", ["human", "heuristic"], {"episode": "hand"}, seed=4)
    table = client.app.state.tables.get(created["table"])

    class Broken:
        def act(self, *args):
            raise RuntimeError("model file is corrupt")

    table.session.agents[1] = Broken()
    h = {"x-seat-token": _token(created["links"]["0"])}
    for _ in range(50):  # play until the agent has to choose
        st = client.get(_seat_url(created, 0), headers=h).json()
        if st["error"]:
            break
        client.post(_seat_url(created, 0, "/move"), headers=h, json={"action": st["legal_moves"][0][0]})
    assert "RuntimeError: model file is corrupt" in st["error"]
    assert not st["over"]
    r = client.post(_seat_url(created, 0, "/move"), headers=h, json={"action": 0})
    assert r.status_code == 409 and "this table stopped" in r.json()["error"]


def test_a_socket_that_never_sends_its_token_is_closed(client, monkeypatch):
    monkeypatch.setattr("muggins_env.play.web.app.HELLO_SECONDS", 0.2)
    created = _create(client)
    with client.websocket_connect(f"/ws/tables/{created['table']}/seats/0") as ws:
        msg = ws.receive_json()
        assert msg["type"] == "error" and "token" in msg["error"]


def test_the_record_is_withheld_until_the_game_is_over(client):
    created, h, _ = _human_dominoes(client)
    r = client.get(_seat_url(created, 0, "/record"), headers=h[0])
    assert r.status_code == 409 and "once the game is over" in r.json()["error"]


# -- full games --------------------------------------------------------------------------------------
def _play_out(client, created: dict, rng: np.random.Generator, on_message=None) -> dict:
    """Humans choose uniformly among their legal moves until the game ends; returns the last state."""
    heads = {int(p): {"x-seat-token": _token(link)} for p, link in created["links"].items()}
    states = {p: client.get(_seat_url(created, p), headers=hd).json() for p, hd in heads.items()}
    for p, st in states.items():
        on_message and on_message(p, st)
    for _ in range(3000):
        st = next(iter(states.values()))
        if st["over"]:
            return st
        actor = st["to_act"]
        assert actor in heads, f"an agent seat {actor} is to act after the agents ran"
        legal = client.get(_seat_url(created, actor), headers=heads[actor]).json()["legal_moves"]
        action = legal[int(rng.integers(len(legal)))][0]
        r = client.post(_seat_url(created, actor, "/move"), headers=heads[actor], json={"action": action})
        assert r.status_code == 200, r.text
        on_message and on_message(actor, r.json())
        states = {p: client.get(_seat_url(created, p), headers=hd).json() for p, hd in heads.items()}
        for p, s in states.items():
            on_message and on_message(p, s)
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("game", ENV_NAMES)
def test_a_full_game_against_agents_ends_with_a_replayable_record(client, game):
    n = SMALL[game].get("num_players", 2)
    seats = ["human"] + ["heuristic", "random"][: n - 1] + ["heuristic"] * max(0, n - 3)
    created = _create(client, game, seats, SMALL[game], seed=21)
    final = _play_out(client, created, np.random.default_rng(0))
    assert final["over"] and final["to_act"] is None and final["legal_moves"] == []
    assert final["hands"] and final["hands"][-1]["final"]
    r = client.get(_seat_url(created, 0, "/record"), headers={"x-seat-token": _token(created["links"]["0"])})
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    record = GameRecord.from_dict(r.json())
    assert record.env_id == game and record.seats == seats and record.finished
    assert replay(record) == pytest.approx(final["result"]["returns"])
    assert len(final["log"]) == len(record.moves)
    # the hands' points add up to the final scores' change from the start
    total = [sum(h["points"][p] for h in final["hands"]) for p in range(n)]
    first = [a - b for a, b in zip(record.moves[0].scores, record.moves[0].points)]
    assert [f + t for f, t in zip(first, total)] == pytest.approx(final["result"]["scores"])


def test_a_full_server_refuses_new_tables_rather_than_drop_a_live_game():
    with SettledClient(create_app(max_tables=2, delay=0)) as c:
        first, second = _create(c), _create(c)
        r = c.post("/api/tables", json={"game": "cribbage_v0", "seats": ["human", "heuristic"]})
        assert r.status_code == 503 and "this server is full" in r.json()["error"]
        assert int(r.headers["retry-after"]) > 0
        for t in (first, second):  # both games go on
            assert c.get(_seat_url(t, 0), headers={"x-seat-token": _token(t["links"]["0"])}).status_code == 200
        assert len(c.app.state.tables.tables) == 2


def test_tables_idle_past_the_limit_leave_memory_and_come_back_by_their_link():
    with SettledClient(create_app(max_tables=2, delay=0, idle_minutes=0)) as c:
        first, _second, _third = (_create(c) for _ in range(3))
        assert len(c.app.state.tables.tables) == 2 and first["table"] not in c.app.state.tables.tables
        h = {"x-seat-token": _token(first["links"]["0"])}
        st = c.get(_seat_url(first, 0), headers=h)  # replayed from the database
        assert st.status_code == 200 and st.json()["your_turn"] and st.json()["table"] == first["table"]


def test_pages_and_static_files_are_served(client):
    assert "Create table" in client.get("/").text
    assert "draw.js" in client.get("/table/abc/0").text
    for f in ("draw.js", "table.js", "create.js", "style.css"):
        assert client.get(f"/static/{f}").status_code == 200
    games = client.get("/api/games").json()
    assert set(games) == set(ENV_NAMES) and games["cribbage_v0"]["options"]["target"]["allowed"] == [121, 61]
    # the table page's title and drawing, from the games' declarations
    assert {g: (v["short_title"], v["drawing"]) for g, v in games.items()} == {
        "muggins_cards_v0": ("Muggins (cards)", "muggins_cards"), "cribbage_v0": ("Cribbage", "cribbage"),
        "muggins_dominoes_v0": ("Muggins dominoes", "dominoes"), "michigan_v0": ("Michigan", "michigan")}


def test_serve_binds_localhost_by_default_and_names_the_extra_when_missing(monkeypatch, capsys):
    args = cli.build_parser().parse_args([])
    assert (args.host, args.port) == ("127.0.0.1", 8000)
    monkeypatch.setitem(__import__("sys").modules, "uvicorn", None)  # as if the extra were not installed
    assert cli.main([]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "pip install 'muggins-env[web]'" in err[0]


# -- the information boundary -------------------------------------------------------------------------
CARD_RE = re.compile(r"(10|[2-9AJQK])[♣♦♥♠]")
TILE_RE = re.compile(r"(?<![\w-])(\d+)-(\d+)(?![\w-])")


def _hidden(session, seat: int) -> set[int]:
    """Every card (tile) the full state hides from ``seat`` now: other hands, the stock, the
    pack, the boneyard, the widow, face-down cards."""
    st = session.env.kernel_state
    game = session.env_id
    others = [q for q in range(session.num_players) if q != seat]
    if game == "muggins_dominoes_v0":
        return {t for q in others for t in st.hands[q]} | set(st.boneyard)
    if game == "michigan_v0":
        known = set(st.known_widow_cards())
        seq = st.public_view(seat)["sequence"]  # the next card of a sequence is named by the rules
        if seq is not None:                     # (and its holder by whose turn it is)
            known.add(seq["next_card"])
        return {c for c, o in enumerate(st.owner) if (o >= 0 and o != seat) or o == -1} - known
    if game == "muggins_cards_v0":
        return {c for s in st.stocks for c in s if not st.face_up[c]}
    assert game == "cribbage_v0"
    view = st.public_view(seat)  # the crib is turned up when it is counted
    crib_shown = any(sh["is_crib"] for sh in view["shown"]) or bool(view["review"] and view["review"]["is_crib"])
    hidden = {c for q in others for c in st.hands[q]}
    if not crib_shown:
        hidden |= {c for q in others for c in st.laid_away[q]}
        if st.pack_crib_card >= 0:
            hidden.add(st.pack_crib_card)
    if not st.starter_cut:
        hidden.add(st.starter_card)
    return hidden


def _card_ints(game: str, v: dict) -> set[int]:
    """The card (tile) ids in a seat's view, by the game's documented view fields."""
    if game == "muggins_dominoes_v0":
        return set(v["hand"]) | {v["lead"]} | {t for _, t, _ in v["plays"]} | set(v["played"])
    if game == "michigan_v0":
        return set(v["hand"]) | {c for c, _ in v["played"]} | set(v["known_widow"])
    if game == "muggins_cards_v0":
        return {v["card_in_play"], *v["commons"], *v["discard_tops"], *v["next_cards"]}
    rv = v["review"] or {}
    return (set(v["hand"]) | set(v["crib_discards"]) | {v["starter"] if v["starter"] is not None else -1}
            | {c for _, c in v["play"]} | set(rv.get("cards", [])) | {c for sh in v["shown"] for c in sh["cards"]})


def _named(game: str, payload: dict, deal_start: int) -> set[int]:
    """Card (tile) ids a payload names about the current hand: view ids, and every card or tile
    written in its text, its move names since the hand began and its legal moves."""
    v = dict(payload["view"])
    for past in ("previous_deal_shown", "last_hand", "last_review"):  # earlier hands, shown then
        v.pop(past, None)
    text = payload["text"]
    if game == "michigan_v0":  # the layout's pay cards are names of places, not cards
        v.pop("layout")
        text = "\n".join(line for line in text.splitlines() if not line.startswith("layout:"))
    strings = [json.dumps(v, ensure_ascii=False), text, json.dumps(payload["legal_moves"], ensure_ascii=False)]
    strings += [m["move"] for m in payload["log"] if m["ply"] >= deal_start]
    named = _card_ints(game, payload["view"]) - {-1}
    for s in strings:
        if game == "muggins_dominoes_v0":
            named |= {tile_id(int(a), int(b)) for a, b in TILE_RE.findall(s)}
        else:
            named |= {parse_card(m.group(0)) for m in CARD_RE.finditer(s)}
    return named


@pytest.mark.parametrize("game", ENV_NAMES)
def test_no_message_to_a_seat_names_a_card_hidden_from_it(client, monkeypatch, game):
    """Two human seats (agents at the others) play a full game; every state built for a seat is
    checked at that moment against the full state's hidden cards, and every HTTP response and
    WebSocket push each seat received must be one of those checked states, of that seat."""
    checked: dict[str, int] = {}
    sizes = []
    build = Table.payload

    def spy(self, seat, log_from=0):
        out = build(self, seat, log_from)
        s = self.session
        deal_start = s.record.deals[-1]["ply"] if s.record.deals else 0
        hidden = _hidden(s, seat)
        named = _named(s.env_id, out, deal_start)
        assert not named & hidden, f"seat {seat} was sent hidden card(s) {sorted(named & hidden)}"
        if not s.is_over:  # the positive control: the extractor does see the seat's own cards
            own = set(out["view"].get("hand", []))
            assert own <= named
        sizes.append(len(hidden))
        checked[json.dumps(out, sort_keys=True)] = seat
        return out

    monkeypatch.setattr(Table, "payload", spy)
    pushed = []
    send = WebSocket.send_json

    async def spy_send(self, data, mode="text"):
        pushed.append(data)
        return await send(self, data, mode)

    monkeypatch.setattr(WebSocket, "send_json", spy_send)
    n = SMALL[game].get("num_players", 2)
    seats = ["human", "human"] + ["heuristic"] * (n - 2)
    created = _create(client, game, seats, SMALL[game], seed=8)
    received = []
    with client.websocket_connect(f"/ws/tables/{created['table']}/seats/0") as ws0, \
            client.websocket_connect(f"/ws/tables/{created['table']}/seats/1") as ws1:
        socks = [ws0, ws1]
        for p, ws in enumerate(socks):
            ws.send_json({"token": _token(created["links"][str(p)])})
        taken = [0]

        def drain() -> None:  # receive every push the server sent so far, on the right socket
            while taken[0] < len(pushed):
                msg = pushed[taken[0]]
                taken[0] += 1
                got = socks[msg["state"]["seat"]].receive_json()
                received.append((got["state"]["seat"], got["state"]))

        drain()
        _play_out(client, created, np.random.default_rng(1),
                  on_message=lambda p, st: (received.append((p, st)), drain()))
        drain()
    assert len(received) > 50
    for seat, st in received:
        assert checked.get(json.dumps(st, sort_keys=True)) == seat
    assert sum(1 for x in sizes if x) > len(sizes) // 2  # hidden cards existed for most of the game
