"""What a name looks like: its words in capitals or in lower case, initials, particles, and the
words that cut a candidate short or rule it out (roles, keys, log words, companies)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import regex

# A capitalised name word: "Martín", "McDonald", "O'Neil", "Jean-Luc", "Seo-yeon", "al-Rashid",
# "d'Souza"; never all capitals.
CASED = r"(?:\p{Lu}['’]|(?:al|el|ad|ud|ul|d)['’-])?\p{Lu}\p{Ll}[\p{L}'’]*(?:-\p{L}\p{Ll}+)?"
# A name word in capitals ("Cardholder: JOHN SMITH"): only in a field, and two words or more.
CAPS = r"\p{Lu}(?:['’]\p{Lu})?\p{Lu}+(?:-\p{Lu}+)?"
# A chat time stamp before a speaker: "[10:42]", "[3:07 PM]" (log stamps have seconds).
STAMP = r"\[\d{1,2}:\d\d(?:[ \t]?[AaPp][Mm])?\]"
# The same on a line typed without capitals.
LOWER = r"\p{Ll}[\p{Ll}'’]+(?:-\p{Ll}+)?"
# Initials before or inside a name: "J. Smith", "John F. Kennedy", "J.R.R. Tolkien".
INITIALS = r"\p{Lu}\.(?:[ \t]?\p{Lu}\.)*"
# The end of a line, "\r\n" or "\n" (the SMTP relay hands over bodies with CRLF).
EOL = r"[ \t]*\r?$"
# One name word, capitalised or in lower case; an initial ("P.").
CASED_WORD = regex.compile(CASED)
LOWER_WORD = regex.compile(LOWER)
INITIAL = regex.compile(r"\p{Lu}\.")
CAPS_WORD = regex.compile(CAPS)
SEPARATORS = re.compile(r"[\s_-]+")
TWICE = re.compile(r"(.)\1")
_NAME_WORD = regex.compile(r"[^\s]+")
# A character that joins a name word to its neighbour, as the recurrence pattern had it:
# one character class, so no backtracking.
_JOINER = regex.compile(r"[\p{L}\d'’-]")


@dataclass(frozen=True)
class Endings:
    """Word endings, each with the least length of a word that has it (names.yaml)."""

    suffixes: tuple[str, ...]
    least: tuple[tuple[str, int], ...]

    @classmethod
    def of(cls, lengths: Mapping[str, int]) -> Endings:
        return cls(tuple(lengths), tuple(lengths.items()))

    def end(self, word: str) -> bool:
        """Whether ``word`` (in lower case) has one of the endings, and the length for it."""
        return word.endswith(self.suffixes) and any(
            len(word) >= n and word.endswith(e) for e, n in self.least
        )


class ShapeWords(Protocol):
    """The word lists of names.yaml that say what a name looks like (NameLexicon has them)."""

    @property
    def agent_endings(self) -> Endings: ...
    @property
    def cased_endings(self) -> Endings: ...
    @property
    def lower_endings(self) -> Endings: ...
    @property
    def common(self) -> frozenset[str]: ...
    @property
    def header_words(self) -> frozenset[str]: ...
    @property
    def no_name(self) -> frozenset[str]: ...
    @property
    def not_agent_nouns(self) -> frozenset[str]: ...
    @property
    def not_names(self) -> frozenset[str]: ...
    @property
    def org_words(self) -> frozenset[str]: ...
    @property
    def particles(self) -> frozenset[str]: ...
    @property
    def roles(self) -> frozenset[str]: ...


@dataclass(frozen=True)
class Namer:
    """Builds the pattern of a name of a lexicon's particles; its group ``n`` is the name."""

    particles: str  # an alternation of the particles ("van", "de la" ...)
    title: str  # a title and the blanks after it ("Dr. ")

    def name(self, word: str, most: int = 4, least: int = 1, *, lead: bool = False) -> str:
        """``least`` to ``most`` words of ``word``, with initials and particles between them."""
        # After a title a name may start with its particles ("Dear Mr. van der Berg").
        first = rf"(?:(?:{self.particles})[ \t]+){{0,2}}" if lead else ""
        gap = rf"[ \t]+(?:(?:{self.particles}|{INITIALS})[ \t]+){{0,2}}"
        # A last initial after the name: "Ji-woo P." ("Avi P.: hi").
        last = r"(?:[ \t]+\p{Lu}\.(?![\p{L}\d]))?"
        return rf"(?P<n>{first}(?:{INITIALS}[ \t]*)?{word}(?:{gap}{word}){{{least - 1},{most - 1}}}{last})"

    def titled(self, word: str, most: int = 4) -> str:
        """A name, or a title and a name (the title not part of it)."""
        return rf"(?:{self.title}{self.name(word, most, lead=True)}|{self.name(word, most)})"


def trim(lex: ShapeWords, text: str, start: int, end: int) -> int:
    """End of the name once a word that is never a name cuts it short (start: no name).

    A company's word ("Apple Support") means the words before it were no person's name.
    """
    for m in _NAME_WORD.finditer(text, start, end):
        raw = m.group()
        if len(raw) == 2 and raw[1] == "." and raw[0].isupper():
            continue  # an initial ("A. Novak"), even one that is also a word
        word = raw.lower().rstrip(".!,;:")
        if word in lex.org_words:
            return start
        if word in lex.not_names:
            return start + len(text[start : m.start()].rstrip(" \t,"))
    return end


def uncommon(lex: ShapeWords, text: str, start: int, end: int) -> bool:
    """Whether no word of a name found without capitals is a common English word.

    Words with one of the lexicon's common endings count as common too: "-ly" adverbs and
    "-ing" words ("my husband usually is ...", "customer: checking").
    """
    for word in text[start:end].lower().split():
        word = word.strip(".,;:!")
        if word in lex.particles:
            continue
        if word in lex.common or (word.endswith(lex.lower_endings.suffixes) and lex.lower_endings.end(word)):
            return False
    return True


def shaped(lex: ShapeWords, words: Sequence[str], lower: bool, most: int = 3, least: int = 1) -> bool:
    """Whether ``words`` are ``least`` to ``most`` name words (initials and particles aside)
    and none is a word of roles, keys, logs, companies or common English."""
    named = 0
    endings = lex.lower_endings if lower else lex.cased_endings
    for w in words:
        if not lower and INITIAL.fullmatch(w) is not None:
            continue
        if w in lex.particles:
            continue
        low = w.lower()
        if low in lex.no_name or low in lex.roles or (low.endswith(endings.suffixes) and endings.end(low)):
            return False
        if (LOWER_WORD if lower else CASED_WORD).fullmatch(w) is None:
            return False
        named += 1
    return least <= named <= most


def role(lex: ShapeWords, label: str) -> bool:
    """Whether a chat label is a role ("Advisor", "Cust", "Custmer", "CSR") or a handle
    ("support_bot", "guest_8812"), no name."""
    low = " ".join(label.lower().split())
    if low in lex.roles or "_" in low or any(c.isdigit() for c in low):
        return True
    if " " not in low and (agent_noun(lex, low) or header_key(lex, low)):
        return True
    # Letters typed twice count as once ("Customeer", "Aggent").
    return all(w in lex.roles or TWICE.sub(r"\1", w) in lex.roles for w in SEPARATORS.split(low) if w)


def agent_noun(lex: ShapeWords, word: str) -> bool:
    """Whether a one-word label has the ending of an agent noun ("preparer", "adjuster")."""
    return word not in lex.not_agent_nouns and lex.agent_endings.end(word)


def header_key(lex: ShapeWords, word: str) -> bool:
    """Whether a hyphenated label is a header's key ("content-type", "x-request-id")."""
    parts = word.split("-")
    if len(parts) < 2:
        return False
    return parts[0] == "x" or len(parts) >= 3 or any(p in lex.header_words for p in parts)


def may_start(text: str, i: int, lower: bool) -> bool:
    """Whether a name may start at ``i``: a capital (or "al-", "d'" ...), any letter on a lower line.

    Never false where the pattern would match; beyond ASCII it says yes to all but lower-case
    letters, because the regex module knows letters newer than this Python's Unicode tables.
    """
    if i >= len(text):
        return False
    ch = text[i]
    if ch.isascii():
        return ch.isalpha() if lower else (ch.isupper() or ch in "aeud")
    return lower or not ch.islower()


def joins(ch: str) -> bool:
    """Whether ``ch`` continues a name word (a letter, a digit, an apostrophe or a hyphen)."""
    if ch.isascii():
        return ch.isalnum() or ch in "'-"
    return _JOINER.match(ch) is not None


def ends_name(ch: str) -> bool:
    """Whether a name word may end in ``ch`` (a letter or an apostrophe)."""
    return ch.isalpha() or ch in "'’" or not ch.isascii()
