"""Phone numbers: libphonenumber's validity, for numbers however people write them, and a
number's length and structure where a phone label vouches for it."""

from __future__ import annotations

import re
from collections.abc import Callable

import phonenumbers

from scrubber.detectors.validators.base import Memo, digits_of, spaced_date
from scrubber.detectors.validators.ip import DOTTED_QUAD
from scrubber.detectors.validators.phone_metadata import US_FIRST, hopeless, north_american, valid_in

# Every metadata pattern compiled once and kept, not looked up in ``re``'s own cache on each of
# the dozen matches a validation makes (a public switch of the library: 10-30% off each call).
phonenumbers.enable_pattern_cache()


_PHONE_REGIONS = ("US", "GB", "DE", "FR", "IN", "AU")


def phone(value: str, memo: Memo) -> int:
    """Any number libphonenumber calls valid in one of the supported regions, however written."""
    digits = digits_of(value)
    if (
        not 7 <= len(digits) <= 20
        or len(set(digits)) < 3
        or (len(digits) <= 8 and _looks_like_date_or_time(value))
    ):
        return 0
    core = _without_extension(value)
    if core.count("(") != core.count(")"):
        return 0
    if core.startswith("00"):
        core = "+" + core[2:].lstrip()
    regions = (None,) if core.startswith("+") else _PHONE_REGIONS
    return len(value) if any(_parse(core, r, memo) for r in regions) else 0


_NANP_GROUPS = ([3, 3, 4], [1, 3, 3, 4])
_TRUNK_REGIONS = ("GB", "DE", "FR", "AU", "IN")
_EXT_WORDS = ("extension", "ext.", "ext", "x")
_GROUP_SEPARATORS = str.maketrans(dict.fromkeys("().-/\t+,", " "))


def phone_formatted(value: str, memo: Memo) -> int:
    """A phone number written the way people write one, and valid per libphonenumber.

    International ("+44 20 7946 0958", "+14155550142", "0044 ..."), North American in 3-3-4
    groups ("(415) 555-0142", "1-415-555-0142", "415.555.0142"), or national with a trunk 0 in
    groups ("020 7946 0958", "05 50 41 60 16"), or an Indian mobile in two fives. Other digit
    runs (undelimited, odd groups: "400 245639", timestamps) are left to cue-confirmed rules.
    """
    if not _may_be_grouped_phone(value):
        return 0
    return _phone_prefix(value, memo, grouped=True)


# What _may_be_grouped_phone accepts, as one match from the start: some digit, and a "+" first,
# or a first digit "0", or first runs of digits 3-3-4, 1-3-3-4 or 5-5 (the first digit 6-9).
# Each \D run is followed by a digit and the reverse: linear on the standard library's engine.
_GROUPED_START = re.compile(
    r"(?=\D*\d)(?:\s*\+|\D*(?:0|\d{3}\D+\d{3}\D+\d{4}(?!\d)|\d\D+\d{3}\D+\d{3}\D+\d{4}(?!\d)"
    r"|[6-9]\d{4}\D+\d{5}(?!\d)))"
)


def _may_be_grouped_phone(value: str) -> bool:
    """False only where no prefix of ``value`` can pass ``_phone(..., grouped=True)``.

    Most candidates of the phone pattern are IP addresses, versions, card numbers, SSNs and
    counts; this turns them away with one scan instead of four rounds of ``_phone``. A prefix
    that passes is digits and separators only, so its groups are the first runs of digits of
    ``value``: it starts with "+", or its first digit is a trunk "0" (or "00"), or its groups
    are NANP ones (3-3-4, 1-3-3-4) or an Indian mobile's 5-5.
    """
    return _GROUPED_START.match(value) is not None


def phone_national(value: str, memo: Memo) -> int:
    """Like ``phone_formatted`` but in any grouping ("4155550142", "0207 94 60958")."""
    return _phone_prefix(value, memo, grouped=False)


def phone_grouped(value: str, memo: Memo) -> int:
    """A number in any country's grouping, judged by its length and structure alone.

    For a value a phone label announces ("Desk: +41 (0)44 512 83 07", "Phone: 31-47-92-08"):
    7-15 digits (a trunk "(0)" not counted), after "+" or "00" a country code that exists,
    at least three different digits, and not a date, a dotted quad or a decimal number.
    """
    if DOTTED_QUAD.fullmatch(value) is not None:
        return 0  # an IP address, none of whose prefixes is a phone number either
    # Where libphonenumber knows the plan, it knows where the number ends: "(415) 555-2671 12
    # items" is ten digits and a count, though twelve digits would pass the structure test.
    known = _phone_prefix(value, memo, grouped=False)
    return known or _phone_prefix(value, memo, check=_grouped_phone)


def _grouped_phone(value: str) -> bool:
    core = _without_extension(value)
    if core.count("(") != core.count(")"):
        return False
    international = core.startswith(("+", "00"))
    body = core[2:] if core.startswith("00") else core.lstrip("+ ")
    # "+41 (0)44 ...": the trunk prefix shown for callers inside the country, not dialled from abroad.
    groups = body.replace("(0)", " ").translate(_GROUP_SEPARATORS).split()
    digits = "".join(groups)
    if not 7 <= len(digits) <= 15 or not digits.isdigit() or not digits.isascii() or len(set(digits)) < 3:
        return False
    if international and (digits[0] == "0" or not any(int(digits[:n]) in _COUNTRY_CODES for n in (1, 2, 3))):
        return False
    if "." in core and (len(groups) == 2 or DOTTED_QUAD.fullmatch(core) is not None):
        return False  # a decimal number, an IP address
    return not _looks_like_date_or_time(core) and not spaced_date(groups)


# Country calling codes (1, 44, 852, ...) libphonenumber knows.
_COUNTRY_CODES = frozenset(phonenumbers.COUNTRY_CODE_TO_REGION_CODE)


def _phone_prefix(
    value: str, memo: Memo, *, grouped: bool = True, check: Callable[[str], bool] | None = None
) -> int:
    """The longest valid number that ``value`` starts with, dropping up to three last groups
    (valid: ``check``, or by default ``_phone`` with ``grouped``).

    A candidate may run on into an unrelated number ("(415) 555-2671 12 items").
    """
    cut = len(value)
    for _ in range(4):
        if check(value[:cut]) if check is not None else _phone(value[:cut], memo, grouped=grouped):
            return cut
        at = max(value.rfind(sep, 0, cut) for sep in " -./")
        if at <= 0:
            return 0
        cut = len(value[:at].rstrip(" -./,"))
    return 0


def _phone(value: str, memo: Memo, *, grouped: bool) -> int:
    core = _without_extension(value)
    groups = core.translate(_GROUP_SEPARATORS).split()
    digits = "".join(groups)
    # Cheap shape checks first: most candidates (counts, versions, IPs) stop here.
    if not 7 <= len(digits) <= 15 or not digits.isdigit() or len(set(digits)) < 3:
        return 0
    if core.count("(") != core.count(")") or (len(digits) <= 8 and _looks_like_date_or_time(core)):
        return 0
    if core.startswith(("+", "00")):
        valid = _parse("+" + core.lstrip("+")[2 if core.startswith("00") else 0 :], None, memo)
        return len(value) if valid else 0
    sizes = [len(g) for g in groups]
    if grouped and len(sizes) < 2:
        return 0
    # Ungrouped, ten digits are North American unless they start with a trunk "0" (no area code does).
    nanp = sizes in _NANP_GROUPS if grouped else (len(digits) == 10 and digits[0] != "0") or digits[0] == "1"
    if nanp and (len(digits) == 10 or (len(digits) == 11 and digits[0] == "1")):
        return len(value) if _parse(core, "US", memo) else 0
    if digits[0] == "0" and (not grouped or (min(sizes) >= 2 and "." not in core)):
        return len(value) if any(_parse(core, r, memo) for r in _TRUNK_REGIONS) else 0
    if (sizes == [5, 5] or not grouped) and len(digits) == 10 and digits[0] in "6789":
        return len(value) if _parse(core, "IN", memo) else 0
    return 0


def _without_extension(value: str) -> str:
    """``value`` without a trailing extension ("x204", "ext. 12", ", extension 88")."""
    low = value.lower()
    if "x" not in low:
        return value.strip()
    for word in _EXT_WORDS:
        at = low.rfind(word)
        if at > 0 and low[at + len(word) :].strip(" .:").isdigit():
            return value[:at].rstrip(" ,").strip()
    return value.strip()


# A message with more numbers than this starts its memo afresh: input is untrusted.
MEMO_MAX = 1024


def _parse(value: str, region: str | None, memo: Memo) -> bool:
    """Whether libphonenumber parses ``value`` (in ``region``) as a valid number."""
    key = (value, region)
    valid = memo.get(key)
    if valid is None:
        try:
            digits = north_american(value, region)
            if digits is not None:
                # A number valid in the US is valid: the US is the first region of code 1 and
                # is matched on the whole number, so is_valid_number would find it first and
                # judge it the same way again. Others take the full search.
                valid = US_FIRST and valid_in(digits, "US") is True
                if not valid:
                    number = phonenumbers.PhoneNumber(country_code=1, national_number=int(digits))
                    valid = phonenumbers.is_valid_number(number)
            elif region is not None and hopeless(value, region):
                valid = False
            else:
                valid = phonenumbers.is_valid_number(phonenumbers.parse(value, region))
        except phonenumbers.NumberParseException:
            valid = False
        if len(memo) >= MEMO_MAX:
            memo.clear()
        memo[key] = valid
    return valid


def _looks_like_date_or_time(value: str) -> bool:
    """Whether ``value`` is three numbers, a year of four digits first or last ("2024-01-31",
    "31/01/1999"), and else only separators and blanks: never with more than eight digits."""
    parts = [p for p in value.replace("/", "-").replace(".", "-").split("-") if p]
    if len(parts) == 3 and all(p.strip().isdigit() for p in parts):
        a, b, c = (p.strip() for p in parts)
        if len(a) == 4 and len(b) <= 2 and len(c) <= 2:
            return True
        if len(c) == 4 and len(a) <= 2 and len(b) <= 2 and c[:2] in ("19", "20"):
            return True
    return False


def phone_urlencoded(value: str, memo: Memo) -> int:
    """An international number whose "+" is URL-encoded: "%2B447708854971"."""
    if value[:3].upper() != "%2B":
        return 0
    return len(value) if phone("+" + value[3:], memo) else 0
