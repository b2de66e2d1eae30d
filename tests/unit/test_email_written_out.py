"""E-mail addresses written so that no crawler reads them: sentences written for this test."""

from __future__ import annotations

from functools import cache

import pytest

from scrubber.dial import Policy
from scrubber.engine import Scrubber


@cache
def engine() -> Scrubber:
    return Scrubber(Policy(level=7))


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("contact: r.okonkwo [at] mailbox [dot] ng", "r.okonkwo [at] mailbox [dot] ng"),
        ("write to k.tanaka (at) example (dot) jp for the keys", "k.tanaka (at) example (dot) jp"),
        ("my other one is lena_berg at gmail.com if that fails", "lena_berg at gmail.com"),
        ("ping bob77 at yahoo dot co dot uk", "bob77 at yahoo dot co dot uk"),
        ("Reach the couple at ines.and.tom at outlook.com.", "ines.and.tom at outlook.com"),
    ],
)
def test_an_address_written_out_is_an_email_address(text: str, value: str) -> None:
    found = [text[f.start : f.end] for f in engine().scrub(text).findings if f.entity == "EMAIL_ADDRESS"]
    assert found == [value]


@pytest.mark.parametrize(
    "text",
    [
        "we met at gmail.com offices last year",  # "met" is no mailbox
        "look at outlook.com settings first",
        "the meeting at yahoo finance ran long",
        "see you at the mail room",
    ],
)
def test_at_as_a_word_is_no_address(text: str) -> None:
    assert [f for f in engine().scrub(text).findings if f.entity == "EMAIL_ADDRESS"] == []
