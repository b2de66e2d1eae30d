"""``scrubber demo``: push a small sample through the embedded setup and show before and after."""

from __future__ import annotations

import asyncio
import email
import email.policy
import json
import sys
import time
import urllib.request
from collections.abc import Sequence
from email.message import EmailMessage
from pathlib import Path
from typing import TextIO

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer

from scrubber.config import Settings
from scrubber.dial import ENTITY_LEVELS, Policy
from scrubber.engine import Scrubber
from scrubber.findings import Finding

CHAT = (
    "Customer: hi, my SSN is 524-59-3318 and my zip is 94105",
    "Customer: the last four of my social are 6789, card ending in 4242",
    "Customer: call me back on (415) 555-0142 or mail jane.miller@example.com",
    "Agent: thanks! is there anything else? the order number is 884295455",
)
LOGS = (
    {"level": "info", "msg": "login ok", "user": "carl.frost@example.org", "client_ip": "84.2.55.224"},
    {"level": "warn", "msg": "payment declined", "card": "4111 1111 1111 1111", "amount": 12.5},
    {"level": "info", "msg": "profile updated", "user": {"name": "Carol Levine", "phone": "+1 615-281-4900"}},
)
MAIL_BODY = """Hello,

Please update my details: I moved to 742 Evergreen Terrace, Springfield, OR 97403.
My new number is (503) 555-0199 and my date of birth is 03/04/1985.

Thanks,
Jane Miller
"""

_SHOWN_COUNTERS = ("scrubber_messages_total", "scrubber_findings_total", "scrubber_quarantined_total")
# ANSI colours by dial level, for a terminal.
_COLOURS = {1: "41", 2: "43", 3: "45", 4: "42", 5: "46", 6: "44", 7: "47"}


def highlight(text: str, findings: Sequence[Finding], colour: bool) -> str:
    """``text`` with findings marked: coloured on a terminal, ``[[value|ENTITY]]`` otherwise."""
    out: list[str] = []
    pos = 0
    for f in findings:
        out.append(text[pos : f.start])
        value = text[f.start : f.end]
        if colour:
            code = _COLOURS.get(ENTITY_LEVELS.get(f.entity, 7), "47")
            out.append(f"\x1b[30;{code}m{value}\x1b[0m\x1b[2m<{f.entity}>\x1b[0m")
        else:
            out.append(f"[[{value}|{f.entity}]]")
        pos = f.end
    out.append(text[pos:])
    return "".join(out)


class Demo:
    def __init__(self, settings: Settings, mailbox: Path, out: TextIO, colour: bool) -> None:
        assert settings.kafka is not None
        self.settings = settings
        self.kafka = settings.kafka
        self.mailbox = mailbox
        self.out = out
        self.colour = colour
        self.engine = Scrubber(Policy(level=settings.policy.level))

    def step(self, msg: str) -> None:
        self.out.write(f"… {msg}\n")
        self.out.flush()

    async def run(self) -> None:
        self.step("producing sample chat and log lines")
        producer = AIOKafkaProducer(bootstrap_servers=self.kafka.bootstrap_servers, acks="all")
        await producer.start()
        try:
            # Keys tie each clean record to its raw one: partitions do not keep a global order.
            for i, line in enumerate(CHAT):
                await producer.send_and_wait("chat.raw", line.encode(), key=str(i).encode())
            for i, rec in enumerate(LOGS):
                await producer.send_and_wait("logs.raw", json.dumps(rec).encode(), key=str(i).encode())
        finally:
            await producer.stop()
        self.step("waiting for the clean topics")
        chat = await self._read("chat.clean", len(CHAT))
        logs = await self._read("logs.clean", len(LOGS))
        self.step("sending one e-mail through the SMTP relay")
        clean_mail = await self._mail()
        self._show("chat.raw -> chat.clean", list(CHAT), chat)
        self._show("logs.raw -> logs.clean", [json.dumps(r) for r in LOGS], logs)
        self._show("SMTP relay -> mailbox", [MAIL_BODY], [clean_mail])
        await asyncio.to_thread(self._counters)

    async def _read(self, topic: str, n: int, timeout: float = 30.0) -> list[str]:
        consumer = AIOKafkaConsumer(
            topic, bootstrap_servers=self.kafka.bootstrap_servers, group_id=None, auto_offset_reset="earliest"
        )
        await consumer.start()
        got: dict[int, str] = {}
        deadline = time.monotonic() + timeout
        try:
            while len(got) < n and time.monotonic() < deadline:
                batch = await consumer.getmany(timeout_ms=500)
                for records in batch.values():
                    for r in records:
                        if r.key is not None and r.key.isdigit() and r.value is not None:
                            got[int(r.key)] = r.value.decode("utf-8", "replace")
        finally:
            await consumer.stop()
        if len(got) < n:
            raise RuntimeError(f"only {len(got)} of {n} records arrived on {topic} within {timeout:g}s")
        return [got[i] for i in range(n)]

    async def _mail(self, timeout: float = 30.0) -> str:
        import aiosmtplib

        assert self.settings.smtp is not None
        host, _, port = self.settings.smtp.listen.rpartition(":")
        before = set(self.mailbox.glob("*.eml"))
        msg = EmailMessage()
        msg["From"] = "jane.miller@example.com"
        msg["To"] = "support@example.org"
        msg["Subject"] = "Address change"
        msg.set_content(MAIL_BODY)
        await aiosmtplib.send(msg, hostname=host, port=int(port), timeout=timeout)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            new = set(self.mailbox.glob("*.eml")) - before
            if new:
                delivered = email.message_from_bytes(max(new).read_bytes(), policy=email.policy.default)
                body = delivered.get_body(("plain",))
                return str(body.get_content()) if body is not None else ""
            await asyncio.sleep(0.1)
        raise RuntimeError("the e-mail did not arrive in the mailbox")

    def _show(self, title: str, before: list[str], after: list[str]) -> None:
        w = self.out.write
        bold = ("\x1b[1m", "\x1b[0m") if self.colour else ("", "")
        w(f"\n{bold[0]}{title}{bold[1]}\n")
        for raw, clean in zip(before, after, strict=True):
            res = self.engine.scrub(raw)
            w(f"  before: {highlight(raw, res.findings, self.colour)}\n")
            w(f"  after:  {clean}\n")
            kinds = ", ".join(sorted({f.entity for f in res.findings})) or "nothing"
            w(f"  found:  {kinds}\n\n")

    def _counters(self) -> None:
        url = f"http://{self.settings.admin.listen}/metrics"
        try:
            with urllib.request.urlopen(url, timeout=5) as resp:
                text = resp.read().decode()
        except OSError as exc:
            self.out.write(f"(metrics not reachable at {url}: {exc})\n")
            return
        self.out.write(f"Counters from {url}:\n")
        for line in text.splitlines():
            if line.startswith(
                ("scrubber_messages_total", "scrubber_findings_total", "scrubber_quarantined_total")
            ):
                self.out.write(f"  {line}\n")


def colour_wanted(stream: TextIO) -> bool:
    return hasattr(stream, "isatty") and stream.isatty()


async def run(settings: Settings, mailbox: Path, out: TextIO = sys.stdout) -> None:
    await Demo(settings, mailbox, out, colour_wanted(out)).run()
