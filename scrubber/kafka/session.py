"""The Kafka source and sink: one consumer + producer lifetime (a :class:`Session`).

The session fetches each partition's records, hands them to the transform (a callable it is
given: a thread or a scrub process of the proxy runs it), sends the outcomes in offset order to
the output or the quarantine topic, and commits an input offset only once every record before it
has been acknowledged (acks=all). Fetch, transform and send overlap: while batches are scrubbed,
the next ones are fetched and the earlier ones' sends are in flight. Any broker failure ends the
session; the proxy starts a new one, which resumes from the committed offsets.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import time
from collections import Counter, deque
from collections.abc import Callable, Coroutine, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import structlog
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, ConsumerRebalanceListener, TopicPartition
from aiokafka.errors import KafkaError, MessageSizeTooLargeError, RecordTooLargeError
from aiokafka.helpers import create_ssl_context

from scrubber.config import ConfigError, KafkaConfig, KafkaRoute
from scrubber.kafka.transform import (
    H_FINDINGS,
    H_REASON,
    H_ROUTE,
    H_SOURCE_OFFSET,
    H_SOURCE_PARTITION,
    H_SOURCE_TOPIC,
    H_VALUE_OMITTED,
    OWN_HEADERS,
    TRANSPORT,
    Outcome,
)
from scrubber.observability import (
    KAFKA_IN_FLIGHT,
    KAFKA_LAG,
    QUARANTINED,
    REGEX_TIMEOUTS,
    UPSTREAM_ERRORS,
    TransportMetrics,
)

POLL_MS = 100
# How long the broker may hold a fetch open waiting for data. The client default (500 ms) sets
# the latency floor on brokers that answer only at the deadline; an idle proxy then asks 20x/s.
FETCH_WAIT_MS = 50
PROBE_SECONDS = 1.0
MISSING_LOG_SECONDS = 30.0  # a topic still missing is logged again this often

log = structlog.get_logger("scrubber.kafka")

# The transform as the session calls it: route index, records, and whether to stop between
# slices (the partition is being revoked); it returns the outcomes of a prefix of the records.
Transform = Callable[[int, Sequence[Any], Callable[[], bool]], Coroutine[Any, Any, list[Outcome]]]


# --------------------------------------------------------------------------- client settings
def client_security(security: Mapping[str, Any], environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """aiokafka keyword arguments for ``kafka.security`` (``*_env`` names read from the environment)."""
    env = os.environ if environ is None else environ
    out: dict[str, Any] = {}
    ssl: dict[str, Any] = {}
    for name, value in security.items():
        if name.endswith("_env"):
            if not env.get(str(value)):
                raise ConfigError(f"kafka.security.{name}: environment variable {value} is not set")
            value = env[str(value)]
            name = name[: -len("_env")]
        if name.startswith("ssl_"):
            ssl[name[len("ssl_") :]] = value
        else:
            out[name] = value
    if ssl:
        check_hostname = ssl.pop("check_hostname", True)
        ctx = create_ssl_context(**ssl)
        ctx.check_hostname = bool(check_hostname)
        out["ssl_context"] = ctx
    return out


# --------------------------------------------------------------------------- the pipeline
class TopicsMissing(Exception):
    """An output topic or the quarantine topic went away while the proxy was running."""


@dataclass(slots=True)
class _Work:
    """Records of one partition fetched together, being scrubbed by ``task``; sent in fetch order."""

    route: KafkaRoute
    tp: TopicPartition
    records: list[Any]
    task: asyncio.Task[list[Outcome]]


@dataclass(slots=True)
class _Batch:
    """Records of one partition sent together; committable once every future is acknowledged."""

    route: KafkaRoute
    tp: TopicPartition
    next_offset: int
    records: list[Any]
    futures: list[asyncio.Future[Any]]

    def acked(self) -> bool:
        return all(f.done() for f in self.futures)


class _Listener(ConsumerRebalanceListener):  # type: ignore[misc]
    def __init__(self, session: Session) -> None:
        self.session = session

    async def on_partitions_revoked(self, revoked: Iterable[TopicPartition]) -> None:
        await self.session.revoked(set(revoked))

    async def on_partitions_assigned(self, assigned: Iterable[TopicPartition]) -> None:
        fresh = set(assigned)
        self.session.closing -= fresh  # these start over from the committed offsets
        parts = sorted(f"{tp.topic}/{tp.partition}" for tp in fresh)
        log.info("kafka_assigned", partitions=parts)


class Session:
    """One consumer + producer lifetime. Any failure ends the session; the proxy starts a new one."""

    def __init__(
        self,
        cfg: KafkaConfig,
        transform: Transform,
        metrics: TransportMetrics,
        *,
        security: Mapping[str, Any],
        max_bytes: int,
    ) -> None:
        self.cfg = cfg
        self.transform = transform
        self.metrics = metrics
        self.security = security
        self.max_bytes = max_bytes
        self.routes = {r.input: (i, r) for i, r in enumerate(cfg.routes)}
        self.consumer: AIOKafkaConsumer | None = None
        self.producer: AIOKafkaProducer | None = None
        # Per partition, in offset order: fetched and being scrubbed, then sent and awaiting acks.
        self.queued: dict[TopicPartition, deque[_Work]] = {}
        self.pending: dict[TopicPartition, deque[_Batch]] = {}
        self.in_flight = 0  # records consumed and not yet committed (queued + pending)
        self.lock = asyncio.Lock()  # one sender or committer at a time
        self.scrubbed = asyncio.Event()  # a scrub finished: the sender has work
        self.closing: set[TopicPartition] = set()  # revoked or stopping: scrubs stop after a slice
        # Metrics of forwarded records, added up over a flush: one increment per label set.
        self.forwarded: Counter[str] = Counter()
        self.found: Counter[tuple[str, str]] = Counter()
        self.partitions: dict[str, int] = {}
        # Topics this session writes to; while any is missing, it is not ready (and, at start,
        # consumes nothing).
        self.sinks = {*(r.output for r in self.cfg.routes), self.cfg.quarantine_topic}
        self.missing: list[str] = []
        self.failure: BaseException | None = None
        self.healthy = False
        self.last_commit = 0.0

    async def open(self, stopping: asyncio.Event) -> None:
        cfg = self.cfg
        common: dict[str, Any] = {
            "bootstrap_servers": cfg.bootstrap_servers,
            "client_id": cfg.client_id,
            "request_timeout_ms": cfg.request_timeout_ms,
            **self.security,
        }
        max_request = max(1 << 20, 2 * self.max_bytes + (64 << 10))
        producer_opts: dict[str, Any] = {
            "acks": "all",
            "linger_ms": cfg.linger_ms,
            "max_batch_size": 256 << 10,
            "max_request_size": max_request,
            "enable_idempotence": cfg.idempotent or cfg.exactly_once,
        }
        if cfg.exactly_once:
            # One id per process: a restarted session fences the producer of the one before.
            producer_opts["transactional_id"] = f"{cfg.group_id}.{cfg.client_id}.{os.getpid()}"
        self.producer = AIOKafkaProducer(**common, **producer_opts)
        await self.producer.start()
        self.consumer = AIOKafkaConsumer(
            **common,
            group_id=cfg.group_id,
            enable_auto_commit=False,
            auto_offset_reset=cfg.auto_offset_reset,
            session_timeout_ms=cfg.session_timeout_ms,
            heartbeat_interval_ms=cfg.heartbeat_interval_ms,
            max_partition_fetch_bytes=max(1 << 20, max_request),
            fetch_max_wait_ms=FETCH_WAIT_MS,
            isolation_level="read_committed" if cfg.exactly_once else "read_uncommitted",
        )
        await self.consumer.start()
        # Output and quarantine topics must exist before anything is consumed.
        if not await self.wait_for_topics(stopping):
            return
        for topic in self.sinks:
            self.partitions[topic] = len(await self.producer.partitions_for(topic))
        self.consumer.subscribe(topics=[r.input for r in cfg.routes], listener=_Listener(self))
        self.healthy = True
        log.info("kafka_session_started", group=cfg.group_id, routes=[r.input for r in cfg.routes])

    async def wait_for_topics(self, stopping: asyncio.Event) -> bool:
        """Wait until every output topic and the quarantine topic exist (False: stopped first).

        Existence is asked with an all-topics metadata request, which never creates a topic: a
        broker that creates topics on first use would make them with its defaults (partitions,
        retention, access), and the quarantine topic holds raw records. Only with
        ``auto_create_topics`` is the broker asked to create them (if its own settings allow)."""
        assert self.consumer is not None and self.producer is not None
        said: list[str] = []
        said_at = 0.0
        while not stopping.is_set():
            self.missing = sorted(self.sinks - await self.consumer.topics())
            if self.missing and self.cfg.auto_create_topics:
                for topic in self.missing:
                    # A metadata request for the topic itself, which lets the broker create it.
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self.producer.partitions_for(topic), PROBE_SECONDS)
                self.missing = sorted(self.sinks - await self.consumer.topics())
            if not self.missing:
                if said:
                    log.info("kafka_topics_found", topics=said)
                return True
            if self.missing != said or time.monotonic() - said_at >= MISSING_LOG_SECONDS:
                log.warning("kafka_topics_missing", topics=self.missing, consuming=False)
                said, said_at = self.missing, time.monotonic()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stopping.wait(), PROBE_SECONDS)
        return False

    async def close(self, clean: bool) -> None:
        """Stop the clients; with ``clean``, first send what was scrubbed, wait for its acks, commit."""
        if clean and self.consumer is not None and self.failure is None:
            try:
                await asyncio.wait_for(self.drain({*self.queued, *self.pending}), self.cfg.drain_timeout)
            except (KafkaError, OSError, TimeoutError) as exc:
                log.warning("kafka_drain_failed", error=type(exc).__name__)
        for tp in {*self.queued, *self.pending}:
            self.forget(tp)
        for client in (self.consumer, self.producer):
            if client is None:
                continue
            try:
                await asyncio.wait_for(client.stop(), self.cfg.drain_timeout)
            except Exception as exc:  # the session is over either way; the next one starts clean
                log.warning("kafka_client_stop_failed", error=type(exc).__name__)
        self.consumer = self.producer = None

    async def pump(self, stopping: asyncio.Event) -> None:
        """Fetch and hand batches to the scrubbers; a sender task forwards them as they finish.

        The three stages overlap: while batches are scrubbed off the event loop, the consumer
        fetches the next ones and the producer's earlier sends are in flight. ``max_in_flight``
        bounds the records between fetch and commit."""
        assert self.consumer is not None
        probe = asyncio.create_task(self.probe())
        sender = asyncio.create_task(self.send_loop())
        try:
            while not stopping.is_set():
                if self.failure is not None:
                    raise self.failure
                room = self.cfg.max_in_flight - self.in_flight
                if room <= 0:
                    await self.wait_for_room()
                    continue
                batch = await self.consumer.getmany(
                    timeout_ms=POLL_MS, max_records=min(room, self.cfg.batch_size)
                )
                self.dispatch(batch)
                if time.monotonic() - self.last_commit >= self.cfg.commit_interval_ms / 1000:
                    async with self.lock:
                        await self.commit(wait=False)
        finally:
            probe.cancel()
            try:
                async with self.lock:  # a clean stop must not cut a batch's sends in two
                    sender.cancel()
            finally:
                sender.cancel()

    def dispatch(self, batch: Mapping[TopicPartition, list[Any]]) -> None:
        """Start scrubbing each partition's records (off the event loop); the sender takes it on."""
        assert self.consumer is not None
        owned = self.consumer.assignment()
        for tp, records in batch.items():
            if not records or tp not in owned or tp in self.closing:
                continue
            index, route = self.routes[tp.topic]
            abort = functools.partial(self.closing.__contains__, tp)
            task = asyncio.create_task(self.transform(index, records, abort))
            task.add_done_callback(lambda _t: self.scrubbed.set())
            work = _Work(route, tp, records, task)
            self.queued.setdefault(tp, deque()).append(work)
            self.in_flight += len(records)
        KAFKA_IN_FLIGHT.set(self.in_flight)

    async def send_loop(self) -> None:
        """Forward scrubbed batches as they finish; a failure ends the session (the pump raises it)."""
        while True:
            await self.scrubbed.wait()
            self.scrubbed.clear()
            try:
                async with self.lock:
                    await self.flush()
            except Exception as exc:
                self.failure = exc
                return

    async def wait_for_room(self) -> None:
        """Back-pressure at ``max_in_flight``: wait until the oldest work of some partition is
        scrubbed or acknowledged, then send and commit what can be (without waiting for acks)."""
        waiting: list[asyncio.Future[Any]] = []
        for queue in self.queued.values():
            if queue and not queue[0].task.done():
                waiting.append(queue[0].task)
        for sent in self.pending.values():
            if sent:
                waiting.extend(f for f in sent[0].futures if not f.done())
        if waiting:
            await asyncio.wait(waiting, timeout=POLL_MS / 1000, return_when=asyncio.FIRST_COMPLETED)
        async with self.lock:
            await self.flush()
            await self.commit(wait=False)

    async def drain(self, tps: set[TopicPartition]) -> None:
        """Stop scrubbing ``tps`` after the current slices, send what was scrubbed, commit it all."""
        self.closing |= tps
        tasks = [w.task for tp in tps for w in self.queued.get(tp, ())]
        if tasks:
            await asyncio.wait(tasks)
        async with self.lock:
            await self.flush(only=tps)
            await self.commit(wait=True, only=tps)

    async def probe(self) -> None:
        """Readiness: can the broker be reached, do the topics written to still exist? (A
        metadata request, once a second.)"""
        assert self.consumer is not None
        while True:
            try:
                topics = await asyncio.wait_for(self.consumer.topics(), PROBE_SECONDS * 3)
                self.healthy = True
                missing = sorted(self.sinks - topics)
                if missing:  # deleted under us: start over, and wait for them without consuming
                    self.missing = missing
                    self.failure = TopicsMissing(", ".join(missing))
            except (KafkaError, OSError, TimeoutError):
                if self.healthy:
                    log.warning("kafka_broker_unreachable")
                self.healthy = False
            await asyncio.sleep(PROBE_SECONDS)

    async def flush(self, only: set[TopicPartition] | None = None) -> None:
        """Send each partition's scrubbed batches, oldest first, up to the first still scrubbing.

        A batch cut short (its partition is closing) is sent up to where it stopped; the rest of
        that partition's records stay uncommitted for its next owner."""
        done: list[tuple[_Work, list[Outcome]]] = []
        for tp in [tp for tp in self.queued if only is None or tp in only]:
            queue = self.queued[tp]
            while queue and queue[0].task.done():
                work = queue.popleft()
                outcomes = work.task.result()  # a broken scrub pool raises here: the session ends
                if outcomes:
                    done.append((work, outcomes))
                if len(outcomes) < len(work.records):
                    self.in_flight -= len(work.records) - len(outcomes)
                    self.forget_queued(queue)
            if not queue:
                del self.queued[tp]
        if not done:
            return
        if self.cfg.exactly_once:
            await self.send_in_transaction(done)
            return
        for work, outcomes in done:
            records = work.records[: len(outcomes)]
            futures = [
                await self.send(work.route, work.tp, rec, oc)
                for rec, oc in zip(records, outcomes, strict=True)
            ]
            batch = _Batch(work.route, work.tp, records[-1].offset + 1, records, futures)
            self.pending.setdefault(work.tp, deque()).append(batch)
            self.track_lag(work.tp, batch.next_offset)
        self.count()

    def count(self) -> None:
        """Add the forwarded records and their findings to the metrics."""
        for route, n in self.forwarded.items():
            self.metrics.outcome(route, "forwarded").inc(n)
        self.metrics.found((entity, family, n) for (entity, family), n in self.found.items())
        self.forwarded.clear()
        self.found.clear()

    async def send_in_transaction(self, done: list[tuple[_Work, list[Outcome]]]) -> None:
        assert self.producer is not None
        offsets: dict[TopicPartition, int] = {}
        async with self.producer.transaction():
            for work, outcomes in done:
                for rec, oc in zip(work.records, outcomes, strict=False):
                    await self.send(work.route, work.tp, rec, oc)
                offsets[work.tp] = work.records[len(outcomes) - 1].offset + 1
            await self.producer.send_offsets_to_transaction(offsets, self.cfg.group_id)
        self.count()
        self.in_flight -= sum(len(outcomes) for _work, outcomes in done)
        KAFKA_IN_FLIGHT.set(self.in_flight)
        for tp, offset in offsets.items():
            self.track_lag(tp, offset)

    async def send(self, route: KafkaRoute, tp: TopicPartition, rec: Any, oc: Outcome) -> asyncio.Future[Any]:
        """Hand one record to the producer; the returned future resolves on the broker's ack."""
        assert self.producer is not None
        headers = [(k, v) for k, v in rec.headers if k not in OWN_HEADERS]
        self.metrics.message_bytes.observe(len(rec.value or b""))
        if oc.reason is not None:
            return await self.quarantine(route, tp, rec, oc.reason, headers)
        scrubbed = headers if oc.headers is None else [(k, v) for k, v in oc.headers if k not in OWN_HEADERS]
        try:
            fut: asyncio.Future[Any] = await self.producer.send(
                route.output,
                oc.value,
                key=oc.key,
                partition=tp.partition % self.partitions[route.output],
                timestamp_ms=rec.timestamp,
                headers=[*scrubbed, (H_FINDINGS, oc.summary)],
            )
        except MessageSizeTooLargeError:
            return await self.quarantine(route, tp, rec, "output_too_large", headers)
        self.metrics.scrub_seconds.observe(oc.seconds)
        self.forwarded[route.input] += 1
        for entity, family, n in oc.found:
            self.found[entity, family] += n
        return fut

    async def quarantine(
        self, route: KafkaRoute, tp: TopicPartition, rec: Any, reason: str, headers: list[tuple[str, bytes]]
    ) -> asyncio.Future[Any]:
        """Count, log and send the record unchanged to the quarantine topic."""
        assert self.producer is not None
        if reason == "regex_timeout":
            REGEX_TIMEOUTS.inc()
        QUARANTINED.labels(TRANSPORT, reason).inc()
        self.metrics.outcome(route.input, "quarantined").inc()
        log.warning(
            "kafka_record_quarantined",
            topic=tp.topic,
            partition=tp.partition,
            offset=rec.offset,
            route=route.input,
            reason=reason,
        )
        if rec.value is None and rec.key is None:
            return await self.stub(route, tp, rec, reason, headers, "null_record")
        try:
            fut: asyncio.Future[Any] = await self.producer.send(
                self.cfg.quarantine_topic,
                rec.value,
                key=rec.key,
                timestamp_ms=rec.timestamp,
                headers=[*headers, *self.tags(route, tp, rec, reason)],
            )
            return fut
        except MessageSizeTooLargeError:
            return await self.stub(route, tp, rec, reason, headers, "too_large")

    async def stub(
        self,
        route: KafkaRoute,
        tp: TopicPartition,
        rec: Any,
        reason: str,
        headers: list[tuple[str, bytes]],
        omitted: str,
    ) -> asyncio.Future[Any]:
        """A quarantine record without key or value (too big to send, or there was none)."""
        assert self.producer is not None
        tags = [*self.tags(route, tp, rec, reason), (H_VALUE_OMITTED, omitted.encode())]
        # An empty value, because a Kafka record needs a key or a value.
        fut: asyncio.Future[Any] = await self.producer.send(
            self.cfg.quarantine_topic, b"", key=None, timestamp_ms=rec.timestamp, headers=[*headers, *tags]
        )
        return fut

    @staticmethod
    def tags(route: KafkaRoute, tp: TopicPartition, rec: Any, reason: str) -> list[tuple[str, bytes]]:
        return [
            (H_REASON, reason.encode()),
            (H_ROUTE, route.input.encode()),
            (H_SOURCE_TOPIC, tp.topic.encode()),
            (H_SOURCE_PARTITION, str(tp.partition).encode()),
            (H_SOURCE_OFFSET, str(rec.offset).encode()),
        ]

    async def settle(self, b: _Batch) -> None:
        """Wait for every ack of ``b``; a record the broker refuses as too large becomes a stub."""
        for rec, fut in zip(b.records, b.futures, strict=True):
            try:
                await fut
            except (MessageSizeTooLargeError, RecordTooLargeError):
                reason = "broker_refused_size"
                QUARANTINED.labels(TRANSPORT, reason).inc()
                log.warning(
                    "kafka_record_quarantined",
                    topic=b.tp.topic,
                    partition=b.tp.partition,
                    offset=rec.offset,
                    route=b.route.input,
                    reason=reason,
                )
                headers = [(k, v) for k, v in rec.headers if k not in OWN_HEADERS]
                await (await self.stub(b.route, b.tp, rec, reason, headers, "too_large"))

    async def commit(self, wait: bool, only: set[TopicPartition] | None = None) -> None:
        """Commit the acknowledged prefix of each partition (with ``wait``: everything sent)."""
        assert self.consumer is not None
        offsets: dict[TopicPartition, int] = {}
        for tp, queue in self.pending.items():
            if only is not None and tp not in only:
                continue
            while queue and (wait or queue[0].acked()):
                b = queue[0]
                await self.settle(b)
                queue.popleft()
                offsets[tp] = b.next_offset
                self.in_flight -= len(b.records)
        self.last_commit = time.monotonic()
        KAFKA_IN_FLIGHT.set(self.in_flight)
        if not offsets:
            return
        try:
            await self.consumer.commit(offsets)
        except KafkaError as exc:
            # Not fatal: a later commit covers these offsets, or after a rebalance the new owner
            # re-reads from the last commit (duplicates, never a gap).
            UPSTREAM_ERRORS.labels(TRANSPORT, "commit").inc()
            log.warning("kafka_commit_failed", error=type(exc).__name__)

    async def revoked(self, revoked: set[TopicPartition]) -> None:
        """Rebalance: send and commit what was scrubbed for ``revoked``; leave the rest uncommitted."""
        try:
            await asyncio.wait_for(self.drain(revoked), self.cfg.drain_timeout)
        except Exception as exc:  # the pump re-raises it and the session restarts
            log.warning("kafka_revoke_commit_failed", error=type(exc).__name__)
            self.failure = exc
        for tp in revoked:
            self.forget(tp)
        log.info("kafka_revoked", partitions=sorted(f"{tp.topic}/{tp.partition}" for tp in revoked))

    def forget(self, tp: TopicPartition) -> None:
        """Drop what this session holds of ``tp``: it is not committed, the next owner re-reads it."""
        queued = self.queued.pop(tp, None)
        if queued:
            self.forget_queued(queued)
        pending = self.pending.pop(tp, None)
        if pending:
            self.in_flight -= sum(len(b.records) for b in pending)
        KAFKA_IN_FLIGHT.set(self.in_flight)
        with contextlib.suppress(KeyError):
            KAFKA_LAG.remove(tp.topic, str(tp.partition))

    def forget_queued(self, queue: deque[_Work]) -> None:
        for work in queue:
            work.task.cancel()
            self.in_flight -= len(work.records)
        queue.clear()

    def track_lag(self, tp: TopicPartition, next_offset: int) -> None:
        assert self.consumer is not None
        end = self.consumer.highwater(tp)
        if end is not None:
            KAFKA_LAG.labels(tp.topic, str(tp.partition)).set(max(0, end - next_offset))
