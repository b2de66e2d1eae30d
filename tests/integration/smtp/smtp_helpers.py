"""Helpers for the relay tests: the relay in a thread, metrics, finding messages at a sink, a
Postfix instance of its own. Everything listens on 127.0.0.1 (127.0.0.2 for the outsider)."""

from __future__ import annotations

import asyncio
import email
import email.policy
import json
import shutil
import subprocess
import tempfile
import threading
import time
import uuid
from email.message import Message
from pathlib import Path
from typing import Any

from prometheus_client import REGISTRY

from scrubber import config
from scrubber.config import Settings
from scrubber.service import run_loop
from scrubber.smtp.relay import SmtpRelay
from tests.conftest import SmtpSink, free_port, stop_process, wait_for_port

EML = Path(__file__).resolve().parents[2] / "data" / "eml"
USER, PASSWORD = "alice", "correct horse battery staple"


# --------------------------------------------------------------------------- the relay
class RelayRunner:
    """An SmtpRelay serving from a background thread, for synchronous clients (smtplib, swaks)."""

    def __init__(self, settings: Settings, event_loop: str = "asyncio") -> None:
        self.settings = settings
        self.relay: SmtpRelay | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._started = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=lambda: run_loop(self._main(), event_loop), daemon=True)

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        try:
            self.relay = SmtpRelay(self.settings)
            await self.relay.start()
        except BaseException as exc:
            self._error = exc
            self._started.set()
            return
        self._started.set()
        await self._stop.wait()
        await self.relay.stop()

    def start(self) -> RelayRunner:
        self._thread.start()
        self._started.wait(120)
        if self._error is not None:
            raise self._error
        return self

    def stop(self) -> None:
        if self._loop is not None and self._stop is not None and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(60)

    @property
    def port(self) -> int:
        assert self.relay is not None and self.relay.address is not None
        return self.relay.address[1]


def relay_settings(level: int = 7, **smtp: Any) -> Settings:
    """Settings through the config parser, as a YAML file with these ``smtp`` keys would give."""
    smtp.setdefault("listen", "127.0.0.1:0")
    smtp.setdefault("scrub_processes", 0)  # in this process: the model loads once for all relays
    return config.parse({"level": level, "smtp": smtp})


# --------------------------------------------------------------------------- metrics
def metric(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def messages(outcome: str) -> float:
    return metric("scrubber_messages_total", transport="smtp", route="smtp", outcome=outcome)


# --------------------------------------------------------------------------- sinks
def marker() -> str:
    return uuid.uuid4().hex[:16]


def find(sink: SmtpSink, token: str, timeout: float = 15.0) -> Message:
    """The message the sink received whose X-Test-Id is ``token``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for data in sink.contents():
            msg = email.message_from_bytes(data, policy=email.policy.default)
            if msg.get("X-Test-Id") == token:
                return msg
        time.sleep(0.05)
    raise TimeoutError(f"no message {token} in smtp-sink")


def received(sink: SmtpSink, token: str) -> bool:
    return any(f"X-Test-Id: {token}".encode() in data for data in sink.contents())


def tagged(path_or_bytes: Path | bytes, token: str) -> bytes:
    """A message with an X-Test-Id header put in front, to find it again at the sink."""
    data = path_or_bytes.read_bytes() if isinstance(path_or_bytes, Path) else path_or_bytes
    sep = b"\r\n" if b"\r\n" in data[:200] else b"\n"
    return b"X-Test-Id: " + token.encode() + sep + data


# --------------------------------------------------------------------------- Postfix
MASTER_CF = """\
127.0.0.1:{port} inet n - n - - smtpd
pickup    unix  n - n 60 1 pickup
cleanup   unix  n - n -  0 cleanup
qmgr      unix  n - n 300 1 qmgr
rewrite   unix  - - n -  - trivial-rewrite
bounce    unix  - - n -  0 bounce
defer     unix  - - n -  0 bounce
trace     unix  - - n -  0 bounce
verify    unix  - - n -  1 verify
flush     unix  n - n 1000? 0 flush
proxymap  unix  - - n -  - proxymap
smtp      unix  - - n -  - smtp
relay     unix  - - n -  - smtp
showq     unix  n - n -  - showq
error     unix  - - n -  - error
retry     unix  - - n -  - error
discard   unix  - - n -  - discard
anvil     unix  - - n -  1 anvil
scache    unix  - - n -  1 scache
tlsmgr    unix  - - n 1000? 1 tlsmgr
postlog   unix-dgram n - n - 1 postlogd
"""


class Postfix:
    """A Postfix instance with its own config directory (REAL_COMPONENTS.md, section 3)."""

    def __init__(self, relayhost_port: int, extra: str = "", files: dict[str, str] | None = None) -> None:
        self.base = Path(tempfile.mkdtemp(prefix="postfix-"))
        self.base.chmod(0o755)
        self.etc = self.base / "etc"
        self.port = free_port()
        for d in ("etc", "spool", "data"):
            (self.base / d).mkdir()
        shutil.chown(self.base / "data", "postfix")
        for name, text in (files or {}).items():
            (self.etc / name).write_text(text)
        (self.etc / "main.cf").write_text(
            f"""compatibility_level = 3.6
queue_directory = {self.base}/spool
data_directory = {self.base}/data
inet_interfaces = 127.0.0.1
inet_protocols = ipv4
myhostname = upstream.test
mydestination =
local_transport = error:local delivery disabled
mynetworks = 127.0.0.0/8
relayhost = [127.0.0.1]:{relayhost_port}
smtpd_relay_restrictions = permit_mynetworks, reject
maillog_file_prefixes = {self.base}
maillog_file = {self.base}/maillog
{extra}
"""
        )
        (self.etc / "master.cf").write_text(MASTER_CF.format(port=self.port))
        subprocess.run(["postfix", "-c", str(self.etc), "check"], check=True)
        self.proc = subprocess.Popen(
            ["postfix", "-c", str(self.etc), "start-fg"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        wait_for_port(self.port, self.proc)

    def queue(self) -> list[dict[str, Any]]:
        out = subprocess.run(
            ["postqueue", "-c", str(self.etc), "-j"], check=True, capture_output=True, text=True
        ).stdout
        return [json.loads(line) for line in out.splitlines() if line.strip()]

    def flush(self) -> None:
        subprocess.run(["postqueue", "-c", str(self.etc), "-f"], check=True)

    def stop(self) -> None:
        subprocess.run(["postfix", "-c", str(self.etc), "stop"], check=False, capture_output=True)
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            stop_process(self.proc)
        shutil.rmtree(self.base, ignore_errors=True)


# --------------------------------------------------------------------------- TLS and AUTH
