"""The cue scan: whole words, the longest cue wins, typing slips forgiven."""

from __future__ import annotations

import pytest

from scrubber.detectors.cues import CueIndex

LISTS = {
    "ssn": ("ssn", "social security number", "ss#"),
    "phone": ("phone", "number", "phone number"),
    "reference": ("order", "order number"),
    "passport": ("passport", "passport number"),
    "birth": ("date of birth", "dob"),
}
INDEX = CueIndex(LISTS)


def cues(text: str) -> list[tuple[str, set[str]]]:
    return [(text[h.start : h.end], set(h.lists)) for h in INDEX.scan(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("my ssn is", [("ssn", {"ssn"})]),
        ("SS#123456789", [("SS#", {"ssn"})]),
        ("social_security_number: x", [("social_security_number", {"ssn"})]),
        ("order number 12", [("order number", {"reference"})]),  # not the phone cue "number"
        ("phone number 12", [("phone number", {"phone"})]),
        ("Passsport numbr", [("Passsport numbr", {"passport"})]),  # doubled letter, one left out
        ("my pohne", [("pohne", {"phone"})]),  # two letters swapped
        ("date of biirth", [("date of biirth", {"birth"})]),
        ("discarded phones, dobs", []),  # not inside or at the start of a longer word
        ("xphone", []),
        ("hpone", []),  # the first letter must be right
        ("ssn123", [("ssn", {"ssn"})]),  # a cue may run into digits
    ],
)
def test_cue_scan(text: str, expected: list[tuple[str, set[str]]]) -> None:
    assert cues(text) == expected


def test_offsets_stay_right_when_lower_case_changes_length() -> None:
    text = "İİ ssn 1"  # "İ".lower() is two characters
    assert cues(text) == [("ssn", {"ssn"})]


def test_a_run_of_one_letter_costs_no_more_than_its_length() -> None:
    # Bounded repeats, literal first characters: a long run is scanned in linear time.
    assert cues("s" * 200_000 + " ssn") == [("ssn", {"ssn"})]
