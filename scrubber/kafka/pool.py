"""Kafka scrubbing in worker processes (``kafka.scrub_processes >= 1``).

Each worker is ``python -m scrubber.kafka.pool``: it builds the route scrubbers once and then
answers one slice of records at a time, in frames over its stdin/stdout (:mod:`scrubber.pipes`):
first the import path and logging, then the settings and the scrubber factory, answered by
``("ready",)``; then ``(route index, items, budget, headers)``, answered by ``("ok", outcomes)``
or ``("error", kind)``.

Pipes rather than a ``multiprocessing`` pool, for two reasons. A pool's queues hold named POSIX
semaphores that only the process that made them unlinks when it exits cleanly: after a kill -9
of the proxy they stayed behind for the resource tracker to remove (and to warn about, in
plain text on stderr) when the supervisor exited. A pipe leaves nothing behind, and a worker
whose stdin closes (the proxy died) exits by itself. And a pool whose worker died is broken for
good, while this one replaces the worker and says what became of the slice it was scrubbing:
it is run again once on another worker; if that worker dies too, its records are scrubbed one
at a time, and a record that takes a worker down with it on its own is held back with the
reason ``worker_crashed`` (a scrub that raises instead: ``scrub_failed``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import Sequence
from typing import Any, BinaryIO

import structlog

from scrubber.config import ConfigError, Settings
from scrubber.kafka.transform import (
    TRANSPORT,
    Headers,
    Items,
    Outcome,
    ScrubberFactory,
    build_route_scrubbers,
)
from scrubber.observability import WORKER_RESTARTS
from scrubber.pipes import PipeWorker, WorkerExited, read_frame, worker_streams, write_frame

START_TIMEOUT = 180.0
STOP_GRACE = 5.0
# Run through each engine once at start, so that models loaded on first use (the parser) are
# loaded before the first record, not on its time budget.
WARM_UP = "Hi, my name is Jane Roe; my SSN ends in 6789, call 415-555-0142 or mail jane@example.com."

log = structlog.get_logger("scrubber.kafka")


class WorkerLost(Exception):
    """A slice got no outcomes: ``reason`` says why (the worker died, or the scrub raised)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


# --------------------------------------------------------------------------- the worker side
def worker_main() -> None:
    """A worker: frames in on stdin, frames out on stdout (anything printed goes to stderr)."""
    inp, out = worker_streams()
    try:
        _serve(inp, out)
    except (EOFError, BrokenPipeError):
        # The proxy is gone (it closed our stdin, or died): nothing to answer, nothing to say on
        # stderr, which is the proxy's log. Leave without flushing the dead pipe at exit.
        sys.stderr.flush()
        os._exit(0)


def _serve(inp: BinaryIO, out: BinaryIO) -> None:
    # First plain data: where to import from (the factory may live outside the package, as the
    # proxy's own import path finds it) and how to log; then what to build.
    path, log_format, log_level = read_frame(inp)
    sys.path[:] = path
    from scrubber.logs import configure

    configure(log_format, log_level)
    try:
        settings, make_scrubber = read_frame(inp)
        routes = build_route_scrubbers(settings, make_scrubber)
        for scrubber in {id(r.scrubber): r.scrubber for r in routes}.values():
            scrubber.scrub_many([WARM_UP])
    except EOFError:
        raise
    except Exception as exc:  # a rule file or policy the engine refuses: the proxy cannot start
        write_frame(out, ("error", type(exc).__name__, str(exc)))
        return
    write_frame(out, ("ready",))
    while True:
        index, items, budget, headers = read_frame(inp)
        try:
            reply: tuple[Any, ...] = ("ok", routes[index].run(items, budget, headers))
        except Exception as exc:
            log.error("kafka_scrub_failed", error=type(exc).__name__)
            reply = ("error", type(exc).__name__)
        write_frame(out, reply)


# --------------------------------------------------------------------------- the parent side
def _retrieve(task: asyncio.Task[Any]) -> None:
    if not task.cancelled():
        task.exception()


class _Worker(PipeWorker):
    @classmethod
    async def start(cls, settings: Settings, make_scrubber: ScrubberFactory) -> _Worker:
        worker = cls(await cls.spawn("scrubber.kafka.pool"))
        log_cfg = settings.logging
        try:
            where = (list(sys.path), log_cfg.format, log_cfg.level)
            reply = await worker.handshake(where, (settings, make_scrubber), timeout=START_TIMEOUT)
        except WorkerExited as exc:
            raise RuntimeError(f"kafka scrub process exited at start (exit code {exc.code})") from None
        if reply != ("ready",):
            kind, detail = (reply[1], reply[2]) if reply[0] == "error" else ("unknown", repr(reply))
            raise ConfigError(f"kafka scrub process cannot start: {kind}: {detail}")
        return worker


class ScrubProcesses:
    """``processes`` workers; :meth:`run` scrubs one slice on whichever is free."""

    def __init__(self, settings: Settings, make_scrubber: ScrubberFactory, processes: int) -> None:
        self.settings = settings
        self.make_scrubber = make_scrubber
        self.processes = processes
        self._idle: asyncio.Queue[_Worker] = asyncio.Queue()
        self._workers: set[_Worker] = set()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._started = False

    async def start(self) -> None:
        """Start every worker now, so that a policy the engine refuses fails here."""
        started = await asyncio.gather(
            *(_Worker.start(self.settings, self.make_scrubber) for _ in range(self.processes)),
            return_exceptions=True,
        )
        workers = [w for w in started if isinstance(w, _Worker)]
        failed = [e for e in started if isinstance(e, BaseException)]
        if failed:
            await asyncio.gather(*(w.stop(STOP_GRACE) for w in workers))
            raise failed[0]
        for w in workers:
            self._workers.add(w)
            self._idle.put_nowait(w)
        self._started = True

    def ready(self) -> bool:
        """At least one worker is up (the others may be restarting)."""
        return self._started and any(w.proc.returncode is None for w in self._workers)

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

    async def run(
        self, index: int, items: Items, budget: float, headers: Sequence[Headers] | None
    ) -> list[Outcome]:
        """Outcomes of a prefix of ``items`` (at least one), as :meth:`RouteScrubber.run` gives them."""
        for _attempt in range(2):
            with contextlib.suppress(WorkerLost):
                return await self._call((index, items, budget, headers))
        # Twice no answer: one record at a time, so that only the records at fault are held back.
        out: list[Outcome] = []
        for i in range(len(items)):
            one = None if headers is None else headers[i : i + 1]
            try:
                out.extend(await self._call((index, items[i : i + 1], budget, one)))
            except WorkerLost as exc:
                out.append(Outcome(reason=exc.reason))
        return out

    async def _call(self, job: tuple[Any, ...]) -> list[Outcome]:
        worker = await self._idle.get()
        # A caller cancelled mid-slice (its partition was revoked) leaves the worker to finish
        # the slice; the worker is free again once its answer has been read.
        exchange = asyncio.get_running_loop().create_task(self._exchange(worker, job))
        self._tasks.add(exchange)
        exchange.add_done_callback(self._tasks.discard)
        exchange.add_done_callback(_retrieve)  # its WorkerLost, should no caller be left to see it
        reply = await asyncio.shield(exchange)
        if reply[0] != "ok":
            raise WorkerLost("scrub_failed")
        outcomes: list[Outcome] = reply[1]
        return outcomes

    async def _exchange(self, worker: _Worker, job: tuple[Any, ...]) -> tuple[Any, ...]:
        try:
            reply: tuple[Any, ...] = await worker.call(job)
        except (EOFError, asyncio.IncompleteReadError, ConnectionError):
            await self._replace(worker)
            raise WorkerLost("worker_crashed") from None
        except asyncio.CancelledError:  # stopping: the worker's pipe is mid-frame
            worker.kill()
            raise
        self._idle.put_nowait(worker)
        return reply

    async def _replace(self, worker: _Worker) -> None:
        worker.kill()
        self._workers.discard(worker)
        code = await worker.reap()
        if not self._started:
            return
        log.warning("kafka_scrub_process_exited", exit_code=code, pid=worker.proc.pid)
        WORKER_RESTARTS.labels(TRANSPORT).inc()
        task = asyncio.get_running_loop().create_task(self._respawn())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _respawn(self) -> None:
        delay = 1.0
        while self._started:
            try:
                worker = await _Worker.start(self.settings, self.make_scrubber)
            except Exception as exc:
                log.error("kafka_scrub_process_start_failed", error=type(exc).__name__, retry_in=delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 30.0)
                continue
            if not self._started:
                await worker.stop(STOP_GRACE)
                return
            self._workers.add(worker)
            self._idle.put_nowait(worker)
            log.info("kafka_scrub_process_started", pid=worker.proc.pid)
            return


if __name__ == "__main__":
    # Run as the named module, not as __main__: the outcomes' class must unpickle in the proxy.
    from scrubber.kafka.pool import worker_main as main

    main()
