"""A cue announces one value: once a value of its own kind stands between it and a later value,
it lowers that later value no more ("Tel 020 7946 0958 / 536-22-8173": the number after the
phone is no phone number for the cue to speak of, so the SSN is masked). A cue with no value of
its own after it still lowers what follows, as before."""

from __future__ import annotations

import pytest

from scrubber.dial import Policy
from scrubber.engine import Scrubber

ENGINE = Scrubber(Policy(level=7))


@pytest.mark.parametrize(
    ("text", "scrubbed"),
    [
        ("Tel 020 7946 0958 / 536-22-8173", "Tel [PHONE_NUMBER] / [US_SSN]"),
        ("Call 415.555.2671 - employee 536-22-8173", "Call [PHONE_NUMBER] - employee [US_SSN]"),
        ("Whatsapp 917 555 0143 - the code 536-22-8173", "Whatsapp [PHONE_NUMBER] - the code [US_SSN]"),
        ("Home phone 0161 496 0000, old badge 536-22-8173", "Home phone [PHONE_NUMBER], old badge [US_SSN]"),
        ("fax: 212-555-0187 ship to 10027-4411", "fax: [PHONE_NUMBER] ship to [ZIP_CODE]"),
        ("Cell: 0176 2345 6789 / 94110-1234", "Cell: [PHONE_NUMBER] / [ZIP_CODE]"),
        # A label an earlier scrub wrote for a phone number is the cue's value as well.
        ("mobile: [PHONE_NUMBER] and 536-22-8173", "mobile: [PHONE_NUMBER] and [US_SSN]"),
    ],
)
def test_a_cue_whose_own_value_came_lowers_no_later_value(text: str, scrubbed: str) -> None:
    assert ENGINE.scrub(text).text == scrubbed


@pytest.mark.parametrize(
    ("text", "scrubbed"),
    [
        # No value after the cue but the one it lowers.
        ("Phone: see the form, 536-22-8173", "Phone: see the form, 536-22-8173"),
        ("text 536-22-8173 to confirm", "text 536-22-8173 to confirm"),
        ("fax the page to 10027-4411", "fax the page to 10027-4411"),
        # An extension is no phone number: the cue is not used up.
        ("Call ext. 4471 about 536-22-8173", "Call ext. 4471 about 536-22-8173"),
        # A value, or a label, of another kind does not use up a phone cue.
        ("cell, card 4539 1488 0343 6467 and 536-22-8173", "[PERSON], card [CREDIT_CARD] and 536-22-8173"),
        ("phone [CREDIT_CARD] 536-22-8173", "phone [CREDIT_CARD] 536-22-8173"),
    ],
)
def test_a_cue_without_its_own_value_still_lowers(text: str, scrubbed: str) -> None:
    assert ENGINE.scrub(text).text == scrubbed


def test_scrubbing_again_reads_the_cue_as_used_up() -> None:
    once = ENGINE.scrub("Tel 020 7946 0958 / 536-22-8173").text
    assert ENGINE.scrub(once).text == once
