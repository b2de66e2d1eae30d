"""MIME scrubbing: structure kept, text found wherever it hides, broken input refused by reason."""

from __future__ import annotations

import email
import email.policy
import time
from email.message import Message
from pathlib import Path

import pytest

from scrubber.dial import Policy
from scrubber.engine import Scrubber, ScrubError
from scrubber.formats import FormatError
from scrubber.formats import html as htmltext
from scrubber.formats.mime import CHUNK_CHARS, MimeOptions
from scrubber.smtp.transform import Scrubbed, scrub_message

DATA = Path(__file__).resolve().parent.parent / "data" / "eml"
GENERATED = sorted((DATA / "generated").glob("*.eml"))
CPYTHON = sorted((DATA / "cpython").glob("*.eml"))
# CPython's deliberately broken messages: a multipart whose boundary never appears. They are
# delivered, their body scrubbed as text (or as the parts its own delimiter lines show).
CPYTHON_BROKEN = {"msg_15", "msg_17", "msg_25", "msg_31", "msg_39", "msg_41", "msg_42"}
# Values planted in the generated messages; none may survive at level 7.
PLANTED = ("jane.roe@example.com", "123-45-6789", "415-555-0142", "john.doe@example.com")


@pytest.fixture(scope="module")
def engine() -> Scrubber:
    return Scrubber(Policy(level=7))


def parse(data: bytes) -> Message:
    return email.message_from_bytes(data, policy=email.policy.default)


def shape(msg: Message) -> list[tuple[str, bool, str | None]]:
    return [(p.get_content_type(), p.is_multipart(), p.get_filename()) for p in msg.walk()]


def visible_text(msg: Message) -> str:
    """Everything decoded from the message: headers, parts, and of HTML its text and links
    and the texts of its attributes, comments, scripts and styles."""
    out = [str(v) for k, v in msg.items()]
    for part in msg.walk():
        if part.is_multipart():
            out += [part.preamble or "", part.epilogue or ""]
            continue
        payload = part.get_payload(decode=True)
        if isinstance(payload, bytes):
            text = payload.decode(part.get_content_charset() or "utf-8", "replace")
            if part.get_content_type() == "text/html":
                doc = htmltext.parse(text)
                text = "\n".join([doc.text, *(slot.value for slot in doc.slots)])
            out.append(text)
        out += [str(v) for k, v in part.items()]
    return "\n".join(out)


def without_trace(data: bytes) -> bytes:
    return b"".join(line for line in data.splitlines(keepends=True) if not line.startswith(b"X-Scrubber:"))


def scrub(data: bytes, engine: Scrubber, **options: object) -> Scrubbed:
    return scrub_message(data, engine, MimeOptions(**options))  # type: ignore[arg-type]


# --------------------------------------------------------------------------- corpus round trips
@pytest.mark.parametrize("path", GENERATED + CPYTHON, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_corpus_round_trip_keeps_part_structure(path: Path, engine: Scrubber) -> None:
    data = path.read_bytes()
    result = scrub(data, engine)
    before, after = parse(data), parse(result.data)
    if path.stem not in CPYTHON_BROKEN:
        assert shape(after) == shape(before)
    assert after["Message-ID"] == before["Message-ID"]
    assert after["X-Scrubber"].startswith("level=7; findings=")
    assert parse(scrub(result.data, engine).data).get_all("X-Scrubber") is not None


@pytest.mark.parametrize("path", GENERATED, ids=lambda p: p.stem)
def test_generated_messages_keep_no_planted_value(path: Path, engine: Scrubber) -> None:
    out = visible_text(parse(scrub(path.read_bytes(), engine).data))
    for value in PLANTED:
        assert value not in out


def test_message_without_findings_is_unchanged_but_for_the_trace(engine: Scrubber) -> None:
    data = (DATA / "generated" / "16-binary-attachments.eml").read_bytes()
    out = scrub(data, engine).data
    assert parse(out)["X-Scrubber"] == "level=7; findings=none"
    assert without_trace(out) == data


def test_trace_header_counts_entities_without_values(engine: Scrubber) -> None:
    result = scrub((DATA / "generated" / "13-attachment-csv-base64.eml").read_bytes(), engine)
    trace = parse(result.data)["X-Scrubber"]
    # the names come from the CSV attachment, read by its "name" column
    assert trace == "level=7; findings=EMAIL_ADDRESS:2,PERSON:2,PHONE_NUMBER:2"
    assert result.entities() == {"EMAIL_ADDRESS": 2, "PERSON": 2, "PHONE_NUMBER": 2}


# --------------------------------------------------------------------------- encodings
def part_of(msg: Message, content_type: str) -> Message:
    return next(p for p in msg.walk() if p.get_content_type() == content_type)


@pytest.mark.parametrize(
    ("name", "content_type", "charset", "cte"),
    [
        ("03-latin1-quoted-printable", "text/plain", "iso-8859-1", "quoted-printable"),
        ("04-cp1252-8bit", "text/plain", "windows-1252", "8bit"),
        ("05-utf8-base64", "text/plain", "utf-8", "base64"),
        ("06-shift-jis", "text/plain", "shift_jis", "base64"),
        ("07-koi8-r", "text/plain", "koi8-r", "quoted-printable"),
        ("13-attachment-csv-base64", "text/csv", "utf-8", "base64"),
        ("15-attachment-log-qp", "text/x-log", "utf-8", "quoted-printable"),
    ],
)
def test_scrubbed_part_keeps_charset_and_transfer_encoding(
    name: str, content_type: str, charset: str, cte: str, engine: Scrubber
) -> None:
    data = (DATA / "generated" / f"{name}.eml").read_bytes()
    before, after = part_of(parse(data), content_type), part_of(parse(scrub(data, engine).data), content_type)
    assert after.get_content_charset() == charset
    assert after["Content-Transfer-Encoding"].lower() == cte
    old, new = before.get_content(), after.get_content()
    assert new != old
    # Only the values changed: the words around them are still there, in their own script
    # ("тел." beside a Russian name and number).
    kept = set(old.split()) & set(new.split())
    assert kept and all(w in old for w in kept)


def test_latin1_text_is_decoded_before_scrubbing(engine: Scrubber) -> None:
    data = (DATA / "generated" / "03-latin1-quoted-printable.eml").read_bytes()
    text = part_of(parse(scrub(data, engine).data), "text/plain").get_content()
    assert text.startswith("Hallo ") and "bitte rufen Sie" in text
    assert "joerg.mueller@example.de" not in text


def test_line_that_outgrows_998_octets_switches_to_quoted_printable(engine: Scrubber) -> None:
    data = (DATA / "generated" / "20-long-line-grows.eml").read_bytes()
    out = scrub(data, engine).data
    assert max(len(line) for line in out.splitlines()) <= 78
    part = parse(out)
    assert part["Content-Transfer-Encoding"] == "quoted-printable"
    assert part.get_content().split() == ["[EMAIL_ADDRESS]"] * 99


def test_encoded_subject_is_decoded_scrubbed_and_encoded_again(engine: Scrubber) -> None:
    data = (DATA / "generated" / "08-encoded-subject.eml").read_bytes()
    out = scrub(data, engine).data
    assert b"=?utf-8?" in out.split(b"\r\n\r\n")[0]
    assert str(parse(out)["Subject"]) == "Rückruf von [EMAIL_ADDRESS] Tel. [PHONE_NUMBER]"


def test_raw_utf8_headers_stay_raw_utf8(engine: Scrubber) -> None:
    data = (DATA / "generated" / "09-smtputf8-raw-headers.eml").read_bytes()
    out = scrub(data, engine, headers=("Subject",)).data
    assert "From: Zoë <zoë@example.com>".encode() in out


@pytest.mark.parametrize(
    ("charset", "raw", "meant"),
    [
        ("iso-8859-1", b"Caf\xe9 cr\xe8me", "Café crème"),
        (None, b"\x93Caf\xe9\x94", "“Café”"),  # no charset: windows-1252, as readers do
    ],
)
def test_raw_8bit_subject_in_a_legacy_charset_keeps_its_meaning(
    charset: str | None, raw: bytes, meant: str, engine: Scrubber
) -> None:
    ctype = b"text/plain" + (b"; charset=" + charset.encode() if charset else b"")
    head = b"From: a@example.com\r\nSubject: " + raw + b", ssn 536-22-1234\r\nX-After: 1\r\n"
    data = head + b"Content-Type: " + ctype + b"\r\n\r\nhello caf\xe9\r\n"
    out = scrub(data, engine).data
    msg = parse(out)
    assert str(msg["Subject"]) == f"{meant}, ssn [US_SSN]"
    assert "\ufffd" not in out.decode("utf-8", "replace").split("\r\n\r\n")[0]
    assert out.split(b"\r\n\r\n")[0].isascii()  # as encoded words: no 8-bit octets left in the head
    assert list(msg.keys())[:3] == ["From", "Subject", "X-After"]  # in its place
    unchanged = data.replace(b", ssn 536-22-1234", b"")
    assert without_trace(scrub(unchanged, engine).data) == unchanged  # nothing found: byte for byte


def test_unlisted_header_is_kept_and_listed_one_scrubbed(engine: Scrubber) -> None:
    data = b"Subject: call 415-555-0142\r\nX-Note: mail jane.roe@example.com\r\n\r\nhi\r\n"
    plain = parse(scrub(data, engine).data)
    assert plain["X-Note"] == "mail jane.roe@example.com"
    assert plain["Subject"] == "call [PHONE_NUMBER]"
    both = parse(scrub(data, engine, headers=("Subject", "X-Note")).data)
    assert both["X-Note"] == "mail [EMAIL_ADDRESS]"


def test_a_header_that_came_twice_is_scrubbed_twice(engine: Scrubber) -> None:
    data = b"Subject: mail jane.roe@example.com\r\nSubject: call 415-555-0142\r\n\r\nhi\r\n"
    msg = parse(scrub(data, engine).data)
    assert [str(v) for v in msg.get_all("Subject")] == ["mail [EMAIL_ADDRESS]", "call [PHONE_NUMBER]"]


def test_report_fields_named_like_structured_headers_are_scrubbed_as_text(engine: Scrubber) -> None:
    fields = b"Final-Recipient: rfc822; jane.roe@example.com\r\nMessage-ID: <jane.roe@example.com>\r\n"
    data = (
        b'Content-Type: multipart/report; boundary="r"\r\n\r\n--r\r\n'
        b"Content-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx.example.org\r\n\r\n"
        + fields
        + b"\r\n--r--\r\n"
    )
    out = scrub(data, engine).data
    assert b"Final-Recipient: rfc822; [EMAIL_ADDRESS]" in out and b"Message-ID: <[EMAIL_ADDRESS]>" in out
    # A report block cut off in a line that is no field: that line is scrubbed as text.
    cut = scrub(data.replace(b"\r\n--r--\r\n", b"\r\n\r\nFinal-Reci jane.roe@example.com"), engine).data
    assert b"jane.roe" not in cut and b"Final-Reci [EMAIL_ADDRESS]" in cut


# A delivery-status report (RFC 3464): a block of fields for the message, one per recipient, and
# at times text that the reporting MTA wrote after them (or instead of them).
REPORTING = b"Reporting-MTA: dns; mx.example.org\n"
JANE = b"Final-Recipient: rfc822; jane.roe@example.com\nAction: failed\n"
JOHN = b"Final-Recipient: rfc822; john.doe@example.com\nAction: delayed\n"
PROSE = b"The mailbox of Jane (SSN 123-45-6789) is full.\nCall 415-555-0142.\n"


def delivery_report(fields: bytes, linesep: bytes) -> bytes:
    data = (
        b'MIME-Version: 1.0\nContent-Type: multipart/report; report-type=delivery-status; boundary="rpt"\n\n'
        b"--rpt\nContent-Type: text/plain\n\nnot delivered.\n"
        b"--rpt\nContent-Type: message/delivery-status\n\n" + fields + b"\n"
        b"--rpt\nContent-Type: text/rfc822-headers\n\nTo: jane.roe@example.com\n\n--rpt--\n"
    )
    return data.replace(b"\n", linesep)


def report_blocks(msg: Message) -> list[tuple[list[str], bool]]:
    """The blocks of the message/delivery-status part: each one's field names, and whether text
    follows them."""
    blocks = part_of(msg, "message/delivery-status").get_payload()
    assert isinstance(blocks, list)
    return [(list(b.keys()), bool(b.get_payload())) for b in blocks]


@pytest.mark.parametrize(
    ("fields", "blocks"),
    [
        pytest.param(REPORTING + b"\n" + JANE, 2, id="fields"),
        pytest.param(REPORTING + b"\n" + JANE + b"\n" + JOHN + b"\n" + JANE, 4, id="recipients"),
        pytest.param(REPORTING + b"\n" + JANE + b"\n" + PROSE, 3, id="fields-then-text"),
        pytest.param(REPORTING + b"\n" + JANE + b"\n" + PROSE + b"\n" + JOHN, 4, id="text-among-recipients"),
        pytest.param(REPORTING + b"\n" + JANE + PROSE, 2, id="text-right-after-fields"),
        pytest.param(PROSE, 1, id="text-alone"),
    ],
)
@pytest.mark.parametrize("linesep", [b"\n", b"\r\n"], ids=["lf", "crlf"])
def test_a_delivery_status_report_keeps_its_blocks_and_masks_every_value(
    fields: bytes, blocks: int, linesep: bytes, engine: Scrubber
) -> None:
    """A bounce processor reads the report block by block: scrubbing must add none (the email
    package writes a blank line before text in a block, which read again starts a new one)."""
    data = delivery_report(fields, linesep)
    out = scrub(data, engine).data
    before, after = parse(data), parse(out)
    assert len(report_blocks(before)) == blocks
    assert shape(after) == shape(before)
    assert report_blocks(after) == report_blocks(before)
    for raw in (b"jane.roe@example.com", b"john.doe@example.com", b"123-45-6789", b"415-555-0142", b"Jane"):
        assert raw not in out
    assert out.count(b"[EMAIL_ADDRESS]") == data.count(b"@example.com")
    assert out.count(b"[US_SSN]") == data.count(b"123-45-6789")
    assert out.count(b"[PHONE_NUMBER]") == data.count(b"415-555-0142")
    assert out.count(b"[PERSON]") == data.count(b"Jane")


def test_a_header_the_email_parser_crashes_on_is_malformed_mime(engine: Scrubber) -> None:
    # Python 3.11's parameter parser raises IndexError on this (found by tests/fuzz).
    data = b"Content-Type: text/plain; title*\r\n\r\nhi\r\n"
    with pytest.raises(FormatError) as exc:
        scrub(data, engine)
    assert exc.value.reason == "malformed_mime"


@pytest.mark.parametrize("header", ["From", "to", "Message-ID", "Content-Type", "X-Scrubber"])
def test_structured_headers_cannot_be_listed(header: str) -> None:
    with pytest.raises(ValueError, match="free text"):
        MimeOptions(headers=(header,))


def test_lf_input_gives_lf_output_and_crlf_gives_crlf(engine: Scrubber) -> None:
    crlf = (DATA / "generated" / "01-plain-ascii.eml").read_bytes()
    lf = crlf.replace(b"\r\n", b"\n")
    assert b"\r" not in scrub(lf, engine).data
    assert scrub(crlf, engine).data.count(b"\n") == scrub(crlf, engine).data.count(b"\r\n")


@pytest.mark.parametrize("charset", ["x-unknown", "utf\x00-8", "\u00e9"])
def test_unusable_charset_name_reads_as_one_byte_per_character(charset: str, engine: Scrubber) -> None:
    head = f'Content-Type: text/plain; charset="{charset}"\r\n\r\n'.encode()
    out = scrub(head + b"Caf\xe9 jane.roe@example.com\r\n", engine).data
    assert out.endswith(b"Caf\xe9 [EMAIL_ADDRESS]\r\n")


def test_undeclared_8bit_bytes_survive_byte_for_byte(engine: Scrubber) -> None:
    body = "Caf\xe9 owner: mail jane.roe@example.com\r\n".encode("latin-1")
    out = scrub(b"Subject: x\r\n\r\n" + body, engine).data
    assert out.endswith("Caf\xe9 owner: mail [EMAIL_ADDRESS]\r\n".encode("latin-1"))


def test_bytes_the_charset_cannot_decode_survive_around_a_finding(engine: Scrubber) -> None:
    body = b"Caf\xe9 \xff mail jane.roe@example.com, Gr\xc3\xbc\xc3\x9fe\r\n"
    data = b"Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n" + body
    out = scrub(data, engine).data
    assert out.endswith(b"Caf\xe9 \xff mail [EMAIL_ADDRESS], Gr\xc3\xbc\xc3\x9fe\r\n")


def test_utf8_epilogue_is_scrubbed_and_kept(engine: Scrubber) -> None:
    data = b'Content-Type: multipart/mixed; boundary="0"\r\n\r\n--0\r\n\r\nx\r\n--0--\r\n'
    data += b"Gr\xc3\xbc\xc3\x9fe jane.roe@example.com"
    assert scrub(data, engine).data.endswith(b"--0--\r\nGr\xc3\xbc\xc3\x9fe [EMAIL_ADDRESS]")


# --------------------------------------------------------------------------- where text hides
def test_html_scrubs_text_links_comments_scripts_and_styles_but_not_markup(engine: Scrubber) -> None:
    data = (DATA / "generated" / "11-html-entities-links.eml").read_bytes()
    html = part_of(parse(scrub(data, engine).data), "text/html").get_content()
    assert "Mail [EMAIL_ADDRESS] &amp; call" in html
    assert 'href="tel:[PHONE_NUMBER]"' in html
    assert 'href="mailto:[EMAIL_ADDRESS]?subject=Hi%20there"' in html
    # Styles, scripts and comments are scrubbed as texts of their own; markup stays as it was.
    assert "<style>p { color: #555; } .x { margin: 415px; }</style>" in html
    assert "<script>var t = '[US_SSN]';</script>" in html
    assert "<!-- internal note: [US_SSN] -->" in html
    assert "&nbsp; bye</p>" in html


def test_html_declarations_cdata_and_instructions_are_scrubbed(engine: Scrubber) -> None:
    data = (
        b"Content-Type: text/html; charset=utf-8\r\n\r\n"
        b"<![CDATA[ssn 536-22-1234]]><?note jane.roe@example.com?><!DOCTYPE x 536-22-1234><p>hi</p>"
    )
    html = scrub(data, engine).data.decode()
    assert "<![CDATA[ssn [US_SSN]]]><?note [EMAIL_ADDRESS]?><!DOCTYPE x [US_SSN]><p>hi</p>" in html


def test_preamble_and_epilogue_are_scrubbed(engine: Scrubber) -> None:
    data = (DATA / "generated" / "25-preamble-epilogue.eml").read_bytes()
    msg = parse(scrub(data, engine).data)
    assert msg.preamble == "Preamble: if you can read this, mail [EMAIL_ADDRESS]."
    assert msg.epilogue is not None and "[US_SSN]" in msg.epilogue


def test_forwarded_message_headers_and_body_are_scrubbed(engine: Scrubber) -> None:
    data = (DATA / "generated" / "17-forwarded-rfc822.eml").read_bytes()
    msg = parse(scrub(data, engine).data)
    inner = part_of(msg, "message/rfc822").get_payload()[0]
    assert inner["Subject"] == "Original: call [EMAIL_ADDRESS]"
    assert "[US_SSN]" in inner.get_content()


def test_text_attachment_named_csv_is_scrubbed_whatever_its_type(engine: Scrubber) -> None:
    data = (DATA / "generated" / "14-attachment-octet-stream-csv.eml").read_bytes()
    part = part_of(parse(scrub(data, engine).data), "application/octet-stream")
    assert part.get_payload(decode=True) == b"id;email\n1;[EMAIL_ADDRESS]\n2;[EMAIL_ADDRESS]\n"


def test_large_text_part_is_scrubbed_across_chunks(engine: Scrubber) -> None:
    line = "filler words without anything personal in them at all, just text.\n"
    lines = [line] * (3 * CHUNK_CHARS // len(line))
    for i in range(0, len(lines), 97):
        lines[i] = f"row {i}: write to jane.roe@example.com today\n"
    body = "".join(lines)
    out = parse(scrub(b"Subject: big\n\n" + body.encode(), engine).data).get_content()
    assert "jane.roe@example.com" not in out
    assert out == body.replace("jane.roe@example.com", "[EMAIL_ADDRESS]")


# --------------------------------------------------------------------------- policies
def test_level_zero_observes_and_changes_nothing(engine: Scrubber) -> None:
    data = (DATA / "generated" / "01-plain-ascii.eml").read_bytes()
    result = scrub_message(data, Scrubber(Policy(level=0)))
    assert result.masked == 0
    assert without_trace(result.data) == data
    assert "EMAIL_ADDRESS:1" in parse(result.data)["X-Scrubber"]


def test_lower_level_masks_less() -> None:
    data = (DATA / "generated" / "01-plain-ascii.eml").read_bytes()
    text = parse(scrub_message(data, Scrubber(Policy(level=2))).data).get_content()
    assert "[US_SSN]" in text
    assert "jane.roe@example.com" in text


def test_attachments_pass_strip_or_reject(engine: Scrubber) -> None:
    data = (DATA / "generated" / "16-binary-attachments.eml").read_bytes()
    passed = parse(scrub(data, engine).data)
    assert part_of(passed, "application/pdf").get_payload(decode=True) == part_of(
        parse(data), "application/pdf"
    ).get_payload(decode=True)
    stripped = scrub(data, engine, attachments="strip")
    assert stripped.stripped == 2
    types = [p.get_content_type() for p in parse(stripped.data).walk()]
    assert types == ["multipart/mixed", "text/plain", "text/plain", "text/plain"]
    note = parse(stripped.data).get_payload()[1].get_content()
    assert note.startswith("[attachment removed by scrubber: application/pdf")
    with pytest.raises(FormatError) as exc:
        scrub(data, engine, attachments="reject")
    assert exc.value.reason == "attachment_refused"


def test_past_deadline_raises_time_budget(engine: Scrubber) -> None:
    data = (DATA / "generated" / "01-plain-ascii.eml").read_bytes()
    with pytest.raises(ScrubError) as exc:
        scrub_message(data, engine, deadline=time.monotonic() - 1)
    assert exc.value.reason == "time_budget"


# --------------------------------------------------------------------------- malformed input
@pytest.mark.parametrize(
    ("name", "outcome"),
    [
        # Read as readers do (scrubber.formats.lenient): the body as text, or the parts its own
        # delimiter lines show; base64 leniently; an unknown transfer encoding as none.
        ("missing-boundary", "scrubbed"),
        ("wrong-boundary", "scrubbed"),
        ("broken-base64", "scrubbed"),
        ("truncated-base64", "scrubbed"),
        ("unknown-transfer-encoding", "scrubbed"),
        ("deep-nesting", "malformed_mime"),
        # Truncated after a whole text part: everything that arrived is scrubbed, the close added.
        ("truncated-multipart", "scrubbed"),
        # Lines after a non-header line are body text, and scrubbed as such.
        ("no-header-body-separator", "scrubbed"),
    ],
)
def test_malformed_message_gets_its_defined_outcome(name: str, outcome: str, engine: Scrubber) -> None:
    data = (DATA / "malformed" / f"{name}.eml").read_bytes()
    if outcome != "scrubbed":
        with pytest.raises(FormatError) as exc:
            scrub(data, engine)
        assert exc.value.reason == outcome
        return
    out = scrub(data, engine).data
    assert b"123-45-6789" not in out
    text = visible_text(parse(out))
    assert "123-45-6789" not in text
    assert "[US_SSN]" in text or name == "truncated-base64"  # cut off before the SSN


@pytest.mark.parametrize(
    "disposition",
    [
        b'attachment; filename="ssn 536-22-1234.pdf"',
        b"attachment; filename*=utf-8''ssn%20536-22-1234%20Z%C3%B6e.pdf",
    ],
)
def test_attachment_file_names_are_scrubbed(disposition: bytes, engine: Scrubber) -> None:
    data = (
        b'Content-Type: multipart/mixed; boundary="b"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nhi\r\n'
        b'--b\r\nContent-Type: application/pdf; name="ssn 536-22-1234.pdf"\r\nContent-Disposition: '
        + disposition
        + b"\r\nContent-Transfer-Encoding: base64\r\n\r\nJVBERi0=\r\n--b--\r\n"
    )
    out = scrub(data, engine).data
    assert b"536-22-1234" not in out and b"536-22" not in out
    pdf = part_of(parse(out), "application/pdf")
    assert pdf.get_filename().startswith("ssn [US_SSN]") and pdf.get_param("name") == "ssn [US_SSN].pdf"
    assert pdf.get_payload(decode=True) == b"%PDF-"
