"""Multi-process scaling of the engine: the same stream through 1 and through 2 worker processes.

    .venv/bin/python -m load.scaling                 # 60,000 chat/log and 15,000 dense lines, level 7
    .venv/bin/python -m load.scaling --n 50000 --workers 1,2

Each worker is a spawned process that builds its own ``Scrubber(Policy(level=7))`` (model
loaded) and receives the whole stream before the clock starts; a ``multiprocessing`` pool then
hands out share numbers (the worker scrubs its share in ``scrub_many`` batches) and only a count
comes back, so the figure is the engine's and not the pickling of messages or results.
Wall-clock time: on a machine shared with other work the ratio is
noisy, so runs alternate between the pools and each figure is the best of three.
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import multiprocessing.synchronize
import os
import sys
import time
from collections.abc import Sequence

from load import traffic
from load.bench import Row, chat_log_stream, machine, render
from scrubber.dial import Policy
from scrubber.engine import Scrubber

BATCH = 64
_scrubber: Scrubber | None = None
_batches: list[Sequence[str]] = []
PARTS_PER_WORKER = 8  # shares of the stream per worker, so that no worker idles at the end


def _init(level: int, stream: Sequence[str], ready: multiprocessing.synchronize.Barrier) -> None:
    global _scrubber, _batches
    _scrubber = Scrubber(Policy(level=level))
    _scrubber.scrub_many(chat_log_stream(BATCH, seed=99))  # first-use costs before the clock starts
    _batches = [stream[i : i + BATCH] for i in range(0, len(stream), BATCH)]
    ready.wait()


def _work(part: tuple[int, int]) -> int:
    """Scrub share ``index`` of ``parts`` of the stream (every worker holds all of it)."""
    assert _scrubber is not None
    index, parts = part
    return sum(len(r.findings) for b in _batches[index::parts] for r in _scrubber.scrub_many(b))


def rates(workers: Sequence[int], stream: Sequence[str], level: int, repeat: int) -> dict[int, float]:
    """Best messages/s (wall clock) over ``stream`` for each worker count.

    Every worker gets the whole stream once, before the clock starts; a run hands out only
    share numbers, so the parent's pickling does not take CPU from the workers it measures.
    All pools are started (and idle) first; then the runs alternate between them, so that a
    burst of other work on the machine falls on both sides of the comparison alike.
    """
    ctx = multiprocessing.get_context("spawn")
    ready = ctx.Barrier(sum(workers) + 1)
    best = dict.fromkeys(workers, 0.0)
    with contextlib.ExitStack() as stack:
        pools = {
            w: stack.enter_context(ctx.Pool(w, initializer=_init, initargs=(level, list(stream), ready)))
            for w in workers
        }
        ready.wait(timeout=300)
        for _ in range(repeat):
            for w, pool in pools.items():
                parts = w * PARTS_PER_WORKER
                t0 = time.perf_counter()
                pool.map(_work, [(i, parts) for i in range(parts)], chunksize=1)
                best[w] = max(best[w], len(stream) / (time.perf_counter() - t0))
    return best


def bench_rows(
    quick: bool, n: int | None = None, workers: Sequence[int] = (1, 2), level: int = 7
) -> list[Row]:
    """Both streams: today's chat/log lines, and the PII-dense lines (a quarter as many: each
    costs about four times as much)."""
    n = n or (1_000 if quick else 60_000)
    repeat = 1 if quick else 3
    cores = len(os.sched_getaffinity(0))
    rows = []
    for label, stream in (
        ("chat/log", chat_log_stream(n, seed=1)),
        ("dense chat/log", traffic.dense_lines(max(1, n // 4), seed=1)),
    ):
        sys.stderr.write(
            f"scaling: {label}, {', '.join(map(str, workers))} worker process(es), {repeat} rounds\n"
        )
        load_before = os.getloadavg()[0]
        best = rates(workers, stream, level, repeat)
        load_after = os.getloadavg()[0]
        note = (
            f"best of {repeat}; {cores} cores; load average {load_before:.1f} before, {load_after:.1f} after"
        )
        rows += [
            Row(
                "scaling",
                f"engine L{level}, {label}, {w} worker process(es), {len(stream):,} msgs",
                r,
                "msg/s",
                note,
            )
            for w, r in best.items()
        ]
        lo, hi = min(best), max(best)
        if hi != lo:
            ideal = f"ideal {hi / lo:.1f}x"
            rows.append(
                Row("scaling", f"{label}: {hi} workers / {lo} worker", best[hi] / best[lo], "x", ideal)
            )
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m load.scaling", description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=60_000, help="messages in the stream (default 60000)")
    ap.add_argument("--workers", default="1,2", help="worker counts to compare (default 1,2)")
    ap.add_argument("--level", type=int, default=7)
    a = ap.parse_args(argv)
    header = machine()
    rows = bench_rows(False, a.n, [int(w) for w in a.workers.split(",")], a.level)
    print("\n".join([*header, "", render(rows)]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
