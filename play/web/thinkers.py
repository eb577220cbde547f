"""The threads where agents think, apart from the threads that answer requests.

A search agent may think for seconds. Run on the server's own thread pool it would hold one of
the threads that also serve files and pages, and enough such tables would leave none (a crowd
of ``search`` tables once made ``GET /`` wait 20 s). Here a fixed number of daemon threads take
agents' moves from a queue, in the order asked: a busy table delays other tables' agents, never
a request; and daemon threads never keep a stopping server alive.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Callable
from typing import Any


class Thinkers:
    """``await thinkers.run(fn)`` runs ``fn()`` on one of ``workers`` daemon threads."""

    def __init__(self, workers: int = 2) -> None:
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers={workers!r} must be an int >= 1")
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._threads = [threading.Thread(target=self._work, name=f"muggins-thinker-{i}", daemon=True)
                         for i in range(workers)]
        for t in self._threads:
            t.start()

    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            fn, loop, fut = job
            if fut.cancelled():
                continue
            try:
                outcome = (fn(), None)
            except BaseException as e:  # noqa: BLE001 - handed to the waiting table
                outcome = (None, e)
            try:
                loop.call_soon_threadsafe(_settle, fut, *outcome)
            except RuntimeError:  # the server stopped meanwhile: nobody waits for this move
                pass

    async def run(self, fn: Callable[[], Any]) -> Any:
        loop = asyncio.get_running_loop()
        fut = loop.create_future()
        self._jobs.put((fn, loop, fut))
        return await fut

    def close(self) -> None:
        for _ in self._threads:
            self._jobs.put(None)


def _settle(fut: asyncio.Future, result: Any, error: BaseException | None) -> None:
    if fut.done():  # the table gave up waiting (its time budget, or the server stopping)
        return
    if error is not None:
        fut.set_exception(error)
    else:
        fut.set_result(result)
