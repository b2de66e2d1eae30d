"""Properties of the engine on arbitrary input (hypothesis)."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from scrubber.dial import OperatorSpec, Policy
from scrubber.engine import MIN_REPEAT_CHARS, Scrubber
from scrubber.invisible import visible

ENGINE = Scrubber(Policy(level=7))
MASKER = Scrubber(Policy(level=7, default_operator=OperatorSpec("mask", keep_last=0)))

# Values of every pattern entity, to be dropped into random text.
VALUES = [
    "4539 1488 0343 6467",
    "536-22-8173",
    "jane.doe@example.com",
    "(415) 555-2671",
    "+44 20 7946 0018",
    "DE89 3704 0044 0532 0130 00",
    "ghp_abcdefghijklmnopqrstuvwxyzABCDEF0123",
    "81.2.69.160",
    "2a02:1388:2101:8a00:1c4d:e1ff:fe3c:9d21",
    "SW1A 1AA",
    "Austin, TX 78701",
    "ssn 536228173",
    "DOB: 04/12/1986",
    "password: Tr0ub4dor&3",
]
CUES = ["card", "ssn", "zip code", "phone", "dob", "passport", "account", "routing number", "order"]
pieces = st.one_of(st.text(max_size=40), st.sampled_from(VALUES), st.sampled_from(CUES))
texts = st.lists(pieces, max_size=12).map(" ".join)
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(st.text(max_size=400))
def test_scrub_never_raises_on_arbitrary_unicode(text: str) -> None:
    result = ENGINE.scrub(text)
    assert isinstance(result.text, str)


@SETTINGS
@given(texts)
def test_findings_lie_inside_the_text_and_do_not_overlap(text: str) -> None:
    result = ENGINE.scrub(text)
    last = 0
    for f in result.findings:
        assert last <= f.start < f.end <= len(text)
        last = f.end


@SETTINGS
@given(texts)
@example("0 AA\x1b¹ AA\x1b¹")  # a value of three characters one can see, and a control
def test_no_detected_value_survives_in_the_scrubbed_text(text: str) -> None:
    for scrubber in (ENGINE, MASKER):
        result = scrubber.scrub(text)
        for f in result.findings:
            value = text[f.start : f.end]
            # Too short to be told from other text, counted as the engine counts it: on what
            # can be seen ("AA\x1b¹" is three characters, and another "AA\x1b¹" stays).
            if len(visible(value)) < MIN_REPEAT_CHARS:
                continue
            whole = re.compile(r"(?<!\w)" + re.escape(value) + r"(?!\w)")
            assert not whole.search(result.text), (value, result.text)
