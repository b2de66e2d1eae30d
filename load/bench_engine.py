"""Engine throughput: messages/s and MB/s per dial level and stream, and cost as size grows.

    .venv/bin/python -m load.bench_engine                 # levels 1, 4, 7; 5000 chat/log lines
    .venv/bin/python -m load.bench_engine --levels 0-7 --n 20000
    .venv/bin/python -m load.bench_engine --sizes-only

Two engines per level: ``patterns`` (the pattern detectors only) and ``full`` (every detector
the policy asks for, the grammar/name detectors included). Times are CPU time of this process
(``time.process_time``), so they stand for one core even on a busy machine; they are still
noisy when other processes share the core and its caches. Each figure is the best of
``--repeat`` runs. Messages go through ``scrub`` one at a time, as a transport sends them.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence

from load import streams
from scrubber.detectors.patterns import PatternDetector
from scrubber.dial import Policy
from scrubber.engine import Scrubber

SIZES = (200, 2_000, 20_000, 200_000)


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
    return {"patterns": Scrubber(Policy(level=level), detectors=patterns), "full": full}


def throughput(levels: Sequence[int], n: int, repeat: int) -> None:
    data = {
        "chat": streams.chat_lines(n, seed=1),
        "log": streams.log_lines(n, seed=2),
        "email 2KB": streams.email_bodies(max(1, n // 10), seed=3, size=2_000),
        "mixed": streams.mixed(n, seed=4),
    }
    print(f"{'level':>5} {'engine':<9} {'stream':<10} {'msgs':>6} {'msgs/s':>10} {'MB/s':>7} {'us/msg':>8}")
    for level in levels:
        for engine, scrubber in engines(level).items():
            for name, texts in data.items():
                _run(scrubber, texts[:200])  # warm up: phonenumbers metadata, the parser
                secs = _best(lambda s=scrubber, t=texts: _run(s, t), repeat)
                mb = sum(len(t.encode("utf-8")) for t in texts) / 1e6
                print(
                    f"{level:>5} {engine:<9} {name:<10} {len(texts):>6} {len(texts) / secs:>10,.0f} "
                    f"{mb / secs:>7.2f} {secs / len(texts) * 1e6:>8.1f}"
                )


def scaling(level: int, repeat: int) -> None:
    print(f"\ncost per message as size grows (level {level}, e-mail bodies)")
    print(f"{'engine':<9} {'bytes':>8} {'msgs':>5} {'us/msg':>10} {'us/KB':>8}")
    for engine, scrubber in engines(level).items():
        for size in SIZES:
            count = max(2, 400_000 // size)
            texts = streams.email_bodies(count, seed=5, size=size)
            _run(scrubber, texts[:2])
            secs = _best(lambda s=scrubber, t=texts: _run(s, t), repeat)
            per = secs / count * 1e6
            print(f"{engine:<9} {size:>8} {count:>5} {per:>10.1f} {per / (size / 1000):>8.1f}")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench_engine", description=__doc__.split("\n\n")[0])
    ap.add_argument("--levels", default="1,4,7", help="e.g. 7, 1-7, 0,4,7 (default 1,4,7)")
    ap.add_argument("--n", type=int, default=5000, help="chat/log lines per stream (default 5000)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per figure, best kept (default 3)")
    ap.add_argument("--sizes-only", action="store_true", help="only the size scaling table")
    a = ap.parse_args(argv)
    if not a.sizes_only:
        throughput(_levels(a.levels), a.n, a.repeat)
    scaling(max(_levels(a.levels)), a.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
