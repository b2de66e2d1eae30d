"""HTML text nodes and links: what is scrubbed maps back to exactly its place in the source."""

from __future__ import annotations

import pytest

from scrubber.formats import html as htmltext


def edit_value(source: str, value: str, new: str) -> str:
    """Replace the visible ``value`` in ``source`` through the text/source mapping."""
    doc = htmltext.parse(source)
    start = doc.text.index(value)
    return doc.render([htmltext.Edit(start, start + len(value), new)], [None] * len(doc.links))


@pytest.mark.parametrize(
    ("source", "text"),
    [
        ("<p>Hello <b>Jane</b> Roe</p>", "Hello Jane Roe\n"),
        ("a&amp;b &#64; &#x41; &nbsp;c", "a&b @ A \xa0c"),
        ("<div>one</div><div>two</div>", "one\ntwo\n"),
        ("x<br>y", "x\ny"),
        ("<style>p{color:red}</style><script>var a='b';</script>seen", "seen"),
        ("x<!-- hidden -->shown", "x\nshown"),
        ("AT&T rocks", "AT&T rocks"),
        ("unclosed <b>bold", "unclosed bold"),
        ("stray < and > signs", "stray < and > signs"),
        ("", ""),
    ],
)
def test_visible_text(source: str, text: str) -> None:
    assert htmltext.parse(source).text == text


@pytest.mark.parametrize(
    ("source", "value", "expected"),
    [
        # A plain text node: only the value changes.
        ("<p>mail jane@example.com now</p>", "jane@example.com", "<p>mail [EMAIL] now</p>"),
        # Character references inside a value are replaced with it, whole.
        ("jane&#64;example&#46;com!", "jane@example.com", "[EMAIL]!"),
        # A value split by inline tags: the tags stay, the text goes into the first piece.
        ("call 415-<b>555</b>-0142 ok", "415-555-0142", "call [EMAIL]<b></b> ok"),
        # The replacement is escaped as HTML text.
        ("<p>x 123</p>", "123", "<p>x &lt;EMAIL&gt;</p>"),
    ],
)
def test_edits_land_in_the_source(source: str, value: str, expected: str) -> None:
    new = "<EMAIL>" if expected.endswith("&lt;EMAIL&gt;</p>") else "[EMAIL]"
    assert edit_value(source, value, new) == expected


@pytest.mark.parametrize(
    ("source", "value"),
    [
        ("<a href='mailto:jane@example.com'>x</a>", "mailto:jane@example.com"),
        ('<a class="c" HREF="tel:+14155550142">x</a>', "tel:+14155550142"),
        ("<a href=mailto:jane@example.com>x</a>", "mailto:jane@example.com"),
        ('<a href="MAILTO:a@b.example?subject=a&amp;b">x</a>', "MAILTO:a@b.example?subject=a&b"),
        ('<area href="tel:5550142"/>', "tel:5550142"),
    ],
)
def test_mail_and_phone_links_are_found_and_rewritten(source: str, value: str) -> None:
    doc = htmltext.parse(source)
    assert [link.value for link in doc.links] == [value]
    out = doc.render([], ["mailto:[EMAIL_ADDRESS]"])
    assert '="mailto:[EMAIL_ADDRESS]"' in out
    assert value.split(":")[1].split("?")[0] not in out


def test_other_links_and_attributes_are_not_touched() -> None:
    source = '<a href="https://example.com/?u=jane@example.com" title="jane@example.com">x</a>'
    doc = htmltext.parse(source)
    assert doc.links == []
    assert doc.render([], []) == source


def test_no_edit_gives_the_source_back_byte_for_byte() -> None:
    source = '<!DOCTYPE html><html><head><meta charset="utf-8"></head><body><p a=b>x &amp; y</p></body>'
    doc = htmltext.parse(source)
    assert doc.render([], [None] * len(doc.links)) == source
