"""End-to-end Kafka proxy benchmark: messages/s, latency and the proxy's CPU per record.

    .venv/bin/python -m load.bench_kafka                       # 100k PII-dense lines, levels 4 and 7
    .venv/bin/python -m load.bench_kafka --stream chatlog      # the short chat/log lines instead
    .venv/bin/python -m load.bench_kafka --messages 5000 --rate 200 --scrub-processes 1
    .venv/bin/python -m load.bench_kafka --scrub-processes 0,1,2        # one table per setting

One Tansu broker (in memory, loopback) for the whole run. For each mode — pass-through (the
same proxy, records parsed and re-encoded, no detectors) and each dial level — the proxy runs in
a child process on its own topics, and this process drives it with confluent-kafka:

- throughput: the input topic is filled first, then the proxy starts; the rate is the number of
  records over the time from the first to the last output record (group join excluded);
- latency: with the proxy caught up, records are produced at a fixed rate for a few seconds;
  latency is the output's arrival time minus the input record's timestamp (ms resolution).

CPU per record, the figure that stays meaningful on a shared machine:

- proxy: the CPU time (user + system, from /proc) of the proxy's process and its scrub worker
  processes while the backlog drained (from the proxy being ready, its workers warmed up, to
  the last output record), over the records; the broker and this driver do not count;
- engine: the same records scrubbed in this process by the engine alone (``Scrubber``, warmed
  up, ``scrub_many`` in the proxy's slices of 64), ``time.process_time`` over the records; run
  before the broker starts, so that no Kafka client thread shares this process;
- the ratio of the two is what the proxy adds around the engine: reading and writing records,
  the event loop, and sending each slice to a worker process and back.

The machine is shared and has 2 cores (broker, proxy and this driver all compete): treat the
rates as rough and compare modes within one run; the CPU figures move much less with load.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import multiprocessing
import os
import signal
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import confluent_kafka
from confluent_kafka.admin import AdminClient, NewTopic

from load import traffic
from load.bench import chat_log_stream
from load.proctree import tree_cpu_seconds
from scrubber import config, embedded
from scrubber.config import KafkaConfig, LimitsConfig
from scrubber.dial import Policy
from scrubber.engine import Scrubber
from scrubber.kafka.transform import SLICE, engine_scrubber

PARTITIONS = 3
STREAMS = {"dense": traffic.dense_lines, "chatlog": chat_log_stream}
STREAM_NAMES = {"dense": "PII-dense chat/log lines (load/traffic.py)", "chatlog": "chat/log stream"}
# Records per throughput run. Pass-through drains 20,000 in about 0.3 s here, too short a window
# for a steady rate (two runs differed by 45 %); 100,000 keep each mode busy for seconds.
MESSAGES = 100_000


def passthrough_scrubber(policy: Policy, limits: LimitsConfig) -> Scrubber:
    """The engine with no detectors: the pipeline's own cost, nothing found."""
    return Scrubber(policy, detectors=[])


def _run_proxy(doc: dict[str, Any], passthrough: bool, ready: Any) -> None:
    """Child process: run one KafkaProxy until SIGTERM."""
    # By its module's name: scrub processes cannot import this run's __main__ (or __mp_main__).
    from load.bench_kafka import passthrough_scrubber
    from scrubber.kafka.proxy import KafkaProxy, engine_scrubber
    from scrubber.service import run_loop

    settings = config.parse(doc)

    async def main() -> None:
        stop = asyncio.Event()
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
        proxy = KafkaProxy(settings, make_scrubber=passthrough_scrubber if passthrough else engine_scrubber)
        await proxy.start()
        ready.set()
        await stop.wait()
        await proxy.stop()

    # On the event loop `scrubber run` would use (uvloop when installed).
    run_loop(main(), settings.event_loop)


@dataclass
class Result:
    mode: str
    messages: int
    rate: float
    p50_ms: float
    p99_ms: float
    cpu_us: float  # busy CPU time of the whole machine per record while the backlog drained
    proxy_us: float  # CPU of the proxy process and its scrub workers per record, same window
    engine_us: float  # CPU of the engine alone in this process per record, the same records

    @property
    def ratio(self) -> float:
        return self.proxy_us / self.engine_us if self.engine_us else float("nan")


def machine_busy_seconds() -> float:
    """CPU seconds all processes of this machine have spent busy (user, system, interrupts).

    Broker, proxy, scrub processes and this driver share the cores: the busy time per record
    says what one record costs the machine, which is what the rates of the modes trade against.
    """
    with open("/proc/stat", encoding="ascii") as f:
        user, nice, system, _idle, _iowait, irq, softirq = (int(x) for x in f.readline().split()[1:8])
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


def engine_us(level: int, texts: list[str]) -> float:
    """CPU microseconds per record of the engine alone on ``texts``, as a scrub worker builds
    and calls it (pass-through: no detectors), in this process."""
    make = passthrough_scrubber if level == 0 else engine_scrubber
    scrubber = make(Policy(level=level), LimitsConfig())
    scrubber.warm_up()
    t0 = time.process_time()
    for i in range(0, len(texts), SLICE):
        scrubber.scrub_many(texts[i : i + SLICE])
    return (time.process_time() - t0) / len(texts) * 1e6


class Run:
    def __init__(self, bootstrap: str, scrub_processes: int) -> None:
        self.bootstrap = bootstrap
        self.scrub_processes = scrub_processes
        self.admin = AdminClient({"bootstrap.servers": bootstrap})
        self.producer = confluent_kafka.Producer(
            {
                "bootstrap.servers": bootstrap,
                "linger.ms": 5,
                "acks": "all",
                "queue.buffering.max.messages": 1_000_000,
            }
        )

    def topics(self, *names: str) -> None:
        futures = self.admin.create_topics([NewTopic(n, PARTITIONS, 1) for n in names])
        for f in futures.values():
            f.result(10)

    def fill(self, topic: str, texts: list[str]) -> None:
        for i, text in enumerate(texts):
            self.producer.produce(topic, text.encode(), key=str(i).encode())
            if i % 10_000 == 0:
                self.producer.poll(0)
        self.producer.flush(60)

    def consumer(self, topic: str, offsets: list[int] | None = None) -> confluent_kafka.Consumer:
        """A reader of ``topic`` from ``offsets`` (one per partition), or from the start."""
        c = confluent_kafka.Consumer(
            {
                "bootstrap.servers": self.bootstrap,
                "group.id": f"bench-reader-{topic}",
                "enable.auto.commit": False,
                "fetch.wait.max.ms": 10,
            }
        )
        starts = offsets or [confluent_kafka.OFFSET_BEGINNING] * PARTITIONS
        c.assign([confluent_kafka.TopicPartition(topic, p, starts[p]) for p in range(PARTITIONS)])
        return c

    def mode(
        self, name: str, level: int, texts: list[str], rate: float, seconds: float, engine: float
    ) -> Result:
        tag = f"{name.replace(' ', '-')}-{self.scrub_processes}-{os.getpid()}"
        raw, clean, quarantine = f"bench-in-{tag}", f"bench-out-{tag}", f"bench-q-{tag}"
        self.topics(raw, clean, quarantine)
        self.fill(raw, texts)
        doc = {
            "level": level,
            "kafka": {
                "bootstrap_servers": self.bootstrap,
                "group_id": f"bench-{tag}",
                "quarantine_topic": quarantine,
                "session_timeout_ms": 2000,
                "heartbeat_interval_ms": 300,
                "scrub_processes": self.scrub_processes,
                "routes": [{"in": raw, "out": clean}],
            },
        }
        ctx = multiprocessing.get_context("spawn")
        ready = ctx.Event()
        child = ctx.Process(target=_run_proxy, args=(doc, name == "pass-through", ready))
        child.start()
        reader = self.consumer(clean)
        try:
            deadline = time.monotonic() + 180
            while not ready.wait(0.5):
                if not child.is_alive() or time.monotonic() > deadline:
                    raise RuntimeError(f"{name}: the proxy did not start (exit code {child.exitcode})")
            assert child.pid is not None
            own_start = tree_cpu_seconds(child.pid)
            # Throughput: drain the backlog.
            first = last = None
            busy_first = 0.0
            ends = [0] * PARTITIONS
            got = 0
            deadline = time.monotonic() + 600
            while got < len(texts) and time.monotonic() < deadline:
                for m in reader.consume(1000, 0.5):
                    if m.error() is None:
                        ends[m.partition()] = m.offset() + 1
                        got += 1
                        now = time.monotonic()
                        if first is None:
                            first, busy_first = now, machine_busy_seconds()
                        last = now
            busy = machine_busy_seconds() - busy_first
            own = tree_cpu_seconds(child.pid) - own_start
            if got < len(texts) or first is None or last is None or last <= first:
                raise RuntimeError(f"{name}: only {got} of {len(texts)} records came out")
            throughput = got / (last - first)
            # Latency: a steady offered rate the proxy can keep up with. A fresh reader: one that
            # has just caught up with a backlog delivered records ~120 ms late here.
            reader.close()
            reader = self.consumer(clean, ends)
            latencies = self.latency(raw, reader, texts, rate, seconds)
        finally:
            reader.close()
            if child.pid is not None:
                os.kill(child.pid, signal.SIGTERM)
            child.join(60)
            if child.is_alive():
                child.kill()
        q = statistics.quantiles(latencies, n=100)
        us = 1e6 / len(texts)
        return Result(name, len(texts), throughput, q[49], q[98], busy * us, own * us, engine)

    def latency(
        self, topic: str, reader: confluent_kafka.Consumer, texts: list[str], rate: float, seconds: float
    ) -> list[float]:
        n = max(100, int(rate * seconds))
        start = time.time()
        sent = 0
        out: list[float] = []
        while len(out) < n:
            due = min(n, int((time.time() - start) * rate) + 1)
            while sent < due:
                self.producer.produce(topic, texts[sent % len(texts)].encode(), key=b"lat")
                sent += 1
            self.producer.poll(0)
            for m in reader.consume(500, 0.002):
                if m.error() is None:
                    _kind, ts = m.timestamp()
                    out.append(time.time() * 1000 - ts)
            if time.time() - start > seconds * 10 + 60:
                raise RuntimeError("latency phase: records did not come out")
        return out


def run(
    messages: int,
    levels: list[int],
    rate: float,
    seconds: float,
    scrub_processes: list[int],
    stream: str = "dense",
) -> list[list[Result]]:
    """For each ``scrub_processes`` setting: pass-through, then each level (one broker for all)."""
    texts = STREAMS[stream](messages)
    engine = {lv: engine_us(lv, texts) for lv in [0, *levels]}
    out = []
    with tempfile.TemporaryDirectory(prefix="bench-kafka-") as tmp:
        broker = embedded.Broker.start(embedded.port_or_free(19092), Path(tmp) / "tansu.log")
        try:
            for n in scrub_processes:
                r = Run(broker.bootstrap, n)
                results = [r.mode("pass-through", 0, texts, rate, seconds, engine[0])]
                results += [r.mode(f"level {lv}", lv, texts, rate, seconds, engine[lv]) for lv in levels]
                out.append(results)
        finally:
            broker.stop()
    return out


def table(results: list[Result], rate: float, scrub_processes: int, stream: str = "dense") -> str:
    base = results[0].rate
    passthrough = results[0].proxy_us
    executor = "thread" if scrub_processes == 0 else f"{scrub_processes} process(es)"
    load = os.getloadavg()[0]
    loop = "uvloop" if importlib.util.find_spec("uvloop") else "asyncio"  # event_loop: auto
    lines = [
        f"Kafka proxy end to end, {STREAM_NAMES[stream]}, {PARTITIONS} partitions, "
        f"scrubbing in a {executor}; "
        f"latency at {rate:.0f} msg/s offered; {loop} event loop; "
        f"load average {load:.1f} on {os.cpu_count()} cores",
        f"{'mode':<14}{'messages':>9}{'msg/s':>10}{'of pass':>9}{'p50 ms':>9}{'p99 ms':>9}"
        f"{'proxy us':>10}{'engine us':>11}{'proxy/eng':>11}{'pass us':>9}{'machine us':>12}",
    ]
    for res in results:
        lines.append(
            f"{res.mode:<14}{res.messages:>9}{res.rate:>10.0f}{res.rate / base:>9.0%}"
            f"{res.p50_ms:>9.1f}{res.p99_ms:>9.1f}{res.proxy_us:>10.0f}{res.engine_us:>11.0f}"
            f"{res.ratio:>10.2f}x{passthrough:>9.0f}{res.cpu_us:>12.0f}"
        )
    lines += [
        "proxy us: CPU of the proxy process and its scrub workers (/proc) per record, backlog drain",
        "engine us: CPU of the engine alone per record, same records, this process (time.process_time)",
        "proxy/eng: their ratio (issue 18's target at level 7: 1.5x or less); pass us: pass-through's",
        "machine us: busy CPU of the whole machine (broker, proxy, workers, this driver) per record",
    ]
    return "\n".join(lines)


def bench_rows(quick: bool) -> list[dict[str, Any]]:
    """Rows for ``python -m load.bench``."""
    rate = 200.0
    n = KafkaConfig.scrub_processes
    (results,) = run(2000 if quick else MESSAGES, [4, 7], rate, 2 if quick else 5, [n])
    base = results[0].rate
    return [
        {
            "case": f"{res.mode}, PII-dense lines, {res.messages} msgs",
            "value": round(res.rate),
            "unit": "msg/s",
            "note": f"{res.rate / base:.0%} of pass-through; p50 {res.p50_ms:.1f} ms, "
            f"p99 {res.p99_ms:.1f} ms at {rate:.0f} msg/s; CPU per record: proxy {res.proxy_us:.0f} us, "
            f"engine {res.engine_us:.0f} us ({res.ratio:.2f}x), "
            f"pass-through proxy {results[0].proxy_us:.0f} us, "
            f"machine {res.cpu_us:.0f} us",
        }
        for res in results
    ]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m load.bench_kafka", description=__doc__.split("\n\n")[0])
    p.add_argument("--messages", type=int, default=MESSAGES, help="records per throughput run")
    p.add_argument("--levels", default="4,7", help="dial levels to compare with pass-through")
    p.add_argument(
        "--stream",
        choices=sorted(STREAMS),
        default="dense",
        help="dense: load/traffic.py's PII-dense lines (default); chatlog: load/streams.py's chat/log lines",
    )
    p.add_argument("--rate", type=float, default=200.0, help="offered msg/s in the latency phase")
    p.add_argument("--seconds", type=float, default=5.0, help="length of the latency phase")
    p.add_argument(
        "--scrub-processes",
        default=str(KafkaConfig.scrub_processes),
        help="kafka.scrub_processes (0: a thread; default: the config default); "
        "a comma-separated list compares settings in one run",
    )
    args = p.parse_args(argv)
    levels = [int(x) for x in args.levels.split(",") if x]
    settings = [int(x) for x in args.scrub_processes.split(",") if x]
    print(f"$ python -m load.bench_kafka {' '.join(sys.argv[1:] if argv is None else argv)}".rstrip())
    tables = run(args.messages, levels, args.rate, args.seconds, settings, args.stream)
    for n, results in zip(settings, tables, strict=True):
        print(table(results, args.rate, n, args.stream))
    return 0


if __name__ == "__main__":
    sys.exit(main())
