"""Helpers for the Kafka proxy tests: topics, producing, reading back, a running proxy."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient, NewTopic

from scrubber import config
from scrubber.config import LimitsConfig
from scrubber.detectors import MessageContext
from scrubber.dial import Policy
from scrubber.engine import Scrubber
from scrubber.findings import Finding
from scrubber.kafka.proxy import KafkaProxy, engine_scrubber
from tests.conftest import free_port

# Fast group joins on Tansu (see REAL_COMPONENTS.md): a real Kafka needs >= 6000 ms sessions.
FAST_GROUP = {"session_timeout_ms": 1000, "heartbeat_interval_ms": 200, "commit_interval_ms": 50}
# Scrub in a thread unless a test asks for processes: starting a pool costs seconds.
THREAD = {"scrub_processes": 0}


class Sleepy:
    """A detector that finds nothing and takes as long as the record asks ("sleep 30": 30 ms)."""

    name = "sleepy"
    entities = frozenset({"EMAIL_ADDRESS"})

    def detect(self, text: str, ctx: MessageContext) -> list[Finding]:
        m = re.search(r"sleep (\d+)", text)
        if m:
            time.sleep(int(m.group(1)) / 1000)
        return []


def sleepy_scrubber(policy: Policy, limits: LimitsConfig) -> Scrubber:
    """The real engine plus :class:`Sleepy`: batches scrubbed side by side finish out of order.
    (A module-level function, so that a scrub process can unpickle it.)"""
    engine = engine_scrubber(policy, limits)
    return Scrubber(policy, detectors=[Sleepy(), *engine.detectors])


class Crasher:
    """A detector that ends the scrub process it runs in when a record says "crash now"
    (and nowhere else: in a test's own process it finds nothing)."""

    name = "crasher"
    entities = frozenset({"EMAIL_ADDRESS"})

    def detect(self, text: str, ctx: MessageContext) -> list[Finding]:
        main = getattr(sys.modules["__main__"], "__spec__", None)
        if "crash now" in text and main is not None and main.name == "scrubber.workers":
            os._exit(70)
        return []


def crashing_scrubber(policy: Policy, limits: LimitsConfig) -> Scrubber:
    """The real engine plus :class:`Sleepy` and :class:`Crasher`."""
    engine = engine_scrubber(policy, limits)
    return Scrubber(policy, detectors=[Crasher(), Sleepy(), *engine.detectors])


def refusing_scrubber(policy: Policy, limits: LimitsConfig) -> Scrubber:
    """An engine that cannot be built (as with a rule file the engine refuses)."""
    raise ValueError("no engine for this policy")


def scrub_process_pids() -> list[int]:
    """This process's Kafka scrub workers (``python -m scrubber.workers kafka`` children)."""
    me = str(os.getpid())
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            cmdline = (stat.parent / "cmdline").read_bytes()
            if fields[1] == me and b"scrubber.workers\x00kafka" in cmdline and fields[0] != "Z":
                out.append(int(stat.parent.name))
    return sorted(out)


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


async def read_until(
    bootstrap: str, topic: str, done: Callable[[list[Record]], bool], timeout: float = 30.0
) -> list[Record]:
    """Read ``topic`` from the start (no group) until ``done(records)`` or the timeout; then a
    little longer, so that records beyond what was awaited (duplicates, strays) are seen too."""
    consumer = AIOKafkaConsumer(
        bootstrap_servers=bootstrap, enable_auto_commit=False, auto_offset_reset="earliest"
    )
    await consumer.start()
    out: list[Record] = []

    def take(batch: dict[TopicPartition, list[Any]]) -> None:
        for msgs in batch.values():
            out.extend(Record(m.partition, m.offset, m.key, m.value, dict(m.headers)) for m in msgs)

    try:
        deadline = time.monotonic() + timeout
        parts: set[int] | None = None
        while not parts and time.monotonic() < deadline:
            await consumer.topics()  # refresh metadata until the topic exists
            parts = consumer.partitions_for_topic(topic)
            if not parts:
                await asyncio.sleep(0.05)
        if not parts:
            raise AssertionError(f"topic {topic} never appeared")
        tps = [TopicPartition(topic, p) for p in sorted(parts)]
        consumer.assign(tps)
        await consumer.seek_to_beginning(*tps)
        while not done(out) and time.monotonic() < deadline:
            take(await consumer.getmany(timeout_ms=200))
        take(await consumer.getmany(timeout_ms=300))
    finally:
        await consumer.stop()
    return out


async def read(bootstrap: str, topic: str, count: int, timeout: float = 20.0) -> list[Record]:
    """At least ``count`` records of ``topic``, read from the start."""
    out = await read_until(bootstrap, topic, lambda rs: len(rs) >= count, timeout)
    if len(out) < count:
        raise AssertionError(f"{topic}: expected {count} records, got {len(out)}")
    return out


def settings_doc(
    bootstrap: str,
    routes: list[dict[str, Any]],
    *,
    level: int | None = None,
    limits: dict[str, Any] | None = None,
    **kafka: Any,
) -> dict[str, Any]:
    """A config document (what the YAML file holds), with fast group timing for Tansu."""
    section: dict[str, Any] = {
        "bootstrap_servers": bootstrap,
        "group_id": unique("grp"),
        "quarantine_topic": unique("quarantine"),
        "routes": routes,
        **FAST_GROUP,
        **THREAD,
        **kafka,
    }
    doc: dict[str, Any] = {"kafka": section, "limits": limits or {}}
    if level is not None:
        doc["level"] = level
    return doc


def settings(bootstrap: str, routes: list[dict[str, Any]], **kw: Any) -> config.Settings:
    """Validated settings through the real config parser."""
    return config.parse(settings_doc(bootstrap, routes, **kw))


@contextlib.asynccontextmanager
async def running(s: config.Settings, **kwargs: Any) -> AsyncIterator[KafkaProxy]:
    """A started proxy (its quarantine topic created first, as an operator would)."""
    assert s.kafka is not None
    await create_topics(s.kafka.bootstrap_servers, [s.kafka.quarantine_topic])
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


@dataclass
class ScrubberProcess:
    """A ``scrubber run`` subprocess with its own YAML config, logging to a file."""

    proc: subprocess.Popen[bytes]
    log: Path

    def log_events(self, event: str) -> list[dict[str, Any]]:
        out = []
        for line in self.log.read_text(errors="replace").splitlines():
            with contextlib.suppress(ValueError):
                rec = json.loads(line)
                if isinstance(rec, dict) and rec.get("event") == event:
                    out.append(rec)
        return out

    def terminate(self, timeout: float = 60.0) -> int:
        """SIGTERM, then the exit code (the drain is bounded, so it must come)."""
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout)

    def kill(self) -> None:
        self.proc.kill()  # SIGKILL: no drain, no commit, no goodbye to the group
        self.proc.wait()


def start_scrubber(directory: Path, name: str, doc: dict[str, Any]) -> ScrubberProcess:
    doc = {**doc, "admin": {"listen": f"127.0.0.1:{free_port()}"}, "logging": {"format": "json"}}
    path = directory / f"{name}.yaml"
    path.write_text(yaml.safe_dump(doc))
    log = directory / f"{name}.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "scrubber", "run", "--config", str(path)],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    return ScrubberProcess(proc, log)
