"""The tokenizer's fast tests: each is implied by the ``regex`` pattern it stands in front of,
on every code point, and the grammar's masked-value search misses no masked value."""

from __future__ import annotations

import re

import pytest
import regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scrubber.detectors.tokens import (
    _DIGIT_OR_ASTRAL,
    _WORD_RE,
    NUMBER_LIKE,
    SPELLED_WORD,
    masked_value_pattern,
    number_like,
    number_stretches,
    tokenize,
    values,
)

# Every code point that can stand in a str (no lone surrogates).
ALL = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)


def test_words_are_split_where_the_regex_module_splits_them() -> None:
    assert set("".join(_WORD_RE.findall(ALL))) == set(regex.findall(r"\S", ALL))


def test_every_digit_of_the_regex_module_is_decimal_or_astral() -> None:
    digits = set(regex.findall(r"\d", ALL))
    assert digits <= set(re.findall(_DIGIT_OR_ASTRAL, ALL))
    assert all(c.isdecimal() or c >= "\U00010000" for c in digits)
    # Python's own decimal digits are digits for the regex module too.
    assert set(re.findall(r"\d", ALL)) <= digits


@pytest.mark.parametrize(
    "text",
    [
        "",
        "no digits here",
        "order 1234",
        "call me at five",
        "someone phoned",
        "FIVE",
        "ſix",
        "oh",
        "ohio",
        "\U00010d40",
        "🙏 one",
        "🙏",
        "²",
        "x_one",
        "one_",
    ],
)
def test_number_like_agrees_with_the_pattern(text: str) -> None:
    assert number_like(text) == (NUMBER_LIKE.search(text) is not None)
    assert number_like("ab " + text + " cd", 3, 3 + len(text)) == (
        NUMBER_LIKE.search("ab " + text + " cd", 3, 3 + len(text)) is not None
    )


PIECES = [
    "•",
    "…",
    "·",
    "x",
    "X",
    "*",
    "#",
    "-",
    "1",
    "12",
    "1234",
    "12345",
    "(",
    ")",
    "+",
    " ",
    "  ",
    "\n",
    ".",
    ",",
    ":",
    "=",
    "a",
    "card",
    "one",
    "\U00010d40",
    "²",
]


MASKS = ["•", "…", "·", "x", "X", "*", "#", "-", "xx", "•••", "*-", "(", "a"]
NUMBERS = ["1234", "12 34", "1 2 3 4", "(12)34", "+1234", "12-34", "123", "12345", "\U00010d40234", "1234²"]
CONTEXT = st.lists(st.sampled_from(PIECES), max_size=6).map("".join)
# A mask, a separator and digits, in random context: often a masked value, often a near miss.
MASKED_TEXTS = st.tuples(
    CONTEXT,
    st.lists(st.sampled_from(MASKS), min_size=1, max_size=5).map("".join),
    st.sampled_from(["", " ", "-", "  ", "\n", ":"]),
    st.sampled_from(NUMBERS),
    CONTEXT,
).map("".join)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(MASKED_TEXTS, st.lists(st.sampled_from(PIECES), max_size=20).map("".join)))
def test_every_masked_value_is_where_the_search_looks(text: str) -> None:
    masked = [v for v in values(tokenize(text)) if v.masked]
    if masked:
        assert masked_value_pattern().search(text) is not None
    if any(len(v.digits) == 4 for v in masked):
        assert masked_value_pattern([4]).search(text) is not None


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from([*PIECES, '"', "'", "ext", "five", "D1234567"]), max_size=20).map("".join))
def test_tokens_cover_the_words_with_exact_offsets(text: str) -> None:
    tokens = tokenize(text)
    assert all(text[t.start : t.end] == t.text for t in tokens)
    # Together the tokens are the words: nothing dropped, nothing doubled.
    assert "".join(t.text for t in tokens) == "".join(regex.findall(r"\S+", text))
    # Whitespace follows a token (the regex module does not count \x1c-\x1f as whitespace).
    for t in tokens:
        assert t.space == (t.end < len(text) and regex.match(r"\s", text[t.end]) is not None)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("refund it to •••• 4258 please", True),
        ("refund it to …6029", True),
        ("ext x8335.", True),
        ("ssn ###-##-8128", True),
        ("xxx-xx 1234", True),
        ("please… 1234", True),
        ("order #123456789", False),
        ("Mozilla/5.0 (X11; Linux x86_64)", False),
        ("trace 10565696-5903-bf6e", False),
        ("xx 12", False),
    ],
)
def test_masked_value_search(text: str, found: bool) -> None:
    assert (masked_value_pattern([4]).search(text) is not None) == found


# Pieces that make number tokens, cuts, peeled punctuation and near misses around them.
STRETCH_PIECES = [
    *PIECES,
    "\x1c",
    "\t",
    '"',
    "'",
    "[",
    "]",
    "{",
    "}",
    "/",
    "!",
    "?",
    ";",
    "«",
    "»",
    "ext",
    "EXT",
    " x ",
    "extension",
    "key",
    "T",
    "Z",
    "٣",
    "\U0001d7ce",
    "1234567",
    "415 555 0142",
    "(714) 901-2163",
    "10:56:46",
    '":"',
    '","',
    '"=>"',
    "=>",
    ">",
    "=1",
    "zip",
    "FIVE",
    "Oh",
    "(12",
    "12)",
    "“",
    "¿",
    "x12",
    "---",
]


def _check_stretches(text: str, start: int, end: int, whole: bool = False) -> None:
    """Every value of ``text[start:end]`` lies in a stretch of that range (or of the whole text)."""
    if SPELLED_WORD.search(text[start:end].lower()) or masked_value_pattern().search(text, start, end):
        return
    stretches = list(number_stretches(text) if whole else number_stretches(text, start, end))
    for v in values(tokenize(text, start, end)):
        inside = [(a, b, n) for a, b, n in stretches if a <= v.start and v.end <= b]
        assert any(n >= len(v.digits) for _, _, n in inside), (v, stretches)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(STRETCH_PIECES), max_size=24).map("".join), st.integers(0, 3))
def test_every_value_lies_in_a_number_stretch_with_no_fewer_digits(text: str, cut: int) -> None:
    _check_stretches(text, 0, len(text))
    # A sentence inside a longer text: it starts after whitespace and ends anywhere.
    spaces = [i + 1 for i, c in enumerate(text) if c in " \n"]
    if spaces:
        start = spaces[cut % len(spaces)]
        _check_stretches(text, start, len(text) - cut if len(text) - cut > start else len(text))
        # A sentence, which ends before whitespace, and the stretches of the whole text.
        ends = [i for i in spaces if i - 1 > start] or [len(text)]
        _check_stretches(
            text, start, ends[cut % len(ends)] - 1 if ends != [len(text)] else len(text), whole=True
        )


@pytest.mark.parametrize(
    ("text", "stretches"),
    [
        ("my SSN is 262-16-8118.", [("262-16-8118", 9)]),
        ("charge card=6011 7674 6327 9487", [("6011 7674 6327 9487", 16)]),
        ("2025-11-25T19:03:55Z INFO worker=5 took=182ms", [("5", 1)]),
        ("Mar 12 10:56:46 web-2 billing[9699]: go", [("12", 2), ("46", 2)]),
        ('{"zip":"94105","n":2}', [("94105", 5), ("2", 1)]),
        ('{"card_last4"=>"4242", "zip"=>94105}', [("4242", 4), ("94105", 5)]),
        ("call (714) 901-2163 ext 31, or +1 415", [("(714) 901-2163 ext 31", 12), ("+1 415", 4)]),
    ],
)
def test_number_stretches(text: str, stretches: list[tuple[str, int]]) -> None:
    assert [(text[a:b], n) for a, b, n in number_stretches(text)] == stretches
