"""Replacement operators: label, mask (keep the last N, keep separators), keyed hash, remove."""

from __future__ import annotations

import pytest

from scrubber.dial import OperatorSpec, Policy
from scrubber.engine import Scrubber
from scrubber.masking import replacement

KEY = b"a key only the tests know"


@pytest.mark.parametrize(
    ("value", "entity", "op", "expected"),
    [
        ("123-45-6789", "US_SSN", OperatorSpec("label"), "[US_SSN]"),
        ("123-45-6789", "US_SSN", OperatorSpec("mask"), "***-**-6789"),
        ("4539 1488 0343 6467", "CREDIT_CARD", OperatorSpec("mask"), "**** **** **** 6467"),
        ("(415) 555-2671", "PHONE_NUMBER", OperatorSpec("mask", keep_last=2), "(***) ***-**71"),
        ("jane@example.com", "EMAIL_ADDRESS", OperatorSpec("mask", keep_last=0), "****@*******.***"),
        ("94105", "ZIP_CODE", OperatorSpec("mask", mask_char="#"), "###05"),  # never more than half
        ("123-45-6789", "US_SSN", OperatorSpec("remove"), ""),
    ],
)
def test_operators(value: str, entity: str, op: OperatorSpec, expected: str) -> None:
    assert replacement(value, entity, op, KEY) == expected


def test_hash_is_a_stable_keyed_pseudonym() -> None:
    op = OperatorSpec("hash")
    first = replacement("jane@example.com", "EMAIL_ADDRESS", op, KEY)
    assert first.startswith("<EMAIL_ADDRESS:") and first.endswith(">")
    assert len(first) == len("<EMAIL_ADDRESS:>") + 8
    # Same value and key: same pseudonym, every time (across messages and restarts).
    assert replacement("jane@example.com", "EMAIL_ADDRESS", op, KEY) == first
    # Another value, another key, or another entity: another pseudonym.
    assert replacement("john@example.com", "EMAIL_ADDRESS", op, KEY) != first
    assert replacement("jane@example.com", "EMAIL_ADDRESS", op, b"other key") != first
    assert replacement("jane@example.com", "SECRET", op, KEY).startswith("<SECRET:")
    assert "jane" not in first


def test_hash_without_a_key_is_refused() -> None:
    with pytest.raises(ValueError):
        replacement("x", "SECRET", OperatorSpec("hash"), None)


def test_the_engine_masks_given_findings_in_text_it_did_not_see() -> None:
    """Scrubber.apply, the one masker: formats that keep undecodable bytes (lone surrogates)
    mask the original text with the findings the engine made on its U+FFFD stand-in."""
    engine = Scrubber(Policy(level=7, default_operator=OperatorSpec("mask")))
    original = "Caf\udce9 ssn 524-59-3318, mail jane.roe@example.com \udcff"
    seen = original.replace("\udce9", "\ufffd").replace("\udcff", "\ufffd")
    result = engine.scrub(seen)
    assert [f.entity for f in result.findings] == ["US_SSN", "EMAIL_ADDRESS"]
    masked = engine.apply(original, result.findings)
    email = replacement("jane.roe@example.com", "EMAIL_ADDRESS", OperatorSpec("mask"), None)
    assert masked == f"Caf\udce9 ssn ***-**-3318, mail {email} \udcff"
    assert masked.replace("\udce9", "\ufffd").replace("\udcff", "\ufffd") == result.text
