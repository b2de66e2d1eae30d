"""The address detector's fast tests: looser than the address pattern on every character, and
the pattern still runs where they pass (later lines, after a unit word, after an emoji)."""

from __future__ import annotations

import re

import pytest
import regex

from scrubber import rulefile
from scrubber.detectors import MessageContext
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
    # The number last: at the start of the text, of a later line, after a space; beyond ASCII.
    "[[Via Roma 5]]",
    "order 12 shipped\n[[PO Box 1234]]\nthanks",
    "INFO street: [[Rue des Lilas 12]]; city: Bruxelles",
    # ... but not right after a quote: the fast test looks after a space only.
    '{"street":"Rue des Lilas 12"}',
    "Città: [[Via Roma 5]], Milano",
    "ſee [[P.O. Box 77]]",
    # Both forms on one text, and a PO box given as a street's unit: one finding.
    "[[12 Main St]] or [[Via Roma 5]]",
    "[[12 Main St PO Box 5]]",
]


@pytest.mark.parametrize("marked", CASES)
def test_addresses_past_the_fast_tests(detector: AddressDetector, marked: str) -> None:
    text, values = _marked(marked)
    assert [text[f.start : f.end] for f in detector.detect(text, MessageContext())] == values


def test_the_start_test_knows_every_first_character_of_the_words(detector: AddressDetector) -> None:
    # re folds case more widely than str.upper ("K" is a Kelvin sign too): every character that
    # the start test may match first is in the set that lets it run.
    for head in {w[0] for w in detector._first_heads if w.isascii() and w.islower()}:
        assert set(re.findall(f"(?i:{re.escape(head)})", ALL)) <= detector._first_heads


def test_the_lower_cased_suffix_test_agrees_with_the_case_blind_one_on_ascii(
    detector: AddressDetector,
) -> None:
    import random

    rng = random.Random(5)
    words = ["12", "Main", "STREET", "st", "St.", "Ave", "AVENUE", "rd", "Rdx", "blvd_", "Way9", "ways"]
    seps = [" ", "  ", "\t", "\n", ",", "\x1c", "-"]
    texts = [
        "".join(rng.choice(words) + rng.choice(seps) for _ in range(rng.randint(1, 7))) for _ in range(3000)
    ]
    found = 0
    for text in texts:
        for start in (0, len(text) // 2):
            expected = detector._suffix.search(text, start) is not None
            assert (detector._suffix_lower.search(text.lower(), start) is not None) == expected, text
            found += expected
    assert 1000 < found < 5000
    # Each ASCII letter matches, case-blind, only itself and its capital, as lower-casing says.
    ascii_chars = "".join(chr(c) for c in range(128))
    for letter in "abcdefghijklmnopqrstuvwxyz":
        assert re.findall(letter, ascii_chars, re.IGNORECASE) == [letter.upper(), letter]


def test_a_long_s_still_reads_as_a_suffix(detector: AddressDetector) -> None:
    # Not ASCII: the case-blind test runs, and folds "ſ" as it always did; lower-casing alone
    # would not have seen a suffix there.
    text = "12 Baker ſt"
    assert detector._suffix.search(text) is not None
    assert detector._suffix_lower.search(text.lower()) is None
    both = f"{text} and 14 Baker St"
    assert [both[f.start : f.end] for f in detector.detect(both, MessageContext())] == [
        "12 Baker ſt",
        "14 Baker St",
    ]
