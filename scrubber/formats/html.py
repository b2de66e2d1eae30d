"""HTML: the text a reader sees, and every other place text hides, mapped to the source.

:func:`parse` reads a document with the standard library's :class:`html.parser.HTMLParser`
and returns an :class:`HtmlText`: ``text`` is the visible text (text nodes, character
references decoded, a newline wherever a block-level tag breaks the flow) and ``slots`` are the
other texts of the document, each scrubbed as a text of its own:

- attribute values (``title``, ``alt``, ``value``, ``data-*``, links with their query strings,
  percent-escapes decoded...), except those that only steer layout (:data:`LAYOUT_ATTRIBUTES`);
- comments, and the other markup that holds free text: declarations (``<!DOCTYPE ...>``),
  ``<![CDATA[...]]>`` sections and processing instructions (``<?...?>``);
- the contents of ``<script>`` and ``<style>``.

:meth:`HtmlText.render` takes replacements for spans of the text and new values for slots and
edits only them; tags and everything else stay byte for byte as they were.
"""

from __future__ import annotations

import html
import re
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import quote, unquote

from scrubber.formats import FormatError

# Tags that do not break a line of text: a value split by <b> or <span> is still one value.
_INLINE = """a abbr acronym b bdi bdo big cite code data del dfn em font i ins kbd mark nobr q s samp
small span strike strong sub sup time tt u var wbr"""
INLINE_TAGS = frozenset(_INLINE.split())
# Their content is program text or style, never a text node.
RAW_TEXT_TAGS = frozenset({"script", "style"})
# Attributes whose values only steer layout or behaviour and never hold a person's data: not
# scrubbed, to spare the engine the dozens of them a mailing carries.
LAYOUT_ATTRIBUTES = frozenset(
    {
        "align",
        "bgcolor",
        "border",
        "cellpadding",
        "cellspacing",
        "class",
        "color",
        "colspan",
        "dir",
        "face",
        "frameborder",
        "height",
        "hspace",
        "id",
        "lang",
        "rel",
        "role",
        "rowspan",
        "scope",
        "size",
        "span",
        "style",
        "tabindex",
        "target",
        "type",
        "valign",
        "vspace",
        "width",
        "charset",
        "http-equiv",
        "xmlns",
        "version",
        "enctype",
        "method",
        "shape",
        "nowrap",
    }
)
# Attributes that hold a URL: percent-escapes are decoded before scrubbing ("%40" is "@").
URL_ATTRIBUTES = frozenset({"href", "src", "action", "cite", "background", "poster", "formaction"})
# One attribute in a start tag's source, as the standard library's parser reads them.
_ATTRIBUTE = re.compile(
    r"""((?<=['"\s/])[^\s/>][^\s/=>]*)(\s*=+\s*('[^']*'|"[^"]*"|(?!['"])[^>\s]*))?(?:\s|/(?!>))*"""
)
ATTRIBUTE, URL, COMMENT, MARKUP, RAW_TEXT = "attribute", "url", "comment", "markup", "raw_text"
# What a URL may hold unescaped (besides letters, digits and "_.-~").
_URL_SAFE = "!#$&'()*+,/:;=?@[]"


@dataclass(frozen=True, slots=True)
class Piece:
    """A run of visible text: ``text[start:end]`` came from ``source[src_start:src_end]``.

    A ``literal`` piece maps character for character; a character reference is atomic.
    """

    start: int
    end: int
    src_start: int
    src_end: int
    literal: bool


@dataclass(frozen=True, slots=True)
class Slot:
    """A text outside the visible text: ``source[src_start:src_end]`` holds it (an attribute's
    quotes included); ``value`` is what the engine reads, ``kind`` says how a new value is written."""

    kind: str
    value: str
    src_start: int
    src_end: int

    def written(self, new: str) -> str:
        """``new`` as it goes into the source in this slot's place."""
        if self.kind == URL:  # its percent-escapes were decoded for the engine: escape again
            new = quote(new, safe=_URL_SAFE)
        if self.kind in (ATTRIBUTE, URL):
            return '"' + html.escape(new, quote=True) + '"'
        if self.kind == COMMENT:  # "--" or a closing ">" would end the comment early
            return new.replace("--", "- -").replace(">", "&gt;")
        if self.kind == MARKUP:  # a ">" would end the declaration, section or instruction early
            return new.replace(">", "&gt;")
        return new.replace("</", "<\\/")  # a script or style may not close itself early


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace ``[start, end)`` of the visible text (or of link ``link``'s value) by ``text``."""

    start: int
    end: int
    text: str


@dataclass
class HtmlText:
    source: str
    text: str
    pieces: list[Piece] = field(default_factory=list)
    slots: list[Slot] = field(default_factory=list)

    def render(self, text_edits: Iterable[Edit], slot_values: Sequence[str | None]) -> str:
        """The source with the visible-text ``text_edits`` applied and slots given new values.

        ``slot_values`` holds, per slot, its new value or None to keep it. Edits must not overlap.
        """
        changes: list[tuple[int, int, str]] = []
        for edit in text_edits:
            changes.extend(self._source_changes(edit))
        for slot, value in zip(self.slots, slot_values, strict=True):
            if value is not None and value != slot.value:
                changes.append((slot.src_start, slot.src_end, slot.written(value)))
        changes.sort()
        out: list[str] = []
        pos = 0
        for start, end, new in changes:
            if start < pos:
                raise ValueError("overlapping HTML edits")
            out.append(self.source[pos:start])
            out.append(new)
            pos = end
        out.append(self.source[pos:])
        return "".join(out)

    def _source_changes(self, edit: Edit) -> list[tuple[int, int, str]]:
        """Where ``edit`` lands in the source: its text goes into the first piece it touches and
        the rest of its span is emptied piece by piece, so tags inside the span survive."""
        starts = [p.start for p in self.pieces]
        i = max(bisect_right(starts, edit.start) - 1, 0)
        changes: list[tuple[int, int, str]] = []
        replacement = html.escape(edit.text, quote=False)
        while i < len(self.pieces) and self.pieces[i].start < edit.end:
            p = self.pieces[i]
            i += 1
            if p.end <= edit.start:
                continue
            if p.literal:
                lo = p.src_start + max(edit.start - p.start, 0)
                hi = p.src_start + min(edit.end, p.end) - p.start
            else:
                lo, hi = p.src_start, p.src_end
            changes.append((lo, hi, "" if changes else replacement))
        return changes


class _Reader(HTMLParser):
    def __init__(self, source: str) -> None:
        super().__init__(convert_charrefs=False)
        self.source = source
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", source)]
        self.chunks: list[str] = []
        self.length = 0
        self.pieces: list[Piece] = []
        self.slots: list[Slot] = []
        self.raw_text_depth = 0
        # A character reference's span ends where the parser's next construct starts.
        self.open_ref: int | None = None

    def position(self) -> int:
        line, col = self.getpos()
        return self.line_starts[line - 1] + col

    def close_ref(self) -> None:
        if self.open_ref is None:
            return
        start, end = self.open_ref, self.position()
        self.open_ref = None
        decoded = html.unescape(self.source[start:end])
        self._add(decoded, start, end, literal=False)

    def _add(self, text: str, src_start: int, src_end: int, literal: bool) -> None:
        if not text:
            return
        self.pieces.append(Piece(self.length, self.length + len(text), src_start, src_end, literal))
        self.chunks.append(text)
        self.length += len(text)

    def _break(self) -> None:
        if self.chunks and not self.chunks[-1].endswith("\n"):
            self.chunks.append("\n")
            self.length += 1

    # ------------------------------------------------------------------ parser callbacks
    def handle_data(self, data: str) -> None:
        self.close_ref()
        start = self.position()
        if self.raw_text_depth:
            if self.source[start : start + len(data)] != data:
                raise FormatError("malformed_html", "script or style does not match its source position")
            self.slots.append(Slot(RAW_TEXT, data, start, start + len(data)))
            return
        if self.source[start : start + len(data)] != data:
            raise FormatError("malformed_html", "text node does not match its source position")
        self._add(data, start, start + len(data), literal=True)

    def handle_entityref(self, name: str) -> None:
        self._ref()

    def handle_charref(self, name: str) -> None:
        self._ref()

    def _ref(self) -> None:
        self.close_ref()
        if not self.raw_text_depth:
            self.open_ref = self.position()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.close_ref()
        self._tag(tag)
        if tag in RAW_TEXT_TAGS:
            self.raw_text_depth += 1
        self._attributes(attrs)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.close_ref()
        self._tag(tag)
        self._attributes(attrs)

    def handle_endtag(self, tag: str) -> None:
        self.close_ref()
        if tag in RAW_TEXT_TAGS and self.raw_text_depth:
            self.raw_text_depth -= 1
        self._tag(tag)

    def _tag(self, tag: str) -> None:
        if tag not in INLINE_TAGS:
            self._break()

    def _attributes(self, attrs: list[tuple[str, str | None]]) -> None:
        """A slot for each attribute value that may hold text, found in the tag's source."""
        if not any(v and k not in LAYOUT_ATTRIBUTES for k, v in attrs):
            return
        raw = self.get_starttag_text() or ""
        tag_start = self.position()
        head = re.match(r"<[a-zA-Z][^\t\n\r\f />\x00]*", raw)
        found = list(_ATTRIBUTE.finditer(raw, head.end() if head else 0))
        if len(found) != len(attrs):
            raise FormatError("malformed_html", "attributes not found in their tag")
        for (name, value), m in zip(attrs, found, strict=True):
            if not value or name in LAYOUT_ATTRIBUTES:
                continue
            lo, hi = m.span(3)
            if html.unescape(raw[lo:hi].strip("'\"")) != value:
                raise FormatError("malformed_html", "attribute value not found in its tag")
            if name in URL_ATTRIBUTES and "%" in value:
                self.slots.append(Slot(URL, unquote(value), tag_start + lo, tag_start + hi))
            else:
                self.slots.append(Slot(ATTRIBUTE, value, tag_start + lo, tag_start + hi))

    def handle_comment(self, data: str) -> None:
        # "<!--data-->", or a bogus comment such as "<!data>" or "</ data>".
        self._markup(COMMENT, data)

    def handle_decl(self, decl: str) -> None:
        self._markup(MARKUP, decl)  # "<!DOCTYPE ...>"

    def handle_pi(self, data: str) -> None:
        self._markup(MARKUP, data)  # "<?data>"

    def unknown_decl(self, data: str) -> None:
        self._markup(MARKUP, data)  # "<![CDATA[data]]>", "<![if mso]>"

    def _markup(self, kind: str, data: str) -> None:
        """A slot for the text of a construct that starts at the parser's position with a few
        characters of its own ("<!--", "<![", "<?") before ``data``."""
        self.close_ref()
        self._break()
        start = self.position()
        at = self.source.find(data, start, start + 4 + len(data)) if data else -1
        if at >= 0:
            self.slots.append(Slot(kind, data, at, at + len(data)))


def parse(source: str) -> HtmlText:
    """The visible text of ``source`` and its other texts as slots (see the module docstring)."""
    reader = _Reader(source)
    reader.feed(source)
    reader.close()
    if reader.open_ref is not None:
        start = reader.open_ref
        reader.open_ref = None
        reader._add(html.unescape(source[start:]), start, len(source), literal=False)
    return HtmlText(source, "".join(reader.chunks), reader.pieces, reader.slots)
