"""Fuzzing the MIME path: generated messages and mutated corpus messages, never a crash.

Every input must end in one of two defined outcomes: a scrubbed message that parses again with
the same part structure and without the planted address in any text part, or a refusal with a
known, metric-safe reason. CI runs a short, derandomized pass; for a long random run see tests/fuzz/fuzzing.py
(``FUZZ_SECONDS=3600``).
"""

from __future__ import annotations

import base64
import email
import email.policy
import quopri
from dataclasses import dataclass
from email import errors
from email.message import Message
from functools import cache
from pathlib import Path

from hypothesis import example, given
from hypothesis import strategies as st

from scrubber.dial import Policy
from scrubber.engine import Scrubber, ScrubError
from scrubber.formats import FormatError
from scrubber.formats import html as htmltext
from scrubber.smtp.transform import scrub_message
from tests.fuzz.fuzzing import Counter, checks, repeat

CORPUS = sorted((Path(__file__).resolve().parent.parent / "data" / "eml").glob("*/*.eml"))
KNOWN_REASONS = {
    "malformed_mime",
    "malformed_html",
    "bad_transfer_encoding",
    "bad_charset",
    "time_budget",
    "regex_timeout",
    "too_large",
    "detector_error",
}
SEED = "jane.roe@example.com"
STRUCTURE_DEFECTS = (
    errors.NoBoundaryInMultipartDefect,
    errors.StartBoundaryNotFoundDefect,
    errors.MultipartInvariantViolationDefect,
)
CHARSETS = ["us-ascii", "utf-8", "iso-8859-1", "windows-1252", "koi8-r", "shift_jis", "utf-16", "x-unknown"]
CTES = ["7bit", "8bit", "quoted-printable", "base64", "binary", None]
CHECKS = checks()
GENERATED = Counter()
MUTATED = Counter()


@cache
def engine() -> Scrubber:
    return Scrubber(Policy(level=7))


# --------------------------------------------------------------------------- generated messages
@dataclass
class Leaf:
    content_type: str
    charset: str | None
    cte: str | None
    text: str
    planted: bool


@dataclass
class Multi:
    subtype: str
    boundary: str
    children: list[Leaf | Multi]
    preamble: str
    epilogue: str


WORDS = ["hello", "call", "me", "today", "Grüße", "naïve", "日本", "\t", "=", ".", "--", "\u00a0"]
words = st.sampled_from(WORDS)
plain_text = st.lists(st.one_of(words, st.text(max_size=8)), max_size=30).map(" ".join)


@st.composite
def leaves(draw: st.DrawFn) -> Leaf:
    planted = draw(st.booleans())
    text = draw(plain_text)
    if planted:
        cut = draw(st.integers(0, len(text)))
        text = f"{text[:cut]} {SEED} {text[cut:]}"
    content_type = draw(st.sampled_from(["text/plain", "text/html", "text/csv", "application/octet-stream"]))
    if content_type == "text/html":
        text = f"<p>{text.replace('<', ' ').replace('&', ' ')}</p>"
    charset = draw(st.sampled_from([*CHARSETS, None]))
    return Leaf(content_type, charset, draw(st.sampled_from(CTES)), text, planted)


boundaries = st.text(alphabet="abcXYZ0123456789'()+_,-./:=?", min_size=1, max_size=30).filter(
    lambda b: not b.endswith(" ")
)
trees = st.recursive(
    leaves(),
    lambda kids: st.builds(
        Multi,
        st.sampled_from(["mixed", "alternative", "related", "report"]),
        boundaries,
        st.lists(kids, max_size=4),
        plain_text,
        plain_text,
    ),
    max_leaves=8,
)


def encode_body(leaf: Leaf) -> bytes:
    try:
        raw = leaf.text.encode(leaf.charset or "utf-8", "replace")
    except LookupError:
        raw = leaf.text.encode("utf-8")
    if leaf.cte == "base64":
        return base64.encodebytes(raw).replace(b"\n", b"\r\n")
    if leaf.cte == "quoted-printable":
        return quopri.encodestring(raw).replace(b"\n", b"\r\n")
    return raw.replace(b"\n", b"\r\n")


def render(node: Leaf | Multi) -> bytes:
    if isinstance(node, Leaf):
        head = f"Content-Type: {node.content_type}"
        if node.charset:
            head += f"; charset={node.charset}"
        if node.content_type == "application/octet-stream":
            head += '\r\nContent-Disposition: attachment; filename="data.bin"'
        if node.cte:
            head += f"\r\nContent-Transfer-Encoding: {node.cte}"
        return head.encode() + b"\r\n\r\n" + encode_body(node)
    head = f'Content-Type: multipart/{node.subtype}; boundary="{node.boundary}"\r\n\r\n'
    out = [f"{head}{node.preamble}\r\n".encode()]
    for child in node.children:
        out.append(f"--{node.boundary}\r\n".encode() + render(child) + b"\r\n")
    out.append(f"--{node.boundary}--\r\n{node.epilogue}".encode())
    return b"".join(out)


def planted_in_text(node: Leaf | Multi) -> bool:
    if isinstance(node, Leaf):
        return node.planted and node.content_type.startswith("text/")
    return any(planted_in_text(c) for c in node.children)


def decoded_texts(msg: Message) -> list[str]:
    out = []
    for part in msg.walk():
        if part.is_multipart() or part.get_content_maintype() != "text":
            continue
        payload = part.get_payload(decode=True)
        charset = part.get_content_charset() or "utf-8"
        try:
            text = payload.decode(charset, "replace") if isinstance(payload, bytes) else ""
        except LookupError:
            text = payload.decode("latin-1") if isinstance(payload, bytes) else ""
        if part.get_content_type() == "text/html":
            text = htmltext.parse(text).text
        out.append(text)
    return out


def shape(msg: Message) -> list[str]:
    return [p.get_content_type() for p in msg.walk()]


def broken_structure(msg: Message) -> bool:
    return any(isinstance(d, STRUCTURE_DEFECTS) for part in msg.walk() for d in part.defects)


def check(data: bytes) -> Message | None:
    """The defined outcomes: a parseable result with the input's structure, or a known refusal."""
    try:
        result = scrub_message(data, engine())
    except (FormatError, ScrubError) as exc:
        assert exc.reason in KNOWN_REASONS, exc.reason
        return None
    before = email.message_from_bytes(data, policy=email.policy.default)
    after = email.message_from_bytes(result.data, policy=email.policy.default)
    # A multipart without (the right) boundary is read by the delimiter lines it uses
    # (formats/lenient.py) and written with a boundary that works: it may then show more parts
    # than the email package finds in the input.
    assert shape(after) == shape(before) or broken_structure(before)
    assert after["X-Scrubber"] is not None
    return after


@CHECKS
@given(tree=trees, subject=plain_text)
def _generated(tree: Leaf | Multi, subject: str) -> None:
    GENERATED()
    data = f"Subject: {subject.replace(chr(13), ' ').replace(chr(10), ' ')}\r\nMIME-Version: 1.0\r\n"
    after = check(data.encode("utf-8", "surrogatepass") + render(tree))
    if after is not None and planted_in_text(tree):
        assert not [t for t in decoded_texts(after) if SEED in t]


def test_generated_messages() -> None:
    repeat(_generated, GENERATED, "mime generated")


# --------------------------------------------------------------------------- mutated corpus messages
SPLICES = [b"\r\n--", b"\r\n\r\n", b"=?utf-8?b?", b"&#", b"<a href='mailto:"]


@st.composite
def mutations(draw: st.DrawFn) -> bytes:
    data = bytearray(draw(st.sampled_from(CORPUS)).read_bytes())
    for _ in range(draw(st.integers(1, 4))):
        pos = draw(st.integers(0, len(data)))
        kind = draw(st.sampled_from(["truncate", "delete", "insert", "flip", "duplicate", "boundary"]))
        if kind == "truncate":
            del data[pos:]
        elif kind == "delete":
            del data[pos : pos + draw(st.integers(1, 64))]
        elif kind == "insert":
            data[pos:pos] = draw(st.binary(min_size=1, max_size=32))
        elif kind == "flip" and pos < len(data):
            data[pos] ^= 1 << draw(st.integers(0, 7))
        elif kind == "duplicate":
            data[pos:pos] = data[pos : pos + draw(st.integers(1, 200))]
        elif kind == "boundary":
            data[pos:pos] = draw(st.sampled_from(SPLICES))
    return bytes(data)


@CHECKS
@given(data=mutations())
@example(  # found by a long run: a multipart whose boundary parameter lost its ";"
    data=b'Subject: x\nContent-Type: multipart/ boundary="B"\n\n--B\nContent-Type: text/plain\n\n'
    b"jane.roe@example.com\n--B\nContent-Type: text/html\n\n<p>hi</p>\n--B--\n"
)
def _mutated(data: bytes) -> None:
    MUTATED()
    check(data)


def test_mutated_corpus_messages() -> None:
    repeat(_mutated, MUTATED, "mime mutated")
