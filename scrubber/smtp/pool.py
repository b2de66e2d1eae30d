"""MIME scrubbing off the event loop, each message with a time budget.

``processes >= 1``: that many worker processes (``python -m scrubber.smtp.pool``), each with its
own engine, one message at a time each. With two or more, one of them takes the messages over
``LARGE_MESSAGE_BYTES`` and only those, at a lower CPU priority (nice 10): a big message holds
up neither the small ones' workers nor, on a busy machine, their CPU. A worker still busy when
a message's budget (plus a grace period) is over is killed and replaced, and the message fails
with ``ScrubError("time_budget")``.

``processes == 0``: one thread in this process (for tests and small set-ups); the budget is then
checked between batches of text only, never enforced by force.

Parent and worker talk in frames over the worker's stdin/stdout (:mod:`scrubber.pipes`). The
first frame to the worker is its :class:`~scrubber.smtp.transform.EngineSpec`; it answers
``("ready",)`` once its engine is built, then one reply per message: what
:func:`~scrubber.smtp.transform.run_job` returns.
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any

import structlog

from scrubber.engine import Scrubber, ScrubError
from scrubber.observability import WORKER_RESTARTS
from scrubber.pipes import PipeWorker, WorkerExited, read_frame, worker_streams, write_frame
from scrubber.smtp.delivery import TRANSPORT
from scrubber.smtp.transform import EngineSpec, Scrubbed, run_job

LARGE_MESSAGE_BYTES = 512 * 1024
BULK_NICE = 10
GRACE_SECONDS = 1.0
START_TIMEOUT = 120.0
# A message that waits this long for a free worker gets a temporary failure (the sender retries).
QUEUE_TIMEOUT = 60.0
STOP_GRACE = 2.0  # seconds a worker has to exit once its stdin is closed

log = structlog.get_logger("scrubber.smtp")


# --------------------------------------------------------------------------- the worker side
def worker_main() -> None:
    """A worker: frames in on stdin, frames out on stdout (anything else printed goes to stderr)."""
    if len(sys.argv) > 1:
        os.nice(int(sys.argv[1]))
    inp, out = worker_streams()
    spec: EngineSpec = read_frame(inp)
    scrubber = spec.build()
    write_frame(out, ("ready",))
    while True:
        try:
            data, budget = read_frame(inp)
        except EOFError:
            return
        write_frame(out, run_job(scrubber, spec, data, budget))


# --------------------------------------------------------------------------- the parent side
class _Worker(PipeWorker):
    def __init__(self, proc: asyncio.subprocess.Process, bulk: bool) -> None:
        super().__init__(proc)
        self.bulk = bulk

    @classmethod
    async def start(cls, spec: EngineSpec, bulk: bool) -> _Worker:
        nice = [str(BULK_NICE)] if bulk else []
        worker = cls(await cls.spawn("scrubber.smtp.pool", *nice), bulk)
        try:
            reply = await worker.handshake(spec, timeout=START_TIMEOUT)
        except WorkerExited as exc:
            raise RuntimeError(f"scrub worker exited at start (exit code {exc.code})") from None
        if reply != ("ready",):
            raise RuntimeError("scrub worker did not start")
        return worker


class ScrubPool:
    def __init__(self, spec: EngineSpec, processes: int, budget: float) -> None:
        self.spec = spec
        self.processes = processes
        self.budget = budget
        # Idle workers, by kind: False for the small messages', True for the large ones'.
        self._idle: dict[bool, asyncio.Queue[_Worker]] = {False: asyncio.Queue(), True: asyncio.Queue()}
        self._bulk = processes >= 2
        self._workers: set[_Worker] = set()
        self._scrubber: Scrubber | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._dying: set[_Worker] = set()
        self._reapers: set[asyncio.Task[int]] = set()
        self._started = False

    async def start(self) -> None:
        if self.processes == 0:
            self._scrubber = await asyncio.to_thread(self.spec.build)
        else:
            kinds = [self._bulk and i == 0 for i in range(self.processes)]
            workers = await asyncio.gather(*(_Worker.start(self.spec, bulk) for bulk in kinds))
            for w in workers:
                self._workers.add(w)
                self._idle[w.bulk].put_nowait(w)
        self._started = True

    def ready(self) -> bool:
        if not self._started:
            return False
        return self.processes == 0 or any(w.alive() for w in self._workers)

    async def stop(self) -> None:
        self._started = False
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        # A cancelled start or exchange kills its worker and reaps it: let it finish, so that no
        # process is left unreaped when the event loop that owns its pipes ends.
        await asyncio.gather(*tasks, return_exceptions=True)
        workers = list(self._workers)
        self._workers.clear()
        await asyncio.gather(*(w.stop(STOP_GRACE) for w in workers), return_exceptions=True)
        # Killed workers are reaped here too, before the event loop that owns their pipes ends.
        await asyncio.gather(*(w.reap() for w in self._dying), return_exceptions=True)

    async def scrub(self, data: bytes) -> Scrubbed:
        """Scrub one message; raises ScrubError with the reason it cannot be scrubbed."""
        if self.processes == 0:
            assert self._scrubber is not None
            reply = await asyncio.to_thread(run_job, self._scrubber, self.spec, data, self.budget)
        else:
            reply = await self._in_worker(data, self._bulk and len(data) > LARGE_MESSAGE_BYTES)
        if reply[0] == "ok":
            result: Scrubbed = reply[1]
            return result
        raise ScrubError(reply[1], reply[2])

    async def _in_worker(self, data: bytes, bulk: bool) -> tuple[Any, ...]:
        try:
            worker = await asyncio.wait_for(self._idle[bulk].get(), QUEUE_TIMEOUT)
        except TimeoutError:
            return ("error", "worker_failed", "no scrub worker free")
        try:
            reply: tuple[Any, ...] = await asyncio.wait_for(
                worker.call((data, self.budget)), self.budget + GRACE_SECONDS
            )
        except TimeoutError:
            self._replace(worker)
            return ("error", "time_budget", "worker stopped after its time budget")
        except (EOFError, asyncio.IncompleteReadError, ConnectionError):
            self._replace(worker)
            return ("error", "worker_failed", "worker process ended")
        except BaseException:
            # Cancelled half-way (the client went away): the worker's pipe is mid-frame.
            self._replace(worker)
            raise
        self._idle[bulk].put_nowait(worker)
        return reply

    def _replace(self, worker: _Worker) -> None:
        worker.kill()
        if self._started:
            WORKER_RESTARTS.labels(TRANSPORT).inc()
        self._workers.discard(worker)
        self._dying.add(worker)
        loop = asyncio.get_running_loop()
        reaper = loop.create_task(worker.reap())
        self._reapers.add(reaper)
        reaper.add_done_callback(self._reapers.discard)
        reaper.add_done_callback(lambda _: self._dying.discard(worker))
        task = loop.create_task(self._respawn(worker.bulk))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _respawn(self, bulk: bool) -> None:
        delay = 1.0
        while self._started:
            try:
                worker = await _Worker.start(self.spec, bulk)
            except Exception as exc:
                log.error("smtp.worker_start_failed", error=type(exc).__name__)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 30.0)
                continue
            if not self._started:
                await worker.stop(STOP_GRACE)
                return
            self._workers.add(worker)
            self._idle[bulk].put_nowait(worker)
            return


if __name__ == "__main__":
    # Run as the named module, not as __main__: the replies' classes must unpickle in the parent.
    from scrubber.smtp.pool import worker_main as main

    main()
