"""One pool of scrub workers for both transports, on the pipes of :mod:`scrubber.pipes`.

A transport hands the pool a :class:`Job`: a picklable description of its work, which a worker
turns once into a handler (:meth:`Job.start`: the engine built and warmed up) that then answers
one request at a time. The Kafka proxy's job scrubs a slice of a route's records
(:class:`~scrubber.kafka.transform.KafkaJob`); the SMTP relay's scrubs one message
(:class:`~scrubber.smtp.transform.SmtpJob`).

The pool starts its workers (``python -m scrubber.workers TRANSPORT``), hands each request to a
free one, replaces one that dies or overruns its time limit, and stops them. With ``bulk``, one
worker of two or more takes only the requests marked bulk (the relay's large messages), at a
lower CPU priority (nice 10): a big message then holds up neither the other requests' workers
nor, on a busy machine, their CPU. ``processes == 0`` runs the handler in one thread of this
process (tests and small set-ups); time limits are then not enforced by force.

A caller cancelled while its request runs (a revoked partition, a client that hung up) leaves
the worker to finish it: the worker is free again once its reply has been read, and is not
replaced for nothing.

Frames to a worker: where to import from and how to log, then the job; it answers ``("ready",)``
or ``("error", kind, detail)`` when the job cannot start, then one reply per request. A handler
that raises answers ``("error", "internal_error", kind)``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import gc
import os
import sys
from collections.abc import Callable
from typing import Any, BinaryIO, Protocol

import structlog

from scrubber.config import ConfigError
from scrubber.logs import configure
from scrubber.observability import WORKER_RESTARTS
from scrubber.pipes import PipeWorker, WorkerExited, read_frame, worker_streams, write_frame

MODULE = "scrubber.workers"
START_TIMEOUT = 180.0
STOP_GRACE = 5.0  # seconds a worker has to exit once its stdin is closed
BULK_NICE = 10
FIRST_RESPAWN_DELAY = 1.0
MAX_RESPAWN_DELAY = 30.0

log = structlog.get_logger("scrubber.workers")

Handler = Callable[[Any], tuple[Any, ...]]


class Job(Protocol):
    """A transport's work in a worker process (pickled to it once, at start)."""

    def start(self) -> Handler:
        """Build what the work needs (the engine, warmed up); return the handler of one request."""


class WorkerLost(Exception):
    """A request got no reply: ``reason`` is ``worker_crashed`` (the worker died),
    ``time_budget`` (it overran its time and was stopped) or ``no_worker`` (none came free)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _safe(handler: Handler, request: Any) -> tuple[Any, ...]:
    """The handler's reply; a handler that raises (a bug) answers an error, never ends the worker."""
    try:
        return handler(request)
    except Exception as exc:
        log.error("scrub_job_failed", error=type(exc).__name__)
        return ("error", "internal_error", type(exc).__name__)


# --------------------------------------------------------------------------- the worker side
def worker_main() -> None:
    """A worker: frames in on stdin, frames out on stdout (anything printed goes to stderr)."""
    if len(sys.argv) > 2:
        os.nice(int(sys.argv[2]))
    inp, out = worker_streams()
    try:
        _serve(inp, out)
    except (EOFError, BrokenPipeError):
        # The parent is gone (it closed our stdin, or died): nothing to answer, nothing to say
        # on stderr, which is the parent's log. Leave without flushing the dead pipe at exit.
        sys.stderr.flush()
        os._exit(0)


def _serve(inp: BinaryIO, out: BinaryIO) -> None:
    # First plain data: where to import from (a job may name a factory outside the package, as
    # the parent's own import path finds it) and how to log; then the job.
    path, log_format, log_level = read_frame(inp)
    sys.path[:] = path
    configure(log_format, log_level)
    try:
        job: Job = read_frame(inp)
        handler = job.start()
    except EOFError:
        raise
    except Exception as exc:  # a rule file or policy the engine refuses: the pool cannot start
        write_frame(out, ("error", type(exc).__name__, str(exc)))
        return
    # What start() loaded (the parser's model, lexicons, compiled patterns) lives as long as the
    # worker: frozen out of the cyclic collector, a full collection while a large message is in
    # hand walks that message's objects, not all of them too.
    gc.collect()
    gc.freeze()
    write_frame(out, ("ready",))
    while True:
        write_frame(out, _safe(handler, read_frame(inp)))


# --------------------------------------------------------------------------- the parent side
def _retrieve(task: asyncio.Task[Any]) -> None:
    if not task.cancelled():
        task.exception()


class _Worker(PipeWorker):
    def __init__(self, proc: asyncio.subprocess.Process, bulk: bool) -> None:
        super().__init__(proc)
        self.bulk = bulk


class WorkerPool:
    """``processes`` workers running ``job`` for ``transport`` (the label of its restarts metric)."""

    def __init__(
        self, job: Job, processes: int, *, transport: str, logging: tuple[str, str], bulk: bool = False
    ) -> None:
        self.job = job
        self.processes = processes
        self.transport = transport
        self.logging = logging
        # Idle workers, by lane: False for ordinary requests, True for the bulk ones.
        self._idle: dict[bool, asyncio.Queue[_Worker]] = {False: asyncio.Queue(), True: asyncio.Queue()}
        self._bulk = bulk and processes >= 2
        self._workers: set[_Worker] = set()
        self._dying: set[_Worker] = set()  # killed, not yet reaped
        self._tasks: set[asyncio.Task[Any]] = set()
        self._thread: concurrent.futures.ThreadPoolExecutor | None = None
        self._handler: Handler | None = None
        self._started = False

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        """Start every worker now, so that a job that cannot start fails here."""
        if self.processes == 0:
            name = f"scrub-{self.transport}"
            self._thread = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix=name)
            self._handler = await asyncio.get_running_loop().run_in_executor(self._thread, self.job.start)
            self._started = True
            return
        lanes = [self._bulk and i == 0 for i in range(self.processes)]
        started = await asyncio.gather(*(self._start_worker(bulk) for bulk in lanes), return_exceptions=True)
        workers = [w for w in started if isinstance(w, _Worker)]
        failed = [e for e in started if isinstance(e, BaseException)]
        if failed:
            await asyncio.gather(*(w.stop(STOP_GRACE) for w in workers))
            raise failed[0]
        for w in workers:
            self._workers.add(w)
            self._idle[w.bulk].put_nowait(w)
        self._started = True

    def ready(self) -> bool:
        """Started, and at least one worker is up (the others may be restarting)."""
        return self._started and (self.processes == 0 or any(w.alive() for w in self._workers))

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
        await asyncio.gather(*(w.reap() for w in self._dying), return_exceptions=True)
        self._dying.clear()
        if self._thread is not None:
            # Wait (off the loop) for the request in progress.
            await asyncio.to_thread(self._thread.shutdown, True, cancel_futures=True)
            self._thread = None

    # ------------------------------------------------------------------ requests
    async def call(
        self, request: Any, *, bulk: bool = False, timeout: float | None = None, wait: float | None = None
    ) -> tuple[Any, ...]:
        """The reply to ``request``; raises :class:`WorkerLost` when there is none.

        ``bulk``: on the bulk worker, if there is one. ``timeout``: seconds the request may run
        before its worker is stopped and replaced. ``wait``: seconds to wait for a free worker.
        """
        if self._handler is not None:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._thread, _safe, self._handler, request)
        lane = bulk and self._bulk
        try:
            worker = await asyncio.wait_for(self._idle[lane].get(), wait)
        except TimeoutError:
            raise WorkerLost("no_worker") from None
        exchange = asyncio.get_running_loop().create_task(self._exchange(worker, request, timeout))
        self._track(exchange)
        exchange.add_done_callback(_retrieve)  # its WorkerLost, should no caller be left to see it
        return await asyncio.shield(exchange)

    async def _exchange(self, worker: _Worker, request: Any, timeout: float | None) -> tuple[Any, ...]:
        try:
            reply: tuple[Any, ...] = await asyncio.wait_for(worker.call(request), timeout)
        except TimeoutError:
            self._replace(worker)
            raise WorkerLost("time_budget") from None
        except (EOFError, asyncio.IncompleteReadError, ConnectionError):
            self._replace(worker)
            raise WorkerLost("worker_crashed") from None
        except asyncio.CancelledError:  # stopping: the worker's pipe is mid-frame
            worker.kill()
            raise
        self._idle[worker.bulk].put_nowait(worker)
        return reply

    # ------------------------------------------------------------------ workers
    async def _start_worker(self, bulk: bool) -> _Worker:
        nice = [str(BULK_NICE)] if bulk else []
        worker = _Worker(await PipeWorker.spawn(MODULE, self.transport, *nice), bulk)
        where = (list(sys.path), *self.logging)
        try:
            reply = await worker.handshake(where, self.job, timeout=START_TIMEOUT)
        except WorkerExited as exc:
            what = f"{self.transport} scrub process exited at start"
            raise RuntimeError(f"{what} (exit code {exc.code})") from None
        if reply != ("ready",):
            kind, detail = (reply[1], reply[2]) if reply[0] == "error" else ("unknown", repr(reply))
            raise ConfigError(f"{self.transport} scrub process cannot start: {kind}: {detail}")
        return worker

    def _track(self, task: asyncio.Task[Any]) -> None:
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _replace(self, worker: _Worker) -> None:
        """Kill ``worker``; reap it and start another in its place, in the background."""
        worker.kill()
        self._workers.discard(worker)
        self._dying.add(worker)
        if self._started:
            WORKER_RESTARTS.labels(self.transport).inc()
        self._track(asyncio.get_running_loop().create_task(self._respawn(worker)))

    async def _respawn(self, dead: _Worker) -> None:
        code = await dead.reap()  # if stop() cancels this, it reaps ``dead`` itself
        self._dying.discard(dead)
        if not self._started:
            return
        log.warning("scrub_process_exited", transport=self.transport, exit_code=code, pid=dead.proc.pid)
        delay = FIRST_RESPAWN_DELAY
        while self._started:
            try:
                worker = await self._start_worker(dead.bulk)
            except Exception as exc:
                log.error("scrub_process_start_failed", transport=self.transport, error=type(exc).__name__)
                await asyncio.sleep(delay)
                delay = min(delay * 2, MAX_RESPAWN_DELAY)
                continue
            if not self._started:
                await worker.stop(STOP_GRACE)
                return
            self._workers.add(worker)
            self._idle[worker.bulk].put_nowait(worker)
            log.info("scrub_process_started", transport=self.transport, pid=worker.proc.pid)
            return


if __name__ == "__main__":
    # Run as the named module, not as __main__: the replies' classes must unpickle in the parent.
    from scrubber.workers import worker_main as main

    main()
