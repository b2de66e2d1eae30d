"""Mail as real clients send it, rules broken (tests/data/eml/realworld/): delivered scrubbed.

Every message there carries the planted values somewhere a reader would see them. Each must be
delivered, and nothing a reader could get out of the delivered message -- the raw octets, every
part decoded whatever its transfer encoding claims, base64 read leniently, uuencoded blocks,
UTF-16 -- may hold a planted value.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import email
import email.policy
import quopri
import re
from pathlib import Path

import pytest

from scrubber.dial import Policy
from scrubber.engine import Scrubber
from scrubber.smtp.transform import scrub_message

REALWORLD = sorted((Path(__file__).resolve().parent.parent / "data" / "eml" / "realworld").glob("*.eml"))
PLANTED = ("123-45-6789", "jane.roe@example.com", "415-555-0142", "4111 1111 1111 1111")
_UU_BLOCK = re.compile(rb"^begin [0-7]{3,4} [^\r\n]*\r?\n(.*?)^end\s*$", re.M | re.S)
_B64_RUN = re.compile(rb"[A-Za-z0-9+/=_-]{8,}")


def engine() -> Scrubber:
    return Scrubber(Policy(level=7))


def uudecode(block: bytes) -> bytes:
    out = []
    for line in block.splitlines():
        if not line.strip() or line.strip() == b"`":
            continue
        try:
            out.append(binascii.a2b_uu(line))
        except binascii.Error:
            continue
    return b"".join(out)


def readings(data: bytes) -> list[str]:
    """Everything a reader could make of ``data``: its octets, and each part's body decoded every
    way that a client might (as its transfer encoding says, base64, quoted-printable, uuencode),
    in UTF-8, Latin-1 and UTF-16."""
    bodies = [data]
    msg = email.message_from_bytes(data, policy=email.policy.compat32)
    for part in msg.walk():
        raw = part.get_payload(decode=False)
        if isinstance(raw, list):
            continue
        octets = raw.encode("ascii", "surrogateescape") if isinstance(raw, str) else b""
        bodies.append(octets)
        bodies.append(quopri.decodestring(octets))
        joined = b"".join(_B64_RUN.findall(octets))
        for decode in (base64.b64decode, base64.urlsafe_b64decode):
            pieces = []
            for piece in re.split(rb"=+", joined):  # padding inside: encodings one after the other
                with contextlib.suppress(binascii.Error, ValueError):
                    pieces.append(decode(piece[: len(piece) // 4 * 4]))
            bodies.append(b"".join(pieces))
        bodies += [uudecode(m.group(1)) for m in _UU_BLOCK.finditer(octets)]
    texts = []
    for body in bodies:
        texts += [body.decode("utf-8", "replace"), body.decode("latin-1")]
        for codec in ("utf-16", "utf-16-le", "utf-16-be"):
            texts.append(body[: len(body) // 2 * 2].decode(codec, "replace"))
    return texts


def leaks(data: bytes) -> list[str]:
    found = set()
    for text in readings(data):
        flat = " ".join(text.split())
        found.update(v for v in PLANTED if v in text or v in flat)
    return sorted(found)


def test_every_message_of_the_set_carries_the_planted_values() -> None:
    assert len(REALWORLD) >= 50
    for path in REALWORLD:
        assert leaks(path.read_bytes()), path.name  # else the test below could not fail


@pytest.mark.parametrize("path", REALWORLD, ids=lambda p: p.stem)
def test_realworld_message_is_delivered_scrubbed(path: Path) -> None:
    result = scrub_message(path.read_bytes(), engine())
    assert leaks(result.data) == []


def test_a_broken_header_line_before_the_boundary_is_no_crash() -> None:
    """Found by a long fuzz run: a CR and a raw octet inside the Content-Type field leave a body
    that holds U+FFFD when its parts are looked for by their delimiter lines."""
    data = (
        b"Subject: x\nContent-Type: multipart/signed; micalg=pgp-md5;\n\t\r\xa3protocol=a;\n"
        b'\tboundary="B"\n\n--B\nContent-Type: text/plain\n\njane.roe@example.com\n--B--\n'
    )
    result = scrub_message(data, engine())
    assert leaks(result.data) == []
