"""The address detector's fast tests: looser than the address pattern on every character, and
the pattern still runs where they pass (later lines, after a unit word, after an emoji)."""

from __future__ import annotations

import re

import pytest
import regex

from scrubber import rulefile
from scrubber.detectors.addresses import _DIGIT, AddressDetector, load_address_grammar

# Every code point that can stand in a str (no lone surrogates).
ALL = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)


@pytest.fixture(scope="module")
def detector() -> AddressDetector:
    return AddressDetector(load_address_grammar(rulefile.grammar_dir() / "addresses.yaml"))


def test_the_fast_digit_class_takes_every_digit_of_the_address_pattern() -> None:
    assert set(regex.findall(r"\d", ALL)) <= set(re.findall(_DIGIT, ALL))


def test_re_takes_every_space_of_the_address_pattern() -> None:
    assert set(regex.findall(r"\s", ALL)) <= set(re.findall(r"\s", ALL))


def test_re_folds_case_at_least_as_widely_as_the_address_pattern() -> None:
    for letter in "abcdefghijklmnopqrstuvwxyz":
        assert set(regex.findall(f"(?i:{letter})", ALL)) <= set(re.findall(letter, ALL, re.IGNORECASE))


def _marked(text: str) -> tuple[str, list[str]]:
    return re.sub(r"\[\[(.+?)\]\]", r"\1", text), re.findall(r"\[\[(.+?)\]\]", text)


CASES = [
    # Digits on earlier lines, the address on a later one.
    "order 12 shipped\nthanks, 3 items\r\nship to [[12 Main Street]]\r\n",
    # Two addresses on one line, and one on the next.
    "from [[12 Main Street]] to [[4 Oak Lane]]\nthen [[9 Elm Rd]]",
    # The match starts at a unit word before the first number that has a suffix after it.
    "new place: [[Apartment   9,   14 Thornton Villas]] since May",
    "[[Flat 3, 27 Abbey Road]] London",
    # An emoji before the number.
    "🙏 [[12 Main Street]]",
    # The pattern's look-behind still sees the letter before the number: no address.
    "é12 Main Street",
    # The suffix more than four street-name words after the number: no address.
    "12 Big Old Red Barn Farm Street",
    # A suffix word, but before the only number: no address.
    "the old way; the new one is 4111 1111 1111 1111",
    # A digit that only the regex module knows, and no digit Python knows: no address.
    "\U00010d40\U00010d41 Main Street",
    # ... with one that Python knows, the regex module's digits make a house number.
    "[[\U00010d40\U00010d41 Main Street]] ²",
]


@pytest.mark.parametrize("marked", CASES)
def test_addresses_past_the_fast_tests(detector: AddressDetector, marked: str) -> None:
    text, values = _marked(marked)
    assert [text[f.start : f.end] for f in detector.detect(text)] == values
