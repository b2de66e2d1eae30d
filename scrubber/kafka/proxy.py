"""The Kafka transport: consume each route's input topic, scrub, produce to its output topic.

At-least-once: an input offset is committed only once every record before it has been
acknowledged (acks=all) on the output or the quarantine topic. Records keep their partition
(input partition p goes to output partition p mod the output's partition count), so order within
a partition is kept. A record that cannot be scrubbed goes, unchanged, to the quarantine topic
with ``scrubber-*`` headers saying why; it never reaches the output topic. Until every output
topic and the quarantine topic exist, the proxy is not ready, consumes nothing and logs which
are missing (``kafka_topics_missing``); it starts by itself once they are there.

Keys and headers are carried over as they are, unless a route scrubs them (``scrub_keys``,
``scrub_headers``: all or the named headers' values, as text); a scrubbed key or header value
that is not UTF-8 holds the record back (``invalid_key``, ``invalid_header``).

The proxy composes source, transform and sink: a :class:`~scrubber.kafka.session.Session`
fetches, sends and commits; the :mod:`~scrubber.kafka.transform` scrubs. Scrubbing is CPU work:
batches run off the event loop (a thread, or ``scrub_processes`` worker processes) in slices of
at most ``limits.time_budget_ms`` so that heartbeats, acks and rebalances keep flowing. With
worker processes, batches of one partition may be scrubbed side by side, and are still sent in
offset order. A worker process that dies is replaced; its slice is scrubbed again, and a record
that takes a worker down on its own is quarantined (``worker_crashed``).
Any broker failure tears the session down and starts a new one with backoff; the new session
resumes from the committed offsets, so nothing is skipped (records after the last commit may
be produced twice).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import time
from collections.abc import Callable, Sequence
from typing import Any

import structlog
from aiokafka.errors import KafkaError

from scrubber.config import ConfigError, Settings
from scrubber.kafka.pool import ScrubProcesses
from scrubber.kafka.session import Session, client_security
from scrubber.kafka.transform import (
    TRANSPORT,
    Outcome,
    RouteScrubber,
    ScrubberFactory,
    build_route_scrubbers,
    engine_scrubber,
)
from scrubber.observability import UPSTREAM_ERRORS, TransportMetrics

FIRST_BACKOFF = 0.2
MIN_HEALTHY_SECONDS = 10.0  # a session that ran this long resets the backoff

log = structlog.get_logger("scrubber.kafka")


class KafkaProxy:
    """The Kafka transport: a :class:`~scrubber.service.Component`."""

    name = "kafka"

    def __init__(self, settings: Settings, *, make_scrubber: ScrubberFactory = engine_scrubber) -> None:
        if settings.kafka is None:
            raise ConfigError("kafka: section missing")
        self.settings = settings
        self.kafka = settings.kafka
        self.routes = self.kafka.routes
        self.max_bytes = self.kafka.max_message_bytes or settings.limits.max_message_bytes
        self.budget = settings.limits.time_budget_ms / 1000
        self.make_scrubber = make_scrubber
        self.security = client_security(self.kafka.security)
        # Scrubbing runs in one thread (scrub_processes 0) or in worker processes.
        self._thread: concurrent.futures.ThreadPoolExecutor | None = None
        self._local: list[RouteScrubber] = []
        self._processes: ScrubProcesses | None = None
        self._stopping = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._session: Session | None = None
        # Kept across sessions: its label children are looked up once.
        self.metrics = TransportMetrics(TRANSPORT)

    # ------------------------------------------------------------------ Component
    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        n = self.kafka.scrub_processes
        if n == 0:
            self._thread = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="scrub")
            self._local = await loop.run_in_executor(
                self._thread, build_route_scrubbers, self.settings, self.make_scrubber
            )
        else:
            self._processes = ScrubProcesses(self.settings, self.make_scrubber, n)
            await self._processes.start()
        self._stopping.clear()
        self._task = asyncio.create_task(self._supervise(), name="kafka-proxy")
        log.info("kafka_proxy_started", routes=len(self.routes), scrub_processes=n)

    async def stop(self) -> None:
        self._stopping.set()
        if self._task is not None:
            try:
                await asyncio.wait_for(asyncio.shield(self._task), self.kafka.drain_timeout * 2 + 5)
            except TimeoutError:
                log.warning("kafka_stop_timed_out")
                self._task.cancel()
        if self._thread is not None:
            # Wait (off the loop) for the slice in progress.
            await asyncio.to_thread(self._thread.shutdown, True, cancel_futures=True)
            self._thread = None
        if self._processes is not None:
            await self._processes.stop()
            self._processes = None
        log.info("kafka_proxy_stopped")

    def ready(self) -> bool:
        s = self._session
        return (
            s is not None
            and (self._processes is None or self._processes.ready())
            and s.healthy
            and not s.missing
            and s.failure is None
            and not self._stopping.is_set()
        )

    # ------------------------------------------------------------------ internals
    async def transform(self, index: int, records: Sequence[Any], abort: Callable[[], bool]) -> list[Outcome]:
        """Scrub ``records`` of route ``index`` off the event loop, one time-budgeted slice at a time;
        the outcomes of a prefix if ``abort()`` turns true between slices."""
        loop = asyncio.get_running_loop()
        items = [(r.value, r.key) for r in records]
        # Headers cross to a scrub process only when the route scrubs them.
        headers = [r.headers for r in records] if self.routes[index].scrub_headers else None
        out: list[Outcome] = []
        while len(out) < len(items) and not abort():
            rest = items[len(out) :]
            heads = None if headers is None else headers[len(out) :]
            if self._processes is not None:
                out.extend(await self._processes.run(index, rest, self.budget, heads))
            else:
                call = functools.partial(self._local[index].run, rest, self.budget, heads)
                out.extend(await loop.run_in_executor(self._thread, call))
        return out

    async def _supervise(self) -> None:
        backoff = FIRST_BACKOFF
        while not self._stopping.is_set():
            session = Session(
                self.kafka, self.transform, self.metrics, security=self.security, max_bytes=self.max_bytes
            )
            self._session = session
            clean = False
            opened = time.monotonic()
            try:
                await session.open(self._stopping)
                await session.pump(self._stopping)
                clean = True
            except Exception as exc:  # any failure: restart from the committed offsets
                kind = type(exc).__name__
                UPSTREAM_ERRORS.labels(TRANSPORT, kind).inc()
                detail = str(exc)[:200] if isinstance(exc, KafkaError) else ""
                log.warning("kafka_session_failed", error=kind, detail=detail, retry_in=round(backoff, 2))
                session.failure = session.failure or exc
            finally:
                await session.close(clean)
            if clean:
                break
            # A session that lasted is a recovery, not a crash loop: start the backoff over.
            if time.monotonic() - opened > max(self.kafka.retry_backoff_max, MIN_HEALTHY_SECONDS):
                backoff = FIRST_BACKOFF
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), backoff)
            backoff = min(backoff * 2, self.kafka.retry_backoff_max)
        self._session = None
