"""Floors on the probe set (tests/data/probes.txt): short chat, e-mail and log lines written for
this repo, not taken from the devset, half of them hard negatives (order and tracking numbers,
versions, prices, timestamps, ports, product codes, dates that are not birth dates, products and
places that look like names). The devset is nearly saturated; these lines say how detection does
on phrasings it was not tuned on.

``probes.txt`` is the source (one probe a line, gold spans marked ``[[ENTITY:value]]``);
``probes.jsonl`` is the same in the devset's format, for ``../shared/tools/score.py``. After
editing the source, rebuild with ``python tests/unit/test_probes.py``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from marks import dump_probes, parse_probes, scored

REPO = Path(__file__).resolve().parents[2]
SOURCE = REPO / "tests" / "data" / "probes.txt"
GOLD = REPO / "tests" / "data" / "probes.jsonl"

# Reached at level 7 (2026-11-25): recall 1.000, precision 0.995, 1 of 172 hard negatives with a
# finding ("upgraded the router to 2.4.10.9"), leak 0.000. The floors leave a little room. Since
# the name model (2026-11-27): precision 0.979, 4 hard negatives flagged; it takes three
# products and a bank for names ("Hey Siri", "Jenkins and Grafana", "Wells Fargo", "the Marshall
# amp"), the price of finding names that no phrase announces.
RECALL = 0.97
PRECISION = 0.97
NEGATIVES_FLAGGED = 4
LEAK = 0.03


def parse() -> list[dict[str, Any]]:
    return parse_probes(SOURCE)


def test_jsonl_is_built_from_the_source() -> None:
    assert GOLD.read_text(encoding="utf-8") == dump_probes(parse()), (
        "rebuild: python tests/unit/test_probes.py"
    )


def test_the_set_is_balanced() -> None:
    records = parse()
    negatives = [r for r in records if not r["spans"]]
    assert len(records) >= 250
    assert len(negatives) >= len(records) * 0.45
    from scrubber.dial import ENTITY_LEVELS

    assert {s["entity"] for r in records for s in r["spans"]} == set(ENTITY_LEVELS)


def result() -> dict[str, Any]:
    return scored(GOLD)


def test_recall_floor() -> None:
    got = result()["micro"]["recall"]
    assert got >= RECALL, f"recall {got:.3f}; missed {result()['missed'][:15]}"


def test_precision_floor() -> None:
    got = result()["micro"]["precision"]
    assert got >= PRECISION, f"precision {got:.3f}"


def test_hard_negatives_stay_untouched() -> None:
    over = result()["over_masking"]
    assert over["negative_records"] > 100
    assert over["negative_records_flagged"] <= NEGATIVES_FLAGGED, over


def test_leak_ceiling() -> None:
    got = result()["leak"]["leak_rate"]
    assert got is not None
    assert got <= LEAK, f"leak {got:.3f}; {result()['leak']['leaked_ids'][:15]}"


if __name__ == "__main__":
    if not (REPO / "tests" / "data").is_dir():
        pytest.exit("run from the repository")
    GOLD.write_text(dump_probes(parse()), encoding="utf-8")
    print(f"wrote {GOLD}")
