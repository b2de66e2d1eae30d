"""The relay end to end with real clients (smtplib, swaks) and Postfix's smtp-sink upstream."""

from __future__ import annotations

import email
import email.policy
import smtplib
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from aiosmtpd.smtp import SMTP
from smtp_helpers import EML, RelayRunner, find, marker, messages, metric, received, tagged

from scrubber.smtp.delivery import _unstuffed, wire_form
from scrubber.smtp.server import plain_path
from tests.conftest import SmtpSink

GENERATED = sorted((EML / "generated").glob("*.eml"))
PLANTED = ("jane.roe@example.com", "123-45-6789", "415-555-0142")


@pytest.fixture(scope="module")
def relay(start_relay: Callable[..., RelayRunner], smtp_sink: SmtpSink) -> RelayRunner:
    return start_relay(upstream={"port": smtp_sink.port}, scrub_processes=2)


def send(relay: RelayRunner, data: bytes, rcpts: tuple[str, ...] = ("support@example.org",)) -> object:
    with smtplib.SMTP("127.0.0.1", relay.port, timeout=30) as client:
        return client.sendmail("sam@example.com", list(rcpts), data)


def sink_headers(sink: SmtpSink, token: str) -> list[tuple[str, str]]:
    """The headers smtp-sink put in front of the message: the envelope as it reached the sink."""
    msg = find(sink, token)
    return [(k, str(v)) for k, v in msg.items() if k.startswith(("X-Mail-Args", "X-Rcpt-Args"))]


def text_of(msg: email.message.Message) -> str:
    parts = []
    for part in msg.walk():
        if not part.is_multipart() and part.get_content_maintype() == "text":
            parts.append(part.get_content())
    return "\n".join(parts)


def test_swaks_multipart_with_csv_attachment(relay: RelayRunner, smtp_sink: SmtpSink, tmp_path: Path) -> None:
    csv = tmp_path / "people.csv"
    csv.write_text("name,email,phone\nJane Roe,jane.roe@example.com,415-555-0142\n")
    token = marker()
    before = messages("forwarded")
    subprocess.run(
        [
            "swaks", "--server", f"127.0.0.1:{relay.port}", "--from", "sam@example.com",
            "--to", "support@example.org", "--header", f"X-Test-Id: {token}",
            "--header", "Subject: =?utf-8?q?R=C3=BCckruf_415-555-0142?=",
            "--body", "Call me, SSN 123-45-6789, mail jane.roe@example.com",
            "--attach-type", "text/csv", "--attach", str(csv),
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    msg = find(smtp_sink, token)
    body, attachment = (p for p in msg.walk() if not p.is_multipart())
    assert body.get_content().strip() == "Call me, SSN [US_SSN], mail [EMAIL_ADDRESS]"
    assert attachment.get_filename() == "people.csv"
    # the name too: the CSV's "name" column says what the cell is
    assert attachment.get_content() == "name,email,phone\n[PERSON],[EMAIL_ADDRESS],[PHONE_NUMBER]\n"
    assert str(msg["Subject"]) == "Rückruf [PHONE_NUMBER]"
    assert msg["X-Scrubber"] == "level=7; findings=EMAIL_ADDRESS:2,PERSON:1,PHONE_NUMBER:2,US_SSN:1"
    assert messages("forwarded") == before + 1


@pytest.mark.parametrize("path", GENERATED, ids=lambda p: p.stem)
def test_corpus_through_the_relay(path: Path, relay: RelayRunner, smtp_sink: SmtpSink) -> None:
    token = marker()
    original = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
    assert send(relay, tagged(path, token)) == {}
    got = find(smtp_sink, token)
    assert [p.get_content_type() for p in got.walk()] == [p.get_content_type() for p in original.walk()]
    assert got["Message-ID"] == original["Message-ID"]
    if path.stem != "11-html-entities-links":  # its comment and script keep their text, see unit tests
        text = text_of(got) + str(got["Subject"])
        assert not [v for v in PLANTED if v in text]


def test_envelope_passes_unchanged(relay: RelayRunner, smtp_sink: SmtpSink) -> None:
    token = marker()
    rcpts = ("jane.roe@example.com", "John.Doe+tag@Example.ORG")
    with smtplib.SMTP("127.0.0.1", relay.port) as client:
        client.sendmail("Sam.Sender@example.com", list(rcpts), tagged(b"Subject: x\r\n\r\nhi\r\n", token))
    assert sink_headers(smtp_sink, token) == [
        ("X-Mail-Args", "<Sam.Sender@example.com>"),
        ("X-Rcpt-Args", "<jane.roe@example.com>"),
        ("X-Rcpt-Args", "<John.Doe+tag@Example.ORG>"),
    ]


@pytest.mark.parametrize("scrub_processes", [0, 2])
def test_lines_starting_with_a_dot_arrive_intact(
    scrub_processes: int, start_relay: Callable[..., RelayRunner], smtp_sink: SmtpSink
) -> None:
    relay = start_relay(upstream={"port": smtp_sink.port}, scrub_processes=scrub_processes)
    token = marker()
    body = ".starts with a dot\r\n..two dots\r\n.\r\nnot the end above\r\nend.\r\n"
    send(relay, tagged(f"Subject: dots\r\n\r\n{body}".encode(), token))
    assert (
        find(smtp_sink, token).get_content().replace("\r\n", "\n").strip()
        == body.replace("\r\n", "\n").strip()
    )


@pytest.mark.parametrize(
    "message",
    [b"", b"a\r\n", b".\r\n", b"..x\r\n.\r\n.y\r\nend.", b"no dots\r\nhere\r\n", b"bare\nlf\r\n"],
)
def test_wire_form_round_trip(message: bytes) -> None:
    """What the worker makes for DATA (dot-stuffed, CRLF at the end) reads back as the message."""
    wire = wire_form(message)
    if b"\n" in message.replace(b"\r\n", b""):
        assert wire is None  # not all CRLF: aiosmtplib's own DATA path normalises it
        return
    assert wire is not None
    assert wire == b"" or wire.endswith(b"\r\n")
    assert b"\r\n.\r\n" not in b"\r\n" + wire  # no line of it would end the data early
    assert _unstuffed(wire) == (message if not message or message.endswith(b"\r\n") else message + b"\r\n")


def test_large_message_goes_through_the_bulk_worker(relay: RelayRunner, smtp_sink: SmtpSink) -> None:
    token = marker()
    line = "Nothing personal on this line, only filler words for the size.\r\n"
    body = line * 12000 + "Write to jane.roe@example.com.\r\n"  # ~770 KB: over LARGE_MESSAGE_BYTES
    send(relay, tagged(f"Subject: big\r\n\r\n{body}".encode(), token))
    got = find(smtp_sink, token).get_content()
    assert "[EMAIL_ADDRESS]" in got and "jane.roe@example.com" not in got
    assert got.count("filler words") == 12000


def test_8bitmime_body_is_relayed(start_relay: Callable[..., RelayRunner], smtp_sink: SmtpSink) -> None:
    # A relay of its own: BODY=8BITMIME is passed on already on the first upstream connection.
    relay = start_relay(upstream={"port": smtp_sink.port})
    token = marker()
    data = tagged((EML / "generated" / "04-cp1252-8bit.eml").read_bytes(), token)
    with smtplib.SMTP("127.0.0.1", relay.port) as client:
        client.ehlo()
        assert client.has_extn("8bitmime")
        client.sendmail("sam@example.com", ["support@example.org"], data, mail_options=["BODY=8BITMIME"])
    got = find(smtp_sink, token)
    assert got.get_content().strip() == "Refund of 50 \u20ac to \u201c[PERSON]\u201d, [EMAIL_ADDRESS]."
    assert sink_headers(smtp_sink, token)[0] == ("X-Mail-Args", "<sam@example.com> BODY=8BITMIME")


@pytest.mark.parametrize("sender", ["", "<>"])
def test_bounce_with_the_null_sender_is_relayed(sender: str, relay: RelayRunner, smtp_sink: SmtpSink) -> None:
    token = marker()
    data = tagged(b"Subject: Undelivered Mail\r\n\r\nSSN 123-45-6789 bounced.\r\n", token)
    with smtplib.SMTP("127.0.0.1", relay.port) as client:
        assert client.sendmail(sender, ["sam@example.com"], data) == {}
    assert sink_headers(smtp_sink, token)[0] == ("X-Mail-Args", "<>")
    assert find(smtp_sink, token).get_content().strip() == "SSN [US_SSN] bounced."


@pytest.mark.parametrize(
    ("arg", "plain"),
    [
        ("<a@b.c>", True),
        ("<a@b.c> SIZE=10", True),
        ("<a@b.c>SIZE=1", True),
        (" <Foo.Bar+tag@Ex-ample.COM>  SIZE=1 BODY=8BITMIME ", True),
        ("\t<a@b.c>\tX", True),
        ("<A#B'{x}@C.D>", True),
        ("<a@b.c>>", True),
        ("<a@b.c> <x@y>", True),
        ("<a@b.c> (comment)", False),
        ("<a@b.c>  (c) X", False),
        ('<"john doe"@x.org>', False),
        ("<a@[192.0.2.1]>", False),
        ("<zo\u00eb@example.com> SMTPUTF8", False),
        ("<@relay.example:a@b.c>", False),
        ("<a..b@c.d>", False),
        ("<a@b..c>", False),
        ("<a@.b>", False),
        ("<>", False),
        ("a@b.c", False),
        ("\x0b<a@b.c>", False),
    ],
)
def test_plain_addresses_read_as_aiosmtpd_reads_them(arg: str, plain: bool) -> None:
    """The fast path takes plain addresses only, and reads them exactly as aiosmtpd's parser."""

    class Parser(SMTP):
        def __init__(self) -> None:
            self.local_part_limit = 0

    fast = plain_path(arg)
    assert (fast is not None) == plain
    if fast is not None:
        assert fast == Parser()._getaddr(arg)


def test_smtputf8_refused_when_the_upstream_lacks_it(relay: RelayRunner) -> None:
    # smtp-sink does not offer SMTPUTF8: the relay says so instead of mangling the address.
    with smtplib.SMTP("127.0.0.1", relay.port) as client:
        client.ehlo()
        assert client.has_extn("smtputf8")
        with pytest.raises(smtplib.SMTPSenderRefused) as exc:
            client.sendmail("zoë@example.com", ["b@example.org"], b"Subject: x\r\n\r\nhi\r\n", ["SMTPUTF8"])
    assert exc.value.smtp_code == 550


def test_mime_that_cannot_be_read_is_refused_with_its_reason(relay: RelayRunner, smtp_sink: SmtpSink) -> None:
    token = marker()
    before = messages("rejected")
    with pytest.raises(smtplib.SMTPDataError) as exc:
        send(relay, tagged(EML / "malformed" / "deep-nesting.eml", token))
    assert exc.value.smtp_code == 554
    assert b"malformed_mime" in exc.value.smtp_error
    assert messages("rejected") == before + 1
    assert not received(smtp_sink, token)


@pytest.mark.parametrize(
    "path",
    [
        EML / "malformed" / "missing-boundary.eml",
        EML / "malformed" / "broken-base64.eml",
        EML / "malformed" / "unknown-transfer-encoding.eml",
        *sorted((EML / "realworld").glob("[a-f]0[13]-*.eml")),
    ],
    ids=lambda p: p.stem,
)
def test_mail_that_breaks_the_rules_is_delivered_scrubbed(
    path: Path, relay: RelayRunner, smtp_sink: SmtpSink
) -> None:
    token = marker()
    send(relay, tagged(path, token))
    delivered = find(smtp_sink, token)
    for value in (b"123-45-6789", b"jane.roe@example.com", b"415-555-0142"):
        assert value not in delivered.as_bytes()
    assert delivered["X-Scrubber"].startswith("level=7; findings=")


def test_findings_are_counted_by_entity_and_detector(relay: RelayRunner, smtp_sink: SmtpSink) -> None:
    """The worker sends counts back, not the findings: the metrics still count each finding."""
    token = marker()
    body = b"SSN 123-45-6789, again 123-45-6789; mail jane.roe@example.com\r\n"
    entities = ("US_SSN", "EMAIL_ADDRESS")
    before = {e: metric("scrubber_findings_total", entity=e, detector="pattern") for e in entities}
    send(relay, tagged(b"Subject: count\r\n\r\n" + body, token))
    assert find(smtp_sink, token)["X-Scrubber"] == "level=7; findings=EMAIL_ADDRESS:1,US_SSN:2"
    after = {e: metric("scrubber_findings_total", entity=e, detector="pattern") for e in entities}
    assert {e: after[e] - before[e] for e in entities} == {"US_SSN": 2, "EMAIL_ADDRESS": 1}


def test_session_goes_on_after_a_refused_message(relay: RelayRunner, smtp_sink: SmtpSink) -> None:
    token = marker()
    broken = (EML / "malformed" / "deep-nesting.eml").read_bytes()
    good = tagged(b"Subject: ok\r\n\r\nSSN 123-45-6789\r\n", token)
    with smtplib.SMTP("127.0.0.1", relay.port) as client:
        with pytest.raises(smtplib.SMTPDataError):
            client.sendmail("a@example.com", ["b@example.org"], broken)
        client.sendmail("a@example.com", ["b@example.org"], good)
    assert find(smtp_sink, token).get_content().strip() == "SSN [US_SSN]"


def test_quarantine_keeps_the_original_and_forwards_nothing(
    start_relay: Callable[..., RelayRunner], smtp_sink: SmtpSink, tmp_path: Path
) -> None:
    qdir = tmp_path / "quarantine"
    relay = start_relay(
        upstream={"port": smtp_sink.port}, on_unscrubbable="quarantine", quarantine_dir=str(qdir)
    )
    token = marker()
    data = tagged(EML / "malformed" / "deep-nesting.eml", token)
    before = metric("scrubber_quarantined_total", transport="smtp", reason="malformed_mime")
    assert send(relay, data) == {}
    (kept,) = qdir.glob("*.eml")
    head, _, rest = kept.read_bytes().partition(b"X-Test-Id")
    assert b"X-Scrubber-Quarantine: reason=malformed_mime" in head
    assert b"Envelope-To: support@example.org" in head
    assert b"X-Test-Id" + rest == data
    assert kept.stat().st_mode & 0o077 == 0
    assert metric("scrubber_quarantined_total", transport="smtp", reason="malformed_mime") == before + 1
    assert not received(smtp_sink, token)


def test_attachment_policy_strip_and_reject(
    start_relay: Callable[..., RelayRunner], smtp_sink: SmtpSink
) -> None:
    data = (EML / "generated" / "16-binary-attachments.eml").read_bytes()
    strip = start_relay(upstream={"port": smtp_sink.port}, attachments="strip", scrub_processes=0)
    token = marker()
    send(strip, tagged(data, token))
    types = [p.get_content_type() for p in find(smtp_sink, token).walk()]
    assert types == ["multipart/mixed", "text/plain", "text/plain", "text/plain"]
    reject = start_relay(upstream={"port": smtp_sink.port}, attachments="reject", scrub_processes=0)
    with pytest.raises(smtplib.SMTPDataError) as exc:
        send(reject, data)
    assert exc.value.smtp_code == 550


def test_mailbox_delivery_writes_one_eml_per_message(
    start_relay: Callable[..., RelayRunner], tmp_path: Path
) -> None:
    box = tmp_path / "mailbox"
    relay = start_relay(mailbox_dir=str(box), level=3)
    body = b"Subject: hi\r\n\r\nmail jane.roe@example.com, SSN 123-45-6789\r\n"
    send(relay, body, ("a@example.org", "b@example.org"))
    (path,) = box.glob("*.eml")
    msg = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
    assert msg["Return-Path"] == "<sam@example.com>"
    assert msg["Envelope-To"] == "a@example.org, b@example.org"
    assert msg.get_content() == "mail [EMAIL_ADDRESS], SSN [US_SSN]\r\n"
    assert msg["X-Scrubber"] == "level=3; findings=EMAIL_ADDRESS:1,US_SSN:1"


def test_time_budget_refuses_the_message_and_the_worker_is_replaced(
    start_relay: Callable[..., RelayRunner], smtp_sink: SmtpSink
) -> None:
    relay = start_relay(upstream={"port": smtp_sink.port}, time_budget_ms=50, scrub_processes=1)
    line = "Please call 415-555-0142 or mail jane.roe@example.com about ticket 77.\r\n"
    big = b"Subject: big\r\n\r\n" + (line * 20000).encode()
    with pytest.raises(smtplib.SMTPDataError) as exc:
        send(relay, big)
    assert exc.value.smtp_code == 554 and b"time_budget" in exc.value.smtp_error
    token = marker()
    send(relay, tagged(b"Subject: small\r\n\r\nSSN 123-45-6789\r\n", token))
    assert find(smtp_sink, token).get_content().strip() == "SSN [US_SSN]"


def test_offline_cli_does_what_the_relay_does(tmp_path: Path) -> None:
    src = EML / "generated" / "10-alternative.eml"
    run = subprocess.run(
        [sys.executable, "-m", "scrubber", "scrub", "--format", "eml", "--level", "4"],
        input=src.read_bytes(),
        capture_output=True,
        check=True,
    )
    out = email.message_from_bytes(run.stdout, policy=email.policy.default)
    assert out["X-Scrubber"].startswith("level=4; findings=")
    assert "jane.roe@example.com" not in text_of(out)
    bad = subprocess.run(
        [sys.executable, "-m", "scrubber", "scrub", "--format", "eml"],
        input=(EML / "malformed" / "deep-nesting.eml").read_bytes(),
        capture_output=True,
    )
    assert bad.returncode == 1
    assert bad.stdout == b""
    assert b"malformed_mime" in bad.stderr
