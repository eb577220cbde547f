"""Who may talk to ``muggins-serve``: the checks a local web server needs against other web pages.

A page on any site can make the user's browser send requests to ``127.0.0.1``. So:
- **Host**: the server answers only requests addressed to it by an IP address, ``localhost``
  or a name its operator allows (``--allowed-host``). A DNS-rebinding page reaches the server
  under its own domain name, which is refused.
- **Origin**: a state-changing request (any method but GET and HEAD) and every WebSocket must
  come from the server's own origin, or carry no Origin at all (curl, scripts): a cross-site
  page's ``fetch`` and its WebSockets are refused.
- **Content type**: a body must be ``application/json`` (checked where bodies are read, in
  ``app.py``), which a cross-site page cannot send without a CORS preflight this server never
  grants.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from urllib.parse import urlsplit

from muggins_env.play.web.limits import short
from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket

SAFE_METHODS = ("GET", "HEAD")


def host_name(host: str) -> str:
    """The name in a Host header (``[::1]:8000`` -> ``::1``, ``Example.org:80`` -> ``example.org``)."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class Guard:
    """The Host and Origin rules above; ``"*"`` among the hosts answers every name."""

    def __init__(self, allowed_hosts: Iterable[str] = (), allowed_origins: Iterable[str] = ()) -> None:
        self.any_host = False
        self.hosts = {"localhost"}
        for h in allowed_hosts:
            if h == "*":
                self.any_host = True
            else:
                self.hosts.add(host_name(h))
        self.origins = {o.rstrip("/").lower() for o in allowed_origins}

    def host_refusal(self, host: str | None) -> str | None:
        if self.any_host:
            return None
        name = host_name(host or "")
        if name and (name in self.hosts or _is_ip(name)):
            return None
        return (f"this server does not answer to the host name {short(name or host)}: open it by its address "
                "or by a name its operator allows (muggins-serve --allowed-host NAME)")

    def origin_refusal(self, origin: str | None, host: str | None) -> str | None:
        if origin is None:
            return None  # not a browser page: curl, a script, a test client
        o = origin.strip().rstrip("/").lower()
        if o in self.origins or (o != "null" and urlsplit(o).netloc == (host or "").strip().lower()):
            return None
        return (f"requests from the page at {short(origin)} are refused: only this server's own pages may "
                "create tables, play or connect")


class GuardMiddleware:
    """Refuse (403, or a WebSocket error message and close 4403) what ``Guard`` refuses."""

    def __init__(self, app: ASGIApp, guard: Guard) -> None:
        self.app = app
        self.guard = guard

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            headers = Headers(scope=scope)
            host = headers.get("host")
            refusal = self.guard.host_refusal(host)
            if refusal is None and (scope["type"] == "websocket" or scope["method"] not in SAFE_METHODS):
                refusal = self.guard.origin_refusal(headers.get("origin"), host)
            if refusal is not None:
                if scope["type"] == "websocket":
                    ws = WebSocket(scope, receive, send)
                    await ws.accept()
                    await ws.send_json({"type": "error", "error": refusal})
                    await ws.close(code=4403)
                else:
                    await JSONResponse({"error": refusal}, status_code=403)(scope, receive, send)
                return
        await self.app(scope, receive, send)
