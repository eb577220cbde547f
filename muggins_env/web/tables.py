"""Tables in the server's memory: a ``GameSession``, one secret token per human seat, the
seats' live connections, and the payload each seat may see.

The payload of a seat is built only from ``session.view(seat)`` (the same information boundary
as that player's observation), the move log as that seat saw it (``GameSession.seen``) and
public facts (seat kinds, scores, returns). The game record names every hidden card (the deals,
face-down cards), so it is handed out only once the game is over.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

import anyio
from starlette.websockets import WebSocketDisconnect

from .. import ENV_NAMES, game_class
from ..session import HUMAN, GameSession, MoveError

log = logging.getLogger("muggins_env.web")


class TableError(ValueError):
    """A request the tables refuse: ``status`` is the HTTP status to answer with."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def games_catalog() -> dict[str, dict]:
    """Every env id with its declared options (default, allowed values, doc): what the create
    form offers. A default that depends on other options is reported as None ("automatic")."""
    out = {}
    for env_id in ENV_NAMES:
        opts = {}
        for name, opt in game_class(env_id).OPTIONS.items():
            opts[name] = {"default": None if callable(opt.default) else opt.default,
                          "allowed": list(opt.allowed) if opt.allowed is not None else None, "doc": opt.doc}
        out[env_id] = {"options": opts}
    return out


class Table:
    """One game between humans (each with a token) and agents, and its live connections."""

    def __init__(self, table_id: str, session: GameSession, delay: float) -> None:
        self.id = table_id
        self.session = session
        self.delay = delay
        self.tokens = {p: secrets.token_urlsafe(24) for p, s in enumerate(session.seats) if s == HUMAN}
        self.sockets: dict[int, set[Any]] = {p: set() for p in self.tokens}
        self.lock = asyncio.Lock()
        self.error: str | None = None  # an agent that failed: the table stops and says so
        self.touched = time.monotonic()
        self._running = False

    # -- access ----------------------------------------------------------------------------------
    def check(self, seat: int, token: str | None) -> None:
        """Refuse a request for ``seat`` that does not carry that seat's own token."""
        expected = self.tokens.get(seat)
        if expected is None:
            raise TableError(f"seat {seat} of table {self.id} is not a human seat "
                             f"(human seats: {sorted(self.tokens) or 'none'})", 404)
        if not token or not secrets.compare_digest(expected.encode(), str(token).encode()):
            raise TableError(f"this link's token is not the token of seat {seat}", 403)

    def links(self) -> dict[int, str]:
        """Each human seat's link: the token rides in the fragment, so it never reaches a log."""
        return {p: f"/table/{self.id}/{p}#{tok}" for p, tok in self.tokens.items()}

    # -- what a seat sees ------------------------------------------------------------------------
    def payload(self, seat: int) -> dict:
        s = self.session
        v = s.view(seat, recent=0)
        log_seen = [dict(s.seen(m, seat), new_hand=m.new_hand) for m in s.record.moves]
        over = s.is_over
        return {
            "table": self.id, "game": s.env_id, "options": dict(s.options), "seat": seat,
            "seats": [{"player": p, "kind": "human" if kind == HUMAN else "agent",
                       "name": "you" if p == seat else ("human" if kind == HUMAN else kind),
                       "online": bool(self.sockets.get(p))} for p, kind in enumerate(s.seats)],
            "ply": len(s.record.moves), "phase": v.phase, "to_act": v.to_act, "your_turn": v.your_turn,
            "legal_moves": [[a, name] for a, name in sorted(v.legal_moves.items())],
            "view": v.view, "text": v.table, "scores": v.scores, "score_unit": v.score_unit,
            "log": log_seen, "hands": hand_summaries(log_seen, over), "over": over,
            "result": ({"returns": s.returns(), "scores": v.scores, "truncated": s.record.truncated}
                       if over else None),
            "error": self.error,
        }

    # -- moves -----------------------------------------------------------------------------------
    async def play(self, seat: int, action: Any) -> None:
        if isinstance(action, bool) or not isinstance(action, int):
            raise TableError(f"action {action!r} must be an action index (an int) from the legal moves")
        async with self.lock:
            if self.error:
                raise TableError(f"this table stopped: {self.error}", 409)
            try:
                self.session.play(seat, action)
            except MoveError as e:
                raise TableError(str(e), 409) from None
            self.touched = time.monotonic()

    async def run_agents(self) -> None:
        """Let agents (and forced moves) play until a human has a real choice, pushing each move
        to the connected seats; agents think in a worker thread, so the server stays responsive."""
        if self._running:
            return
        self._running = True
        try:
            while True:
                async with self.lock:
                    s = self.session
                    if s.is_over or s.waiting_for_human or self.error:
                        break
                    forced = True
                    try:
                        forced = (await anyio.to_thread.run_sync(s.step_once)).forced
                    except Exception as e:  # an agent failed: say so at the table instead of hanging
                        log.exception("table %s: agent failed", self.id)
                        self.error = f"{type(e).__name__}: {e}"
                    self.touched = time.monotonic()
                await self.broadcast()
                if self.delay:  # people follow the agents' choices; forced moves go quicker
                    await asyncio.sleep(self.delay / 4 if forced else self.delay)
        finally:
            self._running = False
        await self.broadcast()

    async def broadcast(self) -> None:
        async with self.lock:
            msgs = {p: self.payload(p) for p, socks in self.sockets.items() if socks}
        for p, msg in msgs.items():
            for ws in list(self.sockets[p]):
                try:
                    await ws.send_json({"type": "state", "state": msg})
                except (WebSocketDisconnect, RuntimeError, OSError):  # a closed page: it rejoins by its link
                    self.sockets[p].discard(ws)


def hand_summaries(log_seen: Sequence[Mapping], over: bool) -> list[dict]:
    """Per hand: every seat's points over the hand and the scores after it, from the move log
    (a hand ends at a move that dealt a new hand, or at the end of the game)."""
    out: list[dict] = []
    start = 0
    for i, m in enumerate(log_seen):
        last = i == len(log_seen) - 1
        if m.get("new_hand") or (over and last):
            moves = log_seen[start:i + 1]
            pts = [sum(mv["points"][p] for mv in moves) for p in range(len(m["points"]))]
            out.append({"hand": len(out) + 1, "first_ply": start, "last_ply": i, "points": pts,
                        "scores": list(m["scores"]), "final": over and last})
            start = i + 1
    return out


class TableStore:
    """The tables of one server, bounded: a new table beyond ``max_tables`` drops the table
    idle the longest (its links stop working)."""

    def __init__(self, max_tables: int = 200, delay: float = 0.5) -> None:
        if max_tables < 1:
            raise ValueError(f"max_tables={max_tables!r} must be at least 1")
        self.max_tables = max_tables
        self.delay = delay
        self.tables: OrderedDict[str, Table] = OrderedDict()

    def create(self, game: Any, seats: Any, options: Any = None, seed: Any = None) -> Table:
        if game not in ENV_NAMES:
            raise TableError(f"unknown game {game!r}; games: {', '.join(ENV_NAMES)}")
        if options is None:
            options = {}
        if not isinstance(options, Mapping):
            raise TableError(f"options must be an object of option: value, not {options!r}")
        if not isinstance(seats, list) or not all(isinstance(x, str) and x.strip() for x in seats):
            raise TableError(f"seats must be a list of 'human' or agent specs, one per player, not {seats!r}")
        if HUMAN not in seats:
            raise TableError("at least one seat must be 'human' (agents-only games: muggins-eval)")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise TableError(f"seed={seed!r} must be an int or absent")
        try:
            session = GameSession(game, [x.strip() for x in seats], options=dict(options), seed=seed,
                                  meta={"face": "muggins-serve"})
        except (ValueError, FileNotFoundError) as e:
            raise TableError(str(e)) from None
        while len(self.tables) >= self.max_tables:
            oldest = min(self.tables.values(), key=lambda t: t.touched)
            del self.tables[oldest.id]
        table = Table(secrets.token_urlsafe(9), session, self.delay)
        self.tables[table.id] = table
        return table

    def get(self, table_id: str) -> Table:
        table = self.tables.get(table_id)
        if table is None:
            raise TableError(f"no table {table_id!r} on this server (tables live until the server stops)", 404)
        return table
