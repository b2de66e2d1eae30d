"""Where the engine's time goes: a pyinstrument profile of one level on one stream, as text.

    .venv/bin/pip install -e '.[bench]'                  # pyinstrument
    .venv/bin/python -m load.profile_engine              # writes load/results/profile-L7-chatlog.txt
    .venv/bin/python -m load.profile_engine --stream dense   # the PII-dense lines: profile-L7-dense.txt
    .venv/bin/python -m load.profile_engine --n 20000 --level 4 --out /tmp/profile.txt

Streams: ``chatlog`` is ``load.bench``'s chat/log stream (29% of lines hold a value, short
lines); ``dense`` is ``load.traffic``'s PII-dense lines (about half hold a value, ~190 B, chat
mixed with key=value and JSON logs); ``prose`` is its 2 KB e-mail prose (``--n`` e-mails).

The report has three parts: self time by area (our modules one by one, each library as a
whole), the top functions by self time, and pyinstrument's call tree with library internals
folded. Time in C code counts for the Python frame that ran it: regex matching driven by
``list(pattern.finditer(...))`` is self time of the detector that wrote that line.
Percentages are of the profiled wall time; the sampling interval is 0.5 ms.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from load.bench import RESULTS, Row, chat_log_stream, machine, render
from scrubber.dial import Policy
from scrubber.engine import Scrubber

if TYPE_CHECKING:
    from pyinstrument.frame import Frame
    from pyinstrument.session import Session

BATCH = 64
TOP = 30
MODEL_AREAS = frozenset({"spacy", "thinc", "numpy", "cymem", "preshed", "murmurhash", "blis"})


def _area(path: str | None) -> str | None:
    """A short name for where code lives; None for C built-ins (they count for their caller)."""
    if not path or path.startswith("<"):
        return None
    p = path.replace("\\", "/")
    if "/site-packages/" in p:
        return p.split("/site-packages/", 1)[1].split("/", 1)[0].removesuffix(".py")
    for root in ("/scrubber/", "/load/"):
        if root in p:
            return root.strip("/") + "/" + p.rsplit(root, 1)[1]
    if not p.startswith("/"):  # compiled extensions report package-relative paths
        return p.split("/", 1)[0]
    if "/python3." in p:
        rest = p.split("/python3.", 1)[1].split("/", 1)[-1]
        return "stdlib " + rest.split("/", 1)[0].removesuffix(".py")
    return p


def summarise(session: Session, top: int = TOP) -> str:
    """Self time by area and by function, from a pyinstrument session."""
    root = session.root_frame()
    if root is None:
        return "no samples"
    total = root.time or 1e-9
    by_area: dict[str, float] = defaultdict(float)
    by_function: dict[str, float] = defaultdict(float)

    def walk(frame: Frame, area: str) -> None:
        own = _area(frame.file_path) or area
        if not frame.is_synthetic:
            by_area[own] += frame.total_self_time
            where = frame.code_position_short() or "built-in"
            by_function[f"{frame.function}  ({where})"] += frame.total_self_time
        for c in frame.children:
            walk(c, own)

    walk(root, "interpreter (no Python frame)")
    lines = ["self time by area (C calls count for the Python code that made them)"]
    for name, t in sorted(by_area.items(), key=lambda kv: -kv[1]):
        if t / total >= 0.002:
            lines.append(f"  {100 * t / total:5.1f}%  {name}")
    model = sum(t for name, t in by_area.items() if name in MODEL_AREAS)
    lines += [
        f"  {100 * model / total:5.1f}%  spaCy model in all ({', '.join(sorted(MODEL_AREAS))})",
        "          (pyinstrument loses the caller of thinc's compiled code: a top-level 'gemm'",
        "          in the call tree below is the parser's matrix multiply)",
        "",
        f"top {top} functions by self time",
    ]
    for name, t in sorted(by_function.items(), key=lambda kv: -kv[1])[:top]:
        lines.append(f"  {100 * t / total:5.1f}%  {name}")
    return "\n".join(lines)


STREAMS = ("chatlog", "dense", "prose")


def _stream(name: str, n: int) -> list[str]:
    from load import traffic

    if name == "dense":
        return traffic.dense_lines(n, seed=1)
    if name == "prose":
        return traffic.email_prose(n, seed=1)
    return chat_log_stream(n, seed=1)


def profile(n: int, level: int, stream_name: str = "chatlog") -> str:
    from pyinstrument import Profiler
    from pyinstrument.renderers import ConsoleRenderer

    stream = _stream(stream_name, n)
    scrubber = Scrubber(Policy(level=level))
    scrubber.scrub_many(stream[:BATCH])  # first-use costs are not the steady state
    profiler = Profiler(interval=0.0005)
    c0 = time.process_time()
    profiler.start()
    for i in range(0, n, BATCH):
        scrubber.scrub_many(stream[i : i + BATCH])
    profiler.stop()
    cpu = time.process_time() - c0
    session = profiler.last_session
    assert session is not None
    rate = Row("profile", f"engine L{level} under the profiler, {n:,} {stream_name} msgs", n / cpu, "msg/s")
    tree = ConsoleRenderer(unicode=False, color=False, time="percent_of_total").render(session)
    detectors = ", ".join(d.name for d in scrubber.detectors)
    text = "\n".join(
        [
            f"# Profile: Scrubber(Policy(level={level})).scrub_many, batches of {BATCH}, "
            f"{n:,} {stream_name} messages",
            f"# $ python -m load.profile_engine --n {n} --level {level} --stream {stream_name}",
            *(f"# {line}" for line in machine()),
            f"# detectors: {detectors}",
            "",
            render([rate]),
            "(the profiler itself slows the engine down; take rates from load.bench)",
            "",
            summarise(session),
            "",
            "call tree",
            tree.rstrip(),
        ]
    )
    return text + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m load.profile_engine", description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=10_000, help="messages (default 10000)")
    ap.add_argument("--level", type=int, default=7)
    ap.add_argument("--stream", choices=STREAMS, default="chatlog", help="which traffic (default chatlog)")
    ap.add_argument(
        "--out", type=Path, help="report file (default load/results/profile-L<level>-<stream>.txt)"
    )
    a = ap.parse_args(argv)
    if importlib.util.find_spec("pyinstrument") is None:
        sys.stderr.write("profile_engine: pyinstrument is not installed: pip install -e '.[bench]'\n")
        return 2
    text = profile(a.n, a.level, a.stream)
    out = a.out or RESULTS / f"profile-L{a.level}-{a.stream}.txt"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    print(text)
    sys.stderr.write(f"profile_engine: written to {out}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
