"""Load test of ``muggins-serve``: N people playing at once over WebSockets against agents.

Starts the server on a free port of 127.0.0.1 (a fresh SQLite file, table creation not rate
limited), then N simulated players, each one table against the heuristic: it creates the table,
joins its seat's WebSocket, and on every push that says it is its turn waits its think time and
posts a random legal move;
when a game ends it starts another, until ``--seconds`` have passed (then each finishes the game
it is in, for at most ``--grace`` seconds). Loopback only, bounded in players and time.

Reports moves per second (the players' own, and all moves the server made), the latency of a
move's POST (p50, p99, max), the time from a move to the push that gives the turn back (agents
included), the server's peak resident memory, games finished, and games lost: a table that
answered an error or dropped a socket (a game still in play when the bench's time is up is
counted apart, as unfinished). The README's figures come from
``python benchmarks/bench_web_load.py --players 300 --seconds 60`` (the server's defaults, people
who take about a second a move) and, as a stress test, ``--delay 0 --think 0`` (agents and
players as fast as they go).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GAMES = [  # short games: one hand, small targets
    ("muggins_dominoes_v0", {"episode": "hand"}, 2),
    ("cribbage_v0", {"target": 61}, 2),
    ("michigan_v0", {"num_players": 3, "num_hands": 1}, 3),
    ("muggins_cards_v0", {"num_players": 3}, 3),
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Http:
    """A keep-alive HTTP/1.1 connection: enough of a client for JSON requests to one server."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader = self.writer = None

    async def request(self, method: str, path: str, body: dict | None = None, token: str | None = None) -> tuple[int, dict]:
        try:
            return await self._request(method, path, body, token)
        except (ConnectionError, IndexError, asyncio.IncompleteReadError):  # the server closed an idle keep-alive
            await self.close()
            self.writer = None
            return await self._request(method, path, body, token)

    async def _request(self, method: str, path: str, body: dict | None, token: str | None) -> tuple[int, dict]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        data = json.dumps(body).encode() if body is not None else b""
        head = [f"{method} {path} HTTP/1.1", f"host: 127.0.0.1:{self.port}", "content-type: application/json",
                f"content-length: {len(data)}"] + ([f"x-seat-token: {token}"] if token else [])
        self.writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + data)
        await self.writer.drain()
        status_line = await self.reader.readline()
        status = int(status_line.split()[1])
        length = 0
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            k, _, v = line.decode().partition(":")
            if k.strip().lower() == "content-length":
                length = int(v)
        payload = await self.reader.readexactly(length)
        return status, json.loads(payload) if payload else {}

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


class Stats:
    def __init__(self) -> None:
        self.post_ms: list[float] = []
        self.turn_ms: list[float] = []
        self.moves = 0
        self.server_moves = 0
        self.finished = 0
        self.unfinished = 0
        self.lost: list[str] = []


async def player(k: int, port: int, stats: Stats, stop_at: float, hard_stop: float, seed: int,
                 think: float) -> None:
    import websockets

    rng = random.Random(seed * 7919 + k)
    http = Http(port)
    try:
        g = 0
        while time.monotonic() < stop_at:
            game, options, n = GAMES[(k + g) % len(GAMES)]
            g += 1
            code, created = await http.request("POST", "/api/tables", {
                "game": game, "options": options, "seats": ["human"] + ["heuristic"] * (n - 1),
                "seed": rng.randrange(2**31)})
            if code != 201:
                stats.lost.append(f"player {k}: create {code} {created.get('error')}")
                return
            table, token = created["table"], created["links"]["0"].split("#", 1)[1]
            acted_at_ply, sent = -1, None
            async with websockets.connect(f"ws://127.0.0.1:{port}/ws/tables/{table}/seats/0",
                                          max_size=2**22, open_timeout=60) as ws:
                await ws.send(json.dumps({"token": token}))
                while True:
                    remaining = hard_stop - time.monotonic()
                    try:
                        msg = json.loads(await asyncio.wait_for(ws.recv(), max(0.0, remaining)))
                    except asyncio.TimeoutError:  # the bench's time is up, not the server's fault
                        stats.unfinished += 1
                        return
                    if msg["type"] != "state":
                        stats.lost.append(f"table {table}: {msg.get('error')}")
                        return
                    st = msg["state"]
                    if st["error"]:
                        stats.lost.append(f"table {table}: {st['error']}")
                        return
                    if st["over"]:
                        stats.finished += 1
                        stats.server_moves += st["ply"]
                        break
                    if st["your_turn"] and st["ply"] != acted_at_ply:
                        if sent is not None:
                            stats.turn_ms.append((time.monotonic() - sent) * 1000)
                            sent = None
                        acted_at_ply = st["ply"]
                        if think:  # a person looks at the table before moving
                            await asyncio.sleep(rng.uniform(0.5, 1.5) * think)
                        action = rng.choice(st["legal_moves"])[0]
                        sent = time.monotonic()
                        code, out = await http.request("POST", f"/api/tables/{table}/seats/0/move",
                                                       {"action": action}, token)
                        stats.post_ms.append((time.monotonic() - sent) * 1000)
                        if code != 200:
                            stats.lost.append(f"table {table}: move {code} {out.get('error')}")
                            return
                        stats.moves += 1
    except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError) as e:
        stats.lost.append(f"player {k}: {type(e).__name__}: {e}")
    except Exception as e:  # noqa: BLE001 - websockets' ConnectionClosed and the like: a dropped game
        stats.lost.append(f"player {k}: {type(e).__name__}: {e}")
    finally:
        await http.close()


def _rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


async def run(args: argparse.Namespace, port: int, pid: int) -> dict:
    stats = Stats()
    peak = [0.0]

    async def sample() -> None:
        while True:
            peak[0] = max(peak[0], _rss_mb(pid))
            await asyncio.sleep(0.5)

    sampler = asyncio.create_task(sample())
    start = time.monotonic()
    stop_at, hard_stop = start + args.seconds, start + args.seconds + args.grace
    await asyncio.gather(*(player(k, port, stats, stop_at, hard_stop, args.seed, args.think)
                           for k in range(args.players)))
    wall = time.monotonic() - start
    sampler.cancel()
    return {
        "players": args.players, "delay": args.delay, "think": args.think, "seconds": round(wall, 1),
        "player_moves": stats.moves, "player_moves_per_s": round(stats.moves / wall, 1),
        "all_moves_per_s": round(stats.server_moves / wall, 1),
        "post_ms": {"p50": round(pct(stats.post_ms, 0.5), 1), "p99": round(pct(stats.post_ms, 0.99), 1),
                    "max": round(max(stats.post_ms, default=float("nan")), 1)},
        "turn_back_ms": {"p50": round(pct(stats.turn_ms, 0.5), 1), "p99": round(pct(stats.turn_ms, 0.99), 1)},
        "server_peak_rss_mb": round(peak[0], 1), "games_finished": stats.finished,
        "games_unfinished_at_the_end": stats.unfinished,
        "games_lost": len(stats.lost), "lost": stats.lost[:10],
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--players", type=int, default=300, help="people playing at once (default 300)")
    p.add_argument("--seconds", type=float, default=60.0, help="start new games for this long (default 60)")
    p.add_argument("--grace", type=float, default=120.0, help="then finish the games in play within this (default 120)")
    p.add_argument("--delay", type=float, default=0.5,
                   help="the server's --delay between agents' moves (default 0.5, the server's own; 0: agents as "
                   "fast as they go)")
    p.add_argument("--think", type=float, default=1.0,
                   help="mean seconds a player looks before moving (uniform 0.5-1.5 times it; default 1; 0: at once)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", default=None, help="also write the figures to this file")
    args = p.parse_args(argv)
    if not 1 <= args.players <= 2000 or not 0 < args.seconds <= 3600:
        p.error("--players must be 1..2000 and --seconds in (0, 3600]: a load test here stays bounded")
    port = _free_port()
    with tempfile.TemporaryDirectory() as tmp:
        server = subprocess.Popen(
            [sys.executable, "-m", "muggins_env.play.web.cli", "--port", str(port), "--delay", str(args.delay),
             "--db", os.path.join(tmp, "load.sqlite3"), "--create-rate", "0", "--max-tables",
             str(max(200, 2 * args.players))], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        try:
            for _ in range(300):
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    if server.poll() is not None:
                        print(server.stdout.read().decode(), file=sys.stderr)
                        return 1
                    time.sleep(0.1)
            result = asyncio.run(run(args, port, server.pid))
        finally:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                server.kill()
    print(json.dumps(result, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n")
    return 0 if result["games_lost"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
