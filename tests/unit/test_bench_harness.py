"""The benchmark harness (load/bench.py) runs end to end on tiny streams and reports every section.

No timing is asserted: only that each section yields its rows, that missing pieces (an area
module not written yet, Presidio not installed) are reported as such, and that a section that
overruns its time limit becomes a row instead of hanging the run.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from load import bench

REPO = Path(__file__).resolve().parents[2]
# Kafka and SMTP start a broker or a relay and take minutes even with --quick; their own
# integration tests cover those paths. Every other section runs here.
SECTIONS = [s for s in bench.SECTIONS if s not in ("kafka", "smtp")]


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, list[dict[str, Any]]]:
    """``python -m load.bench --quick --sections ...``: its printed report and its rows as JSON."""
    rows_file = tmp_path_factory.mktemp("bench") / "rows.json"
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "load.bench",
            "--quick",
            "--sections",
            ",".join(SECTIONS),
            "--json",
            str(rows_file),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout, json.loads(rows_file.read_text(encoding="utf-8"))


def _rows(rows: list[dict[str, Any]], section: str) -> dict[str, Any]:
    return {r["case"]: r for r in rows if r["section"] == section}


def test_report_describes_the_machine(quick_run: tuple[str, list[dict[str, Any]]]) -> None:
    report, _ = quick_run
    assert report.startswith("$ python -m load.bench --quick")
    for key in ("nproc:", "cpu:", "memory:", "python:", "commit:"):
        assert f"\n{key} " in report, key


def test_every_section_has_a_row(quick_run: tuple[str, list[dict[str, Any]]]) -> None:
    report, rows = quick_run
    sections = {r["section"] for r in rows}
    for section in SECTIONS:
        module = bench.SECTIONS[section]
        if section == "presidio":
            assert {"presidio", "recall"} <= sections
        else:
            assert section in sections, section
        if importlib.util.find_spec(module) is None:
            assert _rows(rows, section)["-"]["value"] == "not available"
    for r in rows:
        assert r["value"] not in ("failed", "timed out"), r
        assert f"{r['section']:<8}" in report and r["case"] in report


def test_scrubber_and_presidio_side_by_side(quick_run: tuple[str, list[dict[str, Any]]]) -> None:
    _, rows = quick_run
    speed = _rows(rows, "presidio")
    streams = {"chat/log stream": 400, "dense chat/log": 400, "e-mail prose 2 KB": 40}
    for stream, n in streams.items():
        ours = speed[f"scrubber L7, {stream} ({n} msgs)"]
        assert isinstance(ours["value"], float) and ours["value"] > 0 and ours["unit"] == "msg/s"
    recall = _rows(rows, "recall")
    assert 0.0 < recall["scrubber: recall L7"]["value"] <= 1.0
    if importlib.util.find_spec("presidio_analyzer") is None:
        for stream in streams:
            assert speed[f"presidio, {stream}"]["value"] == "not available"
            assert "not installed" in speed[f"presidio, {stream}"]["note"]
        assert recall["presidio: recall L7"]["value"] == "not available"
    else:
        for stream in streams:
            ratio = speed[f"speed ratio scrubber / presidio, {stream} (same msgs)"]
            assert ratio["unit"] == "x" and ratio["value"] > 0
        assert 0.0 < recall["presidio: recall L7"]["value"] <= 1.0


def test_engine_rows_cover_every_stream_and_size(quick_run: tuple[str, list[dict[str, Any]]]) -> None:
    _, rows = quick_run
    engine = _rows(rows, "engine")
    for stream in ("chat", "log", "email 2KB", "mixed", "dense", "prose 2KB", "dense+mail"):
        n = 30 if stream.endswith("2KB") else 300
        for level in (4, 7):
            row = engine[f"L{level} all detectors, {stream} ({n} msgs)"]
            assert row["unit"] == "msg/s" and row["value"] > 0, row
    # 300 lines of --quick: the 48 % share give or take sampling noise (test_traffic_streams
    # checks the share on 4,000 lines).
    assert 0.35 <= engine["stream dense: share of messages with a value"]["value"] <= 0.6
    assert engine["stream prose 2KB: share of messages with a value"]["value"] == 1.0
    for kind in ("dense", "sparse", "oneline"):
        for size in ("200", "2,000", "20,000"):
            assert engine[f"L7 cost per KB, {kind} text, {size} B"]["value"] > 0
        assert engine[f"L7 cost per KB, {kind}, 200 B .. 20,000 B: max / min"]["value"] >= 1.0


def test_scaling_and_memory_rows(quick_run: tuple[str, list[dict[str, Any]]]) -> None:
    _, rows = quick_run
    scaling = _rows(rows, "scaling")
    assert scaling["chat/log: 2 workers / 1 worker"]["unit"] == "x"
    assert scaling["dense chat/log: 2 workers / 1 worker"]["unit"] == "x"
    memory = _rows(rows, "memory")
    peak = memory["peak RSS, one worker, L7"]
    assert peak["value"] > memory["RSS before the engine (interpreter + imports)"]["value"] > 0
    assert {"soak L7: RSS at start", "soak L7: RSS at end", "soak L7: growth start -> end"} <= set(memory)


def test_a_section_over_its_time_limit_becomes_a_row() -> None:
    rows, raw = bench.run_section("memory", quick=True, timeout=0.5)
    assert [(r.section, r.value) for r in rows] == [("memory", "timed out")]
    assert raw == ""


@pytest.mark.parametrize(
    ("value", "unit", "text"),
    [
        (12345.6, "msg/s", "12,346"),
        (27.41, "MB", "27.4"),
        (0.7912, "", "0.791"),
        (5.93, "x", "5.9x"),
        ("n/a", "", "n/a"),
    ],
)
def test_values_are_formatted_for_reading(value: float | str, unit: str, text: str) -> None:
    assert bench.fmt_value(value, unit) == text


def test_hook_rows_may_be_mappings_or_dataclasses() -> None:
    as_map = bench._as_row("kafka", {"case": "e2e L7", "value": 900.0, "unit": "msg/s"})
    assert as_map == bench.Row("kafka", "e2e L7", 900.0, "msg/s", "")
    assert bench._as_row("kafka", as_map) == as_map
    with pytest.raises(TypeError, match="kafka"):
        bench._as_row("kafka", ("e2e", 1.0))


def test_cost_per_kb_side_by_side() -> None:
    # Two trees (here: this one twice), each in a child process; one row per text and tree.
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "load.bench_sizes",
            "--base",
            str(REPO),
            "--sizes",
            "200,3000",
            "--repeat",
            "1",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "\nnproc: " in out.stdout and "\nload average at the end: " in out.stdout
    rows = {tuple(line.split()[:2]): line.split()[2:] for line in out.stdout.splitlines()[-6:]}
    kinds = ("dense", "sparse", "oneline")
    assert set(rows) == {(kind, tree) for kind in kinds for tree in ("before", "after")}
    for cells in rows.values():
        per_kb = [float(c.replace(",", "")) for c in cells[:2]]
        assert all(us > 0 for us in per_kb)
        assert abs(float(cells[2].rstrip("x")) - max(per_kb) / min(per_kb)) < 0.02
