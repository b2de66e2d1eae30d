"""Tables: a CSV/TSV export's column names are the cues of its cells.

A log line or a mail body may hold a table: a header row of column names and rows of cells
under it (``emp_no,last_name,first_name,ssn,dob`` and ``E95108,Quintero,Esteban,...``). In the
rows nothing names a value: ``47630`` is a ZIP only because its column is ``billing_zip``. The
detectors read context from words in front of a value, so this detector hands them a *column
view* of each table, one line per cell, its column name in front (``billing_zip: 47630``), and
maps what they find there back onto the cell in the original text.

Only texts with a line break and a delimiter on two lines in a row are looked at; finding the
tables is one pass over the lines. A table needs a header of at least three column names (a
letter, then letters, digits, ``_ . # / -`` or blanks) and at least one row right under it with
as many cells. Cells may be quoted (``"Guo, Xiaoling"``); the quotes are not part of the cell.
Markdown tables (``| name | dob |`` with a ``|---|`` rule) are tables too, and so are SQL
inserts: the column list names the values of each tuple (``INSERT INTO patients (full_name, dob)
VALUES ('Ana Silva', '1973-10-14')``), on one line or several.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from scrubber.detectors import Detector, MessageContext
from scrubber.findings import Finding

DELIMITERS = (",", "\t", ";", "|")
MIN_COLUMNS = 3
MAX_COLUMNS = 64
# Rows of a table read in every column; in longer tables, the rest only in the columns whose
# name changed what was found in these.
SAMPLE_ROWS = 5
# A column name: a letter first, then word characters, a few signs and blanks.
# At most three words: a line of prose with commas is not a header.
_COLUMN = re.compile(r"[A-Za-z][A-Za-z0-9_.#/()-]*(?: [A-Za-z0-9_.#/()-]+){0,2}")
MAX_COLUMN_CHARS = 48
_IDENT = re.compile(r"[a-z][a-z0-9]*")
# A markdown rule row: only dashes, colons and blanks between the bars.
_RULE = re.compile(r"\|?(?:\s*:?-{3,}:?\s*\|)+\s*:?-*:?\s*")
# A cell that goes on after a capitalised name with words in lower case only, to its end (a
# note in brackets aside), holds no person: the name is part of a product's or a place's
# ("Hargreaves pallet wrap", "Jordan tooth brush (soft)"); a particle before another
# capitalised word is a name's ("Ludwig van Beethoven").
_THING_TAIL = re.compile(r"(?:[ \t]+[a-z][a-z'-]*)+[ \t]*(?:\([^()]*\))?[ \t]*$")


@dataclass(frozen=True, slots=True)
class Table:
    """Column names and, for each row, each cell's span in the text (``None``: empty cell)."""

    columns: tuple[str, ...]
    rows: tuple[tuple[tuple[int, int] | None, ...], ...]


def closing_quote(text: str, pos: int, quote: str) -> int:
    """Where the quoted string that goes on at ``pos`` ends (the closing quote), a doubled quote
    being one quote inside it (CSV's ``""``, SQL's ``''``); -1 when it is not closed."""
    while True:
        pos = text.find(quote, pos)
        if pos < 0 or not text.startswith(quote * 2, pos):
            return pos
        pos += 2


def split_row(line: str, offset: int, delimiter: str) -> list[tuple[int, int]] | None:
    """The cells of ``line`` (which starts at ``offset`` in the text) as spans, blanks and
    quotes around a cell left out; None when a quoted cell is not closed."""
    cells: list[tuple[int, int]] = []
    pos, size = 0, len(line)
    while True:
        while pos < size and line[pos] == " ":
            pos += 1
        if pos < size and line[pos] == '"':
            close = closing_quote(line, pos + 1, '"')
            if close < 0:
                return None
            cells.append((offset + pos + 1, offset + close))
            nxt = line.find(delimiter, close + 1)
            if line[close + 1 : size if nxt < 0 else nxt].strip():
                return None  # text after the closing quote: not a CSV cell
        else:
            nxt = line.find(delimiter, pos)
            end = size if nxt < 0 else nxt
            while end > pos and line[end - 1] in " \r":
                end -= 1
            cells.append((offset + pos, offset + end))
        if nxt < 0:
            return cells
        pos = nxt + 1


def _lines(text: str) -> list[tuple[int, str]]:
    out = []
    pos = 0
    for line in text.split("\n"):
        out.append((pos, line[:-1] if line.endswith("\r") else line))
        pos += len(line) + 1
    return out


def _cells(line: str, offset: int, delimiter: str) -> list[tuple[int, int]] | None:
    cells = split_row(line, offset, delimiter)
    if cells is not None and delimiter == "|":
        # "| a | b |": the empty cells outside the outer bars are not columns.
        if cells and cells[0][0] == cells[0][1] and line.lstrip().startswith("|"):
            cells = cells[1:]
        if cells and cells[-1][0] == cells[-1][1] and line.rstrip().endswith("|"):
            cells = cells[:-1]
    return cells


def find_tables(text: str) -> list[Table]:
    """Every table in ``text`` with a header row (see the module's docstring)."""
    if "\n" not in text:
        return []
    # A header and a row hold a delimiter at least MIN_COLUMNS times (counted in C).
    delimiters = [d for d in DELIMITERS if text.count(d) >= MIN_COLUMNS]
    if not delimiters:
        return []
    lines = _lines(text)
    tables: list[Table] = []
    i = 0
    while i < len(lines) - 1:
        line = lines[i][1]
        table = None
        for delimiter in delimiters:
            if line.count(delimiter) < MIN_COLUMNS - 1 or delimiter not in lines[i + 1][1]:
                continue
            table, i_next = _table_at(text, lines, i, delimiter)
            if table is not None:
                tables.append(table)
                i = i_next
                break
        if table is None:
            i += 1
    return tables


# An SQL insert is a table too: its column list the header, each tuple of VALUES a row
# (INSERT INTO patients (full_name, dob) VALUES ('Ana Silva', '1973-10-14'), (...)).
_INSERT = re.compile(
    r"\b[Ii][Nn][Ss][Ee][Rr][Tt][ \t]+[Ii][Nn][Tt][Oo][ \t]+[\w.\"`\[\]]{1,128}[ \t]*"
    r"\((?P<cols>[^()\n]{1,2000})\)[ \t]*[Vv][Aa][Ll][Uu][Ee][Ss][ \t]*(?=\()"
)
_SQL_COLUMN = re.compile(r"[ \t]*[\"`\[]?([A-Za-z_][\w ]{0,63}?)[\"`\]]?[ \t]*")
MAX_SQL_ROWS = 10_000


def find_sql_tables(text: str) -> list[Table]:
    """The inserts of ``text`` whose tuples have as many values as the column list names."""
    if "INSERT" not in text and "insert" not in text and "Insert" not in text:
        return []
    tables: list[Table] = []
    for m in _INSERT.finditer(text):
        columns = []
        for raw in m.group("cols").split(","):
            col = _SQL_COLUMN.fullmatch(raw)
            if col is None:
                break
            columns.append(col.group(1))
        else:
            if len(columns) > MAX_COLUMNS:
                continue
            rows = _sql_rows(text, m.end(), len(columns))
            if rows:
                tables.append(Table(tuple(columns), tuple(rows)))
    return tables


def _sql_rows(text: str, pos: int, width: int) -> list[tuple[tuple[int, int] | None, ...]]:
    """The tuples from ``pos`` on: "(v, 'v', NULL), (...)"; a quoted value's span is inside its
    quotes; NULL and an empty string are no cell. Stops at the first tuple it cannot read."""
    rows: list[tuple[tuple[int, int] | None, ...]] = []
    size = len(text)
    while pos < size and text[pos] == "(" and len(rows) < MAX_SQL_ROWS:
        pos += 1
        cells: list[tuple[int, int] | None] = []
        while True:
            while pos < size and text[pos] in " \t":
                pos += 1
            if pos >= size:
                return rows
            if text[pos] == "'":
                start = pos + 1
                pos = closing_quote(text, start, "'")
                if pos < 0:
                    return rows
                cells.append((start, pos) if pos > start else None)
                pos += 1
            else:
                start = pos
                while pos < size and text[pos] not in ",)\n":
                    pos += 1
                end = pos
                while end > start and text[end - 1] in " \t":
                    end -= 1
                value = text[start:end]
                cells.append(None if not value or value.upper() == "NULL" else (start, end))
            while pos < size and text[pos] in " \t":
                pos += 1
            if pos < size and text[pos] == ",":
                pos += 1
                continue
            if pos < size and text[pos] == ")":
                pos += 1
                break
            return rows
        if len(cells) == width:
            rows.append(tuple(cells))
        while pos < size and text[pos] in " \t\n,":
            pos += 1
    return rows


def _table_at(text: str, lines: list[tuple[int, str]], i: int, delimiter: str) -> tuple[Table | None, int]:
    offset, line = lines[i]
    head = _cells(line, offset, delimiter)
    if head is None or not MIN_COLUMNS <= len(head) <= MAX_COLUMNS:
        return None, i
    columns = tuple(text[s:e] for s, e in head)
    if not all(len(c) <= MAX_COLUMN_CHARS and _COLUMN.fullmatch(c) for c in columns):
        return None, i
    rows: list[tuple[tuple[int, int] | None, ...]] = []
    j = i + 1
    if delimiter == "|" and j < len(lines) and _RULE.fullmatch(lines[j][1].strip()):
        j += 1
    while j < len(lines):
        cells = _cells(lines[j][1], lines[j][0], delimiter)
        if cells is None or len(cells) != len(columns) or _new_header(text, cells):
            break
        rows.append(tuple(c if c[0] < c[1] else None for c in cells))
        j += 1
    if not rows:
        return None, i
    return Table(columns, tuple(rows)), j


def _new_header(text: str, cells: list[tuple[int, int]]) -> bool:
    """Whether a row under a header is the header of another table: column-shaped cells that
    read as field names (one with ``_``, or all lower-case identifiers), not as data."""
    names = [text[s:e] for s, e in cells]
    if not all(_COLUMN.fullmatch(n) for n in names):
        return False
    return any("_" in n for n in names) or all(_IDENT.fullmatch(n) for n in names)


class ColumnView:
    """A text of ``column: cell`` lines for the tables of a message, and the way back.

    ``named=False`` leaves the column names out (the cells alone, a line each); ``columns``, if
    given, keeps only the cells of those (table, column) places.
    """

    def __init__(
        self,
        text: str,
        tables: Sequence[Table],
        *,
        named: bool = True,
        columns: frozenset[tuple[int, int]] | None = None,
    ) -> None:
        parts: list[str] = []
        self.starts: list[int] = []  # where each cell starts in the view
        self.cells: list[tuple[int, int]] = []  # and where it is in the text
        self.places: list[tuple[int, int]] = []  # and its (table, column)
        pos = 0
        for t, table in enumerate(tables):
            heads = [f"{column}: " if named else "" for column in table.columns]
            for row in table.rows:
                for c, cell in enumerate(row):
                    if cell is None or (columns is not None and (t, c) not in columns):
                        continue
                    head = heads[c]
                    parts.append(head)
                    parts.append(text[cell[0] : cell[1]])
                    parts.append("\n")
                    self.starts.append(pos + len(head))
                    self.cells.append(cell)
                    self.places.append((t, c))
                    pos += len(head) + cell[1] - cell[0] + 1
                parts.append("\n")  # a blank line between rows
                pos += 1
        self.text = "".join(parts)

    def place(self, f: Finding) -> tuple[int, int] | None:
        """The (table, column) of the cell a finding in the text lies in."""
        k = bisect.bisect_right(self.cells, (f.start, len(self.text) + f.start)) - 1
        if k >= 0 and self.cells[k][0] <= f.start < self.cells[k][1]:
            return self.places[k]
        return None

    def back(self, findings: Iterable[Finding]) -> list[Finding]:
        """``findings`` in the view, as findings in the text; what lies outside a cell is cut off."""
        out = []
        starts, cells = self.starts, self.cells
        for f in findings:
            k = bisect.bisect_right(starts, f.start) - 1
            # f starts inside cell k, or after it: in the next cell's column name.
            for c in (k, k + 1):
                if 0 <= c < len(starts):
                    lo = starts[c]
                    cs, ce = cells[c]
                    start, end = max(f.start, lo), min(f.end, lo + ce - cs)
                    if start < end:
                        if (
                            f.entity == "PERSON"
                            and self.text[start].isupper()
                            and _THING_TAIL.match(self.text, end, lo + ce - cs)
                        ):
                            break  # "Hargreaves pallet wrap": the cell names a thing
                        shift = cs - lo
                        out.append(
                            Finding(start + shift, end + shift, f.entity, f.score, f"table:{f.detector}")
                        )
                        break
        return out


class TableDetector:
    """Runs ``inner`` on the column view of a message's tables (see the module's docstring)."""

    name = "tables"

    def __init__(self, inner: Sequence[Detector]) -> None:
        self.inner = tuple(inner)
        self.entities: frozenset[str] = frozenset().union(*(d.entities for d in self.inner))

    def detect(self, text: str, ctx: MessageContext) -> list[Finding]:
        tables = find_tables(text) + find_sql_tables(text)
        if not tables:
            return []
        # In the order of the text: a view maps its cells back by their place in it.
        tables.sort(key=_first_cell)
        sample = [Table(t.columns, t.rows[:SAMPLE_ROWS]) for t in tables]
        view = ColumnView(text, sample)
        # The view's offsets are not the message's: the inner detectors know nothing found.
        inner = ctx.without_findings()
        named = self._run(view, inner)
        if all(len(t.rows) <= SAMPLE_ROWS for t in tables):
            return named
        # A long table: its column names are read again only in the columns where, in the first
        # rows, they made a difference, a finding or a higher score (a ZIP column, a name
        # column; not an e-mail column, whose cells the detectors find as well without it).
        bare = ColumnView(text, sample, named=False)
        plain: dict[tuple[int, int, str], float] = {}
        for f in self._run(bare, inner):
            key = (f.start, f.end, f.entity)
            plain[key] = max(f.score, plain.get(key, 0.0))
        useful = frozenset(
            place
            for f in named
            if f.score > plain.get((f.start, f.end, f.entity), -1.0) and (place := view.place(f)) is not None
        )
        if not useful:
            return named
        rest = [Table(t.columns, t.rows[SAMPLE_ROWS:]) for t in tables]
        return named + self._run(ColumnView(text, rest, columns=useful), inner)

    def _run(self, view: ColumnView, ctx: MessageContext) -> list[Finding]:
        found: list[Finding] = []
        for det in self.inner:
            found.extend(det.detect(view.text, ctx))
        return view.back(found)


def _first_cell(table: Table) -> int:
    return min((cell[0] for row in table.rows for cell in row if cell is not None), default=0)
