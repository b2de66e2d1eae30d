"""The contexts that a phrase announces: greetings, titles, intros, fields, relations, records ...

One scan finds every context's phrases (``NameLexicon.trigger``). A context's pattern is tried
only where the scan found one of its phrases, anchored there (at the phrase, at the start of
its line, or at the "my" before it), and only after a cheap test of the characters around the
phrase says a name can follow. Every test is a necessary condition of the pattern, so it never
drops a match; it only spares the pattern call (with its timeout, a microsecond or two each) at
the many phrases that start no name.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator

import regex

from scrubber.detectors.cues import CueHits
from scrubber.detectors.names.lexicon import NameLexicon
from scrubber.detectors.names.lines import (
    has_lower_line,
    is_lower,
    label_start,
    line,
    line_opened_by,
    skip,
    skip_space,
)
from scrubber.detectors.names.shapes import ends_name, may_start, trim, uncommon
from scrubber.detectors.names.triggers import Triggers, continues, phrase
from scrubber.detectors.patterns import TIMEOUT_CHARS

# Lower-case letters a name may start with after an intro: its particles ("under van der Berg").
_LEADS = ("v", "d", "l")
# "the other driver was Hyun-woo Park".
_IS_WAS = re.compile(r"\s+(?:was|is)\s", re.IGNORECASE)
# A list item's number: "1.", "2)".
_LIST_NUMBER = re.compile(r"\d{1,3}[.)]")
Candidate = tuple[int, int, str]


class Anchors:
    """Finds the names of the phrase-led contexts; remembers the trigger phrases it has seen."""

    def __init__(self, lexicon: NameLexicon, *, timeout: float) -> None:
        self.lex = lexicon
        self.timeout = timeout
        self.triggers = Triggers(lexicon.inside, lexicon.phrases)
        # The contexts with a pattern for capitalised names, and for lower-case lines.
        self._cased = frozenset(lexicon.exact.cased)
        self._lower = frozenset(lexicon.exact.lower)
        # The relations a name may follow without a comma, on a line without capitals.
        self._kin = frozenset(phrase(r) for r in lexicon.lower_relations)
        # How many first letters of a lower-case title ``title_heads`` holds.
        self._head = len(next(iter(lexicon.title_heads)))

    def names(
        self, text: str, hits: CueHits, closings: list[int], commas: list[int]
    ) -> tuple[list[Candidate], frozenset[str] | None]:
        """Names in the contexts of the phrases found, as (start, end, context), not yet trimmed,
        and the contexts with a mistyped phrase (None if no pattern ran: not worked out).

        The lines where a closing may stand go to ``closings``, the commas before a record's
        cue in running text to ``commas``.
        """
        out: list[Candidate] = []
        mistyped: frozenset[str] | None = None
        for lower, starts in enumerate(self._starts(text, hits, closings, commas)):
            # The lower-case patterns run only where a whole line is typed without capitals.
            if not starts or (lower and not has_lower_line(text)):
                continue
            if mistyped is None:
                mistyped = self.triggers.mistyped(text, hits)
            for how in self.lex.order:
                at = starts.get(how)
                if not at:
                    continue
                ctx = self.lex.slipped if how in mistyped else self.lex.exact
                pattern = ctx.lower[how] if lower else ctx.cased[how]
                for m in matches(pattern, text, at, self.timeout):
                    for s, e in m.spans("n"):
                        # Without capitals, a name in running text is no common word
                        # ("my name is on the account"); the words after it that end a
                        # name ("talk to marisol please") are not looked at.
                        if not lower or (
                            is_lower(line(text, s))
                            and (
                                how in self.lex.keyed
                                or uncommon(self.lex, text, s, trim(self.lex, text, s, e))
                            )
                        ):
                            out.append((s, e, how))
        return out, mistyped

    def _starts(
        self, text: str, hits: CueHits, closings: list[int], commas: list[int] | None = None
    ) -> tuple[dict[str, list[int]], dict[str, list[int]]]:
        """Where each context's pattern may match, capitalised and on lower-case lines (sorted).

        A phrase of one word is what the scan found. A longer one may hide the phrases of
        other contexts inside it ("many thanks" holds the greeting "thanks"), which the
        context's pattern would have found had it run over the whole message: those count too,
        for the contexts that have a phrase of their own in the message. The closings found
        go to ``closings``, as the starts of their lines.
        """
        cased: dict[str, list[int]] = {}
        lower: dict[str, list[int]] = {}
        records: list[int] = []
        for hit in hits:
            s, e = hit.start, hit.end
            matched = text[s:e]
            if matched.isalnum():
                for how in hit.lists:
                    self._note(how, text, s, e, cased, lower, records, closings)
                continue
            wanted = hits.lists
            # What follows the phrase, for a first look at the phrases that run on past it
            # (a mistyped "I'm" hides some sixty): a blank or not, then the next character.
            after = text[e : e + 1]
            blank = after.isspace() or after in ("_", "-")
            if blank:
                j = skip_space(text, e, "_-")
                after = text[j : j + 1]
            by_next = self.triggers.inside_of(matched)[2]
            entries = by_next.get((blank, after.lower() if after.isascii() else None), by_next[blank, ""])
            for off, end, how, nxt in entries:
                if nxt and not continues(text, e, nxt):
                    continue
                for h in (how,) if how else wanted:
                    if h in wanted:
                        self._note(
                            h, text, s + off, s + end if end >= 0 else -1, cased, lower, records, closings
                        )
        if records:
            cased["record"], lower["record"] = record_lines(text, records, self.lex.particles, commas)
        for starts in (cased, lower):
            for how, at in starts.items():
                if len(at) > 1:
                    starts[how] = sorted(set(at))
        return cased, lower

    def _note(
        self,
        how: str,
        text: str,
        p: int,
        end: int,
        cased: dict[str, list[int]],
        lower: dict[str, list[int]],
        records: list[int],
        closings: list[int],
    ) -> None:
        """Files where a context's pattern may match, given its phrase at ``p`` (ending at
        ``end``; -1 if that is not known), if the text around the phrase lets it match at all.
        """
        if how == "closing":
            start = _closing_line(text, p, end)
            if start >= 0:
                closings.append(start)
            return
        if how == "record":
            records.append(p)
            return
        if how == "sign_same_line":
            start = line_opened_by(text, p)
            if start >= 0 and (end < 0 or _signed(text, end)):
                _file(cased, how, start)
            return
        comma_only = False
        start = p
        if how == "speaker":
            if label_start(text, p) < 0:
                return
        elif how == "relation":
            start = _possessive(self.lex, text, p)
            if start < 0:
                return
            if end >= 0:
                named = self.lex.name_of.match(text, end)
                if named is not None:
                    end = named.end()
            # After "the", and on a line without capitals, the name follows a comma, or a verb
            # after it ("my husband donald will call").
            if end >= 0 and "," not in text[end : skip_space(text, end, ",")]:
                if text[start] in "tT" and _IS_WAS.match(text, end) is None:
                    return
                comma_only = True
                if phrase(text[p:end]) in self._kin and may_start(text, skip(text, end, " \t"), True):
                    _file(lower, "kin", start)
        elif how == "talk":
            # The phrases of "talk" count in lower case only.
            if not text[p].islower():
                return
        elif (
            how == "title"
            and text[p].islower()
            and (text[p:end] not in self.lex.dotted_lower_titles or text[end : end + 1] != ".")
        ):
            # Titles are matched capitalised, or "mr." and "mrs." in lower case on a lower-case
            # line: "30 ms total" has no name.
            return
        i = _name_index(how, text, end) if end >= 0 else -2
        if i == -1:
            return
        # After a title the name may start with a particle ("van der Berg").
        if (
            how in self._cased
            and (how != "title" or text[p].isupper())
            and (
                i < 0 or may_start(text, i, how == "title" or (how == "intro" and text[i : i + 1] in _LEADS))
            )
        ):
            _file(cased, how, start)
        if how in self._lower and not comma_only:
            if how == "greeting":  # in lower case only before a title: "hello mr. okafor"
                if i >= 0 and text[i : i + self._head].lower() not in self.lex.title_heads:
                    return
            elif how == "title" and not text[p].islower():
                return
            if i < 0 or may_start(text, i, True):
                _file(lower, how, start)


def matches(
    pattern: regex.Pattern[str],
    text: str,
    starts: list[int],
    timeout: float,
    first: tuple[regex.Pattern[str], Callable[[regex.Match[str]], bool]] | None = None,
) -> Iterator[regex.Match[str]]:
    """The matches of ``pattern`` at ``starts`` (sorted), as ``finditer`` would find them there.

    A match hides the starts it covers. The calls share one time budget, that of one
    pass over the whole message, longer for a long one as in the pattern detector: a
    pattern that runs away blows any such budget, a long message full of names should not.

    ``first``: a cheaper pattern tried before ``pattern`` at each start, and what says that
    its match is the one ``pattern`` would make there.
    """
    deadline = time.monotonic() + timeout * max(1.0, len(text) / TIMEOUT_CHARS)
    last = 0
    for start in starts:
        if start < last:
            continue
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("names: time budget spent")
        m = None
        if first is not None:
            cheap, settled = first
            m = cheap.match(text, start, timeout=left)
            if m is not None and not settled(m):
                m = None
            left = deadline - time.monotonic()
            if m is None and left <= 0:
                raise TimeoutError("names: time budget spent")
        if m is None:
            m = pattern.match(text, start, timeout=left)
        if m is not None:
            last = m.end()
            yield m


def _name_index(how: str, text: str, end: int) -> int:
    """Where the name may start after a context's phrase ending at ``end``; -1 if nowhere."""
    if how == "greeting":  # "Hi Jane", "Hello, Jane"
        i = skip(text, end, " \t,")
    elif how in ("intro", "loose_intro"):  # "my name is Jane", "this is\nJane", 'signed by "Jane"'
        i = skip_space(text, end, '"“')
    elif how == "bare_field":  # "name Colin Thorne dob ..."
        i = skip(text, end, " \t")
    elif how == "relation":  # "my mother, Jane", "the other driver was Jane Roe"
        was = _IS_WAS.match(text, end)
        i = skip_space(text, end, ",") if was is None else skip_space(text, was.end())
    elif how == "title":  # "Mr. van der Berg"
        i = skip(text, end, ". \t")
    elif how in ("talk", "speaker"):  # "speak with owen", "Agent Rebecca:"
        i = skip(text, end, " \t")
    elif how == "field":  # 'name: Jane', 'name="Jane"', '"name": "Jane"'
        i = skip_space(text, end, "\"'")
        if i >= len(text) or text[i] not in ":=":
            return -1
        return skip_space(text, i + 1, "\"'[>")
    elif how == "list_field":  # "cc: Jane"
        i = skip(text, end, " \t")
        if i >= len(text) or text[i] != ":":
            return -1
        return skip(text, i + 1, " \t")
    else:
        return end
    return i if i > end else -1


def _file(starts: dict[str, list[int]], how: str, start: int) -> None:
    """Adds a start to a context's list (without making a list for every call)."""
    if how in starts:
        starts[how].append(start)
    else:
        starts[how] = [start]


def _possessive(lex: NameLexicon, text: str, p: int) -> int:
    """Start of the "my", "our", "his", "her", "their" or "the" before the phrase at ``p``, or -1.

    One of the kin adjectives may stand between ("my late father"); a kin joiner stands alone
    ("and grandpa Tariq Ahmed").
    """
    start = _possessive_word(lex, text, p)
    if start >= 0:
        return start
    w = _word_before(text, p)
    if w < 0:
        return -1
    word = text[w:p].strip().lower()
    if word in lex.kin_joiners:
        return w
    if word in lex.kin_adjectives:
        return _possessive_word(lex, text, w)
    return -1


def _word_before(text: str, p: int) -> int:
    """Start of the word right before ``p`` (blanks between), or -1."""
    j = p
    while j > 0 and text[j - 1].isspace():
        j -= 1
    if j == p:
        return -1
    k = j
    while k > 0 and text[k - 1].isalpha():
        k -= 1
    return k if k < j and (k == 0 or not text[k - 1].isalnum()) else -1


def _possessive_word(lex: NameLexicon, text: str, p: int) -> int:
    j = p
    while j > 0 and text[j - 1].isspace():
        j -= 1
    if j >= 3 and text[j - 1] in "eE" and text[j - 3 : j].casefold() == "the":
        return j - 3
    # One look at the last letter, case-folded as the pattern folds it ("ſ" is an "s"), rules
    # out most words.
    if j == p or text[j - 1].casefold() not in lex.possessive_ends:
        return -1
    for word in lex.possessives:
        k = j - len(word)
        if k >= 0 and text[k:j].casefold() == word and (k == 0 or not text[k - 1].isalnum()):
            return k
    return -1


def _signed(text: str, end: int) -> bool:
    """After a closing, a comma or a dash and a name on the same line ("Thanks, Ana")."""
    i = skip(text, end, " \t")
    if i >= len(text) or text[i] not in ",-–—":
        return False
    return may_start(text, skip(text, i + 1, " \t-–—"), False)


def _closing_line(text: str, p: int, end: int) -> int:
    """Start of the line of a closing at ``p`` if the closing is all there is on it, else -1."""
    s = line_opened_by(text, p)
    if s < 0 or end < 0:
        return s
    i = skip(text, end, " \t,.!\r")
    return s if i == len(text) or text[i] == "\n" else -1


def record_lines(
    text: str, points: list[int], particles: frozenset[str], commas: list[int] | None = None
) -> tuple[list[int], list[int]]:
    """The lines where a record ("Lee Huang, SSN ...") may stand, given its cues (in order).

    The starts of those lines, for a capitalised name and for one in lower case (which needs
    its comma: "lee huang, ssn ..."). The commas right before a cue go to ``commas``: a name
    may end there in running text ("requested for Igor Lebedev, ssn ...").
    """
    cased: list[int] = []
    lower: list[int] = []
    ls = -1  # start of the line of the last cue looked at
    seen = 0  # where the search for that line's start began
    for p in points:
        k = text.rfind("\n", seen, p)
        seen = p
        if k >= 0 or ls < 0:
            ls = k + 1 if k >= 0 else 0
        # A name, and a comma or blanks, right before the cue: "Lee Huang, SSN", "Lee Huang SSN".
        i = p
        while i > ls and text[i - 1] in " \t":
            i -= 1
        if i == ls:
            continue
        if i == p:
            # "Ruth Gordon,SSN ...": no blank after the comma, so no record line (its pattern
            # wants one), but a name in running text may end at that comma.
            if text[i - 1] == "," and i - 1 > ls and commas is not None:
                commas.append(i - 1)
            continue
        comma = text[i - 1] == ","
        if comma:
            i -= 1
            if commas is not None:
                commas.append(i)
            if i == ls:
                continue
        elif text[i - 1] in "-–—:" and i - 1 > ls and text[i - 2] in " \t":
            # "1. Henrike Vogt - passport ...": a dash between the name and the cue.
            i -= 1
            while i > ls and text[i - 1] in " \t":
                i -= 1
            if i == ls:
                continue
        if not ends_name(text[i - 1]):
            continue
        if comma and (not lower or lower[-1] != ls):
            lower.append(ls)
        if (not cased or cased[-1] != ls) and _capitalised(text[ls:i], comma, particles):
            cased.append(ls)
    return cased, lower


def _capitalised(head: str, comma: bool, particles: frozenset[str]) -> bool:
    """Whether the start of a line up to a record's cue can be a capitalised name.

    An optional "Key:" and then name words, particles or initials only: "Customer: Lee Huang".
    Without a comma the name has two words or more. A long head is let through untested.
    """
    if len(head) > 80:
        return True
    words = head.lstrip("> \t").split()
    if words and (words[0].endswith(":") or words[0] in ("-", "*", "•") or _LIST_NUMBER.fullmatch(words[0])):
        words = words[1:]
    named = 0
    for word in words:
        if word.lower() in particles:
            continue
        if not may_start(word, 0, False):
            return False
        named += 1
    return named >= (1 if comma else 2)


def cancelled(lex: NameLexicon, text: str, s: int, e: int, how: str) -> bool:
    """Whether what stands around a phrase-led name says it is none: a field's value that is
    the name of a field in an XML tag, a thing "named", a form's label."""
    if how == "field":
        return _xml_key(text, s, e)
    if how != "intro":
        return False
    head = text[max(0, s - 60) : s].lower().replace('"', " ").replace("“", " ").split()
    # A form's label ("Please enter your full name\nSubmit") names no one on the next line.
    if head and head[-1].rstrip(",") in lex.label_nouns:
        j = s
        while j > 0 and text[j - 1] in ' \t\r\n"“':
            j -= 1
        if "\n" in text[j:s]:
            return True
    # "I have a cat named Biscuit": an animal's or a thing's word before "named".
    if len(head) < 2 or head[-1] not in lex.naming_verbs:
        return False
    noun = head[-3] if head[-2] in ("is", "was") and len(head) >= 3 else head[-2]
    return noun.strip(",") in lex.not_persons


def _xml_key(text: str, s: int, e: int) -> bool:
    """Whether a field's value is the name of a field in an XML tag: <Data Name="LogonType">."""
    if s < 2 or text[s - 1] not in "\"'" or "=" not in text[s - 2 : s]:
        return False
    tag = text.rfind("<", 0, s)
    if tag < 0 or ">" in text[tag:s] or "\n" in text[tag:s]:
        return False
    value = text[s:e]
    return " " not in value and any(c.isupper() for c in value[1:])
