"""Dates of birth: a real calendar date, written in numbers or words, old enough."""

from __future__ import annotations

import datetime as dt
import re

from scrubber.detectors.validators.base import Memo

# Month names and their usual abbreviations, in English and in the languages whose birth
# cues grammar/cues.yaml lists (French, German, Spanish, Italian, Portuguese, Dutch). Not the
# abbreviations that are English words ("set", "out", "ago"): "out 12 2019" is no date.
_MONTHS = {
    m: i
    for i, names in enumerate(
        (
            (
                "jan",
                "january",
                "janv",
                "janvier",
                "januar",
                "jänner",
                "januari",
                "enero",
                "ene",
                "gennaio",
                "janeiro",
            ),
            (
                "feb",
                "february",
                "févr",
                "fevr",
                "février",
                "fevrier",
                "februar",
                "februari",
                "febrero",
                "febbraio",
                "fev",
                "fevereiro",
            ),
            ("mar", "march", "mars", "märz", "maerz", "mrz", "maart", "mrt", "marzo", "março", "marco"),
            ("apr", "april", "avr", "avril", "abril", "abr", "aprile"),
            ("may", "mai", "mei", "mayo", "maggio", "maio"),
            ("jun", "june", "juin", "juni", "junio", "giugno", "giu", "junho"),
            ("jul", "july", "juil", "juillet", "juli", "julio", "luglio", "lug", "julho"),
            ("aug", "august", "août", "aout", "augustus", "agosto"),
            (
                "sep",
                "sept",
                "september",
                "septembre",
                "septiembre",
                "setiembre",
                "settembre",
                "setembro",
            ),
            ("oct", "october", "octobre", "oktober", "okt", "octubre", "ottobre", "ott", "outubro"),
            ("nov", "november", "novembre", "noviembre", "novembro"),
            (
                "dec",
                "december",
                "déc",
                "décembre",
                "decembre",
                "dezember",
                "dez",
                "diciembre",
                "dic",
                "dicembre",
                "dezembro",
            ),
        ),
        start=1,
    )
    for m in names
}


_EARLIEST_BIRTH = dt.date(1900, 1, 1)
# The youngest a date of birth may be, in years. A date of the last twelve months next to a
# birth word is, far more often than a newborn's, the birthday being celebrated: the party, the
# card, the gift, the offer that comes with it ("birthday party on 12/05"). A date in the future
# is never a date of birth.
MIN_AGE_YEARS = 1

# Ordinals spelled out ("the twelfth of may, 1990"); "twenty-first" is read as "twentyfirst".
_ORDINAL_WORDS = [
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
    "tenth",
    "eleventh",
    "twelfth",
    "thirteenth",
    "fourteenth",
    "fifteenth",
    "sixteenth",
    "seventeenth",
    "eighteenth",
    "nineteenth",
    "twentieth",
]
_ORDINALS = {w: i for i, w in enumerate(_ORDINAL_WORDS, start=1)}
_ORDINALS.update({"twenty" + w: 20 + i for w, i in list(_ORDINALS.items()) if i < 10})
_ORDINALS.update({"thirtieth": 30, "thirtyfirst": 31})
_TENS_GLUE = re.compile(r"\b(twenty|thirty)[\s-]+(?=[a-z])")
# A year said in words at a date's end: "eighty-eight", "nineteen seventy nine" (read as
# "88", "79": two digits, as "'88" is).
_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_UNITS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_SPOKEN_YEAR = re.compile(rf"(?:nineteen[\s-]+)?\b({'|'.join(_TENS)})(?:[\s-]+({'|'.join(_UNITS)}))?$")


def _spoken_year(m: re.Match[str]) -> str:
    tens = _TENS.index(m[1]) + 2
    return f"{tens}{_UNITS.index(m[2]) + 1 if m[2] else 0}"


# What a date's parts are separated by once its month is a word: blanks, punctuation, "of".
_DATE_SEPARATORS = re.compile(r"(?:[\s,./'-]|\b(?:of|de|del)\b)+")


def _month(word: str) -> int:
    """1-12 for a month name or its abbreviation ("sep", "sept", "september"), else 0."""
    return _MONTHS.get(word, 0)


def _day(word: str) -> int:
    """The day of "3", "03", "3rd", "third", "twenty-first", else 0."""
    if word[:1].isdigit():
        word = word.removesuffix("st").removesuffix("nd").removesuffix("rd").removesuffix("th")
        return int(word) if word.isdigit() and len(word) <= 2 else 0
    return _ORDINALS.get(word, 0)


def _plausible(year: int, month: int, day: int) -> bool:
    today = dt.date.today()  # read once: it costs as much as the rest of the check
    if year < 100:
        year += 1900 if year > today.year % 100 else 2000
    try:
        born = dt.date(year, month, day)
    except ValueError:
        return False
    if born < _EARLIEST_BIRTH:
        return False
    # At least MIN_AGE_YEARS old (from 29 February, back to 28 February).
    try:
        youngest = today.replace(year=today.year - MIN_AGE_YEARS)
    except ValueError:
        youngest = today.replace(year=today.year - MIN_AGE_YEARS, day=28)
    return born <= youngest


def _year(word: str) -> int:
    """A year of four digits, or of two ("'87", "87"), else -1."""
    return int(word) if word.isdigit() and len(word) in (2, 4) else -1


def date(value: str, memo: Memo) -> int:
    """A real calendar date, old enough to be someone's date of birth (given birth context).

    Numbers (``1986-12-04``, ``04/12/1986``, ``4.12.86``, ``19861204``), a month's name with a
    day in digits or words (``3rd March 1985``, ``Mar. 3 '85``, ``the twelfth of may, 1990``),
    or a month and a year (``March 1985``: the first of the month must be old enough). An ISO
    date may carry a midnight time (``1979-03-22T00:00:00Z``), which is not checked here.
    """
    core = value
    if len(value) > 10 and value[10] in "Tt" and value[:4].isdigit():
        core = value[:10]
    if not core.replace("/", "").replace("-", "").replace(".", "").isdigit():
        # A month's name: "04-jul-1976", "4/july/76", "Mar. 3 '85", "the twelfth of may, 1990".
        v = _TENS_GLUE.sub(r"\1", _SPOKEN_YEAR.sub(_spoken_year, core.lower()))
        words = [w for w in _DATE_SEPARATORS.split(v) if w]
        if len(words) == 2:
            month, year = _month(words[0]), _year(words[1])
            ok = month > 0 and len(words[1]) == 4 and _plausible(year, month, 1)
            return len(value) if ok else 0
        if len(words) != 3:
            return 0
        if _month(words[0]):
            month, day, year = _month(words[0]), _day(words[1]), _year(words[2])
        else:
            month, day, year = _month(words[1]), _day(words[0]), _year(words[2])
        ok = month > 0 and day > 0 and year >= 0 and _plausible(year, month, day)
        return len(value) if ok else 0
    digits = core.replace("/", "-").replace(".", "-").split("-")
    if len(digits) == 1 and len(core) == 8 and core.isdigit():
        y, m, d = int(core[:4]), int(core[4:6]), int(core[6:])
        return (
            len(value)
            if _plausible(y, m, d) or _plausible(int(core[4:]), int(core[:2]), int(core[2:4]))
            else 0
        )
    if len(digits) != 3 or not all(p.isdigit() for p in digits):
        return 0
    a, b, c = (int(p) for p in digits)
    if len(digits[0]) == 4:
        return len(value) if _plausible(a, b, c) else 0
    if core is not value:
        return 0  # a time only after an ISO date
    # Month-first (US) or day-first: accept when either reading is a real date.
    return len(value) if _plausible(c, a, b) or _plausible(c, b, a) else 0
