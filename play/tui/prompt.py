"""A line typed at the terminal that a Ctrl-C always interrupts.

Python's ``input()`` blocks in ``read()``. A SIGINT that lands after the prompt is drawn and
before that read starts (a player pressing Ctrl-C the moment the prompt appears, on a loaded
machine) only sets Python's signal flag, and the read then waits for a line that never comes: the
Ctrl-C is lost. Here the read happens only once ``select`` reports the terminal readable, and
the signal wakeup descriptor is in the same ``select``, so a signal at any moment ends the wait
and raises ``KeyboardInterrupt`` (at the prompt, where the caller saves the game).
"""

from __future__ import annotations

import contextlib
import io
import os
import select
import signal
import sys
import threading

_pending = bytearray()  # what a read returned past the end of the line asked for (piped input)


def ask(console, prompt: str) -> str:
    """``console.input(prompt)`` (``rich``), Ctrl-C-safe: the line without its newline;
    ``EOFError`` at the end of input, as ``input()``."""
    console.print(prompt, end="", markup=False, highlight=False)
    console.file.flush()
    return read_line()


def read_line() -> str:
    try:
        fd = sys.stdin.fileno()
    except (AttributeError, ValueError, io.UnsupportedOperation):
        fd = None
    if fd is None or os.name != "posix" or threading.current_thread() is not threading.main_thread():
        return input()  # no descriptor to watch (a test's stream), or signals go elsewhere
    with _wakeup() as wake:
        while b"\n" not in _pending:
            ready = select.select([fd, wake], [], [])[0]
            if wake in ready:
                with contextlib.suppress(BlockingIOError):
                    os.read(wake, 512)
                # a handled signal's Python handler runs on the way back to bytecode: a
                # KeyboardInterrupt leaves here; any other signal simply waits on
                continue
            chunk = os.read(fd, 4096)
            if not chunk:
                if _pending:
                    break
                raise EOFError
            _pending.extend(chunk)
        line, _, rest = bytes(_pending).partition(b"\n")
        _pending[:] = rest
    return line.decode("utf-8", "replace").rstrip("\r")


@contextlib.contextmanager
def _wakeup():
    r, w = os.pipe()
    os.set_blocking(r, False)
    os.set_blocking(w, False)
    before = signal.set_wakeup_fd(w, warn_on_full_buffer=False)
    try:
        yield r
    finally:
        signal.set_wakeup_fd(before)
        os.close(r)
        os.close(w)
