"""`scrubber run` processes against the broker: a rebalance mid-stream, and kill -9 then restart."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

from aiokafka import AIOKafkaConsumer, TopicPartition
from kafka_helpers import (
    Record,
    create_topics,
    produce,
    read_until,
    settings_doc,
    start_scrubber,
    unique,
)

PARTITIONS = 4


def ssn(i: int) -> str:
    return f"{101 + i % 500:03d}-{11 + i % 80:02d}-{1001 + i % 8000:04d}"  # valid: area 101-600


def email(i: int) -> str:
    return f"customer{i}.kafka@example.com"


def message(i: int) -> bytes:
    return f"ticket: please update, my email is {email(i)} and my ssn is {ssn(i)}. thanks".encode()


async def produce_range(bootstrap: str, topic: str, ids: range) -> None:
    """Record i goes to partition i % PARTITIONS with key rec-i, in order within each partition."""
    for p in range(PARTITIONS):
        mine = [i for i in ids if i % PARTITIONS == p]
        await produce(
            bootstrap,
            topic,
            [message(i) for i in mine],
            keys=[f"rec-{i}".encode() for i in mine],
            partition=p,
        )


def rid(r: Record) -> int:
    return int(r.key.decode().removeprefix("rec-")) if r.key else -1


def ids_of(records: list[Record]) -> Counter[int]:
    return Counter(rid(r) for r in records)


def assert_clean_and_complete(records: list[Record], n: int) -> Counter[int]:
    seen = ids_of(records)
    missing = sorted(set(range(n)) - set(seen))
    assert not missing, f"{len(missing)} records missing, first {missing[:5]}"
    assert set(seen) == set(range(n))
    for r in records:
        assert r.value is not None
        i = rid(r)
        text = r.value.decode()
        assert email(i) not in text and ssn(i) not in text, f"raw PII of record {i} in the output"
        assert "scrubber-findings" in r.headers
    return seen


def assert_partition_order(records: list[Record]) -> None:
    """Per output partition, first appearances come in input order (a redelivered run may repeat)."""
    by_partition: dict[int, list[int]] = {}
    for r in records:
        by_partition.setdefault(r.partition, []).append(
            int(r.key.decode().removeprefix("rec-")) if r.key else -1
        )
    for p, ids in by_partition.items():
        first: list[int] = []
        seen: set[int] = set()
        for i in ids:
            if i not in seen:
                seen.add(i)
                first.append(i)
        assert first == sorted(first), f"partition {p} out of order"
        assert all(i % PARTITIONS == p for i in first)


async def committed(bootstrap: str, group: str, topic: str) -> dict[int, int | None]:
    """The group's committed offset per partition. (Tansu's ListOffsets answers wrong end
    offsets, so tests compare with what they produced instead.)"""
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, group_id=group, enable_auto_commit=False)
    await consumer.start()
    try:
        return {p: await consumer.committed(TopicPartition(topic, p)) for p in range(PARTITIONS)}
    finally:
        await consumer.stop()


async def test_two_processes_share_the_partitions_through_a_rebalance(bootstrap: str, tmp_path: Path) -> None:
    raw, clean = unique("rb"), unique("rb-c")
    # Each process scrubs in a pool of two: batches finish out of order across a rebalance.
    doc = settings_doc(bootstrap, [{"in": raw, "out": clean}], level=7, scrub_processes=2)
    await create_topics(bootstrap, [raw, clean, doc["kafka"]["quarantine_topic"]], PARTITIONS)
    n = 400
    await produce_range(bootstrap, raw, range(n))
    a = start_scrubber(tmp_path, "a", doc)
    b = None
    try:
        await read_until(bootstrap, clean, lambda rs: len(rs) >= 100, timeout=60)
        b = start_scrubber(tmp_path, "b", doc)  # joins while records keep coming: a rebalance
        joined_at = None
        while joined_at is None or n < joined_at + 400:
            if joined_at is None and any(ev["partitions"] for ev in b.log_events("kafka_assigned")):
                joined_at = n
            assert n < 20_000, "the second process never got partitions"
            await produce_range(bootstrap, raw, range(n, n + 20))
            n += 20
            await asyncio.sleep(0.05)
        records = await read_until(bootstrap, clean, lambda rs: len(ids_of(rs)) >= n, timeout=120)
        assert a.terminate() == 0
        assert b.terminate() == 0
    finally:
        for p in (a, b):
            if p is not None and p.proc.poll() is None:
                p.kill()

    seen = assert_clean_and_complete(records, n)
    assert_partition_order(records)
    duplicates = sum(c - 1 for c in seen.values())
    print(f"rebalance: {n} records, {duplicates} duplicates")
    # a gave its partitions up mid-stream, and then shared them with b.
    assert any(ev["partitions"] for ev in a.log_events("kafka_revoked"))
    assert 0 < len(a.log_events("kafka_assigned")[-1]["partitions"]) < PARTITIONS
    # A clean stop drains and commits: nothing left for a successor to redo.
    per_partition = n // PARTITIONS
    assert await committed(bootstrap, doc["kafka"]["group_id"], raw) == dict.fromkeys(
        range(PARTITIONS), per_partition
    )


async def test_kill_9_mid_stream_then_restart_loses_nothing_and_leaks_nothing(
    bootstrap: str, tmp_path: Path
) -> None:
    raw, clean = unique("k9"), unique("k9-c")
    doc = settings_doc(bootstrap, [{"in": raw, "out": clean}], level=7)
    await create_topics(bootstrap, [raw, clean, doc["kafka"]["quarantine_topic"]], PARTITIONS)
    n = 2400
    await produce_range(bootstrap, raw, range(n))
    # The first process holds at most 50 records in flight and its sends linger 100 ms: about 500
    # records a second however fast the engine is, so the kill lands mid-stream.
    slow = {**doc, "kafka": {**doc["kafka"], "max_in_flight": 50, "batch_size": 10, "linger_ms": 100}}
    first = start_scrubber(tmp_path, "first", slow)
    try:
        partial = await read_until(bootstrap, clean, lambda rs: len(rs) >= n // 5, timeout=60)
        first.kill()
    finally:
        if first.proc.poll() is None:
            first.kill()
    assert len(ids_of(partial)) < n, "the first process finished before it could be killed"
    second = start_scrubber(tmp_path, "second", doc)
    try:
        records = await read_until(bootstrap, clean, lambda rs: len(ids_of(rs)) >= n, timeout=180)
        assert second.terminate() == 0
    finally:
        if second.proc.poll() is None:
            second.kill()

    seen = assert_clean_and_complete(records, n)
    assert_partition_order(records)
    duplicates = sum(c - 1 for c in seen.values())
    print(f"kill -9: {n} records, {len(seen)} distinct in the output, {duplicates} duplicates, 0 missing")
    per_partition = n // PARTITIONS
    assert await committed(bootstrap, doc["kafka"]["group_id"], raw) == dict.fromkeys(
        range(PARTITIONS), per_partition
    )
