"""Writes values-probe.jsonl: values made by Faker in 40 locales (phones, names, cards of every
scheme, IBANs, passports, SSNs, US and European street addresses, IPs, e-mail addresses, dates
of birth) set in sentences written for this project. A check of the mechanisms on values in
every country's format, not anyone else's test set. The output is committed; to write it again
(with Faker 40.63.0 the same values; a few unlabelled city names vary):

    pip install faker==40.63.0 && python values_probe.py > values-probe.jsonl
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable

from faker import Faker

# fmt: off
LOCALES = [
    "en_US", "en_GB", "de_DE", "fr_FR", "it_IT", "es_ES", "nl_NL", "pt_BR", "ja_JP", "en_IN", "en_AU",
    "pl_PL", "sv_SE", "zh_CN", "ru_RU", "tr_TR", "ko_KR", "cs_CZ", "fi_FI", "da_DK", "no_NO", "hu_HU",
    "ro_RO", "el_GR", "he_IL", "en_CA", "es_MX", "fr_CH", "de_AT", "en_NZ", "th_TH", "id_ID", "vi_VN",
    "uk_UA", "pt_PT", "sk_SK", "hr_HR", "lv_LV", "ar_AA", "bg_BG",
]
# fmt: on
NON_LATIN = {"ja", "zh", "ru", "ko", "el", "he", "th", "uk", "bg", "ar"}
LATIN = [loc for loc in LOCALES if loc.split("_")[0] not in NON_LATIN]

PHONE = [
    "You can reach me on {p} after five.",
    "Mobile: {p}",
    "Please ring the front desk at {p} to confirm the booking.",
    "contact number {p}, ask for the warehouse",
    "my cell is {p} if anything changes",
    "Tel. {p}",
    "Fax: {p}",
    "Call me back at {p} please",
    "Phone {p} (office hours only)",
    "Whatsapp {p}",
    "for urgent issues dial {p}",
    "Direct line: {p}",
    "new number is {p}, save it",
    "Telephone: {p}\nEmail: none",
]
NAME = [
    "{n} signed the lease on Tuesday.",
    "Refund approved for {n} after the second review.",
    "Assigned to {n}; escalate if no reply by Friday.",
    "The invoice went to {n} and {m}.",
    "{n} from accounts will join the call.",
    "Per {n}, the shipment left the warehouse.",
    "I spoke with {n} yesterday about the renewal.",
    "Label printed for {n}, two parcels.",
    "Patient {n} missed the appointment.",
    "{n} has been added to the project.",
    "Meeting notes: {n} presented the budget, {m} took questions.",
    "Approved by {n}",
    "Driver {n} arrived at 14:10.",
    "Can you forward this to {n}?",
    "{n} is out until Monday, so {m} covers.",
]
CARD = [
    "card number {c}",
    "Please charge {c}, expiry 09/29.",
    "Paid with card {c}",
    "CC: {c}",
    "the card ending up on file was {c}",
    "Kartennummer {c}",
]
SCHEMES = [
    "visa16",
    "visa13",
    "mastercard",
    "amex",
    "discover",
    "jcb15",
    "jcb16",
    "maestro",
    "diners",
    "visa19",
]
IBAN = ["IBAN {i}", "Please wire the deposit to {i}.", "account: {i}", "Bankverbindung: {i}"]
PASSPORT = ["passport number {x}", "Passport No.: {x}", "travelling on passport {x}", "her passport is {x}"]

Value = tuple[str, str]


class Probe:
    def __init__(self) -> None:
        self.records: list[dict[str, object]] = []

    def add(self, kind: str, template: str, values: dict[str, str | Value]) -> None:
        """One record: ``template`` with its ``{slot}``s filled; a (value, entity) pair is labelled."""
        text = ""
        spans: list[dict[str, object]] = []
        rest = template
        while "{" in rest:
            before, _, after = rest.partition("{")
            slot, _, rest = after.partition("}")
            text += before
            value = values[slot]
            if isinstance(value, tuple):
                v, entity = value
                spans.append(
                    {"start": len(text), "end": len(text) + len(v), "entity": entity, "partial": False}
                )
                text += v
            else:
                text += value
        text += rest
        record = {"id": f"vp-{kind}-{len(self.records):04d}", "channel": "chat", "text": text, "spans": spans}
        self.records.append(record)


def main() -> None:
    rnd = random.Random(7)
    fakers = {loc: Faker(loc) for loc in LOCALES}
    for i, f in enumerate(fakers.values()):
        f.seed_instance(100 + i)
    probe = Probe()
    for loc in LOCALES:
        for t in rnd.sample(PHONE, 4):
            probe.add("phone", t, {"p": (fakers[loc].phone_number(), "PHONE_NUMBER")})
    for loc in LATIN:
        f = fakers[loc]
        name: Callable[[], Value] = lambda f=f: (f.first_name() + " " + f.last_name(), "PERSON")  # noqa: E731
        for t in rnd.sample(NAME, 4):
            probe.add("name", t, {"n": name(), "m": name()})
    us = fakers["en_US"]
    for scheme in SCHEMES:
        for _ in range(4):
            c = us.credit_card_number(card_type=scheme)
            if rnd.random() < 0.5 and len(c) == 16:
                c = " ".join(c[i : i + 4] for i in range(0, 16, 4))
            probe.add("card_" + scheme, rnd.choice(CARD), {"c": (c, "CREDIT_CARD")})
    for loc in LOCALES:
        try:
            iban = fakers[loc].iban()
        except AttributeError:
            continue
        # Faker gives some locales another country's IBAN of the wrong length, or one for a
        # country without IBANs: only a locale's own IBAN is kept.
        if iban[:2] != loc.split("_")[1] or iban[:2] == "TH":
            continue
        if rnd.random() < 0.5:
            iban = " ".join(iban[k : k + 4] for k in range(0, len(iban), 4))
        probe.add("iban", rnd.choice(IBAN), {"i": (iban, "IBAN")})
    for loc in LOCALES:
        try:
            passport = fakers[loc].passport_number()
        except AttributeError:
            continue
        probe.add("passport", rnd.choice(PASSPORT), {"x": (passport, "PASSPORT")})
    for t in ["SSN {s}", "social security number: {s}", "my ssn is {s}"] * 4:
        probe.add("ssn", t, {"s": (us.ssn(), "US_SSN")})
    for t in ["Ship to {a}, {c}, {st} {z}.", "Address: {a}\n{c}, {st} {z}", "I moved to {a} in {c}"] * 5:
        street = (us.street_address(), "STREET_ADDRESS")
        probe.add(
            "address",
            t,
            {"a": street, "c": us.city(), "st": us.state_abbr(), "z": (us.zipcode(), "ZIP_CODE")},
        )
    for loc in ["en_GB", "de_DE", "fr_FR", "nl_NL", "es_ES", "it_IT"]:
        g = fakers[loc]
        for _ in range(3):
            values: dict[str, str | Value] = {
                "a": (g.street_address(), "STREET_ADDRESS"),
                # ZIP_CODE is a US, UK or Canadian code: other countries' are left unlabelled.
                "z": (g.postcode(), "ZIP_CODE") if loc == "en_GB" else g.postcode(),
                "c": g.city(),
            }
            probe.add("address_" + loc, "Deliver to {a}, {z} {c}.", values)
    for t in ["login from {ip} failed", "client={ip} status=403", "my IP is {ip}"] * 4:
        probe.add("ipv4", t, {"ip": (us.ipv4(), "IP_ADDRESS")})
        probe.add("ipv6", t, {"ip": (us.ipv6(), "IP_ADDRESS")})
    for loc in LATIN[:12]:
        t = rnd.choice(["Email me at {e}", "reply-to: {e}", "send it to {e} please"])
        probe.add("email", t, {"e": (fakers[loc].email(), "EMAIL_ADDRESS")})
    for t in ["Date of birth: {d}", "born {d}", "DOB {d}"] * 4:
        d = us.date_of_birth()
        shown = rnd.choice(
            [d.strftime("%m/%d/%Y"), d.strftime("%d.%m.%Y"), d.strftime("%B %d, %Y"), d.isoformat()]
        )
        probe.add("dob", t, {"d": (shown, "DATE_OF_BIRTH")})
    for r in probe.records:
        print(json.dumps(r, ensure_ascii=False))


if __name__ == "__main__":
    main()
