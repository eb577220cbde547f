"""The tables of one ``muggins-serve``: a ``GameSession`` each, their seats' tokens, live
connections and the payload each seat may see, kept in a database and run by the server.

The payload of a seat is built only from ``session.view(seat)`` (the same information boundary
as that player's observation), the move log as that seat saw it (``GameSession.seen``) and
public facts (seat names, scores, returns). The game record names every hidden card (the deals,
face-down cards), so it is handed out only once the game is over.

Games last: every move is written to the storage (``storage.py``), so a restart replays each
unfinished game to where it was (``GameSession.restore``); only token hashes are stored. One
table's agents play in one task of its own: the package's quick players (``Player.inline``) on
the server's thread, search and the operator's players on the ``Thinkers`` threads within a time
budget per move. Memory is bounded by ``max_tables`` live tables: to make room,
a finished table or one nobody is connected to and nobody has moved at for ``idle_minutes`` is
put back into storage (its links keep working: it is replayed on the next request); a table
with a person connected or a recent move never is, and a full server refuses new tables.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import math
import secrets
import time
from collections.abc import Mapping, Sequence
from typing import Any

from muggins_env.agents.zoo import PAYOFF_OPTIONS
from muggins_env.play.session import HUMAN, GameSession, MoveError
from muggins_env.play.web.limits import RateLimiter, short
from muggins_env.play.web.players import Roster
from muggins_env.play.web.storage import SQLiteStorage, StoredTable, TableStorage
from muggins_env.play.web.thinkers import Thinkers
from starlette.websockets import WebSocketDisconnect

from muggins_env import ENV_NAMES, game_class
from muggins_env.games import declaration
from muggins_env.records import MoveRecord

log = logging.getLogger("muggins_env.play.web")

MAX_SEATS = 16
MAX_OPTIONS = 32
MAX_TEXT = 40  # characters of a game id, option name or value, or player name
PUSH_EVERY = 0.02  # seconds between two pushes of one table


class TableError(ValueError):
    """A request the tables refuse: ``status`` is the HTTP status to answer with, ``retry_after``
    the seconds to wait where waiting helps (429, 503)."""

    def __init__(self, message: str, status: int = 400, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after


def _resolved(env_id: str, cls: Any, automatic: list[str]) -> dict[str, dict[str, dict]]:
    """``{option: {json value: {automatic option: its value}}}``: what each choice of an option
    makes of the options whose default depends on others (a variant's scoring, the target)."""
    out: dict[str, dict[str, dict]] = {}
    for name, opt in cls.OPTIONS.items():
        if opt.allowed is None:
            continue
        for value in opt.allowed:
            try:
                opts = cls(**{name: value}).options
            except ValueError:
                continue
            out.setdefault(name, {})[json.dumps(value)] = {k: opts[k] for k in automatic}
    return out


def games_catalog(roster: Roster | None = None) -> dict[str, dict]:
    """Every env id with its titles (``title``, the long name; ``short_title``), the key of its
    drawing on the table page (``drawing``: play/web/static/draw.js), declared options (default, allowed values, doc; a default
    that depends on other options is None, "automatic", and ``resolved`` says what each choice
    makes of those), the options that only change rewards (``payoff``: the form leaves them out)
    and the players of this server that play it (a zoo network or best: player with the only
    options it plays): what the create form offers."""
    players = roster.catalog(ENV_NAMES) if roster is not None else []
    out = {}
    for env_id in ENV_NAMES:
        cls = game_class(env_id)
        opts = {}
        for name, opt in cls.OPTIONS.items():
            opts[name] = {"default": None if callable(opt.default) else opt.default,
                          "allowed": list(opt.allowed) if opt.allowed is not None else None, "doc": opt.doc,
                          "payoff": name in PAYOFF_OPTIONS}
        automatic = [k for k, o in opts.items() if o["default"] is None]
        decl = declaration(env_id)
        out[env_id] = {"title": cls.FACTS.long_name, "short_title": decl.title, "drawing": decl.drawing,
                       "options": opts, "resolved": _resolved(env_id, cls, automatic),
                       "players": [{k: p[k] for k in ("name", "doc", "options") if k in p}
                                   for p in players if env_id in p["games"]]}
    return out


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


class Table:
    """One game between humans (each with a token) and agents, and its live connections."""

    def __init__(self, stored: StoredTable, session: GameSession) -> None:
        self.id = stored.id
        self.session = session
        self.token_hashes = dict(stored.token_hashes)
        self.stand_ins = dict(stored.stand_ins)
        self.taken_over = dict(stored.taken_over)
        self.sockets: dict[int, dict[Any, int]] = {p: {} for p in self.token_hashes}  # page -> log entries sent
        self.error: str | None = stored.error  # an agent that failed: the table stops and says so
        self.notices: list[str] = [f"player {p}'s seat is played by {session.seats[p]} (the person was away)"
                                   for p in sorted(self.taken_over)]
        self.touched = time.monotonic()  # the last move, or when the table was made or restored
        self.task: asyncio.Task | None = None  # its agents' task, while one runs
        self.pending: list[tuple[int, dict]] = []  # moves played and not yet written
        self._seen: dict[int, list[dict]] = {p: [] for p in range(session.num_players)}
        self._pushing = self._dirty = False

    # -- access ----------------------------------------------------------------------------------
    def check(self, seat: int, token: Any) -> None:
        """Refuse a request for ``seat`` that does not carry that seat's own token."""
        expected = self.token_hashes.get(seat)
        if expected is None:
            raise TableError(f"seat {seat} of table {self.id} is not a human seat "
                             f"(human seats: {sorted(self.token_hashes) or 'none'})", 404)
        if not isinstance(token, str) or not token or len(token) > 200 \
                or not secrets.compare_digest(expected, hash_token(token)):
            raise TableError(f"this link's token is not the token of seat {seat}", 403)

    @property
    def connected(self) -> bool:
        return any(self.sockets.values())

    # -- what a seat sees ------------------------------------------------------------------------
    def _log(self, seat: int) -> list[dict]:
        seen, moves = self._seen[seat], self.session.record.moves
        for m in moves[len(seen):]:
            seen.append(dict(self.session.seen(m, seat), new_hand=m.new_hand))
        return seen

    def payload(self, seat: int, log_from: int = 0) -> dict:
        """What ``seat`` may see; its move log from entry ``log_from`` on (``log_start``), so that a
        page that holds the earlier entries is sent only the new ones."""
        s = self.session
        v = s.view(seat, recent=0)
        log_seen = self._log(seat)
        log_from = min(max(0, int(log_from)), len(log_seen))
        over = s.is_over
        # a seat is told it is its turn only for a real choice: a forced move the server plays itself
        your_turn = v.your_turn and s.waiting_for_human and not self.error
        return {
            "table": self.id, "game": s.env_id, "options": dict(s.options), "seat": seat,
            "seats": [{"player": p, "kind": "human" if kind == HUMAN else "agent",
                       "name": "you" if p == seat else ("human" if kind == HUMAN else kind),
                       "stand_in": p in self.taken_over,
                       "online": bool(self.sockets.get(p))} for p, kind in enumerate(s.seats)],
            "ply": len(s.record.moves), "phase": v.phase, "to_act": v.to_act, "your_turn": your_turn,
            "legal_moves": [[a, name] for a, name in sorted(v.legal_moves.items())] if your_turn else [],
            "view": v.view, "text": v.table, "scores": v.scores, "score_unit": v.score_unit,
            "log": log_seen[log_from:], "log_start": log_from, "hands": hand_summaries(log_seen, over), "over": over,
            "result": ({"returns": s.returns(), "scores": v.scores, "truncated": s.record.truncated}
                       if over else None),
            "error": self.error, "notices": list(self.notices),
        }

    async def broadcast(self) -> None:
        """Push every connected page its seat's state (the log entries it lacks). Pushes asked for
        while one is under way merge into one more, at most every ``PUSH_EVERY`` s: agents that
        play fast send a page their latest position, not every step to it."""
        if self._pushing:
            self._dirty = True
            return
        self._pushing = True
        try:
            while True:
                self._dirty = False
                await self._push()
                if not self._dirty:
                    break
                await asyncio.sleep(PUSH_EVERY)
        finally:
            self._pushing = False

    async def _push(self) -> None:
        for p, socks in self.sockets.items():
            for ws, sent in list(socks.items()):
                msg = self.payload(p, log_from=sent)
                try:
                    await ws.send_json({"type": "state", "state": msg})
                except (WebSocketDisconnect, RuntimeError, OSError):  # a closed page: it rejoins by its link
                    socks.pop(ws, None)
                    continue
                if ws in socks:
                    socks[ws] = msg["log_start"] + len(msg["log"])


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


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_TEXT:
        raise TableError(f"{what} must be a name of at most {MAX_TEXT} characters, not {short(value)}")
    return value.strip()


class TableStore:
    """The tables of one server: live ones in memory, every one in ``storage``; see the module
    docstring. ``start()`` resumes the stored games, ``stop()`` ends the agents' tasks."""

    def __init__(self, max_tables: int = 200, delay: float = 0.5, storage: TableStorage | None = None,
                 roster: Roster | None = None, thinkers: Thinkers | None = None, move_seconds: float = 30.0,
                 seat_timeout: float = 0.0, idle_minutes: float = 10.0, keep_days: float = 7.0,
                 create_rate: float = 30.0) -> None:
        if max_tables < 1:
            raise ValueError(f"max_tables={max_tables!r} must be at least 1")
        self.max_tables = max_tables
        self.delay = delay
        self.storage: TableStorage = storage if storage is not None else SQLiteStorage(":memory:")
        self.roster = roster if roster is not None else Roster()
        self.thinkers = thinkers if thinkers is not None else Thinkers(2)
        self.move_seconds = move_seconds
        self.seat_timeout = seat_timeout  # seconds a person may take for a move (0: no limit)
        self.idle_seconds = idle_minutes * 60
        self.keep_seconds = keep_days * 86400
        self.limiter = RateLimiter(create_rate)
        self.tables: dict[str, Table] = {}
        self._watcher: asyncio.Task | None = None

    # -- the server's life -----------------------------------------------------------------------
    async def start(self) -> None:
        self.storage.purge(time.time() - self.keep_seconds)
        for table_id in self.storage.unfinished()[: self.max_tables]:
            try:
                table = self._restore(table_id)
            except TableError as e:
                log.warning("table %s not resumed: %s", table_id, e)
                continue
            self.kick(table)
        self._watcher = asyncio.create_task(self._watch())

    async def stop(self) -> None:
        tasks = [t for t in [self._watcher, *(tb.task for tb in self.tables.values())] if t is not None]
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for table in self.tables.values():
            self._flush(table)
        self.thinkers.close()
        self.storage.close()

    async def _watch(self) -> None:
        """Hand idle human seats to their stand-ins, and forget expired tables."""
        every = max(0.05, min(5.0, self.seat_timeout / 4)) if self.seat_timeout else 60.0
        last_purge = time.monotonic()
        while True:
            await asyncio.sleep(every)
            if self.seat_timeout:
                for table in list(self.tables.values()):
                    self._check_timeout(table)
            if time.monotonic() - last_purge > 3600:
                last_purge = time.monotonic()
                self.storage.purge(time.time() - self.keep_seconds)

    def _check_timeout(self, table: Table) -> None:
        s = table.session
        p = s.to_act
        if (p is None or not s.waiting_for_human or table.error or p not in table.stand_ins
                or time.monotonic() - table.touched < self.seat_timeout):
            return
        try:
            agent = self.roster.make(table.stand_ins[p], s.env_id, s.options)
        except ValueError as e:
            table.error = f"player {p} was away and the stand-in cannot play: {e}"
            self.storage.update(table.id, error=table.error)
            return
        s.take_over(p, agent)
        table.taken_over[p] = len(s.record.moves)
        table.notices.append(f"player {p} was away for {self.seat_timeout:g} s: {s.seats[p]} plays on for them")
        self.storage.update(table.id, taken_over=table.taken_over)
        self.kick(table)

    # -- tables ----------------------------------------------------------------------------------
    def create(self, game: Any, seats: Any, options: Any = None, seed: Any = None, stand_ins: Any = None,
               client: str = "") -> tuple[Table, dict[int, str]]:
        """A new table and its seats' tokens (given out once: only their hashes are kept)."""
        if not isinstance(game, str) or game not in ENV_NAMES:
            raise TableError(f"unknown game {short(game)}; games: {', '.join(ENV_NAMES)}")
        if options is None:
            options = {}
        if not isinstance(options, Mapping) or len(options) > MAX_OPTIONS:
            raise TableError(f"options must be an object of at most {MAX_OPTIONS} option: value, "
                             f"not {short(options)}")
        for k, v in options.items():
            _text(k, "an option name")
            if isinstance(v, str):
                _text(v, f"option {k}'s value")
            elif v is not None and not isinstance(v, (bool, int, float)):
                raise TableError(f"option {k}'s value must be a number, a word, true/false or null, "
                                 f"not {short(v)}")
        if not isinstance(seats, list) or not 1 <= len(seats) <= MAX_SEATS:
            raise TableError(f"seats must be a list of 'human' or player names, one per player, not {short(seats)}")
        seats = [_text(x, "a seat") for x in seats]
        if HUMAN not in seats:
            raise TableError("at least one seat must be 'human' (agents-only games: muggins-eval)")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63):
            raise TableError(f"seed={short(seed)} must be an int from 0 to 2**63 - 1, or absent")
        chosen = self._stand_ins(seats, stand_ins)
        wait = self.limiter.take(client)
        if wait:
            raise TableError(f"too many new tables from {client}: try again in {math.ceil(wait)} s", 429, wait)
        self._make_room()
        try:
            agents = [HUMAN if x == HUMAN else self.roster.make(x, game, options) for x in seats]
            for name in set(chosen.values()):
                self.roster.make(name, game, options)  # a stand-in that cannot play this game: say so now
            session = GameSession(game, agents, options=dict(options), seed=seed, meta={"face": "muggins-serve"})
        except (ValueError, TypeError) as e:
            raise TableError(str(e)) from None
        tokens = {p: secrets.token_urlsafe(24) for p, x in enumerate(seats) if x == HUMAN}
        stored = StoredTable(id=secrets.token_urlsafe(9), env_id=game, options=dict(options), seed=session.seed,
                             seats=list(session.seats), stand_ins=chosen,
                             token_hashes={p: hash_token(t) for p, t in tokens.items()})
        self.storage.add_table(stored)
        table = Table(stored, session)
        self.tables[table.id] = table
        self.kick(table)
        return table, tokens

    def _stand_ins(self, seats: list[str], given: Any) -> dict[int, str]:
        humans = [p for p, x in enumerate(seats) if x == HUMAN]
        if given is None:
            return {p: "heuristic" for p in humans}
        if not isinstance(given, list) or len(given) != len(seats):
            raise TableError(f"stand_ins must be a list with one entry per seat (a player name for a human "
                             f"seat, null for the others), not {short(given)}")
        out = {}
        for p, x in enumerate(given):
            if x is None:
                continue
            if p not in humans:
                raise TableError(f"stand_ins[{p}]: seat {p} is not a human seat (give null)")
            out[p] = _text(x, f"stand_ins[{p}]")
        return out

    def _make_room(self) -> None:
        if len(self.tables) < self.max_tables:
            return
        now = time.monotonic()
        idle = [t for t in self.tables.values() if t.task is None and not t.connected
                and (t.session.is_over or t.error or now - t.touched >= self.idle_seconds)]
        if not idle:
            raise TableError(f"this server is full: {len(self.tables)} games are being played; "
                             "try again in a few minutes", 503, 60)
        oldest = min(idle, key=lambda t: t.touched)
        self._flush(oldest)
        del self.tables[oldest.id]  # still in storage: its links replay it on their next request

    def get(self, table_id: Any) -> Table:
        table = self.tables.get(table_id) if isinstance(table_id, str) else None
        if table is None:
            table = self._restore(table_id)
            self.kick(table)
        return table

    def _restore(self, table_id: Any) -> Table:
        stored = self.storage.get(table_id) if isinstance(table_id, str) and len(table_id) <= MAX_TEXT else None
        if stored is None:
            raise TableError(f"no table {short(table_id)} on this server (finished tables are kept "
                             f"{self.keep_seconds / 86400:g} days)", 404)
        try:
            agents = [HUMAN if x == HUMAN else self.roster.make(x, stored.env_id, stored.options)
                      for x in stored.seats]
            session = GameSession(stored.env_id, agents, options=stored.options, seed=stored.seed,
                                  meta={"face": "muggins-serve"})
            session.restore(stored.moves)
            for p, ply in sorted(stored.taken_over.items()):
                session.take_over(p, self.roster.make(stored.stand_ins[p], stored.env_id, stored.options))
                session.record.meta["stand_ins"][str(p)]["ply"] = ply
        except (ValueError, TypeError, KeyError) as e:
            raise TableError(f"table {table_id} cannot be resumed on this server: {e}", 410) from None
        table = Table(stored, session)
        self.tables[table.id] = table
        return table

    # -- moves -----------------------------------------------------------------------------------
    def _moved(self, table: Table, move: MoveRecord) -> None:
        table.touched = time.monotonic()
        table.pending.append((move.ply, move.to_dict()))

    def _flush(self, table: Table) -> None:
        """Write the table's moves played since the last flush (one transaction): after a
        person's move, before an agent thinks or the table waits, and when the server stops."""
        if table.pending:
            moves, table.pending = table.pending, []
            self.storage.add_moves(table.id, moves)
            if table.session.is_over:
                self.storage.update(table.id, finished=True)

    def play(self, table: Table, seat: int, action: Any) -> None:
        if isinstance(action, bool) or not isinstance(action, int):
            raise TableError(f"action {short(action)} must be an action index (an int) from the legal moves")
        if table.error:
            raise TableError(f"this table stopped: {table.error}", 409)
        if seat in table.taken_over:
            raise TableError(f"seat {seat} is played by {table.session.seats[seat]} since you were away", 409)
        s = table.session
        if s.to_act == seat and not s.waiting_for_human and not s.is_over:
            raise TableError("this move is forced: the server plays it for you", 409)
        try:
            move = s.play(seat, action)
        except MoveError as e:
            raise TableError(str(e), 409) from None
        self._moved(table, move)
        self._flush(table)
        self.kick(table)

    def kick(self, table: Table) -> None:
        """Start the task that plays the table's agents (and forced moves), unless one runs."""
        if table.task is None and not table.session.is_over and not table.error \
                and not table.session.waiting_for_human:
            table.task = asyncio.get_running_loop().create_task(self._run_agents(table))

    async def _run_agents(self, table: Table) -> None:
        """Agents and forced moves play until a person has a real choice, each move pushed to the
        connected seats; an agent thinks on the thinkers' threads within ``move_seconds``."""
        s = table.session
        try:
            while not (s.is_over or s.waiting_for_human or table.error):
                turn = s.agent_turn()
                forced = turn is None
                try:
                    if forced:
                        move = s.step_once()
                    elif self.roster.resolve(s.seats[turn[0]]).inline:
                        move = s.play_agent(turn[0], turn[1]())
                    else:
                        seat, think = turn
                        self._flush(table)
                        try:
                            action = await asyncio.wait_for(self.thinkers.run(think), self.move_seconds)
                        except asyncio.TimeoutError:
                            action = s.hint(seat)[0]
                            table.notices.append(f"player {seat} ({s.seats[seat]}) took longer than "
                                                 f"{self.move_seconds:g} s: the heuristic's move was played")
                        move = s.play_agent(seat, action)
                except Exception as e:  # noqa: BLE001 - an agent failed: say so at the table instead of hanging
                    log.warning("table %s: agent failed: %s: %s", table.id, type(e).__name__, e)
                    table.error = f"{type(e).__name__}: {e}"
                    self.storage.update(table.id, error=table.error)
                    break
                self._moved(table, move)
                await table.broadcast()
                if self.delay:  # people follow the agents' choices; forced moves go quicker
                    self._flush(table)
                    await asyncio.sleep(self.delay / 4 if forced else self.delay)
                else:
                    await asyncio.sleep(0)
        finally:
            table.task = None
            self._flush(table)
        await table.broadcast()
