"""SMTP relay benchmark: messages/s and the latency the relay adds, against smtp-sink.

    .venv/bin/python -m load.bench_smtp                 # 5 KB and 100 KB, 20 sessions, 5 MB in flight
    .venv/bin/python -m load.bench_smtp --quick         # a few hundred messages, to check it works

One Postfix smtp-sink (no dump files) is the upstream. The same asyncio client (aiosmtplib, 20
sessions that each keep their connection and send one message after another) drives

- straight to the sink, then
- through the relay (a child process: level 7, two scrub worker processes) to the same sink,

for 5 KB and 100 KB plain-text messages with PII in them (devset chat and log lines). Latency is
one transaction, MAIL to the reply after DATA; "added" is relay minus direct, per percentile.
Then the 5 KB load runs again while Postfix's smtp-source keeps one 5 MB message in flight
through the relay, back to back on one more session (a text body, the expensive case, and a
base64 attachment), and the p99 of the small messages is compared with the run without it.

The machine is shared and has 2 cores (sink, relay, its workers and this driver all compete):
treat the numbers as rough and compare within one run.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import multiprocessing
import os
import signal
import subprocess
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import aiosmtplib

from load.bench import chat_log_stream
from tests.conftest import free_port, stop_process, wait_for_port

SESSIONS = 20
PASSTHROUGH_RATE = 20.0
SENDER, RECIPIENT = "bench@example.com", "sink@example.org"


# --------------------------------------------------------------------------- messages
def text_message(size: int, seed: int) -> bytes:
    """A plain-text message of about ``size`` bytes made of devset chat and log lines."""
    lines: list[str] = []
    total = 0
    for line in itertools.cycle(chat_log_stream(200, seed=seed)):
        lines.append(line.replace("\r", " ").replace("\n", " "))
        total += len(lines[-1]) + 2
        if total >= size:
            break
    head = (
        f"From: {SENDER}\r\nTo: {RECIPIENT}\r\nSubject: bench {size}\r\n"
        f"Message-ID: <bench-{seed}@example.com>\r\nMIME-Version: 1.0\r\n"
        "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n"
    )
    return (head + "\r\n" + "\r\n".join(lines) + "\r\n").encode("utf-8")


def attachment_message(size: int) -> bytes:
    """A short text and a base64 attachment of ``size`` random-looking bytes."""
    import base64

    blob = base64.encodebytes(os.urandom(size)).replace(b"\n", b"\r\n")
    return (
        (
            f"From: {SENDER}\r\nTo: {RECIPIENT}\r\nSubject: big attachment\r\nMIME-Version: 1.0\r\n"
            'Content-Type: multipart/mixed; boundary="b"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\n'
            "Report attached, call 415-555-0142.\r\n--b\r\nContent-Type: application/pdf\r\n"
            'Content-Disposition: attachment; filename="report.pdf"\r\n'
            "Content-Transfer-Encoding: base64\r\n\r\n"
        ).encode()
        + blob
        + b"\r\n--b--\r\n"
    )


# --------------------------------------------------------------------------- components
def _serve(doc: dict[str, Any], passthrough: bool, port: Any, ready: Any) -> None:
    """Child process: one SmtpRelay until SIGTERM."""
    from scrubber import config
    from scrubber.smtp import SmtpRelay

    async def main() -> None:
        stop = asyncio.Event()
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
        relay = SmtpRelay(config.parse(doc), passthrough=passthrough)
        await relay.start()
        assert relay.address is not None
        port.value = relay.address[1]
        ready.set()
        await stop.wait()
        await relay.stop()

    asyncio.run(main())


class Components:
    """smtp-sink, and two relays in child processes in front of it: level 7, and pass-through."""

    def __init__(self) -> None:
        self.sink_port = free_port()
        cmd = ["/usr/sbin/smtp-sink"] + (["-u", "root"] if os.geteuid() == 0 else [])
        self.sink = subprocess.Popen([*cmd, f"127.0.0.1:{self.sink_port}", "1024"], stderr=subprocess.DEVNULL)
        wait_for_port(self.sink_port, self.sink)
        doc = {
            "level": 7,
            "logging": {"level": "warning"},
            "smtp": {
                "listen": "127.0.0.1:0",
                "upstream": {"port": self.sink_port, "timeout": 120},
                "scrub_processes": 2,
                # Long enough that the 5 MB text is scrubbed to the end, not refused at 5 s.
                "time_budget_ms": 300000,
                "max_sessions": 200,
            },
        }
        ctx = multiprocessing.get_context("spawn")
        self.relays: list[Any] = []
        ports = []
        for passthrough in (False, True):
            port, ready = ctx.Value("i", 0), ctx.Event()
            proc = ctx.Process(target=_serve, args=(doc, passthrough, port, ready), daemon=True)
            proc.start()
            self.relays.append(proc)
            ports.append((port, ready))
        for _, ready in ports:
            if not ready.wait(300):
                raise RuntimeError("a relay did not start")
        self.level7_port, self.passthrough_port = (int(p.value) for p, _ in ports)

    def close(self) -> None:
        for proc in self.relays:
            if proc.pid is not None:
                os.kill(proc.pid, signal.SIGTERM)
            proc.join(30)
        stop_process(self.sink)


# --------------------------------------------------------------------------- the driver
@dataclass
class Result:
    seconds: float
    latencies: list[float]
    failures: int

    @property
    def rate(self) -> float:
        return len(self.latencies) / self.seconds if self.seconds else 0.0

    def pct(self, q: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000 if ordered else float("nan")


async def drive(port: int, messages: list[bytes], seconds: float, rate: float | None = None) -> Result:
    """20 kept sessions for ``seconds``: each sends as fast as it can (``rate`` None, closed
    loop), or together they send ``rate`` messages a second on a fixed schedule (open loop;
    latency then counts from the scheduled time, waiting for a free session included)."""
    clients = [
        aiosmtplib.SMTP(hostname="127.0.0.1", port=port, timeout=600, start_tls=False)
        for _ in range(SESSIONS)
    ]
    await asyncio.gather(*(c.connect() for c in clients))
    latencies: list[float] = []
    failures = 0
    start = time.perf_counter()
    deadline = start + seconds
    jobs: asyncio.Queue[float | None] = asyncio.Queue()

    async def send(client: aiosmtplib.SMTP, i: int, since: float) -> None:
        nonlocal failures
        try:
            await client.sendmail(SENDER, [RECIPIENT], messages[i % len(messages)])
        except aiosmtplib.SMTPException:
            failures += 1
            return
        latencies.append(time.perf_counter() - since)

    async def closed(client: aiosmtplib.SMTP, n: int) -> None:
        while time.perf_counter() < deadline:
            await send(client, n, time.perf_counter())
            n += SESSIONS

    async def schedule() -> None:
        assert rate is not None
        for i in itertools.count():
            due = start + i / rate
            if due >= deadline:
                break
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
            jobs.put_nowait(due)
        for _ in clients:
            jobs.put_nowait(None)

    async def opened(client: aiosmtplib.SMTP, n: int) -> None:
        while (due := await jobs.get()) is not None:
            await send(client, n, due)
            n += SESSIONS

    if rate is None:
        await asyncio.gather(*(closed(c, n) for n, c in enumerate(clients)))
    else:
        await asyncio.gather(schedule(), *(opened(c, n) for n, c in enumerate(clients)))
    elapsed = time.perf_counter() - start
    await asyncio.gather(*(c.quit() for c in clients), return_exceptions=True)
    return Result(elapsed, latencies, failures)


async def with_big_in_flight(
    port: int, small: list[bytes], seconds: float, rate: float, big: bytes
) -> tuple[Result, int]:
    """The small-message load while Postfix's smtp-source keeps ``big`` in flight, back to back
    on one session. A process of its own: sending 5 MB from this event loop would stall the
    very loop that times the small messages."""
    with tempfile.NamedTemporaryFile(suffix=".eml") as f:
        f.write(big.replace(b"\r\n", b"\n"))  # smtp-source adds the CR itself
        f.flush()
        sender = subprocess.Popen(
            ["/usr/sbin/smtp-source", "-c", "-d", "-s", "1", "-m", "100000", "-F", f.name,
             "-f", SENDER, "-t", RECIPIENT, f"127.0.0.1:{port}"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        await asyncio.sleep(2.0)  # the big message is in the relay before the small ones start
        result = await drive(port, small, seconds, rate)
        sender.terminate()
        out, _ = sender.communicate()
    counts = [int(n) for n in out.replace(b"\r", b"\n").split() if n.isdigit()]
    return result, max(counts, default=0)


# --------------------------------------------------------------------------- the run
def _row(case: str, value: float, unit: str, note: str) -> dict[str, Any]:
    return {"case": case, "value": round(value, 1), "unit": unit, "note": note}


def run(quick: bool) -> list[dict[str, Any]]:
    seconds = 4.0 if quick else 20.0
    rows: list[dict[str, Any]] = []
    comp = Components()
    try:
        sizes = {"5 KB": [text_message(5 * 1024, s) for s in range(20)]}
        sizes["100 KB"] = [text_message(100 * 1024, s) for s in range(5)]
        bigs = {
            "5 MB text": text_message(5 * 1024 * 1024, 99),
            "5 MB attachment": attachment_message(int(3.7 * 1024 * 1024)),
        }
        paths = {"direct": comp.sink_port, "pass-through": comp.passthrough_port, "level 7": comp.level7_port}
        for port in paths.values():
            asyncio.run(drive(port, sizes["5 KB"], 2.0))  # warm up every path
        capacity: dict[str, float] = {}
        for label, msgs in sizes.items():
            got = {name: asyncio.run(drive(port, msgs, seconds)) for name, port in paths.items()}
            direct = got["direct"]
            capacity[label] = got["level 7"].rate
            for name in ("pass-through", "level 7"):
                r = got[name]
                note = f"closed loop, {SESSIONS} sessions, {seconds:.0f} s; failures {r.failures}"
                rows.append(
                    _row(f"{label} {name}: rate", r.rate, "msg/s", f"{note}; direct {direct.rate:.0f}")
                )
                for q in (0.5, 0.99):
                    rows.append(
                        _row(
                            f"{label} {name}: added p{q * 100:.0f}",
                            r.pct(q) - direct.pct(q),
                            "ms",
                            f"closed loop: {r.pct(q):.1f} ms vs direct {direct.pct(q):.1f} ms",
                        )
                    )
        # Open loop, well below capacity: the latency the relay adds, not a queue of our making.
        # A quarter of the level-7 capacity leaves one of its two workers free half the time
        # while the other holds the 5 MB message.
        small = sizes["5 KB"]
        rates = {"pass-through": PASSTHROUGH_RATE, "level 7": max(0.5, capacity["5 KB"] / 4)}
        for name, rate in rates.items():
            d = asyncio.run(drive(comp.sink_port, small, seconds, rate))
            port = paths[name]
            r = asyncio.run(drive(port, small, seconds, rate))
            for q in (0.5, 0.99):
                rows.append(
                    _row(
                        f"5 KB {name} at {rate:.1f} msg/s: added p{q * 100:.0f}",
                        r.pct(q) - d.pct(q),
                        "ms",
                        f"open loop, {SESSIONS} sessions: {r.pct(q):.1f} ms vs direct {d.pct(q):.1f} ms",
                    )
                )
            for label, big in bigs.items():
                loaded, sent = asyncio.run(with_big_in_flight(port, small, seconds, rate, big))
                rows.append(
                    _row(
                        f"5 KB {name} p99, {label} in flight",
                        loaded.pct(0.99) - r.pct(0.99),
                        "ms",
                        f"{rate:.1f} msg/s: p99 {loaded.pct(0.99):.1f} ms vs {r.pct(0.99):.1f} ms without, "
                        f"p50 {loaded.pct(0.5):.1f} ms; {sent} big done meanwhile; target <= +50 ms",
                    )
                )
    finally:
        comp.close()
    return rows


def bench_rows(quick: bool) -> list[Mapping[str, Any]]:
    """The hook ``python -m load.bench`` calls."""
    return run(quick)


def main() -> None:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="4 s per case instead of 20")
    args = p.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores")
    for row in run(args.quick):
        print(f"{row['case']:<48} {row['value']:>9} {row['unit']:<6} {row['note']}")


if __name__ == "__main__":
    main()
