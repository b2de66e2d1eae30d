"""Names in records and lists: a name before ", ssn ..." in running text, the rest of a list
after a found name, SQL inserts, and the shapes that no phrase of the lists starts (XML
elements, a name before contact data, "Mateo's mom", a name before "(DOB ...)", "Last, First"
as a table's first cell, keys of people, "—Benedikt" at a mail's end).

Each shape has a cheap hint (a substring, or a plain ``re`` scan where one is there) that it
needs; its pattern runs only where the hint is, anchored there.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import regex

from scrubber.detectors.names.anchors import Candidate
from scrubber.detectors.names.lexicon import NameLexicon
from scrubber.detectors.names.lines import label_start, skip
from scrubber.detectors.names.shapes import CAPS_WORD, CASED_WORD, INITIAL, shaped, trim

_SQL = regex.compile(
    r"(?i:insert\s+into)\s+[\w.\"`]+\s*\((?P<cols>[^)]{1,500})\)\s*(?i:values)\s*\((?P<vals>[^)]{1,2000})\)"
)
_SQL_VALUE = regex.compile(r"'(?:[^']|'')*'|[^,]+")
# Cheap hints of the shapes of ``more`` (plain ``re``: a linear scan); more in the lexicon.
_CELL_HINT = re.compile(r"^[ \t]*[^\W\d_][^,\t\n]{0,40},[^,\t\n]{1,40}\t", re.MULTILINE)
_UPPER = "A-ZÀ-ÖØ-ÞĀ-Ž"
_TWO_WORDS = re.compile(rf"[{_UPPER}][\w'’.-]*[ \t]+(?:[a-z]+[ \t]+){{0,2}}[{_UPPER}]")
# What a name before contact data starts with: capitalised words, then the data's first sign.
_CONTACT_LEAD = re.compile(
    rf"[ \t>]*(?:\d{{1,2}}[.)][ \t]+)?(?:[Mm]e[ \t]*[,:][ \t]*)?(?:[{_UPPER}][\w'’.-]*[ \t]+){{0,3}}"
    rf"[{_UPPER}][\w'’-]*[,;]?[ \t]+[(<]?(?:\+?\(?\d[\d ().-]{{6,}}\d|[\w.+-]+@)"
)
# A colon or ">" and a capitalised word: a key's value or a name before contact data.
_COLON_CAP = re.compile(rf":[ \t]+[{_UPPER}][a-zß-öø-ÿā-ž]")
_GT_CAP = re.compile(rf">[ \t]+[{_UPPER}][a-zß-öø-ÿā-ž]")
# The same at a line's start (a "\n" first: a fast scan).
_CONTACT_LINE = re.compile("\n" + _CONTACT_LEAD.pattern)


def person_records(
    lex: NameLexicon, text: str, timeout: float, commas: list[int] | None = None
) -> Iterator[Candidate]:
    """A name right before ", ssn ...", ", dob ...", ", passport ..." in running text:
    "Bureau pull requested for Igor Lebedev, ssn 600-83-5783". ``commas``: where to look
    (the commas before a record's cue); None: the whole text."""
    if commas is None:
        found = list(lex.person_record.finditer(text, timeout=timeout))
    else:
        found = [m for c in commas if (m := lex.person_record.match(text, c)) is not None]
    particles = lex.particles
    for m in found:
        c = m.start()
        lo = max(text.rfind("\n", 0, c) + 1, c - 120)
        head = text[lo:c].rstrip()
        taken: list[str] = []  # the name's words, from the right
        named = 0
        for word in reversed(head.split()):
            if word in particles:
                taken.append(word)
                continue
            if (
                len(taken) >= 4
                or not word[0].isupper()
                or word.lower() in lex.no_name
                or (CASED_WORD.fullmatch(word) is None and INITIAL.fullmatch(word) is None)
            ):
                break
            taken.append(word)
            named += word[-1] != "."
        while taken and taken[-1] in particles:
            taken.pop()
        if named >= 2:
            pos = len(head)
            for word in taken:
                pos = head.rfind(word, 0, pos)
            yield lo + pos, lo + len(head), "record"


def list_rest(lex: NameLexicon, text: str, found: list[Candidate], timeout: float) -> Iterator[Candidate]:
    """The rest of a list after a found name: "Anya Petrova (lead), Kenji Watanabe, Olumide
    Bakare, and Zoë Hartmann-Klein". Full names only, and only a list that ends in "and"
    or has two names more ("Jane Roe, San Francisco, CA" is no list)."""
    for _s, e, how in found:
        if how == "recurring" or not _list_goes_on(text, e):
            continue
        rest: list[tuple[int, int]] = []
        ended = False
        pos = e
        while len(rest) < 12:
            m = lex.list_rest.match(text, pos, timeout=timeout)
            if m is None or not shaped(lex, text[m.start("n") : m.end("n")].split(), False, 4):
                break
            if trim(lex, text, m.start("n"), m.end("n")) != m.end("n"):
                break
            rest.append(m.span("n"))
            ended = "and" in m.group("and") or "&" in m.group("and")
            pos = m.end()
            if ended:
                break
        if rest and (ended or len(rest) >= 2):
            for a, b in rest:
                yield a, b, "list"


def _list_goes_on(text: str, e: int) -> bool:
    """Whether a list may go on after a name ending at ``e``: a comma, "and" or "&", maybe
    after a role in brackets (a cheap test before ``list_rest``)."""
    j = e
    if text[j : j + 2] == " (" or text[j : j + 1] == "(":
        close = text.find(")", j, j + 34)
        if close < 0:
            return False
        j = close + 1
    nxt = text[j : j + 5]
    return nxt[:1] == "," or nxt == " and " or nxt[:3] == " & "


def sql(lex: NameLexicon, text: str, timeout: float) -> Iterator[Candidate]:
    """The values of name columns in an SQL insert: INSERT INTO t (full_name, ...) VALUES ('...')."""
    for m in _SQL.finditer(text, timeout=timeout):
        cols = [c.strip(" \"`'") for c in m.group("cols").split(",")]
        vals = list(_SQL_VALUE.finditer(text, m.start("vals"), m.end("vals")))
        for col, val in zip(cols, vals, strict=False):
            raw = val.group().strip()
            if lex.field_keys.fullmatch(col) and raw.startswith("'") and len(raw) > 2:
                start = val.start() + val.group().index("'") + 1
                yield start, start + len(raw) - 2, "sql"


def more(lex: NameLexicon, text: str, timeout: float) -> list[Candidate]:
    """Names in the shapes that no phrase of the lists starts, where their hints are."""
    at = _hints(lex, text)
    out: list[Candidate] = []
    if not at:
        return out
    for how, a, b in at:
        pattern = lex.more[how]
        found = (
            pattern.search(text, a, b, timeout=timeout)
            if how in ("born", "bracket")
            else pattern.match(text, a, b, timeout=timeout)
        )
        if found is None:
            continue
        for s, e in found.spans("n"):
            words = text[s:e].replace(",", " ").split()
            if how == "xml" and CAPS_WORD.fullmatch(words[0] if words else "") is not None:
                if all(CAPS_WORD.fullmatch(x) for x in words):
                    out.append((s, e, how))
                continue
            if how == "bracket":
                out.extend(_bracketed(lex, text, s, e))
                continue
            if shaped(lex, words, False, 4) and (how != "dash_sign" or _signs(text, s)):
                out.append((s, e, how))
    return out


_NON_BLANK = re.compile(r"[^ \t]+")


def _bracketed(lex: NameLexicon, text: str, s: int, e: int) -> Iterator[Candidate]:
    """The name before a role in brackets: the last words of ``text[s:e]`` that make one
    ("Call Nadia (mum)": "Nadia"). A word that is a name only sometimes is one there ("Will
    (clerk)")."""
    spans = [(m.start(), m.end()) for m in _NON_BLANK.finditer(text, s, e)]
    for k in range(len(spans)):
        rest = [text[a:b] for a, b in spans[k:]]
        if shaped(lex, rest, False) or all(
            w.lower() in lex.ambiguous and CASED_WORD.fullmatch(w) for w in rest
        ):
            yield spans[k][0], e, "bracket"
            return


def _hints(lex: NameLexicon, text: str) -> list[tuple[str, int, int]]:
    """Where the patterns of ``more`` may match: (shape, start, end)."""
    at: list[tuple[str, int, int]] = []
    size = len(text)
    if "<" in text:
        at.extend(("xml", m.start(), size) for m in lex.xml_hint.finditer(text))
    # After a colon or a ">" a capital: a key's value ("Our team: Anya ...", "Driver:
    # Beatriz Santos") or a name before contact data ("Customer: Dmitri Volkov, d@...").
    starts: list[int] = []
    anchors = (_COLON_CAP, _GT_CAP) if "> " in text else (_COLON_CAP,)
    for anchor in anchors if ": " in text or "> " in text else ():
        first = anchor.search(text)
        for m in anchor.finditer(text, first.start()) if first is not None else ():
            k = m.end() - 2
            starts.append(k)
            if anchor is _COLON_CAP and _TWO_WORDS.match(text, k) is not None:
                j = k - 2
                while text[j] != ":":
                    j -= 1
                while j > 0 and text[j - 1] in " \t":
                    j -= 1
                w = j
                while w > 0 and (text[w - 1].isalnum() or text[w - 1] in "_-"):
                    w -= 1
                key = text[w:j].lower()
                if key in lex.people_keys:
                    at.append(("people", w, size))
                elif key in lex.role_keys and label_start(text, w) >= 0:
                    at.append(("role_key", text.rfind("\n", 0, w) + 1, size))
    # Contact data after a name at a line's start, after a colon or ">", or after "me,".
    head = text[:1]
    if head.isupper() or head.isdigit() or head in (">", "m", "M", " "):
        colon = text.find(":", 0, 24)
        if colon < 0 or " " in text[:colon]:
            starts.append(0)
    if "\n" in text:
        # At a line's start only among the last lines (a signature's): "Sunil Mehta, +91 ...".
        tail = size
        for _ in range(8):
            tail = text.rfind("\n", 0, tail)
            if tail <= 0:
                break
        starts.extend(m.start() + 1 for m in _CONTACT_LINE.finditer(text, max(tail, 0)))
        end = size
        while end and text[end - 1].isspace():
            end -= 1
        last = text.rfind("\n", 0, end) + 1
        if last and text[skip(text, last, " \t>") : end][:1] in ("—", "–", "-"):
            at.append(("dash_sign", last, size))
    if "me," in text:
        starts.extend(_after_me(text))
    for k in sorted(set(starts)) if len(starts) > 1 else starts:
        if _CONTACT_LEAD.match(text, k) is not None:
            eol = text.find("\n", k)
            at.append(("contact", k, size if eol < 0 else eol))
    if "s " in text and ("'s" in text or "’s" in text):
        for m in lex.kin_hint.finditer(text):
            k = m.start()
            while k > 0 and (text[k - 1].isalpha() or text[k - 1] in "'’-"):
                k -= 1
            at.append(("kin_of", k, m.end()))
    if "(" in text:
        for m in lex.born_hint.finditer(text):
            ls = text.rfind("\n", 0, m.start()) + 1
            at.append(("born", max(ls, m.start() - 120), m.end()))
        for m in lex.bracket_hint.finditer(text):
            ls = text.rfind("\n", 0, m.start()) + 1
            at.append(("bracket", max(ls, m.start() - 80), m.end()))
    if "\t" in text:
        at.extend(("cell", m.start(), m.end()) for m in _CELL_HINT.finditer(text))
    return at


def _after_me(text: str) -> Iterator[int]:
    """Where the words after each "me," start ("Call me, Dana Reyes ..."). A search in C for
    "e,", then a look at the letter and the word boundary before it: ``re`` tries a pattern that
    opens with ``\b`` at every character of the text."""
    i = text.find("e,", 1)
    while i >= 0:
        k = i - 1
        if text[k] in "Mm" and (k == 0 or not (text[k - 1].isalnum() or text[k - 1] == "_")):
            yield skip(text, i + 2, " \t")
        i = text.find("e,", i + 2)


def _signs(text: str, s: int) -> bool:
    """Whether "—Name" at ``s`` ends a mail that is no list of "- item" lines."""
    start = text.rfind("\n", 0, s) + 1
    if text[start:s].strip(" \t>") not in ("-",):
        return True
    prev = text.rfind("\n", 0, max(start - 1, 0))
    return not text[prev + 1 : start].lstrip(" \t>").startswith("-")
