"""Searches that take one pass over a long message find what the search per word or per line
finds on a short one: checked here against the simple definitions on generated texts."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from scrubber.detectors.names import detector, model
from scrubber.detectors.names.lines import label_start
from scrubber.detectors.names.shapes import joins


def _per_word(text: str, words: set[str]) -> set[tuple[str, int]]:
    """Each word's non-overlapping whole-word occurrences, one word at a time."""
    out = set()
    for word in words:
        i = text.find(word)
        while i >= 0:
            j = i + len(word)
            if (i == 0 or not joins(text[i - 1])) and (j == len(text) or not joins(text[j])):
                out.add((word, i))
                i = text.find(word, j)
            else:
                i = text.find(word, i + 1)
    return out


WORDS = ["Ana", "Anabel", "Annie", "Ann-Marie", "O'Neil", "Neil", "Zoë", "Zoël", "Ababab", "Abab"]
pieces = st.sampled_from([*WORDS, " ", "-", "'", ", ", "\n", "x", "Ab", "ab"])


@settings(max_examples=300, deadline=None)
@given(st.lists(pieces, max_size=40).map("".join), st.sets(st.sampled_from(WORDS), min_size=1))
def test_one_pass_for_all_words_finds_what_a_search_per_word_finds(text: str, words: set[str]) -> None:
    assert set(detector._occurrences(text, words, budget=0)) == _per_word(text, words)


def test_the_one_pass_gives_the_places_in_order() -> None:
    text = "Abab Ababab ab Ann-Marie, Annie Ana-Ana " * 50
    words = {"Abab", "Ababab", "Ann-Marie", "Annie", "Ana"}
    found = list(detector._occurrences(text, words, budget=0))
    assert set(found) == _per_word(text, words)
    assert [i for _, i in found] == sorted(i for _, i in found)
    assert len(found) == 4 * 50  # "Ana-Ana": "-" joins, so neither "Ana" stands alone


def _label_start(text: str, p: int) -> int:
    """label_start as first written: by copying the line's head."""
    s = text.rfind("\n", 0, p) + 1
    head = text[s:p].strip(" \t>")
    if head and not (head[0] == "[" and head[-1] == "]" and len(head) <= 26):
        return -1
    return s


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from([" ", "\t", ">", "[", "]", "\n", "12:00", "x" * 20, "Ana"]), max_size=12).map(
        "".join
    )
)
def test_label_start_reads_the_head_of_the_line_as_its_definition_does(text: str) -> None:
    for p in range(len(text) + 1):
        assert label_start(text, p) == _label_start(text, p)


def _after_place_word(text: str, word: str) -> bool:
    """The test for one word as first written: a search of the whole text per word."""
    pattern = rf"(?<![\w'’])([^\W\d_]+) +{re.escape(word)}(?![\w'’])"
    return any(m.group(1).lower() in model.ONLY_PLACES_AFTER for m in re.finditer(pattern, text))


PLACES = ["Charlotte", "Charlottesville", "Jordan", "Georgia", "New York", "York"]
place_text = st.lists(
    st.sampled_from([*PLACES, "in", "near", "to", "In", " ", "  ", "'s", ",", "\n", "x"]), max_size=30
)


@settings(max_examples=300, deadline=None)
@given(place_text.map("".join), st.sets(st.sampled_from(PLACES), min_size=1))
def test_one_pass_for_places_finds_what_a_search_per_word_finds(text: str, words: set[str]) -> None:
    assert model._after_place_words(text, words) == {w for w in words if _after_place_word(text, w)}
