"""Street addresses by a small grammar compiled from grammar/addresses.yaml: a house number
before the street ("742 Evergreen Ter", "2500 County Road 42", "1500 Broadway"), the number
after it ("Via Roma 5", "Rue des Lilas 12", "Avenida Paulista 1578"), and PO boxes ("P.O. Box 77")."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

import regex

from scrubber import rulefile
from scrubber.detectors import CHECK_EVERY, REGEX_TIMEOUT, MessageContext
from scrubber.detectors.cues import compile_cues
from scrubber.detectors.patterns import TIMEOUT_CHARS, RegexTimeout
from scrubber.findings import Finding
from scrubber.rulefile import RuleError

_LISTS = (
    "suffixes",
    "name_suffixes",
    "confirmed_suffixes",
    "route_suffixes",
    "named_streets",
    "streets_first",
    "streets_after_number",
    "particles",
    "po_boxes",
    "after_plural_ok",
    "directions",
    "units",
    "units_before",
    "not_names",
    "not_street_words",
    "cues",
)
SCORE = 0.85
# The ZIP code of a US address written on one line, after the street we found (and its unit):
# a comma or blanks, one to three words of the city or the state (capitalised, or any on a line
# in lower case), then five digits (ZIP+4 too) that no capitalised word follows ("88 Cedar
# Hollow Ln, Asheville NC 28803", "1520 Ocean Pkwy Apt 6F, Brooklyn 11230"). A code right
# after the street and before the city ("Calle Mayor 10, 28013 Madrid") is another country's
# postcode, which ZIP_CODE does not take in. Linear: a bounded number of words, each a run of
# at most 31 letters.
_ZIP_AFTER = (
    r",?[ \t]+(?:\p{Lu}[\p{L}.'’-]{0,30}+,?[ \t]+){1,3}"
    r"(?<zip>\d{5}(?:-\d{4})?)(?![\w-]|[ \t]+\p{Lu})"
)
ZIP_AFTER = regex.compile(_ZIP_AFTER)
ZIP_AFTER_LOWER = regex.compile(_ZIP_AFTER.replace(r"\p{Lu}[", r"\p{L}["))
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
    # The forms with the number last ("Via Roma 5", "PO Box 12"), street names capitalised, and
    # their fast test: a street type or box word with a digit after it on its line.
    first: regex.Pattern[str]
    first_street: re.Pattern[str]  # after a space
    first_start: re.Pattern[str]  # at the start of the text
    first_lower: re.Pattern[str]  # after a space, for ASCII text lower-cased
    lists: Mapping[str, Sequence[str]]  # the word lists, lower case


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
    clash = set(lists["confirmed_suffixes"]) & (set(lists["suffixes"]) | set(lists["streets_after_number"]))
    if clash:
        raise RuleError(
            path,
            rulefile.line_of(data),
            f"confirmed_suffixes may not repeat suffixes or streets_after_number: {', '.join(sorted(clash))}",
        )
    alt = {key: _alternation(words) for key, words in lists.items() if key != "cues"}
    suffix, direction, unit, not_name = alt["suffixes"], alt["directions"], alt["units"], alt["not_names"]
    # Suffixes that are no street-name word in lower case ("street", "rd"; "hollow" is one).
    only_suffix = _alternation([w for w in lists["suffixes"] if w not in set(lists["name_suffixes"])])
    # A street-name word: capitalised, or any case when the flag (?i) is on for a lower-case line;
    # an ordinal ("16th"); never a function word in lower case, nor a suffix that is no name
    # ("58 birch hollow ln" has one that is).
    # The look-ahead for a letter or an ordinal goes first: it fails at once where no word
    # starts ("1 1 1 ..."), before the long alternation of words that are no street names.
    # Never a time or a measure, in any case ("11:00 AM PT", "a 5 Min Walk").
    not_street = rf"(?i:{alt['not_street_words']})(?![\p{{L}}.])"
    word = (
        rf"(?=\p{{L}}|\d{{1,3}}[snrt])(?!(?:{not_name}|{only_suffix})\b|{not_street})"
        rf"(?:\p{{Lu}}[\p{{L}}'’.-]*|\d{{1,3}}(?:st|nd|rd|th))"
    )
    # Words of a street name after a type written first (Rue des Lilas), lower-case particles
    # among them; the first word after the type is capitalised in any line, or a particle.
    particle = rf"(?:(?i:{alt['particles']})\s+|(?i:d|l)['’])"
    cap = r"\p{Uppercase_Letter}[\p{L}'’.-]*"
    # A unit word ends the name: "1500 Calle Ocho Apt 3" is no street "Calle Ocho Apt" numbered 3.
    no_unit = rf"(?!(?i:{unit})\b)"
    after_type = rf"(?:{particle}*{no_unit}{word}|{no_unit}{cap})(?:\s+{particle}*{no_unit}{word}){{0,3}}"
    # What follows a street with no suffix, or with the number last: the end, punctuation, a
    # capitalised word (the city), a unit, a number (the postcode); no lower-case word.
    end = rf"(?=\s*$|\s*[,;:!?.)\]}}\"'/|]|\s+\p{{Uppercase_Letter}}|\s+(?i:{unit})\b|\s+\d|\s+[-–—]\s)"
    # A house number is never "0" nor two digits starting with 0 ("00 AM", "07"), nor follows
    # "digit:" (a time: "11:00"); three digits or more may start with 0 ("0219 Michael Burg").
    # A flat's number may come first, with a slash: "4/118 Ponsonby Road" (Australia, New Zealand).
    house = r"(?<!\d:)(?!0\d?(?!\d))(?:\d{1,4}[A-Za-z]?/(?!0\d?(?!\d)))?\d{1,6}[A-Za-z]?(?:-\d{1,4})?"
    # A unit after a street with the number last: "Apt 3", or a Spanish floor and door
    # ("Calle Mayor 12, 3º B", "2º izq.").
    # A floor written as a number with a dot and a side or a floor word after a comma: Danish
    # "5. mf" / "2. th" / "st. tv", German "3. OG" / "2. Stock", French "4e étage".
    floor = (
        r"(?:\d{1,2}\.|st\.)\s?(?i:th|tv|mf|og|eg|dg|stock|etage|étage)\b\.?"
        r"|\d{1,2}(?:e|er|ème)\s(?i:étage|etage)\b"
    )
    unit_after = (
        rf"(?:,?\s+(?:(?i:{unit})\.?\s*#?\s*[A-Za-z0-9][A-Za-z0-9-]{{0,5}}\b|{floor}"
        r"|\d{1,2}\s?[º°ª](?:\s?(?:\d{1,2}\s?[ºª°]|[A-Z]\b|(?i:izq(?:da|uierda)?|dcha|dch|derecha|centro)\b\.?))?))?"
    )
    number_last = r"(?!0)\d{1,5}[A-Za-z]?(?:[-/]\d{1,4}[A-Za-z]?)?\b"
    # What confirms a street that ends in one of `confirmed_suffixes`: a unit after it, or a
    # city (one to three capitalised words), a state code and a ZIP code after a comma; else
    # (group ``cued``: no plural noun after it) an address cue before the house number or a
    # person's name as the street's last name word (see AddressDetector._line). Such a suffix
    # is capitalised, even on a line in lower case ("we moved to 7 Willow Bend last spring"
    # ends in "Bend").
    city_tail = r",\s*(?:\p{Lu}[\p{L}'’.-]*\s+){0,2}\p{Lu}[\p{L}'’.-]*,?\s+\p{Lu}{2}\s+\d{5}(?:-\d{4})?\b"
    confirmed = (
        rf"(?=\p{{Uppercase_Letter}})(?i:{alt['confirmed_suffixes']})\b\.?"
        rf"(?:(?=,?\s+(?i:{unit})\b|{city_tail})|(?<cued>(?!\.?\s+(?!(?i:{alt['after_plural_ok']})\b)\p{{Ll}}+s\b)))"
    )
    route_no = r"\d{1,4}[A-Za-z]?\b"
    unit_lead = rf"(?i:{alt['units_before']})\.?\s*\d{{1,4}}[A-Za-z]?"
    # A comma may follow the number before a French type: "36, rue des Lilas".
    house_part = rf"{house}(?:,(?=\s+(?i:{alt['streets_after_number']})\s))?\s+"
    pattern = (
        rf"(?<![\w.,/$£€-])"
        # A unit before the house number ("Flat 3, 27 Abbey Road"), or before a comma and the
        # street with no house number ("Studio 59, Taylor Islands").
        # ... or a unit word before a flat's number and a slash ("Unit 3/41 Karori Road").
        rf"(?:{unit_lead},?\s+{house_part}|{unit_lead},\s+"
        rf"|(?i:{alt['units_before']})\.?\s+(?=\d{{1,4}}[A-Za-z]?/\d){house_part}|{house_part})"
        rf"(?:(?i:{direction})\.?\s+)?"
        rf"(?:"
        # "2500 County Road 42"; with no name, a house number of two digits: "77 Highway 101 N".
        rf"(?:(?:{word}\s+){{0,3}}{word}\s+|(?<=\d\d[A-Za-z]?\s+)(?=(?i:{alt['route_suffixes']})\.?\s+\d))"
        rf"(?:(?i:{alt['route_suffixes']})\.?\s+{route_no}|(?i:{suffix})\b\.?"
        # A plural noun after the street makes it a name of things: "3 Main St. locations".
        rf"(?!\.?\s+(?!(?i:{alt['after_plural_ok']})\b)\p{{Ll}}+s\b)|{confirmed})"
        # "1500 Broadway"; "12 rue des Lilas".
        rf"|(?i:{alt['named_streets']})\b{end}"
        rf"|(?i:{alt['streets_after_number']})\s+{after_type}{end}"
        rf")"
        rf"(?:\s+(?i:{direction})\b\.?)?"
        rf"(?:,?\s+(?:(?i:{unit})\.?\s*#?\s*[A-Za-z0-9][A-Za-z0-9-]{{0,5}}\b"
        # ... or a floor given as an ordinal: "350 Fifth Avenue, 34th Floor", or "5. mf".
        rf"|\d{{1,3}}(?i:st|nd|rd|th)\s+(?i:floor|fl)\b\.?|{floor}))?"
    )
    first = (
        # At the start of the text or of a line, or after a space: the fast test looks for the
        # word after a space, or at the start of the text.
        rf"(?<!\S)"
        rf"(?:"
        # "PO Box 1234", "P.O. Box 77".
        rf"(?i:{alt['po_boxes']})\s*#?\s*\d{{1,6}}\b(?![.,]\d)"
        # "Broadway 1500"; "Via Roma 5", "Rue des Lilas 12, Paris"; the type capitalised unless
        # the line is lower case.
        # A type abbreviated with a dot may be in lower case before a capitalised name, as
        # Polish streets are written: "ul. Piękna 17/3", "ul. Słoneczna 8".
        rf"|(?=\p{{Lu}}|(?i:{alt['streets_first']})\.\s+\p{{Lu}})"
        rf"(?:(?i:{alt['named_streets']})|(?i:{alt['streets_first']})\.?\s+{after_type}),?"
        # A number with a flat's after a slash ("ul. Piękna 17/3") says enough: any word may follow.
        rf"\s+(?:(?!0)\d{{1,5}}[A-Za-z]?/\d{{1,4}}[A-Za-z]?\b(?![/-]\d)|{number_last}{end}){unit_after}"
        rf")"
    )
    try:
        return AddressGrammar(
            regex.compile(pattern),
            compile_cues(lists["cues"], typos=True),
            *_prefilters(lists),
            regex.compile(first),
            *_first_prefilter(lists),
            lists,
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


def _first_words(lists: Mapping[str, Sequence[str]]) -> list[str]:
    """The words that a form with the number last starts with: a street type, a named street,
    the first word of a PO box."""
    boxes = {w.split()[0] for w in lists["po_boxes"]}
    return sorted(set(lists["streets_first"]) | set(lists["named_streets"]) | boxes)


def _ends(lists: Mapping[str, Sequence[str]]) -> list[str]:
    """The words after which a house number's street may end: suffixes, named streets, types
    written after the number."""
    return sorted(
        set(lists["suffixes"])
        | set(lists["confirmed_suffixes"])
        | set(lists["named_streets"])
        | set(lists["streets_after_number"])
    )


def _prefilters(
    lists: Mapping[str, Sequence[str]],
) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    r"""Tests that every address passes, cheapest first, each looser than the address pattern.

    A digit; a street suffix after a space, or a word that starts a form with the number last
    ("Via", "PO") at the start or after a space; a house number with a suffix at most five words
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
    suffix = rf"(?i:{_literal_trie(_ends(lists))})(?![A-Za-z0-9_])"
    # The words the suffix test looks for: those that end a street and those that start one.
    both = sorted(set(_ends(lists)) | set(_first_words(lists)))
    words = _literal_trie(both)
    ascii_words = _literal_trie([w for w in both if w.isascii() or _folds_to_ascii(w)])
    # The look-behind comes after the first digit, so that the search skips to digits in C.
    # A flat's number and a slash may come first ("4/118 Ponsonby Road").
    number = (
        rf"{_DIGIT}(?<!{_NOT_BEFORE}[\s\S]){_DIGIT}{{0,5}}[A-Za-z]?"
        rf"(?:/{_DIGIT}{{1,6}}[A-Za-z]?)?(?:-{_DIGIT}{{1,4}})?,?\s"
    )
    # The first word of a unit written before the number: a match that starts there has it.
    unit = _literal_trie(sorted({w.split()[0] for w in lists["units_before"]}))
    return (
        re.compile(_DIGIT),
        re.compile(rf"\s(?i:{words})(?![A-Za-z0-9_])"),
        re.compile(rf"{number}\s*+(?:\S++\s++){{0,5}}{suffix}"),
        re.compile(unit, re.IGNORECASE),
        # A word beyond ASCII might match an ASCII letter by case folding ("ſ"): then the
        # second form keeps ignoring case (on the lower-cased text it finds the same). One whose
        # letters beyond ASCII fold to none in it ("allée") never matches ASCII text: left out.
        re.compile(rf"\s(?{'i' if any(map(_folds_to_ascii, both)) else ''}:{ascii_words})(?![a-z0-9_])"),
    )


def _folds_to_ascii(word: str) -> bool:
    """Whether a letter of ``word`` beyond ASCII has an ASCII letter for a case ("ſ", "K")."""
    return any(not c.isascii() and (c.lower().isascii() or c.upper().isascii()) for c in word)


def _first_prefilter(
    lists: Mapping[str, Sequence[str]],
) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """The fast tests of the forms with the number last: a word they start with, after a space
    or at the start of the text, and a digit after it on its line. Looser than the pattern on
    every character, as _prefilters are."""
    words = _first_words(lists)
    first = rf"(?i:{_literal_trie(words)})(?![A-Za-z0-9_])[^\n]*?{_DIGIT}"
    # On ASCII text lower-cased, as the suffix test: a literal prefix tree is faster.
    ascii_words = [w for w in words if w.isascii() or _folds_to_ascii(w)]
    fold = "i" if any(map(_folds_to_ascii, words)) else ""
    lower = rf"\s(?{fold}:{_literal_trie(ascii_words)})(?![a-z0-9_])[^\n]*?{_DIGIT}"
    return re.compile(rf"\s{first}"), re.compile(first), re.compile(lower)


def _default_name_word(word: str) -> bool:
    """The default grammar's name lexicon (loaded once, when first asked; see
    Lexicon.street_name_word): for a detector built without the registry's."""
    from scrubber.detectors.names.model import load_model

    return load_model().lexicon.street_name_word(word)


def _named_after_person(street: str, name_word: Callable[[str], bool]) -> bool:
    """Whether the word before a street's suffix ("Tyler" in "990 Tyler Lake", "Ashgrove" in "12
    Ashgrove View") is capitalised and ``name_word`` says it names a person or a place: a given
    name or a surname written capitalised more often than not, a word written capitalised far
    more often than not, or one no list knows ("Golden", "Rock" and "Green" are none)."""
    words = street.rstrip(".").split()
    if len(words) < 3:
        return False
    word = words[-2]
    return word[:1].isupper() and word[1:].islower() and name_word(word.lower())


class AddressDetector:
    """STREET_ADDRESS: house number + street name + suffix + optional unit; street type + name +
    number; PO box."""

    name = "address"
    # ZIP_CODE: the ZIP code after a street it found (ZIP_AFTER).
    entities = frozenset({"STREET_ADDRESS", "ZIP_CODE"})

    def __init__(
        self,
        grammar: AddressGrammar,
        *,
        timeout: float = REGEX_TIMEOUT,
        name_word: Callable[[str], bool] | None = None,
    ) -> None:
        # Whether a lower-case word is a person's name (confirms "990 Tyler Lake"): the name
        # model's lexicon of the same grammar directory, from the registry.
        self._name_word = name_word or _default_name_word
        self.pattern, self.cues, self._digit, self._suffix, self._street, self._unit = grammar[:6]
        self._suffix_lower = grammar.suffix_lower
        self.first, self._first_street, self._first_start, self._first_lower = grammar[7:11]
        # The characters that the start test may match first (re folds "ſ", "K", "ı", "İ" to ASCII
        # letters): a text that starts otherwise skips that search.
        words = _first_words(grammar.lists)
        heads = {w[0] for w in words}
        self._first_heads = frozenset(heads | {h.upper() for h in heads} | set("ſ\u212aıİ"))
        # ... and for ASCII text lower-cased, the first two characters (every word has two).
        self._first_heads2 = frozenset(w[:2] for w in words)
        # The same grammars for street names typed without capitals: "7843 cedar avenue".
        self.lower = regex.compile(self.pattern.pattern.replace(r"\p{Lu}", r"\p{L}"))
        self.first_lower = regex.compile(self.first.pattern.replace(r"\p{Lu}", r"\p{L}"))
        self.timeout = timeout

    def detect(self, text: str, ctx: MessageContext) -> list[Finding]:
        # Most texts have no digit, or no street word (a suffix, or a word that starts a street
        # with the number last: "Via", "PO") after a space or at the start: two searches in C.
        digit = self._digit.search(text)
        if digit is None:
            return []
        lower = None
        if text.isascii():
            if self._suffix_lower.search(lower := text.lower()) is None and (
                lower[:2] not in self._first_heads2 or self._first_start.match(text) is None
            ):
                return []
        elif self._suffix.search(text) is None and self._starts_first(text) is None:
            return []
        if not text[digit.start()].isdecimal() and not _has_digit(text):
            return []
        out: list[Finding] = []
        # The address pattern runs only on the lines where a house number has a suffix after it,
        # from that number on, or from a unit word before it: no match can start earlier.
        pos = digit.start()
        while (hit := self._street.search(text, pos)) is not None:
            ctx.check(self.name)
            start = text.rfind("\n", 0, hit.start()) + 1
            end = text.find("\n", hit.start())
            end = len(text) if end < 0 else end
            unit = self._unit.search(text, start, hit.start())
            first = hit.start() if unit is None else unit.start()
            self._line(self.lower, self.pattern, text[start:end], start, first - start, out, ctx)
            pos = end + 1
        # The forms with the number last, from the word they start with (after the space that
        # the search finds before it).
        found, pos = len(out), 0
        at: int | None = 0 if self._starts_first(text) else None  # rare: no need to be fast
        while True:
            if at is None:
                if lower is not None:
                    hit = self._first_lower.search(lower, pos)
                else:
                    hit = self._first_street.search(text, pos)
                if hit is None:
                    break
                at = hit.start() + 1
            ctx.check(self.name)
            start = text.rfind("\n", 0, at) + 1
            end = text.find("\n", at)
            end = len(text) if end < 0 else end
            self._line(self.first_lower, self.first, text[start:end], start, at - start, out, ctx)
            pos, at = end, None
        if len(out) > found:
            # A PO box given as the unit of a street address is part of that finding already.
            kept = out[:found]
            for f in out[found:]:
                if not any(f.start < k.end and k.start < f.end for k in kept):
                    kept.append(f)
            out = sorted(kept, key=lambda f: f.start)
        return out + self._postcodes(text, out) if out else out

    def _postcodes(self, text: str, streets: list[Finding]) -> list[Finding]:
        """ZIP_CODE for the ZIP code that follows a street on its line (see ZIP_AFTER)."""
        found = []
        # The streets come in order: the line of the last one, and whether it is all lower
        # case, serve the next ones on the same line (a long line may hold many).
        start = end = -1
        lower_case = False
        for f in streets:
            if not start <= f.start < f.end <= end:
                end = text.find("\n", f.end)
                end = len(text) if end < 0 else end
                start = text.rfind("\n", 0, f.start) + 1
                line = text[start:end]
                lower_case = line == line.lower()
            pattern = ZIP_AFTER_LOWER if lower_case else ZIP_AFTER
            try:
                m = pattern.match(text, f.end, end, timeout=self.timeout)
            except TimeoutError as exc:
                raise RegexTimeout("street_address") from exc
            if m is not None:
                found.append(Finding(m.start("zip"), m.end("zip"), "ZIP_CODE", SCORE, self.name))
        return found

    def _starts_first(self, text: str) -> re.Match[str] | None:
        """The start test of the forms with the number last, at the start of the text."""
        return self._first_start.match(text) if text[:1] in self._first_heads else None

    def _line(
        self,
        lower: regex.Pattern[str],
        cased: regex.Pattern[str],
        line: str,
        pos: int,
        first: int,
        out: list[Finding],
        ctx: MessageContext,
    ) -> None:
        """The addresses of ``line`` (at ``pos`` in the text) that start at ``first`` or later:
        the matches of ``lower``, and on a line with capitals those that ``cased`` matches too
        or that a cue announces."""
        lower_case = line == line.lower()
        # Matching is linear: a long line gets a budget in proportion, as the patterns do.
        timeout = self.timeout * max(1.0, len(line) / TIMEOUT_CHARS)
        try:
            # The look-behind before a match still sees the characters before ``first``.
            matches = list(lower.finditer(line, first, timeout=timeout))
            if not lower_case:
                matches = [m for m in matches if self._cased(cased, line, m)]
        except TimeoutError as exc:
            raise RegexTimeout("street_address") from exc
        for k, m in enumerate(matches):
            if k % CHECK_EVERY == CHECK_EVERY - 1:  # a long line may hold many
                ctx.check(self.name)
            # A street ending in a confirmed suffix with nothing after it to confirm it is an
            # address only after a cue ("Address: 115 Cummings Walks"; not "at 5 Golden Springs"),
            # or when a person's or a place's own name is the word before the suffix ("990 Tyler
            # Lake", "12 Ashgrove View").
            if (
                m.groupdict().get("cued") is not None
                and not self._cue_before(line, m.start())
                and not _named_after_person(m.group(), self._name_word)
            ):
                continue
            # A dot after the suffix ends the sentence or the abbreviation: not the value's.
            end = pos + m.start() + len(m.group().rstrip("."))
            out.append(Finding(pos + m.start(), end, "STREET_ADDRESS", SCORE, self.name))

    def _cased(self, cased: regex.Pattern[str], line: str, m: regex.Match[str]) -> bool:
        """Whether a match on a line with capitals is an address: capitalised, or after a cue."""
        if cased.fullmatch(line, m.start(), m.end(), timeout=self.timeout):
            return True
        return self._cue_before(line, m.start())

    def _cue_before(self, line: str, start: int) -> bool:
        return self.cues.search(line, max(0, start - CUE_WINDOW), start) is not None
