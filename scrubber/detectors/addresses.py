"""Street addresses by a small grammar compiled from grammar/addresses.yaml."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

import regex

from scrubber import rulefile
from scrubber.detectors.cues import compile_cues
from scrubber.detectors.patterns import TIMEOUT_CHARS, RegexTimeout
from scrubber.findings import Finding
from scrubber.rulefile import RuleError

_LISTS = ("suffixes", "directions", "units", "units_before", "not_names", "cues")
SCORE = 0.85
# How far before the house number an address cue may stand.
CUE_WINDOW = 30
# A digit, as the address pattern's \d knows it. The ``regex`` module knows a newer Unicode
# than ``re``: its extra digits all lie outside the Basic Multilingual Plane, so this class
# takes them in with every other astral character (tests/unit/test_addresses_fast.py checks
# every code point). One character class: linear, so it runs on ``re`` without a timeout.
_DIGIT = r"[\d\U00010000-\U0010ffff]"
# What may not stand before a house number, as far as ``re`` agrees with ``regex`` on it (the
# pattern's look-behind is ``[\w.,/$£€-]``; ``regex``'s \w takes in these ASCII characters).
_NOT_BEFORE = r"[A-Za-z0-9_.,/$£€-]"
# A decimal digit of Python's own Unicode: one class, linear.
_DECIMAL = re.compile(r"\d")


def _has_digit(text: str) -> bool:
    """Whether ``text`` has a character that Python calls a digit: no address without one.

    Asked only when the first digit-like character is an astral one (an emoji, or a digit
    that only ``regex`` knows): otherwise the digit found answers it.
    """
    return _DECIMAL.search(text) is not None or any(c.isdigit() for c in text)


def _alternation(words: Sequence[str]) -> str:
    return "|".join(regex.escape(w).replace(r"\ ", r"\s+") for w in sorted(set(words), key=len, reverse=True))


class AddressGrammar(NamedTuple):
    """A loaded addresses.yaml."""

    pattern: regex.Pattern[str]  # the address, street names capitalised
    cues: regex.Pattern[str]  # the phrases that announce an address
    # Fast tests that every address passes (see _prefilters): a digit, a street suffix, a house
    # number with a suffix a few words after it.
    digit: re.Pattern[str]
    suffix: re.Pattern[str]
    street: re.Pattern[str]
    unit: re.Pattern[str]
    # The suffix test for ASCII text, lower-cased first (see _prefilters).
    suffix_lower: re.Pattern[str]


def load_address_grammar(path: Path) -> AddressGrammar:
    """The address grammar; a bad lexicon fails with file, line and reason."""
    data = rulefile.load(path)
    if not isinstance(data, Mapping):
        raise RuleError(path, None, f"expected a mapping with {', '.join(_LISTS)}")
    rulefile.check_keys(path, data, set(_LISTS), set())
    lists: dict[str, list[str]] = {}
    for key in _LISTS:
        words = data[key]
        if (
            not isinstance(words, list)
            or not words
            or not all(isinstance(w, str) and w.strip() for w in words)
        ):
            raise RuleError(path, rulefile.line_of(data), f"{key} must be a non-empty list of words")
        lists[key] = [w.strip().lower() for w in words]
    suffix = _alternation(lists["suffixes"])
    direction = _alternation(lists["directions"])
    unit = _alternation(lists["units"])
    before = _alternation(lists["units_before"])
    not_name = _alternation(lists["not_names"])
    # A street-name word: capitalised, or any case when the flag (?i) is on for a lower-case line;
    # an ordinal ("16th"); never a function word.
    # The look-ahead for a letter or an ordinal goes first: it fails at once where no word
    # starts ("1 1 1 ..."), before the long alternation of words that are no street names.
    word = (
        rf"(?=\p{{L}}|\d{{1,3}}[snrt])(?!(?:{not_name}|{suffix})\b)"
        rf"(?:\p{{Lu}}[\p{{L}}'’.-]*|\d{{1,3}}(?:st|nd|rd|th))"
    )
    pattern = (
        rf"(?<![\w.,/$£€-])"
        rf"(?:(?i:{before})\.?\s*\d{{1,4}}[A-Za-z]?,?\s+)?"
        rf"\d{{1,6}}[A-Za-z]?(?:-\d{{1,4}})?\s+"
        rf"(?:(?i:{direction})\.?\s+)?"
        rf"(?:{word}\s+){{0,3}}{word}\s+"
        rf"(?i:{suffix})\b\.?"
        rf"(?:\s+(?i:{direction})\b\.?)?"
        rf"(?:,?\s+(?:(?i:{unit})\.?\s*#?\s*[A-Za-z0-9][A-Za-z0-9-]{{0,5}}\b"
        # ... or a floor given as an ordinal: "350 Fifth Avenue, 34th Floor".
        rf"|\d{{1,3}}(?i:st|nd|rd|th)\s+(?i:floor|fl)\b\.?))?"
    )
    try:
        return AddressGrammar(
            regex.compile(pattern),
            compile_cues(lists["cues"], typos=True),
            *_prefilters(lists["suffixes"], lists["units_before"]),
        )
    except regex.error as exc:  # a word that breaks the pattern
        raise RuleError(path, rulefile.line_of(data), f"cannot compile the address grammar: {exc}") from exc


def _literal_trie(words: Iterable[str]) -> str:
    """An alternation of literal words as a prefix tree ("st(?:reet)?"): a failing position
    costs a step or two, not one per word."""
    tree: dict[str, dict] = {}  # type: ignore[type-arg]
    for word in words:
        node = tree
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict) -> str:  # type: ignore[type-arg]
        alts = [re.escape(ch) + emit(child) for ch, child in sorted(node.items()) if ch]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        return f"(?:{body})?" if "" in node else body

    return emit(tree)


def _prefilters(
    suffixes: Sequence[str], units_before: Sequence[str]
) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    r"""Tests that every address passes, cheapest first, each looser than the address pattern.

    A digit; a street suffix after a space; a house number with a suffix at most five words
    after it (the pattern allows a direction and up to four street-name words); and, before
    that house number, a unit word where a match may start instead ("Flat 3, 27 Abbey Road").
    They are looser on every character: ``re``'s \s and case folding take in all that
    ``regex``'s do, and so does the digit class (tests/unit/test_addresses_fast.py checks every
    code point); "no ASCII letter or digit after the suffix" follows from the pattern's \b. So
    a text that fails one has no address. They run on ``re`` without a timeout because they
    are linear: character classes, prefix trees of literal words, and a bounded number of
    whole words (possessive runs of \S and \s, which give nothing back) after a house number
    of bounded length.

    The suffix test has a second form for ASCII text, run on the text lower-cased: on ASCII,
    ignoring case is lower-casing, and the offsets stay. It finds what the first finds, and is
    faster: a case-blind alternation tries every branch, where a literal one skips those whose
    first letter differs. (Beyond ASCII, case folding pairs "s" with "ſ" and "i" with "ı", which
    lower-casing does not, so such a text takes the first form.)
    """
    trie = _literal_trie(sorted(set(suffixes)))
    suffix = rf"(?i:{trie})(?![A-Za-z0-9_])"
    # The look-behind comes after the first digit, so that the search skips to digits in C.
    number = rf"{_DIGIT}(?<!{_NOT_BEFORE}[\s\S]){_DIGIT}{{0,5}}[A-Za-z]?(?:-{_DIGIT}{{1,4}})?\s"
    # The first word of a unit written before the number: a match that starts there has it.
    unit = _literal_trie(sorted({w.split()[0] for w in units_before}))
    return (
        re.compile(_DIGIT),
        re.compile(rf"\s{suffix}"),
        re.compile(rf"{number}\s*+(?:\S++\s++){{0,5}}{suffix}"),
        re.compile(unit, re.IGNORECASE),
        # A suffix beyond ASCII might match an ASCII letter by case folding ("ſ"): then the
        # second form keeps ignoring case (on the lower-cased text it finds the same).
        re.compile(rf"\s(?{'' if all(w.isascii() for w in suffixes) else 'i'}:{trie})(?![a-z0-9_])"),
    )


class AddressDetector:
    """STREET_ADDRESS: house number + street name + suffix + optional unit."""

    name = "address"
    entities = frozenset({"STREET_ADDRESS"})

    def __init__(self, grammar: AddressGrammar, *, timeout: float = 0.5) -> None:
        self.pattern, self.cues, self._digit, self._suffix, self._street, self._unit = grammar[:6]
        self._suffix_lower = grammar.suffix_lower
        # The same grammar for street names typed without capitals: "7843 cedar avenue".
        self.lower = regex.compile(self.pattern.pattern.replace(r"\p{Lu}", r"\p{L}"))
        self.timeout = timeout

    def detect(self, text: str) -> list[Finding]:
        # Most texts have no digit, or no street suffix after the first one: two searches in C.
        digit = self._digit.search(text)
        if digit is None:
            return []
        if text.isascii():
            if self._suffix_lower.search(text.lower(), digit.start()) is None:
                return []
        elif self._suffix.search(text, digit.start()) is None:
            return []
        if not text[digit.start()].isdecimal() and not _has_digit(text):
            return []
        out: list[Finding] = []
        # The address pattern runs only on the lines where a house number has a suffix after it,
        # from that number on, or from a unit word before it: no match can start earlier.
        pos = digit.start()
        while (hit := self._street.search(text, pos)) is not None:
            start = text.rfind("\n", 0, hit.start()) + 1
            end = text.find("\n", hit.start())
            end = len(text) if end < 0 else end
            unit = self._unit.search(text, start, hit.start())
            first = hit.start() if unit is None else unit.start()
            self._line(text[start:end], start, first - start, out)
            pos = end + 1
        return out

    def _line(self, line: str, pos: int, first: int, out: list[Finding]) -> None:
        """The addresses of ``line`` (at ``pos`` in the text) that start at ``first`` or later."""
        lower_case = line == line.lower()
        # Matching is linear: a long line gets a budget in proportion, as the patterns do.
        timeout = self.timeout * max(1.0, len(line) / TIMEOUT_CHARS)
        try:
            # The look-behind before a match still sees the characters before ``first``.
            matches = list(self.lower.finditer(line, first, timeout=timeout))
            if not lower_case:
                matches = [m for m in matches if self._cased(line, m)]
        except TimeoutError as exc:
            raise RegexTimeout("street_address") from exc
        for m in matches:
            # A dot after the suffix ends the sentence or the abbreviation: not the value's.
            end = pos + m.start() + len(m.group().rstrip("."))
            out.append(Finding(pos + m.start(), end, "STREET_ADDRESS", SCORE, self.name))

    def _cased(self, line: str, m: regex.Match[str]) -> bool:
        """Whether a match on a line with capitals is an address: capitalised, or after a cue."""
        if self.pattern.fullmatch(line, m.start(), m.end(), timeout=self.timeout):
            return True
        return self.cues.search(line, max(0, m.start() - CUE_WINDOW), m.start()) is not None
