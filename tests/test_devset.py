"""Floors on the labelled development corpus (../shared/devset), so detection cannot silently regress.

``scrubber scan`` runs once per dial level on the whole corpus, as a user runs it; each row of
FLOORS is one slice of the result (some entities, partial spans or not) with the recall and
precision it must keep, counted by the rules of ../shared/tools/score.py (see
load/devset_score.py). To pin another slice, add a row.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from load.devset_score import DEVSET, GRAMMAR_ENTITIES, score_module, slice_scores
from load.devset_score import scan as scan_file
from scrubber.dial import ENTITY_LEVELS

REPO = Path(__file__).resolve().parent.parent
PATTERN_ENTITIES = frozenset(ENTITY_LEVELS) - GRAMMAR_ENTITIES


def up_to(level: int, among: frozenset[str] = PATTERN_ENTITIES) -> frozenset[str]:
    return frozenset(e for e in among if ENTITY_LEVELS[e] <= level)


@dataclass(frozen=True)
class Floor:
    name: str
    level: int  # the dial level `scrubber scan` runs at
    entities: frozenset[str]
    partial: bool | None  # False: whole values only; True: partial spans only; None: both
    recall: float
    precision: float


# Reached at level 7 (whole values of the pattern entities): recall 1.000, precision 0.999;
# per entity 1.000 / >= 0.99. The floors leave a little room, not a lot.
FLOORS = [
    Floor("pattern entities", 7, PATTERN_ENTITIES, False, 0.99, 0.98),
    *(Floor(e, 7, frozenset({e}), False, 0.97, 0.95) for e in sorted(PATTERN_ENTITIES)),
    Floor("pattern entities at level 2", 2, up_to(2), False, 0.99, 0.98),
]


@cache
def scan(level: int) -> dict[str, Any]:
    """Predictions of ``scrubber scan --level N`` on the devset, by id."""
    if not DEVSET.is_file():
        pytest.fail(f"the devset is missing: {DEVSET} (../shared/devset beside the checkout)")
    return scan_file(DEVSET, level)


@cache
def gold() -> tuple[dict[str, Any], list[str]]:
    return score_module().load_gold(str(DEVSET))  # type: ignore[no-any-return]


@pytest.mark.parametrize("floor", FLOORS, ids=[f"L{f.level} {f.name}" for f in FLOORS])
def test_floor(floor: Floor) -> None:
    records, order = gold()
    got = slice_scores(records, order, scan(floor.level), floor.entities, floor.partial)
    assert got.gold > 0
    assert got.recall >= floor.recall, f"recall {got.recall:.3f}; missed {got.missed[:10]}"
    assert got.precision >= floor.precision, f"precision {got.precision:.3f}; wrong {got.wrong[:10]}"


@pytest.mark.parametrize("level", [2, 4])
def test_nothing_above_the_level_is_found(level: int) -> None:
    above = {e for e, lv in ENTITY_LEVELS.items() if lv > level}
    findings = [f for p in scan(level).values() for f in p["findings"]]
    assert findings
    assert not [f for f in findings if f["entity"] in above]


def test_hard_negatives_stay_almost_untouched() -> None:
    records, order = gold()
    negatives = [rid for rid in order if not records[rid]["spans"]]
    flagged = [rid for rid in negatives if scan(7)[rid]["findings"]]
    # Reached: 0 of 351 records with a finding. A few would be tolerable; a trend is not.
    assert len(flagged) <= len(negatives) // 100, flagged[:10]


def test_no_in_scope_value_leaks_at_level_7() -> None:
    records, order = gold()
    result = score_module().score(records, order, scan(7), 7)
    leaked = sum(result["entities"][e]["leaked"] for e in PATTERN_ENTITIES)
    checked = sum(result["entities"][e]["leak_checked"] for e in PATTERN_ENTITIES)
    assert checked > 0
    assert leaked / checked <= 0.01
