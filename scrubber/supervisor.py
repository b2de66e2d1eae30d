"""``scrubber run --workers N``: one supervisor process, N worker processes each running ``serve``.

The supervisor owns the admin endpoint. Metrics use prometheus-client's multi-process mode: the
supervisor creates a fresh directory, puts it in ``PROMETHEUS_MULTIPROC_DIR`` and only then
starts the workers (spawned, so each imports prometheus-client with the variable already set and
backs every metric with a file there); its ``/metrics`` reads them all, so one scrape shows the
sum over workers. Each worker reports readiness through a shared byte; ``/readyz`` is ready when
every worker is.

SIGTERM/SIGINT stop the workers (SIGTERM, then SIGKILL after :data:`STOP_GRACE` seconds). A worker
that exits on its own is restarted with a growing back-off; the supervisor gives up (stops the
rest and exits non-zero, so that the orchestrator restarts the pod) when a worker exits with the
configuration-error code 2, or after :data:`MAX_RESTARTS` restarts within :data:`RESTART_WINDOW`.

Spawning starts multiprocessing's resource tracker, which shares our stderr (the JSON log) and
writes plain text there only about named semaphores or shared memory left registered by a
process that died without cleaning up. Workers register none: their readiness byte comes from
an unlinked file mapping, and their scrub processes talk over pipes (:mod:`scrubber.pipes`), so
a kill -9 of a worker leaves it nothing to report.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import shutil
import signal
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from multiprocessing.process import BaseProcess
from typing import Any

import structlog
from prometheus_client import CollectorRegistry, multiprocess
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.platform_collector import PlatformCollector
from prometheus_client.process_collector import ProcessCollector
from prometheus_client.registry import Collector

from scrubber.admin import AdminServer
from scrubber.config import ConfigError, Settings
from scrubber.logs import configure, get_logger
from scrubber.rulefile import RuleError
from scrubber.service import playground_routes, run_loop, serve

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
STOP_GRACE = 25.0
MAX_RESTARTS = 5
RESTART_WINDOW = 60.0
EXIT_CONFIG = 2

log = get_logger("scrubber.supervisor")


@dataclass
class _Worker:
    index: int
    ready: Any  # a shared ctypes byte: 1 while the worker is ready
    process: BaseProcess | None = None
    restarts: list[float] = field(default_factory=list)

    def alive(self) -> bool:
        return self.process is not None and self.process.is_alive()


class Supervisor:
    def __init__(self, settings: Settings, workers: int) -> None:
        # Workers see the real count (a transport may share its listening port when it is > 1).
        self.settings = replace(settings, workers=workers)
        self._ctx = multiprocessing.get_context("spawn")
        self.workers = [_Worker(i, self._ctx.RawValue("b", 0)) for i in range(workers)]
        self.restarts = 0
        self.gave_up = False
        self._stop = asyncio.Event()
        self._exits: asyncio.Queue[_Worker] = asyncio.Queue()
        self.metrics_dir = ""
        self.admin: AdminServer | None = None

    # ------------------------------------------------------------------ health
    def live(self) -> bool:
        return not self.gave_up

    def checks(self) -> dict[str, bool]:
        return {f"worker-{w.index}": w.alive() and bool(w.ready.value) for w in self.workers}

    def worker_pids(self) -> list[int]:
        return [w.process.pid for w in self.workers if w.alive() and w.process and w.process.pid]

    # ------------------------------------------------------------------ run
    async def run(self) -> int:
        """Serve until a signal; the exit code is 0 after a clean stop, non-zero after giving up."""
        parent = os.environ.get(MULTIPROC_ENV) or None
        if parent:
            os.makedirs(parent, exist_ok=True)
        # A fresh directory every time: files of an earlier run would be summed in.
        self.metrics_dir = tempfile.mkdtemp(prefix="scrubber-metrics-", dir=parent)
        os.environ[MULTIPROC_ENV] = self.metrics_dir
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, self._stop.set)
        code = 0
        try:
            registry = CollectorRegistry()
            multiprocess.MultiProcessCollector(registry, path=self.metrics_dir)  # type: ignore[no-untyped-call]
            registry.register(SupervisorCollector(self))
            PlatformCollector(registry=registry)
            routes = playground_routes() if self.settings.admin.playground else {}
            self.admin = AdminServer(
                self.settings.admin.listen,
                live=self.live,
                checks=self.checks,
                registry=registry,
                routes=routes,
            )
            await self.admin.start()
            log.info("supervisor started", workers=len(self.workers), pid=os.getpid())
            self._check_cpus()
            for w in self.workers:
                self._spawn(w)
            code = await self._supervise()
        finally:
            await self._stop_all()
            if self.admin is not None:
                await self.admin.stop()
            shutil.rmtree(self.metrics_dir, ignore_errors=True)
            log.info("supervisor stopped", exit_code=code)
        return code

    def _check_cpus(self) -> None:
        """Say so when the workers' Kafka scrub processes outnumber the CPUs this process may use:
        they then take turns on them, and each costs its memory for nothing."""
        kafka = self.settings.kafka
        if kafka is None or not hasattr(os, "sched_getaffinity"):
            return
        scrubbing = len(self.workers) * kafka.scrub_processes
        cpus = len(os.sched_getaffinity(0))
        if scrubbing > cpus:
            log.warning(
                "kafka scrub processes outnumber the CPUs",
                workers=len(self.workers),
                scrub_processes=kafka.scrub_processes,
                cpus=cpus,
            )

    def _spawn(self, w: _Worker) -> None:
        w.ready.value = 0
        proc = self._ctx.Process(
            target=worker_main,
            args=(self.settings, w.index, w.ready),
            name=f"scrubber-worker-{w.index}",
        )
        proc.start()
        w.process = proc
        loop = asyncio.get_running_loop()
        loop.add_reader(proc.sentinel, self._exited, w, proc)
        log.info("worker started", worker=w.index, worker_pid=proc.pid)

    def _exited(self, w: _Worker, proc: BaseProcess) -> None:
        asyncio.get_running_loop().remove_reader(proc.sentinel)
        proc.join()
        if proc.pid is not None:
            # Drop the dead process's live gauges (sessions, in-flight, lag, readiness).
            multiprocess.mark_process_dead(proc.pid, self.metrics_dir)  # type: ignore[no-untyped-call]
        w.ready.value = 0
        self._exits.put_nowait(w)

    async def _supervise(self) -> int:
        stopped = asyncio.create_task(self._stop.wait())
        try:
            while True:
                exited = asyncio.create_task(self._exits.get())
                await asyncio.wait({stopped, exited}, return_when=asyncio.FIRST_COMPLETED)
                if stopped.done():
                    exited.cancel()
                    log.info("stopping workers")
                    return 0
                w = exited.result()
                assert w.process is not None
                rc = w.process.exitcode
                log.warning("worker exited", worker=w.index, exit_code=rc)
                if rc == EXIT_CONFIG:
                    log.error("worker cannot start with this configuration; giving up", worker=w.index)
                    self.gave_up = True
                    return EXIT_CONFIG
                now = time.monotonic()
                w.restarts = [t for t in w.restarts if now - t < RESTART_WINDOW] + [now]
                if len(w.restarts) > MAX_RESTARTS:
                    log.error(
                        "worker keeps exiting; giving up",
                        worker=w.index,
                        restarts=len(w.restarts) - 1,
                        window_seconds=RESTART_WINDOW,
                    )
                    self.gave_up = True
                    return 1
                delay = min(0.5 * 2 ** (len(w.restarts) - 1), 10.0)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(asyncio.shield(stopped), delay)
                if stopped.done():
                    log.info("stopping workers")
                    return 0
                self.restarts += 1
                self._spawn(w)
        finally:
            stopped.cancel()

    async def _stop_all(self) -> None:
        live = [w for w in self.workers if w.alive()]
        for w in live:
            assert w.process is not None
            with contextlib.suppress(ProcessLookupError):
                w.process.terminate()
        deadline = time.monotonic() + STOP_GRACE
        while any(w.alive() for w in live) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        for w in live:
            if w.alive() and w.process is not None:
                log.error("worker did not stop in time; killing it", worker=w.index)
                w.process.kill()
                w.process.join()


class SupervisorCollector(Collector):
    """The supervisor's own series: workers alive, restarts, and process metrics summed over all."""

    SUMMED = frozenset(
        {
            "process_cpu_seconds",
            "process_virtual_memory_bytes",
            "process_resident_memory_bytes",
            "process_open_fds",
        }
    )

    def __init__(self, supervisor: Supervisor) -> None:
        self.supervisor = supervisor
        self._pid: int | str = "self"
        self._process = ProcessCollector(pid=lambda: self._pid, registry=None)

    def collect(self) -> Iterable[Metric]:
        sup = self.supervisor
        yield GaugeMetricFamily("scrubber_workers", "Worker processes alive", value=len(sup.worker_pids()))
        yield CounterMetricFamily(
            "scrubber_worker_restarts", "Workers restarted after an unexpected exit", value=sup.restarts
        )
        yield from self._process_totals(["self", *sup.worker_pids()])

    def _process_totals(self, pids: list[int | str]) -> Iterable[Metric]:
        # CPU, memory and descriptors add up over processes; start time and limits are the supervisor's.
        totals: dict[str, Metric] = {}
        for pid in pids:
            self._pid = pid
            for fam in self._process.collect():
                have = totals.get(fam.name)
                if have is None:
                    totals[fam.name] = fam
                elif fam.name in self.SUMMED and have.samples and fam.samples:
                    first = have.samples[0]
                    have.samples[0] = first._replace(value=first.value + fam.samples[0].value)
        return totals.values()


# ---------------------------------------------------------------------- worker side
def worker_main(settings: Settings, index: int, ready: Any) -> None:
    """Entry point of a worker process: run ``serve`` without an admin endpoint of its own."""
    configure(settings.logging.format, settings.logging.level)
    structlog.contextvars.bind_contextvars(worker=index)
    # The supervisor forwards SIGTERM; a terminal's Ctrl-C reaches it too, so ignore it here.
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def report(ok: bool) -> None:
        ready.value = 1 if ok else 0

    try:
        run_loop(_worker(settings, report), settings.event_loop)
    except (ConfigError, RuleError) as exc:
        log.error("cannot start", error=str(exc))
        raise SystemExit(EXIT_CONFIG) from None
    except Exception as exc:
        log.exception("worker failed", error=type(exc).__name__)
        raise SystemExit(1) from None


async def _worker(settings: Settings, report: Callable[[bool], None]) -> None:
    stop = asyncio.Event()
    parent = os.getppid()

    async def orphaned() -> None:
        # If the supervisor is gone (killed), nobody forwards signals any more: stop by ourselves.
        while os.getppid() == parent:
            await asyncio.sleep(1.0)
        log.warning("supervisor is gone; stopping")
        stop.set()

    watch = asyncio.create_task(orphaned())
    try:
        await serve(settings, stop, admin=False, report_ready=report, signals=(signal.SIGTERM,))
    finally:
        watch.cancel()
