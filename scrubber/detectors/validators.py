"""Validators for pattern matches, mostly thin wrappers over well-kept libraries.

A validator takes the matched value and returns how many of its leading characters form a
valid value: ``len(value)`` when all of it is valid, 0 when it is not a finding, something in
between when only a prefix validates (an IBAN followed by an unrelated group of digits).
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import re
from collections.abc import Callable
from dataclasses import dataclass

import phonenumbers
from stdnum import iban as std_iban
from stdnum import luhn
from stdnum.us import rtn, ssn

Validator = Callable[[str], int]

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
)


def _digits(value: str) -> str:
    return "".join(ch for ch in value if ch.isdigit())


def luhn_card(value: str) -> int:
    digits = _digits(value)
    # Test numbers such as 4111 1111 1111 1111 are masked too: they are Luhn-valid card numbers
    # in a real range, and a scrubber cannot tell them from live ones.
    if not 13 <= len(digits) <= 19:
        return 0
    for prefixes, width, lengths in _CARD_PREFIXES:
        if int(digits[:width]) in prefixes and len(digits) in lengths:
            return len(value) if luhn.is_valid(digits) else 0
    return 0


def iban(value: str) -> int:
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


def us_ssn(value: str) -> int:
    digits = _digits(value)
    return len(value) if len(digits) == 9 and ssn.is_valid(digits) else 0


def aba_routing(value: str) -> int:
    return len(value) if rtn.is_valid(value) else 0


_PHONE_REGIONS = ("US", "GB", "DE", "FR", "IN", "AU")


def phone(value: str) -> int:
    """Any number libphonenumber calls valid in one of the supported regions, however written."""
    digits = _digits(value)
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
    return len(value) if any(_parse(core, r) for r in regions) else 0


_NANP_GROUPS = ([3, 3, 4], [1, 3, 3, 4])
_TRUNK_REGIONS = ("GB", "DE", "FR", "AU", "IN")
_EXT_WORDS = ("extension", "ext.", "ext", "x")
_GROUP_SEPARATORS = str.maketrans(dict.fromkeys("().-/\t+,", " "))


def phone_formatted(value: str) -> int:
    """A phone number written the way people write one, and valid per libphonenumber.

    International ("+44 20 7946 0958", "+14155550142", "0044 ..."), North American in 3-3-4
    groups ("(415) 555-0142", "1-415-555-0142", "415.555.0142"), or national with a trunk 0 in
    groups ("020 7946 0958", "05 50 41 60 16"), or an Indian mobile in two fives. Other digit
    runs (undelimited, odd groups: "400 245639", timestamps) are left to cue-confirmed rules.
    """
    if not _may_be_grouped_phone(value):
        return 0
    return _phone_prefix(value, grouped=True)


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


def phone_national(value: str) -> int:
    """Like ``phone_formatted`` but in any grouping ("4155550142", "0207 94 60958")."""
    return _phone_prefix(value, grouped=False)


def _phone_prefix(value: str, *, grouped: bool) -> int:
    """The longest valid number that ``value`` starts with, dropping up to three last groups.

    A candidate may run on into an unrelated number ("(415) 555-2671 12 items").
    """
    cut = len(value)
    for _ in range(4):
        if _phone(value[:cut], grouped=grouped):
            return cut
        at = max(value.rfind(sep, 0, cut) for sep in " -./")
        if at <= 0:
            return 0
        cut = len(value[:at].rstrip(" -./,"))
    return 0


def _phone(value: str, *, grouped: bool) -> int:
    core = _without_extension(value)
    groups = core.translate(_GROUP_SEPARATORS).split()
    digits = "".join(groups)
    # Cheap shape checks first: most candidates (counts, versions, IPs) stop here.
    if not 7 <= len(digits) <= 15 or not digits.isdigit() or len(set(digits)) < 3:
        return 0
    if core.count("(") != core.count(")") or (len(digits) <= 8 and _looks_like_date_or_time(core)):
        return 0
    if core.startswith(("+", "00")):
        valid = _parse("+" + core.lstrip("+")[2 if core.startswith("00") else 0 :], None)
        return len(value) if valid else 0
    sizes = [len(g) for g in groups]
    if grouped and len(sizes) < 2:
        return 0
    nanp = sizes in _NANP_GROUPS if grouped else len(digits) == 10 or digits[0] == "1"
    if nanp and (len(digits) == 10 or (len(digits) == 11 and digits[0] == "1")):
        return len(value) if _parse(core, "US") else 0
    if digits[0] == "0" and (not grouped or (min(sizes) >= 2 and "." not in core)):
        return len(value) if any(_parse(core, r) for r in _TRUNK_REGIONS) else 0
    if (sizes == [5, 5] or not grouped) and len(digits) == 10 and digits[0] in "6789":
        return len(value) if _parse(core, "IN") else 0
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


# libphonenumber's verdicts on the numbers of the message being scrubbed: a phone number is
# judged by two pattern rules and a grammar shape, and parsing costs tens of microseconds. The
# engine empties this after every call (``forget``), so no value outlives its message here.
_VERDICTS: dict[tuple[str, str | None], bool] = {}
_VERDICTS_MAX = 1024


def forget() -> None:
    """Drop what was remembered of the values of the last message."""
    _VERDICTS.clear()


def _parse(value: str, region: str | None) -> bool:
    """Whether libphonenumber parses ``value`` (in ``region``) as a valid number."""
    key = (value, region)
    valid = _VERDICTS.get(key)
    if valid is None:
        try:
            digits = _north_american(value, region)
            if digits is not None:
                # A number valid in the US is valid: the US is the first region of code 1 and
                # is matched on the whole number, so is_valid_number would find it first and
                # judge it the same way again. Others take the full search.
                valid = _US_FIRST and _valid_in(digits, "US") is True
                if not valid:
                    number = phonenumbers.PhoneNumber(country_code=1, national_number=int(digits))
                    valid = phonenumbers.is_valid_number(number)
            elif region is not None and _hopeless(value, region):
                valid = False
            else:
                valid = phonenumbers.is_valid_number(phonenumbers.parse(value, region))
        except phonenumbers.NumberParseException:
            valid = False
        if len(_VERDICTS) >= _VERDICTS_MAX:
            _VERDICTS.clear()
        _VERDICTS[key] = valid
    return valid


# Every metadata pattern compiled once and kept, not looked up in ``re``'s own cache on each of
# the dozen matches a validation makes (a public switch of the library: 10-30% off each call).
phonenumbers.enable_pattern_cache()
# Whether is_valid_number tries the US first for country code 1, on the whole number.
_US_META = phonenumbers.PhoneMetadata.metadata_for_region("US")
_US_FIRST = phonenumbers.COUNTRY_CODE_TO_REGION_CODE.get(1, ())[:1] == ("US",) and (
    _US_META is not None and _US_META.leading_digits is None
)
# What a North American number may be written with around its digits (and parse ignores).
_NANP_MARKS = str.maketrans(dict.fromkeys(" ().-"))


def _north_american(value: str, region: str | None) -> str | None:
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


def _region(code: str) -> _Region | None:
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


def _valid_in(nsn: str, code: str) -> bool | None:
    """``is_valid_number_for_region`` of the national (significant) number ``nsn`` of a number
    of ``code``'s country code; None where ``_region`` cannot read ``code``."""
    region = _region(code)
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


def _hopeless(value: str, code: str) -> bool:
    """True only where ``parse(value, code)`` cannot give a valid number.

    Parsing a national number (with its trunk "0") costs tens of microseconds per region, and
    most such candidates are other numbers (an SSN written 078-05-1120 is tried in five). When
    ``value`` is ASCII digits and plain marks, what parse makes of it is its digits, with or
    without the national prefix (when they start neither an international prefix nor the
    country code, which parse would read as such). A valid number fits the general description
    of a region of its country code: when neither reading does, it is not.
    """
    digits = value.translate(_PLAIN_MARKS)
    region = _region(code)
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


def bank_account(value: str) -> int:
    """A bank account number: digits that are not one repeated digit or a plain run."""
    digits = _digits(value)
    if len(set(digits)) < 3 or digits in "01234567890123456789" or digits in "98765432109876543210":
        return 0
    return len(value)


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


def _public_ip(addr: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    return not (addr.is_loopback or addr.is_unspecified or addr.is_multicast or addr.is_reserved)


_DOC_V4 = tuple(ipaddress.ip_network(n) for n in ("192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24"))
_DOC_V6 = ipaddress.ip_network("2001:db8::/32")


# A dotted quad as ipaddress accepts it: ASCII, four numbers 0-255 without leading zeros.
# Bounded alternations only: linear on the standard library's engine.
_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
_DOTTED_QUAD = re.compile(rf"{_OCTET}\.{_OCTET}\.{_OCTET}\.{_OCTET}")


def ipv4(value: str) -> int:
    if _DOTTED_QUAD.fullmatch(value) is not None:
        # What ipaddress would say, read off the octets: loopback 127/8, multicast 224/4 and
        # reserved 240/4, link-local 169.254/16 (0.0.0.0 falls to the small-octets test).
        octets = tuple(map(int, value.split(".")))
        if octets[0] == 127 or octets[0] >= 224 or octets[:2] == (169, 254):
            return 0
    else:
        try:
            addr = ipaddress.IPv4Address(value)
        except ValueError:
            return 0
        if not _public_ip(addr) or addr.is_link_local:
            return 0
        octets = tuple(addr.packed)
    # "2.4.1.0" is a version far more often than a host; x.x.x.0 and .255 are rarely a client.
    if max(octets) < 10 or octets[3] in (0, 255):
        return 0
    return len(value)


def ipv6(value: str) -> int:
    if value.count(":") < 3:
        return 0
    try:
        addr = ipaddress.IPv6Address(value)
    except ValueError:
        return 0
    if not _public_ip(addr) or addr.is_link_local:
        return 0
    return len(value)


# Private networks: RFC 1918, IPv4 link-local, IPv6 unique-local and link-local.
_PRIVATE = tuple(
    ipaddress.ip_network(n)
    for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16", "fc00::/7", "fe80::/10")
)


def ip_range(value: str) -> str | None:
    """Which range an address of a finding lies in, for the policy to decide on, parsed once:
    "documentation" (RFC 5737, RFC 3849: examples, not anyone's), "private" (10/8, 172.16/12,
    192.168/16, link-local, IPv6 unique-local: a company's own hosts, routers and containers,
    which reach no log from the internet as a client's address), or None.
    """
    try:
        addr = ipaddress.ip_address(value)
    except ValueError:
        return None
    if addr in _DOC_V6 if addr.version == 6 else any(addr in n for n in _DOC_V4):
        return "documentation"
    if any(addr.version == n.version and addr in n for n in _PRIVATE):
        return "private"
    return None


_MONTHS = {
    m: i
    for i, names in enumerate(
        (
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
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
# What a date's parts are separated by once its month is a word: blanks, punctuation, "of".
_DATE_SEPARATORS = re.compile(r"(?:[\s,./'-]|\bof\b)+")


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


def date(value: str) -> int:
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
        v = _TENS_GLUE.sub(r"\1", core.lower())
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


_PLACEHOLDER_WORDS = frozenset(
    [
        "redacted",
        "hidden",
        "masked",
        "removed",
        "none",
        "null",
        "nil",
        "undefined",
        "empty",
        "secret",
        "password",
        "changeme",
        "wrong",
        "incorrect",
        "invalid",
        "expired",
        "reset",
        "changed",
        "required",
        "missing",
        "correct",
        "not",
        "too",
        "the",
        "my",
        "your",
        "a",
        "an",
        "set",
        "updated",
        "weak",
        "strong",
        "ok",
        "fine",
        "same",
        "different",
        "case",
        "sensitive",
        "here",
        "there",
        "below",
        "above",
        "attached",
        "same",
        "enabled",
        "disabled",
        "true",
        "false",
        "yes",
        "no",
        "unknown",
        "xxx",
        "xxxx",
        "xxxxx",
    ]
)


# A run of one of these characters this long in a key is a template's filler ("AKIAXXXX...",
# "sk_test_0000...", "ghp_****..."), not a key: random keys have no such runs.
_FILLER_RUN = re.compile(r"([Xx0*#.•_-])\1{7}")
_SHELL_VARIABLE = re.compile(r"\$(?:[A-Z_][A-Z0-9_]*|[a-z_]+)")


# Words that say "put your own here" inside a key-shaped value.
_TEMPLATE_WORDS = re.compile(
    r"(?i)(?:^|[-_.])(?:replace[-_.]?me|change[-_.]?me|your[-_.](?:api[-_.])?(?:key|token|secret|password)"
    r"|insert[-_.]|placeholder|example[-_.]?(?:key|token)|dummy|fake[-_.]?(?:key|token))"
)


def _placeholder(v: str) -> bool:
    """Whether ``v`` stands for a secret instead of being one: a variable reference
    ("$NPM_TOKEN", "${API_KEY}", "%DB_PASS%", "{{ secrets.X }}"), a bracketed note
    ("<your-token-here>", "[FILTERED]", "(sensitive value)") or a run of filler characters."""
    if v.startswith(("${", "$(", "{{", "<", "%(", "[")) or v.endswith((">", "}}")):
        return True
    if _SHELL_VARIABLE.fullmatch(v) is not None:
        return True  # $NPM_TOKEN, $db_pass (not "$ecret99": a variable has no digits then)
    if len(v) > 2 and v[0] == "%" and v[-1] == "%":
        return True  # a Windows variable: %DB_PASS%
    if v[0] == "(" and v[1:].rstrip(")").replace("-", "").replace("_", "").isalpha():
        return True  # Terraform's "(sensitive value)", "(hidden)", "(redacted)"
    if _TEMPLATE_WORDS.search(v) is not None:
        return True  # "xoxb-REPLACE-ME", "sk_live_YOUR_KEY_HERE", "<insert-token>"
    if v.startswith(("/", "~/")) and "/" in v[1:]:
        return True  # a path ("PWD=/home/ops" in sudo's log is the working directory)
    return _FILLER_RUN.search(v) is not None


def secret_value(value: str) -> int:
    v = value.rstrip(".,;:)]}")
    if len(v) < 4:
        return 0
    low = v.lower()
    if low in _PLACEHOLDER_WORDS or len(set(v)) <= 2 or _placeholder(v):
        return 0
    if set(v) <= set("*x•#?."):
        return 0
    has_digit = any(c.isdigit() for c in v)
    has_symbol = any(not c.isalnum() for c in v)
    mixed_case = v != v.lower() and v != v.upper()
    if not (has_digit or has_symbol or mixed_case or len(v) >= 12):
        return 0
    return len(v)


def secret_token(value: str) -> int:
    """A provider's key or token (the pattern checked its shape): not a template's filler."""
    if _FILLER_RUN.search(value) is not None or _TEMPLATE_WORDS.search(value) is not None:
        return 0
    return len(value)


def credential(value: str) -> int:
    """The password of a "user:password" pair given on a command line (``curl -u``): any value
    but a placeholder. Short and plain ones count too: "deploy:pass" gives a password."""
    v = value.rstrip(".,;)]}")
    if not v or v.lower() in _PLACEHOLDER_WORDS or _placeholder(v) or set(v) <= set("*x•#?."):
        return 0
    if v.isdigit() and len(v) <= 5:
        return 0  # a group id: "docker run -u 1000:1000"
    return len(v)


# Punctuation that makes a word a password rather than an ordinary (hyphenated) word.
_PASSWORD_SYMBOLS = frozenset("!@#$%^&*+=?~_|/\\<>[]{}")


def prose_password(value: str) -> int:
    """A password given in prose, after "password" with no "=" or ":" ("password is maple!336",
    "reset my password to Nimbus-33nimb", 'network "Lakeside", password maple!336nimbu'): only
    a value that looks like one, letters with digits or a symbol, so that the words that follow
    "password" in a sentence ("reset link", "to expire", "is wrong", "self-service") are not."""
    v = value.rstrip(".,;:)]}\"'")  # as secret_value: "P3pp3r82?" keeps its "?"
    if not 6 <= len(v) <= 64 or _placeholder(v) or v.lower() in _PLACEHOLDER_WORDS:
        return 0
    if "://" in v or ("@" in v[1:-1] and "." in v.rsplit("@", 1)[-1]):
        return 0  # a link or an e-mail address
    core = v.rstrip("!?")  # "reset my password please?": the "?" ends the sentence
    if not any(c.isalpha() for c in core):
        return 0
    if not any(c.isdigit() or c in _PASSWORD_SYMBOLS for c in core):
        return 0
    return len(v)


def aws_secret(value: str) -> int:
    """An AWS secret access key: 40 characters of base64 with capitals, small letters and a
    digit (a 40-character git SHA has no capitals)."""
    if _FILLER_RUN.search(value) is not None:
        return 0
    if not (any(c.isupper() for c in value) and any(c.islower() for c in value)):
        return 0
    return len(value) if any(c.isdigit() for c in value) else 0


def phone_urlencoded(value: str) -> int:
    """An international number whose "+" is URL-encoded: "%2B447708854971"."""
    if value[:3].upper() != "%2B":
        return 0
    return len(value) if phone("+" + value[3:]) else 0


def passport(value: str) -> int:
    digits = sum(c.isdigit() for c in value)
    if digits < 1 or len(set(value)) < 3 or (value.isdigit() and len(value) < 8):
        return 0
    return len(value)


def driver_license(value: str) -> int:
    alnum = [c for c in value if c.isalnum()]
    digits = sum(c.isdigit() for c in alnum)
    if not 6 <= len(alnum) <= 20 or digits < 1 or len(set(alnum)) < 3:
        return 0
    if value.isalpha():
        return 0
    return len(value)


_FILE_SUFFIXES = frozenset({"png", "jpg", "jpeg", "gif", "svg", "webp", "js", "css", "map", "ico"})


def email(value: str) -> int:
    tld = value.rsplit(".", 1)[-1].lower()
    return 0 if tld in _FILE_SUFFIXES else len(value)


VALIDATORS: dict[str, Validator] = {
    "luhn_card": luhn_card,
    "iban": iban,
    "us_ssn": us_ssn,
    "aba_routing": aba_routing,
    "phone": phone,
    "phone_formatted": phone_formatted,
    "phone_national": phone_national,
    "bank_account": bank_account,
    "ipv4": ipv4,
    "ipv6": ipv6,
    "date": date,
    "secret_value": secret_value,
    "passport": passport,
    "secret_token": secret_token,
    "credential": credential,
    "prose_password": prose_password,
    "aws_secret": aws_secret,
    "phone_urlencoded": phone_urlencoded,
    "driver_license": driver_license,
    "email": email,
}
