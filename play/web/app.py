"""The Starlette app of ``muggins-serve``: JSON API, WebSocket pushes and the static pages.

    POST /api/tables                          create: {"game", "options", "seats", "seed"?, "stand_ins"?}
                                              -> {"table", "links": {seat: link}, "seats"}
    GET  /api/tables/{id}/seats/{seat}        that seat's state           (header X-Seat-Token; ?log_from=N:
                                              only the move log from entry N, as pushes send it)
    POST /api/tables/{id}/seats/{seat}/move   {"action": index}           (header X-Seat-Token)
    GET  /api/tables/{id}/seats/{seat}/record the game record, once over  (header X-Seat-Token)
    WS   /ws/tables/{id}/seats/{seat}         first message {"token": ...}, then state pushes
    GET  /api/games                           games, their options and this server's players
    GET  /api/server                          the seat timeout, the search cap, the players' names

A link is ``/table/{id}/{seat}#{token}``: the page reads the token from the fragment (never sent
in a URL, so never in a log) and sends it in a header. Seats name players of the server's
roster (``players.py``), never agent specs. Errors are ``{"error": message}`` with 400
(malformed), 403 (not this seat's token; another site's page; a host name not allowed), 404 (no
such table or human seat), 409 (out of turn, illegal, game over), 410 (a table that cannot be
resumed), 413 (too large), 415 (not JSON), 429 (too many new tables: ``Retry-After``) or 503
(the server is full: ``Retry-After``). Bodies are bounded in size, nesting and number length
(``limits.py``); requests from other sites are refused (``guard.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
from collections.abc import Iterable
from pathlib import Path

from muggins_env.play.web.guard import Guard, GuardMiddleware
from muggins_env.play.web.limits import MAX_BODY, MAX_WS_MESSAGE, InputError, parse_json, short
from muggins_env.play.web.players import Roster
from muggins_env.play.web.storage import SQLiteStorage
from muggins_env.play.web.tables import Table, TableError, TableStore, games_catalog
from muggins_env.play.web.thinkers import Thinkers
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

STATIC = Path(__file__).parent / "static"
TOKEN_HEADER = "x-seat-token"
HELLO_SECONDS = 10
MAX_SOCKETS_PER_SEAT = 8


def _error(e: TableError | InputError) -> JSONResponse:
    headers = {}
    retry = getattr(e, "retry_after", None)
    if retry:
        headers["retry-after"] = str(max(1, math.ceil(retry)))
    return JSONResponse({"error": str(e)}, status_code=e.status, headers=headers)


def _seat(text: str) -> int:
    if not text.isdigit() or len(text) > 3:
        raise TableError(f"seat {short(text)} is not a seat number", 404)
    return int(text)


def _authorized(request: Request) -> tuple[Table, int]:
    store: TableStore = request.app.state.tables
    seat = _seat(request.path_params["seat"])
    table = store.get(request.path_params["table"])
    table.check(seat, request.headers.get(TOKEN_HEADER))
    return table, seat


async def _json_body(request: Request) -> dict:
    media = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media != "application/json":
        raise InputError(f"send the body as JSON with Content-Type: application/json (not {short(media or 'none')})",
                         415)
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY:
        raise InputError(f"the request body is larger than {MAX_BODY} bytes", 413)
    chunks, size = [], 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > MAX_BODY:
                raise InputError(f"the request body is larger than {MAX_BODY} bytes", 413)
            chunks.append(chunk)
    except ClientDisconnect:
        raise InputError("the request body did not arrive") from None
    body = parse_json(b"".join(chunks) or b"{}")
    if not isinstance(body, dict):
        raise InputError(f"the request body must be a JSON object, not {short(body)}")
    return body


CREATE_FIELDS = ("game", "options", "seats", "seed", "stand_ins")


async def games(request: Request) -> Response:
    return JSONResponse(request.app.state.catalog)


async def server_info(request: Request) -> Response:
    store: TableStore = request.app.state.tables
    return JSONResponse({"seat_timeout": store.seat_timeout, "max_search": store.roster.max_search,
                         "players": store.roster.names()})


async def create_table(request: Request) -> Response:
    try:
        body = await _json_body(request)
        unknown = sorted(set(body) - set(CREATE_FIELDS))
        if unknown:
            raise TableError(f"unknown field(s) {short(unknown)}; fields: {', '.join(CREATE_FIELDS)}")
        table, tokens = request.app.state.tables.create(
            body.get("game"), body.get("seats"), body.get("options"), body.get("seed"), body.get("stand_ins"),
            client=request.client.host if request.client else "")
    except (TableError, InputError) as e:
        return _error(e)
    links = {str(p): f"/table/{table.id}/{p}#{tok}" for p, tok in tokens.items()}
    return JSONResponse({"table": table.id, "links": links, "seats": list(table.session.seats)}, status_code=201)


def _log_from(request: Request) -> int:
    """``?log_from=N``: the page holds the first N log entries (send only the rest)."""
    text = request.query_params.get("log_from", "0")
    if not text.isdigit() or len(text) > 9:
        raise TableError(f"log_from={short(text)} must be a count of log entries (an int >= 0)")
    return int(text)


async def seat_state(request: Request) -> Response:
    try:
        table, seat = _authorized(request)
        log_from = _log_from(request)
    except TableError as e:
        return _error(e)
    return JSONResponse(table.payload(seat, log_from))


async def seat_move(request: Request) -> Response:
    try:
        table, seat = _authorized(request)
        body = await _json_body(request)
        if set(body) != {"action"}:
            raise TableError('give the move as {"action": index} (an index from legal_moves), nothing else')
        log_from = _log_from(request)
        request.app.state.tables.play(table, seat, body["action"])
    except (TableError, InputError) as e:
        return _error(e)
    await table.broadcast()
    return JSONResponse(table.payload(seat, log_from))


async def seat_record(request: Request) -> Response:
    try:
        table, _seat_no = _authorized(request)
        if not table.session.is_over:
            raise TableError("the game record names every hidden card: it is available once the game is over",
                             409)
    except TableError as e:
        return _error(e)
    rec = table.session.record
    name = f"{rec.env_id}-seed{rec.seed}-table-{table.id}.json"
    return Response(json.dumps(rec.to_dict(), indent=1, ensure_ascii=False) + "\n", media_type="application/json",
                    headers={"content-disposition": f'attachment; filename="{name}"'})


async def _receive_text(ws: WebSocket) -> str | None:
    """The next text message, None when the page went away; an ``InputError`` for a binary or
    oversized frame."""
    msg = await ws.receive()
    if msg["type"] == "websocket.disconnect":
        return None
    text = msg.get("text")
    if text is None:
        raise InputError("send text messages (JSON), not binary frames")
    if len(text) > MAX_WS_MESSAGE:
        raise InputError(f"a message of more than {MAX_WS_MESSAGE} characters is too long")
    return text


async def seat_socket(ws: WebSocket) -> None:
    await ws.accept()
    table = seat = None
    try:
        store: TableStore = ws.app.state.tables
        seat = _seat(ws.path_params["seat"])
        table = store.get(ws.path_params["table"])
        try:  # a socket that never says its token is not kept waiting
            text = await asyncio.wait_for(_receive_text(ws), HELLO_SECONDS)
        except asyncio.TimeoutError:
            raise TableError(f"send {{\"token\": ...}} within {HELLO_SECONDS} s of connecting", 408) from None
        if text is None:
            return
        hello = parse_json(text, "the first message")
        if not isinstance(hello, dict) or set(hello) != {"token"}:
            raise InputError('the first message must be {"token": "<the token of this seat\'s link>"}')
        table.check(seat, hello["token"])
        if len(table.sockets[seat]) >= MAX_SOCKETS_PER_SEAT:
            raise TableError(f"seat {seat} already has {MAX_SOCKETS_PER_SEAT} open pages; close one", 429)
        table.sockets[seat][ws] = 0
    except (TableError, InputError) as e:
        with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
            await ws.send_json({"type": "error", "error": str(e)})
            await ws.close(code=4000 + e.status)
        return
    except (WebSocketDisconnect, RuntimeError, OSError):
        return
    try:
        await table.broadcast()  # this seat's state, and the others see it online
        while True:  # moves come by POST; the socket only pushes (and is told off for junk)
            if await _receive_text(ws) is None:
                break
    except InputError as e:
        with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
            await ws.send_json({"type": "error", "error": str(e)})
            await ws.close(code=4000 + e.status)
    except (WebSocketDisconnect, RuntimeError, OSError):
        pass
    finally:
        table.sockets[seat].pop(ws, None)
        await table.broadcast()


async def page(request: Request) -> Response:
    return FileResponse(STATIC / ("table.html" if "table" in request.path_params else "index.html"))


async def favicon(request: Request) -> Response:
    return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")


def create_app(max_tables: int = 200, delay: float = 0.5, *, db: str | Path = ":memory:",
               roster: Roster | None = None, allowed_hosts: Iterable[str] = (), allowed_origins: Iterable[str] = (),
               agent_workers: int = 2, move_seconds: float = 30.0, seat_timeout: float = 0.0,
               idle_minutes: float = 10.0, keep_days: float = 7.0, create_rate: float = 30.0) -> Starlette:
    """The app: ``delay`` seconds between agents' moves (0 in tests), at most ``max_tables`` live
    tables, every table kept in the SQLite file ``db`` (``":memory:"``: kept until the process
    ends), the agents of ``roster`` (default: ``Roster()``); the other settings are
    ``muggins-serve``'s options of the same names."""
    store = TableStore(max_tables=max_tables, delay=delay, storage=SQLiteStorage(db),
                       roster=roster if roster is not None else Roster(), thinkers=Thinkers(agent_workers),
                       move_seconds=move_seconds, seat_timeout=seat_timeout, idle_minutes=idle_minutes,
                       keep_days=keep_days, create_rate=create_rate)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette):
        await store.start()
        try:
            yield
        finally:
            await store.stop()

    app = Starlette(routes=[
        Route("/", page),
        Route("/favicon.ico", favicon),
        Route("/table/{table}/{seat}", page),
        Route("/api/games", games),
        Route("/api/server", server_info),
        Route("/api/tables", create_table, methods=["POST"]),
        Route("/api/tables/{table}/seats/{seat}", seat_state),
        Route("/api/tables/{table}/seats/{seat}/move", seat_move, methods=["POST"]),
        Route("/api/tables/{table}/seats/{seat}/record", seat_record),
        WebSocketRoute("/ws/tables/{table}/seats/{seat}", seat_socket),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ], middleware=[Middleware(GuardMiddleware, guard=Guard(allowed_hosts, allowed_origins))], lifespan=lifespan)
    app.state.tables = store
    app.state.catalog = games_catalog(store.roster)
    return app
