"""Pattern detectors, one table per entity: what must be found (exactly that value) and what not."""

from __future__ import annotations

import pytest

from scrubber.detectors.patterns import PatternDetector
from scrubber.detectors.registry import build_detectors
from scrubber.dial import ENTITIES, Policy
from scrubber.engine import Scrubber

DETECTOR = next(d for d in build_detectors(frozenset(ENTITIES)) if isinstance(d, PatternDetector))
ENGINE = Scrubber(Policy(level=7), detectors=[DETECTOR])


def found(text: str) -> list[tuple[str, str]]:
    return [(f.entity, text[f.start : f.end]) for f in ENGINE.scrub(text).findings]


# (entity, text, value): the value must be found as that entity, exactly.
POSITIVE = [
    # CREDIT_CARD: Luhn-valid, real issuer prefixes, grouped or not.
    ("CREDIT_CARD", "card 4539 1488 0343 6467 declined", "4539 1488 0343 6467"),
    ("CREDIT_CARD", "charge 5500-0055-5555-5559 again", "5500-0055-5555-5559"),
    ("CREDIT_CARD", "amex 3782 822463 10005 on file", "3782 822463 10005"),
    ("CREDIT_CARD", '{"pan":"6011000990139424"}', "6011000990139424"),
    ("CREDIT_CARD", "new card: 2223003122003222", "2223003122003222"),
    ("CREDIT_CARD", "visa 4012888888881881, exp 10/27", "4012888888881881"),
    ("CREDIT_CARD", "number 4539  1488  0343  6467 thanks", "4539  1488  0343  6467"),
    # IBAN: mod-97, grouped or compact, upper or lower case.
    ("IBAN", "wire it to DE89 3704 0044 0532 0130 00 please", "DE89 3704 0044 0532 0130 00"),
    ("IBAN", "IBAN GB29NWBK60161331926819.", "GB29NWBK60161331926819"),
    ("IBAN", "my iban is fr14 2004 1010 0505 0001 3m02 606", "fr14 2004 1010 0505 0001 3m02 606"),
    ("IBAN", "Code CF106LN then IBAN NL91 ABNA 0417 1643 00.", "NL91 ABNA 0417 1643 00"),
    ("IBAN", "iban=CH9300762011623852957 ok", "CH9300762011623852957"),
    ("IBAN", "IBAN DE 89 3704 0044 0532 0130 00 SSN 536-22-8173", "DE 89 3704 0044 0532 0130 00"),
    # BANK_ACCOUNT: ABA checksum and account numbers, both confirmed by a cue.
    ("BANK_ACCOUNT", "routing number 021000021, account 40129374561", "021000021"),
    ("BANK_ACCOUNT", "routing number 021000021, account 40129374561", "40129374561"),
    ("BANK_ACCOUNT", "ABA: 011000015", "011000015"),
    ("BANK_ACCOUNT", '"account_number":"00412345678"', "00412345678"),
    ("BANK_ACCOUNT", "my checking acct no. 918273645 at the bank", "918273645"),
    ("BANK_ACCOUNT", "Rooting nr 021000021", "021000021"),
    # SECRET: provider tokens, key=value assignments, headers, URLs.
    ("SECRET", "key AKIAIOSFODNN7EXAMPLE leaked", "AKIAIOSFODNN7EXAMPLE"),
    (
        "SECRET",
        "token ghp_abcdefghijklmnopqrstuvwxyzABCDEF0123 here",
        "ghp_abcdefghijklmnopqrstuvwxyzABCDEF0123",
    ),
    ("SECRET", "password: Tr0ub4dor&3", "Tr0ub4dor&3"),
    ("SECRET", 'db {"api_key": "a1b2c3d4e5f6"}', "a1b2c3d4e5f6"),
    ("SECRET", "the wifi pasword is maple-river-42", "maple-river-42"),
    ("SECRET", "DB_PASSWORD=s3cr3tValue!", "s3cr3tValue!"),
    ("SECRET", "Authorization: Bearer abcdef0123456789abcdef", "abcdef0123456789abcdef"),
    ("SECRET", "Authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA=="),
    ("SECRET", "dsn postgres://app:Sup3rS3cret@db.internal:5432/x", "Sup3rS3cret"),
    ("SECRET", "xoxb-123456789012-1234567890123-abcdefABCDEF1234 in slack", None),
    (
        "SECRET",
        "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        None,
    ),
    ("SECRET", "stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc ok", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"),
    ("SECRET", "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----", None),
    # US_SSN: dashed anywhere (SSA rules), other forms next to a cue.
    ("US_SSN", "SSN: 123-45-6789", "123-45-6789"),
    ("US_SSN", "it's 078-05-1121 i think", "078-05-1121"),
    ("US_SSN", "social security number 123 45 6789", "123 45 6789"),
    ("US_SSN", "ssn#123456789", "123456789"),
    ("US_SSN", "my socail is 123456789", "123456789"),
    # PASSPORT and DRIVER_LICENSE: confirmed by a cue.
    ("PASSPORT", "passport number: 123456789", "123456789"),
    ("PASSPORT", "UK passport no. 925665416, expires 2030", "925665416"),
    ("PASSPORT", "Passport C03005988", "C03005988"),
    ("PASSPORT", "my pasport is X1234567", "X1234567"),
    ("DRIVER_LICENSE", "driver's license D1234567", "D1234567"),
    ("DRIVER_LICENSE", "DL# S530-460-59-012-0", "S530-460-59-012-0"),
    ("DRIVER_LICENSE", '"dl_number":"MORGA753116SM9IJ"', "MORGA753116SM9IJ"),
    ("DRIVER_LICENSE", "licence number 12 345 678", "12 345 678"),
    # EMAIL_ADDRESS
    ("EMAIL_ADDRESS", "write to jane.doe+news@mail.example.co.uk today", "jane.doe+news@mail.example.co.uk"),
    ("EMAIL_ADDRESS", "GET /unsubscribe?email=bob%40example.org HTTP/1.1", "bob%40example.org"),
    ("EMAIL_ADDRESS", "From: Support <support@shop.example>", "support@shop.example"),
    ("EMAIL_ADDRESS", "reach me: jane (at) example (dot) com", "jane (at) example (dot) com"),
    ("EMAIL_ADDRESS", "contact: jo dot smith at outlook dot com", "jo dot smith at outlook dot com"),
    ("EMAIL_ADDRESS", "send it to ivo at sign example dot org please", "ivo at sign example dot org"),
    (
        "EMAIL_ADDRESS",
        "mail lena dot berg at symbol example dot com",
        "lena dot berg at symbol example dot com",
    ),
    ("EMAIL_ADDRESS", "update it to kim_lee88 @ yahoo . com please", "kim_lee88 @ yahoo . com"),
    # PHONE_NUMBER: international, NANP, trunk-0 national, extensions; others next to a cue.
    ("PHONE_NUMBER", "call (415) 555-2671 after six", "(415) 555-2671"),
    ("PHONE_NUMBER", "Tel: +44 20 7946 0018", "+44 20 7946 0018"),
    ("PHONE_NUMBER", "new number +4915123456789.", "+4915123456789"),
    ("PHONE_NUMBER", "office 020 7946 0018 ext 12", "020 7946 0018 ext 12"),
    ("PHONE_NUMBER", "appelez le 01 42 68 53 00", "01 42 68 53 00"),
    ("PHONE_NUMBER", "mobile 0412 345 678", "0412 345 678"),
    ("PHONE_NUMBER", "1-212-555-0188 is the desk", "1-212-555-0188"),
    ("PHONE_NUMBER", "I don't get the SMS code on 212-555-0188", "212-555-0188"),
    ("PHONE_NUMBER", "ring 212.555.0188 x204", "212.555.0188 x204"),
    ("PHONE_NUMBER", "best number to reach me 2125550188", "2125550188"),
    ("PHONE_NUMBER", "phone=+33612345678", "+33612345678"),
    ("PHONE_NUMBER", "my pohne is 07700900123", "07700900123"),
    ("PHONE_NUMBER", "whatsapp 98765 43210", "98765 43210"),
    ("PHONE_NUMBER", "Phone: (415) 555-2671 12 items", "(415) 555-2671"),
    ("PHONE_NUMBER", "(201)200/0000 2539 128303282227", "(201)200/0000"),
    ("PHONE_NUMBER", "(201)200/0000 212-555-0188", "212-555-0188"),
    # ZIP_CODE
    ("ZIP_CODE", "Austin, TX 78701", "78701"),
    ("ZIP_CODE", "Boston, MA 02115-3153", "02115-3153"),
    ("ZIP_CODE", "salem, or 97301", "97301"),
    ("ZIP_CODE", "zip code is 30301", "30301"),
    ("ZIP_CODE", "zip=94105", "94105"),
    ("ZIP_CODE", "postcode SW1A 1AA", "SW1A 1AA"),
    ("ZIP_CODE", "London EC1A 1BB", "EC1A 1BB"),
    ("ZIP_CODE", "Toronto, ON M5V 3L9", "M5V 3L9"),
    ("ZIP_CODE", "postal code k1a 0b1", "k1a 0b1"),
    # DATE_OF_BIRTH: a date next to a birth cue.
    ("DATE_OF_BIRTH", "DOB: 04/12/1986", "04/12/1986"),
    ("DATE_OF_BIRTH", "date of birth 1990-07-15", "1990-07-15"),
    ("DATE_OF_BIRTH", "I was born on March 3, 1975", "March 3, 1975"),
    ("DATE_OF_BIRTH", "born 3rd of May 1968", "3rd of May 1968"),
    ("DATE_OF_BIRTH", '"dob":"19850209"', "19850209"),
    ("DATE_OF_BIRTH", "birthday: 12.11.1972", "12.11.1972"),
    ("DATE_OF_BIRTH", "date of brith 5/6/78", "5/6/78"),
    ("DATE_OF_BIRTH", "Patient DOB 04-Jul-1976", "04-Jul-1976"),
    ("DATE_OF_BIRTH", "date of birth: Jan. 5, 1990", "Jan. 5, 1990"),
    # IP_ADDRESS: client addresses, v4 and v6.
    ("IP_ADDRESS", '81.2.69.160 - - [10/Oct/2024:13:55:36 +0000] "GET / HTTP/1.1" 200 512', "81.2.69.160"),
    ("IP_ADDRESS", "X-Forwarded-For: 24.48.0.1", "24.48.0.1"),
    (
        "IP_ADDRESS",
        "my IP is 2a02:1388:2101:8a00:1c4d:e1ff:fe3c:9d21.",
        "2a02:1388:2101:8a00:1c4d:e1ff:fe3c:9d21",
    ),
    ("IP_ADDRESS", "client=2001:4860:4860::8888 port=443", "2001:4860:4860::8888"),
    ("IP_ADDRESS", "login from 172.217.16.142:51000", "172.217.16.142"),
    # ... of every range but loopback and unspecified: private, link-local, documentation, small.
    ("IP_ADDRESS", "example host 192.0.2.10 from the docs", "192.0.2.10"),
    ("IP_ADDRESS", "sshd: Accepted publickey for ops from 10.14.3.77 port 50122", "10.14.3.77"),
    ("IP_ADDRESS", "src=5.6.7.8 dst_port=443", "5.6.7.8"),
    ("IP_ADDRESS", "my laptop only gets 169.254.12.9", "169.254.12.9"),
    ("IP_ADDRESS", "remote_addr=fe80::1 method=GET", "fe80::1"),
    ("IP_ADDRESS", "inet 192.168.1.23/24 scope global wlan0", "192.168.1.23"),
    ("IP_ADDRESS", "connection received: host=91.203.5.17 port=50812", "91.203.5.17"),
    # PERSON: a passenger's name as airlines write it, the title left out.
    ("PERSON", "Booking KR9YFZ is confirmed for JANDOVA/HANA MR on AF 2489", "JANDOVA/HANA"),
    ("PERSON", "Passengers:\n3. YOSHIDA/HANAKO CHD", "YOSHIDA/HANAKO"),
    ("PERSON", "pax OKAFOR/CHIDI NNAMDI MR seat 4C", "OKAFOR/CHIDI NNAMDI"),
    ("PERSON", "pax DOE/JANEMRS seat 4C", "DOE/JANE"),
    # "in case" is no case number: the phone after it stands.
    ("PHONE_NUMBER", "my personal one, in case (we have +1 949-202-9322).", "+1 949-202-9322"),
]


@pytest.mark.parametrize(("entity", "text", "value"), POSITIVE, ids=[f"{e}:{t[:40]}" for e, t, _ in POSITIVE])
def test_value_is_found(entity: str, text: str, value: str | None) -> None:
    hits = [v for e, v in found(text) if e == entity]
    assert hits, f"no {entity} in {text!r}"
    if value is not None:
        assert value in hits


# (entity or None for any, text): nothing of that entity may be found.
NEGATIVE = [
    ("CREDIT_CARD", "card 4539 1488 0343 6468 declined"),  # Luhn fails
    ("CREDIT_CARD", "tracking number 9400111899223344556677"),
    ("CREDIT_CARD", "ref 1234567812345670 in our books"),  # Luhn-valid, no issuer
    ("CREDIT_CARD", "order 4111111111111111 was refunded"),  # lowered by "order"
    ("IBAN", "DE89 3704 0044 0532 0130 01"),  # mod-97 fails
    ("IBAN", "sku AB12 CD34 EF56 GH78"),
    ("BANK_ACCOUNT", "routing issue with order 021000021"),
    ("BANK_ACCOUNT", "account 11111111 is a test"),
    ("BANK_ACCOUNT", "the order 12345678 shipped to your account"),
    ("SECRET", "password: ********"),
    ("SECRET", "password=${DB_PASSWORD}"),
    ("SECRET", "api_key: <redacted>"),
    ("SECRET", "your password is incorrect"),
    ("SECRET", "the token was expired"),
    ("SECRET", "reset your password at the portal"),
    ("US_SSN", "SSN 000-12-3456"),  # area 000
    ("US_SSN", "SSN 666-12-3456"),  # area 666
    ("US_SSN", "call 987-65-4320"),  # area 9xx
    ("US_SSN", "order 123456789 shipped"),
    ("US_SSN", "part number 123-45-6789 is out of stock"),
    ("PASSPORT", "passport photos cost $15"),
    ("PASSPORT", "order ABC12345 shipped"),
    ("DRIVER_LICENSE", "the DL is expired"),
    ("EMAIL_ADDRESS", "logo@2x.png"),
    ("EMAIL_ADDRESS", "meet at noon"),
    ("PHONE_NUMBER", "call 911 now"),
    ("PHONE_NUMBER", 'GET /login HTTP/1.1" 400 245639'),
    ("PHONE_NUMBER", "2025-11-05 11:46:13 INFO started"),
    ("PHONE_NUMBER", "invoice 20190728 attached"),
    ("PHONE_NUMBER", "duplicate phone for account 9245866"),
    ("PHONE_NUMBER", "version 1.19.6229 is out"),
    ("PHONE_NUMBER", "it costs $1,234,567.89"),
    ("PHONE_NUMBER", "tracking 1Z999AA10123456784"),
    ("PHONE_NUMBER", "order number 2125550188 shipped"),
    ("ZIP_CODE", "I bought 12345 widgets"),
    ("ZIP_CODE", "my zip file is 40 MB"),
    ("ZIP_CODE", "ticket 12345-6789 closed"),
    ("DATE_OF_BIRTH", "order placed on 04/12/2024"),
    ("DATE_OF_BIRTH", "born on 31/02/1990"),  # no such date
    ("DATE_OF_BIRTH", "appointment 1990-07-15"),
    ("DATE_OF_BIRTH", "dob 05/13/2099"),  # not in the past
    ("IP_ADDRESS", "listening on 127.0.0.1:8080"),
    ("IP_ADDRESS", "connect ::1 port 5432"),
    ("IP_ADDRESS", "bind 0.0.0.0"),
    ("IP_ADDRESS", "route add -net 10.8.0.0/16 gw 10.8.0.1"),
    ("IP_ADDRESS", "dhcp pool 172.16.0.0/12 exhausted, prefix 2001:db8:5::/48"),
    ("IP_ADDRESS", "server listening addr=10.0.3.7"),
    ("IP_ADDRESS", "Mozilla/5.0 Chrome/120.0.6099.109 Safari/537.36"),
    ("IP_ADDRESS", "upgraded to 2.4.1.0 today"),
    ("IP_ADDRESS", "at 10:51:17 the job ran"),
    ("IP_ADDRESS", "mac 00:1a:2b:3c:4d:5e"),
    (None, "id 550e8400-e29b-41d4-a716-446655440000"),
    (None, "commit 2524df82fe668dc7e7ec1725066913cf413c0b6a"),
    (None, "price $1,299.00, qty 3, total $3,897.00"),
    (None, "room 1234 on floor 12"),
    (None, "the last four episodes were great"),
    (None, "Will you and May come on Monday?"),
    ("PERSON", "speaks TCP/IP MS and HTTP/HTTPS DR"),  # no vowel in a part: no name
    ("PHONE_NUMBER", "case 949-202-9322 was closed"),  # a case's number
]


@pytest.mark.parametrize(("entity", "text"), NEGATIVE, ids=[f"{e}:{t[:40]}" for e, t in NEGATIVE])
def test_look_alike_is_not_found(entity: str | None, text: str) -> None:
    hits = [(e, v) for e, v in found(text) if entity is None or e == entity]
    assert not hits
