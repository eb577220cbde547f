"""``muggins-serve``: a local web server where people play muggins_env games in the browser.

    muggins-serve                       # http://127.0.0.1:8000
    muggins-serve --host 0.0.0.0 --port 8080 --delay 0.3

Open the address, create a table (game, options, a human or an agent on every seat) and
share each human seat's link; agents play their seats on the server. Tables live in the
server's memory until it stops. Binds 127.0.0.1 unless told otherwise.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

INSTALL_HINT = "muggins-serve: error: it needs the [web] extra; install it with: pip install 'muggins-env[web]'"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="muggins-serve", description="Serve muggins_env tables in the browser: "
                                "humans by shared links, agents on the server.")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--delay", type=float, default=0.5, help="seconds between agents' moves (default 0.5)")
    p.add_argument("--max-tables", type=int, default=200,
                   help="tables kept in memory; a new one beyond drops the longest idle (default 200)")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.delay < 0 or args.max_tables < 1:
        build_parser().error(f"--delay must be >= 0 and --max-tables >= 1 (got {args.delay}, {args.max_tables})")
    try:
        import uvicorn

        from .app import create_app
    except ImportError:
        print(INSTALL_HINT, file=sys.stderr)
        return 1
    print(f"muggins-serve: open http://{args.host}:{args.port}/ (Ctrl-C stops; tables live in memory)")
    uvicorn.run(create_app(max_tables=args.max_tables, delay=args.delay), host=args.host, port=args.port,
                log_level="warning")
    return 0


if __name__ == "__main__":
    sys.exit(main())
