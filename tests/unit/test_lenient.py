"""Reading broken MIME as readers do: the helpers of scrubber.formats.lenient, case by case."""

from __future__ import annotations

import base64

import pytest

from scrubber.formats import lenient

TEXT = b"call 415-555-0142, ssn 123-45-6789, and a few more words to fill lines"


@pytest.mark.parametrize(
    ("value", "meant"),
    [
        ("7bit", "7bit"),
        ("7-bit", "7bit"),
        ("8bits", "8bit"),
        ("8 bit", "8bit"),
        ("Quoted-Printable ", "quoted-printable"),
        ("quoted printable", "quoted-printable"),
        ("quoted-printable;", "quoted-printable"),
        ("base-64", "base64"),
        ("BASE64 (the body)", "base64"),
        ('"7bit"', "7bit"),
        ("x-uuencode", "x-uuencode"),
        ("uue", "x-uuencode"),
        ("plain", "identity"),
        ("6bit", "identity"),
        ("text/plain", "identity"),
        ("x-token", "identity"),
    ],
)
def test_transfer_encodings_are_read_by_their_meaning(value: str, meant: str) -> None:
    assert lenient.transfer_encoding(value) == meant


@pytest.mark.parametrize(
    ("body", "data"),
    [
        (base64.encodebytes(TEXT), TEXT),
        (base64.encodebytes(TEXT).replace(b"\n", b"*\n", 1), TEXT),  # a character outside the alphabet
        (base64.b64encode(TEXT).rstrip(b"="), TEXT),  # padding missing
        (base64.b64encode(TEXT)[:-3], TEXT[:-1]),  # the last quantum cut short
        (base64.b64encode(TEXT[:10]) + b"\n" + base64.b64encode(TEXT[10:]), TEXT),  # padding inside
        (base64.urlsafe_b64encode(b"\xff\xfe" + TEXT), b"\xff\xfe" + TEXT),
    ],
)
def test_base64_is_read_leniently(body: bytes, data: bytes) -> None:
    decoded = lenient.decode(body, "base64")
    assert decoded.data == data
    assert decoded.clean == (body == base64.encodebytes(TEXT))


def test_uuencode_round_trip_and_blocks_in_text() -> None:
    encoded = lenient.uu_encode(TEXT, "begin 644 notes.txt")
    decoded = lenient.decode(encoded.encode(), "x-uuencode")
    assert (decoded.data, decoded.uu_begin, decoded.clean) == (TEXT, "begin 644 notes.txt", True)
    text = f"see below\n{encoded}and\n{lenient.uu_encode(b'x', 'begin 600 b.log')}bye\n"
    blocks = lenient.uu_blocks(text)
    assert [(b.begin, b.data) for b in blocks] == [("begin 644 notes.txt", TEXT), ("begin 600 b.log", b"x")]
    assert text[blocks[0].start : blocks[0].end] == encoded.rstrip("\n")
    assert lenient.decode(b"no begin line 123-45-6789", "x-uuencode").data == b"no begin line 123-45-6789"


@pytest.mark.parametrize(
    ("body", "boundary"),
    [
        ("--b1\nContent-Type: text/plain\n\nhi\n--b1--\n", "b1"),
        ("pre\n--x y\n\na\n--x y\n\nb\n", "x y"),
        ("just text\n-- \nSam\n", None),
        ("--once\nno close\n", None),
    ],
)
def test_a_boundary_is_guessed_from_the_lines_that_use_it(body: str, boundary: str | None) -> None:
    assert lenient.guess_boundary(body) == boundary


def test_utf16_that_does_not_decode_is_read_as_far_as_it_goes() -> None:
    assert lenient.decode_utf16("hi 123".encode("utf-16") + b"!", "utf-16") == ("hi 123", "utf-16", b"!")
    text, charset, tail = lenient.decode_utf16(b"\xff\xfeh\x00\x00\xd8", "utf-16")
    assert (text, charset, tail) == ("h\ud800", "utf-16", b"")
    assert lenient.decode_utf16(b"plain ascii, odd", "utf-16") == ("plain ascii, odd", "utf-8", b"")
