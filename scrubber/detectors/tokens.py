"""Whitespace tokens with exact character offsets, and number-like value groups.

The grammar rules see a sentence as whitespace-separated words, so "123-45-6789" stays one
token. Punctuation at a word's edges ("1234.", "(714)", '"1689"') becomes tokens of its own,
and a key glued to its value ("ssn#123456789", "last4=0293", '"zip":"94105"') is cut in two, so
that a value never carries the characters around it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import regex

# Characters peeled off the edges of a word; "." and "-" only at the tail or as a whole word.
_HEAD = frozenset("([{\"'<«“‘¿¡*")
_TAIL = frozenset(".,;:!?)]}\"'>»”’…")
# Inside a word: a key/value separator after a non-digit (not "10:30", not "https://"),
# or "#" between a word and a number ("ssn#123").
_CUT = regex.compile(
    r"""(?<=(?:^|[\s"'{,(\[])[A-Za-z_][\w.\-]*["']?)[=:](?!//)|(?<=[A-Za-z])#(?=\d)|(?<=["'\]}]),(?=["'\[{])"""
)
_WORD = regex.compile(r"\S+")
_IPV4 = regex.compile(r"\d{1,3}(?:\.\d{1,3}){3}")
_NUMBER = regex.compile(r"\+?\(?\d[\d().\-/]*")
_MASKED = regex.compile(r"[•*xX#…·\-]*[•*xX#…·][\-\s]?(?P<d>\d{2,})")
_MASK = regex.compile(r"[•*xX#…·\-]{3,}|…")
_EXT = frozenset({"ext", "ext.", "extension", "x"})
# A word of letters and at least three digits, five characters or more: an identifier
# ("D1234567"), not "web-2" or "5pm".
_ALNUM = regex.compile(r"(?=(?:[^\d]*\d){3})(?=[^A-Za-z]*[A-Za-z])[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*(?<=.{5})")

SPELLED: dict[str, str] = {
    "zero": "0",
    "oh": "0",
    "one": "1",
    "two": "2",
    "three": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "eight": "8",
    "nine": "9",
}
# A masked number, "•••• 4258", "…6029", "x8335", "###-##-8128": a fragment shown on purpose.
MASK_HINT = regex.compile(r"(?:[•…]|(?<![\w])[xX*#]{1,4}[\s-]?(?=\d)|[xX*#]{3})[\s-]?\d{2}")
# Something that could be a value: a digit, or a digit spelled out as a whole word.
NUMBER_LIKE = regex.compile(r"\d|\b(?:" + "|".join(SPELLED) + r")\b", regex.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Token:
    text: str
    start: int
    end: int
    space: bool


def tokenize(text: str, start: int = 0, end: int | None = None) -> list[Token]:
    """Tokens of ``text[start:end]``, offsets into ``text``."""
    stop = len(text) if end is None else end
    out: list[Token] = []
    for m in _WORD.finditer(text, start, stop):
        s, e = m.span()
        pieces: list[tuple[int, int]] = []
        pos = s
        for cut in _CUT.finditer(text, s, e):
            pieces.append((pos, cut.start()))
            pieces.append((cut.start(), cut.end()))
            pos = cut.end()
        pieces.append((pos, e))
        for ps, pe in pieces:
            if ps < pe:
                _peel(text, ps, pe, out)
        if out:
            last = out[-1]
            out[-1] = Token(last.text, last.start, last.end, e < stop and text[e].isspace())
    return out


def _peel(text: str, s: int, e: int, out: list[Token]) -> None:
    if text[e - 1] in "0123456789)" and _NUMBER.fullmatch(text, s, e):
        chunk = text[s:e]
        if chunk.count("(") == chunk.count(")"):
            out.append(Token(chunk, s, e, False))
            return
    head: list[Token] = []
    tail: list[Token] = []
    while e - s > 1 and (text[e - 1] in _TAIL or (text[e - 1] == "-" and not text[e - 2].isdigit())):
        tail.append(Token(text[e - 1], e - 1, e, False))
        e -= 1
    while e - s > 1 and text[s] in _HEAD:
        # A mask ("****", "************4821") keeps its "*": they are the word, not its quotes.
        if text[s] == "*" and (_MASK.fullmatch(text, s, e) or _MASKED.fullmatch(text, s, e)):
            break
        head.append(Token(text[s], s, s + 1, False))
        s += 1
    # A trailing "." stays on a number only when it is an inner separator, never at the end.
    out.extend(head)
    out.append(Token(text[s:e], s, e, False))
    out.extend(reversed(tail))


@dataclass(frozen=True, slots=True)
class Value:
    """A run of tokens that together spell one number: ``digits`` is what it says."""

    first: int  # token index
    last: int  # token index, inclusive
    start: int
    end: int
    digits: str
    spelled: bool
    masked: bool
    ext: str = ""
    alnum: bool = False  # letters and digits in one word: "D1234567"; ``digits`` holds its digits


def _number(tok: Token) -> str | None:
    t = tok.text
    if _NUMBER.fullmatch(t) and t[-1] in "0123456789)":
        digits = "".join(c for c in t if c.isdigit())
        # "09/27", "3/4/1985": a slash makes a date or a fraction, unless it is a long number;
        # four dotted groups make an IP address.
        if ("/" in t and len(digits) < 10) or _IPV4.fullmatch(t):
            return None
        return digits
    return None


def values(
    tokens: Sequence[Token], skip: frozenset[int] = frozenset(), *, alnum: bool = False
) -> list[Value]:
    """Number-like runs: "1 4 2 6 5", "123 45 6789", "five one three, six four nine", "•••• 4258".

    With ``alnum``, a word of letters and digits ("D1234567", "W425-123-45") is a value too.
    """
    out: list[Value] = []
    i, n = 0, len(tokens)
    while i < n:
        if i in skip:
            i += 1
            continue
        tok = tokens[i]
        masked = False
        first = i
        while _MASK.fullmatch(tok.text) and i + 1 < n and i + 1 not in skip:
            masked = True
            i += 1
            tok = tokens[i]
        m = _MASKED.fullmatch(tok.text)
        if m is not None and not _NUMBER.fullmatch(tok.text):
            out.append(Value(i, i, tok.start + m.start("d"), tok.end, m.group("d"), False, True))
            i += 1
            continue
        digits = _number(tok)
        if digits is not None:
            j = i
            # Digits said one by one may be typed and spelled in turn: "6 one 7 five five five".
            single, spelled = len(digits) == 1, False
            while j + 1 < n and j + 1 not in skip and len(digits) < 19:
                more = _number(tokens[j + 1])
                if more is None and single and not masked:
                    more = SPELLED.get(tokens[j + 1].text.lower())
                    spelled = spelled or more is not None
                if more is None or not tokens[j].space:
                    break
                single = single and len(more) == 1
                digits += more
                j += 1
            if spelled:
                if len(digits) >= 3:
                    out.append(Value(i, j, tokens[i].start, tokens[j].end, digits, True, False))
                i = j + 1
                continue
            ext = ""
            if j + 2 < n and tokens[j + 1].text.lower() in _EXT and len(digits) >= 7:
                more = _number(tokens[j + 2])
                if more is not None and len(more) <= 6:
                    ext = more
                    j += 2
            out.append(Value(i, j, tokens[i].start, tokens[j].end, digits, False, masked, ext))
            i = j + 1
            continue
        word = tok.text.lower()
        if word in SPELLED and not masked:
            digits = SPELLED[word]
            j = i
            while j + 1 < n and j + 1 not in skip:
                nxt = tokens[j + 1].text.lower()
                one = _number(tokens[j + 1])
                if nxt in SPELLED or (one is not None and len(one) == 1):
                    digits += SPELLED.get(nxt, one or "")
                    j += 1
                elif nxt == "," and j + 2 < n and tokens[j + 2].text.lower() in SPELLED:
                    j += 1
                else:
                    break
            if len(digits) >= 3:
                out.append(Value(i, j, tokens[i].start, tokens[j].end, digits, True, False))
            i = j + 1
            continue
        if alnum and not masked and _ALNUM.fullmatch(tok.text):
            digits = "".join(c for c in tok.text if c.isdigit())
            out.append(Value(i, i, tok.start, tok.end, digits, False, False, alnum=True))
        i = first + 1 if not masked else i + 1
    return out
