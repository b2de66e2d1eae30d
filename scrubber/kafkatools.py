"""``scrubber kafka-produce`` / ``kafka-consume``: a small client to try a running proxy."""

from __future__ import annotations

import asyncio
import sys
from typing import TextIO

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer


async def produce(bootstrap: str, topic: str, values: list[str], key: str | None = None) -> int:
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all")
    await producer.start()
    try:
        for v in values:
            await producer.send_and_wait(topic, v.encode(), key=key.encode() if key else None)
    finally:
        await producer.stop()
    return len(values)


async def consume(bootstrap: str, topic: str, count: int, timeout: float, out: TextIO) -> int:
    """Print up to ``count`` records from the start of ``topic``; stop after ``timeout`` idle seconds."""
    consumer = AIOKafkaConsumer(
        topic,
        bootstrap_servers=bootstrap,
        group_id=None,
        auto_offset_reset="earliest",
        enable_auto_commit=False,
    )
    await consumer.start()
    seen = 0
    try:
        while count <= 0 or seen < count:
            batch = await consumer.getmany(timeout_ms=int(timeout * 1000))
            if not batch:
                break
            for records in batch.values():
                for rec in records:
                    value = rec.value.decode("utf-8", "replace") if rec.value is not None else ""
                    out.write(value + "\n")
                    seen += 1
                    if 0 < count <= seen:
                        break
            out.flush()
    finally:
        await consumer.stop()
    return seen


def run_produce(bootstrap: str, topic: str, values: list[str], key: str | None) -> int:
    if not values:
        values = [line.rstrip("\n") for line in sys.stdin if line.strip()]
    n = asyncio.run(produce(bootstrap, topic, values, key))
    sys.stderr.write(f"produced {n} record(s) to {topic}\n")
    return 0


def run_consume(bootstrap: str, topic: str, count: int, timeout: float) -> int:
    n = asyncio.run(consume(bootstrap, topic, count, timeout, sys.stdout))
    if n == 0:
        sys.stderr.write(f"no records in {topic} within {timeout:g}s\n")
        return 1
    return 0
