"""Check a labelled corpus in the devset's JSONL format before anyone scores against it.

``inhouse-d.jsonl`` was written for this project by a helper session (branch ``corpora``,
2026-11-27): every chat line and e-mail was written by hand in many voices, the log lines
come from log formats written for it, and the numbers were made up and then checked by this
script. Nothing in it was taken from a public benchmark, a test suite or a data generator.

Usage::

    python tests/data/corpora/validate.py tests/data/corpora/inhouse-d.jsonl [--stats]
    python tests/data/corpora/validate.py A.jsonl --disjoint B.jsonl   # no shared text

It fails (exit 1, one line per problem) when an offset is wrong, spans overlap or touch a
letter or digit outside them, or a value does not pass its check: Luhn for card numbers,
ISO 7064 mod-97 (``stdnum.iban``) for IBANs, the SSA rules for SSNs, the ABA checksum for
routing numbers, ``phonenumbers.is_valid_number`` for phone numbers not marked partial, a
plain address form for e-mails, ``ipaddress`` for IP addresses (never loopback or
unspecified), the US, UK and Canadian forms for ZIP codes. It also fails when an e-mail
address or a valid IBAN is left unlabelled anywhere, and it lists unlabelled IPv4
addresses and Luhn-valid digit runs for a person to look at (those may be right: a server's
bind address, a tracking number).

``partial`` follows the devset README: a value whose form alone would not be caught
(spoken, spaced, split, spelled, last four, dotted or undelimited phones, phones that
libphonenumber does not accept, obfuscated e-mails). A well-formed date given as the answer
to a question about a birthday is a DATE_OF_BIRTH but not partial.
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import re
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import phonenumbers
from stdnum import iban, luhn

ENTITIES = {
    "CREDIT_CARD",
    "BANK_ACCOUNT",
    "IBAN",
    "SECRET",
    "US_SSN",
    "PASSPORT",
    "DRIVER_LICENSE",
    "EMAIL_ADDRESS",
    "PHONE_NUMBER",
    "PERSON",
    "STREET_ADDRESS",
    "ZIP_CODE",
    "DATE_OF_BIRTH",
    "IP_ADDRESS",
}
CHANNELS = {"chat", "log", "email"}

# Regions tried for a phone number written without its country code: the countries whose
# numbers the in-house corpora use. A number must be valid in at least one of them.
# fmt: off
REGIONS = (
    "US", "CA", "GB", "DE", "FR", "IN", "AU", "CH", "NL", "BE", "ES", "IT", "PT", "BR", "MX",
    "AR", "CO", "CL", "PE", "NG", "KE", "ZA", "EG", "MA", "AE", "SA", "IL", "TR", "PL", "CZ",
    "SK", "SE", "NO", "DK", "FI", "IE", "JP", "KR", "CN", "HK", "SG", "MY", "PH", "VN", "TH",
    "ID", "NZ", "UA", "GH", "PK", "AT", "GR", "RO", "HU", "RS", "HR", "BG", "LT", "IS",
)
# fmt: on

EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
EMAIL_FULL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\Z")
SSN_FORM = re.compile(r"\d{3}-\d{2}-\d{4}\Z")
ZIP_FORMS = (
    re.compile(r"\d{5}(?:-\d{4})?\Z"),
    re.compile(r"(?:[A-Z]{1,2}\d[A-Z\d]?|GIR) ?\d[A-Z]{2}\Z"),
    re.compile(r"[ABCEGHJ-NPRSTVXY]\d[ABCEGHJ-NPRSTV-Z] ?\d[ABCEGHJ-NPRSTV-Z]\d\Z"),
)
PASSPORT_FORM = re.compile(r"[A-Z0-9]{6,10}\Z")
LICENCE_FORM = re.compile(r"[A-Z0-9][A-Z0-9 -]{4,22}[A-Z0-9]\Z")
PLACEHOLDER = re.compile(
    r"\A(?:\*+|x+|X+|\.+|<[^>]*>|\$\{[^}]*\}|\$[A-Z_]+|\{\{.*\}\}|%\([^)]*\)s|"
    r"(?:your|my)[-_ ]?\w*|redacted|\[redacted\]|changeme|password|secret|null|none|todo)\Z",
    re.IGNORECASE,
)
ROUTING_CUE = re.compile(r"routing|\baba\b|\brtn\b|transit", re.IGNORECASE)
ACCOUNT_CUE = re.compile(r"account|\bacc(?:t|ount)?\b|checking|savings", re.IGNORECASE)
# A Message-ID has an address's form but names a message, not a mailbox.
MESSAGE_ID = re.compile(r"message-id[=:] ?<\Z", re.IGNORECASE)
IPV4 = re.compile(r"(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?![\w.])")
DIGIT_RUN = re.compile(r"(?<![\w-])\d(?:[ -]?\d){12,18}(?![\w-])")
IBAN_RUN = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){10,30}\b")


def digits(value: str) -> str:
    return re.sub(r"\D", "", value)


def ssa_valid(number: str) -> bool:
    area, group, serial = int(number[:3]), int(number[3:5]), int(number[5:])
    return area not in (0, 666) and area < 900 and group != 0 and serial != 0


def aba_valid(number: str) -> bool:
    d = [int(c) for c in number]
    total = 3 * (d[0] + d[3] + d[6]) + 7 * (d[1] + d[4] + d[7]) + d[2] + d[5] + d[8]
    return len(d) == 9 and total % 10 == 0


def routing_context(before: str) -> bool:
    """Whether the nearest cue before a bank number names a routing number, not an account."""
    window = before[-60:]
    routing = [m.end() for m in ROUTING_CUE.finditer(window)]
    account = [m.end() for m in ACCOUNT_CUE.finditer(window)]
    return bool(routing) and (not account or routing[-1] > account[-1])


def phone_valid(value: str) -> bool:
    compact = value.replace("(0)", "")
    if compact.startswith("00"):
        compact = "+" + compact[2:]
    regions: tuple[str | None, ...] = (None,) if compact.startswith("+") else REGIONS
    for region in regions:
        try:
            number = phonenumbers.parse(compact, region)
        except phonenumbers.NumberParseException:
            continue
        if phonenumbers.is_valid_number(number):
            return True
    return False


def value_problem(entity: str, value: str, partial: bool, before: str) -> str | None:
    """Why ``value`` cannot be a labelled ``entity``, or None when it can."""
    if value != value.strip():
        return "value has surrounding white space"
    if entity == "CREDIT_CARD":
        num = digits(value)
        if partial:
            return None if num or value.isalpha() or " " in value else "no digits"
        if not re.fullmatch(r"[\d -]+", value) or not 12 <= len(num) <= 19:
            return "card must be 12-19 digits"
        return None if luhn.is_valid(num) else "card fails Luhn"
    if entity == "IBAN":
        return None if partial or iban.is_valid(value) else "IBAN fails mod-97 or its country form"
    if entity == "US_SSN":
        num = digits(value)
        if len(num) == 9 and not ssa_valid(num):
            return "SSN breaks the SSA rules"
        if len(num) == 4 and num == "0000":
            return "SSN serial 0000"
        if not partial and not SSN_FORM.match(value):
            return "an SSN not written ddd-dd-dddd is partial"
        return None
    if entity == "BANK_ACCOUNT":
        num = digits(value)
        if routing_context(before) and len(num) == 9 and not aba_valid(num):
            return "routing number fails the ABA checksum"
        return None if partial or 4 <= len(num) <= 17 else "account number length"
    if entity == "PHONE_NUMBER":
        return None if partial or phone_valid(value) else "phone not valid per libphonenumber"
    if entity == "EMAIL_ADDRESS":
        if partial:
            return "obfuscated address matches the plain form" if EMAIL_FULL.match(value) else None
        return None if EMAIL_FULL.match(value) else "not a plain e-mail address"
    if entity == "ZIP_CODE":
        if partial:
            return None
        return None if any(f.match(value) for f in ZIP_FORMS) else "not a US/UK/CA postal code"
    if entity == "IP_ADDRESS":
        if partial:
            return None
        try:
            ip = ipaddress.ip_address(value)
        except ValueError:
            return "not an IP address"
        return "loopback or unspecified" if ip.is_loopback or ip.is_unspecified else None
    if entity == "PASSPORT":
        return None if partial or PASSPORT_FORM.match(value) else "passport form"
    if entity == "DRIVER_LICENSE":
        ok = LICENCE_FORM.match(value) and re.search(r"\d", value)
        return None if partial or ok else "licence form"
    if entity == "SECRET":
        if PLACEHOLDER.match(value):
            return "placeholder labelled as a secret"
        return None if len(value) >= 4 else "secret too short"
    if entity == "PERSON":
        if re.search(r"\d", value) or not value[0].isalpha():
            return "name with digits or starting with a symbol"
        if re.match(r"(?:Mr|Mrs|Ms|Dr|Prof)\.? ", value):
            return "title inside a name span"
        return None if len(value.split()) <= 6 else "name too long"
    if entity == "STREET_ADDRESS":
        return None if re.search(r"\d", value) or partial else "address without a number"
    if entity == "DATE_OF_BIRTH":
        month = re.search(r"[A-Za-z]{3}", value)
        return None if re.search(r"\d", value) or month else "date without digits or month"
    return f"unknown entity {entity}"


def covered(spans: list[dict[str, Any]], start: int, end: int) -> bool:
    return any(s["start"] < end and start < s["end"] for s in spans)


def in_url_authority(text: str, start: int) -> bool:
    token_start = max(text.rfind(c, 0, start) for c in " \t\n\"'=,(")
    return "://" in text[token_start + 1 : start]


def record_problems(rec: dict[str, Any]) -> Iterator[str]:
    if set(rec) - {"id", "channel", "text", "spans"} or not {"id", "channel", "text", "spans"} <= set(rec):
        yield f"keys {sorted(rec)}"
        return
    text, spans = rec["text"], rec["spans"]
    if rec["channel"] not in CHANNELS:
        yield f"channel {rec['channel']!r}"
    if not isinstance(text, str) or not text.strip():
        yield "empty text"
        return
    last_end = 0
    for span in spans:
        start, end, entity = span.get("start"), span.get("end"), span.get("entity")
        if set(span) != {"start", "end", "entity", "partial"} or not isinstance(span["partial"], bool):
            yield f"span keys {span}"
            continue
        if not (isinstance(start, int) and isinstance(end, int) and 0 <= start < end <= len(text)):
            yield f"offsets {start}:{end}"
            continue
        if entity not in ENTITIES:
            yield f"entity {entity!r}"
            continue
        if start < last_end:
            yield f"span {start}:{end} overlaps or is out of order"
        last_end = end
        value = text[start:end]
        # A password may be glued to its flag, as in "mysql -pSECRET".
        glued = entity == "SECRET" and text[:start].endswith("-p")
        if (start and text[start - 1].isalnum() and not glued) or (end < len(text) and text[end].isalnum()):
            yield f"{entity} {value!r} cuts a word ({text[max(0, start - 8) : end + 8]!r})"
        problem = value_problem(entity, value, span["partial"], text[:start])
        if problem:
            yield f"{entity} {value!r}: {problem}"
    for m in EMAIL.finditer(text):
        if covered(spans, m.start(), m.end()) or in_url_authority(text, m.start()):
            continue
        if not MESSAGE_ID.search(text[max(0, m.start() - 16) : m.start()]):
            yield f"unlabelled e-mail address {m.group()!r}"
    for m in IBAN_RUN.finditer(text):
        if iban.is_valid(m.group()) and not covered(spans, m.start(), m.end()):
            yield f"unlabelled IBAN {m.group()!r}"


def notes(rec: dict[str, Any]) -> Iterator[str]:
    """Unlabelled values that are often right but worth a look."""
    text, spans = rec["text"], rec["spans"]
    for m in IPV4.finditer(text):
        try:
            ip = ipaddress.ip_address(m.group())
        except ValueError:
            continue
        if not (ip.is_loopback or ip.is_unspecified) and not covered(spans, m.start(), m.end()):
            yield f"unlabelled IPv4 {m.group()} in {text[max(0, m.start() - 30) : m.end() + 5]!r}"
    for m in DIGIT_RUN.finditer(text):
        if luhn.is_valid(digits(m.group())) and not covered(spans, m.start(), m.end()):
            yield f"unlabelled Luhn-valid run {m.group()!r}"


def load(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def stats(records: list[dict[str, Any]]) -> str:
    channels = Counter(r["channel"] for r in records)
    entities = Counter(s["entity"] for r in records for s in r["spans"])
    partial = Counter(s["entity"] for r in records for s in r["spans"] if s["partial"])
    negatives = sum(1 for r in records if not r["spans"])
    lines = [f"records {len(records)}; hard negatives {negatives} ({negatives / len(records):.0%})"]
    lines.append("channels " + ", ".join(f"{k} {v}" for k, v in sorted(channels.items())))
    lines += [f"  {e:15} {n:4}  (partial {partial[e]})" for e, n in entities.most_common()]
    return "\n".join(lines)


def shingles(text: str, size: int = 6) -> set[str]:
    words = re.findall(r"[a-z']+", text.lower())
    return {" ".join(words[i : i + size]) for i in range(len(words) - size + 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--stats", action="store_true", help="print counts per channel and entity")
    parser.add_argument("--notes", action="store_true", help="list unlabelled look-alikes to review")
    parser.add_argument("--disjoint", type=Path, help="another corpus that must share no text")
    args = parser.parse_args(argv)
    records = load(args.corpus)
    failures = 0
    ids: Counter[str] = Counter(r.get("id", "") for r in records)
    texts: Counter[str] = Counter(r.get("text", "") for r in records)
    for rec in records:
        rid = rec.get("id", "?")
        if ids[rid] > 1:
            print(f"{rid}: duplicate id")
            failures += 1
        if texts[rec.get("text", "")] > 1:
            print(f"{rid}: duplicate text")
            failures += 1
        for problem in record_problems(rec):
            print(f"{rid}: {problem}")
            failures += 1
        if args.notes:
            for note in notes(rec):
                print(f"{rid}: note: {note}")
    if args.disjoint:
        other = load(args.disjoint)
        theirs = set().union(*(shingles(r["text"]) for r in other))
        for rec in records:
            shared = shingles(rec["text"]) & theirs
            if shared:
                print(f"{rec['id']}: shares wording with {args.disjoint.name}: {sorted(shared)[:3]}")
                failures += 1
    if args.stats:
        print(stats(records))
    print(f"{args.corpus.name}: {len(records)} records, {failures} problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
