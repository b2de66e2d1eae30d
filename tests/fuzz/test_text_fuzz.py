"""Fuzzing the text engine: arbitrary text with values planted in it, invisible characters
thrown in, never a crash, never a planted value left, never a change outside a finding.

The defined outcomes of one text: a ScrubResult whose text is the input with each finding's span
replaced (and nothing else changed), or a ScrubError with a known reason. CI runs a short,
derandomized pass; ``FUZZ_SECONDS`` runs it long (see tests/fuzz/fuzzing.py).
"""

from __future__ import annotations

from functools import cache

from hypothesis import given
from hypothesis import strategies as st

from scrubber.dial import OperatorSpec, Policy
from scrubber.engine import Scrubber, ScrubError, ScrubResult
from tests.fuzz.fuzzing import Counter, checks, repeat

KNOWN_REASONS = {"regex_timeout", "time_budget", "too_large", "detector_error"}
# Values found whatever stands around them on their own line.
PLANTED = [
    "jane.roe@example.com",
    "4539 1488 0343 6467",
    "4111-1111-1111-1111",
    "DE89 3704 0044 0532 0130 00",
    "ssn 536-22-8173",
    "+44 20 7946 0018",
]
INVISIBLE = ["\x00", "\u00ad", "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u200e", "\x07"]
WORDS = ["card", "ssn", "my", "is", "call", "order", "zip", "dob", "name", "Hi", "Dear", "thanks", "-", ":"]
noise = st.one_of(st.text(max_size=30), st.sampled_from(WORDS), st.sampled_from(INVISIBLE))
texts = st.lists(noise, max_size=20).map(" ".join)
CHECKS = checks(short=80, long=300)
PLANTED_RUNS = Counter()
ARBITRARY_RUNS = Counter()


@cache
def engine(op: str = "label") -> Scrubber:
    return Scrubber(Policy(level=7, default_operator=OperatorSpec(op)), time_budget=30.0)


def outcome(scrubber: Scrubber, text: str) -> ScrubResult | None:
    try:
        return scrubber.scrub(text)
    except ScrubError as exc:
        assert exc.reason in KNOWN_REASONS, exc.reason
        return None


def check_spans(text: str, result: ScrubResult) -> None:
    """Findings are sorted, disjoint, inside the text, and only they changed."""
    last = 0
    rebuilt: list[str] = []
    for f in result.findings:
        assert last <= f.start < f.end <= len(text), (f, len(text))
        rebuilt.append(text[last : f.start])
        rebuilt.append(f"[{f.entity}]")
        last = f.end
    rebuilt.append(text[last:])
    assert "".join(rebuilt) == result.text


@st.composite
def planted_texts(draw: st.DrawFn) -> tuple[str, str]:
    value = draw(st.sampled_from(PLANTED))
    if draw(st.booleans()):  # an invisible character inside the value
        cut = draw(st.integers(1, len(value) - 1))
        value = value[:cut] + draw(st.sampled_from(INVISIBLE)) + value[cut:]
    return f"{draw(texts)}\n{value}\n{draw(texts)}", value


@CHECKS
@given(case=planted_texts(), more=st.lists(texts, max_size=3))
def _planted(case: tuple[str, str], more: list[str]) -> None:
    PLANTED_RUNS()
    text, value = case
    result = outcome(engine(), text)
    if result is None:
        return
    check_spans(text, result)
    assert f"\n{value}\n" not in result.text, (value, result.text)
    # A batch gives what one call per text gives.
    batch = [text, *more]
    try:
        together = engine().scrub_many(batch)
    except ScrubError as exc:
        assert exc.reason in KNOWN_REASONS, exc.reason
        return
    alone = [outcome(engine(), t) for t in batch]
    assert [r.text for r in together] == [r.text if r else None for r in alone]


@CHECKS
@given(text=st.text(max_size=2000))
def _arbitrary(text: str) -> None:
    ARBITRARY_RUNS()
    result = outcome(engine(), text)
    if result is None:
        return
    check_spans(text, result)
    # The operator changes what replaces a value, never what is found.
    masked = outcome(engine("mask"), text)
    if masked is not None:
        assert [(f.start, f.end, f.entity) for f in masked.findings] == [
            (f.start, f.end, f.entity) for f in result.findings
        ]


def test_planted_values_never_survive() -> None:
    repeat(_planted, PLANTED_RUNS, "text planted")


def test_arbitrary_text_keeps_everything_outside_findings() -> None:
    repeat(_arbitrary, ARBITRARY_RUNS, "text arbitrary")
