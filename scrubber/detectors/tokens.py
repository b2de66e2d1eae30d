"""Whitespace tokens with exact character offsets, and number-like value groups.

The grammar rules see a sentence as whitespace-separated words, so "123-45-6789" stays one
token. Punctuation at a word's edges ("1234.", "(714)", '"1689"') becomes tokens of its own,
and a key glued to its value ("ssn#123456789", "last4=0293", '"zip":"94105"') is cut in two, so
that a value never carries the characters around it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from itertools import groupby
from operator import itemgetter
from typing import NamedTuple

import regex

# Characters peeled off the edges of a word; "." and "-" only at the tail or as a whole word.
_HEAD = frozenset("([{\"'<«“‘¿¡*")
_TAIL = frozenset(".,;:!?)]}\"'>»”’…")
# A number token ends in one of these; a word that ends in none of them, of _TAIL or "-",
# and starts with no _HEAD character, is one token as it stands.
_NUMBER_END = frozenset("0123456789)")
_EDGE_OR_NUMBER_END = _TAIL | _NUMBER_END | {"-"}
# Inside a word: a key/value separator after a non-digit (not "10:30", not "https://"),
# or "#" between a word and a number ("ssn#123"), or the ">" of "=>".
_CUT = regex.compile(
    r"""(?<=(?:^|[\s"'{,(\[])[A-Za-z_][\w.\-]*["']?)[=:](?!//)|(?<=[A-Za-z])#(?=\d)|(?<=["'\]}]),(?=["'\[{])"""
    # The ">" of a Ruby/Perl hash arrow after such a cut: '"zip"=>"94105"'.
    r"""|(?<=(?:^|[\s"'{,(\[])[A-Za-z_][\w.\-]*["']?=)>"""
)
_WORD = regex.compile(r"\S+")
_IPV4 = regex.compile(r"\d{1,3}(?:\.\d{1,3}){3}")
_NUMBER = regex.compile(r"\+?\(?\d[\d().\-/]*")
_MASKED = regex.compile(r"[•*xX#…·\-]*[•*xX#…·][\-\s]?(?P<d>\d{2,})")
_MASK = regex.compile(r"[•*xX#…·\-]{3,}|…")
_EXT = frozenset({"ext", "ext.", "extension", "x"})
# What may stand between groups of spelled digits: "five one three, six four nine",
# "four one five - five five five".
_SPELLED_GAP = frozenset({",", "-", "–", "—"})
_DASHES = frozenset({"-", "–", "—"})
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
# Dots glued before one or two digits: a pause ("...2 5"), see _peel.
_PAUSED = re.compile(r"\.{2,}[0-9]{1,2}[.,;:!?]*")
# A dash said aloud between typed groups of digits.
_DASH_WORDS = frozenset({"dash", "hyphen"})
# Said before a digit, it says the digit twice or three times: "double two", "triple seven".
_REPEATS = {"double": 2, "triple": 3}
# A masked number, "•••• 4258", "…6029", "x8335", "###-##-8128": a fragment shown on purpose.
MASK_HINT = regex.compile(r"(?:[•…]|(?<![\w])[xX*#]{1,4}[\s-]?(?=\d)|[xX*#]{3})[\s-]?\d{2}")
# Something that could be a value: a digit, or a digit spelled out as a whole word.
NUMBER_LIKE = regex.compile(r"\d|\b(?:" + "|".join(SPELLED) + r")\b", regex.IGNORECASE)


# Fast tests in front of the patterns above, each implied by the pattern it guards, so that
# the ``regex`` module runs only on the few words that may match: a mask or masked number
# starts with a mask character; a number starts with "+", "(" or a digit (``regex`` knows
# digits of a newer Unicode than ``str``, all of them astral); a word for the ALNUM shape is
# ASCII, five characters or more and not all letters.
MASK_START = frozenset("•*xX#…·-")
_NUMBER_START = frozenset("+(")
_ASTRAL = "\U00010000"
# A whitespace-separated word as the ``regex`` module's \S+ finds it: ``re``'s \s also takes
# in the separators \x1c-\x1f, which ``regex`` does not count as space (the two agree on
# every other code point; tests/unit/test_tokens_fast.py checks them all). A single class is
# linear, so this runs on ``re`` without a timeout.
_WORD_RE = re.compile(r"[\S\x1c-\x1f]+")
# A character that a cut (_CUT) needs: a sentence without one has no cut.
_CUT_CHARS = re.compile(r"[=:#,]")
# A digit as ``regex`` knows it, or any other astral character. One class: linear, on ``re``.
_DIGIT_OR_ASTRAL = r"[\d\U00010000-\U0010ffff]"
_DIGIT_SEARCH = re.compile(_DIGIT_OR_ASTRAL)


# A word ``values`` reads as a spelled digit, in lower-cased text (a token is one when its
# lower case is one of them). Grouped by first letter, so a search tries few branches per place.
SPELLED_WORD = re.compile(
    r"(?<!\w)(?:"
    + "|".join(f"{c}(?:{'|'.join(w[1:] for w in ws)})" for c, ws in groupby(sorted(SPELLED), itemgetter(0)))
    + r")(?!\w)"
)
# Where a number token may stand (see number_stretches): a run of number characters that starts
# a token and ends one. It starts at a word's start or after a cut character (or "=>" or
# ".."), behind any head punctuation peeled off (the look-behinds, after the first character
# so that the search skips in C to a digit, "+" or "("; more than one head character is let
# through whatever precedes it). It ends before any tail punctuation and then whitespace, the
# end or a cut comma. The run is taken whole (possessive), so a run the token would only be a
# part of is no match.
_H = "[(\\[{\"'<«“‘¿¡*]"
_NUMBER_RUN = re.compile(
    r"[+(\d\U00010000-\U0010ffff]"
    rf"(?:(?<![\s\S]{{2}})|(?<=[\s=:#,].)|(?<=^{_H}.)|(?<=[\s=:#,]{_H}.)|(?<={_H}{_H}.)|(?<==>.)|(?<==>{_H}.)"
    # ... or after the dots of a pause ("...2 5", see _peel).
    r"|(?<=\.\..))"
    r"[\d().\-/+\U00010000-\U0010ffff]*+"
    r"(?=[.,;:!?)\]}\"'>»”’…\-]*(?:\s|\Z|,))"
)
# What may stand between two tokens of one value: whitespace, or an extension word.
_GAP = re.compile(r"\s+(?:(?:ext|extension|x)\s+)?", re.IGNORECASE)
_NOT_DIGIT = str.maketrans("", "", "+().-/")


def number_like(text: str, start: int = 0, end: int | None = None) -> bool:
    """Whether NUMBER_LIKE finds something in ``text[start:end]``; one search in C when the
    first digit-like character is a digit that both engines know, as it almost always is."""
    stop = len(text) if end is None else end
    m = _DIGIT_SEARCH.search(text, start, stop)
    if m is not None and m.group().isdecimal():
        return True
    return NUMBER_LIKE.search(text, start, stop) is not None


def masked_value_pattern(counts: Iterable[int] | None = None) -> re.Pattern[str]:
    """Where ``values`` may find a masked value with one of these many digits (None: any).

    A masked word ("#1234", "x8335", "…6029") ends in its digits, right after a mask character
    other than "-" (or such a character and a "-"), and a non-digit follows them (the word's
    end, a cut or edge punctuation). A mask word ("••••", "xxx-xx", "…") is followed by
    whitespace and a number. The pattern takes the whole run of mask characters and looks at
    what follows it: looser than both, character by character, so a sentence where it finds
    nothing has no such value. Search it from a line start or after whitespace, where no run
    of mask characters can have begun. It runs on ``re`` without a timeout: a run starts only
    where no mask character stands before it and is taken once (possessive), the rest are
    classes and bounded counts, so it is linear in the text. It starts with a class, so the
    search skips to one in C.
    """
    mask = "[•*xX#…·\\-]"
    if counts is None:
        digits = _DIGIT_OR_ASTRAL
    else:
        wanted = "|".join(f"{_DIGIT_OR_ASTRAL}{{{n}}}" for n in sorted(set(counts)))
        digits = f"(?:{wanted})(?!{_DIGIT_OR_ASTRAL})"
    return re.compile(
        rf"{mask}(?<!{mask}[\s\S]){mask}*+"
        rf"(?:(?:(?<=[•*xX#…·])|(?<=[•*xX#…·]-)){digits}"
        rf"|(?:(?<={mask}{{3}})|(?<=…))\s+\+?\(?{_DIGIT_OR_ASTRAL})"
    )


def number_stretches(text: str, start: int = 0, end: int | None = None) -> Iterator[tuple[int, int, int]]:
    """Stretches of ``text[start:end]`` that hold every value ``values`` finds there, with at
    most as many digits as each says: (start, end, digits), in order, without tokenizing.

    Only for a stretch of text with no spelled digit (SPELLED_WORD), no masked value and no
    value of letters and digits (``alnum``): every value left is a run of number tokens, one
    after another with only whitespace (or an extension word) between them. Each such token
    starts at a word's start or after a cut, behind any head punctuation peeled off, and ends
    before any tail punctuation, whitespace or a cut comma; it is made of number characters,
    and ends in a digit or ")". So it lies in one match of _NUMBER_RUN, and a value in a run of
    matches with only such gaps between them (tests/unit/test_tokens_fast.py checks this on
    random texts). A generator: a caller that has seen enough stops the search.
    """
    stop = len(text) if end is None else end
    held: tuple[int, int, int] | None = None  # the stretch a next match may still extend
    last = -1
    for m in _NUMBER_RUN.finditer(text, start, stop):
        run = m.group().rstrip(".-/+(")  # a number token ends in a digit or ")"
        digits = len(run.translate(_NOT_DIGIT))
        if not digits:
            continue
        a = m.start()
        if held is not None:
            if _GAP.fullmatch(text, last, a):
                held = (held[0], a + len(run), held[2] + digits)
                last = m.end()
                continue
            yield held
        held = (a, a + len(run), digits)
        last = m.end()
    if held is not None:
        yield held


class Token(NamedTuple):
    """A word or a piece of one; ``space``: whitespace follows it in the sentence."""

    text: str
    start: int
    end: int
    space: bool


# Makes a Token from a tuple in C: a named tuple's own ``__new__`` is a Python function, and a
# sentence makes a token per word.
_token = tuple.__new__


def tokenize(text: str, start: int = 0, end: int | None = None) -> list[Token]:
    """Tokens of ``text[start:end]``, offsets into ``text``."""
    stop = len(text) if end is None else end
    out: list[Token] = []
    # The cuts of the whole sentence in one pass: each is one character inside a word, and
    # its look-behind sees the same characters as a pass over that word alone would.
    cuts = (
        [m.start() for m in _CUT.finditer(text, start, stop)]
        if _CUT_CHARS.search(text, start, stop) is not None
        else []
    )
    c, ncuts = 0, len(cuts)
    for m in _WORD_RE.finditer(text, start, stop):
        s, e = m.span()
        # Whitespace after the word, on its last token.
        space = e < stop and text[e].isspace()
        if c == ncuts or cuts[c] >= e:
            word = m.group()
            # Most words have nothing to peel off and are no number: one token as they stand.
            if word[0] not in _HEAD and word[-1] not in _EDGE_OR_NUMBER_END:
                out.append(_token(Token, (word, s, e, space)))
            else:
                _peel(text, s, e, out, space)
            continue
        pos = s
        while c < ncuts and cuts[c] < e:
            cut = cuts[c]
            if pos < cut:
                _peel(text, pos, cut, out, False)
            out.append(_token(Token, (text[cut], cut, cut + 1, space and cut + 1 == e)))
            pos = cut + 1
            c += 1
        if pos < e:
            _peel(text, pos, e, out, space)
    return out


def _peel(text: str, s: int, e: int, out: list[Token], space: bool) -> None:
    first, last = text[s], text[e - 1]
    if first == "." and e - s > 2 and text[s + 1] == "." and _PAUSED.fullmatch(text, s, e):
        # Dots of a pause before a digit or two ("...2 5": the rest of a ZIP code said in parts):
        # a token of their own. Before more digits they stand for the digits not shown, as a
        # mask does ("acct ...4410"), and the word stays whole.
        k = s + 2
        while text[k] == ".":
            k += 1
        out.append(_token(Token, (text[s:k], s, k, False)))
        _peel(text, k, e, out, space)
        return
    if last in _NUMBER_END and (first in _NUMBER_START or first.isdecimal() or first >= _ASTRAL):
        chunk = text[s:e]
        if (chunk.isdigit() and chunk.isascii()) or (
            _NUMBER.fullmatch(text, s, e) and chunk.count("(") == chunk.count(")")
        ):
            out.append(_token(Token, (chunk, s, e, space)))
            return
    if first not in _HEAD and last not in _TAIL and last != "-":
        out.append(_token(Token, (text[s:e], s, e, space)))
        return
    head: list[Token] = []
    tail: list[Token] = []
    while e - s > 1 and (text[e - 1] in _TAIL or (text[e - 1] == "-" and not text[e - 2].isdigit())):
        tail.append(_token(Token, (text[e - 1], e - 1, e, space and not tail)))
        e -= 1
    while e - s > 1 and text[s] in _HEAD:
        # A mask ("****", "************4821") keeps its "*": they are the word, not its quotes.
        if text[s] == "*" and (_MASK.fullmatch(text, s, e) or _MASKED.fullmatch(text, s, e)):
            break
        head.append(_token(Token, (text[s], s, s + 1, False)))
        s += 1
    # A trailing "." stays on a number only when it is an inner separator, never at the end.
    out.extend(head)
    out.append(_token(Token, (text[s:e], s, e, space and not tail)))
    out.extend(reversed(tail))


class Value(NamedTuple):
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


def _number(t: str) -> str | None:
    """The digits of a number token, or None ("09/27" and "10.0.0.1" are not numbers)."""
    if t[-1] not in _NUMBER_END:
        return None
    if t.isdigit() and t.isascii():
        return t
    first = t[0]
    if (first in _NUMBER_START or first.isdecimal() or first >= _ASTRAL) and _NUMBER.fullmatch(t):
        digits = "".join(c for c in t if c.isdigit())
        # "09/27", "3/4/1985": a slash makes a date or a fraction, unless it is a long number;
        # four dotted groups make an IP address.
        if ("/" in t and len(digits) < 10) or _IPV4.fullmatch(t):
            return None
        return digits
    return None


def _alnum_like(t: str) -> bool:
    """What _ALNUM needs, in C: five ASCII letters, digits or "-" or more, not all letters."""
    return len(t) >= 5 and t.isascii() and not t.isalpha() and t.replace("-", "").isalnum()


def _spelled(t: str) -> str | None:
    # No spelled digit is longer than five letters, and lower-casing never shortens a word.
    return SPELLED.get(t.lower()) if len(t) <= 5 else None


def _repeated(tokens: Sequence[Token], at: int, stop: frozenset[int]) -> str | None:
    """The digits of "double two" or "triple 7" at ``tokens[at]``, else None."""
    times = _REPEATS.get(tokens[at].text.lower()) if len(tokens[at].text) == 6 else None
    if times is None or at + 1 >= len(tokens) or at + 1 in stop or not tokens[at].space:
        return None
    nxt = tokens[at + 1].text
    one = _spelled(nxt) if not nxt.isdigit() else (nxt if len(nxt) == 1 and nxt.isascii() else None)
    return one * times if one is not None else None


def _dash_said(tokens: Sequence[Token], at: int, digits: str, stop: frozenset[int]) -> bool:
    """Whether the word after ``tokens[at]`` is a dash said aloud ("dash", "hyphen") between
    typed groups of three digits or more: "60614 dash 2207", "312 dash 555 dash 0186"."""
    if len(digits) < 3 or at + 2 >= len(tokens) or at + 1 in stop or at + 2 in stop:
        return False
    if tokens[at + 1].text.lower() not in _DASH_WORDS or not tokens[at].space or not tokens[at + 1].space:
        return False
    after = _number(tokens[at + 2].text)
    return after is not None and len(after) >= 3


def _one_digit_after_gap(tokens: Sequence[Token], at: int, stop: frozenset[int]) -> bool:
    """Whether ``tokens[at]`` is a dash between digits said one by one: a digit, typed or
    spelled, follows it. Not a comma: "options 1, 2, 3, 4" is a list."""
    if tokens[at].text not in _DASHES or at + 1 >= len(tokens) or at + 1 in stop:
        return False
    nxt = tokens[at + 1].text
    return (len(nxt) == 1 and nxt.isdigit() and nxt.isascii()) or _spelled(nxt) is not None


def _spelled_run(tokens: Sequence[Token], at: int, stop: frozenset[int]) -> str | None:
    """The digits of three or more spelled digits in a row from ``tokens[at]``, with spaces
    between them: what a typed group may go on with ("415 six two eight"). Fewer are words."""
    digits = ""
    k = at
    while k < len(tokens) and k not in stop and len(digits) < 15:
        one = _spelled(tokens[k].text)
        if one is None or (k > at and not tokens[k - 1].space):
            break
        digits += one
        k += 1
    return digits if len(digits) >= 3 else None


def values(
    tokens: Sequence[Token],
    skip: frozenset[int] = frozenset(),
    *,
    alnum: bool = False,
    breaks: frozenset[int] = frozenset(),
) -> list[Value]:
    """Number-like runs: "1 4 2 6 5", "123 45 6789", "five one three, six four nine", "•••• 4258".

    With ``alnum``, a word of letters and digits ("D1234567", "W425-123-45") is a value too.
    A run never goes on into a token of ``breaks``: a value starts there.
    """
    out: list[Value] = []
    i, n = 0, len(tokens)
    while i < n:
        tok = tokens[i]
        t = tok.text
        # Most words start no value: no mask, no number, no spelled digit, no ALNUM word
        # (_alnum_like, inline: its first tests reject most words).
        if (
            t[0] not in MASK_START
            and t[-1] not in _NUMBER_END
            and (len(t) > 5 or t.lower() not in SPELLED)
            and (len(t) != 6 or t.lower() not in _REPEATS)
            and (not alnum or len(t) < 5 or t.isalpha() or not t.isascii() or not _alnum_like(t))
        ):
            i += 1
            continue
        if i in skip:
            i += 1
            continue
        masked = False
        first = i
        # Only a word that starts with a mask character can be a mask or a masked number.
        if t[0] in MASK_START:
            while _MASK.fullmatch(t) and i + 1 < n and i + 1 not in skip:
                masked = True
                i += 1
                tok = tokens[i]
                t = tok.text
            m = _MASKED.fullmatch(t) if t[0] in MASK_START else None
            if m is not None and not _NUMBER.fullmatch(t):
                out.append(Value(i, i, tok.start + m.start("d"), tok.end, m.group("d"), False, True))
                i += 1
                continue
        digits = _number(t) if t[-1] in _NUMBER_END else None
        if digits is not None:
            j = i
            # Digits said one by one may be typed and spelled in turn: "6 one 7 five five five".
            single, spelled = len(digits) == 1, False
            while j + 1 < n and j + 1 not in skip and j + 1 not in breaks and len(digits) < 19:
                more = _number(tokens[j + 1].text)
                if more is None and not masked and _dash_said(tokens, j, digits, skip | breaks):
                    # "60614 dash 2207": a dash said between typed groups of three digits or more;
                    # a value with words in it, read by its digits (as one said in words).
                    spelled = True
                    j += 1
                    continue
                if more is None and not masked:
                    if single:
                        more = _spelled(tokens[j + 1].text)
                        if more is None and _one_digit_after_gap(tokens, j + 1, skip | breaks):
                            # Digits said one by one, in groups: "1 1 4 - 1 2 - 6 1 4 3".
                            j += 1
                            continue
                    else:
                        # Groups typed, the rest said: "+1 212 four four eight oh nine one two".
                        more = _spelled_run(tokens, j + 1, skip | breaks)
                    spelled = spelled or more is not None
                if more is None or not tokens[j].space:
                    break
                if len(more) > 1 and spelled and not _number(tokens[j + 1].text):
                    digits += more
                    j += len(more)
                    single = False
                    continue
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
                more = _number(tokens[j + 2].text)
                if more is not None and len(more) <= 6:
                    ext = more
                    j += 2
            out.append(Value(i, j, tokens[i].start, tokens[j].end, digits, False, masked, ext))
            i = j + 1
            continue
        word = SPELLED.get(t.lower()) if len(t) <= 5 else None  # as _spelled, inline
        j = i
        if word is None and not masked and (word := _repeated(tokens, i, skip)) is not None:
            j = i + 1  # "double two ...": the run starts with a repeated digit
        if word is not None and not masked:
            digits = word
            while j + 1 < n and j + 1 not in skip:
                nxt = tokens[j + 1].text
                one = _number(nxt)
                spelled_one = _spelled(nxt)
                if spelled_one is not None or (one is not None and len(one) == 1):
                    digits += spelled_one if spelled_one is not None else (one or "")
                    j += 1
                elif nxt in _SPELLED_GAP and j + 2 < n and _spelled(tokens[j + 2].text) is not None:
                    j += 1
                elif (twice := _repeated(tokens, j + 1, skip)) is not None and tokens[j].space:
                    digits += twice
                    j += 2
                else:
                    break
            if len(digits) >= 3:
                out.append(Value(i, j, tokens[i].start, tokens[j].end, digits, True, False))
            i = j + 1
            continue
        if alnum and not masked and _alnum_like(t) and _ALNUM.fullmatch(t):
            digits = "".join(c for c in t if c.isdigit())
            out.append(Value(i, i, tok.start, tok.end, digits, False, False, alnum=True))
        i = first + 1 if not masked else i + 1
    return out
