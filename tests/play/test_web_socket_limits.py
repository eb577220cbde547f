"""``muggins-serve`` (uvicorn on 127.0.0.1) closes every oversize or malformed WebSocket hello in
order, seen from a raw socket: a 1009 close ("message too big") naming the limit, or a 4xxx close
after a JSON error naming it; never a reset connection without a close frame (a browser's 1006)."""

from __future__ import annotations

import base64
import json
import os
import socket
import struct
import urllib.request

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from tests.play.test_web_restart import Server

CLOSE, TEXT = 0x8, 0x1


def _frame(opcode: int, payload: bytes) -> bytes:
    """One masked client frame (RFC 6455 section 5.2)."""
    n = len(payload)
    head = bytes([0x80 | opcode])
    if n < 126:
        head += bytes([0x80 | n])
    elif n < 65536:
        head += bytes([0x80 | 126]) + struct.pack("!H", n)
    else:
        head += bytes([0x80 | 127]) + struct.pack("!Q", n)
    mask = os.urandom(4)
    keys = np.frombuffer(mask * (n // 4 + 1), np.uint8)[:n]
    return head + mask + (np.frombuffer(payload, np.uint8) ^ keys).tobytes()


def _read_frame(sock: socket.socket, buf: bytearray) -> tuple[int, bytes]:
    def need(k: int) -> None:
        while len(buf) < k:
            chunk = sock.recv(65536)  # a reset raises ConnectionResetError: the failure this file tests
            if not chunk:
                raise EOFError(f"the server ended the stream without a close frame (read {bytes(buf[:80])!r})")
            buf.extend(chunk)

    need(2)
    opcode, n, off = buf[0] & 0x0F, buf[1] & 0x7F, 2
    if n == 126:
        need(4)
        n, off = struct.unpack("!H", buf[2:4])[0], 4
    elif n == 127:
        need(10)
        n, off = struct.unpack("!Q", buf[2:10])[0], 10
    need(off + n)
    payload = bytes(buf[off:off + n])
    del buf[:off + n]
    return opcode, payload


def hello(port: int, path: str, payload: bytes) -> tuple[int, str, list[str]]:
    """Open a WebSocket, send ``payload`` as its first text message, read to the close frame and
    answer it as a client does: (close code, close reason, the text messages before it)."""
    with socket.create_connection(("127.0.0.1", port), timeout=20) as sock:
        key = base64.b64encode(os.urandom(16)).decode()
        sock.sendall((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                      f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                      f"Origin: http://127.0.0.1:{port}\r\n\r\n").encode())
        buf = bytearray()
        while b"\r\n\r\n" not in buf:
            buf.extend(sock.recv(4096))
        head, _, rest = bytes(buf).partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 101"), head
        buf = bytearray(rest)
        sock.sendall(_frame(TEXT, payload))
        texts = []
        while True:
            opcode, data = _read_frame(sock, buf)
            if opcode == TEXT:
                texts.append(data.decode())
            elif opcode == CLOSE:
                code = struct.unpack("!H", data[:2])[0]
                sock.sendall(_frame(CLOSE, data[:2]))
                while sock.recv(65536):  # the server's end of the stream, not a reset
                    pass
                return code, data[2:].decode(), texts


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    server = Server(tmp_path_factory.mktemp("ws") / "tables.sqlite3").start()
    try:
        req = urllib.request.Request(server.base + "/api/tables", method="POST",
                                     headers={"content-type": "application/json", "origin": server.base},
                                     data=json.dumps({"game": "michigan_v0", "options": {"num_players": 3},
                                                      "seats": ["human", "heuristic", "heuristic"]}).encode())
        created = json.loads(urllib.request.urlopen(req, timeout=30).read())
        yield server.port, f"/ws/tables/{created['table']}/seats/0"
    finally:
        server.stop()


@pytest.mark.parametrize("payload", [b'{"token": "' + b"x" * 1_000_000 + b'"}', b"x" * 10_000_000, b"[" * 100_000],
                         ids=["1MB", "10MB", "nested-100000"])
def test_a_hello_over_the_frame_limit_gets_1009_naming_the_limit_every_time(table, payload):
    port, path = table
    for _ in range(5):  # the reset that lost the close frame came some of the time
        code, reason, texts = hello(port, path, payload)
        assert code == 1009 and "65536 bytes" in reason and texts == []


@pytest.mark.parametrize(("payload", "words"), [(b'{"token": "' + b"x" * 5000 + b'"}', "more than 4096 characters"),
                                                (b"[" * 20 + b"]" * 20, "deeper than 8 levels"),
                                                (b"[" * 4000, "deeper than 8 levels")])
def test_a_hello_over_the_apps_limits_gets_a_4xxx_close_after_a_json_error_naming_it(table, payload, words):
    port, path = table
    for _ in range(3):
        code, _, texts = hello(port, path, payload)
        assert 4400 <= code < 4500 and len(texts) == 1
        error = json.loads(texts[0])
        assert error["type"] == "error" and words in error["error"]
