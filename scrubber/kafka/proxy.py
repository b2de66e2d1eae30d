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
batches run off the event loop (a thread, or ``scrub_processes`` worker processes of
:mod:`scrubber.workers`) in slices of
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
import contextlib
import time
from collections.abc import Callable, Sequence
from typing import Any

import structlog
from aiokafka.errors import KafkaError

from scrubber.config import ConfigError, Settings
from scrubber.kafka.session import Session, client_security
from scrubber.kafka.transform import (
    TRANSPORT,
    Headers,
    Items,
    KafkaJob,
    Outcome,
    ScrubberFactory,
    engine_scrubber,
)
from scrubber.observability import UPSTREAM_ERRORS, TransportMetrics
from scrubber.workers import WorkerLost, WorkerPool

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
        self.security = client_security(self.kafka.security)
        # Scrubbing runs in one thread (scrub_processes 0) or in worker processes.
        self.pool = WorkerPool(
            KafkaJob(settings, make_scrubber),
            self.kafka.scrub_processes,
            transport=TRANSPORT,
            logging=(settings.logging.format, settings.logging.level),
        )
        self._stopping = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._session: Session | None = None
        # Kept across sessions: its label children are looked up once.
        self.metrics = TransportMetrics(TRANSPORT)

    # ------------------------------------------------------------------ Component
    async def start(self) -> None:
        await self.pool.start()
        self._stopping.clear()
        self._task = asyncio.create_task(self._supervise(), name="kafka-proxy")
        log.info("kafka_proxy_started", routes=len(self.routes), scrub_processes=self.pool.processes)

    async def stop(self) -> None:
        self._stopping.set()
        if self._task is not None:
            try:
                await asyncio.wait_for(asyncio.shield(self._task), self.kafka.drain_timeout * 2 + 5)
            except TimeoutError:
                log.warning("kafka_stop_timed_out")
                self._task.cancel()
        await self.pool.stop()
        log.info("kafka_proxy_stopped")

    def ready(self) -> bool:
        s = self._session
        return (
            s is not None
            and self.pool.ready()
            and s.healthy
            and not s.missing
            and s.failure is None
            and not self._stopping.is_set()
        )

    # ------------------------------------------------------------------ internals
    async def transform(self, index: int, records: Sequence[Any], abort: Callable[[], bool]) -> list[Outcome]:
        """Scrub ``records`` of route ``index`` off the event loop, one time-budgeted slice at a time;
        the outcomes of a prefix if ``abort()`` turns true between slices."""
        items = [(r.value, r.key) for r in records]
        # Headers cross to a scrub process only when the route scrubs them.
        headers = [r.headers for r in records] if self.routes[index].scrub_headers else None
        out: list[Outcome] = []
        while len(out) < len(items) and not abort():
            heads = None if headers is None else headers[len(out) :]
            out.extend(await self._slice(index, items[len(out) :], heads))
        return out

    async def _slice(self, index: int, items: Items, headers: Sequence[Headers] | None) -> list[Outcome]:
        """Outcomes of a prefix of ``items`` (at least one). A slice whose worker died is scrubbed
        again once on another; if that one dies too, its records are scrubbed one at a time, and
        a record that takes a worker down on its own is held back (``worker_crashed``; a scrub
        that raises instead: ``scrub_failed``)."""
        for _attempt in range(2):
            with contextlib.suppress(WorkerLost):
                return await self._call(index, items, headers)
        out: list[Outcome] = []
        for i in range(len(items)):
            one = None if headers is None else headers[i : i + 1]
            try:
                out.extend(await self._call(index, items[i : i + 1], one))
            except WorkerLost as exc:
                out.append(Outcome(reason=exc.reason))
        return out

    async def _call(self, index: int, items: Items, headers: Sequence[Headers] | None) -> list[Outcome]:
        reply = await self.pool.call((index, items, self.budget, headers))
        if reply[0] != "ok":
            raise WorkerLost("scrub_failed")
        outcomes: list[Outcome] = reply[1]
        return outcomes

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
