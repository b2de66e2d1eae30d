"""Spans answers what a walk over every finding would, with a look-up."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from scrubber.findings import Finding, Spans

_SPAN = st.tuples(st.integers(0, 60), st.integers(1, 12)).map(
    lambda p: Finding(p[0], p[0] + p[1], "X", 0.9, "t")
)


@given(st.lists(_SPAN, max_size=12), st.integers(0, 70), st.integers(1, 10))
def test_spans_agree_with_a_walk_over_every_finding(found: list[Finding], start: int, width: int) -> None:
    spans, end = Spans(found), start + width
    assert spans.covers(start, end) == any(f.start <= start and end <= f.end for f in found)
    assert spans.overlaps(start, end) == any(f.start < end and start < f.end for f in found)
    assert sorted(spans.spanning(start, end), key=id) == sorted(
        (f for f in found if f.start <= start and end <= f.end), key=id
    )
    assert bool(spans) == bool(found)


def test_touching_is_not_overlapping() -> None:
    spans = Spans([Finding(5, 9, "X", 0.9, "t")])
    assert not spans.overlaps(0, 5) and not spans.overlaps(9, 12)
    assert spans.overlaps(8, 12) and spans.covers(5, 9) and not spans.covers(4, 9)
