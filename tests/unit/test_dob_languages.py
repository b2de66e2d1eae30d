"""Dates of birth written with the month's name in French, German, Spanish, Italian, Portuguese
and Dutch, after those languages' birth words: sentences written for this test."""

from __future__ import annotations

from functools import cache

import pytest

from scrubber.dial import Policy
from scrubber.engine import Scrubber


@cache
def engine() -> Scrubber:
    return Scrubber(Policy(level=7))


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Formulaire: date de naissance 17 février 1962, lieu Lyon", "17 février 1962"),
        ("Elle est née le 2 juillet 1975 à Nantes.", "2 juillet 1975"),
        ("Geburtsdatum: 3. März 1985", "3. März 1985"),
        ("Er wurde geboren am 14. Oktober 1971 in Graz.", "14. Oktober 1971"),
        ("fecha de nacimiento: 12 de mayo de 1990", "12 de mayo de 1990"),
        ("Soy Lucía, nacida el 2 de febrero de 1984.", "2 de febrero de 1984"),
        ("data di nascita: 5 settembre 1966", "5 settembre 1966"),
        ("data de nascimento: 7 de março de 1959", "7 de março de 1959"),
        ("geboortedatum 21 maart 1990", "21 maart 1990"),
        ("DOB 9 janvier 1938, please update the file", "9 janvier 1938"),
    ],
)
def test_a_date_of_birth_with_a_month_name_of_another_language(text: str, value: str) -> None:
    found = [text[f.start : f.end] for f in engine().scrub(text).findings if f.entity == "DATE_OF_BIRTH"]
    assert found == [value]


@pytest.mark.parametrize(
    "text",
    [
        "my birthday is out 12 2019",  # "out" is no month here
        "Birthday party on 3. März 2026",  # an occasion, and not a year old
        "Die Lieferung kam am 3. März 1985 an",  # no birth word
        "set 12 2019 as the date of birth field default",
    ],
)
def test_dates_that_are_no_date_of_birth(text: str) -> None:
    assert [f for f in engine().scrub(text).findings if f.entity == "DATE_OF_BIRTH"] == []
