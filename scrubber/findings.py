"""Findings and the rule that decides between overlapping ones."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import accumulate

from scrubber.dial import ENTITY_LEVELS


@dataclass(frozen=True, slots=True)
class Finding:
    """A span of the input ``[start, end)`` that holds a value of ``entity``."""

    start: int
    end: int
    entity: str
    score: float
    detector: str

    def as_dict(self) -> dict[str, object]:
        return {
            "start": self.start,
            "end": self.end,
            "entity": self.entity,
            "score": round(self.score, 3),
            "detector": self.detector,
        }


class Spans:
    """Findings of one text, to ask which of them span or touch a given span: a look-up, not a
    walk over them all (a long message has thousands of findings, and as many spans to ask
    about)."""

    __slots__ = ("_ends", "_found", "_starts")

    def __init__(self, found: Sequence[Finding]) -> None:
        self._found = sorted(found, key=lambda f: f.start)
        self._starts = [f.start for f in self._found]
        # The furthest end among the first i+1 findings: walking back stops where none reaches.
        self._ends = list(accumulate((f.end for f in self._found), max))

    def __bool__(self) -> bool:
        return bool(self._found)

    def covers(self, start: int, end: int) -> bool:
        """Whether a finding spans at least [start, end)."""
        i = bisect_right(self._starts, start) - 1
        return i >= 0 and self._ends[i] >= end

    def overlaps(self, start: int, end: int) -> bool:
        """Whether a finding shares a character with [start, end)."""
        i = bisect_left(self._starts, end) - 1
        return i >= 0 and self._ends[i] > start

    def spanning(self, start: int, end: int) -> list[Finding]:
        """The findings that span at least [start, end)."""
        out = []
        i = bisect_right(self._starts, start) - 1
        while i >= 0 and self._ends[i] >= end:
            f = self._found[i]
            if f.end >= end:
                out.append(f)
            i -= 1
        return out


def rank(f: Finding) -> tuple[float, int, int, int]:
    """Sort key of the better of two findings: smaller is better.

    Higher score first, then the wider span, then the more sensitive entity (lower dial level),
    then the earlier start, so that the outcome never depends on detector order.
    """
    return (-f.score, f.start - f.end, _LEVELS.get(f.entity, 99), f.start)


# A plain dict, looked up faster than the read-only view, for every finding ranked.
_LEVELS = dict(ENTITY_LEVELS)


def resolve(findings: Iterable[Finding]) -> list[Finding]:
    """Merge overlapping findings into non-overlapping ones, sorted by start.

    Overlapping findings form a cluster; the cluster's best finding names the entity and the
    cluster's union is the span, so a value is never half masked by two entities.
    """
    ordered = sorted(findings, key=lambda f: (f.start, -f.end))
    if len(ordered) == 1:  # the common case: one finding, its own cluster
        return ordered if ordered[0].end > ordered[0].start else []
    out: list[Finding] = []
    cluster: list[Finding] = []
    end = -1
    for f in ordered:
        if f.end <= f.start:
            continue
        if cluster and f.start < end:
            cluster.append(f)
            end = max(end, f.end)
            continue
        if cluster:
            out.append(_merge(cluster, end))
        cluster, end = [f], f.end
    if cluster:
        out.append(_merge(cluster, end))
    return out


def _merge(cluster: list[Finding], end: int) -> Finding:
    if len(cluster) == 1:
        return cluster[0]
    best = min(cluster, key=rank)
    start = cluster[0].start
    if best.start == start and best.end == end:
        return best
    return Finding(start, end, best.entity, best.score, best.detector)
