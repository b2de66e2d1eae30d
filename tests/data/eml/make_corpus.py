"""Writes the generated test messages in generated/ and malformed/ (run it after changing it).

    .venv/bin/python tests/data/eml/make_corpus.py

Every value is fake: example.com/.org addresses, 555 phone numbers, SSNs and card numbers that
test suites use. Output is deterministic (fixed dates, ids and boundaries).
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from email.message import EmailMessage, Message
from email.policy import SMTP
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATE = "Tue, 03 Mar 2026 10:15:00 +0000"
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)
PDF = b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n" + bytes(range(256))
BODY = (
    "Hi team,\n\n"
    "Please call Jane Roe on 415-555-0142 or mail jane.roe@example.com.\n"
    "Her SSN is 123-45-6789 and the card on file is 4111 1111 1111 1111.\n"
    "She lives at 1600 Amphitheatre Parkway, Mountain View, CA 94043.\n\n"
    "Thanks,\nSam\n"
)
GENERATED: dict[str, Callable[[], bytes]] = {}
MALFORMED: dict[str, Callable[[], bytes]] = {}


Maker = Callable[[], bytes]


def message(name: str, table: dict[str, Maker] = GENERATED) -> Callable[[Maker], Maker]:
    def register(fn: Callable[[], bytes]) -> Callable[[], bytes]:
        table[name] = fn
        return fn

    return register


def base(subject: str, n: int) -> EmailMessage:
    msg = EmailMessage(policy=SMTP)
    msg["From"] = "Sam Sender <sam@example.com>"
    msg["To"] = "Support <support@example.org>"
    msg["Subject"] = subject
    msg["Date"] = DATE
    msg["Message-ID"] = f"<corpus-{n:02d}@example.com>"
    return msg


def fixed_boundaries(msg: Message, prefix: str = "b") -> bytes:
    for i, part in enumerate(msg.walk()):
        if part.is_multipart():
            part.set_boundary(f"=={prefix}{i}==")
    return msg.as_bytes(policy=SMTP)


def raw(*lines: str, body: bytes = b"") -> bytes:
    return ("\r\n".join(lines) + "\r\n\r\n").encode("ascii") + body


@message("01-plain-ascii.eml")
def plain_ascii() -> bytes:
    msg = base("Callback for Jane", 1)
    msg.set_content(BODY, cte="7bit")
    return msg.as_bytes()


@message("02-quoted-reply-signature.eml")
def quoted_reply() -> bytes:
    msg = base("Re: your order", 2)
    msg["In-Reply-To"] = "<order-1@example.org>"
    quoted = "".join("> " + line + "\n" for line in BODY.splitlines())
    msg.set_content(
        "Thanks, noted.\n\nOn Mon, Jane Roe <jane.roe@example.com> wrote:\n"
        + quoted
        + "\n-- \nSam Sender | Support lead\nPhone +1 (212) 555-0199 | sam@example.com\n",
        cte="7bit",
    )
    return msg.as_bytes()


@message("03-latin1-quoted-printable.eml")
def latin1_qp() -> bytes:
    msg = base("Grüße", 3)
    msg.set_content(
        "Hallo Jörg Müller,\nbitte rufen Sie 030 5550123 an oder schreiben Sie an joerg.mueller@example.de.\n"
        "IBAN: DE89 3704 0044 0532 0130 00\n",
        charset="iso-8859-1",
        cte="quoted-printable",
    )
    return msg.as_bytes()


@message("04-cp1252-8bit.eml")
def cp1252_8bit() -> bytes:
    return raw(
        "From: sam@example.com",
        "To: support@example.org",
        "Subject: refund",
        f"Date: {DATE}",
        "Message-ID: <corpus-04@example.com>",
        "MIME-Version: 1.0",
        "Content-Type: text/plain; charset=windows-1252",
        "Content-Transfer-Encoding: 8bit",
        body="Refund of 50 \u20ac to \u201cJane Roe\u201d, jane.roe@example.com.\r\n".encode("cp1252"),
    )


@message("05-utf8-base64.eml")
def utf8_base64() -> bytes:
    msg = base("base64 body", 5)
    msg.set_content("Ünïcödé text: call 415-555-0142, mail zoë@example.com, SSN 123-45-6789.\n", cte="base64")
    return msg.as_bytes()


@message("06-shift-jis.eml")
def shift_jis() -> bytes:
    msg = base("予約", 6)
    msg.set_content(
        "山田太郎様\nメール: taro.yamada@example.jp 電話: 415-555-0142\n", charset="shift_jis", cte="base64"
    )
    return msg.as_bytes()


@message("07-koi8-r.eml")
def koi8r() -> bytes:
    msg = base("Заказ", 7)
    msg.set_content(
        "Иван Петров, ivan.petrov@example.ru, тел. 415-555-0142\n", charset="koi8-r", cte="quoted-printable"
    )
    return msg.as_bytes()


@message("08-encoded-subject.eml")
def encoded_subject() -> bytes:
    return raw(
        "From: sam@example.com",
        "To: support@example.org",
        "Subject: =?utf-8?b?UsO8Y2tydWYgdm9uIGphbmUucm9lQGV4YW1wbGUuY29t?=",
        " =?iso-8859-1?q?_Tel=2E_415-555-0142?=",
        f"Date: {DATE}",
        "Message-ID: <corpus-08@example.com>",
        "MIME-Version: 1.0",
        "Content-Type: text/plain; charset=us-ascii",
        body=b"See subject.\r\n",
    )


@message("09-smtputf8-raw-headers.eml")
def smtputf8() -> bytes:
    head = (
        "From: Zoë <zoë@example.com>\r\nTo: support@example.org\r\nSubject: Grüße von zoë@example.com\r\n"
        f"Date: {DATE}\r\nMessage-ID: <corpus-09@example.com>\r\nMIME-Version: 1.0\r\n"
        "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n"
    )
    return (head + "Ruf mich an: 415-555-0142.\r\n").encode("utf-8")


@message("10-alternative.eml")
def alternative() -> bytes:
    msg = base("Alternative", 10)
    msg.set_content(BODY)
    msg.add_alternative(
        "<html><body><p>Please call <b>415-555-0142</b> or mail "
        '<a href="mailto:jane.roe@example.com">jane.roe@example.com</a>.</p>'
        "<p>SSN 123-45-6789</p></body></html>\n",
        subtype="html",
    )
    return fixed_boundaries(msg)


@message("11-html-entities-links.eml")
def html_links() -> bytes:
    msg = base("HTML", 11)
    msg.set_content(
        "<!DOCTYPE html>\n<html><head><title>Ticket for Jane</title>\n"
        "<style>p { color: #555; } .x { margin: 415px; }</style>\n"
        "<script>var t = '123-45-6789';</script></head>\n"
        "<body><p>Mail jane&#46;roe&#64;example&#46;com &amp; call <a href='tel:+14155550142'>us</a>.</p>\n"
        "<!-- internal note: 123-45-6789 -->\n"
        '<p><a href="mailto:jane.roe@example.com?subject=Hi%20there">Write</a> &nbsp; bye</p>\n'
        "</body></html>\n",
        subtype="html",
        cte="quoted-printable",
    )
    return msg.as_bytes()


@message("12-nested-related-attachments.eml")
def nested() -> bytes:
    msg = base("Nested", 12)
    msg.set_content(BODY)
    msg.add_alternative(
        '<html><body><p>Call 415-555-0142</p><img src="cid:logo@example.com"></body></html>\n', subtype="html"
    )
    html_part = msg.get_payload()[1]
    html_part.add_related(PNG, maintype="image", subtype="png", cid="<logo@example.com>")
    msg.add_attachment(PDF, maintype="application", subtype="pdf", filename="invoice.pdf")
    return fixed_boundaries(msg)


@message("13-attachment-csv-base64.eml")
def csv_b64() -> bytes:
    msg = base("Customer list", 13)
    msg.set_content("List attached.\n")
    msg.add_attachment(
        "name,email,phone\nJane Roe,jane.roe@example.com,415-555-0142\n"
        "John Doe,john.doe@example.com,212-555-0199\n",
        subtype="csv",
        filename="people.csv",
        cte="base64",
    )
    return fixed_boundaries(msg)


@message("14-attachment-octet-stream-csv.eml")
def csv_octet() -> bytes:
    msg = base("Export", 14)
    msg.set_content("Export attached.\n")
    msg.add_attachment(
        b"id;email\n1;jane.roe@example.com\n2;john.doe@example.com\n",
        maintype="application",
        subtype="octet-stream",
        filename="export.csv",
    )
    return fixed_boundaries(msg)


@message("15-attachment-log-qp.eml")
def log_qp() -> bytes:
    msg = base("Logs", 15)
    msg.set_content("Logs attached.\n")
    msg.add_attachment(
        "2026-03-03T10:00:00Z login ok user=jane.roe@example.com ip=203.0.113.7\n"
        "2026-03-03T10:01:00Z password reset sent to jane.roe@example.com\n",
        subtype="x-log",
        filename="app.log",
        cte="quoted-printable",
    )
    return fixed_boundaries(msg)


@message("16-binary-attachments.eml")
def binary() -> bytes:
    msg = base("Binary", 16)
    msg.set_content("Two attachments.\n")
    msg.add_attachment(PDF, maintype="application", subtype="pdf", filename="report.pdf")
    msg.add_attachment(PNG, maintype="image", subtype="png", filename="pixel.png")
    return fixed_boundaries(msg)


@message("17-forwarded-rfc822.eml")
def forwarded() -> bytes:
    inner = base("Original: call jane.roe@example.com", 170)
    inner.set_content(BODY)
    msg = base("Fwd: Original", 17)
    msg.set_content("Forwarding the message below.\n")
    msg.add_attachment(inner)
    return fixed_boundaries(msg)


@message("18-calendar.eml")
def calendar() -> bytes:
    msg = base("Invitation", 18)
    msg.set_content("Invitation attached.\n")
    msg.add_alternative(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nSUMMARY:Call with Jane\r\n"
        "ORGANIZER:mailto:sam@example.com\r\nATTENDEE;CN=Jane Roe:mailto:jane.roe@example.com\r\n"
        "DTSTART:20260310T150000Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
        subtype="calendar",
        params={"method": "REQUEST"},
    )
    return fixed_boundaries(msg)


@message("19-format-flowed.eml")
def flowed() -> bytes:
    return raw(
        "From: sam@example.com",
        "To: support@example.org",
        "Subject: flowed",
        f"Date: {DATE}",
        "Message-ID: <corpus-19@example.com>",
        "MIME-Version: 1.0",
        "Content-Type: text/plain; charset=utf-8; format=flowed; delsp=yes",
        "Content-Transfer-Encoding: 7bit",
        body=b"This is a long paragraph that the sender's client wrapped, with an address \r\n"
        b"jane.roe@example.com in the middle of it and a phone number 415-555-0142 \r\n"
        b"near the end.\r\n",
    )


@message("20-long-line-grows.eml")
def long_line() -> bytes:
    # A 7bit line just under 998 octets full of short addresses: the labels make it longer.
    line = " ".join(f"a{i}@ex.io" for i in range(99))[:990]
    return raw(
        "From: sam@example.com",
        "To: support@example.org",
        "Subject: long line",
        f"Date: {DATE}",
        "Message-ID: <corpus-20@example.com>",
        "MIME-Version: 1.0",
        "Content-Type: text/plain; charset=us-ascii",
        body=(line + "\r\n").encode("ascii"),
    )


@message("21-delivery-status.eml")
def dsn() -> bytes:
    return raw(
        "From: MAILER-DAEMON@example.org",
        "To: sam@example.com",
        "Subject: Undelivered Mail Returned to Sender",
        f"Date: {DATE}",
        "Message-ID: <corpus-21@example.org>",
        "MIME-Version: 1.0",
        'Content-Type: multipart/report; report-type=delivery-status; boundary="dsn"',
        body=b"--dsn\r\nContent-Type: text/plain\r\n\r\n"
        b"Your message to <jane.roe@example.com> could not be delivered.\r\n"
        b"--dsn\r\nContent-Type: message/delivery-status\r\n\r\n"
        b"Reporting-MTA: dns; mx.example.org\r\n\r\n"
        b"Final-Recipient: rfc822; jane.roe@example.com\r\nAction: failed\r\nStatus: 5.1.1\r\n\r\n"
        b"--dsn\r\nContent-Type: text/rfc822-headers\r\n\r\n"
        b"From: sam@example.com\r\nTo: jane.roe@example.com\r\nSubject: hello\r\n\r\n"
        b"--dsn--\r\n",
    )


@message("22-smime-signed.eml")
def signed() -> bytes:
    return raw(
        "From: sam@example.com",
        "To: support@example.org",
        "Subject: signed",
        f"Date: {DATE}",
        "Message-ID: <corpus-22@example.com>",
        "MIME-Version: 1.0",
        'Content-Type: multipart/signed; protocol="application/pkcs7-signature"; micalg=sha-256;',
        ' boundary="sig"',
        body=b"This is a cryptographically signed message in MIME format.\r\n\r\n"
        b"--sig\r\nContent-Type: text/plain; charset=us-ascii\r\n\r\n"
        b"Signed text: call 415-555-0142.\r\n"
        b"--sig\r\nContent-Type: application/pkcs7-signature; name=smime.p7s\r\n"
        b"Content-Transfer-Encoding: base64\r\nContent-Disposition: attachment; filename=smime.p7s\r\n\r\n"
        + base64.encodebytes(bytes(range(200))).replace(b"\n", b"\r\n")
        + b"\r\n--sig--\r\n",
    )


@message("23-headers-only.eml")
def headers_only() -> bytes:
    return raw(
        "From: sam@example.com",
        "To: support@example.org",
        "Subject: nothing but jane.roe@example.com",
        f"Date: {DATE}",
        "Message-ID: <corpus-23@example.com>",
    )


@message("24-no-mime-8bit.eml")
def no_mime() -> bytes:
    return raw(
        "From: sam@example.com",
        "To: support@example.org",
        "Subject: no MIME headers",
        f"Date: {DATE}",
        "Message-ID: <corpus-24@example.com>",
        body="Café owner Zoë: zoe@example.com, 415-555-0142.\r\n".encode(),
    )


@message("25-preamble-epilogue.eml")
def preamble() -> bytes:
    return raw(
        "From: sam@example.com",
        "To: support@example.org",
        "Subject: preamble",
        f"Date: {DATE}",
        "Message-ID: <corpus-25@example.com>",
        "MIME-Version: 1.0",
        'Content-Type: multipart/mixed; boundary="pp"',
        body=b"Preamble: if you can read this, mail jane.roe@example.com.\r\n"
        b"--pp\r\nContent-Type: text/plain\r\n\r\nBody.\r\n--pp--\r\n"
        b"Epilogue: SSN 123-45-6789.\r\n",
    )


@message("26-swaks-style-attachment.eml")
def swaks_style() -> bytes:
    return raw(
        "Date: " + DATE,
        "To: r@example.com",
        "From: s@example.com",
        "Subject: PII test",
        "Message-Id: <corpus-26@example.com>",
        "X-Mailer: swaks v20201014.0 jetmore.org/john/code/swaks/",
        "MIME-Version: 1.0",
        'Content-Type: multipart/mixed; boundary="----=_MIME_BOUNDARY_000_1"',
        body=b"------=_MIME_BOUNDARY_000_1\r\nContent-Type: text/plain\r\n\r\n"
        b"Call me, SSN 123-45-6789\r\n"
        b'------=_MIME_BOUNDARY_000_1\r\nContent-Type: text/csv; name="people.csv"\r\n'
        b'Content-Description: people.csv\r\nContent-Disposition: attachment; filename="people.csv"\r\n'
        b"Content-Transfer-Encoding: BASE64\r\n\r\n"
        + base64.encodebytes(b"name,email\nJane Roe,jane.roe@example.com\n").replace(b"\n", b"\r\n")
        + b"\r\n------=_MIME_BOUNDARY_000_1--\r\n",
    )


# --------------------------------------------------------------------------- malformed
def broken(*lines: str, body: bytes) -> bytes:
    return raw(
        "From: sam@example.com",
        "To: support@example.org",
        "Subject: broken",
        "MIME-Version: 1.0",
        *lines,
        body=body,
    )


@message("missing-boundary.eml", MALFORMED)
def missing_boundary() -> bytes:
    return broken(
        "Content-Type: multipart/mixed",
        body=b"--x\r\nContent-Type: text/plain\r\n\r\nSSN 123-45-6789\r\n--x--\r\n",
    )


@message("wrong-boundary.eml", MALFORMED)
def wrong_boundary() -> bytes:
    return broken(
        'Content-Type: multipart/mixed; boundary="y"',
        body=b"--x\r\nContent-Type: text/plain\r\nContent-Transfer-Encoding: base64\r\n\r\n"
        b"U1NOIDEyMy00NS02Nzg5\r\n--x--\r\n",
    )


@message("broken-base64.eml", MALFORMED)
def broken_base64() -> bytes:
    return broken(
        "Content-Type: text/plain",
        "Content-Transfer-Encoding: base64",
        body=b"U1NOIDEyMy00NS02Nzg5!!*\r\n",
    )


@message("truncated-base64.eml", MALFORMED)
def truncated() -> bytes:
    full = base64.encodebytes(BODY.encode()).replace(b"\n", b"\r\n")
    return broken(
        'Content-Type: multipart/mixed; boundary="t"',
        body=b"--t\r\nContent-Type: text/plain\r\nContent-Transfer-Encoding: base64\r\n\r\n" + full[:101],
    )


@message("truncated-multipart.eml", MALFORMED)
def truncated_multipart() -> bytes:
    return broken(
        'Content-Type: multipart/mixed; boundary="t"',
        body=b"--t\r\nContent-Type: text/plain\r\n\r\n"
        b"Call 415-555-0142 about SSN 123-45-6789, the rest was cut off",
    )


@message("unknown-transfer-encoding.eml", MALFORMED)
def unknown_cte() -> bytes:
    return broken(
        "Content-Type: text/plain",
        "Content-Transfer-Encoding: x-rot13",
        body=b"FFA 123-45-6789\r\n",
    )


@message("deep-nesting.eml", MALFORMED)
def deep() -> bytes:
    depth = 80
    parts = [f'--n{i}\r\nContent-Type: multipart/mixed; boundary="n{i + 1}"\r\n\r\n' for i in range(depth)]
    parts.append(f"--n{depth}\r\nContent-Type: text/plain\r\n\r\nSSN 123-45-6789\r\n")
    parts.extend(f"--n{i}--\r\n" for i in reversed(range(depth + 1)))
    return broken('Content-Type: multipart/mixed; boundary="n0"', body="".join(parts).encode())


@message("no-header-body-separator.eml", MALFORMED)
def no_separator() -> bytes:
    return b"Subject: hi\r\nthis line is not a header: SSN 123-45-6789\r\nnor this one\r\n"


def main() -> None:
    for sub, table in (("generated", GENERATED), ("malformed", MALFORMED)):
        out = HERE / sub
        out.mkdir(exist_ok=True)
        for name, make in table.items():
            (out / name).write_bytes(make())
        print(f"{len(table)} messages in {out}")


if __name__ == "__main__":
    main()
