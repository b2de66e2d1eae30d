"""Scrubbing twice gives the same text: what scrubbing wrote ("[PHONE_NUMBER]") is no value and
no cue, on every record of the labelled corpora and on random mixes of values, cues and labels."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from load.devset_score import DEVSET
from scrubber.dial import ENTITIES, Policy
from scrubber.engine import Scrubber

DATA = Path(__file__).resolve().parents[1] / "data"
CORPORA = [
    *sorted((DATA / "corpora").glob("inhouse-*.jsonl")),
    DATA / "corpora" / "dialogue-partials.jsonl",
    DATA / "probes.jsonl",
    DATA / "numbers.jsonl",
]


@cache
def engine() -> Scrubber:
    return Scrubber(Policy(level=7))


def texts(path: Path) -> list[str]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line)["text"] for line in f if line.strip()]


def changed_records(path: Path) -> list[int]:
    """The records of a corpus whose scrubbed text changes when it is scrubbed again."""
    changed = []
    for i, text in enumerate(texts(path)):
        once = engine().scrub(text).text
        if engine().scrub(once).text != once:
            changed.append(i)
    return changed


@pytest.mark.parametrize("path", CORPORA, ids=lambda p: p.stem)
def test_every_record_scrubbed_twice_is_scrubbed_once(path: Path) -> None:
    assert changed_records(path) == []


def test_the_devset_scrubbed_twice_is_scrubbed_once() -> None:
    assert DEVSET.exists(), f"{DEVSET} is missing: link the shared directory next to the repository"
    assert changed_records(DEVSET) == []


@pytest.mark.parametrize("entity", ENTITIES)
@pytest.mark.parametrize("shape", ["[{e}]: 8163 2290", "[{e}] is 4412 5510", "the [{e}] ends in 4412"])
def test_a_label_is_no_cue(entity: str, shape: str) -> None:
    text = shape.format(e=entity)
    assert engine().scrub(text).findings == ()


@pytest.mark.parametrize(
    "text",
    [
        "hi ABA 626244088",  # the label beside "ABA" reads as the digits did: no person
        "landline: 030/44 82 19 07 (Berlin)",
        "nour@free.fr/31.66.217.103:26062 pool",  # an address after "word/" both times
        "card ending 4242 4539 1488 0343 6467",  # the last four, then a whole card
        "last four of my social 6789 (415) 555-2671",  # a partial, then a phone
        "last four of my social 6789 4539 1488 0343 6467",
        # A phone cue whose number came lowers no SSN after it (the labels between put it out
        # of reach once the number is a label: it was a leak on the first scrub).
        "Phone: 31-47-92-08 [CREDIT_CARD] [PASSPORT] 536-22-8173",
        "Phone: 31-47-92-08 [BANK_ACCOUNT] [SECRET] 536-22-8173",
        "Phone: 31-47-92-08 [CREDIT_CARD] 536-22-8173 536-22-8173",
        # A cue whose value became a label names that label, not the number before it.
        "[CREDIT_CARD] [CREDIT_CARD] phone [US_SSN] 536-22-8173 last four of my social 6789",
        "ref [IBAN] 481-22-9034 last four of my social 2290",
        # A label inside a URL's query is part of its token, as the name it stands for was.
        '"GET /thanks?name=Odile+Marchetti HTTP/1.1" 200',
    ],
)
def test_values_beside_values_scrubbed_twice_are_scrubbed_once(text: str) -> None:
    once = engine().scrub(text).text
    assert engine().scrub(once).text == once


def test_a_number_after_the_last_four_of_another_is_found() -> None:
    assert (
        engine().scrub("card ending 4242 4539 1488 0343 6467").text
        == "card ending [CREDIT_CARD] [CREDIT_CARD]"
    )
    assert engine().scrub("last four of my social 6789 (415) 555-2671").text == (
        "last four of my social [US_SSN] [PHONE_NUMBER]"
    )


LABELS = [f"[{e}]" for e in ENTITIES]
VALUES = [
    "4539 1488 0343 6467",
    "536-22-8173",
    "jane.doe@example.com",
    "(415) 555-2671",
    "DE89 3704 0044 0532 0130 00",
    "81.2.69.160",
    "10.14.3.77",
    "DOB: 04/12/1986",
    "password: Tr0ub4dor&3",
    "Phone: 31-47-92-08",
    "card ending 4242",
    "last four of my social 6789",
]
CUES = ["card", "ssn", "zip code", "phone", "dob", "passport", "the last four", "ends in", "\n", "?"]
pieces = st.one_of(
    st.sampled_from(LABELS), st.sampled_from(VALUES), st.sampled_from(CUES), st.text(max_size=12)
)


# The same 300 mixes on every run (derandomize): a test in CI must not pass or fail by the luck
# of its search. A wider random search is a fuzzing job; the cases it has found are listed in
# test_values_beside_values_scrubbed_twice_are_scrubbed_once.
@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(pieces, max_size=12).map(" ".join))
def test_a_mix_of_values_cues_and_labels_scrubbed_twice_is_scrubbed_once(text: str) -> None:
    once = engine().scrub(text).text
    assert engine().scrub(once).text == once
