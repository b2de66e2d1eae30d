"""One command for every benchmark: ``python -m load.bench`` prints one table.

    .venv/bin/python -m load.bench                    # everything, a few minutes
    .venv/bin/python -m load.bench --quick            # tiny streams, to check the harness works
    .venv/bin/python -m load.bench --sections presidio,scaling --save

Every section runs in its own child process (a fresh interpreter: no warm caches or memory
carried over from another section, one crash or hang costs one row). A section is a module that
exposes ``bench_rows(quick: bool) -> list[Row | Mapping]``; a module without that hook is run as
``python -m <module>`` (full runs only) and its own output is appended below the table. A module
that does not exist yet shows as "not available".
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import importlib
import importlib.util
import json
import os
import platform
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "load" / "results"
DEVSET = REPO.parent / "shared" / "devset" / "corpus.jsonl"

# Section name -> module; the order is the order of the table.
SECTIONS: dict[str, str] = {
    "engine": "load.bench_engine",
    "grammar": "load.bench_grammar",
    "kafka": "load.bench_kafka",
    "smtp": "load.bench_smtp",
    "presidio": "load.presidio_bench",
    "scaling": "load.scaling",
    "memory": "load.rss_soak",
}
ROW_MARK = "BENCH-ROW "
NO_HOOK = 3  # exit status of a child whose module has no bench_rows()
# One BLAS/OpenMP thread per process, so that "per core" figures mean one core.
CHILD_ENV = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


@dataclass(frozen=True)
class Row:
    """One line of the table. ``value`` is a number, or a word such as "not available"."""

    section: str
    case: str
    value: float | str
    unit: str = ""
    note: str = ""


# ---------------------------------------------------------------------------- streams
def devset_texts(channels: Sequence[str] = ("chat", "log")) -> list[str]:
    """Texts of the labelled corpus of the given channels (empty when the corpus is absent)."""
    if not DEVSET.exists():
        return []
    with DEVSET.open(encoding="utf-8") as f:
        recs = [json.loads(line) for line in f if line.strip()]
    return [r["text"] for r in recs if r.get("channel") in channels]


def chat_log_stream(n: int, seed: int = 1) -> list[str]:
    """``n`` messages alternating chat lines and log lines (load/streams.py; the devset until then)."""
    try:
        from load import streams
    except ImportError:
        pool = devset_texts()
        if not pool:
            raise RuntimeError("neither load/streams.py nor ../shared/devset is available") from None
        return [pool[(seed + i) % len(pool)] for i in range(n)]
    chats = streams.chat_lines((n + 1) // 2, seed=seed)
    logs = streams.log_lines(n // 2, seed=seed + 1)
    out = [m for pair in zip(chats, logs, strict=False) for m in pair]
    out.extend(chats[len(logs) :])
    return out


def rss_mb() -> float:
    """Resident set size of this process now, in MB."""
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def peak_rss_mb() -> float:
    """Highest resident set size this process has had, in MB (Linux reports KB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# ---------------------------------------------------------------------------- machine
def machine() -> list[str]:
    """What the numbers were measured on: cores, CPU, memory, Python, load, commit."""
    cpu = "unknown"
    with open("/proc/cpuinfo", encoding="utf-8") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    mem = "unknown"
    with open("/proc/meminfo", encoding="ascii") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                mem = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
                break
    commit = _git("rev-parse", "--short", "HEAD") or "unknown"
    if _git("status", "--porcelain", "--untracked-files=no", "--", "scrubber", "grammar", "load"):
        commit += " (with uncommitted changes)"
    load1, load5, _ = os.getloadavg()
    return [
        f"date: {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M UTC}",
        f"nproc: {os.cpu_count()} (usable by this process: {len(os.sched_getaffinity(0))})",
        f"cpu: {cpu}",
        f"memory: {mem}",
        f"python: {platform.python_version()} ({platform.platform()})",
        f"load average at start: {load1:.2f} (1 min), {load5:.2f} (5 min)",
        f"commit: {commit}",
    ]


def _git(*args: str) -> str:
    try:
        out = subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return out.stdout.strip() if out.returncode == 0 else ""


# ---------------------------------------------------------------------------- running sections
def _as_row(section: str, item: object) -> Row:
    """A Row from a hook's item: a Row (or any dataclass with its fields) or a mapping."""
    if dataclasses.is_dataclass(item) and not isinstance(item, type):
        item = dataclasses.asdict(item)
    if not isinstance(item, Mapping):
        raise TypeError(f"bench_rows() of {section} gave a {type(item).__name__}, not a row")
    return Row(
        section=str(item.get("section", section)),
        case=str(item["case"]),
        value=item["value"],
        unit=str(item.get("unit", "")),
        note=str(item.get("note", "")),
    )


def child(section: str, quick: bool) -> int:
    """Run one section in this process and print its rows as JSON lines."""
    module = importlib.import_module(SECTIONS[section])
    hook = getattr(module, "bench_rows", None)
    if hook is None:
        return NO_HOOK
    rows: Iterable[object] = hook(quick)
    for item in rows:
        print(ROW_MARK + json.dumps(dataclasses.asdict(_as_row(section, item))), flush=True)
    return 0


def _env() -> dict[str, str]:
    env = dict(os.environ, **CHILD_ENV)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    return env


def _run(cmd: list[str], timeout: float, stderr: int | None) -> subprocess.CompletedProcess[str]:
    """Run ``cmd`` in its own process group; past ``timeout`` the whole group is killed.

    Sections start brokers, relays and worker pools; killing only the direct child would leave
    those running.
    """
    with subprocess.Popen(
        cmd, cwd=REPO, env=_env(), stdout=subprocess.PIPE, stderr=stderr, text=True, start_new_session=True
    ) as proc:
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.communicate(timeout=5)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.communicate()
            raise
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def run_section(section: str, quick: bool, timeout: float) -> tuple[list[Row], str]:
    """Rows of one section (run in a child process) and any raw output to show below the table."""
    module = SECTIONS[section]
    if importlib.util.find_spec(module) is None:
        return [Row(section, "-", "not available", note=f"{module} does not exist yet")], ""
    cmd = [sys.executable, "-m", "load.bench", "--child", section, *(["--quick"] if quick else [])]
    t0 = time.monotonic()
    try:
        proc = _run(cmd, timeout, stderr=None)
    except subprocess.TimeoutExpired:
        return [Row(section, "-", "timed out", note=f"no result after {timeout:.0f} s")], ""
    if proc.returncode == NO_HOOK:
        return _raw_section(section, quick, timeout)
    rows = [
        Row(**json.loads(line[len(ROW_MARK) :]))
        for line in proc.stdout.splitlines()
        if line.startswith(ROW_MARK)
    ]
    if proc.returncode != 0:
        rows.append(Row(section, "-", "failed", note=f"exit status {proc.returncode}; see stderr above"))
    elif not rows:
        rows.append(Row(section, "-", "no rows", note=f"{module}.bench_rows() returned nothing"))
    sys.stderr.write(f"bench: {section} done in {time.monotonic() - t0:.0f} s\n")
    return rows, ""


def _raw_section(section: str, quick: bool, timeout: float) -> tuple[list[Row], str]:
    module = SECTIONS[section]
    if quick:
        return [Row(section, "-", "not run", note=f"--quick, and {module} has no bench_rows() hook")], ""
    try:
        proc = _run([sys.executable, "-m", module], timeout, stderr=subprocess.PIPE)
    except subprocess.TimeoutExpired:
        return [
            Row(section, "-", "timed out", note=f"python -m {module}: no result after {timeout:.0f} s")
        ], ""
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no message"])[-1]
        return [
            Row(section, "-", "failed", note=f"python -m {module}: exit {proc.returncode}: {last[:80]}")
        ], ""
    return [Row(section, "-", "see below", note=f"output of python -m {module}")], (
        f"--- python -m {module}\n{proc.stdout.rstrip()}\n"
    )


# ---------------------------------------------------------------------------- the table
def fmt_value(value: float | str, unit: str) -> str:
    if isinstance(value, str):
        return value
    if unit == "x":
        return f"{value:.1f}x"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    return f"{value:.3f}"


def render(rows: Sequence[Row]) -> str:
    head = ("section", "case", "value", "unit", "note")
    cells = [head, *((r.section, r.case, fmt_value(r.value, r.unit), r.unit, r.note) for r in rows)]
    widths = [max(len(c[i]) for c in cells) for i in range(4)]
    lines = []
    for k, c in enumerate(cells):
        left = f"{c[0]:<{widths[0]}}  {c[1]:<{widths[1]}}  {c[2]:>{widths[2]}}  {c[3]:<{widths[3]}}"
        lines.append(f"{left}  {c[4]}".rstrip())
        if k == 0:
            lines.append("-" * max(len(line) for line in lines))
    return "\n".join(lines)


def _sections(spec: str | None) -> list[str]:
    if not spec:
        return list(SECTIONS)
    names = [s.strip() for s in spec.split(",") if s.strip()]
    unknown = [s for s in names if s not in SECTIONS]
    if unknown:
        raise SystemExit(f"bench: unknown section {unknown[0]!r} (known: {', '.join(SECTIONS)})")
    return names


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m load.bench", description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="tiny streams and short runs (checks the harness)")
    ap.add_argument("--sections", help=f"comma-separated subset of: {', '.join(SECTIONS)}")
    ap.add_argument("--timeout", type=float, help="seconds per section (default 300 quick, 1800 full)")
    ap.add_argument("--save", action="store_true", help="also write the report to load/results/")
    ap.add_argument("--out", type=Path, help="also write the report to this file")
    ap.add_argument("--json", type=Path, help="also write the rows as JSON to this file")
    ap.add_argument("--child", choices=list(SECTIONS), help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.child:
        return child(a.child, a.quick)
    timeout = a.timeout or (300.0 if a.quick else 1800.0)
    started = datetime.datetime.now(datetime.UTC)
    described = machine()  # before the run: the load average is the background load
    rows: list[Row] = []
    raw: list[str] = []
    for section in _sections(a.sections):
        sys.stderr.write(f"bench: running {section}...\n")
        got, text = run_section(section, a.quick, timeout)
        rows.extend(got)
        if text:
            raw.append(text)
    cmdline = "python -m load.bench " + " ".join(argv if argv is not None else sys.argv[1:])
    report = "\n".join(
        [
            f"$ {cmdline.strip()}",
            *described,
            "",
            render(rows),
            *(["", *raw] if raw else []),
        ]
    )
    print(report)
    targets = [a.out] if a.out else []
    if a.save:
        targets.append(RESULTS / f"bench-{started:%Y%m%d-%H%M}.txt")
    if a.json:
        data = [dataclasses.asdict(r) for r in rows]
        a.json.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    for path in targets:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(report + "\n", encoding="utf-8")
        sys.stderr.write(f"bench: report written to {path}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
