"""Invisible characters inside a value do not hide it: detection runs on a view without them
and the original span, invisible characters included, is masked."""

from __future__ import annotations

from functools import cache

import pytest

from scrubber import invisible
from scrubber.dial import OperatorSpec, Policy
from scrubber.engine import Scrubber
from scrubber.smtp.transform import scrub_message

HIDERS = {
    "nul": "\x00",
    "soft hyphen": "\u00ad",
    "zero-width space": "\u200b",
    "zero-width joiner": "\u200d",
    "word joiner": "\u2060",
    "byte-order mark": "\ufeff",
    "right-to-left mark": "\u200f",
    "backspace": "\x08",
    "two of them": "\u200b\x00",
}
# (text with "|" where the invisible character goes, entity, the text scrubbed)
VALUES = [
    ("my ssn is 536-22-|1234 ok", "US_SSN", "my ssn is [US_SSN] ok"),
    ("card 4111 1111| 1111 1111 thanks", "CREDIT_CARD", "card [CREDIT_CARD] thanks"),
    ("mail jane.r|oe@example.com now", "EMAIL_ADDRESS", "mail [EMAIL_ADDRESS] now"),
    ("call (415) 555-|2671 today", "PHONE_NUMBER", "call [PHONE_NUMBER] today"),
    ("IBAN GB82 WEST 1234 5698 76|54 32", "IBAN", "IBAN [IBAN]"),
]


@cache
def engine(op: str = "label") -> Scrubber:
    return Scrubber(Policy(level=7, default_operator=OperatorSpec(op), hmac_key=b"k"))


@pytest.mark.parametrize("hider", sorted(HIDERS))
@pytest.mark.parametrize(("text", "entity", "scrubbed"), VALUES)
def test_a_value_with_an_invisible_character_inside_is_masked(
    hider: str, text: str, entity: str, scrubbed: str
) -> None:
    hidden = text.replace("|", HIDERS[hider])
    result = engine().scrub(hidden)
    assert result.text == scrubbed
    (f,) = result.findings
    assert f.entity == entity
    # The finding is on the original text, the invisible characters inside the value with it.
    plain = text.replace("|", "")
    assert invisible.visible(hidden[f.start : f.end]) == plain[f.start : f.end - len(HIDERS[hider])]
    assert HIDERS[hider] in hidden[f.start : f.end]


@pytest.mark.parametrize(("op", "expected"), [("mask", "ssn ***-**-1234."), ("label", "ssn [US_SSN].")])
def test_operators_see_the_visible_value(op: str, expected: str) -> None:
    assert engine(op).scrub("ssn 536-22-\x001234.").text == expected
    # The pseudonym of a value is the same however it was hidden.
    hashed = engine("hash")
    assert hashed.scrub("ssn 536-22-\u200b1234.").text == hashed.scrub("ssn 536-22-1234.").text


def test_invisible_characters_outside_values_are_kept() -> None:
    text = "\ufeffhello\u00ad there, ssn 536-22-1234\x00 and more\u200b"
    assert engine().scrub(text).text == "\ufeffhello\u00ad there, ssn [US_SSN]\x00 and more\u200b"


def test_level_zero_observes_on_the_original_offsets() -> None:
    text = "x\u200b ssn 536-22-\x001234"
    result = Scrubber(Policy(level=0)).scrub(text)
    assert result.text == text and not result.findings
    (f,) = result.observed
    assert text[f.start : f.end] == "536-22-\x001234"


def test_a_batch_mixes_texts_with_and_without_invisible_characters() -> None:
    texts = ["ssn 536-22-1234", "ssn 536-22-\x001234", "nothing here", "mail a\u00adb@example.com"]
    assert [r.text for r in engine().scrub_many(texts)] == [
        "ssn [US_SSN]",
        "ssn [US_SSN]",
        "nothing here",
        "mail [EMAIL_ADDRESS]",
    ]


def test_a_mail_body_with_a_hidden_value_is_delivered_masked() -> None:
    data = (
        b"Subject: ssn 536-22-\xc2\xad1234\r\nContent-Type: text/plain; charset=utf-8\r\n"
        b"Content-Transfer-Encoding: 8bit\r\n\r\n"
        b"card 4111\xe2\x80\x8b1111 1111 1111 and ssn 536-22-\x001234\r\n"
    )
    out = scrub_message(data, engine()).data
    assert out.split(b"\r\n\r\n", 1)[1] == b"card [CREDIT_CARD] and ssn [US_SSN]\r\n"
    assert b"Subject: ssn [US_SSN]\r\n" in out


def test_the_view_maps_every_character_back() -> None:
    text = "\x00ab\u200b\u200bc\u00add\x00"
    seen = invisible.view(text)
    assert seen is not None and seen.text == "abcd"
    assert [text[seen.position(i)] for i in range(4)] == list("abcd")
    assert seen.span(1, 4) == (2, 8)
    assert invisible.view("plain text, nothing hidden") is None
