"""STREET_ADDRESS in formats the grammar was not written from: CRLF lines, other street
types, lower case after a (mistyped) cue, units; and look-alikes."""

from __future__ import annotations

import re

import pytest

from scrubber import rulefile
from scrubber.detectors import MessageContext
from scrubber.detectors.addresses import AddressDetector, load_address_grammar


@pytest.fixture(scope="module")
def detector() -> AddressDetector:
    return AddressDetector(load_address_grammar(rulefile.grammar_dir() / "addresses.yaml"))


def streets(detector: AddressDetector, text: str) -> list[str]:
    """The street addresses the detector finds in ``text``, as written."""
    return [
        text[f.start : f.end] for f in detector.detect(text, MessageContext()) if f.entity == "STREET_ADDRESS"
    ]


def unmarked(marked: str) -> tuple[str, list[str]]:
    """``marked`` without its ``[[...]]`` marks, and the values they marked."""
    return re.sub(r"\[\[(.+?)\]\]", r"\1", marked), re.findall(r"\[\[(.+?)\]\]", marked)


POSITIVE = [
    "Ship to:\r\n[[4021 Juniper Crest]]\r\nBoise, ID\r\n",
    "Return address: [[18 Harbour Quay, Unit 12]], Dublin",
    "we moved to [[7 Willow Bend]] last spring",
    "my adress is [[55 elm street]] near the park",
    "my adress is [[55 elm street, Apt 4]]",
    "pls deliver to [[902 w cypress ave]] before noon",
    "Shiping adress: [[1130 Old Mill Rd, Unit 3]]",
    "INFO geocode street=[[77 Esplanade Rd]] city=Gore",
    "[[2215 Cedar Creek Trace]]\r\nAustin, TX 78744",
    "She lives at [[31 Rue Morgue Lane]] in town",
    "Billing: [[600 NE Alder Vale]]; shipping: [[14 Kings Mews]]",
    "[[Apartment 9, 14 Thornton Villas]] is the new place",
    "The card goes to [[Boulevard Córdova 1551]]. Activate it online.",
    "Siège: [[Avenue Louise 54]], 1050 Bruxelles",
    "I'm at [[88 mission street]] till 6",
    "The office is at [[350 Fifth Avenue, 34th Floor]], ask at the desk",
    '{"address":{"line1":"[[902 Lakeview Blvd]]","line2":"Apt 12C","city":"Austin"}}',
    "addr: [[250 w 57th st apt 14b]]",
]


@pytest.mark.parametrize("marked", POSITIVE)
def test_addresses_in_new_formats(detector: AddressDetector, marked: str) -> None:
    text, want = unmarked(marked)
    assert streets(detector, text) == want


NEGATIVE = [
    "we need 2 Day Passes for the event",
    "I bought 3 Apple Orchard tickets",
    "the 2 Summit keynotes were recorded",
    "Version 3 Release Notes are out",
    "send 4 copies to the Main Street branch",
    "we drove 300 miles down the coast road",
    "Terminal 2 Gate B12 at 14:35",
    "I have 2 dogs and a long drive home",
]


@pytest.mark.parametrize("text", NEGATIVE)
def test_look_alikes_are_left_alone(detector: AddressDetector, text: str) -> None:
    assert streets(detector, text) == []


# Streets ending in a suffix of the US postal list that is an everyday noun as well ("Springs",
# "Summit", "Key"): an address when a unit, a city with state and ZIP, or a cue says so.
CONFIRMED = [
    "Please send the forms to [[4410 Willow Springs Suite 12]], Reno.",
    "[[9 Heron Stream Apt. 107]]",
    "Invoice address [[88 Copper Summit]], Boulder, CO 80302",
    "[[302 Elk Creek Junction]], Casper, WY 82601",
    "[[51 Tamsin Burg]], Lake Orrville, AZ 85004",
    "our new office: [[1200 Harbor View, Unit 5]]",
    "return address is [[600 Pine Key]].",
    "We moved to [[75 Larch Estate]] in March",
    # a person's name before the suffix: streets are named after people, springs are not
    "A replacement will go to [[990 Tyler Lake]] within 66 days",
    "the courier left it at [[65 Clive Tunnel]] this morning",
    # ... or a place's own name: one written capitalised far more often than not, or one no list
    # knows ("Ashgrove", "Ballymun")
    "We confirm the sale of [[12 Ashgrove View]] has been agreed.",
    "the landlord owns [[225 Ballymun Park]]. Do I go to the RTB?",
    "the flat at [[3 Hillcrest Park]] is let",
    'line1="[[459 Carter Light]]" postcode=L4D 4ZB',
    # a cue before it, and any word but a plural noun after it
    "Can you ship it to [[6 Malcolm Spring]] instead?",
    # a unit and a comma before the street, with no house number (British flats and studios)
    "the new address is [[Studio 59, Taylor Islands]], Harrisonfort",
    "Ship to:\nEllen Kramer\n[[Studio 77a, Patel Unions]]\nWest Andreaberg",
]


@pytest.mark.parametrize("marked", CONFIRMED)
def test_everyday_suffixes_with_something_that_confirms_them(detector: AddressDetector, marked: str) -> None:
    text, want = unmarked(marked)
    assert streets(detector, text) == want


UNCONFIRMED = [
    "We walked 3 Miles to Silver Lake and back.",
    "I scored 10 Points at the Summit yesterday",
    "Flight 221 to Palm Springs, gate 14",
    "the 5 Golden Springs resorts are full",
    "see 2 Key points below, and 3 Action items",
    "Address the 2 Summit issues in the meeting",
    "Chapter 7 Forest Fires, page 12",
    "I moved 3 Pines to the garden",
    "Windows 11 Park mode, Suite 2 tests",
    "we stayed 3 nights at 12 Oak Springs",
    "we stayed at 5 Golden Springs last year",
    "we have 3 Jordan Lakes tickets",
    "meet at 12 Rock Springs",
    "the 4 Star View apartments are booked",
    "take Avenue Q 3 times a week",
]


@pytest.mark.parametrize("text", UNCONFIRMED)
def test_everyday_suffixes_alone_are_no_street(detector: AddressDetector, text: str) -> None:
    assert streets(detector, text) == []


def test_a_house_number_of_three_digits_or_more_may_start_with_zero(detector: AddressDetector) -> None:
    text = "Address: 0219 Michael Burg, Allisonborough, SC 08410; the 07 Main St bus is at 07:15"
    assert streets(detector, text) == ["0219 Michael Burg"]


ZIPS = [
    ("i moved, new address is 189 willow bend ct brooklyn ny 11284", "11284"),
    ("I moved to 1520 Ocean Pkwy Apt 6F, Brooklyn 11230 last week", "11230"),
    ("Ship to 360 Goodwin Branch Apt. 426, East Lisaburgh, MH 87568.", "87568"),
    ("Remit to 41 Quarry Rd, Dover, DE 19901-4410", "19901-4410"),
]


@pytest.mark.parametrize(("text", "value"), ZIPS)
def test_the_zip_code_after_a_street_and_its_city(detector: AddressDetector, text: str, value: str) -> None:
    found = [(f.entity, text[f.start : f.end]) for f in detector.detect(text, MessageContext())]
    assert ("ZIP_CODE", value) in found


NO_ZIPS = [
    "88 Cedar Hollow Ln, ship 20000 units",  # a lower-case word: a count
    "Calle Mayor 10, 28013 Madrid",  # another country's postcode, before the city
    "3 Rue des Tanneurs, 67000 Strasbourg",
    "12 Main St, Springfield 20245 Smith Road",  # a word after the number
]


@pytest.mark.parametrize("text", NO_ZIPS)
def test_no_zip_code_where_a_us_address_does_not_end(detector: AddressDetector, text: str) -> None:
    assert [f for f in detector.detect(text, MessageContext()) if f.entity == "ZIP_CODE"] == []
