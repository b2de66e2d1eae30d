"""HTML: the text a reader sees and the links that mail or dial someone, mapped to the source.

:func:`parse` reads a document with the standard library's :class:`html.parser.HTMLParser`
and returns an :class:`HtmlText`: ``text`` is the visible text (text nodes, character
references decoded, a newline wherever a block-level tag breaks the flow) and ``links`` are the
values of ``href="mailto:..."``/``href="tel:..."`` attributes. :meth:`HtmlText.render` takes
replacements for spans of those and edits only them; tags, attributes, comments, scripts and
styles stay byte for byte as they were.
"""

from __future__ import annotations

import html
import re
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from html.parser import HTMLParser

from scrubber.formats import FormatError

# Tags that do not break a line of text: a value split by <b> or <span> is still one value.
_INLINE = """a abbr acronym b bdi bdo big cite code data del dfn em font i ins kbd mark nobr q s samp
small span strike strong sub sup time tt u var wbr"""
INLINE_TAGS = frozenset(_INLINE.split())
# Their content is program text or style, never a text node.
RAW_TEXT_TAGS = frozenset({"script", "style"})
LINK_SCHEMES = ("mailto:", "tel:")
_HREF = re.compile(r"""\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))""", re.IGNORECASE)


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
class Link:
    """A ``mailto:``/``tel:`` attribute value; ``source[src_start:src_end]`` holds it, quotes included."""

    value: str
    src_start: int
    src_end: int


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
    links: list[Link] = field(default_factory=list)

    def render(self, text_edits: Iterable[Edit], link_values: Sequence[str | None]) -> str:
        """The source with the visible-text ``text_edits`` applied and links given new values.

        ``link_values`` holds, per link, its new value or None to keep it. Edits must not overlap.
        """
        changes: list[tuple[int, int, str]] = []
        for edit in text_edits:
            changes.extend(self._source_changes(edit))
        for link, value in zip(self.links, link_values, strict=True):
            if value is not None and value != link.value:
                changes.append((link.src_start, link.src_end, '"' + html.escape(value, quote=True) + '"'))
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
        self.links: list[Link] = []
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
        if self.raw_text_depth:
            return
        start = self.position()
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
        href = next((v for k, v in attrs if k == "href" and v), None)
        if href and href.strip().lower().startswith(LINK_SCHEMES):
            self._link(href)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.close_ref()
        self._tag(tag)
        href = next((v for k, v in attrs if k == "href" and v), None)
        if href and href.strip().lower().startswith(LINK_SCHEMES):
            self._link(href)

    def handle_endtag(self, tag: str) -> None:
        self.close_ref()
        if tag in RAW_TEXT_TAGS and self.raw_text_depth:
            self.raw_text_depth -= 1
        self._tag(tag)

    def _tag(self, tag: str) -> None:
        if tag not in INLINE_TAGS:
            self._break()

    def _link(self, href: str) -> None:
        raw = self.get_starttag_text() or ""
        tag_start = self.position()
        for m in _HREF.finditer(raw):
            group = next(g for g in (1, 2, 3) if m.group(g) is not None)
            if html.unescape(m.group(group)) == href:
                lo, hi = m.start(group), m.end(group)
                if group < 3:  # the quotes belong to the span: a new value is always double-quoted
                    lo, hi = lo - 1, hi + 1
                self.links.append(Link(href, tag_start + lo, tag_start + hi))
                return
        raise FormatError("malformed_html", "link attribute not found in its tag")

    def handle_comment(self, data: str) -> None:
        self.close_ref()
        self._break()

    def handle_decl(self, decl: str) -> None:
        self.close_ref()
        self._break()

    def handle_pi(self, data: str) -> None:
        self.close_ref()
        self._break()

    def unknown_decl(self, data: str) -> None:
        self.close_ref()
        self._break()


def parse(source: str) -> HtmlText:
    """The visible text and the mail/phone links of ``source`` (see the module docstring)."""
    reader = _Reader(source)
    reader.feed(source)
    reader.close()
    if reader.open_ref is not None:
        start = reader.open_ref
        reader.open_ref = None
        reader._add(html.unescape(source[start:]), start, len(source), literal=False)
    return HtmlText(source, "".join(reader.chunks), reader.pieces, reader.links)
