"""Helpers for the observability tests: HTTP, a scrubber process, Kafka, all on loopback."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from prometheus_client.parser import text_string_to_metric_families

from tests.conftest import free_port


def http_get(url: str, timeout: float = 5.0, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    """(status, body) of a GET; HTTP errors are answers too."""
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return int(resp.status), resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


async def http_raw(port: int, request: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send raw bytes to 127.0.0.1:port, parse the HTTP answer (the server closes the connection)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request)
    await writer.drain()
    data = await asyncio.wait_for(reader.read(), 10)
    writer.close()
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ")[1])
    headers = {k.strip().lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:])}
    return status, headers, body


def wait_until(check: Callable[[], bool], timeout: float = 30.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.1)
    raise TimeoutError(f"{what} not met within {timeout}s")


# ---------------------------------------------------------------------- a scrubber process
SCRUBBER = str(Path(sys.executable).parent / "scrubber")


class Scrubber:
    """``scrubber run --config`` as a child process; its stderr (the JSON logs) goes to a file."""

    def __init__(self, workdir: Path, doc: dict[str, Any], *args: str) -> None:
        self.workdir = workdir
        self.admin_port = free_port()
        doc = {**doc, "admin": {"listen": f"127.0.0.1:{self.admin_port}"}}
        doc.setdefault("logging", {"format": "json", "level": "debug"})
        self.config = workdir / "config.yaml"
        self.config.write_text(yaml.safe_dump(doc))
        self.log_path = workdir / "scrubber.log"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SCRUBBER_", "PROMETHEUS_"))}
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(
                [SCRUBBER, "run", "--config", str(self.config), *args],
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=env,
            )

    @property
    def admin(self) -> str:
        return f"http://127.0.0.1:{self.admin_port}"

    def wait_ready(self, timeout: float = 180.0) -> None:
        def ready() -> bool:
            if self.proc.poll() is not None:
                raise RuntimeError(f"scrubber exited with {self.proc.returncode}:\n{self.log_text()}")
            try:
                return http_get(self.admin + "/readyz", timeout=2)[0] == 200
            except OSError:
                return False

        wait_until(ready, timeout, "scrubber /readyz")

    def metrics(self) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
        status, body = http_get(self.admin + "/metrics")
        assert status == 200
        return {
            (s.name, frozenset(s.labels.items())): s.value
            for fam in text_string_to_metric_families(body.decode())
            for s in fam.samples
        }

    def value(self, name: str, **labels: str) -> float:
        """Sum of the samples called ``name`` whose labels include ``labels``."""
        want = set(labels.items())
        return sum(v for (n, ls), v in self.metrics().items() if n == name and want <= ls)

    def reader(self, name: str, **labels: str) -> Callable[[], float]:
        """A function that reads :meth:`value` afresh (for :func:`wait_until`)."""
        return lambda: self.value(name, **labels)

    def stop(self, timeout: float = 60.0) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace")

    def log_records(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.log_text().splitlines() if line.strip()]


# ---------------------------------------------------------------------- Kafka (confluent-kafka)
FAST_GROUP = {"session_timeout_ms": 1000, "heartbeat_interval_ms": 200, "commit_interval_ms": 50}


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def create_topics(bootstrap: str, names: list[str], partitions: int = 1) -> None:
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": bootstrap})
    for future in admin.create_topics([NewTopic(n, partitions, 1) for n in names]).values():
        future.result(30)


def produce(
    bootstrap: str, topic: str, values: list[bytes], key: bytes | None = None, partition: int | None = None
) -> None:
    from confluent_kafka import Producer

    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", "message.max.bytes": 10_000_000})
    for v in values:
        if partition is None:
            producer.produce(topic, v, key=key)
        else:
            producer.produce(topic, v, key=key, partition=partition)
    assert producer.flush(30) == 0


def consume(bootstrap: str, topic: str, n: int, timeout: float = 60.0) -> list[bytes]:
    """The first ``n`` records of ``topic`` (read from the start, no group), or fail after ``timeout``."""
    from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

    consumer = Consumer(
        {"bootstrap.servers": bootstrap, "group.id": unique("reader"), "enable.auto.commit": False}
    )
    partitions = consumer.list_topics(topic, timeout=30).topics[topic].partitions
    consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in partitions])
    out: list[bytes] = []
    deadline = time.monotonic() + timeout
    try:
        while len(out) < n and time.monotonic() < deadline:
            msg = consumer.poll(0.5)
            if msg is not None and msg.error() is None:
                out.append(msg.value())
    finally:
        consumer.close()
    if len(out) < n:
        raise TimeoutError(f"{topic}: {len(out)} of {n} records within {timeout}s")
    return out


# ---------------------------------------------------------------------- Prometheus server
class Prometheus:
    """The Debian ``prometheus`` server on loopback, scraping ``targets`` every second."""

    def __init__(self, workdir: Path, targets: list[str]) -> None:
        self.port = free_port()
        cfg = workdir / "prometheus.yml"
        cfg.write_text(
            yaml.safe_dump(
                {
                    "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
                    "scrape_configs": [{"job_name": "scrubber", "static_configs": [{"targets": targets}]}],
                }
            )
        )
        subprocess.run(["promtool", "check", "config", str(cfg)], check=True, capture_output=True)
        self.log = open(workdir / "prometheus.log", "wb")  # noqa: SIM115  (closed in stop())
        self.proc = subprocess.Popen(
            [
                "prometheus",
                f"--config.file={cfg}",
                f"--web.listen-address=127.0.0.1:{self.port}",
                f"--storage.tsdb.path={workdir / 'tsdb'}",
                "--storage.tsdb.retention.time=1h",
            ],
            stdout=self.log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )

    def query(self, expr: str) -> dict[str, Any]:
        url = f"http://127.0.0.1:{self.port}/api/v1/query?" + urllib.parse.urlencode({"query": expr})
        status, body = http_get(url, timeout=10)
        answer: dict[str, Any] = json.loads(body)
        assert status == 200 and answer["status"] == "success", (expr, body[:500])
        return answer

    def scalar(self, expr: str) -> float | None:
        """The value of a one-series answer, ``None`` for an empty one."""
        result = self.query(expr)["data"]["result"]
        return float(result[0]["value"][1]) if result else None

    def wait_scraped(self, timeout: float = 60.0) -> None:
        def ready() -> bool:
            if self.proc.poll() is not None:
                raise RuntimeError(f"prometheus exited with {self.proc.returncode}")
            try:
                return http_get(f"http://127.0.0.1:{self.port}/-/ready", timeout=2)[0] == 200
            except OSError:
                return False

        wait_until(ready, timeout, "prometheus ready")
        # The first scrape comes 5-6 s after start (REAL_COMPONENTS.md section 4).
        wait_until(lambda: self.scalar("min(up)") == 1.0, timeout, "prometheus scraped every target")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()
