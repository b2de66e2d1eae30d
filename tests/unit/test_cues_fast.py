"""The cue scan's fast paths agree with a plain reading of the same rules.

The scan runs a prefix-tree pattern whose runs of a letter are taken possessively, and answers
questions about its hits lazily. Here each index is checked against a reference built the slow
way (the same tree without possessive runs, every hit made eagerly) on many generated texts:
cue words as written, mistyped, with letters typed twice, glued to digits and "#", in capitals,
next to characters that change length when lower-cased, and inside scrubbing labels.
"""

from __future__ import annotations

import bisect
import functools
import random
import re
from pathlib import Path

import pytest

from scrubber.detectors import cues as C
from scrubber.detectors.cues import CueHit, CueHits, CueIndex, load_cues
from scrubber.masking import placeholders

ROOT = Path(__file__).resolve().parents[2]
LISTS = load_cues(ROOT / "grammar" / "cues.yaml")


@functools.cache
def reference_patterns(variants: frozenset[str]) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The scan's pattern as first written: runs typed longer are given back when that helps."""
    body = C._trie_pattern(variants)
    source = rf"(?<![a-z0-9])(?:{body})(?![a-z])"
    return re.compile(source), re.compile(source, re.IGNORECASE)


def reference(index: CueIndex, variants: frozenset[str], text: str) -> list[tuple[int, int, frozenset[str]]]:
    """The scan as first written: backtracking runs, one hit object per match, all eager."""
    plain, folding = reference_patterns(variants)
    lower = text.lower()
    matches = plain.finditer(lower) if len(lower) == len(text) else folding.finditer(text)
    out = []
    for m in matches:
        lists = index._owners.get(C._key(m.group()), frozenset())
        if lists:
            out.append((m.start(), m.end(), lists))
    spans = placeholders(text)
    return [h for h in out if not any(s <= h[0] and h[1] <= e for s, e in spans)]


def variants_of(lists: dict[str, tuple[str, ...]]) -> frozenset[str]:
    out: set[str] = set()
    for words in lists.values():
        for word in words:
            w = " ".join(word.lower().split())
            out |= {w, *C._slips(w)}
    return frozenset(out)


def noisy(word: str, rng: random.Random) -> str:
    """A cue word as people type it: slips, doubled letters, other separators, capitals."""
    chars = list(word)
    roll = rng.random()
    if roll < 0.2 and len(chars) > 2:
        del chars[rng.randrange(1, len(chars))]
    elif roll < 0.35 and len(chars) > 3:
        i = rng.randrange(1, len(chars) - 1)
        chars[i], chars[i + 1] = chars[i + 1], chars[i]
    if rng.random() < 0.4 and chars:
        i = rng.randrange(len(chars))
        chars.insert(i, chars[i] * rng.randint(1, 3))
    out = "".join(chars).replace(" ", rng.choice([" ", "_", "-", "  ", " - ", "\t", "____"]))
    if rng.random() < 0.3:
        out = out.upper() if rng.random() < 0.5 else out.capitalize()
    return out


GLUE = ["", "", " ", "  ", "4", "#", "##", "_", "-", ":", "=", "x", "s", ".", "\n", "İ", "ß", "[", "<"]
FILLER = ["the", "my", "is", "1234", "a", "cards", "discarded", "phones", "#", "K"]
FILLER += ["[PHONE_NUMBER]", "<SSN:0a1b2c3d>", "[CREDIT_CARD] card"]


def texts(lists: dict[str, tuple[str, ...]], n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    words = sorted({w for ws in lists.values() for w in ws})
    out = []
    for _ in range(n):
        parts = []
        for _ in range(rng.randint(1, 8)):
            piece = noisy(rng.choice(words), rng) if rng.random() < 0.7 else rng.choice(FILLER)
            parts.append(piece + rng.choice(GLUE))
        out.append("".join(parts))
    return out


def hits(found: CueHits) -> list[tuple[int, int, frozenset[str]]]:
    return [(h.start, h.end, h.lists) for h in found]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_scan_agrees_with_the_reference_on_generated_texts(seed: int) -> None:
    index = CueIndex(LISTS)
    variants = variants_of(LISTS)
    for text in texts(LISTS, 700, seed):
        assert hits(index.scan(text)) == reference(index, variants, text), text


def test_runs_given_back_where_a_non_letter_ends_a_cue() -> None:
    # "dl##x": the "#" run cannot be taken whole ("x" follows), but one "#" can; "ssn###y"
    # gives back one of its three.
    index = CueIndex({"dl": ("dl#",), "ssn": ("ssn#", "ssn")})
    assert [(h.start, h.end) for h in index.scan("dl##x ssn###y")] == [(0, 3), (6, 11)]
    # A letter run typed longer is taken whole or not at all: a letter after it ends nothing.
    assert hits(index.scan("ssnnn ssnnnn")) == [(0, 5, frozenset({"ssn"}))]


def test_cue_hits_answers_as_its_hits_say() -> None:
    rng = random.Random(7)
    index = CueIndex(LISTS)
    names = sorted(LISTS)
    for text in texts(LISTS, 300, 9):
        found = index.scan(text)
        plain = hits(found)
        assert bool(found) == bool(plain)
        assert found.lists == frozenset().union(*(h[2] for h in plain))
        wanted = frozenset(rng.sample(names, 3))
        assert [hits_of[:2] for hits_of in plain if hits_of[2] & wanted] == [
            (h.start, h.end) for h in found.of(wanted)
        ]
        for _ in range(5):
            lo = rng.randrange(len(text) + 1)
            hi = rng.randrange(lo, len(text) + 1)
            before = [e for s, e, lists in plain if lo <= e <= hi and lists & wanted]
            after = [s for s, e, lists in plain if lo <= s <= hi and lists & wanted]
            assert found.last_before(wanted, lo, hi) == (before[-1] if before else -1)
            assert found.first_after(wanted, lo, hi) == (after[0] if after else -1)


def test_hits_built_from_a_sequence_or_a_list() -> None:
    one = CueHit(0, 4, frozenset({"card"}))
    two = CueHit(5, 8, frozenset({"ssn", "card"}))
    for given in ([one, two], (one, two), iter([one, two])):
        found = CueHits(given)
        assert list(found) == [one, two]
        assert found.lists == frozenset({"card", "ssn"})
        assert found.last_before(frozenset({"ssn"}), 0, 8) == 8
    assert not CueHits(())
    assert CueHits(()).lists == frozenset()
    assert C.NO_HITS.lists == frozenset()
    # A hit is a plain tuple underneath, with its fields by name.
    assert one == (0, 4, frozenset({"card"})) and one.end == 4


def test_ends_sorted_as_bisect_needs() -> None:
    index = CueIndex(LISTS)
    for text in texts(LISTS, 200, 11):
        ends = [h.end for h in index.scan(text)]
        assert ends == sorted(ends)
        assert all(bisect.bisect_right(ends, e) > i for i, e in enumerate(ends))


@pytest.mark.parametrize("seed", [4, 5])
def test_may_find_never_says_no_where_the_scan_finds_a_cue_of_those_lists(seed: int) -> None:
    index = CueIndex(LISTS)
    rng = random.Random(seed)
    names = sorted(LISTS)
    # A few sets of lists (each compiles a pattern of its own, once).
    choices = [frozenset(rng.sample(names, k)) for k in (1, 3, 6)] + [frozenset({"card", "ssn", "phone"})]
    said_no = 0
    for text in texts(LISTS, 600, seed):
        wanted = rng.choice(choices)
        found = index.scan(text).lists & wanted
        if not index.may_find(text, wanted):
            said_no += 1
            assert not found, text
    assert said_no > 50  # the test says no often enough to be worth checking


def test_may_find_sees_a_cue_of_its_lists_inside_a_longer_cue_of_another() -> None:
    # The scan reads "card number" (list "card") where "number" alone would be list "ref":
    # may_find for "ref" may say yes (it is only a pre-test), for "ssn" it says no.
    index = CueIndex({"card": ("card number",), "ref": ("number",), "ssn": ("ssn",)})
    text = "my card number: 4111"
    assert index.scan(text).lists == frozenset({"card"})
    assert index.may_find(text, frozenset({"card"}))
    assert index.may_find(text, frozenset({"ref"}))
    assert not index.may_find(text, frozenset({"ssn"}))
    assert index.may_find("MY SSN İS 1", frozenset({"ssn"}))
    assert not index.may_find("MY CARD İS 1", frozenset({"ssn"}))


def test_an_index_with_words_that_start_with_a_digit_keeps_the_look_behind() -> None:
    # "ssn#" ends where "4 digits" may start: reading the character before a cue would hide
    # the "#" from the second match, so this index keeps its look-behind, and agrees.
    lists = {"ssn": ("ssn#", "ssn"), "count": ("4 digits", "four digits"), "card": ("card",)}
    index = CueIndex(lists)
    assert index._pad == 0
    assert hits(index.scan("ssn#4 digits")) == [(0, 4, frozenset({"ssn"})), (4, 12, frozenset({"count"}))]
    variants = variants_of(lists)
    for text in texts(lists, 300, 12):
        assert hits(index.scan(text)) == reference(index, variants, text), text


def test_an_index_of_words_that_start_with_letters_reads_the_character_before() -> None:
    index = CueIndex(LISTS)
    assert index._pad == 1
    # Cues at the very start, right after a digit (not found: "4card"), after "_", and around
    # a "#" ("ssn#" cannot end before a letter, so "ssn" ends there and "card" follows).
    text = "card 4card _card ssn#card"
    found = hits(index.scan(text))
    assert [(s, e) for s, e, _ in found] == [(0, 4), (12, 16), (17, 20), (21, 25)]
    assert found == reference(index, variants_of(LISTS), text)
