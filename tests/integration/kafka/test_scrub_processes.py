"""Scrub worker processes that die: the slice is scrubbed again, a record that kills them is
held back, nothing is lost or forwarded unscrubbed, and the worker is replaced."""

from __future__ import annotations

import asyncio
import os
import signal
import time

import pytest
from kafka_helpers import (
    crashing_scrubber,
    create_topics,
    produce,
    read,
    read_until,
    refusing_scrubber,
    running,
    scrub_process_pids,
    settings,
    unique,
    wait_ready,
)
from prometheus_client import REGISTRY

from scrubber.config import ConfigError
from scrubber.kafka.proxy import KafkaProxy


def quarantined(reason: str) -> float:
    value = REGISTRY.get_sample_value("scrubber_quarantined_total", {"transport": "kafka", "reason": reason})
    return value or 0.0


def restarts() -> float:
    return REGISTRY.get_sample_value("scrubber_worker_restarts_total", {"transport": "kafka"}) or 0.0


async def replaced(proxy: KafkaProxy, gone: set[int], count: int, timeout: float = 60.0) -> list[int]:
    """Wait until ``count`` scrub processes run again, none of them in ``gone``, and the proxy is ready."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pids = scrub_process_pids()
        if len(pids) == count and not gone & set(pids) and proxy.ready():
            return pids
        await asyncio.sleep(0.1)
    raise AssertionError(f"scrub processes not replaced: {scrub_process_pids()} (gone: {sorted(gone)})")


async def test_a_record_that_kills_its_scrub_process_is_quarantined_and_the_rest_forwarded(
    bootstrap: str,
) -> None:
    raw, clean = unique("crash"), unique("crash-c")
    await create_topics(bootstrap, [raw, clean])
    values = [f"{i}: mail u{i}@example.com".encode() for i in range(12)]
    values[5] = b"5: crash now, mail u5@example.com"
    await produce(bootstrap, raw, values)
    s = settings(bootstrap, [{"in": raw, "out": clean}], level=3, scrub_processes=2)
    assert s.kafka is not None
    before, restarted = quarantined("worker_crashed"), restarts()
    async with running(s, make_scrubber=crashing_scrubber) as proxy:
        first = set(scrub_process_pids())
        assert len(first) == 2
        (held,) = await read(bootstrap, s.kafka.quarantine_topic, 1, timeout=120)
        out = await read(bootstrap, clean, 11, timeout=60)
        # The slice ran twice, then record by record: three workers died, all were replaced.
        await replaced(proxy, first, 2)

    assert (held.value, held.headers["scrubber-reason"]) == (values[5], b"worker_crashed")
    assert [r.value for r in out] == [f"{i}: mail [EMAIL_ADDRESS]".encode() for i in range(12) if i != 5]
    assert quarantined("worker_crashed") == before + 1
    assert restarts() == restarted + 3


async def test_a_scrub_process_killed_mid_stream_loses_nothing_and_is_replaced(bootstrap: str) -> None:
    raw, clean = unique("k9s"), unique("k9s-c")
    await create_topics(bootstrap, [raw, clean], partitions=2)
    n = 200
    # 10 ms a record: the stream takes about a second on two processes, so the kill lands in it.
    values = {p: [f"{p}-{i} sleep 10 mail u{i}@example.com".encode() for i in range(n // 2)] for p in (0, 1)}
    s = settings(bootstrap, [{"in": raw, "out": clean}], level=3, scrub_processes=2, batch_size=20)
    assert s.kafka is not None
    restarted = restarts()
    async with running(s, make_scrubber=crashing_scrubber) as proxy:
        await wait_ready(proxy, 60)
        (victim, other) = scrub_process_pids()
        for p in (0, 1):
            await produce(bootstrap, raw, values[p], partition=p)
        await read_until(bootstrap, clean, lambda rs: len(rs) >= 10, timeout=60)
        os.kill(victim, signal.SIGKILL)
        out = await read(bootstrap, clean, n, timeout=120)
        pids = await replaced(proxy, {victim}, 2)
        held = await read_until(bootstrap, s.kafka.quarantine_topic, lambda rs: False, timeout=0.5)

    assert other in pids
    assert held == []
    assert restarts() == restarted + 1
    for p in (0, 1):
        got = [r.value for r in out if r.partition == p]
        # All of them, in order, once: the proxy itself never stopped, so nothing is read twice.
        want = [v.replace(f"u{i}@example.com".encode(), b"[EMAIL_ADDRESS]") for i, v in enumerate(values[p])]
        assert got == want


async def test_a_scrub_process_that_cannot_build_its_engine_stops_the_start_with_the_reason(
    bootstrap: str,
) -> None:
    s = settings(bootstrap, [{"in": unique("nostart"), "out": unique("nostart-c")}], scrub_processes=2)
    proxy = KafkaProxy(s, make_scrubber=refusing_scrubber)
    with pytest.raises(ConfigError, match="cannot start: ValueError: no engine for this policy"):
        await proxy.start()
    assert scrub_process_pids() == []
