"""Lifecycle: a broker that is not there yet, one that dies mid-stream, and a draining stop."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import urllib.request
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from aiokafka import AIOKafkaConsumer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient
from kafka_helpers import (
    create_topics,
    produce,
    read,
    read_until,
    running,
    settings,
    sleepy_scrubber,
    unique,
    wait_ready,
)
from prometheus_client import REGISTRY
from structlog.testing import capture_logs

from scrubber.kafka.proxy import KafkaProxy
from tests.conftest import free_port, stop_process, tansu_binary, wait_for_port


class Broker:
    """A Tansu broker of this test's own, on a fixed port, that can be killed and started again.

    ``s3`` (an S3 endpoint) makes it keep topics, records and offsets across restarts."""

    def __init__(self, log: Path, s3: str | None = None) -> None:
        self.port = free_port()
        self.log = log
        self.s3 = s3
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> None:
        url = f"tcp://127.0.0.1:{self.port}"
        cmd = [tansu_binary(), "broker", "--listener-url", url, "--advertised-listener-url", url]
        env = dict(os.environ)
        if self.s3 is not None:
            cmd += ["--storage-engine", "s3://tansu/"]
            env.update(
                AWS_ACCESS_KEY_ID="test",
                AWS_SECRET_ACCESS_KEY="test",
                AWS_DEFAULT_REGION="us-east-1",
                AWS_ENDPOINT=self.s3,
                AWS_ALLOW_HTTP="true",
            )
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
        wait_for_port(self.port, self.proc)

    def kill(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None:
            stop_process(self.proc)


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    b = Broker(tmp_path / "tansu.log")
    try:
        yield b
    finally:
        b.stop()


@pytest.fixture
def durable_broker(tmp_path: Path) -> Iterator[Broker]:
    """A broker whose storage (moto's S3 server, in memory) outlives the broker process."""
    port = free_port()
    moto = subprocess.Popen(
        [str(Path(sys.executable).parent / "moto_server"), "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    b = Broker(tmp_path / "tansu.log", s3=f"http://127.0.0.1:{port}")
    try:
        wait_for_port(port, moto)
        urllib.request.urlopen(urllib.request.Request(f"{b.s3}/tansu", method="PUT"), timeout=10).close()
        yield b
    finally:
        b.stop()
        stop_process(moto)


async def until(predicate: Callable[[], bool], timeout: float = 20.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        assert loop.time() < deadline, "condition not reached"
        await asyncio.sleep(0.05)


async def test_waits_for_a_missing_broker_and_recovers_when_it_dies_mid_stream(broker: Broker) -> None:
    raw, clean = unique("down"), unique("down-c")
    s = settings(broker.bootstrap, [{"in": raw, "out": clean}], level=3, retry_backoff_max=0.5)
    assert s.kafka is not None
    topics = [raw, clean, s.kafka.quarantine_topic]
    proxy = KafkaProxy(s)
    await proxy.start()  # returns although nothing listens yet
    try:
        for _ in range(10):
            assert not proxy.ready()
            await asyncio.sleep(0.1)

        broker.start()
        await create_topics(broker.bootstrap, topics)
        await produce(broker.bootstrap, raw, [f"a{i} x@example.com".encode() for i in range(5)])
        await wait_ready(proxy, timeout=30)
        out = await read(broker.bootstrap, clean, 5)
        assert [r.value for r in out] == [f"a{i} [EMAIL_ADDRESS]".encode() for i in range(5)]

        broker.kill()  # mid-stream: the proxy must notice, say so, and come back
        await until(lambda: not proxy.ready())
        broker.start()  # in memory: a fresh broker, so the topics are made again
        await create_topics(broker.bootstrap, topics)
        await produce(broker.bootstrap, raw, [f"b{i} y@example.com".encode() for i in range(5)])
        await wait_ready(proxy, timeout=60)
        # At least once: every record comes through scrubbed. A broker that lost everything may
        # also see a commit the dying session still had in flight, and a record twice (on a
        # loaded machine: 'b3' first, then 'b0' ... 'b4').
        want = {f"b{i} [EMAIL_ADDRESS]".encode() for i in range(5)}
        out = await read_until(broker.bootstrap, clean, lambda rs: want <= {r.value for r in rs}, timeout=60)
        assert {r.value for r in out} == want
    finally:
        await proxy.stop()


async def committed_offset(bootstrap: str, group: str, topic: str) -> int | None:
    """The group's committed offset of ``topic`` partition 0."""
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, group_id=group)
    await consumer.start()
    try:
        offset: int | None = await consumer.committed(TopicPartition(topic, 0))
        return offset
    finally:
        await consumer.stop()


async def broker_topics(bootstrap: str) -> set[str]:
    """The topics the broker has (an all-topics request, which creates none)."""
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap)
    await consumer.start()
    try:
        return set(await consumer.topics())
    finally:
        await consumer.stop()


async def test_missing_output_topics_hold_consumption_until_they_are_created(bootstrap: str) -> None:
    raw, clean = unique("early"), unique("early-c")
    s = settings(bootstrap, [{"in": raw, "out": clean}], level=3)
    assert s.kafka is not None
    quarantine = s.kafka.quarantine_topic
    await create_topics(bootstrap, [raw])  # the input only
    await produce(bootstrap, raw, [f"{i} mail u{i}@example.com".encode() for i in range(20)] + [b"\xff"])
    proxy = KafkaProxy(s)
    with capture_logs() as logs:

        def missing_logged() -> list[list[str]]:
            return [e["topics"] for e in logs if e["event"] == "kafka_topics_missing"]

        await proxy.start()
        try:
            for _ in range(15):
                assert not proxy.ready()
                await asyncio.sleep(0.1)
            assert missing_logged() == [sorted([clean, quarantine])]
            assert {clean, quarantine}.isdisjoint(await broker_topics(bootstrap))  # not made for us

            await create_topics(bootstrap, [clean])
            await until(lambda: missing_logged()[-1] == [quarantine])
            assert not proxy.ready()
            assert await read_until(bootstrap, clean, lambda rs: False, timeout=0.5) == []
            assert await committed_offset(bootstrap, s.kafka.group_id, raw) is None

            await create_topics(bootstrap, [quarantine])
            await wait_ready(proxy)
            out = await read(bootstrap, clean, 20)
            (held,) = await read(bootstrap, quarantine, 1)
        finally:
            await proxy.stop()
    assert [r.value for r in out] == [f"{i} mail [EMAIL_ADDRESS]".encode() for i in range(20)]
    assert held.value == b"\xff" and held.headers["scrubber-reason"] == b"invalid_utf8"
    assert any(e["event"] == "kafka_topics_found" and e["topics"] == [quarantine] for e in logs)
    assert await committed_offset(bootstrap, s.kafka.group_id, raw) == 21


async def test_an_output_topic_deleted_mid_run_stops_consumption_until_it_is_back(bootstrap: str) -> None:
    raw, clean = unique("gone"), unique("gone-c")
    s = settings(bootstrap, [{"in": raw, "out": clean}], level=3)
    assert s.kafka is not None
    await create_topics(bootstrap, [raw, clean])
    await produce(bootstrap, raw, [f"a{i} x@example.com".encode() for i in range(5)])
    with capture_logs() as logs:
        async with running(s) as proxy:
            await read(bootstrap, clean, 5)
            await wait_ready(proxy)
            admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
            await admin.start()
            try:
                await admin.delete_topics([clean])
            finally:
                await admin.close()
            await until(lambda: not proxy.ready())
            await until(lambda: any(e.get("topics") == [clean] for e in logs))
            await produce(bootstrap, raw, [f"b{i} y@example.com".encode() for i in range(5)])
            for _ in range(10):
                assert not proxy.ready()
                await asyncio.sleep(0.1)
            assert await committed_offset(bootstrap, s.kafka.group_id, raw) == 5
            await create_topics(bootstrap, [clean])
            await wait_ready(proxy)
            out = await read(bootstrap, clean, 5)
    assert [r.value for r in out] == [f"b{i} [EMAIL_ADDRESS]".encode() for i in range(5)]
    assert await committed_offset(bootstrap, s.kafka.group_id, raw) == 10
    assert any(e["event"] == "kafka_session_failed" and e["error"] == "TopicsMissing" for e in logs)


async def test_auto_create_topics_asks_the_broker_to_make_them(bootstrap: str) -> None:
    raw, clean = unique("auto"), unique("auto-c")
    s = settings(bootstrap, [{"in": raw, "out": clean}], level=3, auto_create_topics=True)
    assert s.kafka is not None
    await create_topics(bootstrap, [raw])
    await produce(bootstrap, raw, [b"mail a@example.com"])
    proxy = KafkaProxy(s)
    await proxy.start()
    try:
        await wait_ready(proxy)
        (out,) = await read(bootstrap, clean, 1)
    finally:
        await proxy.stop()
    assert out.value == b"mail [EMAIL_ADDRESS]"
    assert {clean, s.kafka.quarantine_topic} <= await broker_topics(bootstrap)


@pytest.mark.parametrize("scrub_processes", [0, 2])
async def test_stop_drains_and_commits_exactly_what_was_forwarded(
    bootstrap: str, scrub_processes: int
) -> None:
    raw, clean = unique("drain"), unique("drain-c")
    await create_topics(bootstrap, [raw, clean])
    n = 3000
    # A millisecond a record: the stop comes while most of them are still to do.
    await produce(bootstrap, raw, [f"{i} sleep 1 call me at x{i}@example.com".encode() for i in range(n)])
    s = settings(
        bootstrap,
        [{"in": raw, "out": clean}],
        level=3,
        batch_size=50,
        max_in_flight=100,
        scrub_processes=scrub_processes,
    )
    assert s.kafka is not None
    in_flight: list[float] = []

    async def sample() -> None:
        while True:
            in_flight.append(REGISTRY.get_sample_value("scrubber_kafka_in_flight") or 0.0)
            await asyncio.sleep(0.005)

    async with running(s, make_scrubber=sleepy_scrubber):
        sampler = asyncio.create_task(sample())
        await read(bootstrap, clean, 100)  # mid-stream
        sampler.cancel()
    # Backpressure: no more than max_in_flight records consumed and not committed.
    assert 0 < max(in_flight) <= 100
    forwarded = await read_until(bootstrap, clean, lambda rs: False, timeout=1.0)
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, group_id=s.kafka.group_id)
    await consumer.start()
    try:
        committed = await consumer.committed(TopicPartition(raw, 0))
    finally:
        await consumer.stop()
    # Everything sent out was committed, and nothing was committed that was not sent out.
    assert committed == len(forwarded)
    assert 100 <= len(forwarded) < n
    assert [r.value for r in forwarded] == [
        f"{i} sleep 1 call me at [EMAIL_ADDRESS]".encode() for i in range(len(forwarded))
    ]


@pytest.mark.parametrize("mode", ["exactly_once", "idempotent"])
async def test_without_broker_support_the_stronger_modes_forward_nothing(bootstrap: str, mode: str) -> None:
    """Tansu refuses InitProducerId to aiokafka: the proxy must stay unready, not fall back."""
    raw, clean = unique("eos"), unique("eos-c")
    await create_topics(bootstrap, [raw, clean])
    await produce(bootstrap, raw, [b"mail a@b.org"])
    s = settings(bootstrap, [{"in": raw, "out": clean}], retry_backoff_max=0.5, **{mode: True})
    assert s.kafka is not None
    async with running(s) as proxy:
        for _ in range(20):
            assert not proxy.ready()
            await asyncio.sleep(0.1)
    assert await read_until(bootstrap, clean, lambda rs: False, timeout=0.5) == []
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, group_id=s.kafka.group_id)
    await consumer.start()
    try:
        assert await consumer.committed(TopicPartition(raw, 0)) is None
    finally:
        await consumer.stop()


async def test_a_broker_restart_mid_stream_resumes_at_the_committed_offsets(durable_broker: Broker) -> None:
    b = durable_broker
    b.start()
    raw, clean = unique("dur"), unique("dur-c")
    s = settings(b.bootstrap, [{"in": raw, "out": clean}], level=3, retry_backoff_max=0.5)
    assert s.kafka is not None
    await create_topics(b.bootstrap, [raw, clean, s.kafka.quarantine_topic], partitions=2)
    n = 1200
    for p in (0, 1):
        ids = range(p, n, 2)
        values = [f"rec {i} mail u{i}@example.com".encode() for i in ids]
        await produce(b.bootstrap, raw, values, keys=[str(i).encode() for i in ids], partition=p)
    proxy = KafkaProxy(s)
    await proxy.start()
    try:
        await read(b.bootstrap, clean, 200)
        b.kill()  # mid-stream
        await until(lambda: not proxy.ready())
        b.start()
        await wait_ready(proxy, timeout=60)
        out = await read_until(b.bootstrap, clean, lambda rs: len({r.key for r in rs}) >= n, timeout=120)
    finally:
        await proxy.stop()
    seen = Counter(int(r.key or b"-1") for r in out)
    assert sorted(seen) == list(range(n))  # nothing skipped
    for r in out:
        i = int(r.key or b"-1")
        assert r.value == f"rec {i} mail [EMAIL_ADDRESS]".encode()
        assert r.partition == i % 2
    print(f"broker restart: {n} records, {sum(seen.values()) - n} duplicates")
    consumer = AIOKafkaConsumer(bootstrap_servers=b.bootstrap, group_id=s.kafka.group_id)
    await consumer.start()
    try:
        for p in (0, 1):
            assert await consumer.committed(TopicPartition(raw, p)) == n // 2
    finally:
        await consumer.stop()
