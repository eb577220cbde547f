"""The Starlette app of ``muggins-serve``: JSON API, WebSocket pushes and the static pages.

    POST /api/tables                          create: {"game", "options", "seats", "seed"?}
                                              -> {"table", "links": {seat: link}, "seats"}
    GET  /api/tables/{id}/seats/{seat}        that seat's state           (header X-Seat-Token)
    POST /api/tables/{id}/seats/{seat}/move   {"action": index}           (header X-Seat-Token)
    GET  /api/tables/{id}/seats/{seat}/record the game record, once over  (header X-Seat-Token)
    WS   /ws/tables/{id}/seats/{seat}         first message {"token": ...}, then state pushes
    GET  /api/games                           games and their options (the create form)

A link is ``/table/{id}/{seat}#{token}``: the page reads the token from the fragment (never sent
in a URL, so never in a log) and sends it in a header. Errors are ``{"error": message}`` with
400 (malformed), 403 (not this seat's token), 404 (no such table or human seat) or 409 (out of
turn, illegal, game over).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from .tables import Table, TableError, TableStore, games_catalog

STATIC = Path(__file__).parent / "static"
TOKEN_HEADER = "x-seat-token"
HELLO_SECONDS = 10
MAX_SOCKETS_PER_SEAT = 8


def _error(e: TableError) -> JSONResponse:
    return JSONResponse({"error": str(e)}, status_code=e.status)


def _seat(request: Request) -> int:
    try:
        return int(request.path_params["seat"])
    except ValueError:
        raise TableError(f"seat {request.path_params['seat']!r} is not a seat number", 404) from None


def _authorized(request: Request) -> tuple[Table, int]:
    store: TableStore = request.app.state.tables
    table = store.get(request.path_params["table"])
    seat = _seat(request)
    table.check(seat, request.headers.get(TOKEN_HEADER))
    return table, seat


async def _json_body(request: Request) -> dict:
    try:
        body = json.loads(await request.body() or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise TableError(f"the request body is not JSON ({e})") from None
    if not isinstance(body, dict):
        raise TableError(f"the request body must be a JSON object, not {body!r}")
    return body


async def games(request: Request) -> Response:
    return JSONResponse(request.app.state.catalog)


async def create_table(request: Request) -> Response:
    try:
        body = await _json_body(request)
        unknown = sorted(set(body) - {"game", "options", "seats", "seed"})
        if unknown:
            raise TableError(f"unknown field(s) {unknown}; fields: game, options, seats, seed")
        table = request.app.state.tables.create(body.get("game"), body.get("seats"), body.get("options"),
                                                body.get("seed"))
    except TableError as e:
        return _error(e)
    return JSONResponse({"table": table.id, "links": {str(p): link for p, link in table.links().items()},
                         "seats": list(table.session.seats)}, status_code=201,
                        background=BackgroundTask(table.run_agents))


async def seat_state(request: Request) -> Response:
    try:
        table, seat = _authorized(request)
    except TableError as e:
        return _error(e)
    async with table.lock:
        return JSONResponse(table.payload(seat))


async def seat_move(request: Request) -> Response:
    try:
        table, seat = _authorized(request)
        body = await _json_body(request)
        if "action" not in body:
            raise TableError('give the move as {"action": index} (an index from legal_moves)')
        await table.play(seat, body["action"])
    except TableError as e:
        return _error(e)
    async with table.lock:
        state = table.payload(seat)

    async def after() -> None:
        await table.broadcast()
        await table.run_agents()

    return JSONResponse(state, background=BackgroundTask(after))


async def seat_record(request: Request) -> Response:
    try:
        table, _seat = _authorized(request)
        if not table.session.is_over:
            raise TableError("the game record names every hidden card: it is available once the game is over",
                             409)
    except TableError as e:
        return _error(e)
    rec = table.session.record
    name = f"{rec.env_id}-seed{rec.seed}-table-{table.id}.json"
    return Response(json.dumps(rec.to_dict(), indent=1, ensure_ascii=False) + "\n", media_type="application/json",
                    headers={"content-disposition": f'attachment; filename="{name}"'})


async def seat_socket(ws: WebSocket) -> None:
    await ws.accept()
    try:
        store: TableStore = ws.app.state.tables
        table = store.get(ws.path_params["table"])
        try:
            seat = int(ws.path_params["seat"])
        except ValueError:
            raise TableError(f"seat {ws.path_params['seat']!r} is not a seat number", 404) from None
        try:  # a socket that never says its token is not kept waiting
            hello = await asyncio.wait_for(ws.receive_json(), HELLO_SECONDS)
        except asyncio.TimeoutError:
            raise TableError(f"send {{\"token\": ...}} within {HELLO_SECONDS} s of connecting", 408) from None
        table.check(seat, hello.get("token") if isinstance(hello, dict) else None)
        if len(table.sockets[seat]) >= MAX_SOCKETS_PER_SEAT:
            raise TableError(f"seat {seat} already has {MAX_SOCKETS_PER_SEAT} open pages; close one", 429)
    except TableError as e:
        await ws.send_json({"type": "error", "error": str(e)})
        await ws.close(code=4000 + e.status)
        return
    except (WebSocketDisconnect, ValueError):
        return
    table.sockets[seat].add(ws)
    try:
        await table.broadcast()  # this seat's state, and the others see it online
        while True:
            await ws.receive_text()  # moves come by POST; the socket only pushes
    except WebSocketDisconnect:
        pass
    finally:
        table.sockets[seat].discard(ws)
        await table.broadcast()


async def page(request: Request) -> Response:
    return FileResponse(STATIC / ("table.html" if "table" in request.path_params else "index.html"))


def create_app(max_tables: int = 200, delay: float = 0.5) -> Starlette:
    """The app; ``delay`` seconds between agents' moves (0 in tests), at most ``max_tables`` tables."""
    app = Starlette(routes=[
        Route("/", page),
        Route("/table/{table}/{seat}", page),
        Route("/api/games", games),
        Route("/api/tables", create_table, methods=["POST"]),
        Route("/api/tables/{table}/seats/{seat}", seat_state),
        Route("/api/tables/{table}/seats/{seat}/move", seat_move, methods=["POST"]),
        Route("/api/tables/{table}/seats/{seat}/record", seat_record),
        WebSocketRoute("/ws/tables/{table}/seats/{seat}", seat_socket),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ])
    app.state.tables = TableStore(max_tables=max_tables, delay=delay)
    app.state.catalog = games_catalog()
    return app
