"""Writes realworld/: messages shaped like the mail that real clients send and receive but that
breaks the rules (run it after changing it).

    .venv/bin/python tests/data/eml/make_realworld.py

Every message is written here, by hand, for this project; none is copied from anywhere. Each
carries the fake values in PLANTED somewhere a reader would see them, and the relay must deliver
every one of them scrubbed (tests/unit/test_mime_realworld.py). The shapes, after what mail
relays meet in the wild: multipart bodies without (the right) boundary, delivery reports with
broken fields, misspelt or unknown transfer encodings, base64 that does not decode cleanly, UTF-16
that does not decode, and uuencoded text.
"""

from __future__ import annotations

import base64
import binascii
from pathlib import Path

HERE = Path(__file__).resolve().parent / "realworld"
PLANTED = ("123-45-6789", "jane.roe@example.com", "415-555-0142", "4111 1111 1111 1111")
SSN, EMAIL, PHONE, CARD = PLANTED
HEAD = (
    "From: Sam Sender <sam@example.com>\n"
    "To: Support <support@example.org>\n"
    "Date: Tue, 03 Mar 2026 10:15:00 +0000\n"
    "MIME-Version: 1.0\n"
)
BODY = f"Please call Jane on {PHONE} or write to {EMAIL}.\nHer SSN is {SSN}, card {CARD}.\n"
MESSAGES: dict[str, bytes] = {}


def add(name: str, text: str | bytes, crlf: bool = False) -> None:
    data = text.encode("utf-8", "surrogateescape") if isinstance(text, str) else text
    if crlf:
        data = data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    MESSAGES[name] = data


def head(subject: str, ctype: str, extra: str = "") -> str:
    return f"{HEAD}Subject: {subject}\nContent-Type: {ctype}\n{extra}\n"


def b64(data: bytes) -> str:
    return base64.encodebytes(data).decode("ascii")


def uu(data: bytes, name: str, mode: str = "644") -> str:
    lines = [f"begin {mode} {name}"]
    lines += [binascii.b2a_uu(data[i : i + 45]).decode("ascii").rstrip("\n") for i in range(0, len(data), 45)]
    return "\n".join([*lines, "`", "end", ""])


TEXT_PART = f"Content-Type: text/plain; charset=utf-8\n\n{BODY}"
HTML_PART = f"Content-Type: text/html; charset=utf-8\n\n<p>Call <b>{PHONE}</b>, mail {EMAIL}, SSN {SSN}</p>\n"
B64_PART = (
    f"Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64\n\n{b64(BODY.encode())}"
)

# ---------------------------------------------------------------- A: multipart without its boundary
add("a01-mixed-no-boundary-param.eml", head("no boundary", "multipart/mixed") + BODY)
add("a02-alternative-no-boundary-html.eml", head("no boundary", "multipart/alternative") + f"<p>{BODY}</p>\n")
add(
    "a03-other-boundary-in-body.eml",
    head("wrong boundary", 'multipart/mixed; boundary="declared-one"')
    + f"--used-one\n{TEXT_PART}--used-one\n{B64_PART}--used-one--\n",
)
add("a04-boundary-never-used.eml", head("unused boundary", 'multipart/mixed; boundary="zz"') + BODY)
add("a05-empty-boundary.eml", head("empty boundary", 'multipart/mixed; boundary=""') + BODY)
add(
    "a06-nested-part-without-boundary.eml",
    head("nested", 'multipart/mixed; boundary="outer"')
    + f"--outer\n{TEXT_PART}--outer\nContent-Type: multipart/alternative\n\n{BODY}--outer--\n",
)
add("a07-report-without-boundary.eml", head("report", "multipart/report; report-type=delivery-status") + BODY)
add(
    "a08-signed-without-boundary.eml",
    head("signed", 'multipart/signed; protocol="application/pgp-signature"') + BODY,
)
add("a09-mixed-no-boundary-crlf.eml", head("crlf", "multipart/mixed") + BODY, crlf=True)
add(
    "a10-unterminated-quote.eml",
    head("quote", 'multipart/mixed; boundary="half-quoted') + f'--"half-quoted\n{TEXT_PART}\n',
)
add("a11-only-close-delimiter.eml", head("close only", 'multipart/mixed; boundary="b"') + BODY + "--b--\n")
add(
    "a12-boundary-case-differs.eml",
    head("case", 'multipart/alternative; boundary="MiXeD"')
    + f"--mixed\n{TEXT_PART}--mixed\n{HTML_PART}--mixed--\n",
)
add(
    "a13-related-no-boundary-html.eml",
    head("related", 'multipart/related; type="text/html"') + f"<html><body>{BODY}</body></html>\n",
)

# ---------------------------------------------------------------- B: delivery reports with broken fields
REPORT = 'multipart/report; report-type=delivery-status; boundary="rpt"'
NOTE = f"--rpt\nContent-Type: text/plain\n\nYour message to {EMAIL} could not be delivered.\n"


def report(
    name: str, fields: str | bytes, ctype: str = "message/delivery-status", crlf: bool = False
) -> None:
    start = (
        head("Undelivered Mail Returned to Sender", REPORT) + NOTE + f"--rpt\nContent-Type: {ctype}\n\n"
    ).encode()
    end = (
        f"\n--rpt\nContent-Type: text/rfc822-headers\n\nTo: {EMAIL}\nSubject: SSN {SSN}\n\n--rpt--\n"
    ).encode()
    add(name, start + (fields.encode() if isinstance(fields, str) else fields) + end, crlf)


PER_MESSAGE = "Reporting-MTA: dns; mx.example.org\nArrival-Date: Tue, 03 Mar 2026 10:15:00 +0000\n\n"
report(
    "b01-garbage-line.eml",
    PER_MESSAGE + f"Final-Recipient: rfc822; {EMAIL}\nthis line is no field {PHONE}\nAction: failed\n",
)
report(
    "b02-field-without-colon.eml",
    PER_MESSAGE + f"Final-Recipient rfc822 {EMAIL}\nAction: failed\nStatus: 5.1.1\n",
)
report(
    "b03-latin1-diagnostic.eml",
    PER_MESSAGE.encode()
    + f"Final-Recipient: rfc822; {EMAIL}\nAction: failed\n".encode()
    + f"Diagnostic-Code: smtp; 550 Empf\xe4nger {EMAIL} unbekannt, Tel {PHONE}\n".encode("latin-1"),
)
report("b04-continuation-first.eml", PER_MESSAGE + f"  continued {EMAIL}\nFinal-Recipient: rfc822; {EMAIL}\n")
report(
    "b05-no-blank-line-then-prose.eml",
    "Reporting-MTA: dns; mx.example.org\n"
    + f"Final-Recipient: rfc822; {EMAIL}\nAction: failed\n\n"
    + f"The mailbox of Jane (SSN {SSN}) is full.\nCall {PHONE}.\n",
)
report("b06-empty-field-names.eml", PER_MESSAGE + f": {EMAIL}\nX-: {PHONE}\nAction: failed\n")
report("b07-crlf-and-trailing-dashes.eml", PER_MESSAGE + f"Final-Recipient: rfc822; {EMAIL}\n--\n", crlf=True)
report(
    "b08-disposition-notification.eml",
    f"Reporting-UA: mail.example.org\nFinal-Recipient: rfc822; {EMAIL}\n"
    f"the message was displayed to {PHONE}\n",
    ctype="message/disposition-notification",
)
report(
    "b09-tab-after-blank-line.eml",
    PER_MESSAGE + f"Final-Recipient: rfc822; {EMAIL}\n\n\tDiagnostic text for {EMAIL}, SSN {SSN}\n",
)
report("b10-only-prose.eml", f"Sorry, we could not deliver to {EMAIL}; her phone is {PHONE}.\n")
report(
    "b11-8bit-utf8-and-long-line.eml",
    PER_MESSAGE
    + f"Final-Recipient: rfc822; {EMAIL}\nDiagnostic-Code: smtp; 550 Zoë "
    + "x" * 1200
    + f" {SSN}\n",
)


def _slug(cte: str) -> str:
    return "".join(c if c.isalnum() or c == "-" else "_" for c in cte.strip()).strip("_") or "empty"


# ---------------------------------------------------------------- C: misspelt or unknown transfer encodings
QP_BODY = f"Please call Jane on {PHONE} or write to=20\n{EMAIL}.=\n Her SSN is 123-45-=\n6789, card {CARD}.\n"
for n, (cte, body) in enumerate(
    [
        ("7-bit", BODY),
        ("8bits", BODY),
        ("quoted printable", QP_BODY),
        ("quoted-printable;", QP_BODY),
        ("plain", BODY),
        ("6bit", BODY),
        ("text/plain", BODY),
        ("Quoted-Printable ", QP_BODY),
        ("8 bit", BODY),
        ("base-64", b64(BODY.encode())),
        ("BASE64 (the body)", b64(BODY.encode())),
        ("x-token", BODY),
        ('"7bit"', BODY),
        ("", BODY),
    ],
    start=1,
):
    add(
        f"c{n:02d}-cte-{_slug(cte)}.eml",
        head(f"cte {cte}", "text/plain; charset=utf-8", f"Content-Transfer-Encoding: {cte}\n") + body,
    )

# ---------------------------------------------------------------- D: base64 that does not decode cleanly
GOOD = b64(BODY.encode())
D_SHAPES = {
    "d01-bad-characters.eml": GOOD.replace("\n", "*\n", 1),
    "d02-missing-padding.eml": base64.b64encode(BODY.encode()).decode().rstrip("=") + "\n",
    "d03-extra-padding.eml": GOOD.rstrip("\n") + "===\n",
    "d04-plain-line-among-base64.eml": GOOD.replace("\n", f"\nsee {EMAIL}\n", 1),
    "d05-truncated-quantum.eml": base64.b64encode(BODY.encode()).decode()[:-3] + "\n",
    "d06-spaces-inside.eml": " ".join(GOOD[i : i + 8] for i in range(0, len(GOOD), 8)),
    "d07-underscore-urlsafe.eml": base64.urlsafe_b64encode(("ü?>" * 3 + BODY).encode()).decode() + "\n",
    "d08-padding-in-the-middle.eml": base64.b64encode(BODY[:10].encode()).decode()
    + "\n"
    + base64.b64encode(BODY[10:].encode()).decode()
    + "\n",
}
for name, body in D_SHAPES.items():
    add(name, head("base64", "text/plain; charset=utf-8", "Content-Transfer-Encoding: base64\n") + body)

# ---------------------------------------------------------------- E: UTF-16 that does not decode
UTF16 = BODY.encode("utf-16")
for name, raw, charset in [
    ("e01-odd-length.eml", UTF16 + b"\x00", "utf-16"),
    ("e02-lone-surrogate.eml", UTF16 + "\ud800".encode("utf-16-le", "surrogatepass"), "utf-16"),
    ("e03-le-odd-length.eml", BODY.encode("utf-16-le") + b"!", "utf-16le"),
    ("e04-ascii-labelled-utf16.eml", (BODY + ("" if len(BODY) % 2 else "!")).encode(), "utf-16"),
]:
    add(
        name,
        head("utf-16", f"text/plain; charset={charset}", "Content-Transfer-Encoding: base64\n").encode()
        + b64(raw).encode(),
    )

# ---------------------------------------------------------------- F: uuencode
NOTES = f"Notes about Jane\nSSN {SSN}\nphone {PHONE}\nmail {EMAIL}\n".encode()
add(
    "f01-x-uuencode-text.eml",
    head("uu", "text/plain", "Content-Transfer-Encoding: x-uuencode\n") + uu(NOTES, "notes.txt"),
)
add(
    "f02-uuencode-attachment.eml",
    head("uu", 'application/octet-stream; name="notes.txt"', "Content-Transfer-Encoding: uuencode\n")
    + uu(NOTES, "notes.txt"),
)
add(
    "f03-inline-uu-block.eml",
    head("inline uu", "text/plain") + "Here are the notes:\n\n" + uu(NOTES, "notes.txt") + "\nbye\n",
)
add(
    "f04-two-inline-blocks-crlf.eml",
    head("two uu", "text/plain") + uu(NOTES, "a.txt") + "\nand\n" + uu(NOTES, "b.log", "600"),
    crlf=True,
)
add(
    "f05-x-uue-octet-stream.eml",
    head("uue", "application/octet-stream", "Content-Transfer-Encoding: x-uue\n") + uu(NOTES, "n.csv"),
)
add(
    "f06-uuencode-no-backtick-line.eml",
    head("uu", "text/plain", "Content-Transfer-Encoding: x-uuencode\n")
    + uu(NOTES, "notes.txt").replace("`\n", ""),
)


def main() -> None:
    HERE.mkdir(exist_ok=True)
    for old in HERE.glob("*.eml"):
        old.unlink()
    for name, data in MESSAGES.items():
        (HERE / name).write_bytes(data)
    print(f"{len(MESSAGES)} messages in {HERE}")


if __name__ == "__main__":
    main()
