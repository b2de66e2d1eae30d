"""Reading mail as mail clients do: transfer encodings misspelt or unknown, base64 that does not
decode cleanly, uuencode, a multipart body without its boundary, UTF-16 that does not decode.

Strict readings would refuse such messages, yet real clients send them and readers show them.
What a reader shows is what must be scrubbed, so :mod:`scrubber.formats.mime` reads them the
way readers do, with these helpers, and writes back what it changed in a clean form.
"""

from __future__ import annotations

import base64
import binascii
import quopri
import re
from collections import Counter
from dataclasses import dataclass

IDENTITY = "identity"
UUENCODE = "x-uuencode"
_CANONICAL = {
    "7bit": "7bit",
    "7bits": "7bit",
    "8bit": "8bit",
    "8bits": "8bit",
    "binary": "binary",
    "quotedprintable": "quoted-printable",
    "qp": "quoted-printable",
    "base64": "base64",
    "b64": "base64",
    "xuuencode": UUENCODE,
    "uuencode": UUENCODE,
    "xuue": UUENCODE,
    "uue": UUENCODE,
}
_COMMENT = re.compile(r"\([^)]*\)")
_SPELLING = re.compile(r"[\s\"'_-]+")
_B64_CHARS = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
_PADDING = re.compile(rb"=+")
_URLSAFE_ONLY = frozenset(b"-_")
_WHITESPACE = re.compile(rb"\s+")
# A uuencoded file: "begin MODE NAME", lines of data, "end".
_UU_BEGIN = re.compile(r"^begin[ \t]+([0-7]{3,4})[ \t]+([^\r\n]+?)[ \t]*\r?$", re.MULTILINE)
_UU_END = re.compile(r"^end[ \t]*\r?$", re.MULTILINE)
# A line that may open a part: "--" and a boundary's characters (RFC 2046).
_DELIMITER = re.compile(
    r"^--([0-9A-Za-z'()+_,./:=?-](?:[0-9A-Za-z'()+_,./:=? -]{0,68}[0-9A-Za-z'()+_,./:=?-])?)[ \t]*\r?$",
    re.MULTILINE,
)


def transfer_encoding(value: str) -> str:
    """The transfer encoding a header value means, as readers take it: the five of RFC 2045 and
    uuencode by their name in any case and spelling ("quoted printable", "8bits", "7-bit",
    "base64;"), anything else the identity encoding (the body is the text)."""
    head = _COMMENT.sub("", value).split(";", 1)[0]
    return _CANONICAL.get(_SPELLING.sub("", head.lower()), IDENTITY)


@dataclass(frozen=True, slots=True)
class Decoded:
    """A body decoded from its transfer encoding; ``clean``: it decoded without guessing (else
    it must be written back encoded afresh, so that what could not be read does not travel on);
    ``uu_begin``: the "begin" line of a uuencoded body."""

    data: bytes
    clean: bool = True
    uu_begin: str = ""


def decode(body: bytes, cte: str) -> Decoded:
    """``body`` (the octets after a part's header) decoded from ``cte`` (see transfer_encoding)."""
    if cte == "base64":
        return decode_base64(body)
    if cte == "quoted-printable":
        return Decoded(quopri.decodestring(body))
    if cte == UUENCODE:
        found = uu_file(body.decode("latin-1"))
        if found is None:  # no "begin" line: the body is the text
            return Decoded(body)
        begin, data, clean = found
        return Decoded(data, clean, begin)
    return Decoded(body)


def decode_base64(body: bytes) -> Decoded:
    """Base64 read as readers do: characters outside the alphabet skipped, missing padding
    supplied, a lone last character dropped, padding in the middle (two encodings one after the
    other) read as the end of one and the start of the next; URL-safe base64 ("-", "_") too."""
    packed = _WHITESPACE.sub(b"", body)
    try:
        return Decoded(base64.b64decode(packed, validate=True))
    except binascii.Error:
        pass
    if _URLSAFE_ONLY & set(packed) and not set(b"+/") & set(packed):
        packed = packed.translate(bytes.maketrans(b"-_", b"+/"))
    out: list[bytes] = []
    for piece in _PADDING.split(packed):
        kept = bytes(c for c in piece if c in _B64_CHARS)
        if len(kept) % 4 == 1:
            kept = kept[:-1]
        out.append(base64.b64decode(kept + b"=" * (-len(kept) % 4)))
    return Decoded(b"".join(out), clean=False)


def uu_file(text: str) -> tuple[str, bytes, bool] | None:
    """The "begin" line, the data and whether every line decoded, of the first uuencoded file
    in ``text``; None if there is none."""
    begin = _UU_BEGIN.search(text)
    if begin is None:
        return None
    end = _UU_END.search(text, begin.end())
    lines = text[begin.end() : end.start() if end else len(text)].splitlines()
    data, clean = uu_lines(lines)
    return begin.group(0).rstrip("\r"), data, clean


def uu_lines(lines: list[str]) -> tuple[bytes, bool]:
    """The data of uuencoded lines; a line cut short or padded is read as far as it goes."""
    out: list[bytes] = []
    clean = True
    for line in lines:
        if not line.strip() or line.strip() == "`":
            continue
        raw = line.encode("latin-1")
        try:
            out.append(binascii.a2b_uu(raw))
        except binascii.Error:
            # The length character says how many octets the line holds: read only those.
            clean = False
            size = ((raw[0] - 32) & 63) * 4 // 3 + 1
            try:
                out.append(binascii.a2b_uu(raw[: size + 1]))
            except binascii.Error:
                continue
    return b"".join(out), clean


def uu_encode(data: bytes, begin: str, linesep: str = "\n") -> str:
    """``data`` uuencoded under its ``begin`` line."""
    lines = [begin]
    lines += [
        binascii.b2a_uu(data[i : i + 45], backtick=True).decode("ascii").rstrip("\n")
        for i in range(0, len(data), 45)
    ]
    lines += ["`", "end", ""]
    return linesep.join(lines)


@dataclass(frozen=True, slots=True)
class UuBlock:
    """A uuencoded file inside a text: ``text[start:end]`` is the block, its "begin" line to its
    "end" line."""

    start: int
    end: int
    begin: str
    data: bytes


def uu_blocks(text: str) -> list[UuBlock]:
    """The uuencoded files embedded in ``text`` (as old clients attach files to a plain body)."""
    out: list[UuBlock] = []
    pos = 0
    while True:
        begin = _UU_BEGIN.search(text, pos)
        if begin is None:
            return out
        end = _UU_END.search(text, begin.end())
        if end is None:
            return out
        data, _ = uu_lines(text[begin.end() : end.start()].splitlines())
        out.append(UuBlock(begin.start(), end.end(), begin.group(0).rstrip("\r"), data))
        pos = end.end()


def guess_boundary(body: str) -> str | None:
    """The boundary a multipart body without (the right) boundary parameter uses, if its lines
    show one: the delimiter that opens parts most often, seen at least twice or closed once."""
    counts: Counter[str] = Counter()
    closed: set[str] = set()
    for m in _DELIMITER.finditer(body):
        name = m.group(1).rstrip()
        if name.endswith("--") and len(name) > 2:
            closed.add(name[:-2])
        else:
            counts[name] += 1
    for name, n in counts.most_common():
        if n >= 2 or name in closed:
            return name
    return None


def decode_utf16(raw: bytes, charset: str) -> tuple[str, str, bytes]:
    """A UTF-16/32 body that does not decode: (text, charset to write it back in, octets kept
    as they came after it).

    A body without a single NUL octet that is UTF-8 was never UTF-16: it is read as UTF-8 (and
    written back so). Otherwise the longest whole prefix is read, lone surrogates included, and
    the octets of a last incomplete unit are kept.
    """
    if b"\x00" not in raw:
        try:
            return raw.decode("utf-8"), "utf-8", b""
        except UnicodeDecodeError:
            pass
    unit = 4 if "32" in charset else 2
    whole = len(raw) // unit * unit
    return raw[:whole].decode(charset, "surrogatepass"), charset, raw[whole:]


def is_utf16(charset: str) -> bool:
    return charset.lower().replace("_", "-").startswith(("utf-16", "utf16", "utf-32", "utf32"))
