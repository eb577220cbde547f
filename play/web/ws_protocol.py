"""uvicorn's WebSocket protocol with an orderly close for a frame over ``ws_max_size``.

uvicorn answers such a frame with a 1009 close ("message too big") and closes the TCP connection
at once; the rest of the frame, still arriving, makes the kernel reset the connection, and a
reset can reach the client before it has read the close frame: it then sees 1006, a dropped
connection with no reason. Here the server sends the 1009 close and the end of its stream, then
reads and drops what still comes until the client closes (or ``DRAIN_SECONDS`` pass), so the
close frame and its reason always arrive.
"""

from __future__ import annotations

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

DRAIN_SECONDS = 5.0  # how long a refused client may go on sending before the connection is closed


class OrderlyCloseProtocol(WebSocketsSansIOProtocol):
    """``uvicorn.run(..., ws=OrderlyCloseProtocol)``: see the module docstring."""

    draining = False

    def data_received(self, data: bytes) -> None:
        if self.draining:
            return  # the rest of the refused frame, read and dropped
        super().data_received(data)

    def handle_parser_exception(self) -> None:
        close = self.conn.close_sent  # websockets has queued the close (1009 for a frame too big)
        self.queue.put_nowait({"type": "websocket.disconnect", "code": close.code if close else 1002,
                               "reason": close.reason if close else ""})
        self.transport.write(b"".join(self.conn.data_to_send()))
        self.close_sent = self.draining = True
        if self.transport.can_write_eof():
            self.transport.write_eof()
        if self.read_paused:
            self.read_paused = False
            self.transport.resume_reading()
        if self.close_timer is None:
            self.close_timer = self.loop.call_later(DRAIN_SECONDS, self.transport.close)
