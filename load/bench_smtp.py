"""SMTP relay benchmark: messages/s and the latency the relay adds, against smtp-sink.

    .venv/bin/python -m load.bench_smtp                 # 5 KB and 100 KB, 20 sessions, 5 MB in flight
    .venv/bin/python -m load.bench_smtp --quick         # a few hundred messages, to check it works
    git archive HEAD~3 | (mkdir -p /tmp/base && tar -x -C /tmp/base)
    .venv/bin/python -m load.bench_smtp --base /tmp/base   # before (that tree) and after, side by side

One Postfix smtp-sink (no dump files) is the upstream. The same asyncio client (aiosmtplib, 20
sessions that each keep their connection and send one message after another) drives

- straight to the sink, then
- through the relay (a child process: level 7, two scrub worker processes) to the same sink,

for 5 KB and 100 KB plain-text messages with PII in them (devset chat and log lines). Latency is
one transaction, MAIL to the reply after DATA; "added" is relay minus direct, per percentile.
Then the 5 KB load runs again while Postfix's smtp-source keeps one 5 MB message in flight
through the relay, back to back on one more session (a text body, the expensive case, and a
base64 attachment), and the p99 of the small messages is compared with the run without it.

With ``--base`` the relays of another checkout run next to this one's (each relay is a child
process started in its tree), and every case alternates between the paths in slices on kept
sessions, so that before, after and direct see the same machine; the before column is printed
next to the after one. One more case opens a new client session for every message (as most
MTAs do), where the relay's upstream connections matter.

CPU per message, the figure that stays meaningful on a shared machine: the relay's own (the
CPU time, user + system from /proc, of the relay process and its scrub worker processes while
the closed-loop slices to it ran, over the messages it relayed; smtp-sink and this driver do
not count), and the engine's alone on the same bodies (``Scrubber`` at level 7 in this process,
warmed up, ``scrub_many`` on the text units the relay's MIME format hands it, parsed outside
the clock; ``time.process_time``, the mean of three rounds after an untimed one). Their ratio is
what the relay adds around the engine: SMTP in and out, MIME parsing and rendering, and the
message's round trip to a worker process.

The machine is shared and has 2 cores (sink, relay, its workers and this driver all compete):
treat the rates as rough and compare within one run; the CPU figures move much less with load.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiosmtplib

from load.bench import chat_log_stream
from load.proctree import tree_cpu_seconds
from scrubber import config
from scrubber.engine import Scrubber
from scrubber.formats.mime import MimeFormat, MimeOptions
from tests.conftest import free_port, stop_process, wait_for_port

ROOT = Path(__file__).resolve().parent.parent
SESSIONS = 20
PASSTHROUGH_RATE = 20.0
SLICES = 4  # each case alternates between its paths this many times
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
# A relay in a child process, started in its own tree (the worker processes it starts import
# from the same tree); it prints its port once it is ready and stops on SIGTERM.
LAUNCHER = """
import asyncio, json, signal, sys
from scrubber import config, logs
try:
    from scrubber.smtp.relay import SmtpRelay
except ImportError:  # a tree from before the transport packages
    from scrubber.smtp import SmtpRelay

settings = config.parse(json.loads(sys.argv[1]))

async def main():
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    logs.configure("json", settings.logging.level)
    relay = SmtpRelay(settings, passthrough=sys.argv[2] == "1")
    await relay.start()
    print(relay.address[1], flush=True)
    await stop.wait()
    await relay.stop()

try:
    from scrubber.service import run_loop
except ImportError:  # a tree from before the event_loop setting: asyncio's loop
    asyncio.run(main())
else:
    run_loop(main(), settings.event_loop)
"""


def start_relay(tree: Path, doc: dict[str, Any], passthrough: bool) -> tuple[subprocess.Popen[bytes], int]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    proc = subprocess.Popen(
        [sys.executable, "-c", LAUNCHER, json.dumps(doc), "1" if passthrough else "0"],
        cwd=tree,
        env=env,
        stdout=subprocess.PIPE,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line.strip().isdigit():
        stop_process(proc)
        raise RuntimeError(f"the relay in {tree} did not start")
    return proc, int(line)


def relay_doc(sink_port: int) -> dict[str, Any]:
    """The relays' configuration: level 7, two scrub processes, smtp-sink as the upstream."""
    return {
        "level": 7,
        "logging": {"level": "warning"},
        "smtp": {
            "listen": "127.0.0.1:0",
            "upstream": {"port": sink_port, "timeout": 120},
            "scrub_processes": 2,
            # Long enough that the 5 MB text is scrubbed to the end, not refused at 5 s.
            "time_budget_ms": 300000,
            "max_sessions": 200,
        },
    }


def engine_ms(messages: list[bytes], rounds: int = 3) -> float:
    """CPU milliseconds per message of the engine alone, in this process, on the text units the
    level-7 relay's MIME format takes out of ``messages`` (parsed outside the clock). Bodies
    under the relay's batch size (128 KB) reach the engine in one ``scrub_many`` there too."""
    settings = config.parse(relay_doc(25))
    smtp = settings.smtp
    assert smtp is not None
    scrubber = Scrubber(settings.policy.policy(7), regex_timeout=settings.limits.regex_timeout_ms / 1000)
    scrubber.warm_up()
    options = MimeOptions(headers=smtp.headers, attachments=smtp.attachments)
    units = [list(MimeFormat(options, scrubber.apply, 7).parse(m).texts) for m in messages]
    for texts in units:  # the relay's workers have seen these bodies before the clock starts too
        scrubber.scrub_many(texts)
    t0 = time.process_time()
    for _ in range(rounds):
        for texts in units:
            scrubber.scrub_many(texts)
    return (time.process_time() - t0) / (rounds * len(units)) * 1000


class Components:
    """smtp-sink, and in front of it the relays of each tree: level 7, and pass-through."""

    def __init__(self, trees: Mapping[str, Path]) -> None:
        self.sink_port = free_port()
        cmd = ["/usr/sbin/smtp-sink"] + (["-u", "root"] if os.geteuid() == 0 else [])
        self.sink = subprocess.Popen([*cmd, f"127.0.0.1:{self.sink_port}", "1024"], stderr=subprocess.DEVNULL)
        wait_for_port(self.sink_port, self.sink)
        doc = relay_doc(self.sink_port)
        self.procs: list[subprocess.Popen[bytes]] = []
        # ports[tree][mode], mode "level 7" or "pass-through"; pids the same, of the relay process
        self.ports: dict[str, dict[str, int]] = {}
        self.pids: dict[str, dict[str, int]] = {}
        try:
            for name, tree in trees.items():
                for mode, passthrough in (("level 7", False), ("pass-through", True)):
                    proc, port = start_relay(tree, doc, passthrough)
                    self.procs.append(proc)
                    self.ports.setdefault(name, {})[mode] = port
                    self.pids.setdefault(name, {})[mode] = proc.pid
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        for proc in self.procs:
            stop_process(proc, grace=30)
        stop_process(self.sink)


# --------------------------------------------------------------------------- the driver
@dataclass
class Result:
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    failures: int = 0
    cpu: float = 0.0  # CPU seconds of the relay and its workers meanwhile (0 for the sink)

    @property
    def rate(self) -> float:
        return len(self.latencies) / self.seconds if self.seconds else 0.0

    def pct(self, q: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000 if ordered else float("nan")

    @property
    def cpu_ms(self) -> float:
        """The relay's CPU milliseconds per message relayed."""
        return self.cpu / len(self.latencies) * 1000 if self.latencies else float("nan")

    def add(self, other: Result) -> None:
        self.seconds += other.seconds
        self.latencies += other.latencies
        self.failures += other.failures
        self.cpu += other.cpu


class Driver:
    """``SESSIONS`` client sessions to one port, kept open across the slices of a case (or, with
    ``per_message``, a new session for every message: connect, EHLO, the transaction, QUIT).
    With ``pid`` (a relay's), each run also takes the CPU time of that process and its
    descendants."""

    def __init__(self, port: int, per_message: bool = False, pid: int | None = None) -> None:
        self.port = port
        self.per_message = per_message
        self.pid = pid
        self.clients: list[aiosmtplib.SMTP] = []

    def _client(self) -> aiosmtplib.SMTP:
        return aiosmtplib.SMTP(hostname="127.0.0.1", port=self.port, timeout=600, start_tls=False)

    async def __aenter__(self) -> Driver:
        if not self.per_message:
            self.clients = [self._client() for _ in range(SESSIONS)]
            await asyncio.gather(*(c.connect() for c in self.clients))
        return self

    async def __aexit__(self, *exc: object) -> None:
        await asyncio.gather(*(c.quit() for c in self.clients), return_exceptions=True)

    async def run(self, messages: list[bytes], seconds: float, rate: float | None = None) -> Result:
        """Sessions that each send as fast as they can (``rate`` None, closed loop), or together
        ``rate`` messages a second on a fixed schedule (open loop; latency then counts from the
        scheduled time, waiting for a free session included)."""
        latencies: list[float] = []
        failures = 0
        cpu = tree_cpu_seconds(self.pid) if self.pid else 0.0
        start = time.perf_counter()
        deadline = start + seconds
        jobs: asyncio.Queue[float | None] = asyncio.Queue()
        slots: list[aiosmtplib.SMTP | None] = [*self.clients] if self.clients else [None] * SESSIONS
        quitting: list[asyncio.Future[Any]] = []

        async def send(client: aiosmtplib.SMTP | None, i: int, since: float) -> None:
            nonlocal failures
            message = messages[i % len(messages)]
            own = self._client() if client is None else None
            try:
                if own is not None:
                    await own.connect()
                    await own.sendmail(SENDER, [RECIPIENT], message)
                else:
                    assert client is not None
                    await client.sendmail(SENDER, [RECIPIENT], message)
            except aiosmtplib.SMTPException:
                failures += 1
                if own is not None:
                    own.close()
                return
            latencies.append(time.perf_counter() - since)
            if own is not None:  # QUIT is not part of the latency: the message was accepted
                quitting.append(asyncio.ensure_future(own.quit()))

        async def closed(client: aiosmtplib.SMTP | None, n: int) -> None:
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
            for _ in slots:
                jobs.put_nowait(None)

        async def opened(client: aiosmtplib.SMTP | None, n: int) -> None:
            while (due := await jobs.get()) is not None:
                await send(client, n, due)
                n += SESSIONS

        if rate is None:
            await asyncio.gather(*(closed(c, n) for n, c in enumerate(slots)))
        else:
            await asyncio.gather(schedule(), *(opened(c, n) for n, c in enumerate(slots)))
        elapsed = time.perf_counter() - start
        await asyncio.gather(*quitting, return_exceptions=True)
        cpu = tree_cpu_seconds(self.pid) - cpu if self.pid else 0.0
        return Result(elapsed, latencies, failures, cpu)


async def drive(port: int, messages: list[bytes], seconds: float, rate: float | None = None) -> Result:
    """One path on its own: ``SESSIONS`` kept sessions for ``seconds``."""
    async with Driver(port) as d:
        return await d.run(messages, seconds, rate)


async def side_by_side(
    ports: Mapping[str, int],
    messages: list[bytes],
    seconds: float,
    rate: float | None = None,
    per_message: bool = False,
    pids: Mapping[str, int] | None = None,
) -> dict[str, Result]:
    """Every path for ``seconds`` in all, in ``SLICES`` turns (the order rotating each turn);
    ``pids``: the relay process of a path, whose CPU is taken over its own slices."""
    results = {name: Result() for name in ports}
    drivers = {name: Driver(port, per_message, (pids or {}).get(name)) for name, port in ports.items()}
    for d in drivers.values():
        await d.__aenter__()
    try:
        names = list(ports)
        for turn in range(SLICES):
            for name in names[turn % len(names) :] + names[: turn % len(names)]:
                results[name].add(await drivers[name].run(messages, seconds / SLICES, rate))
    finally:
        for d in drivers.values():
            await d.__aexit__()
    return results


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
def _row(
    case: str, value: float, unit: str, note: str, before: float | None = None, digits: int = 1
) -> dict[str, Any]:
    row = {"case": case, "value": round(value, digits), "unit": unit, "note": note}
    if before is not None:
        row["before"] = round(before, digits)
    return row


def run(quick: bool, base: Path | None = None) -> list[dict[str, Any]]:
    seconds = 4.0 if quick else 20.0
    rows: list[dict[str, Any]] = []
    trees = {"after": ROOT} if base is None else {"after": ROOT, "before": base}
    sizes = {"5 KB": [text_message(5 * 1024, s) for s in range(20)]}
    sizes["100 KB"] = [text_message(100 * 1024, s) for s in range(5)]
    # Before the relays start, so that nothing else runs in this process meanwhile.
    engine = {label: engine_ms(msgs) for label, msgs in sizes.items()}
    comp = Components(trees)
    try:
        bigs = {
            "5 MB text": text_message(5 * 1024 * 1024, 99),
            "5 MB attachment": attachment_message(int(3.7 * 1024 * 1024)),
        }
        modes = ("pass-through", "level 7")

        def paths(mode: str) -> dict[str, int]:
            return {"direct": comp.sink_port} | {t: comp.ports[t][mode] for t in trees}

        def pids(mode: str) -> dict[str, int]:
            return {t: comp.pids[t][mode] for t in trees}

        for port in [comp.sink_port, *(p for t in trees for p in comp.ports[t].values())]:
            asyncio.run(drive(port, sizes["5 KB"], 2.0))  # warm up every path

        def added(case: str, got: Mapping[str, Result], q: float, note: str) -> dict[str, Any]:
            d, r = got["direct"], got["after"]
            before = got["before"].pct(q) - d.pct(q) if "before" in got else None
            text = f"{note}: {r.pct(q):.1f} ms vs direct {d.pct(q):.1f} ms"
            return _row(f"{case}: added p{q * 100:.0f}", r.pct(q) - d.pct(q), "ms", text, before)

        capacity: dict[str, float] = {}
        for label, msgs in sizes.items():
            relay_cpu: dict[str, Result] = {}
            for mode in modes:
                got = asyncio.run(side_by_side(paths(mode), msgs, seconds, pids=pids(mode)))
                r = relay_cpu[mode] = got["after"]
                if mode == "level 7" and label == "5 KB":
                    capacity[label] = min(got[t].rate for t in trees)
                note = f"closed loop, {SESSIONS} sessions, {seconds:.0f} s; failures {r.failures}"
                before = got["before"].rate if "before" in got else None
                rows.append(
                    _row(
                        f"{label} {mode}: rate",
                        r.rate,
                        "msg/s",
                        f"{note}; direct {got['direct'].rate:.0f}",
                        before,
                    )
                )
                for q in (0.5, 0.99):
                    rows.append(added(f"{label} {mode}", got, q, "closed loop"))
                before = got["before"].cpu_ms if "before" in got else None
                rows.append(
                    _row(
                        f"{label} {mode}: relay CPU per message",
                        r.cpu_ms,
                        "ms",
                        f"relay process + scrub workers (/proc), closed loop, {len(r.latencies)} messages",
                        before,
                        digits=2,
                    )
                )
            r, passthrough = relay_cpu["level 7"], relay_cpu["pass-through"]
            rows.append(
                _row(
                    f"{label} level 7: engine CPU per message",
                    engine[label],
                    "ms",
                    "Scrubber in-process on the same bodies' text units (time.process_time), this tree",
                    digits=2,
                )
            )
            rows.append(
                _row(
                    f"{label} level 7: relay CPU / engine CPU",
                    r.cpu_ms / engine[label],
                    "x",
                    f"target <= 1.5x; pass-through relay {passthrough.cpu_ms:.2f} ms per message",
                    digits=2,
                )
            )
        # Open loop, well below capacity: the latency the relay adds, not a queue of our making.
        # A quarter of the level-7 capacity leaves one of its two workers free half the time
        # while the other holds the 5 MB message.
        small = sizes["5 KB"]
        rates = {"pass-through": PASSTHROUGH_RATE, "level 7": max(0.5, capacity["5 KB"] / 4)}
        for mode, rate in rates.items():
            got = asyncio.run(side_by_side(paths(mode), small, seconds, rate))
            for q in (0.5, 0.99):
                rows.append(
                    added(f"5 KB {mode} at {rate:.1f} msg/s", got, q, f"open loop, {SESSIONS} sessions")
                )
            if mode == "level 7":
                fresh = asyncio.run(side_by_side(paths(mode), small, seconds, rate, per_message=True))
                for q in (0.5, 0.99):
                    case = f"5 KB {mode} at {rate:.1f} msg/s, a session per message"
                    rows.append(added(case, fresh, q, "open loop, connect + EHLO + QUIT each"))
            for label, big in bigs.items():
                loaded: dict[str, tuple[Result, int]] = {}
                for tree in trees:
                    port = comp.ports[tree][mode]
                    loaded[tree] = asyncio.run(with_big_in_flight(port, small, seconds, rate, big))
                (after, sent), r = loaded["after"], got["after"]
                before = None
                if "before" in loaded:
                    before = loaded["before"][0].pct(0.99) - got["before"].pct(0.99)
                rows.append(
                    _row(
                        f"5 KB {mode} p99, {label} in flight",
                        after.pct(0.99) - r.pct(0.99),
                        "ms",
                        f"{rate:.1f} msg/s: p99 {after.pct(0.99):.1f} ms vs {r.pct(0.99):.1f} ms without, "
                        f"p50 {after.pct(0.5):.1f} ms; {sent} big done meanwhile; target <= +50 ms",
                        before,
                    )
                )
    finally:
        comp.close()
    return rows


def bench_rows(quick: bool) -> list[Mapping[str, Any]]:
    """The hook ``python -m load.bench`` calls."""
    return list[Mapping[str, Any]](run(quick))


def main() -> None:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="4 s per case instead of 20")
    p.add_argument("--base", type=Path, help="another checkout: its relays run too (the before column)")
    args = p.parse_args()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    print(f"$ python -m load.bench_smtp {' '.join(sys.argv[1:])}".rstrip())
    print(f"{time.strftime('%Y-%m-%dT%H:%MZ', time.gmtime())}, commit {commit.stdout.strip() or '?'}")
    print(f"load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores (shared machine: noisy)")
    rows = run(args.quick, args.base)
    before = "before" if args.base else ""
    print(f"{'case':<58} {'after':>9} {before:>9} unit   note")
    for row in rows:
        b = row.get("before")
        print(
            f"{row['case']:<58} {row['value']:>9} {'' if b is None else b:>9} {row['unit']:<6} {row['note']}"
        )


if __name__ == "__main__":
    main()
