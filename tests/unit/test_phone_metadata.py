"""The phone-validity shortcut (validators/phone_metadata.py): exactly libphonenumber's verdict.

It reads the library's metadata itself, so each of its answers is checked against the
library's own: on every region's example numbers (of every type the library has one for), on
numbers near them, and on random national numbers.
"""

from __future__ import annotations

import random

import phonenumbers
from phonenumbers import PhoneNumberFormat, PhoneNumberType

from scrubber.detectors.validators import phone
from scrubber.detectors.validators.base import Memo
from scrubber.detectors.validators.phone_metadata import hopeless, north_american, read_region, valid_in

TYPES = [
    PhoneNumberType.FIXED_LINE,
    PhoneNumberType.MOBILE,
    PhoneNumberType.TOLL_FREE,
    PhoneNumberType.PREMIUM_RATE,
    PhoneNumberType.SHARED_COST,
    PhoneNumberType.VOIP,
    PhoneNumberType.PERSONAL_NUMBER,
    PhoneNumberType.PAGER,
    PhoneNumberType.UAN,
    PhoneNumberType.VOICEMAIL,
]
EXAMPLES = [
    (code, number)
    for code in sorted(phonenumbers.SUPPORTED_REGIONS)
    for kind in TYPES
    if (number := phonenumbers.example_number_for_type(code, kind)) is not None
]


def _verdict(value: str, region: str | None) -> bool:
    """libphonenumber's own answer, as the validator asks for it."""
    number = _parsed(value, region)
    return number is not None and phonenumbers.is_valid_number(number)


def test_every_regions_example_numbers_are_judged_as_libphonenumber_judges_them() -> None:
    read = american = 0
    for code, number in EXAMPLES:
        nsn = phonenumbers.national_significant_number(number)
        fast = valid_in(nsn, code)
        if fast is not None:
            read += 1
            assert fast == phonenumbers.is_valid_number_for_region(number, code), (code, nsn)
        national = phonenumbers.format_number(number, PhoneNumberFormat.NATIONAL)
        assert not hopeless(national, code), (code, national)
        e164 = phonenumbers.format_number(number, PhoneNumberFormat.E164)
        international = phonenumbers.format_number(number, PhoneNumberFormat.INTERNATIONAL)
        for written, region in ((national, code), (international, None), (e164, None)):
            assert phone._parse(written, region, Memo()) == _verdict(written, region), (code, written)
        digits = north_american(e164, None)
        if digits is not None:
            american += 1
            assert number.country_code == 1 and digits == nsn, e164
    assert len(EXAMPLES) > 1000
    assert read > 900  # most regions are read off their metadata
    assert american > 100  # and the North American ones take the shorter way


def _parsed(value: str, region: str | None) -> phonenumbers.PhoneNumber | None:
    try:
        return phonenumbers.parse(value, region)
    except phonenumbers.NumberParseException:
        return None


def test_north_american_numbers_are_read_as_parse_reads_them() -> None:
    rnd = random.Random(7)
    values: list[tuple[str, str | None]] = []
    for _ in range(3000):
        digits = "".join(rnd.choice("0123456789") for _ in range(rnd.choice((9, 10, 10, 10, 11))))
        marked = "".join(ch + rnd.choice(["", "", "", " ", "-", ".", "(", ")", ") ", "--"]) for ch in digits)
        region = rnd.choice(["US", None, "GB"])
        values.append(("+1" + rnd.choice(["", " ", "-", "("]) + marked if region is None else marked, region))
    values += [("(415) 555-0142", "US"), ("+1 (415) 555-0142", None), ("415 555 0142x", "US")]
    values += [("+11 415 555 0142", None), ("1 415 555 0142", "US"), ("٤١٥٥٥٥٠١٤٢٠", "US")]
    taken = 0
    for value, region in values:
        digits = north_american(value, region)
        if digits is not None:
            taken += 1
            fast = phonenumbers.PhoneNumber(country_code=1, national_number=int(digits))
            assert fast == _parsed(value, region), value
            assert phone._parse(value, region, Memo()) == phonenumbers.is_valid_number(fast)
    # Valid in the US, elsewhere in North America (Canada, the Bahamas, Jamaica), or nowhere.
    for value in [
        "(415) 555-0142",
        "416-555-0199",
        "+1 242 357 1234",
        "876 927 1234",
        "800 555 0142",
        "999 555 0142",
    ]:
        expected = phonenumbers.is_valid_number(phonenumbers.parse(value, "US"))
        assert phone._parse(value, "US", Memo()) == expected, value
    assert taken > 500


def _near_examples(rnd: random.Random, code: str, count: int) -> list[str]:
    """National numbers of ``code``: its example numbers with a digit or two changed, cut or
    lengthened (many valid, many just not), and random digits."""
    meta = phonenumbers.PhoneMetadata.metadata_for_region(code)
    assert meta is not None
    kinds = (meta.fixed_line, meta.mobile, meta.toll_free, meta.premium_rate, meta.voip, meta.uan)
    examples = [d.example_number for d in kinds if d is not None and d.example_number]
    out = []
    for _ in range(count):
        if examples and rnd.random() < 0.6:
            digits = list(rnd.choice(examples))
            for _ in range(rnd.randint(0, 2)):
                digits[rnd.randrange(len(digits))] = rnd.choice("0123456789")
            cut = rnd.choice([0, 0, 0, -1, 1])
            digits = digits[:-1] if cut < 0 else digits + [rnd.choice("0123456789")] * cut
            out.append("".join(digits))
        else:
            out.append("".join(rnd.choice("0123456789") for _ in range(rnd.randint(3, 13))))
    return out


def test_validity_in_a_region_is_what_libphonenumber_says() -> None:
    rnd = random.Random(17)
    judged = 0
    for code in sorted(phonenumbers.SUPPORTED_REGIONS):
        meta = phonenumbers.PhoneMetadata.metadata_for_region(code)
        assert meta is not None
        judged += read_region(code) is not None
        for nsn in _near_examples(rnd, code, 60):
            number = _parsed(f"+{meta.country_code}{nsn}", None)
            if number is not None:
                fast = valid_in(phonenumbers.national_significant_number(number), code)
                if fast is not None:
                    assert fast == phonenumbers.is_valid_number_for_region(number, code), (code, nsn)
    assert judged > 200  # most regions are read off their metadata, not left to the library


def test_a_hopeless_national_number_is_invalid_per_libphonenumber() -> None:
    rnd = random.Random(19)
    codes = ["GB", "DE", "FR", "AU", "IN", "US", *sorted(phonenumbers.SUPPORTED_REGIONS)]
    judged = 0
    values = [("078-05-1120", "GB"), ("(0)20 7946 0958", "GB"), ("0049 30 1234567", "DE"), ("٠٢٠ 7946", "GB")]
    for _ in range(20000):
        code = rnd.choice(codes[:12])
        lead = rnd.choice(["0", "0", "", "00", "1", "44", "61", "49", "91", "33", "011", "0011"])
        digits = lead + "".join(rnd.choice("0123456789") for _ in range(rnd.randint(5, 12)))
        marked = "".join(
            ch + rnd.choice(["", "", " ", "-", ".", "/", ")", " (", "  ", ",", "\t"]) for ch in digits
        )
        values.append((rnd.choice(["", "(", " ", "+"]) + marked.strip(), code))
    for value, code in values:
        if hopeless(value, code):
            judged += 1
            number = _parsed(value, code)
            assert number is None or not phonenumbers.is_valid_number(number), (value, code)
    assert hopeless("078-05-1120", "GB")
    assert judged > 1000
