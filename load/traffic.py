"""Streams shaped like the traffic: PII-dense chat and log lines, and e-mail prose.

About half of the lines of a support and operations pipeline hold personal data; lines run
~190 bytes; chat has several sentences; logs are full of ids, UUIDs, versions and order
numbers that look like values; people are named in ordinary sentences with no phrase that
announces a name ("Customer Maria Okafor called about the refund"). Mail is prose of ~2 KB
with a signature and often a quoted earlier message. Each ``Sample`` keeps the values written
into it, so a stream can say what share of its messages hold one.

    from load import traffic
    traffic.dense_lines(1000, seed=1)      # chat, JSON logs, key=value logs; 48% with a value
    traffic.email_prose(100, seed=1)       # ~2 KB mails with signatures and quoted replies
    traffic.dense_mixed(1000, seed=1)      # dense lines with a 2 KB mail every tenth message

    .venv/bin/python -m load.traffic --show 5   # the statistics of each stream, and examples

Deterministic like ``load.streams``: the same arguments give the same messages everywhere.
"""

from __future__ import annotations

import argparse
import statistics
import string
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from stdnum import iban

from load.streams import _CITIES, _DOMAINS, _STREETS, _Gen

__all__ = [
    "Sample",
    "block",
    "dense_lines",
    "dense_mixed",
    "dense_samples",
    "describe",
    "email_prose",
    "email_prose_samples",
]


@dataclass(frozen=True, slots=True)
class Sample:
    """One message and the personal data written into it (empty for a message without any)."""

    text: str
    values: tuple[str, ...]


_GIVEN = (
    "Maria", "Daniel", "Aisha", "Mateo", "Ingrid", "Tunde", "Mei", "Rafael", "Nadia", "Oskar",
    "Fatima", "Declan", "Yuki", "Chiara", "Emeka", "Astrid", "Rohan", "Leila", "Bruno", "Saoirse",
    "Dmitri", "Camila", "Kofi", "Hannah", "Tariq", "Elena", "Joaquim", "Wen", "Greta", "Samuel",
)  # fmt: skip
_FAMILY = (
    "Okafor", "Reyes", "Lindqvist", "Petrova", "Nakamura", "Castellano", "Adeyemi", "Fischer",
    "O'Brien", "Haddad", "Moreau", "Kowalczyk", "Banerjee", "Ferreira", "Nguyen", "Achterberg",
    "Mensah", "Rossi", "Varga", "Abernathy", "Sato", "Delacroix", "Oyelaran", "Kristiansen",
)  # fmt: skip
_COMPANIES = ("Northwind Freight", "Bluefin Logistics", "Copperleaf Health", "Harbourline Energy")
_PRODUCTS = ("the blue kettle", "a standing desk", "two phone cases", "the espresso grinder", "a gift card")
_SERVICES = ("checkout", "billing", "auth", "search", "notifications", "inventory", "shipping")
_EVENTS = (
    "payment authorised", "cart updated", "session refreshed", "retry scheduled", "cache miss",
    "webhook delivered", "profile saved", "rate limit hit", "refund queued", "label printed",
)  # fmt: skip
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


class _Dense(_Gen):
    """``_Gen`` with more kinds of value and look-alike; every value it writes is recorded."""

    def __init__(self, seed: int, pii: float) -> None:
        super().__init__(seed, pii)
        self.values: list[str] = []

    def took(self) -> tuple[str, ...]:
        """The values written since the last call."""
        out = tuple(self.values)
        self.values.clear()
        return out

    def v(self, value: str) -> str:
        self.values.append(value)
        return value

    def hexes(self, n: int) -> str:
        return "".join(self.r.choice("0123456789abcdef") for _ in range(n))

    # ------------------------------------------------------------------ personal data
    def person(self) -> str:
        return f"{self.r.choice(_GIVEN)} {self.r.choice(_FAMILY)}"

    def given(self) -> str:
        return self.r.choice(_GIVEN)

    def mail(self, name: str | None = None) -> str:
        """An address, made from ``name`` when given (a signature's own address)."""
        first, last = (name or self.person()).lower().replace("'", "").split(" ", 1)
        local = self.r.choice((f"{first}.{last}", f"{first[0]}{last}", f"{first}{self.r.randint(2, 99)}"))
        return f"{local}@{self.r.choice(_DOMAINS)}"

    def tel(self) -> str:
        area = self.r.choice((206, 303, 404, 512, 617, 702, 813, 971))
        mid, end = self.r.randint(201, 989), self.r.randint(1000, 9999)
        return self.r.choice(
            (f"({area}) {mid}-{end}", f"{area}-{mid}-{end}", f"+1 {area} {mid} {end}", f"{area}.{mid}.{end}")
        )

    def public_ip(self) -> str:
        if self.r.random() < 0.2:
            return f"2a02:{self.hexes(4)}:{self.hexes(3)}:{self.hexes(2)}::{self.hexes(3)}"
        first = self.r.choice((23, 45, 52, 66, 81, 94, 109, 151, 185, 212))
        return f"{first}.{self.r.randint(1, 254)}.{self.r.randint(1, 254)}.{self.r.randint(1, 254)}"

    def birth(self) -> str:
        y, m, d = self.r.randint(1948, 2003), self.r.randint(1, 12), self.r.randint(1, 28)
        return self.r.choice((f"{m:02d}/{d:02d}/{y}", f"{y}-{m:02d}-{d:02d}", f"{d} {_MONTHS[m - 1]} {y}"))

    def iban(self) -> str:
        bban = "NWBK" + self.digits(14) if self.r.random() < 0.5 else self.digits(18)
        country = "GB" if bban.startswith("NWBK") else "DE"
        number = country + iban.calc_check_digits(country + "00" + bban) + bban
        return " ".join(number[i : i + 4] for i in range(0, len(number), 4))

    def token(self) -> str:
        alphabet = string.ascii_letters + string.digits
        if self.r.random() < 0.5:
            return "ghp_" + "".join(self.r.choice(alphabet) for _ in range(36))
        return "AKIA" + "".join(self.r.choice(string.ascii_uppercase + "234567") for _ in range(16))

    def street(self) -> str:
        city, state = self.r.choice(_CITIES)
        return f"{self.r.randint(10, 9999)} {self.r.choice(_STREETS)}, {city}, {state} {self.digits(5)}"

    # ------------------------------------------------------------------ look-alikes
    def order_no(self) -> str:
        r = self.r
        d = self.digits
        return r.choice(
            (f"ORD-{r.randint(2023, 2026)}-{d(6)}", f"#{d(9)}", f"PO{d(8)}", f"INV-{d(5)}-{d(2)}",
             f"RMA {d(7)}", f"{d(3)}-{d(7)}")
        )  # fmt: skip

    def ticket(self) -> str:
        return self.r.choice((f"CASE-{self.digits(7)}", f"SR{self.digits(8)}", f"INC{self.digits(7)}"))

    def semver(self) -> str:
        r = self.r
        base = f"{r.randint(0, 12)}.{r.randint(0, 60)}.{r.randint(0, 300)}"
        return r.choice((base, f"v{base}", f"{base}-rc.{r.randint(1, 9)}", f"{base}+build.{self.digits(4)}"))

    def tracking(self) -> str:
        return self.r.choice(
            (f"1Z{self.hexes(6).upper()}{self.digits(10)}", f"TBA{self.digits(12)}", self.digits(22))
        )

    def epoch(self) -> str:
        return str(self.r.randint(1_700_000_000, 1_760_000_000))

    def internal_ip(self) -> str:
        return self.r.choice(
            (f"10.{self.r.randint(0, 255)}.{self.r.randint(0, 255)}.{self.r.randint(1, 254)}",
             f"192.168.{self.r.randint(0, 20)}.{self.r.randint(2, 254)}", "127.0.0.1")
        )  # fmt: skip

    def pod(self) -> str:
        return f"{self.r.choice(_SERVICES)}-{self.hexes(9)}-{self.hexes(5)}"

    def stamp(self) -> str:
        return self.timestamp()[:-1] + f".{self.digits(3)}Z"


# ---------------------------------------------------------------------------- dense chat
# Each sentence builder writes one sentence; a chat line is two to four of them. Sentences
# with a value record it through _Dense.v; the others are filler that looks like values.


def _value_sentence(g: _Dense) -> str:
    r = g.r
    return r.choice(
        (
            lambda: f"My card is {g.v(g.card())} and it was charged twice.",
            lambda: f"You can reach me on {g.v(g.tel())} after four.",
            lambda: f"Send the new invoice to {g.v(g.mail())} please.",
            lambda: f"The login came from {g.v(g.public_ip())}, which is not me.",
            lambda: f"For the form, my date of birth is {g.v(g.birth())}.",
            lambda: f"Please ship the replacement to {g.v(g.street())}.",
            lambda: f"My social is {g.v(g.ssn())} if you need it for the credit check.",
            lambda: f"Refund it to {g.v(g.iban())}, that's my new account.",
            lambda: f"Oops, I pasted my key {g.v(g.token())} in here by mistake.",
            lambda: f"{g.v(g.person())} called about the refund for {g.order_no()}.",
            lambda: f"Customer {g.v(g.person())} says the parcel never arrived.",
            lambda: f"I spoke with {g.v(g.person())} from your billing team yesterday.",
            lambda: f"{g.v(g.person())}'s order was split into two deliveries.",
            lambda: f"Can you ask {g.v(g.given())} to ring me back? She had the case notes.",
            lambda: f"Looping in {g.v(g.person())}, who handles the {r.choice(_COMPANIES)} account.",
            lambda: f"I think {g.v(g.given())} already replied on ticket {g.ticket()}.",
            lambda: f"Text me at {g.v(g.tel())} or write to {g.v(g.mail())}, either works.",
            lambda: f"hey its {g.v(g.given().lower())} again, the code still doesnt work.",
            lambda: f"{g.v(g.person())} and I share the account, so either of us can approve it.",
            lambda: f"Please update the billing contact to {g.v(g.person())}, effective today.",
            lambda: f"Passed this to {g.v(g.given())} in returns; expect a reply by Friday.",
            lambda: f"The courier rang {g.v(g.tel())} but nobody picked up, so they took it back.",
            lambda: f"Born {g.v(g.birth())}, in case the insurer asks again.",
        )
    )()


def _plain_sentence(g: _Dense) -> str:
    r = g.r
    return r.choice(
        (
            lambda: f"I ordered {r.choice(_PRODUCTS)} on {r.choice(_MONTHS)} {r.randint(1, 28)}.",
            lambda: f"Order {g.order_no()} still shows label created.",
            lambda: f"The tracking number {g.tracking()} has not moved in a week.",
            lambda: f"The app on version {g.semver()} crashes when I open the basket.",
            lambda: f"Your reference was {g.ticket()}, opened {r.randint(2, 9)} days ago.",
            lambda: f"It says error {r.randint(400, 599)} and then {g.uuid()}.",
            lambda: "Could you check what is going on?",
            lambda: "Thanks for getting back to me so fast.",
            lambda: f"I paid {g.price()} but the receipt says {g.price()}.",
            lambda: "Is there a way to change the delivery slot to the morning?",
            lambda: f"Quantity {r.randint(2, 12)}, size {r.choice(('S', 'M', 'L', 'XL'))}, colour navy.",
            lambda: f"We have {r.randint(2, 40)} seats on the {r.choice(('pro', 'team', 'business'))} plan.",
            lambda: "Sorry for the long message, I just want this sorted.",
            lambda: f"The discount code SPRING{g.digits(2)} was rejected at checkout.",
            lambda: f"Page {g.r.randint(2, 9)} of the manual says the warranty is {g.r.randint(1, 5)} years.",
            lambda: "I have restarted the router twice and cleared the cache as suggested.",
            lambda: (
                f"The parcel weighed {g.r.randint(1, 30)}.{g.r.randint(0, 9)} kg, not what the label says."
            ),
            lambda: f"Invoice {g.order_no()} lists {g.r.randint(2, 9)} units but we only ordered one.",
            lambda: "Can someone call me back instead? Typing on the phone is slow.",
            lambda: f"Our store id is {g.digits(5)} and the terminal id is T{g.digits(7)}.",
            lambda: f"Same issue since {g.r.choice(_MONTHS)}, nothing has changed on our side.",
            lambda: (
                f"Build {g.semver()} went out at {r.randint(1, 12)}:{r.randint(10, 59)}, nothing changed."
            ),
        )
    )()


_SPEAKERS = ("Customer", "Agent", "customer", "agent", "Bot", "User")


def _dense_chat(g: _Dense, with_value: bool) -> str:
    n = g.r.randint(2, 4)
    sentences = [_plain_sentence(g) for _ in range(n)]
    if with_value:
        for at in g.r.sample(range(n), 1 if g.r.random() < 0.75 else 2):
            sentences[at] = _value_sentence(g)
    return f"{g.r.choice(_SPEAKERS)}: {' '.join(sentences)}"


# ---------------------------------------------------------------------------- dense logs
def _json_log(g: _Dense, with_value: bool) -> str:
    r = g.r
    fields = [
        ("ts", g.stamp()),
        ("level", r.choice(("info", "info", "warn", "debug", "error"))),
        ("service", r.choice(_SERVICES)),
        ("trace_id", g.hexes(32)),
        ("span_id", g.hexes(16)),
        ("msg", r.choice(_EVENTS)),
    ]
    extras = [
        ("order_id", g.order_no()),
        ("request_id", g.uuid()),
        ("version", g.semver()),
        ("pod", g.pod()),
        ("duration_ms", str(r.randint(1, 4000))),
        ("ts_epoch", g.epoch()),
        ("client_ip", g.internal_ip()),
        ("sku", f"SKU-{g.digits(6)}"),
    ]
    fields += r.sample(extras, r.randint(2, 4))
    if with_value:
        key, value = r.choice(
            (
                ("email", g.mail),
                ("phone", g.tel),
                ("client_ip", g.public_ip),
                ("customer_name", g.person),
                ("dob", g.birth),
                ("card_number", g.card),
                ("shipping_address", g.street),
                ("api_key", g.token),
            )
        )
        fields.insert(r.randint(3, len(fields)), (key, g.v(value())))
    return "{" + ",".join(f'"{k}":"{v}"' for k, v in fields) + "}"


def _kv_log(g: _Dense, with_value: bool) -> str:
    r = g.r
    parts = [
        g.stamp(),
        f"level={r.choice(('INFO', 'WARN', 'DEBUG', 'ERROR'))}",
        f"svc={r.choice(_SERVICES)}",
        f"req={g.uuid()}",
        f'msg="{r.choice(_EVENTS)}"',
    ]
    extras = [
        f"order={g.order_no()}",
        f"build={g.semver()}",
        f"pod={g.pod()}",
        f"latency={r.randint(1, 900)}ms",
        f"bytes={r.randint(200, 900000)}",
        f"src={g.internal_ip()}",
        f"ticket={g.ticket()}",
        f"attempt={r.randint(1, 5)}",
        f"commit={g.hexes(40)}",
    ]
    parts += r.sample(extras, r.randint(2, 4))
    if with_value:
        parts.insert(
            r.randint(3, len(parts)),
            r.choice(
                (
                    lambda: f"user={g.v(g.mail())}",
                    lambda: f"remote_addr={g.v(g.public_ip())}",
                    lambda: f"msisdn={g.v(g.tel().replace(' ', ''))}",
                    lambda: f'customer="{g.v(g.person())}"',
                    lambda: f"ssn={g.v(g.ssn())}",
                    lambda: f"iban={g.v(g.iban().replace(' ', ''))}",
                    lambda: f"token={g.v(g.token())}",
                )
            )(),
        )
    return " ".join(parts)


def _dense_line(g: _Dense) -> str:
    kind = g.r.random()
    write = _dense_chat if kind < 0.5 else _json_log if kind < 0.75 else _kv_log
    return write(g, g.has_pii())


def dense_samples(n: int, seed: int = 0, *, pii: float = 0.48) -> list[Sample]:
    """``n`` PII-dense chat and log lines with their values: half chat of two to four
    sentences, a quarter JSON logs, a quarter key=value logs; ``pii`` of them hold a value."""
    g = _Dense(seed, pii)
    out = []
    for _ in range(n):
        text = _dense_line(g)
        out.append(Sample(text, g.took()))
    return out


def dense_lines(n: int, seed: int = 0, *, pii: float = 0.48) -> list[str]:
    """The texts of ``dense_samples``."""
    return [s.text for s in dense_samples(n, seed, pii=pii)]


# ---------------------------------------------------------------------------- e-mail prose
# Paragraph builders; a mail uses each at most once. Those of _MAIL_VALUE write a value.
_Para = Callable[[_Dense], str]

_MAIL_VALUE: tuple[_Para, ...] = (
    lambda g: (
        f"I have attached the signed form. For the record my date of birth is {g.v(g.birth())}, "
        "and the policy is still in my maiden name, which may explain the mismatch."
    ),
    lambda g: (
        f"{g.v(g.person())} from our finance team will cover for me while I am away, so please "
        f"copy them on anything about invoice {g.order_no()}."
    ),
    lambda g: (
        f"The refund should go to {g.v(g.iban())}. The old account was closed in "
        f"{g.r.choice(_MONTHS)}, which is why the last transfer bounced."
    ),
    lambda g: (
        f"Our new office is at {g.v(g.street())}. Deliveries before nine go to the loading bay "
        "at the back of the building; the front desk does not sign for parcels."
    ),
    lambda g: (
        f"The card we use for the subscription is now {g.v(g.card())}. The old one expired last "
        "month, which is probably why the renewal failed."
    ),
    lambda g: (
        f"If it is easier to talk it through, my direct line is {g.v(g.tel())}. I am in meetings "
        "until two but free for the rest of the afternoon."
    ),
    lambda g: (
        f"I met {g.v(g.person())} at the trade fair in {g.r.choice(_MONTHS)}, and we agreed "
        f"that I would write to you about the {g.r.choice(('pilot', 'renewal', 'migration'))}."
    ),
    lambda g: (
        f"Our firewall logged the failed logins from {g.v(g.public_ip())}. Nobody here was "
        "working at that hour, so we reset every password the same night."
    ),
    lambda g: (
        f"The tax office asked for my social security number again. It is {g.v(g.ssn())}; "
        "could you add it to the payroll record so this does not happen a third time?"
    ),
    lambda g: (
        f"Please send the paperwork to {g.v(g.mail())} rather than to me. That mailbox is read "
        "by the whole team, so nothing gets stuck while someone is on leave."
    ),
    lambda g: (
        f"Last week {g.v(g.person())} and I went through the figures line by line. We agree on "
        "everything except the freight charges, which look doubled."
    ),
    lambda g: (
        f"Our developer accidentally committed the key {g.v(g.token())} to the shared "
        "repository. It has been revoked, but please check whether it was used."
    ),
)
_MAIL_PLAIN: tuple[_Para, ...] = (
    lambda g: (
        f"Thanks for the quick turnaround on order {g.order_no()}. Everything arrived in good "
        "shape except one carton, which was crushed at one corner."
    ),
    lambda g: (
        f"We rolled out version {g.semver()} to the warehouse tablets this morning. Crash reports "
        f"are down by about {g.r.randint(10, 60)} percent since the last release."
    ),
    lambda g: (
        f"The quote of {g.price()} works for us as long as delivery is before the end of "
        f"{g.r.choice(_MONTHS)}. Could you confirm the lead time in writing?"
    ),
    lambda g: (
        f"I have opened {g.ticket()} for the printer problem. The driver log shows build "
        f"{g.semver()} and request {g.uuid()}, in case that helps."
    ),
    lambda g: (
        "Apologies for the slow reply, the end of the quarter has been hectic here. I should have "
        "more time to look at the proposal next week."
    ),
    lambda g: (
        f"Tracking shows {g.tracking()} was handed to the courier on {g.r.choice(_MONTHS)} "
        f"{g.r.randint(1, 28)}, but it has not been scanned anywhere since."
    ),
    lambda g: (
        f"Attendance for the workshop is at {g.r.randint(12, 80)} so far. We booked the larger "
        f"room on floor {g.r.randint(2, 9)} and ordered lunch for everyone."
    ),
    lambda g: (
        "Could you send over the revised contract when it is ready? Legal would like to read it "
        "before the call rather than during it."
    ),
    lambda g: (
        f"The pallet count on the delivery note says {g.r.randint(4, 30)}, but the driver only "
        f"unloaded {g.r.randint(2, 3)}. Reference {g.order_no()} if you raise it with the carrier."
    ),
    lambda g: (
        "I have looped in our IT people, since the portal keeps logging us out after a few "
        "minutes. It started after the maintenance window on Sunday night."
    ),
    lambda g: (
        f"As discussed on the call, we will move the go-live to {g.r.choice(_MONTHS)} and keep "
        "the current system running in parallel for two weeks."
    ),
    lambda g: (
        f"The dashboard still reports {g.r.randint(100, 9000)} open items, although most were "
        f"closed in batch {g.digits(6)} yesterday. Is the count cached somewhere?"
    ),
    lambda g: (
        f"Our auditors want the access logs for {g.r.choice(_MONTHS)}. The export job "
        f"{g.uuid()} failed twice with a timeout after {g.r.randint(30, 300)} seconds."
    ),
    lambda g: (
        "Happy to jump on a call if that is quicker. Otherwise I will wait for your written "
        "answer and pass it on to the board."
    ),
)


def _paragraphs(g: _Dense, size: int) -> list[str]:
    """Paragraphs of about ``size`` characters in all, none twice; ``g.pii`` of them hold a value."""
    unused = [list(_MAIL_PLAIN), list(_MAIL_VALUE)]
    out: list[str] = []
    while sum(len(p) + 2 for p in out) < size:
        pool = unused[1] if g.has_pii() and unused[1] else unused[0] or unused[1]
        if not pool:
            break
        write = pool.pop(g.r.randrange(len(pool)))
        out.append(write(g))
    return out


def _signature(g: _Dense, name: str) -> str:
    r = g.r
    title = r.choice(("Account Manager", "Operations Lead", "Customer Success", "Head of Procurement"))
    lines = [name, f"{title} | {r.choice(_COMPANIES)}"]
    contact = r.choice(
        (
            lambda: f"T: {g.v(g.tel())} | E: {g.v(g.mail(name))}",
            lambda: f"Mobile {g.v(g.tel())}",
            lambda: g.v(g.mail(name)),
        )
    )
    lines.append(contact())
    if r.random() < 0.4:
        lines.append("This message and any attachment are confidential. If you got it by mistake, delete it.")
    return "\n".join(lines)


def _quoted(g: _Dense, size: int) -> str:
    """An earlier message of the thread, quoted below the reply with its header line."""
    r = g.r
    name = g.v(g.person())
    when = f"{r.choice(('Mon', 'Tue', 'Wed', 'Thu', 'Fri'))}, {r.randint(1, 28)} {r.choice(_MONTHS)} 2025"
    address = g.v(g.mail(name))
    if r.random() < 0.5:
        head = f"On {when} at {r.randint(8, 18)}:{r.randint(10, 59)}, {name} <{address}> wrote:"
    else:
        topic = r.choice(("renewal", "delivery", "invoice query", "access request"))
        head = f"-----Original Message-----\nFrom: {name} <{address}>\nSent: {when}\nSubject: RE: {topic}"
    quoted = "\n>\n".join("> " + p for p in _paragraphs(g, size))
    return f"{head}\n{quoted}\n> {name.split()[0]}"


def _greeting(g: _Dense) -> str:
    pick = g.r.randrange(4)
    if pick == 0:
        return f"Hi {g.v(g.given())},"
    if pick == 1:
        return f"Dear {g.r.choice(('Ms', 'Mr', 'Dr'))} {g.v(g.r.choice(_FAMILY))},"
    return g.r.choice(("Hello team,", "Good morning,", "Hi all,"))


def email_prose_samples(n: int, seed: int = 0, *, size: int = 2_000, pii: float = 0.35) -> list[Sample]:
    """``n`` e-mails of about ``size`` bytes: a greeting, paragraphs of prose (``pii`` of them
    with a value), a signature with a phone number or address, and often a quoted earlier
    message. Every mail holds a value: at least the sender's name."""
    g = _Dense(seed, pii)
    out = []
    for _ in range(n):
        r = g.r
        sender = g.v(g.person())
        greeting = _greeting(g)
        closing = r.choice(("Best regards", "Kind regards", "Thanks", "Cheers", "Many thanks"))
        sign = f"{closing},\n{_signature(g, sender)}"
        quote = _quoted(g, r.randint(size // 6, size // 3)) if r.random() < 0.7 else ""
        body = _paragraphs(g, size - len(greeting) - len(sign) - len(quote) - 60)
        text = "\n\n".join([greeting, *body, sign, *([quote] if quote else [])])
        out.append(Sample(text, g.took()))
    return out


def email_prose(n: int, seed: int = 0, *, size: int = 2_000) -> list[str]:
    """The texts of ``email_prose_samples``."""
    return [s.text for s in email_prose_samples(n, seed, size=size)]


def dense_mixed(n: int, seed: int = 0) -> list[str]:
    """``n`` messages: dense chat and log lines with a 2 KB e-mail as every tenth message
    (about half of the bytes are mail)."""
    lines = iter(dense_lines(n - n // 10, seed))
    mails = iter(email_prose(n // 10, seed + 1))
    return [next(mails) if i % 10 == 9 else next(lines) for i in range(n)]


def block(size: int, seed: int = 0, *, pii: float = 0.48) -> str:
    """One message of ``size`` characters made of dense lines, one after another (``pii``
    0.48: dense; 0.05: sparse), for the cost of a message as it grows."""
    g = _Dense(seed, pii)
    lines: list[str] = []
    total = 0
    while total < size:
        lines.append(_dense_line(g))
        total += len(lines[-1]) + 1
    return "\n".join(lines)[:size]


# ---------------------------------------------------------------------------- statistics
def describe(samples: Sequence[Sample]) -> str:
    """Share of messages that hold a value, values per message, and their size in bytes."""
    sizes = [len(s.text.encode("utf-8")) for s in samples]
    holding = sum(1 for s in samples if s.values) / len(samples)
    values = sum(len(s.values) for s in samples) / len(samples)
    return (
        f"{len(samples)} msgs, {holding:.0%} with a value, {values:.2f} values/msg, mean "
        f"{statistics.fmean(sizes):.0f} B (median {statistics.median(sizes):.0f}, {min(sizes)}..{max(sizes)})"
    )


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m load.traffic", description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=20_000, help="chat/log lines (e-mails: n / 10)")
    ap.add_argument("--show", type=int, default=0, help="also print this many messages of each stream")
    a = ap.parse_args(argv)
    for name, samples in (
        ("dense chat/log", dense_samples(a.n, seed=1)),
        ("e-mail prose 2 KB", email_prose_samples(max(1, a.n // 10), seed=2)),
    ):
        print(f"{name}: {describe(samples)}")
        for s in samples[: a.show]:
            print(f"  {s.text!r}\n    values: {list(s.values)}")
    sizes = [len(t.encode("utf-8")) for t in dense_mixed(a.n, seed=3)]
    print(f"dense mixed, every tenth an e-mail: {len(sizes)} msgs, mean {statistics.fmean(sizes):.0f} B")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
