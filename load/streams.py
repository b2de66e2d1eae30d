"""Deterministic message streams for benchmarks and load tests.

Every function takes a count and a seed and returns the same list of strings for the same
arguments, on every machine: chat lines, log lines in several formats, e-mail bodies of a chosen
size, or a mix. ``pii`` is the share of messages that carry personal data (valid card numbers,
SSNs, phone numbers, addresses...); the rest are look-alikes (order numbers, versions,
timestamps, prices) that a detector must leave alone.

    from load import streams
    streams.chat_lines(1000, seed=1)          # ~60-120 characters each
    streams.log_lines(1000, seed=1)           # access log, JSON, key=value, syslog
    streams.email_bodies(10, seed=1, size=20_000)
    streams.mixed(1000, seed=1)               # 45% chat, 30% log, 25% short e-mail
"""

from __future__ import annotations

import random
import string

from stdnum import luhn

__all__ = ["chat_lines", "email_bodies", "log_lines", "mixed"]

_FIRST = ("Maya", "Jonas", "Priya", "Tomás", "Ada", "Kwame", "Lena", "Omar", "Sofia", "Hiro", "Grace")
_LAST = ("Okafor", "Lindqvist", "Raman", "Duarte", "Kowalski", "Brennan", "Ishikawa", "Moreau", "Haddad")
_STREETS = ("Alder Way", "Quarry Rd", "Harbor St", "Linden Ave", "Foxglove Ln", "Mill Creek Dr")
_CITIES = (("Tulsa", "OK"), ("Fresno", "CA"), ("Albany", "NY"), ("Boise", "ID"), ("Dayton", "OH"))
_DOMAINS = ("example.com", "mailbox.org", "corp-mail.net", "univ.edu", "fastpost.io")
_PATHS = ("/api/v2/orders", "/login", "/static/app.js", "/account/profile", "/search?q=shoes", "/healthz")
_AGENTS = ("curl/8.5.0", "Mozilla/5.0 (X11; Linux x86_64)", "okhttp/4.12.0")


class _Gen:
    """Values and filler drawn from one seeded random source."""

    def __init__(self, seed: int, pii: float) -> None:
        self.r = random.Random(seed)
        self.pii = pii

    def has_pii(self) -> bool:
        return self.r.random() < self.pii

    def digits(self, n: int) -> str:
        return "".join(self.r.choice(string.digits) for _ in range(n))

    # ------------------------------------------------------------------ personal data
    def name(self) -> str:
        return f"{self.r.choice(_FIRST)} {self.r.choice(_LAST)}"

    def email(self) -> str:
        first, last = self.r.choice(_FIRST).lower(), self.r.choice(_LAST).lower()
        return f"{first}.{last}{self.r.randint(1, 99)}@{self.r.choice(_DOMAINS)}"

    def card(self) -> str:
        body = self.r.choice(("4", "51", "52", "55", "6011"))
        body += self.digits(15 - len(body))
        number = body + luhn.calc_check_digit(body)
        sep = self.r.choice(("", " ", "-"))
        return sep.join(number[i : i + 4] for i in range(0, 16, 4))

    def ssn(self) -> str:
        area = self.r.randint(1, 665)
        return f"{area:03d}-{self.r.randint(1, 99):02d}-{self.r.randint(1, 9999):04d}"

    def phone(self) -> str:
        area = self.r.choice((212, 312, 415, 503, 617, 713, 919))
        line = f"{self.r.randint(200, 989)}-{self.r.randint(0, 9999):04d}"
        return self.r.choice((f"({area}) {line}", f"{area}-{line}", f"+1 {area}-{line}"))

    def ipv4(self) -> str:
        return ".".join(str(self.r.randint(11, 223)) for _ in range(4))

    def address(self) -> str:
        city, state = self.r.choice(_CITIES)
        return f"{self.r.randint(10, 9999)} {self.r.choice(_STREETS)}, {city}, {state} {self.digits(5)}"

    def dob(self) -> str:
        return f"{self.r.randint(1, 12):02d}/{self.r.randint(1, 28):02d}/{self.r.randint(1940, 2004)}"

    def secret(self) -> str:
        alphabet = string.ascii_letters + string.digits
        return "ghp_" + "".join(self.r.choice(alphabet) for _ in range(36))

    # ------------------------------------------------------------------ look-alikes
    def order(self) -> str:
        return self.r.choice((f"#{self.digits(9)}", f"ORD-{self.digits(7)}", f"INV-{self.digits(6)}"))

    def version(self) -> str:
        return f"{self.r.randint(1, 9)}.{self.r.randint(0, 40)}.{self.r.randint(0, 999)}"

    def price(self) -> str:
        return f"${self.r.randint(1, 999)}.{self.r.randint(0, 99):02d}"

    def timestamp(self) -> str:
        return (
            f"2025-{self.r.randint(1, 12):02d}-{self.r.randint(1, 28):02d}"
            f"T{self.r.randint(0, 23):02d}:{self.r.randint(0, 59):02d}:{self.r.randint(0, 59):02d}Z"
        )

    def uuid(self) -> str:
        h = "".join(self.r.choice("0123456789abcdef") for _ in range(32))
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


# ---------------------------------------------------------------------------- chat
def _chat(g: _Gen) -> str:
    r = g.r
    if g.has_pii():
        return r.choice(
            (
                lambda: f"Customer: my card is {g.card()} and it keeps getting declined",
                lambda: f"Customer: sure, my SSN is {g.ssn()}",
                lambda: f"Customer: you can email me at {g.email()} or call {g.phone()}",
                lambda: f"Customer: please ship it to {g.address()}",
                lambda: f"Customer: I'm {g.name()}, date of birth {g.dob()}",
                lambda: f"Customer: my IP is {g.ipv4()} if that helps",
                lambda: f"Agent: thanks {g.name()}, I have updated the phone to {g.phone()}",
                lambda: f"Customer: oops I pasted my token {g.secret()} by mistake",
            )
        )()
    return r.choice(
        (
            lambda: f"Customer: order {g.order()} still says processing, any news?",
            lambda: f"Agent: the refund of {g.price()} was issued today",
            lambda: f"Customer: the app shows version {g.version()} and crashes on start",
            lambda: "Agent: is there anything else I can help you with today?",
            lambda: f"Customer: I bought {r.randint(2, 9)} items but only {r.randint(1, 2)} arrived",
            lambda: f"Customer: ticket {g.order()} was closed without a reply",
            lambda: "Customer: can I change the delivery window to Thursday afternoon?",
        )
    )()


def chat_lines(n: int, seed: int = 0, *, pii: float = 0.3) -> list[str]:
    """``n`` chat messages of one line each."""
    g = _Gen(seed, pii)
    return [_chat(g) for _ in range(n)]


# ---------------------------------------------------------------------------- logs
def _log(g: _Gen) -> str:
    r = g.r
    fmt = r.randrange(4)
    client = g.ipv4() if g.has_pii() else "127.0.0.1"
    if fmt == 0:
        return (
            f"{client} - - [12/Mar/2025:{r.randint(0, 23):02d}:{r.randint(0, 59):02d}:{r.randint(0, 59):02d} "
            f'+0000] "GET {r.choice(_PATHS)} HTTP/1.1" {r.choice((200, 204, 301, 404, 500))} '
            f'{r.randint(20, 90000)} "-" "{r.choice(_AGENTS)}"'
        )
    if fmt == 1:
        extra = f',"email":"{g.email()}"' if g.has_pii() else f',"order":"{g.order()}"'
        return (
            f'{{"ts":"{g.timestamp()}","level":"info","msg":"request done","trace":"{g.uuid()}",'
            f'"duration_ms":{r.randint(1, 900)}{extra}}}'
        )
    if fmt == 2:
        extra = f"phone={g.phone().replace(' ', '')}" if g.has_pii() else f"version={g.version()}"
        return f"{g.timestamp()} INFO worker={r.randint(1, 16)} job=sync {extra} took={r.randint(1, 999)}ms"
    extra = f"card={g.card()}" if g.has_pii() else f"amount={g.price()}"
    host = f"web-{r.randint(1, 9)} billing[{r.randint(100, 9999)}]"
    return f"Mar 12 10:{r.randint(10, 59)}:{r.randint(10, 59)} {host}: charge {extra}"


def log_lines(n: int, seed: int = 0, *, pii: float = 0.3) -> list[str]:
    """``n`` log lines: access log, JSON, key=value and syslog formats."""
    g = _Gen(seed, pii)
    return [_log(g) for _ in range(n)]


# ---------------------------------------------------------------------------- e-mail
def _paragraph(g: _Gen) -> str:
    r = g.r
    if g.has_pii():
        return r.choice(
            (
                lambda: f"Please update the account for {g.name()}; the new address is {g.address()}.",
                lambda: f"For verification: SSN {g.ssn()}, date of birth {g.dob()}.",
                lambda: f"You can reach me at {g.phone()} or {g.email()} during business hours.",
                lambda: f"The card on file ends the old way; the new one is {g.card()}.",
            )
        )()
    return r.choice(
        (
            lambda: f"Thank you for your order {g.order()}. The invoice of {g.price()} is attached.",
            lambda: f"Version {g.version()} of the app is now available for download.",
            lambda: "Our offices will be closed next Monday. Replies may take a little longer.",
            lambda: f"The shipment left the warehouse on {g.timestamp()[:10]} and should arrive soon.",
            lambda: "We appreciate your patience while we look into this. Kind regards, the support team.",
        )
    )()


def email_bodies(n: int, seed: int = 0, *, size: int = 600, pii: float = 0.3) -> list[str]:
    """``n`` e-mail bodies of exactly ``size`` characters (paragraphs, cut at the end)."""
    g = _Gen(seed, pii)
    out = []
    for _ in range(n):
        parts = ["Hello,"]
        length = len(parts[0])
        while length < size:
            p = _paragraph(g)
            parts.append(p)
            length += len(p) + 2
        out.append("\n\n".join(parts)[:size])
    return out


def mixed(n: int, seed: int = 0, *, pii: float = 0.3) -> list[str]:
    """``n`` messages: about 45% chat lines, 30% log lines, 25% short e-mail bodies."""
    g = _Gen(seed, pii)
    out = []
    for _ in range(n):
        x = g.r.random()
        if x < 0.45:
            out.append(_chat(g))
        elif x < 0.75:
            out.append(_log(g))
        else:
            out.append("\n\n".join(_paragraph(g) for _ in range(g.r.randint(2, 5))))
    return out
