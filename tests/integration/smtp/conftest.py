"""Fixtures for the relay tests (helpers are in smtp_helpers.py): relays, smtp-sinks with reject
and delay switches, Postfix instances, a self-signed certificate and a users file."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from smtp_helpers import PASSWORD, USER, Postfix, RelayRunner, relay_settings

from scrubber.smtp.auth import entry
from tests.conftest import SmtpSink, free_port, stop_process, wait_for_port


@pytest.fixture(scope="module")
def start_relay() -> Iterator[Callable[..., RelayRunner]]:
    """Start relays for a test module (``start_relay(level=..., event_loop=..., **smtp_keys)``) on
    the event loop named (asyncio by default, uvloop); all stop at the end."""
    runners: list[RelayRunner] = []

    def start(level: int = 7, event_loop: str = "asyncio", **smtp: Any) -> RelayRunner:
        runner = RelayRunner(relay_settings(level, **smtp), event_loop).start()
        runners.append(runner)
        return runner

    yield start
    for r in runners:
        r.stop()


@pytest.fixture(scope="module")
def special_sink() -> Iterator[Callable[..., SmtpSink]]:
    """smtp-sink with extra switches (``-f .`` hard-rejects end of data, ``-W .:5`` delays it)."""
    procs: list[tuple[subprocess.Popen[bytes], Path]] = []

    def start(*switches: str, port: int | None = None) -> SmtpSink:
        dump = Path(tempfile.mkdtemp(prefix="smtp-sink-special-"))
        dump.chmod(0o777)
        port = port or free_port()
        cmd = ["/usr/sbin/smtp-sink"] + (["-u", "root"] if os.geteuid() == 0 else [])
        cmd += [*switches, "-d", f"{dump}/%Y%m%d%H%M%S.", f"127.0.0.1:{port}", "64"]
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        procs.append((proc, dump))
        wait_for_port(port, proc)
        return SmtpSink(port, dump)

    yield start
    for proc, dump in procs:
        stop_process(proc)
        shutil.rmtree(dump, ignore_errors=True)


@pytest.fixture(scope="module")
def start_postfix() -> Iterator[Callable[..., Postfix]]:
    if os.geteuid() != 0 or not os.path.exists("/usr/sbin/postfix"):
        pytest.fail("a Postfix instance needs root and the postfix package (tests/run installs it)")
    instances: list[Postfix] = []

    def start(relayhost_port: int, extra: str = "", files: dict[str, str] | None = None) -> Postfix:
        pf = Postfix(relayhost_port, extra, files)
        instances.append(pf)
        return pf

    yield start
    for pf in instances:
        pf.stop()


@pytest.fixture(scope="session")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 (cert.pem, key.pem), made with the openssl CLI."""
    d = tmp_path_factory.mktemp("tls")
    cert, key = d / "cert.pem", d / "key.pem"
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
            "-keyout", str(key), "-out", str(cert),
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return cert, key


@pytest.fixture(scope="session")
def users_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("auth") / "users"
    path.write_text(f"# SMTP users\n{entry(USER, PASSWORD)}\n")
    return path
