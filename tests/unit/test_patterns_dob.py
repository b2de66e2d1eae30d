"""Dates of birth: the formats next to a birth cue, replies to a question for one on the next
lines (``answer_lines``), and dates near birth words that are not dates of birth."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from scrubber.detectors.cues import load_cues
from scrubber.detectors.pattern_rules import load_patterns
from scrubber.detectors.patterns import PatternDetector
from scrubber.detectors.registry import build_detectors
from scrubber.detectors.validators import dates
from scrubber.detectors.validators.base import Memo
from scrubber.dial import ENTITIES, Policy
from scrubber.engine import Scrubber
from scrubber.rulefile import RuleError, grammar_dir

DETECTOR = next(d for d in build_detectors(frozenset(ENTITIES)) if isinstance(d, PatternDetector))
ENGINE = Scrubber(Policy(level=7), detectors=[DETECTOR])


def found(text: str, entity: str = "DATE_OF_BIRTH") -> list[str]:
    return [text[f.start : f.end] for f in ENGINE.scrub(text).findings if f.entity == entity]


def _ago(days: int) -> dt.date:
    return dt.date.today() - dt.timedelta(days=days)


# (text, the date of birth in it)
FORMATS = [
    ("DOB 14 Mar '87", "14 Mar '87"),
    ("born Mar. 3 '85", "Mar. 3 '85"),
    ("dob: 3rd March 1985", "3rd March 1985"),
    ("I was born on March 3rd, 1985.", "March 3rd, 1985"),
    ("DOB 1985/3/3", "1985/3/3"),
    ("DOB: 03-MAR-1985", "03-MAR-1985"),
    ("I was born in march 1985", "march 1985"),
    ("Date of birth: Sept 1962", "Sept 1962"),
    ('{"dob":"1979-03-22T00:00:00Z"}', "1979-03-22T00:00:00Z"),
    ('{"dob":"1979-03-22T00:00:00.000+00:00"}', "1979-03-22T00:00:00.000+00:00"),
    ('{"dob":"1979-03-22"}', "1979-03-22"),
    ('{"dateOfBirth":"1979-03-22"}', "1979-03-22"),
    ("birth_date=1979-03-22 00:00:00", "1979-03-22"),
    ("date of birth 22.03.1979", "22.03.1979"),
    ("my date of birth is the twelfth of may, 1990", "twelfth of may, 1990"),
    ("born on the twenty-first of June 1970", "twenty-first of June 1970"),
    ("birthday: May twelfth, 1990", "May twelfth, 1990"),
    ("DOB May 3, 85", "May 3, 85"),
    ("DOB March 14th 88", "March 14th 88"),
    ("SELECT id FROM members WHERE dob = '1971-04-30'", "1971-04-30"),
    ("Paul Martin, né(e) le 14.07.1988 à Lyon", "14.07.1988"),
    # A few words or a format hint between the cue and the value.
    ("date of birth (as printed on the ID card): 4/12/1986", "4/12/1986"),
]


@pytest.mark.parametrize(("text", "value"), FORMATS, ids=[t for t, _ in FORMATS])
def test_format_next_to_a_birth_cue(text: str, value: str) -> None:
    assert found(text) == [value]


# (text, the dates of birth in it): the value on a reply line after a question for it.
ANSWERS = [
    ("Agent: and your date of birth?\nCustomer: 03/22/1979", ["03/22/1979"]),
    ("Agent: can I get your DOB please\nCustomer: sure, march 3rd 1985", ["march 3rd 1985"]),
    ("Rep: Please confirm the birthdate on file.\nCaller: 1/9/62", ["1/9/62"]),
    ("Agent: When were you born?\r\nCustomer: 14 Mar '87\r\n", ["14 Mar '87"]),
    ("Agent: date of birth?\nCustomer: one sec\nCustomer: 22.03.1979", ["22.03.1979"]),
    ("Agent: date of birth?\n\nCustomer: 22.03.1979", ["22.03.1979"]),
    ("What is the patient's DOB?\n1979-03-22", ["1979-03-22"]),
    (
        "> Agent (Ana): and the birth date?\n> Customer: it's the twelfth of may, 1990",
        ["twelfth of may, 1990"],
    ),
    # The first reply with a value ends the reach.
    ("Agent: DOB?\nCustomer: 22.03.1979\nCustomer: 03/02/1981", ["22.03.1979"]),
    # A line that gives its own value asks for nothing.
    ("Customer: my dob is 03/22/1979\nCustomer: 04/01/1980", ["03/22/1979"]),
    # A request for several values, answered in words on one line (twice as long a reply).
    (
        "Desk: dates of birth for both guests please\n"
        "Guest: mine is 4 May 1971 and my partner Ilse's is 2 Feb 1974",
        ["4 May 1971", "2 Feb 1974"],
    ),
    ("Nurse: and the DOBs of each child?\nParent: 03/11/2012, 19/06/2015", ["03/11/2012", "19/06/2015"]),
    (
        "dates of birth for both of you?\nmine is 4 May 1971 and Ilse's is 2 Feb 1974",
        ["4 May 1971", "2 Feb 1974"],
    ),
]


@pytest.mark.parametrize(("text", "values"), ANSWERS, ids=[t[:50] for t, _ in ANSWERS])
def test_reply_to_a_question_for_a_birth_date(text: str, values: list[str]) -> None:
    assert found(text) == values


# A date of birth given in parts, a part a line (answer_parts): each part is one.
ANSWERS_IN_PARTS = [
    ("Clerk: your date of birth?\nGuest: 30 June\nClerk: and which year?\nGuest: 1971", ["30 June", "1971"]),
    (
        "Nurse: DOB please\nPatient: march 9th\nNurse: year?\nPatient: nineteen fifty-eight",
        ["march 9th", "nineteen fifty-eight"],
    ),
    (
        "Agent: the account holder's birthdate?\nAmir (caller): the month is May\nAmir (caller): day 21\n"
        "Amir (caller): year 1988 I think",
        ["May", "21", "1988"],
    ),
    ("> When were you born?\n2 September\n\n> And the year?\n2003, why?", ["2 September", "2003"]),
]


@pytest.mark.parametrize(("text", "values"), ANSWERS_IN_PARTS, ids=[t[:50] for t, _ in ANSWERS_IN_PARTS])
def test_a_date_of_birth_given_in_parts(text: str, values: list[str]) -> None:
    assert found(text) == values


NOT_ANSWERS = [
    # Too far: a third line.
    "Agent: date of birth?\nCustomer: hold on\nCustomer: one sec\nCustomer: 03/22/1979",
    # A cue of its own: the line is a sentence about something else.
    "Agent: date of birth?\nCustomer: my order from 03/02/2021 never arrived",
    # Too long to be a reply.
    "Agent: date of birth?\nCustomer: well the thing is that back on 03/02/2021 I moved house and "
    "nothing has arrived since then at all",
    # A record, not a reply.
    "WARN dob missing for user 4411\nINFO created_at=2019-03-02 user=4411",
    # A timestamp, not a date of birth.
    "WARN dob missing\n2019-03-02 11:46:13 INFO retry",
    # No question before it.
    "Agent: thanks, that's all\nCustomer: 03/22/1979",
    # A row under a table's header: two dates, no reply (the table's column view decides).
    "emp_no,first_name,dob,hire_date\nE95108,Esteban,1942-11-10,2018-09-20",
    # ... also under a request for several: a row says its values in no words.
    "dates of birth for all staff please:\nE95108,Esteban,1942-11-10,2018-09-20",
    # Asked for several, a long line with one date is a sentence, no reply.
    "Desk: dates of birth for both guests please\n"
    "Guest: we will bring the forms on 4 May 1999 when the office opens after the move",
    # Asked for one, a reply of two dates is no reply.
    "Agent: date of birth?\nCaller: either 4 May 1971 or 2 Feb 1974, I forget which",
    # Parts of a date of birth (answer_parts) only in replies: a year by a birth word in a
    # sentence is no more than a year.
    "I was born in 1962 and moved here in 1990",
    "my birthday is in May",
    # Not a date: "may" as a verb, a count, a time.
    "Agent: date of birth please?\nCaller: may I ask why you need it?",
    "Agent: and your DOB?\nCustomer: hold on, 2 minutes",
    "Agent: date of birth?\nCustomer: I'll call back at 10 30",
]


@pytest.mark.parametrize("text", NOT_ANSWERS, ids=[t[:50] for t in NOT_ANSWERS])
def test_no_reply(text: str) -> None:
    assert found(text) == []


def test_other_rules_reach_the_next_lines_only_when_configured() -> None:
    assert found("Agent: what's your passport number?\nCustomer: 533812345", "PASSPORT") == ["533812345"]
    rules = {r.name: r for r in DETECTOR.rules}
    assert rules["date_of_birth"].answer_lines == 2
    assert rules["phone_cued"].answer_lines == 0


NOT_BIRTH_DATES = [
    "birthday party on 12/05/2019",  # an occasion, not a date of birth
    "your birthday coupon expires 03/01/2020",
    "the birthday gifts shipped 2021-04-02",
    "dob updated 2019-11-05 11:46:13",  # a timestamp
    "dob: 1979-03-22T05:00:00Z",  # a date-time, not a date
    "born on 31/02/1990",  # no such date
    "born in Marseille 1990",
    "I was born in Ohio and moved in 2012",
    "born and raised here, 30 years a customer",
    "the birthday party is on March 14th 10 people are coming",  # a count after the day
    "born on March 4th 12 years ago",  # a count of years, no year
    "date of birth 14/13/1990",
]


@pytest.mark.parametrize("text", NOT_BIRTH_DATES, ids=NOT_BIRTH_DATES)
def test_not_a_date_of_birth(text: str) -> None:
    assert found(text) == []


def test_a_birth_date_must_be_a_year_old() -> None:
    old, recent, future = _ago(400), _ago(100), _ago(-30)
    assert found(f"DOB {old:%m/%d/%Y}") == [f"{old:%m/%d/%Y}"]
    assert found(f"birthday {recent:%Y-%m-%d}") == []
    assert found(f"dob {future:%Y-%m-%d}") == []


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("04/12/1986", True),
        ("1986-12-04", True),
        ("19861204", True),
        ("4.12.86", True),
        ("14 Mar '87", True),
        ("Mar. 3 '85", True),
        ("twelfth of may, 1990", True),
        ("thirty-first of december 1970", True),
        ("thirty-first of november 1970", False),
        ("March 1985", True),
        ("Marsh 1985", False),
        ("March 85", False),  # a month and a year: four digits only
        ("1979-03-22T00:00:00Z", True),
        ("03/22/1979T00:00", False),
        ("1899-12-31", False),
        ("29 February 1988", True),
        ("29 February 1989", False),
    ],
)
def test_date_validator(value: str, ok: bool) -> None:
    assert (dates.date(value, Memo()) == len(value)) is ok


@pytest.mark.parametrize(
    ("keys", "error"),
    [
        ("    requires: [birth]\n    answer_parts: [month]\n", "answer_parts needs answer_lines"),
        ("    answer_lines: 2\n", "answer_lines needs requires"),
        ("    split_head: '[A-Z]{2}'\n", "split_head needs validate"),
        ("    validate: iban\n    split_head: '[A-Z'\n", "invalid split_head"),
    ],
)
def test_reply_keys_need_what_they_build_on(keys: str, error: str, tmp_path: Path) -> None:
    cues = load_cues(grammar_dir() / "cues.yaml")
    rules = tmp_path / "patterns.yaml"
    rules.write_text(
        "patterns:\n  - name: x\n    entity: DATE_OF_BIRTH\n    regex: '\\d{8}'\n    score: 0.5\n" + keys,
        encoding="utf-8",
    )
    with pytest.raises(RuleError, match=error):
        load_patterns(rules, cues)
