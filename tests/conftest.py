"""Shared fixtures: real components on loopback (see ../shared/REAL_COMPONENTS.md)."""

from __future__ import annotations

import email
import io
import json
import logging
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from email.message import Message
from pathlib import Path
from typing import Any

import pytest
import structlog

from scrubber import logs
from scrubber.embedded import Broker, tansu_path

REPO = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for_port(port: int, proc: subprocess.Popen[bytes] | None = None, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"process exited early with rc={proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.02)
    raise TimeoutError(f"127.0.0.1:{port} not accepting connections after {timeout}s")


def stop_process(proc: subprocess.Popen[bytes], grace: float = 1.0) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def tansu_binary() -> str:
    return tansu_path()


@pytest.fixture(scope="session")
def kafka_bootstrap(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Tansu broker (Kafka protocol, in memory) on a free loopback port: "127.0.0.1:PORT".

    The same child-process broker the embedded default runs.
    """
    broker = Broker.start(free_port(), tmp_path_factory.mktemp("tansu") / "tansu.log")
    try:
        yield broker.bootstrap
    finally:
        broker.stop()


class SmtpSink:
    """Postfix's smtp-sink dumping every message it accepts into a directory."""

    def __init__(self, port: int, dump_dir: Path) -> None:
        self.port = port
        self.dump_dir = dump_dir

    def files(self) -> list[Path]:
        return sorted(self.dump_dir.glob("*"))

    def contents(self) -> list[bytes]:
        """Every dump file's bytes. smtp-sink deletes the file of a transaction that is cut off
        (a client hanging up in DATA), so a file listed a moment ago may be gone: it is skipped."""
        out = []
        for path in self.files():
            try:
                out.append(path.read_bytes())
            except FileNotFoundError:
                continue
        return out

    def messages(self) -> list[Message]:
        return [email.message_from_bytes(data) for data in self.contents()]

    def wait_for(self, n: int, timeout: float = 15.0) -> list[Message]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if len(self.files()) >= n:
                time.sleep(0.05)
                found = self.messages()
                if len(found) >= n:
                    return found
            time.sleep(0.05)
        raise TimeoutError(f"expected {n} messages in smtp-sink, have {len(self.files())}")

    def clear(self) -> None:
        for p in self.files():
            p.unlink(missing_ok=True)


@pytest.fixture(scope="session")
def smtp_sink() -> Iterator[SmtpSink]:
    dump_dir = Path(tempfile.mkdtemp(prefix="smtp-sink-"))
    dump_dir.chmod(0o777)
    port = free_port()
    cmd = ["/usr/sbin/smtp-sink"] + (["-u", "root"] if os.geteuid() == 0 else [])
    cmd += ["-d", f"{dump_dir}/%Y%m%d%H%M%S.", f"127.0.0.1:{port}", "256"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_for_port(port, proc)
        yield SmtpSink(port, dump_dir)
    finally:
        stop_process(proc)
        shutil.rmtree(dump_dir, ignore_errors=True)


LogLines = Callable[[], list[dict[str, Any]]]


@pytest.fixture
def restore_logging() -> Iterator[None]:
    """Put back the logging set-up a test changes (handlers, levels, structlog, warnings)."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    levels = {name: logging.getLogger(name).level for name in ("mail.log", "aiokafka", "asyncio")}
    yield
    logging.captureWarnings(False)
    structlog.reset_defaults()
    for h in list(root.handlers):
        root.removeHandler(h)
    for h in handlers:
        root.addHandler(h)
    root.setLevel(level)
    for name, lv in levels.items():
        logging.getLogger(name).setLevel(lv)


@pytest.fixture
def log_lines(restore_logging: None) -> LogLines:
    """Configure the real log pipeline into a buffer; give back its JSON lines (restored after).

    Logging is process-wide: a test that reads log lines from stdout or stderr sees whatever
    format an earlier test configured, so tests read them through this fixture instead.
    """
    buf = io.StringIO()
    logs.configure("json", "info", buf)
    return lambda: [json.loads(line) for line in buf.getvalue().splitlines()]
