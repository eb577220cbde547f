"""``muggins-serve``: a web server where people play muggins_env games in the browser.

    muggins-serve                       # http://127.0.0.1:8000, tables kept in muggins-games/muggins-serve.sqlite3
    muggins-serve --host 0.0.0.0 --allowed-host games.example.org --agent strong=search:1000

Open the address, create a table (game, options, a person or one of the server's players on
every seat) and share each human seat's link; agents play their seats on the server. Tables
are kept in SQLite (``--db``): a restart resumes every game. Binds 127.0.0.1 unless told
otherwise; the README's "Play in the browser" says what it guards and what it does not.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from muggins_env.extras import report_missing

DEFAULT_DB = "muggins-games/muggins-serve.sqlite3"
WS_MAX_SIZE = 64 * 1024  # bytes of a WebSocket frame uvicorn accepts (the app's own cap is lower; above it: 1009)


def _agent(text: str) -> tuple[str, str]:
    name, sep, spec = text.partition("=")
    if not sep or not name.strip() or not spec.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME=SPEC (e.g. strong=search:1000)")
    return name.strip(), spec.strip()


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="muggins-serve", description="Serve muggins_env tables in the browser: "
                                "humans by shared links, agents on the server.")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--delay", type=float, default=0.5, help="seconds between agents' moves (default 0.5)")
    p.add_argument("--db", default=DEFAULT_DB, help=f"SQLite file of the tables (default {DEFAULT_DB}; "
                   "':memory:' keeps nothing after the server stops)")
    p.add_argument("--agent", action="append", type=_agent, default=[], metavar="NAME=SPEC",
                   help="offer another player by NAME (any agent spec, e.g. mine=ppo:runs/x; only NAME is "
                   "shown); repeatable")
    p.add_argument("--max-search", type=int, default=400,
                   help="largest N of the search:N players a table may seat (default 400; 0: none)")
    p.add_argument("--no-zoo", action="store_true", help="do not offer the zoo's trained players")
    p.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                   help="a host name the server answers to besides IP addresses and localhost (the name "
                   "friends type, e.g. games.example.org); '*' answers every name; repeatable")
    p.add_argument("--allowed-origin", action="append", default=[], metavar="URL",
                   help="another origin whose pages may use the server (e.g. https://games.example.org when "
                   "a proxy rewrites the Host header); repeatable")
    p.add_argument("--max-tables", type=int, default=200,
                   help="live tables in memory (default 200); a full server puts idle tables back into the "
                   "database and refuses new ones rather than stop a game being played")
    p.add_argument("--idle-minutes", type=float, default=10.0,
                   help="a table untouched this long with nobody connected may leave memory (default 10)")
    p.add_argument("--keep-days", type=float, default=7.0,
                   help="days a table is kept after its last move, its record downloadable (default 7)")
    p.add_argument("--create-rate", type=float, default=30.0,
                   help="new tables a client address may create per minute (default 30; 0: no limit)")
    p.add_argument("--seat-timeout", type=float, default=0.0,
                   help="minutes a person may take for a move before the seat's stand-in plays on for them "
                   "(default 0: no limit)")
    p.add_argument("--agent-workers", type=int, default=2, help="threads where agents think (default 2)")
    p.add_argument("--move-seconds", type=float, default=30.0,
                   help="time budget of an agent's move; past it the heuristic's move is played (default 30)")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    bad = [f"--{k.replace('_', '-')} {v}" for k, v, ok in (
        ("delay", args.delay, args.delay >= 0), ("max_tables", args.max_tables, args.max_tables >= 1),
        ("idle_minutes", args.idle_minutes, args.idle_minutes >= 0), ("keep_days", args.keep_days, args.keep_days > 0),
        ("create_rate", args.create_rate, args.create_rate >= 0), ("seat_timeout", args.seat_timeout,
                                                                    args.seat_timeout >= 0),
        ("agent_workers", args.agent_workers, args.agent_workers >= 1),
        ("move_seconds", args.move_seconds, args.move_seconds > 0), ("max_search", args.max_search,
                                                                     args.max_search >= 0)) if not ok]
    if bad:
        parser.error(f"{', '.join(bad)}: --delay, --idle-minutes, --create-rate, --seat-timeout and --max-search "
                     "must be >= 0; --max-tables and --agent-workers >= 1; --keep-days and --move-seconds > 0")
    if report_missing("muggins-serve", "web", "muggins-serve"):
        return 1
    import uvicorn
    from muggins_env.play.web.app import create_app
    from muggins_env.play.web.players import Roster
    from muggins_env.play.web.ws_protocol import OrderlyCloseProtocol

    try:
        roster = Roster(dict(args.agent), max_search=args.max_search, zoo=not args.no_zoo)
    except ValueError as e:
        parser.error(f"--agent: {e}")
    app = create_app(max_tables=args.max_tables, delay=args.delay, db=args.db, roster=roster,
                     allowed_hosts=args.allowed_host, allowed_origins=args.allowed_origin,
                     agent_workers=args.agent_workers, move_seconds=args.move_seconds,
                     seat_timeout=args.seat_timeout * 60, idle_minutes=args.idle_minutes, keep_days=args.keep_days,
                     create_rate=args.create_rate)
    kept = "kept nowhere" if args.db == ":memory:" else f"kept in {args.db}"
    print(f"muggins-serve: open http://{args.host}:{args.port}/ (Ctrl-C stops; tables {kept})", flush=True)
    # agents that think on threads hand the GIL back to the requests within 1 ms, not 5
    sys.setswitchinterval(0.001)
    # no per-message deflate: on a small server compressing every push costs more CPU than it saves
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning", ws_max_size=WS_MAX_SIZE,
                ws=OrderlyCloseProtocol, ws_per_message_deflate=False, timeout_graceful_shutdown=3)
    return 0


if __name__ == "__main__":
    sys.exit(main())
