"""Identifiers with a checksum or a plain shape: cards, IBANs, SSNs, routing and account
numbers, passports, driver's licences, e-mail addresses."""

from __future__ import annotations

from stdnum import iban as std_iban
from stdnum import luhn
from stdnum.us import itin, rtn

from scrubber.detectors.validators.base import Memo, digits_of, spaced_date

# Issuer ranges of the card schemes we accept (prefix -> allowed lengths).
_CARD_PREFIXES: tuple[tuple[range, int, frozenset[int]], ...] = (
    (range(4, 5), 1, frozenset({13, 16, 19})),  # Visa
    (range(51, 56), 2, frozenset({16})),  # Mastercard
    (range(2221, 2721), 4, frozenset({16})),  # Mastercard 2-series
    (range(34, 35), 2, frozenset({15})),  # Amex
    (range(37, 38), 2, frozenset({15})),  # Amex
    (range(6011, 6012), 4, frozenset({16, 19})),  # Discover
    (range(644, 650), 3, frozenset({16, 19})),  # Discover
    (range(65, 66), 2, frozenset({16, 19})),  # Discover
    (range(622126, 622926), 6, frozenset({16, 19})),  # Discover / UnionPay co-brand
    (range(3528, 3590), 4, frozenset({16, 19})),  # JCB
    (range(300, 306), 3, frozenset({14, 16})),  # Diners Club
    (range(36, 37), 2, frozenset({14, 16})),  # Diners Club
    (range(38, 40), 2, frozenset({14, 16})),  # Diners Club
    (range(62, 63), 2, frozenset({16, 17, 18, 19})),  # UnionPay
    (range(11, 20), 2, frozenset({15})),  # UATP (not "10...": the 15-digit ids some sites give users)
    (range(1800, 1801), 4, frozenset({15})),  # JCB, old 15-digit range
    (range(2131, 2132), 4, frozenset({15})),  # JCB, old 15-digit range
    (range(2200, 2205), 4, frozenset({16, 17, 18, 19})),  # Mir
    (range(5018, 5019), 4, frozenset({16, 17, 18, 19})),  # Maestro
    (range(5019, 5020), 4, frozenset({16})),  # Dankort
    (range(5020, 5021), 4, frozenset({16, 17, 18, 19})),  # Maestro
    (range(5038, 5039), 4, frozenset({16, 17, 18, 19})),  # Maestro
    (range(5060, 5062), 4, frozenset({16, 18, 19})),  # Verve
    (range(508, 509), 3, frozenset({16})),  # RuPay
    (range(5893, 5894), 4, frozenset({16, 17, 18, 19})),  # Maestro
    (range(60, 61), 2, frozenset({16})),  # RuPay
    (range(6304, 6305), 4, frozenset({16, 17, 18, 19})),  # Maestro, Laser
    (range(637, 640), 3, frozenset({16})),  # InstaPayment
    (range(6759, 6760), 4, frozenset({16, 17, 18, 19})),  # Maestro UK
    (range(6761, 6764), 4, frozenset({16, 17, 18, 19})),  # Maestro
    (range(9792, 9793), 4, frozenset({16})),  # Troy
)
# Shorter Maestro numbers (12-15 digits) are taken only after a card cue (luhn_any): without
# one, too many order and reference numbers of that length start with the same digits.


def luhn_card(value: str, memo: Memo) -> int:
    digits = digits_of(value)
    # Test numbers such as 4111 1111 1111 1111 are masked too: they are Luhn-valid card numbers
    # in a real range, and a scrubber cannot tell them from live ones.
    if not 13 <= len(digits) <= 19:
        return 0
    for prefixes, width, lengths in _CARD_PREFIXES:
        if int(digits[:width]) in prefixes and len(digits) in lengths:
            return len(value) if luhn.is_valid(digits) else 0
    return 0


def luhn_any(value: str, memo: Memo) -> int:
    """12-19 digits that pass Luhn, whatever the issuer: for a number a card cue announces."""
    digits = digits_of(value)
    if not 12 <= len(digits) <= 19 or len(set(digits)) < 3:
        return 0
    return len(value) if luhn.is_valid(digits) else 0


def iban(value: str, memo: Memo) -> int:
    # The pattern may run on into a following group; drop groups from the end until it checks.
    parts = value.split()
    while parts:
        candidate = " ".join(parts)
        if std_iban.is_valid(candidate):
            return len(candidate)
        if len(parts) == 1:
            break
        parts.pop()
    return len(value) if std_iban.is_valid(value) else 0


def us_ssn(value: str, memo: Memo) -> int:
    """Nine digits the SSA could have issued: area not 000, 666 or 900-999, group not 00,
    serial not 0000; or an IRS ITIN (area 9, group in the IRS's ranges), the number a person
    without an SSN files taxes with, masked as an SSN.

    stdnum's ``ssn.is_valid`` also refuses a few numbers printed in advertisements and
    examples ("078-05-1120"); those are masked here as test card numbers are, because a
    scrubber cannot tell a published number from a live one and a real person held some."""
    digits = digits_of(value)
    if len(digits) != 9:
        return 0
    area, group, serial = digits[:3], digits[3:5], digits[5:]
    if area[0] == "9":
        return len(value) if itin.is_valid(digits) else 0
    if area in ("000", "666") or group == "00" or serial == "0000":
        return 0
    return len(value)


def aba_routing(value: str, memo: Memo) -> int:
    return len(value) if rtn.is_valid(value) else 0


def bank_account(value: str, memo: Memo) -> int:
    """A bank account number: 8 to 17 digits that are not one repeated digit or a plain run."""
    digits = digits_of(value)
    if "-" in value and spaced_date(value.split("-")):
        return 0  # "2024-01-15"
    if not 8 <= len(digits) <= 17 or len(set(digits)) < 3:
        return 0
    if digits in "01234567890123456789" or digits in "98765432109876543210":
        return 0
    return len(value)


def passport(value: str, memo: Memo) -> int:
    """Six to nine letters and digits, blanks between groups aside ("PA 2281 093"); digits
    alone only eight or nine of them, and not a date written with blanks ("12 05 2029")."""
    groups = value.split()
    core = "".join(groups)
    digits = sum(c.isdigit() for c in core)
    if not 6 <= len(core) <= 9 or digits < 1 or len(set(core)) < 3:
        return 0
    if core.isdigit() and (len(core) < 8 or spaced_date(groups)):
        return 0
    return len(value)


def driver_license(value: str, memo: Memo) -> int:
    alnum = [c for c in value if c.isalnum()]
    digits = sum(c.isdigit() for c in alnum)
    if not 6 <= len(alnum) <= 20 or digits < 1 or len(set(alnum)) < 3:
        return 0
    if value.isalpha():
        return 0
    return len(value)


_FILE_SUFFIXES = frozenset({"png", "jpg", "jpeg", "gif", "svg", "webp", "js", "css", "map", "ico"})


def email(value: str, memo: Memo) -> int:
    tld = value.rsplit(".", 1)[-1].lower()
    return 0 if tld in _FILE_SUFFIXES else len(value)
