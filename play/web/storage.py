"""Where ``muggins-serve`` keeps its tables, so that a restart loses no game.

A table is stored as what re-creates it exactly: its game, options and seed, who sits where,
the hashes of its seat tokens (a stolen database holds no working link) and every move in
order (a ``MoveRecord`` as JSON, appended in one transaction per burst of moves). Replaying the moves rebuilds the
game and its record (``GameSession.restore``), so nothing else needs saving.

``TableStorage`` is the whole interface the server uses; ``SQLiteStorage`` is the default
(one file, write-ahead log). Another database, e.g.
PostgreSQL for several server processes behind one proxy, is another class with these
methods; no game code changes.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

SCHEMA_VERSION = 1


@dataclass
class StoredTable:
    id: str
    env_id: str
    options: dict
    seed: int
    seats: list[str]  # per seat "human" or a player name
    stand_ins: dict[int, str]  # human seat -> the player who plays on after the seat timeout
    token_hashes: dict[int, str]  # human seat -> sha256 hex of its token
    created: float = field(default_factory=time.time)
    updated: float = field(default_factory=time.time)
    finished: bool = False
    error: str | None = None
    taken_over: dict[int, int] = field(default_factory=dict)  # seat -> ply its stand-in took over
    moves: list[dict] = field(default_factory=list)


class TableStorage(Protocol):
    """What the server needs of a database."""

    def add_table(self, table: StoredTable) -> None: ...
    def add_moves(self, table_id: str, moves: list[tuple[int, dict]]) -> None: ...
    def update(self, table_id: str, *, finished: bool | None = None, error: str | None = None,
               taken_over: dict[int, int] | None = None) -> None: ...
    def get(self, table_id: str) -> StoredTable | None: ...
    def unfinished(self) -> list[str]: ...
    def purge(self, updated_before: float) -> int: ...
    def close(self) -> None: ...


_SCHEMA = """
CREATE TABLE IF NOT EXISTS schema (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    env_id TEXT NOT NULL,
    options TEXT NOT NULL,
    seed INTEGER NOT NULL,
    seats TEXT NOT NULL,
    stand_ins TEXT NOT NULL,
    token_hashes TEXT NOT NULL,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    finished INTEGER NOT NULL DEFAULT 0,
    error TEXT,
    taken_over TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS tables_updated ON tables (updated);
CREATE TABLE IF NOT EXISTS moves (
    table_id TEXT NOT NULL REFERENCES tables (id) ON DELETE CASCADE,
    ply INTEGER NOT NULL,
    move TEXT NOT NULL,
    PRIMARY KEY (table_id, ply)
);
"""


def _int_keys(d: dict) -> dict[int, object]:
    return {int(k): v for k, v in d.items()}


class SQLiteStorage:
    """Tables in one SQLite file (``":memory:"`` for a server that keeps nothing)."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False)
        self._db.execute("PRAGMA foreign_keys = ON")
        if self.path != ":memory:":
            self._db.execute("PRAGMA journal_mode = WAL")
            self._db.execute("PRAGMA synchronous = NORMAL")
        with self._lock, self._db:
            self._db.executescript(_SCHEMA)
            row = self._db.execute("SELECT version FROM schema").fetchone()
            if row is None:
                self._db.execute("INSERT INTO schema (version) VALUES (?)", (SCHEMA_VERSION,))
            elif row[0] != SCHEMA_VERSION:
                raise ValueError(f"{self.path}: table database version {row[0]}, this server reads "
                                 f"version {SCHEMA_VERSION}")

    def add_table(self, t: StoredTable) -> None:
        with self._lock, self._db:
            self._db.execute(
                "INSERT INTO tables (id, env_id, options, seed, seats, stand_ins, token_hashes, created, updated,"
                " finished, error, taken_over) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (t.id, t.env_id, json.dumps(t.options), t.seed, json.dumps(t.seats), json.dumps(t.stand_ins),
                 json.dumps(t.token_hashes), t.created, t.updated, int(t.finished), t.error,
                 json.dumps(t.taken_over)))

    def add_moves(self, table_id: str, moves: list[tuple[int, dict]]) -> None:
        with self._lock, self._db:
            self._db.executemany("INSERT INTO moves (table_id, ply, move) VALUES (?, ?, ?)",
                                 [(table_id, ply, json.dumps(m, ensure_ascii=False)) for ply, m in moves])
            self._db.execute("UPDATE tables SET updated = ? WHERE id = ?", (time.time(), table_id))

    def update(self, table_id: str, *, finished: bool | None = None, error: str | None = None,
               taken_over: dict[int, int] | None = None) -> None:
        sets, values = ["updated = ?"], [time.time()]
        for column, value in (("finished", None if finished is None else int(finished)), ("error", error),
                              ("taken_over", None if taken_over is None else json.dumps(taken_over))):
            if value is not None:
                sets.append(f"{column} = ?")
                values.append(value)
        with self._lock, self._db:
            self._db.execute(f"UPDATE tables SET {', '.join(sets)} WHERE id = ?", (*values, table_id))

    def get(self, table_id: str) -> StoredTable | None:
        with self._lock:
            row = self._db.execute(
                "SELECT id, env_id, options, seed, seats, stand_ins, token_hashes, created, updated, finished, error,"
                " taken_over FROM tables WHERE id = ?", (table_id,)).fetchone()
            if row is None:
                return None
            moves = [json.loads(m) for (m,) in self._db.execute(
                "SELECT move FROM moves WHERE table_id = ? ORDER BY ply", (table_id,))]
        return StoredTable(id=row[0], env_id=row[1], options=json.loads(row[2]), seed=row[3], seats=json.loads(row[4]),
                           stand_ins=_int_keys(json.loads(row[5])), token_hashes=_int_keys(json.loads(row[6])),
                           created=row[7], updated=row[8], finished=bool(row[9]), error=row[10],
                           taken_over=_int_keys(json.loads(row[11])), moves=moves)

    def unfinished(self) -> list[str]:
        """Ids of the tables whose game goes on, the most recently played first."""
        with self._lock:
            return [r[0] for r in self._db.execute(
                "SELECT id FROM tables WHERE finished = 0 AND error IS NULL ORDER BY updated DESC")]

    def purge(self, updated_before: float) -> int:
        """Delete the tables (finished or not) untouched since ``updated_before``; how many."""
        with self._lock, self._db:
            return self._db.execute("DELETE FROM tables WHERE updated < ?", (updated_before,)).rowcount

    def close(self) -> None:
        with self._lock:
            self._db.close()
