"""Values a cue announces that a validator alone would let pass: cards only Luhn vouches for,
passports and driving licences of other countries, secrets after key words and in connection
strings, SSNs typed with other dashes, a number right after another, values given as a reply;
with the look-alikes beside the same words. The whole engine at level 7, as a user runs it."""

from __future__ import annotations

from functools import cache

import pytest

from scrubber.dial import Policy
from scrubber.engine import Scrubber


@cache
def engine() -> Scrubber:
    return Scrubber(Policy(level=7))


def found(text: str) -> list[tuple[str, str]]:
    return [(f.entity, text[f.start : f.end]) for f in engine().scrub(text).findings]


ANNOUNCED = [
    # Luhn-valid numbers the issuer table does not hold, after a card cue.
    ("Paid with my Maestro 6759 6498 2643 0 yesterday", "CREDIT_CARD", "6759 6498 2643 0"),
    ("JCB card: 2131 7302 0418 552", "CREDIT_CARD", "2131 7302 0418 552"),
    ("mir card 2200 4187 3965 1022", "CREDIT_CARD", "2200 4187 3965 1022"),
    # ... after other languages' words for a card, or a request to charge it.
    ("Kartennummer 1800 9799 4865 523", "CREDIT_CARD", "1800 9799 4865 523"),
    ("Please charge 3518492543660045, expiry 09/29.", "CREDIT_CARD", "3518492543660045"),
    ("número de tarjeta: 5018 4607 9439", "CREDIT_CARD", "5018 4607 9439"),
    # Passports and licences after other languages' words, in groups.
    ("Pasaporte: PA 2281 093", "PASSPORT", "PA 2281 093"),
    ("passeport n° 18AV04417", "PASSPORT", "18AV04417"),
    ("Reisepass Nr. C01X00T47, gültig bis 2031", "PASSPORT", "C01X00T47"),
    ("Driving licence MORGA753116SM9IJ", "DRIVER_LICENSE", "MORGA753116SM9IJ"),
    ("licencia de conducir: 418 227 903", "DRIVER_LICENSE", "418 227 903"),
    ("Führerschein: B072RRE2I55", "DRIVER_LICENSE", "B072RRE2I55"),
    # Secrets after key words, in prose and in connection strings.
    ("password for the staging vault is Kq7!rT2mW", "SECRET", "Kq7!rT2mW"),
    ("login for the build box: deployer / Hx9#tulip22", "SECRET", "Hx9#tulip22"),
    (
        "Endpoint=sb://x.example/;AccountKey=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA==;",
        "SECRET",
        "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA==",
    ),
    # VPN shared secrets.
    ("Pre-shared key: kq8V2nL0xR7tW4pZ", "SECRET", "kq8V2nL0xR7tW4pZ"),
    ("psk=Zq81mLp0Xr", "SECRET", "Zq81mLp0Xr"),
    # An SSN typed with an en dash; a mixed-case IBAN.
    ("my ssn 536–22–8173 thanks", "US_SSN", "536–22–8173"),
    ("IBAN: De89 3704 0044 0532 0130 00", "IBAN", "De89 3704 0044 0532 0130 00"),
    # Given as the reply to the line that asks for it.
    ("Agent: what's the password on the router?\nCustomer: Lantern_88moss", "SECRET", "Lantern_88moss"),
    ("Agent: and your postcode?\nCustomer: sw1a 1aa", "ZIP_CODE", "sw1a 1aa"),
    ("bot: And the account number?\nuser: 5427138320", "BANK_ACCOUNT", "5427138320"),
    ("bot: the 9-digit routing number please\nuser: 324334203", "BANK_ACCOUNT", "324334203"),
    ("Agent: can you confirm your social?\nCaller: 363801953", "US_SSN", "363801953"),
    ("Agent: and the driver's license number?\nCustomer: D1273448", "DRIVER_LICENSE", "D1273448"),
    # ... read out in groups of digits, as a caller says it.
    ("Clerk: routing number for the transfer?\nGuest: 271 066 190", "BANK_ACCOUNT", "271 066 190"),
    ("bot: And the account number?\nuser: 8813 0274 61", "BANK_ACCOUNT", "8813 0274 61"),
    ("bot: And the account number?\nuser: 542 713 832 0", "BANK_ACCOUNT", "542 713 832 0"),  # README
    ("Rep: and the account number please\n- 602 991 478 3", "BANK_ACCOUNT", "602 991 478 3"),
    ("Agent: your passport number?\nCaller: 5 0 9 1 7 7 2 3 8", "PASSPORT", "5 0 9 1 7 7 2 3 8"),
    # ... spelt out, as on the phone: letters, the spelling alphabet, "X as in <word>".
    ("Rep: And the postal code?\nCaller: K 2 P... 1 L 4", "ZIP_CODE", "K 2 P... 1 L 4"),
    (
        "Agent: postcode please?\nCaller: it's M as in mike 1 1, 1 A as in apple E",
        "ZIP_CODE",
        "M as in mike 1 1, 1 A as in apple E",
    ),
    (
        "Agent: your passport number?\nCaller: X as in xray 4 4 1 9 0 2 7",
        "PASSPORT",
        "X as in xray 4 4 1 9 0 2 7",
    ),
    (
        "Agent: and the postcode?\nGuest: sierra echo one nine, two tango uniform",
        "ZIP_CODE",
        "sierra echo one nine, two tango uniform",
    ),
    # A signature's one-letter label at the start of a line: any country's groups.
    ("Ines Vaal\nOffice Lead\nM: 075 318 2296\n", "PHONE_NUMBER", "075 318 2296"),
    ("T. 0 41 77 80 12 | E: ines@example.org", "PHONE_NUMBER", "0 41 77 80 12"),
    # A UK licence in a log line, the cue two keys before it, spelt "drivers_licence".
    (
        "kyc check doc=drivers_licence issuer=UK number=VAALX704251I99QT ok",
        "DRIVER_LICENSE",
        "VAALX704251I99QT",
    ),
    # A request for the digits at the end of a card, and the reply.
    ("Rep: Amex shows five digits at the end, can you read those?\nCaller: 31862", "CREDIT_CARD", "31862"),
    # A reference word in a phrase that only qualifies the cue does not take the value from it.
    ("The passport number on the booking is AQ5519023", "PASSPORT", "AQ5519023"),
    ("my passport number for the reservation is K4410972", "PASSPORT", "K4410972"),
]


@pytest.mark.parametrize(("text", "entity", "value"), ANNOUNCED)
def test_an_announced_value_is_found(text: str, entity: str, value: str) -> None:
    assert (entity, value) in found(text)


def test_a_phone_right_after_an_ssn_is_a_phone_of_its_own() -> None:
    text = "My SSN is 536-22-8173 (415) 555-2671 call me"
    assert found(text) == [("US_SSN", "536-22-8173"), ("PHONE_NUMBER", "(415) 555-2671")]


LOOK_ALIKES = [
    "gift card 6759649826430",  # a gift card is no payment card
    "Order ref 213173020418552 for the card",  # a reference cue is nearer
    "passport on file, booking ref AQ5519023",  # the reference has a cue of its own
    "Troy called at 6759649826430",  # a name, no card cue
    "travel document 12 05 2029",  # a date written with blanks
    "Licence: GPL-3.0",  # software licences
    "License: MIT",
    "the password for the account is wrong",  # no value that looks like a password
    "the PSK was rotated yesterday",
    "sms_sent_at=1712345678 phone",  # an epoch time
    "they charged me 4521 for the repair",  # an amount after "charged"
    "we charge 2500 per month",
    "dial 2 for billing, order 12345678",  # a menu choice, then a reference
    # A reply with a cue of its own answers for that cue, not the question.
    "Agent: what is your account number?\nCustomer: it is on the card, order 12345678",
    "bot: And the account number?\nuser: ticket 55120934 covers it",
    # A reply with other words is no spelling; "as in" after a word is no letter spelt.
    "Agent: postcode please?\nCaller: same as in my file from last year, I think",
    "Agent: postcode please?\nCaller: B 6 Z, the blue house next door",
    "Agent: your passport number?\nCaller: A B C D E F",
    # A one-letter label is a label only alone at a line's start, with the number as the rest.
    "AM: 075 318 2296",
    "M: 075 318 2296 is the batch id",
    "C: 075 318 2296",
    # Read out in groups: a phone's groups are a phone's, blanks in a date a date's, and a
    # routing number read out must still pass the ABA checksum.
    "Agent: and your passport number?\nCustomer: 12 05 2029",
    "Clerk: routing number for the transfer?\nGuest: 271 066 191",
    "bot: And the account number?\nuser: 2 accounts, 3 cards",
]


SPLIT = [
    # An IBAN typed over two messages: both parts, whatever the speaker's label.
    ("Buyer: DE44 5001\nBuyer: 0517 5407 3249 31", ["DE44 5001", "0517 5407 3249 31"]),
    (
        "[10:02] Ana (customer): ES87 2085 0103\n[10:03] Ana (customer): 9203 0073 1702 thanks",
        ["ES87 2085 0103", "9203 0073 1702"],
    ),
    ("10:02:11 guest | DE44\n10:02:19 guest | 5001 0517 5407 3249 31", ["DE44", "5001 0517 5407 3249 31"]),
    # The checksum decides: no IBAN, no part of one.
    ("Buyer: DE44 5001\nBuyer: 0517 5407 3249 32", []),
    ("my ref is AB12 3456\n7890 1234 5678 is the order", []),
]


@pytest.mark.parametrize(("text", "parts"), SPLIT, ids=[t[:40] for t, _ in SPLIT])
def test_an_iban_typed_over_two_lines(text: str, parts: list[str]) -> None:
    assert [v for entity, v in found(text) if entity == "IBAN"] == parts


def test_groups_a_phone_is_written_in_are_a_phone_under_any_request() -> None:
    text = "Please send the refund to my mother's account\nIvo Marsh\n514 847 2290"
    assert ("PHONE_NUMBER", "514 847 2290") in found(text)
    assert all(entity != "BANK_ACCOUNT" for entity, _ in found(text))


def test_a_line_that_only_names_a_value_asks_for_none() -> None:
    # A signature's job title holds an account cue; the line under it is contact data, and
    # its number is the phone the phone patterns read, not an account number given as a reply.
    text = (
        "Kind regards,\nRafael Okafor\nAccount Manager | Northwind Freight\n"
        "T: 512-921-6873 | E: r@example.com"
    )
    assert ("PHONE_NUMBER", "512-921-6873") in found(text)
    assert all(entity != "BANK_ACCOUNT" for entity, _ in found(text))


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_a_look_alike_beside_the_same_words_is_none(text: str) -> None:
    # "Troy" is a card brand and here a person: the name is the name model's to find.
    assert [f for f in found(text) if f[0] != "PERSON"] == []
