"""Helpers for the Kafka proxy tests: topics, producing, reading back, a running proxy."""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import AsyncIterator, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient, NewTopic

from scrubber import config
from scrubber.kafka import KafkaProxy

# Fast group joins on Tansu (see REAL_COMPONENTS.md): a real Kafka needs >= 6000 ms sessions.
FAST_GROUP = {"session_timeout_ms": 1000, "heartbeat_interval_ms": 200, "commit_interval_ms": 50}


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


async def create_topics(bootstrap: str, names: Iterable[str], partitions: int = 1) -> None:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        await admin.create_topics([NewTopic(n, partitions, 1) for n in names])
    finally:
        await admin.close()


async def produce(
    bootstrap: str,
    topic: str,
    values: Sequence[bytes | None],
    *,
    keys: Sequence[bytes | None] | None = None,
    headers: Sequence[tuple[str, bytes]] = (),
    partition: int | None = None,
) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all", max_request_size=8 << 20)
    await producer.start()
    try:
        futures = []
        for i, value in enumerate(values):
            key = keys[i] if keys is not None else None
            futures.append(
                await producer.send(topic, value, key=key, headers=list(headers), partition=partition)
            )
        await asyncio.gather(*futures)
    finally:
        await producer.stop()


@dataclass(frozen=True)
class Record:
    partition: int
    offset: int
    key: bytes | None
    value: bytes | None
    headers: dict[str, bytes]


async def read(bootstrap: str, topic: str, count: int, timeout: float = 20.0) -> list[Record]:
    """Read from the start of ``topic`` (no group) until ``count`` records arrived; then stop."""
    consumer = AIOKafkaConsumer(
        bootstrap_servers=bootstrap, enable_auto_commit=False, auto_offset_reset="earliest"
    )
    await consumer.start()
    out: list[Record] = []
    try:
        deadline = time.monotonic() + timeout
        parts: set[int] | None = None
        while parts is None and time.monotonic() < deadline:
            parts = consumer.partitions_for_topic(topic)
            if not parts:
                parts = None
                await consumer.topics()  # refresh metadata until the topic exists
                await asyncio.sleep(0.05)
        if parts is None:
            raise AssertionError(f"topic {topic} never appeared")
        tps = [TopicPartition(topic, p) for p in sorted(parts)]
        consumer.assign(tps)
        await consumer.seek_to_beginning(*tps)
        while len(out) < count and time.monotonic() < deadline:
            batch = await consumer.getmany(timeout_ms=200)
            for msgs in batch.values():
                out.extend(Record(m.partition, m.offset, m.key, m.value, dict(m.headers)) for m in msgs)
        # A little longer, so that records beyond the expected count are seen too.
        for msgs in (await consumer.getmany(timeout_ms=300)).values():
            out.extend(Record(m.partition, m.offset, m.key, m.value, dict(m.headers)) for m in msgs)
    finally:
        await consumer.stop()
    if len(out) < count:
        raise AssertionError(f"{topic}: expected {count} records, got {len(out)}")
    return out


def settings(bootstrap: str, routes: list[dict[str, Any]], **kafka: Any) -> config.Settings:
    """Validated settings through the real config parser, with fast group timing for Tansu."""
    section: dict[str, Any] = {
        "bootstrap_servers": bootstrap,
        "group_id": unique("grp"),
        "quarantine_topic": unique("quarantine"),
        "routes": routes,
        **FAST_GROUP,
    }
    section.update(kafka)
    level = kafka.pop("level", None)
    doc: dict[str, Any] = {"kafka": section}
    if level is not None:
        doc["level"] = level
    return config.parse(doc)


@contextlib.asynccontextmanager
async def running(s: config.Settings, **kwargs: Any) -> AsyncIterator[KafkaProxy]:
    proxy = KafkaProxy(s, **kwargs)
    await proxy.start()
    try:
        yield proxy
    finally:
        await proxy.stop()


async def wait_ready(proxy: KafkaProxy, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not proxy.ready():
        if time.monotonic() > deadline:
            raise AssertionError("proxy never became ready")
        await asyncio.sleep(0.05)
