"""MIME: an e-mail message taken apart into text units, and put back together with its structure.

:meth:`MimeFormat.parse` reads the message with the standard library's ``email`` package
(modern policy) and visits every part; the :class:`MimeDocument` it returns lists the text
units (``texts``) and :meth:`MimeDocument.render` rebuilds the message from what the engine made
of them. What is scrubbed:

- ``text/plain`` and other ``text/*`` parts, and attachments named ``*.csv``, ``*.txt``,
  ``*.log`` or ``*.tsv``, are decoded (transfer encoding, then charset) and scrubbed;
- ``text/html`` parts: text nodes, attribute values, comments, scripts and styles (see :mod:`.html`);
- the free-text headers named in :attr:`MimeOptions.headers` (RFC 2047 encoded words decoded),
  in the message and in attached messages (``message/rfc822``);
- the preamble and epilogue of every multipart (no reader shows them, but they are sent);
- every other leaf part is an attachment and is passed, replaced by a note ("strip") or makes
  the message refused ("reject"), as :attr:`MimeOptions.attachments` says.

A part whose text changed is encoded again in its own charset and transfer encoding (quoted-
printable instead of 7bit/8bit when a line would grow past 998 octets). Everything that did not
change -- other parts, headers, boundaries, preamble and epilogue -- is written back as it came.
An ``X-Scrubber`` trace header gives the level and the count of findings per entity, no values.

Masking is the engine's: the format is handed its masker (``Scrubber.apply``) and uses it on the
decoded text as it came, so that bytes the charset could not decode (which the engine saw as
U+FFFD) are written back as they were, and on each value found in an HTML part's visible text,
which is edited at its place in the source.

File names (``name=``, ``filename=``, RFC 2231 ``filename*=``) are scrubbed as text too.

Broken mail is read as mail readers read it (:mod:`.lenient`), and delivered scrubbed: a
multipart body without (the right) boundary as the parts its own delimiter lines show, else as
text; a misspelt transfer encoding by its meaning, an unknown one as none; base64 leniently
(and always encoded afresh); uuencoded bodies and files inside text; UTF-16 that does not decode
as far as it goes; a broken block of report fields as fields and text. What cannot be read at
all (a charset that cannot round-trip, parts nested too deeply, headers the email package cannot
parse) raises :class:`~scrubber.formats.FormatError`, and so does an attachment under the
"reject" policy (``attachment_refused``).
"""

from __future__ import annotations

import base64
import codecs
import contextlib
import email
import io
import itertools
import os
import quopri
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from email import errors
from email.generator import BytesGenerator
from email.headerregistry import HeaderRegistry
from email.message import Message, MIMEPart
from email.parser import BytesParser
from email.policy import EmailPolicy
from email.utils import collapse_rfc2231_value
from typing import Any

from scrubber.findings import Finding
from scrubber.formats import FormatError, Mask, Result, lenient
from scrubber.formats import html as htmltext

ATTACHMENT_POLICIES = ("pass", "strip", "reject")
TEXT_SUFFIXES = (".csv", ".txt", ".log", ".tsv")
# Headers with a structure of their own (addresses, ids, dates, MIME parameters): scrubbing them
# as free text would break them, so they cannot be listed in MimeOptions.headers.
STRUCTURED_HEADERS = frozenset(
    {
        "from",
        "to",
        "cc",
        "bcc",
        "reply-to",
        "sender",
        "resent-from",
        "resent-to",
        "resent-cc",
        "resent-bcc",
        "resent-sender",
        "return-path",
        "message-id",
        "in-reply-to",
        "references",
        "date",
        "mime-version",
        "content-type",
        "content-transfer-encoding",
        "content-disposition",
        "content-id",
        "received",
        "dkim-signature",
        "x-scrubber",
    }
)
TRACE_HEADER = "X-Scrubber"
_EMAIL_PACKAGE = os.path.dirname(email.__file__) + os.sep
# The free-text (unstructured) header class: what the registry gives a name it does not know.
_FREE_TEXT = HeaderRegistry()["x-scrubber-free-text"]
# message/* types whose payload is a whole message; other message/* (delivery-status,
# disposition-notification...) hold blocks of report fields, all scrubbed as text.
ATTACHED_MESSAGES = frozenset({"message/rfc822", "message/global"})
MAX_DEPTH = 50
# Text is handed to the engine in chunks of about this many characters (cut at a line end):
# pattern timeouts are per call, and a budget check can run between batches.
CHUNK_CHARS = 32 * 1024
MAX_LINE = 998
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_SURROGATES = re.compile("[\ud800-\udfff]")
# A line break that folds a header onto its next line.
_FOLD = re.compile(r"\r?\n(?=[ \t])")
# What str.splitlines breaks at.
_HEADER_BREAKS = re.compile("[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_RFC2045_CTE = ("7bit", "8bit", "binary", "quoted-printable", "base64")
# Transfer encodings the email package decodes itself when asked for a part's octets.
_EMAIL_DECODES = frozenset({"base64", "quoted-printable", "x-uuencode", "uuencode", "uue", "x-uue"})
# A part's parameters that name a file (Content-Type name=, Content-Disposition filename=, also
# as RFC 2231 filename*=): a name such as "ssn 536-22-1234.pdf" is scrubbed like any text.
FILE_NAME_PARAMS = (("content-type", "name"), ("content-disposition", "filename"))
_STRUCTURE_DEFECTS = (
    errors.NoBoundaryInMultipartDefect,
    errors.StartBoundaryNotFoundDefect,
    errors.MultipartInvariantViolationDefect,
)


@dataclass(frozen=True)
class MimeOptions:
    """What beyond the body text is scrubbed, and what happens to attachments."""

    headers: tuple[str, ...] = ("Subject",)
    attachments: str = "pass"  # pass | strip | reject
    trace: bool = True

    def __post_init__(self) -> None:
        if self.attachments not in ATTACHMENT_POLICIES:
            raise ValueError(f"attachments: expected one of {', '.join(ATTACHMENT_POLICIES)}")
        structured = sorted(h for h in self.headers if h.lower() in STRUCTURED_HEADERS)
        if structured:
            raise ValueError(f"headers: {', '.join(structured)} cannot be scrubbed as free text")


class _Policy(EmailPolicy):
    """The modern policy, except that a header as it came is written back line for line.

    The stock policy splits such a header with ``str.splitlines``, which also breaks at \\x0b,
    \\x0c and \\x1c-\\x1e: one header would leave as two lines that the next reader parses
    differently (found by tests/fuzz).

    It also parses each header value once: the parser, the walk and the generator each ask a
    part for its Content-Type several times, and the stock policy parses the value anew every
    time (two thirds of the MIME layer's time on a 5 KB message). One policy serves one message,
    so the cache holds at most that message's headers.
    """

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        object.__setattr__(self, "_parsed", {})

    def header_fetch_parse(self, name: str, value: Any) -> Any:
        if not isinstance(value, str) or hasattr(value, "name"):
            return super().header_fetch_parse(name, value)
        parsed: dict[tuple[str, str], Any] = self._parsed  # type: ignore[attr-defined]
        key = (name, value)
        header = parsed.get(key)
        if header is None:
            header = parsed[key] = super().header_fetch_parse(name, value)
        return header

    def fold_binary(self, name: str, value: Any) -> bytes:
        if hasattr(value, "name"):  # a header we set: the stock folding
            return super().fold_binary(name, value)
        folded = name + ": " + self.linesep.join(_LINE_BREAK.split(value)) + self.linesep
        return folded.encode("utf-8" if self.utf8 else "ascii", "surrogateescape")


class _Generator(BytesGenerator):
    """The stock generator, except for the blocks of a message/delivery-status part.

    The parser makes a block of each run of lines between blank lines: its fields, and as its
    body the lines from the first one that is no field on (text after the fields, or text
    alone). Such a body never followed a blank line in the block, yet the stock generator
    writes one between every block's fields and body, as for a message. Read again, that line
    ends the block: text alone gets an empty block before it, and text right after fields a
    block of its own, so a bounce processor would see blocks the sender never wrote. Here each
    block is written as it came, its fields then its body.
    """

    def _handle_message_delivery_status(self, msg: Message) -> None:
        assert self.policy is not None  # MimeDocument.render always gives one
        linesep = self.policy.linesep.encode("ascii")
        blocks = []
        for block in msg.get_payload():
            out = io.BytesIO()
            _Generator(out, policy=self.policy).flatten(block)
            lines = out.getvalue().split(linesep)
            # The first empty line is the one written after the fields, which the block never had.
            lines.remove(b"")
            blocks.append(linesep.join(lines))
        # One blank line between blocks, none after the last (the boundary's line break follows).
        self.write(linesep.join(blocks).decode("ascii", "surrogateescape"))


class MimeFormat:
    """RFC 5322 messages, taken apart as ``options`` say; ``mask`` is the engine's masker and
    ``level`` the dial level the trace header names."""

    name = "mime"

    def __init__(self, options: MimeOptions, mask: Mask, level: int) -> None:
        self.options = options
        self.mask = mask
        self.level = level

    def parse(self, payload: bytes) -> MimeDocument:
        """Take ``payload`` apart; raises :class:`FormatError` (see the module docstring)."""
        policy = _Policy(linesep=_linesep(payload), refold_source="none", utf8=_has_8bit_headers(payload))
        with _email_failures():
            msg = BytesParser(policy=policy).parsebytes(payload)
            walk = _Walk(self.options)
            walk.message(msg, depth=0)
        return MimeDocument(self, msg, policy, walk)


class MimeDocument:
    """A parsed message: its text units, and how to write scrubbed results back."""

    def __init__(self, fmt: MimeFormat, msg: Message, policy: EmailPolicy, walk: _Walk) -> None:
        self.format = fmt
        self.msg = msg
        self.policy = policy
        self.units = walk.units
        self.parts = walk.parts
        self.stripped = walk.stripped
        self.texts = [t for u in walk.units for t in u.texts]

    def render(self, results: Sequence[Result]) -> bytes:
        """The message with every unit's text replaced by what ``results`` (one per text) made of it."""
        if len(results) != len(self.texts):
            raise ValueError("render: one result per text unit is needed")
        mask = self.format.mask
        pos = 0
        with _email_failures():
            for unit in self.units:
                unit.render(results[pos : pos + len(unit.texts)], mask)
                pos += len(unit.texts)
            if self.format.options.trace:
                # Raw: the value is ASCII without spaces, which folding would turn into encoded words.
                self.msg.set_raw(TRACE_HEADER, trace_value(self.format.level, results))
            out = io.BytesIO()
            _Generator(out, policy=self.policy).flatten(self.msg)
        return out.getvalue()


@contextlib.contextmanager
def _email_failures() -> Iterator[None]:
    """The email package parses headers lazily and crashes on some broken ones (IndexError in a
    mangled Content-Type, found by tests/fuzz): that is a malformed message. An error raised in
    our own code is a bug and goes on as it is."""
    try:
        yield
    except FormatError:
        raise
    except Exception as exc:
        if not _raised_in(exc, _EMAIL_PACKAGE):
            raise
        raise FormatError("malformed_mime", f"the email parser failed ({type(exc).__name__})") from exc


def _raised_in(exc: BaseException, directory: str) -> bool:
    """Whether the innermost frame of ``exc``'s traceback is in a file under ``directory``."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and tb.tb_frame.f_code.co_filename.startswith(directory)


def trace_value(level: int, results: Iterable[Result]) -> str:
    """``level=5; findings=EMAIL_ADDRESS:2,PHONE_NUMBER:1`` (entity counts, never values)."""
    counts: dict[str, int] = {}
    for r in results:
        for f in (*r.findings, *r.observed):
            counts[f.entity] = counts.get(f.entity, 0) + 1
    listed = ",".join(f"{e}:{n}" for e, n in sorted(counts.items())) or "none"
    return f"level={level}; findings={listed}"


def _linesep(data: bytes) -> str:
    """The message's own line ending (CRLF on the wire, often LF in files): output keeps it."""
    first = data.find(b"\n")
    return "\r\n" if first > 0 and data[first - 1 : first] == b"\r" else "\n"


def _has_8bit_headers(data: bytes) -> bool:
    """Whether the top-level header block carries raw UTF-8 (an RFC 6532 message)."""
    end = data.find(b"\r\n\r\n")
    if end < 0:
        end = data.find(b"\n\n")
    head = data if end < 0 else data[:end]
    return not head.isascii()


# --------------------------------------------------------------------------- units
class _Unit:
    """Text units of one place in the message and how to write the engine's results back."""

    texts: list[str]

    def render(self, results: Sequence[Result], mask: Mask) -> None:
        raise NotImplementedError


def _cuts(text: str) -> list[int]:
    """Where to cut ``text`` into pieces of about CHUNK_CHARS, at line ends where there are any."""
    cuts = [0]
    pos = 0
    while len(text) - pos > CHUNK_CHARS:
        cut = text.rfind("\n", pos + CHUNK_CHARS // 2, pos + CHUNK_CHARS)
        if cut < 0:
            cut = text.rfind(" ", pos + CHUNK_CHARS // 2, pos + CHUNK_CHARS)
        pos = cut + 1 if cut >= 0 else pos + CHUNK_CHARS
        cuts.append(pos)
    cuts.append(len(text))
    return cuts


def _split(text: str, cuts: Sequence[int]) -> list[str]:
    return [text[a:b] for a, b in itertools.pairwise(cuts)]


def _for_engine(text: str) -> str:
    """Bytes the charset could not decode are kept as lone surrogates; the engine gets U+FFFD
    in their place, one character for one, so its offsets fit the original text."""
    return _SURROGATES.sub("\ufffd", text)


def _masked(originals: Sequence[str], results: Sequence[Result], mask: Mask) -> str | None:
    """The chunks of a text, each masked where the engine found something; None if it found nothing."""
    if not any(r.findings for r in results):
        return None
    return "".join(mask(o, r.findings) if r.findings else o for o, r in zip(originals, results, strict=True))


class _FrameUnit(_Unit):
    """A multipart's preamble and epilogue: no reader sees them, but they travel with the message."""

    def __init__(self, part: Message) -> None:
        self.part = part
        self.names = [n for n in ("preamble", "epilogue") if getattr(part, n)]
        self.originals = [getattr(part, n) for n in self.names]
        self.texts = [_for_engine(t) for t in self.originals]

    def render(self, results: Sequence[Result], mask: Mask) -> None:
        for name, original, r in zip(self.names, self.originals, results, strict=True):
            if r.findings:
                setattr(self.part, name, mask(original, r.findings))


class _HeaderUnit(_Unit):
    def __init__(self, msg: Message, name: str) -> None:
        self.msg = msg
        self.name = name
        self.texts, self.legacy = _header_texts(msg, name)

    def render(self, results: Sequence[Result], mask: Mask) -> None:
        new = [r.text for r in results]
        if new == self.texts:
            return
        # A line break decoded from an encoded word (or an odd control character) would split
        # the header when it is written: it becomes a space.
        new = [_HEADER_BREAKS.sub(" ", v) for v in new]
        # Written back as free text whatever the name: a scrubbed report field named like a
        # structured header (Message-ID, Date...) would not parse as one (the stdlib even
        # crashes on some). Several of a header that may appear once (a broken message) are
        # set raw, since msg[name] = value refuses the second one.
        headers = [_FREE_TEXT(self.name, v) for v in new]
        if self.legacy:
            # 8-bit octets in a legacy charset: written back as encoded words (UTF-8), which
            # every reader decodes, rather than as raw UTF-8 the message never declared.
            _replace_raw(self.msg, self.name, [_encoded_words(h, self.msg.policy) for h in headers])
        elif len(headers) == 1:
            self.msg.replace_header(self.name, headers[0])
        else:
            _replace_raw(self.msg, self.name, headers)


def _replace_raw(msg: Message, name: str, values: Sequence[Any]) -> None:
    """Every ``name`` header of ``msg`` replaced, in its place, by the next of ``values``."""
    wanted = name.lower()
    items = list(msg.raw_items())
    fresh = iter(values)
    for key in {k.lower(): k for k, _ in items}.values():
        del msg[key]
    for key, value in items:
        msg.set_raw(key, next(fresh) if key.lower() == wanted else value)


def _header_texts(msg: Message, name: str) -> tuple[list[str], bool]:
    """The texts of every ``name`` header of ``msg`` (encoded words decoded), and whether one
    held raw 8-bit octets that are not UTF-8.

    The email package reads such octets as U+FFFD; they are read here in the part's charset
    (else windows-1252, else Latin-1, as mail readers do), so that "Caf\xe9" stays "Café".
    """
    wanted = name.lower()
    raws = [raw for key, raw in msg.raw_items() if key.lower() == wanted]
    texts: list[str] = []
    legacy = False
    for parsed, raw in zip(msg.get_all(name, []), raws, strict=True):
        if isinstance(raw, str) and _SURROGATES.search(raw):
            octets = raw.encode("ascii", "surrogateescape")
            try:
                octets.decode("utf-8")
            except UnicodeDecodeError:
                legacy = True
                unfolded = _FOLD.sub("", _legacy_text(octets, msg.get_content_charset())).rstrip("\r\n")
                texts.append(str(_FREE_TEXT(name, unfolded)))
                continue
        texts.append(_for_engine(str(parsed)))
    return texts, legacy


def _legacy_text(octets: bytes, charset: str | None) -> str:
    for candidate in (charset, "windows-1252"):
        if candidate:
            try:
                return octets.decode(candidate)
            except (LookupError, UnicodeError):
                continue
    return octets.decode("latin-1")


def _encoded_words(header: Any, policy: Any) -> str:
    """``header`` folded as 7-bit text (encoded words), without its name and last line break."""
    folded: str = header.fold(policy=policy.clone(utf8=False))
    return folded.split(":", 1)[1].lstrip(" ").rstrip("\r\n")


@dataclass
class _Decoded:
    text: str
    charset: str
    cte: str  # what the Content-Transfer-Encoding means (lenient.transfer_encoding)
    eight_bit: bool  # the part came with 8-bit octets, whatever its transfer encoding says
    # Read with a guess (base64 that did not decode cleanly, UTF-16 cut short): written back
    # encoded afresh even when nothing was found, so that what could not be read goes no further.
    rewrite: bool = False
    uu_begin: str = ""  # a uuencoded body's "begin" line
    tail: bytes = b""  # octets after the last whole UTF-16/32 unit, kept as they came


class _TextUnit(_Unit):
    def __init__(self, part: Message, decoded: _Decoded) -> None:
        self.part = part
        self.decoded = decoded
        cuts = _cuts(decoded.text)
        self.originals = _split(decoded.text, cuts)
        self.texts = _split(_for_engine(decoded.text), cuts)

    def render(self, results: Sequence[Result], mask: Mask) -> None:
        text = _masked(self.originals, results, mask)
        if text is not None or self.decoded.rewrite:
            _set_text(self.part, self.decoded.text if text is None else text, self.decoded)


class _UuTextUnit(_Unit):
    """A text part with uuencoded files in it (as old clients attach them): the text around them
    and each file's content are scrubbed, and a file that changed is encoded again in its place."""

    def __init__(self, part: Message, decoded: _Decoded, blocks: list[lenient.UuBlock]) -> None:
        self.part = part
        self.decoded = decoded
        self.blocks = blocks
        bounds = [0, *(x for b in blocks for x in (b.start, b.end)), len(decoded.text)]
        self.pieces = [decoded.text[a:b] for a, b in zip(bounds[::2], bounds[1::2], strict=True)]
        self.files = [b.data.decode("utf-8", "surrogateescape") for b in blocks]
        self.texts = [_for_engine(t) for t in (*self.pieces, *self.files)]

    def render(self, results: Sequence[Result], mask: Mask) -> None:
        if not any(r.findings for r in results):
            return
        out = []
        n = len(self.pieces)
        for i, piece in enumerate(self.pieces):
            r = results[i]
            out.append(mask(piece, r.findings) if r.findings else piece)
            if i < len(self.blocks):
                block, content, found = self.blocks[i], self.files[i], results[n + i]
                if found.findings:
                    data = mask(content, found.findings).encode("utf-8", "surrogateescape")
                    out.append(lenient.uu_encode(data, block.begin, self.part.policy.linesep).rstrip("\r\n"))
                else:
                    out.append(self.decoded.text[block.start : block.end])
        _set_text(self.part, "".join(out), self.decoded)


class _ParamUnit(_Unit):
    """A file name in a part's parameters."""

    def __init__(self, part: Message, header: str, param: str, value: str) -> None:
        self.part = part
        self.header = header
        self.param = param
        self.texts = [_for_engine(value)]

    def render(self, results: Sequence[Result], mask: Mask) -> None:
        (r,) = results
        if r.findings:
            self.part.set_param(self.param, r.text, header=self.header)


class _HtmlUnit(_Unit):
    def __init__(self, part: Message, decoded: _Decoded) -> None:
        self.part = part
        self.decoded = decoded
        self.doc = htmltext.parse(decoded.text)
        cuts = _cuts(self.doc.text)
        self.starts = cuts[:-1]
        self.body = _split(_for_engine(self.doc.text), cuts)
        self.texts = [*self.body, *(_for_engine(slot.value) for slot in self.doc.slots)]

    def render(self, results: Sequence[Result], mask: Mask) -> None:
        body = results[: len(self.body)]
        slots = results[len(self.body) :]
        if not any(r.findings for r in results):
            if self.decoded.rewrite:
                _set_text(self.part, self.decoded.text, self.decoded)
            return
        text = self.doc.text
        edits = [
            # Each value masked on its own: its replacement goes where the value stands in the source.
            htmltext.Edit(
                start + f.start, start + f.end, mask(text[start + f.start : start + f.end], (_whole(f),))
            )
            for start, r in zip(self.starts, body, strict=True)
            for f in r.findings
        ]
        source = self.doc.render(edits, [r.text if r.findings else None for r in slots])
        if source != self.decoded.text:
            _set_text(self.part, source, self.decoded)


def _whole(f: Finding) -> Finding:
    """``f`` as a finding of its value alone."""
    return Finding(0, f.end - f.start, f.entity, f.score, f.detector)


# --------------------------------------------------------------------------- the walk
class _Walk:
    def __init__(self, options: MimeOptions) -> None:
        self.options = options
        self.headers = {h.lower() for h in options.headers}
        self.units: list[_Unit] = []
        self.parts = 0
        self.stripped = 0

    def message(self, msg: Message, depth: int) -> None:
        """A message (the top one or an attached one): its free-text headers, then its body."""
        names = {k.lower(): k for k in reversed(msg.keys()) if k.lower() in self.headers}
        for name in names.values():
            self.units.append(_HeaderUnit(msg, name))
        self.part(msg, depth)

    def fields(self, block: Message) -> None:
        """A block of report fields (message/delivery-status and the like): every value is text.

        A broken block (a line that is no field) keeps its fields before that line as fields and
        the rest as its text, scrubbed too; a line the parser could not place at all (a
        continuation with nothing to continue) is left out of what is sent on, never sent raw."""
        names = {k.lower(): k for k in reversed(block.keys())}
        for name in names.values():
            self.units.append(_HeaderUnit(block, name))
        rest = block.get_payload()
        if isinstance(rest, str) and rest:
            self.units.append(_TextUnit(block, _decode(block)))

    def as_text(self, part: Message) -> None:
        """A multipart body whose parts cannot be found: scrubbed as the text a reader shows."""
        decoded = _decode(part)
        self.units.append(_TextUnit(part, decoded))

    def recovered(self, part: Message) -> bool:
        """Whether a multipart body without (the right) boundary could be read with the boundary
        its own lines use; its parts are then those."""
        body = part.get_payload()
        if not isinstance(body, str):
            return False
        boundary = lenient.guess_boundary(body)
        if boundary is None:
            return False
        part.set_boundary(boundary)
        head = f"Content-Type: {part.get('content-type')}\n\n"
        # UTF-8: a header or body read from raw octets may hold U+FFFD, not only escaped octets.
        again = BytesParser(policy=part.policy).parsebytes(
            head.encode("utf-8", "surrogateescape") + body.encode("utf-8", "surrogateescape")
        )
        if any(isinstance(d, _STRUCTURE_DEFECTS) for d in again.defects) or not again.is_multipart():
            return False
        part.set_payload(again.get_payload())
        part.preamble, part.epilogue = again.preamble, again.epilogue
        part.defects[:] = [d for d in part.defects if not isinstance(d, _STRUCTURE_DEFECTS)]
        return True

    def file_names(self, part: Message) -> None:
        for header, param in FILE_NAME_PARAMS:
            value = part.get_param(param, header=header)
            if isinstance(value, tuple):  # RFC 2231, as the compat policy gives it
                value = collapse_rfc2231_value(value)
            if isinstance(value, str) and value:
                self.units.append(_ParamUnit(part, header, param, value))

    def part(self, part: Message, depth: int) -> None:
        if depth > MAX_DEPTH:
            raise FormatError("malformed_mime", f"parts nested deeper than {MAX_DEPTH}")
        maintype = part.get_content_maintype()
        if any(isinstance(d, _STRUCTURE_DEFECTS) for d in part.defects) and not self.recovered(part):
            self.as_text(part)
            return
        if part.is_multipart():
            if part.preamble or part.epilogue:
                self.units.append(_FrameUnit(part))
            payload = part.get_payload()
            assert isinstance(payload, list)
            for sub in payload:
                assert isinstance(sub, Message)
                if part.get_content_type() in ATTACHED_MESSAGES:
                    self.message(sub, depth + 1)
                elif maintype == "message":
                    self.fields(sub)
                else:
                    self.part(sub, depth + 1)
            return
        if maintype == "multipart":
            self.as_text(part)
            return
        self.parts += 1
        filename = (part.get_filename() or _uu_name(part)).lower()
        self.file_names(part)
        if maintype in ("text", "message") or filename.endswith(TEXT_SUFFIXES):
            decoded = _decode(part)
            blocks = lenient.uu_blocks(decoded.text) if not decoded.uu_begin else []
            if part.get_content_type() == "text/html":
                self.units.append(_HtmlUnit(part, decoded))
            elif blocks:
                self.units.append(_UuTextUnit(part, decoded, blocks))
            else:
                self.units.append(_TextUnit(part, decoded))
            return
        if self.options.attachments == "reject":
            raise FormatError("attachment_refused", part.get_content_type())
        if self.options.attachments == "strip":
            _strip(part)
            self.stripped += 1


def _strip(part: Message) -> None:
    size = len(part.get_payload(decode=True) or b"")
    note = f"[attachment removed by scrubber: {part.get_content_type()}, {size} bytes]\n"
    # MIMEPart's set_content: an attached part gets no MIME-Version header of its own.
    assert isinstance(part, MIMEPart)
    MIMEPart.set_content(part, note)


# --------------------------------------------------------------------------- decode / encode
def _decode(part: Message) -> _Decoded:
    """A part's text, read as mail readers read it (see :mod:`.lenient`): a misspelt or unknown
    transfer encoding by its meaning or as none, base64 leniently, uuencode; UTF-16 that does
    not decode as far as it goes."""
    header = part.get("content-transfer-encoding")
    cte = "7bit" if header is None else lenient.transfer_encoding(str(header))
    if header is not None and str(header).strip().lower() in _EMAIL_DECODES:
        # Encoded text is ASCII: an 8-bit octet in it (which the email package shows as U+FFFD)
        # is no character of the encoding either.
        payload = part.get_payload()
        body = payload.encode("ascii", "replace") if isinstance(payload, str) else b""
    else:  # the octets as they came (the email package decodes nothing it does not know)
        octets = part.get_payload(decode=True)
        body = octets if isinstance(octets, bytes) else b""
    got = lenient.decode(body, cte)
    raw = got.data
    charset = part.get_content_charset()
    tail = b""
    rewrite = not got.clean
    if charset is not None:
        try:
            codecs.lookup(charset)
        except (LookupError, ValueError):  # unknown, or no name at all ("embedded null character")
            charset = "latin-1"
    if charset is None:
        # No charset named: UTF-8 if it is, else one byte per character so every byte survives.
        try:
            text, charset = raw.decode("utf-8"), "utf-8"
        except UnicodeDecodeError:
            text, charset = raw.decode("latin-1"), "latin-1"
    else:
        try:
            text = raw.decode(charset, "surrogateescape")
        except UnicodeError as exc:
            if not lenient.is_utf16(charset):
                raise FormatError("bad_charset", f"cannot decode as {charset[:40]}") from exc
            text, charset, tail = lenient.decode_utf16(raw, charset)
            rewrite = True
    return _Decoded(text, charset, cte, not raw.isascii(), rewrite, got.uu_begin, tail)


def _uu_name(part: Message) -> str:
    """The file name on the "begin" line of a uuencoded part ("" if it is none)."""
    header = part.get("content-transfer-encoding")
    if header is None or lenient.transfer_encoding(str(header)) != lenient.UUENCODE:
        return ""
    payload = part.get_payload()
    found = lenient.uu_file(payload) if isinstance(payload, str) else None
    return found[0].split(None, 2)[-1] if found else ""


def _set_text(part: Message, text: str, decoded: _Decoded) -> None:
    """Put ``text`` back into ``part`` in its charset and a transfer encoding that fits."""
    errors = "surrogatepass" if lenient.is_utf16(decoded.charset) else "surrogateescape"
    try:
        body = text.encode(decoded.charset, errors) + decoded.tail
    except (UnicodeError, LookupError):
        try:
            body = text.encode("utf-8")
        except UnicodeError as exc:
            raise FormatError("bad_charset", "scrubbed text cannot be encoded") from exc
        part.set_param("charset", "utf-8")
    if part.get_content_charset() not in (None, decoded.charset) and decoded.charset == "utf-8":
        part.set_param("charset", "utf-8")  # UTF-16 that was UTF-8 all along
    cte = decoded.cte
    if cte in ("7bit", "8bit", "binary"):
        lines = body.splitlines()
        too_long = any(len(line) > MAX_LINE for line in lines)
        # 8-bit octets under "7bit" are kept only if the sender sent them so (the fault is theirs).
        if too_long or (cte == "7bit" and not decoded.eight_bit and not body.isascii()):
            cte = "quoted-printable"
    if cte == "base64":
        payload = base64.encodebytes(body).decode("ascii")
    elif cte == "quoted-printable":
        payload = quopri.encodestring(body.replace(b"\r\n", b"\n")).decode("ascii")
    elif cte == lenient.UUENCODE and decoded.uu_begin:
        payload = lenient.uu_encode(body, decoded.uu_begin, part.policy.linesep)
    else:
        payload = body.decode("ascii", "surrogateescape")
    part.set_payload(payload)
    # A misspelt name gets its right spelling once the body is encoded afresh; an unknown one
    # (the body is the text) and uuencode keep theirs.
    header = part.get("content-transfer-encoding")
    named = "7bit" if header is None else str(header).strip().lower()
    if cte in _RFC2045_CTE and named != cte:
        if header is None:
            part["Content-Transfer-Encoding"] = cte
        else:
            part.replace_header("content-transfer-encoding", cte)
