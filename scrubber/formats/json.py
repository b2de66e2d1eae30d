"""JSON: scrub string values in place, everything else byte for byte as it came.

Only the string tokens that are scrubbed are rewritten; whitespace, key order, duplicate keys,
number spellings and escapes elsewhere stay exactly as they were. Object keys are never scrubbed.

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


def _no_constants(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


@dataclass(frozen=True, slots=True)
class JsonDocument:
    source: str
    spans: tuple[tuple[int, int], ...]
    values: tuple[str, ...]

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
        spans, values = self._strings(source)
        return JsonDocument(source, tuple(spans), tuple(values))

    def _selected(self, path: Sequence[str]) -> bool:
        if not self.fields:
            return True
        return any(
            len(path) >= len(f) and all(want in ("*", got) for want, got in zip(f, path, strict=False))
            for f in self.fields
        )

    def _strings(self, source: str) -> tuple[list[tuple[int, int]], list[str]]:
        """Spans and decoded values of the selected string values (the source is valid JSON)."""
        spans: list[tuple[int, int]] = []
        values: list[str] = []
        # One frame per open container: the key being read in an object, None in an array.
        keys: list[str | None] = []
        is_object: list[bool] = []
        expect_key = False
        need_keys = bool(self.fields)
        for m in _TOKEN.finditer(source):
            tok = m.group()
            first = tok[0]
            if first == '"':
                if expect_key:
                    keys[-1] = json.loads(tok) if need_keys else ""
                    expect_key = False
                    continue
                if not need_keys or self._selected([k for k in keys if k is not None]):
                    spans.append(m.span())
                    values.append(json.loads(tok))
            elif first == "{":
                keys.append(None)
                is_object.append(True)
                expect_key = True
            elif first == "[":
                keys.append(None)
                is_object.append(False)
            elif first in "}]":
                keys.pop()
                is_object.pop()
                expect_key = False
            elif first == ",":
                expect_key = bool(is_object) and is_object[-1]
        return spans, values
