"""JSON: scrub string values (and long integers) in place, everything else byte for byte as it came.

Only the tokens that are scrubbed are rewritten; whitespace, key order, duplicate keys, number
spellings and escapes elsewhere stay exactly as they were. Object keys are never scrubbed, but
each value is read with its key before it (its *context*: ``first_name: Maria``), so that rules
keyed on field names fire as they do in a log line. A part of a name under a name object
(``{"name": {"first": ...}}``) reads as ``first_name``.

Integers of four digits or more are scrubbed too (a card, an SSN or a phone number may come as a
JSON number); one in which something is found becomes a JSON string holding its replacement
(``"card": "[CREDIT_CARD]"``), since a replacement is no number.

Field paths are dotted (``user.email``); arrays are transparent (``items.note`` reaches the
``note`` of every object in ``items``); ``*`` matches any one key; a path that names an object or
array selects every string under it. No paths means every string value.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from scrubber.formats import FormatError

# One JSON token: a string (escapes included), a structural character, or a bare scalar
# (number, true, false, null). The string branch is the unrolled form, linear on any input.
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+', re.DOTALL)
# An integer long enough to be a value (a card, an account, an SSN, a phone number, a ZIP code).
_LONG_INTEGER = re.compile(r"-?\d{4,}")
# Parts of a name that, under a key naming a name, read as "<part>_name".
_NAME_PARTS = frozenset({"first", "last", "given", "family", "middle", "full", "maiden", "display"})
_SPACES = re.compile(r"\s+")
MAX_CONTEXT_CHARS = 64


def _no_constants(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


@dataclass(frozen=True, slots=True)
class JsonDocument:
    source: str
    spans: tuple[tuple[int, int], ...]
    values: tuple[str, ...]
    contexts: tuple[str, ...]  # per value: its key, as "key: " ("" for none)

    @property
    def texts(self) -> Sequence[str]:
        return self.values

    def render(self, scrubbed: Sequence[str]) -> bytes:
        if len(scrubbed) != len(self.values):
            raise ValueError("render: one scrubbed text per value is needed")
        parts: list[str] = []
        pos = 0
        for (start, end), old, new in zip(self.spans, self.values, scrubbed, strict=True):
            if new == old:
                continue
            parts.append(self.source[pos:start])
            parts.append(_dump(new))
            pos = end
        parts.append(self.source[pos:])
        return "".join(parts).encode("utf-8")


def _dump(value: str) -> str:
    text = json.dumps(value, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate from a "\ud800" escape: keep it escaped
        return json.dumps(value)
    return text


class JsonFormat:
    """A JSON document (UTF-8) per payload; ``fields`` limits scrubbing to those paths."""

    name = "json"

    def __init__(self, fields: Iterable[str] = ()) -> None:
        self.fields: tuple[tuple[str, ...], ...] = tuple(tuple(f.split(".")) for f in fields)

    def parse(self, payload: bytes) -> JsonDocument:
        try:
            source = payload.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise FormatError("invalid_json", f"not UTF-8 at byte {exc.start}") from None
        try:
            json.loads(source, parse_constant=_no_constants)
        except ValueError as exc:  # JSONDecodeError is a ValueError, as is NaN/Infinity
            raise FormatError("invalid_json", str(exc)[:200]) from None
        except RecursionError:
            raise FormatError("invalid_json", "nested too deeply") from None
        spans, values, contexts = self._values(source)
        return JsonDocument(source, tuple(spans), tuple(values), tuple(contexts))

    def _selected(self, path: Sequence[str]) -> bool:
        if not self.fields:
            return True
        return any(
            len(path) >= len(f) and all(want in ("*", got) for want, got in zip(f, path, strict=False))
            for f in self.fields
        )

    def _values(self, source: str) -> tuple[list[tuple[int, int]], list[str], list[str]]:
        """Spans, decoded values and contexts of the selected values (the source is valid JSON)."""
        spans: list[tuple[int, int]] = []
        values: list[str] = []
        contexts: list[str] = []
        # One frame per open container: the key being read in an object, None in an array.
        keys: list[str | None] = []
        is_object: list[bool] = []
        expect_key = False
        for m in _TOKEN.finditer(source):
            tok = m.group()
            first = tok[0]
            if first == '"':
                if expect_key:
                    keys[-1] = json.loads(tok) if "\\" in tok else tok[1:-1]
                    expect_key = False
                    continue
                value = json.loads(tok)
            elif first in "{[":
                keys.append(None)
                is_object.append(first == "{")
                expect_key = first == "{"
                continue
            elif first in "}]":
                keys.pop()
                is_object.pop()
                expect_key = False
                continue
            elif first == ",":
                expect_key = bool(is_object) and is_object[-1]
                continue
            elif first == ":" or not _LONG_INTEGER.fullmatch(tok):
                continue
            else:
                value = tok
            path = [k for k in keys if k is not None]
            if self._selected(path):
                spans.append(m.span())
                values.append(value)
                contexts.append(_context(path))
        return spans, values, contexts


def _context(path: Sequence[str]) -> str:
    """What a value is read with: its key (``"first_name: "``), or "" for a value without one."""
    if not path:
        return ""
    key = _SPACES.sub(" ", path[-1]).strip()[:MAX_CONTEXT_CHARS]
    if not key:
        return ""
    if len(path) > 1 and key.lower() in _NAME_PARTS and path[-2].lower().endswith("name"):
        key = f"{key}_name"
    return f"{key}: "
