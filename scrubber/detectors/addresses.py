"""Street addresses by a small grammar compiled from grammar/addresses.yaml."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

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


def _alternation(words: Sequence[str]) -> str:
    return "|".join(regex.escape(w).replace(r"\ ", r"\s+") for w in sorted(set(words), key=len, reverse=True))


def load_address_grammar(path: Path) -> tuple[regex.Pattern[str], regex.Pattern[str]]:
    """The address pattern and the cue pattern; a bad lexicon fails with file, line and reason."""
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
        return regex.compile(pattern), compile_cues(lists["cues"], typos=True)
    except regex.error as exc:  # a word that breaks the pattern
        raise RuleError(path, rulefile.line_of(data), f"cannot compile the address grammar: {exc}") from exc


class AddressDetector:
    """STREET_ADDRESS: house number + street name + suffix + optional unit."""

    name = "address"
    entities = frozenset({"STREET_ADDRESS"})

    def __init__(
        self, grammar: tuple[regex.Pattern[str], regex.Pattern[str]], *, timeout: float = 0.5
    ) -> None:
        self.pattern, self.cues = grammar
        # The same grammar for street names typed without capitals: "7843 cedar avenue".
        self.lower = regex.compile(self.pattern.pattern.replace(r"\p{Lu}", r"\p{L}"))
        self.timeout = timeout

    def detect(self, text: str) -> list[Finding]:
        if not any(c.isdigit() for c in text):
            return []
        out: list[Finding] = []
        pos = 0
        for line in text.split("\n"):
            lower_case = line == line.lower()
            # Matching is linear: a long line gets a budget in proportion, as the patterns do.
            timeout = self.timeout * max(1.0, len(line) / TIMEOUT_CHARS)
            try:
                matches = list(self.lower.finditer(line, timeout=timeout))
                if not lower_case:
                    matches = [m for m in matches if self._cased(line, m)]
            except TimeoutError as exc:
                raise RegexTimeout("street_address") from exc
            for m in matches:
                # A dot after the suffix ends the sentence or the abbreviation: not the value's.
                end = pos + m.start() + len(m.group().rstrip("."))
                out.append(Finding(pos + m.start(), end, "STREET_ADDRESS", SCORE, self.name))
            pos += len(line) + 1
        return out

    def _cased(self, line: str, m: regex.Match[str]) -> bool:
        """Whether a match on a line with capitals is an address: capitalised, or after a cue."""
        if self.pattern.fullmatch(line, m.start(), m.end(), timeout=self.timeout):
            return True
        return self.cues.search(line, max(0, m.start() - CUE_WINDOW), m.start()) is not None
