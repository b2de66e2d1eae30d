"""HTML text nodes, attributes, comments, scripts and styles: what is scrubbed maps back to
exactly its place in the source."""

from __future__ import annotations

import pytest

from scrubber.formats import html as htmltext


def edit_value(source: str, value: str, new: str) -> str:
    """Replace the visible ``value`` in ``source`` through the text/source mapping."""
    doc = htmltext.parse(source)
    start = doc.text.index(value)
    return doc.render([htmltext.Edit(start, start + len(value), new)], [None] * len(doc.slots))


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
    ("source", "value", "written"),
    [
        ("<a href='mailto:jane@example.com'>x</a>", "mailto:jane@example.com", '"mailto:[EMAIL_ADDRESS]"'),
        ('<a class="c" HREF="tel:+14155550142">x</a>', "tel:+14155550142", '"[X]"'),
        ("<a href=mailto:jane@example.com>x</a>", "mailto:jane@example.com", '"mailto:[EMAIL_ADDRESS]"'),
        ('<a href="MAILTO:a@b.example?subject=a&amp;b">x</a>', "MAILTO:a@b.example?subject=a&b", '"[X]"'),
        ('<area href="tel:5550142"/>', "tel:5550142", '"[X]"'),
        # A URL's query string, percent-escapes decoded for the engine and written again.
        (
            '<a href="https://x.example/?u=jane%40example.com&amp;q=a%20b">x</a>',
            "https://x.example/?u=jane@example.com&q=a b",
            '"https://x.example/?u=[EMAIL_ADDRESS]&amp;q=a%20b"',
        ),
        ('<img alt="Jane Roe" src=x.png>', "Jane Roe", '"[X]"'),
        ("<input type=text value='536-22-1234' disabled>", "536-22-1234", '"[X]"'),
        ('<div data-ssn="536-22-1234">', "536-22-1234", '"&lt;X&gt;"'),
        ('<span title="a &quot;quoted&quot; value">', 'a "quoted" value', '"[X]"'),
    ],
)
def test_attribute_values_are_slots_written_back_in_place(source: str, value: str, written: str) -> None:
    doc = htmltext.parse(source)
    (slot,) = [s for s in doc.slots if s.value == value]
    new = {"[X]": "[X]", "&lt;X&gt;": "<X>"}.get(written.strip('"'), "")
    if not new:
        new = value.replace("jane@example.com", "[EMAIL_ADDRESS]").replace("a@b.example", "[EMAIL_ADDRESS]")
    out = doc.render([], [new if s is slot else None for s in doc.slots])
    assert out == source[: slot.src_start] + written + source[slot.src_end :]


def test_layout_attributes_are_no_slots() -> None:
    source = '<table class="Jane" style="color:red" width=10 bgcolor="#fff" id=x><tr><td align=left>'
    assert htmltext.parse(source).slots == []


@pytest.mark.parametrize(
    ("source", "kind", "value", "new", "expected"),
    [
        (
            "a<!-- call 415-555-0142 -->b",
            "comment",
            " call 415-555-0142 ",
            " call [P] ",
            "a<!-- call [P] -->b",
        ),
        ("<!-- x -->", "comment", " x ", "a--b>", "<!--a- -b&gt;-->"),
        ("<!bogus 536-22-1234>", "comment", "bogus 536-22-1234", "bogus [S]", "<!bogus [S]>"),
        (
            "<script>var s='536-22-1234';</script>",
            "raw_text",
            "var s='536-22-1234';",
            "[S]",
            "<script>[S]</script>",
        ),
        ("<style>/* 536 */</style>", "raw_text", "/* 536 */", "</style>", "<style><\\/style></style>"),
        ("<![CDATA[ssn 536-22-1234]]>", "markup", "CDATA[ssn 536-22-1234", "CDATA[x>]", "<![CDATA[x&gt;]]]>"),
        ("<?note 536-22-1234?>", "markup", "note 536-22-1234?", "note [S]?", "<?note [S]?>"),
        (
            "<!DOCTYPE html 536-22-1234>",
            "markup",
            "DOCTYPE html 536-22-1234",
            "DOCTYPE html [S]",
            "<!DOCTYPE html [S]>",
        ),
    ],
)
def test_comments_scripts_and_styles_are_slots(
    source: str, kind: str, value: str, new: str, expected: str
) -> None:
    doc = htmltext.parse(source)
    (slot,) = doc.slots
    assert (slot.kind, slot.value) == (kind, value)
    assert doc.render([], [new]) == expected


def test_no_edit_gives_the_source_back_byte_for_byte() -> None:
    source = '<!DOCTYPE html><html><head><meta charset="utf-8"></head><body><p a=b>x &amp; y</p></body>'
    doc = htmltext.parse(source)
    assert doc.render([], [None] * len(doc.slots)) == source
