"""Fuzzing the JSON route: documents with values planted under all kinds of keys, and broken
bytes, through the route's record scrubber (the transform a Kafka json route runs).

The defined outcomes of one record: quarantined with a known reason, or a value that is JSON of
the same shape (the same keys in the same order, the same values but for the scrubbed strings)
with no planted value left; a record with nothing found comes out byte for byte. CI runs a
short, derandomized pass; ``FUZZ_SECONDS`` runs it long (see tests/fuzz/fuzzing.py).
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from scrubber.config import KafkaRoute
from scrubber.dial import Policy
from scrubber.engine import Scrubber
from scrubber.kafka.transform import Outcome, RouteScrubber
from tests.fuzz.fuzzing import Counter, checks, repeat

KNOWN_REASONS = {"invalid_json", "too_large", "regex_timeout", "time_budget", "detector_error"}
PLANTED = ["jane.roe@example.com", "4539 1488 0343 6467", "DE89 3704 0044 0532 0130 00", "ssn 536-22-8173"]
KEYS = ["message", "email", "note", "user", "name", "data", "k", "", "ключ", "a.b", "items"]
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=30),
    st.sampled_from(PLANTED),
)
documents = st.recursive(
    scalars,
    lambda kids: st.one_of(
        st.lists(kids, max_size=5),
        st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=8), kids, max_size=5),
    ),
    max_leaves=25,
)
CHECKS = checks(short=80, long=300)
DOCUMENT_RUNS = Counter()
BYTES_RUNS = Counter()


@cache
def route_scrubber() -> RouteScrubber:
    route = KafkaRoute(input="in", output="out", format="json")
    return RouteScrubber(route, Scrubber(Policy(level=7), time_budget=30.0), max_bytes=1_000_000)


def scrub(value: bytes) -> Outcome:
    (out,) = route_scrubber().run([(value, None)], budget=30)
    if out.reason is not None:
        assert out.reason in KNOWN_REASONS, out.reason
        assert out.value is None
    return out


def same_shape(before: Any, after: Any) -> None:
    """``after`` has ``before``'s structure; only strings may differ."""
    if isinstance(before, dict):
        assert isinstance(after, dict) and list(after) == list(before)
        for k in before:
            same_shape(before[k], after[k])
    elif isinstance(before, list):
        assert isinstance(after, list) and len(after) == len(before)
        for b, a in zip(before, after, strict=True):
            same_shape(b, a)
    elif isinstance(before, str):
        assert isinstance(after, str)
    else:
        assert after == before


def strings(doc: Any) -> list[str]:
    if isinstance(doc, dict):
        return [s for v in doc.values() for s in strings(v)]
    if isinstance(doc, list):
        return [s for v in doc for s in strings(v)]
    return [doc] if isinstance(doc, str) else []


@CHECKS
@given(doc=documents, indent=st.sampled_from([None, 2]), ascii_only=st.booleans())
def _documents(doc: Any, indent: int | None, ascii_only: bool) -> None:
    DOCUMENT_RUNS()
    value = json.dumps(doc, indent=indent, ensure_ascii=ascii_only).encode()
    out = scrub(value)
    if out.reason is not None:
        return
    assert out.value is not None
    after = json.loads(out.value)
    same_shape(doc, after)
    assert not [s for s in strings(after) if s in PLANTED]
    if out.summary == b"{}":
        assert out.value == value  # nothing found: byte for byte


@CHECKS
@given(doc=documents, cuts=st.lists(st.tuples(st.integers(0, 500), st.binary(max_size=4)), max_size=4))
def _broken(doc: Any, cuts: list[tuple[int, bytes]]) -> None:
    BYTES_RUNS()
    data = bytearray(json.dumps(doc).encode())
    for at, junk in cuts:
        data[at : at + len(junk)] = junk
    out = scrub(bytes(data))
    if out.reason is None and out.value is not None:
        json.loads(out.value)


def test_json_documents_keep_their_shape_and_lose_planted_values() -> None:
    repeat(_documents, DOCUMENT_RUNS, "json documents")


def test_broken_json_is_quarantined_or_scrubbed() -> None:
    repeat(_broken, BYTES_RUNS, "json bytes")
