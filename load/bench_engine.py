"""Engine throughput: messages/s and MB/s per dial level and stream, and cost as size grows.

    .venv/bin/python -m load.bench_engine                 # levels 1, 4, 7; 5000 lines per stream
    .venv/bin/python -m load.bench_engine --levels 0-7 --n 20000
    .venv/bin/python -m load.bench_engine --sizes-only    # cost per KB, 200 B to 4 MB

Two engines per level: ``patterns`` (the pattern detectors only) and ``full`` (every detector
the policy asks for, the grammar/name detectors included). Streams: today's chat, log, short
e-mail and mixed streams (``load.streams``), and the traffic-shaped ones (``load.traffic``):
PII-dense chat/log lines, 2 KB e-mail prose, and the dense lines with a 2 KB e-mail every
tenth message. Times are CPU time of this process (``time.process_time``), so they stand for
one core even on a busy machine; they are still noisy when other processes share the core and
its caches. Each figure is the best of ``--repeat`` runs. Messages go through ``scrub`` one at
a time, as a transport sends them.

The size table scrubs single messages of 200 B to 4 MB made of dense lines (48 % hold a value),
of sparse ones (5 %), and of the dense lines joined into one line; cost per KB should stay flat
as a message grows.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from load import streams, traffic
from scrubber.detectors.patterns import PatternDetector
from scrubber.dial import Policy
from scrubber.engine import Scrubber

SIZES = (200, 2_000, 20_000, 200_000, 1_000_000, 4_000_000)
# Characters scrubbed per size and run: many small messages, or one large one.
SIZE_BUDGET = 400_000
# Text kinds of the size table: the share of lines that hold a value, and whether the lines are
# joined into one line (a batch of events shipped without line breaks, a minified JSON array).
DENSITY = {"dense": (0.48, False), "sparse": (0.05, False), "oneline": (0.48, True)}
# Besides Scrubber.warm_up (the parser): a long message, whose first scrub loads more.
LONG_WARM_UP = traffic.block(30_000, seed=98)


def _best(fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return max(best, 1e-9)


def _run(scrubber: Scrubber, texts: Sequence[str]) -> None:
    for t in texts:
        scrubber.scrub(t)


def _levels(spec: str) -> list[int]:
    out: list[int] = []
    for part in spec.split(","):
        lo, _, hi = part.partition("-")
        out.extend(range(int(lo), int(hi or lo) + 1))
    return out


def engines(level: int) -> dict[str, Scrubber]:
    full = Scrubber(Policy(level=level))
    patterns = [d for d in full.detectors if isinstance(d, PatternDetector)]
    out = {"patterns": Scrubber(Policy(level=level), detectors=patterns), "full": full}
    for scrubber in out.values():
        scrubber.warm_up()
        scrubber.scrub(LONG_WARM_UP)
    # As a scrub worker does once it is ready (scrubber.workers): what is loaded stays out of
    # the cyclic collector's full passes.
    gc.collect()
    gc.freeze()
    return out


def data(n: int) -> dict[str, list[str]]:
    """The streams, ``n`` lines each (e-mail streams: ``n / 10`` mails)."""
    mails = max(1, n // 10)
    return {
        "chat": streams.chat_lines(n, seed=1),
        "log": streams.log_lines(n, seed=2),
        "email 2KB": streams.email_bodies(mails, seed=3, size=2_000),
        "mixed": streams.mixed(n, seed=4),
        "dense": traffic.dense_lines(n, seed=6),
        "prose 2KB": traffic.email_prose(mails, seed=7),
        "dense+mail": traffic.dense_mixed(n, seed=8),
    }


def measure(levels: Sequence[int], n: int, repeat: int) -> list[dict[str, Any]]:
    """One row per level, engine and stream: msgs/s and MB/s per core."""
    streams_ = data(n)
    out = []
    for level in levels:
        for engine, scrubber in engines(level).items():
            for name, texts in streams_.items():
                _run(scrubber, texts[:200])  # warm up: phonenumbers metadata, the parser
                secs = _best(lambda s=scrubber, t=texts: _run(s, t), repeat)
                mb = sum(len(t.encode("utf-8")) for t in texts) / 1e6
                out.append(
                    {
                        "level": level,
                        "engine": engine,
                        "stream": name,
                        "msgs": len(texts),
                        "secs": secs,
                        "mb": mb,
                    }
                )
    return out


def described(n: int) -> dict[str, list[traffic.Sample]]:
    """The traffic-shaped streams with their values (the same messages as ``data``)."""
    return {
        "dense": traffic.dense_samples(n, seed=6),
        "prose 2KB": traffic.email_prose_samples(max(1, n // 10), seed=7),
    }


def throughput(levels: Sequence[int], n: int, repeat: int) -> None:
    for name, samples in described(n).items():
        print(f"{name}: {traffic.describe(samples)}")
    print(f"{'level':>5} {'engine':<9} {'stream':<11} {'msgs':>6} {'msgs/s':>10} {'MB/s':>7} {'us/msg':>8}")
    for m in measure(levels, n, repeat):
        secs, msgs = m["secs"], m["msgs"]
        print(
            f"{m['level']:>5} {m['engine']:<9} {m['stream']:<11} {msgs:>6} {msgs / secs:>10,.0f} "
            f"{m['mb'] / secs:>7.2f} {secs / msgs * 1e6:>8.1f}"
        )


def cost_per_kb(level: int, repeat: int, sizes: Sequence[int] = SIZES) -> dict[str, dict[int, float]]:
    """CPU us per KB of one message of each size, dense and sparse (the full engine)."""
    scrubber = engines(level)["full"]
    out: dict[str, dict[int, float]] = {}
    for kind, (pii, one_line) in DENSITY.items():
        for size in sizes:
            count = max(1, SIZE_BUDGET // size)
            texts = [traffic.block(size, seed=seed, pii=pii) for seed in range(count)]
            if one_line:
                texts = [t.replace("\n", " ") for t in texts]
            runs = repeat if size < 1_000_000 else 1  # one run of a 4 MB message takes seconds
            secs = _best(lambda t=texts: _run(scrubber, t), runs)
            out.setdefault(kind, {})[size] = secs / count * 1e6 / (size / 1000)
    return out


def size_table(tables: dict[str, dict[str, dict[int, float]]]) -> str:
    """``cost_per_kb`` tables (one per tree or engine, by label) as one text table, rows side by side."""
    sizes = sorted({size for table in tables.values() for per in table.values() for size in per})
    lines = [f"{'text':<7} {'tree':<8}" + "".join(f"{size:>11,}" for size in sizes) + f"{'max/min':>9}"]
    kinds = list(next(iter(tables.values())))
    for kind in kinds:
        for label, table in tables.items():
            per = table[kind]
            spread = max(per.values()) / min(per.values())
            cells = "".join(f"{per[s]:>11,.0f}" for s in sizes)
            lines.append(f"{kind:<7} {label:<8}" + cells + f"{spread:>8.2f}x")
    return "\n".join(lines)


def bench_rows(quick: bool) -> list[dict[str, Any]]:
    """Rows for ``python -m load.bench``: level 4 and 7 on every stream, then cost per KB."""
    n, repeat = (300, 1) if quick else (5_000, 3)
    rows = [
        {
            "case": f"stream {name}: share of messages with a value",
            "value": sum(1 for s in samples if s.values) / len(samples),
            "unit": "",
            "note": traffic.describe(samples),
        }
        for name, samples in described(n).items()
    ]
    for m in measure([4, 7], n, repeat):
        if m["engine"] != "full":
            continue
        secs, msgs = m["secs"], m["msgs"]
        rows.append(
            {
                "case": f"L{m['level']} all detectors, {m['stream']} ({msgs:,} msgs)",
                "value": msgs / secs,
                "unit": "msg/s",
                "note": f"per core (CPU time); {m['mb'] / secs:.2f} MB/s; {secs / msgs * 1e6:.0f} us/msg",
            }
        )
    sizes = SIZES[:3] if quick else SIZES
    for kind, per in cost_per_kb(7, repeat, sizes).items():
        for size, us in per.items():
            rows.append({"case": f"L7 cost per KB, {kind} text, {size:,} B", "value": us, "unit": "us/KB"})
        spread = max(per.values()) / min(per.values())
        rows.append(
            {
                "case": f"L7 cost per KB, {kind}, {sizes[0]:,} B .. {sizes[-1]:,} B: max / min",
                "value": spread,
                "unit": "x",
                "note": "target <= 1.5x",
            }
        )
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench_engine", description=__doc__.split("\n\n")[0])
    ap.add_argument("--levels", default="1,4,7", help="e.g. 7, 1-7, 0,4,7 (default 1,4,7)")
    ap.add_argument("--n", type=int, default=5000, help="lines per stream (default 5000; mails: n / 10)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per figure, best kept (default 3)")
    ap.add_argument("--sizes-only", action="store_true", help="only the cost per KB table")
    a = ap.parse_args(argv)
    level = max(_levels(a.levels))
    if not a.sizes_only:
        throughput(_levels(a.levels), a.n, a.repeat)
    print(f"\ncost per KB (us) as a message grows (level {level}, full engine, one message of each size)")
    print(size_table({"this": cost_per_kb(level, a.repeat)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
