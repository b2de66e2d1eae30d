"""What the relay's overrides of aiosmtpd's and aiosmtplib's private surfaces buy, measured.

    .venv/bin/python -m load.smtp_overrides [--repeat 3]

Each row sets the library's own way against the relay's, in one process, best of ``--repeat``:

- ``_getaddr``: reading the address of MAIL FROM / RCPT TO, aiosmtpd's (the email package's
  header parser) against :func:`scrubber.smtp.server.plain_path`; CPU microseconds per address.
- ``smtp_DATA``: one 5 MB message received over loopback by aiosmtpd's own SMTP (which reads
  DATA line by line) and by the relay's :class:`~scrubber.smtp.server.Server` (in blocks), from
  a plain socket client in a thread; CPU seconds of the process (nearly all of it the server's)
  and the event loop's longest stall meanwhile, which every other session would wait out.
- ``data()``: what aiosmtplib does to a 5 MB message on the event loop before it sends it (two
  regular expressions: line endings, dot-stuffing) against
  :func:`scrubber.smtp.delivery.wire_form`; CPU milliseconds.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import socket
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from aiosmtpd.smtp import SMTP, Envelope, Session
from aiosmtplib.protocol import PERIOD_REGEX, normalize_message_line_endings

from scrubber import config
from scrubber.mailbox import Mailbox
from scrubber.smtp.delivery import Delivery, MailboxDelivery, wire_form
from scrubber.smtp.server import Handler, Server, plain_path

MESSAGE_BYTES = 5 * 1024 * 1024
ADDRESSES = [f"<user{i}.name@mail{i % 7}.example.com>" for i in range(2000)]


def message(size: int = MESSAGE_BYTES) -> bytes:
    line = b"The quarterly numbers are attached; call me about them when you can, thanks.\r\n"
    head = b"From: a@example.com\r\nTo: b@example.com\r\nSubject: numbers\r\n\r\n"
    return head + line * (size // len(line))


def best(repeat: int, run: Callable[[], float]) -> float:
    return min(run() for _ in range(repeat))


# --------------------------------------------------------------------------- _getaddr
def getaddr_rows(repeat: int) -> list[tuple[str, float, str]]:
    stock = SMTP(_StockHandler())

    def timed(read: Callable[[str], Any]) -> float:
        t = time.process_time()
        for a in ADDRESSES:
            read(a)
        return (time.process_time() - t) / len(ADDRESSES) * 1e6

    return [
        ("_getaddr: aiosmtpd", best(repeat, lambda: timed(stock._getaddr)), "us/address"),
        ("_getaddr: plain_path", best(repeat, lambda: timed(plain_path)), "us/address"),
    ]


# --------------------------------------------------------------------------- smtp_DATA
class _StockHandler:
    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        return "250 OK"


class _Relay:
    """The relay as the server sees it (scrubber.smtp.server.Relay), accepting every message."""

    def __init__(self, box: Path) -> None:
        settings = config.parse({"smtp": {"listen": "127.0.0.1:0", "mailbox_dir": str(box)}})
        assert settings.smtp is not None
        self.config = settings.smtp
        self.in_flight = 0
        self.handler = Handler(self)
        self.auth_offered = False
        self.mailbox = Mailbox(str(box))

    def admit(self, peer: Any) -> str | None:
        return None

    def new_delivery(self) -> Delivery:
        return MailboxDelivery(self.mailbox)

    def session_opened(self, server: Server) -> None:
        return None

    def session_closed(self, server: Server) -> None:
        return None

    async def relay_message(self, server: Server, envelope: Envelope, mid: str) -> str:
        return "250 OK"

    def count_refused_data(self, server: Server) -> None:
        return None


async def _stall_while(work: Awaitable[None]) -> tuple[float, float]:
    """CPU seconds of ``work`` and the event loop's longest stall (seconds) while it runs."""
    longest = 0.0

    async def ticker() -> None:
        nonlocal longest
        while True:
            t = time.perf_counter()
            await asyncio.sleep(0.001)
            longest = max(longest, time.perf_counter() - t - 0.001)

    tick = asyncio.create_task(ticker())
    await asyncio.sleep(0.01)
    cpu = time.process_time()
    await work
    cpu = time.process_time() - cpu
    tick.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await tick
    return cpu, longest


def _send(port: int, wire: bytes) -> None:
    """One transaction carrying ``wire`` (a message already dot-stuffed, CRLF line ends)."""
    with socket.create_connection(("127.0.0.1", port)) as sock, sock.makefile("rb") as replies:

        def reply() -> bytes:
            line = replies.readline()
            while line[3:4] == b"-":
                line = replies.readline()
            return line

        reply()
        for command in (b"EHLO bench", b"MAIL FROM:<a@example.com>", b"RCPT TO:<b@example.com>", b"DATA"):
            sock.sendall(command + b"\r\n")
            reply()
        sock.sendall(wire)
        sock.sendall(b".\r\n")
        if not reply().startswith(b"250"):
            raise RuntimeError("the message was not accepted")
        sock.sendall(b"QUIT\r\n")
        reply()


async def _data_case(make: Callable[[], SMTP], wire: bytes) -> tuple[float, float]:
    loop = asyncio.get_running_loop()
    server = await loop.create_server(make, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        return await _stall_while(asyncio.to_thread(_send, port, wire))
    finally:
        server.close()
        await server.wait_closed()


def data_rows(repeat: int) -> list[tuple[str, float, str]]:
    data = message()
    wire = wire_form(data)
    assert wire is not None
    limit = 2 * len(data)
    with tempfile.TemporaryDirectory() as box:
        relay = _Relay(Path(box))

        def stock() -> SMTP:
            return SMTP(_StockHandler(), data_size_limit=limit, enable_SMTPUTF8=True)

        def ours() -> SMTP:
            return Server(relay, data_size_limit=limit, enable_SMTPUTF8=True)

        rows = []
        for name, make in (("aiosmtpd", stock), ("Server", ours)):
            runs = [asyncio.run(_data_case(make, wire)) for _ in range(repeat)]
            rows.append((f"smtp_DATA 5 MB: {name}", min(cpu for cpu, _ in runs), "CPU s"))
            rows.append((f"smtp_DATA 5 MB: {name}, longest loop stall", min(s for _, s in runs), "s"))
    return rows


# --------------------------------------------------------------------------- data()
def prepare_rows(repeat: int) -> list[tuple[str, float, str]]:
    data = message()

    def timed(prepare: Callable[[bytes], Any]) -> float:
        t = time.process_time()
        prepare(data)
        return (time.process_time() - t) * 1000

    def library(m: bytes) -> bytes:
        return PERIOD_REGEX.sub(b"..", normalize_message_line_endings(m))

    return [
        ("data() 5 MB: aiosmtplib", best(repeat, lambda: timed(library)), "CPU ms"),
        ("data() 5 MB: wire_form", best(repeat, lambda: timed(wire_form)), "CPU ms"),
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    logging.getLogger("mail.log").setLevel(logging.WARNING)
    rows = [*getaddr_rows(args.repeat), *prepare_rows(args.repeat), *data_rows(args.repeat)]
    width = max(len(case) for case, _, _ in rows)
    for case, value, unit in rows:
        print(f"{case:<{width}}  {value:10.3f}  {unit}")


if __name__ == "__main__":
    main()
