"""A shortcut to libphonenumber's verdict, read off its own metadata.

Validating a number through the library's public calls is a parse and a dozen look-ups and
matches. The same metadata answers the two commonest cases directly: a plain North American
number, and a national number that fits no region of its country code (pinned against the
library, on every region's example numbers among others, by tests/unit/test_phone_metadata.py).
Measured in the whole engine at level 7, it takes the time spent judging phone numbers from
about 10 to 6 us a chat message, 7 to 1 us a log line and 60 to 18 us a 600-byte e-mail body:
a few percent of a message's cost, and the pattern detector alone 1.1-1.8x faster. It reads
the library's metadata objects, so pyproject.toml bounds phonenumbers below its next major.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import phonenumbers

# Whether is_valid_number tries the US first for country code 1, on the whole number.
_US_META = phonenumbers.PhoneMetadata.metadata_for_region("US")
US_FIRST = phonenumbers.COUNTRY_CODE_TO_REGION_CODE.get(1, ())[:1] == ("US",) and (
    _US_META is not None and _US_META.leading_digits is None
)
# What a North American number may be written with around its digits (and parse ignores).
_NANP_MARKS = str.maketrans(dict.fromkeys(" ().-"))


def north_american(value: str, region: str | None) -> str | None:
    """The national number ``phonenumbers.parse`` reads in a plain ten-digit North American one.

    Most numbers validated are written "(415) 555-0142" or "+1 415-555-0142": ten ASCII digits
    (the first 2-9, so no trunk prefix can be read off) and these marks, nothing else. Parsing
    them is half the cost of validating them and always gives country code 1 and the ten digits
    (pinned by a test against ``parse``). None for anything else: that goes to ``parse``.
    """
    if region == "US":
        body = value
    elif region is None and value.startswith("+1"):
        body = value[2:]
    else:
        return None
    digits = body.translate(_NANP_MARKS)
    if len(digits) != 10 or not digits.isdigit() or not digits.isascii() or digits[0] in "01":
        return None
    return digits


# A number description of the metadata: the lengths it allows (any when empty) and its pattern.
_Desc = tuple[frozenset[int], re.Pattern[str]]


@dataclass(frozen=True, slots=True)
class _Region:
    """What the validity of a national number in one region depends on, read off its metadata.

    libphonenumber calls a number valid in a region when it fits the general description and
    one of the descriptions of a type (fixed line, mobile, toll free, ...): a dozen look-ups and
    matches, each a few function calls. Here the types that allow a length are one pattern,
    compiled when a number of that length is first judged (the patterns are large).
    """

    country_code: int
    general: _Desc
    types: tuple[_Desc, ...]
    typed: dict[int, re.Pattern[str]]
    # How parse strips a national prefix ("0"), and what it reads as an international one.
    national_prefix: re.Pattern[str] | None
    international_prefix: re.Pattern[str] | None
    # The general descriptions of all regions of the country code (GB, GG, IM, JE for 44).
    family: tuple[_Desc, ...]


_REGIONS: dict[str, _Region | None] = {}


def _desc(desc: phonenumbers.PhoneNumberDesc | None) -> _Desc | None:
    if desc is None or not desc.national_number_pattern:
        return None
    return frozenset(desc.possible_length), re.compile(desc.national_number_pattern)


def _fits(desc: _Desc, nsn: str) -> bool:
    """``_is_number_matching_desc`` of libphonenumber."""
    lengths, pattern = desc
    return (not lengths or len(nsn) in lengths) and pattern.fullmatch(nsn) is not None


def read_region(code: str) -> _Region | None:
    """The metadata of ``code`` as ``_Region``; None where it does not fit that reading."""
    if code in _REGIONS:
        return _REGIONS[code]
    meta = phonenumbers.PhoneMetadata.metadata_for_region(code)
    region = None
    general = _desc(meta.general_desc) if meta is not None else None
    # Without lengths of its own a general description would not say which types to try, and a
    # transform rule rewrites the number when its prefix is stripped: both left to the library.
    if (
        meta is not None
        and meta.country_code is not None
        and general is not None
        and general[0]
        and not meta.national_prefix_transform_rule
    ):
        types = [meta.premium_rate, meta.toll_free, meta.shared_cost, meta.voip, meta.personal_number]
        types += [meta.pager, meta.uan, meta.voicemail, meta.fixed_line]
        if not meta.same_mobile_and_fixed_line_pattern:
            types.append(meta.mobile)
        family = [
            _desc(m.general_desc)
            for m in map(
                phonenumbers.PhoneMetadata.metadata_for_region,
                phonenumbers.COUNTRY_CODE_TO_REGION_CODE.get(meta.country_code, ()),
            )
            if m is not None
        ]
        prefix = meta.national_prefix_for_parsing
        region = _Region(
            country_code=meta.country_code,
            general=general,
            types=tuple(d for d in map(_desc, types) if d is not None),
            typed={},
            national_prefix=re.compile(prefix) if prefix else None,
            international_prefix=re.compile(meta.international_prefix) if meta.international_prefix else None,
            family=tuple(d for d in family if d is not None),
        )
    _REGIONS[code] = region
    return region


def valid_in(nsn: str, code: str) -> bool | None:
    """``is_valid_number_for_region`` of the national (significant) number ``nsn`` of a number
    of ``code``'s country code; None where ``read_region`` cannot read ``code``."""
    region = read_region(code)
    if region is None:
        return None
    if not _fits(region.general, nsn):
        return False
    size = len(nsn)
    typed = region.typed.get(size)
    if typed is None:
        alternatives = (f"(?:{p.pattern})" for lengths, p in region.types if not lengths or size in lengths)
        # With no type of this length, a pattern that matches no number.
        typed = region.typed[size] = re.compile("|".join(alternatives) or "(?!)")
    return typed.fullmatch(nsn) is not None


# The marks a number may be written with that parse drops without a second thought: no "+",
# letters, commas or semicolons, which may start a country code or an extension.
_PLAIN_MARKS = str.maketrans(dict.fromkeys(" ().-/"))


def hopeless(value: str, code: str) -> bool:
    """True only where ``parse(value, code)`` cannot give a valid number.

    Parsing a national number (with its trunk "0") costs tens of microseconds per region, and
    most such candidates are other numbers (an SSN written 078-05-1120 is tried in five). When
    ``value`` is ASCII digits and plain marks, what parse makes of it is its digits, with or
    without the national prefix (when they start neither an international prefix nor the
    country code, which parse would read as such). A valid number fits the general description
    of a region of its country code: when neither reading does, it is not.
    """
    digits = value.translate(_PLAIN_MARKS)
    region = read_region(code)
    if region is None or not digits.isdigit() or not digits.isascii():
        return False
    if digits.startswith(str(region.country_code)) or (
        region.international_prefix is not None and region.international_prefix.match(digits)
    ):
        return False
    readings = [digits]
    stripped = region.national_prefix.match(digits) if region.national_prefix is not None else None
    if stripped is not None:
        readings.append(digits[stripped.end() :])
    return not any(_fits(desc, nsn) for desc in region.family for nsn in readings)
