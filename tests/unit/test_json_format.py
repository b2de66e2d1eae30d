"""Field-aware JSON: only selected string values change; everything else stays byte for byte."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scrubber.formats import FormatError
from scrubber.formats.json import JsonFormat
from scrubber.formats.text import TextFormat

DOC = (
    b'{"ts": 1700000000.50, "message": "mail jane@x.org",\n'
    b' "user": {"email": "jane@x.org", "name": "Jane", "age": 41, "vip": true},\n'
    b' "tags": ["a", {"note": "n1"}, {"note": "n2"}], "extra": null, "message": "dup"}'
)


def upper(doc: Any) -> bytes:
    """Render with every selected value upper-cased (a stand-in for the engine)."""
    return bytes(doc.render([t.upper() for t in doc.texts]))


@pytest.mark.parametrize(
    ("fields", "selected"),
    [
        ((), ["mail jane@x.org", "jane@x.org", "Jane", "a", "n1", "n2", "dup"]),
        (("message",), ["mail jane@x.org", "dup"]),  # a duplicate key is a value like any other
        (("user.email",), ["jane@x.org"]),
        (("user",), ["jane@x.org", "Jane"]),  # an object selects every string under it
        (("tags",), ["a", "n1", "n2"]),
        (("tags.note",), ["n1", "n2"]),  # arrays are transparent
        (("*.email",), ["jane@x.org"]),
        (("user.age", "missing.path"), []),  # short numbers are no value; absent paths select nothing
    ],
)
def test_selects_string_values_by_path(fields: tuple[str, ...], selected: list[str]) -> None:
    assert list(JsonFormat(fields).parse(DOC).texts) == selected


def test_only_changed_strings_are_rewritten() -> None:
    out = upper(JsonFormat(["user.email", "tags.note"]).parse(DOC))
    expected = (
        DOC.replace(b'"email": "jane@x.org"', b'"email": "JANE@X.ORG"')
        .replace(b'"n1"', b'"N1"')
        .replace(b'"n2"', b'"N2"')
    )
    assert out == expected  # whitespace, number spelling, key order and duplicates as they were


def test_keys_are_never_scrubbed() -> None:
    doc = JsonFormat().parse(b'{"jane@x.org": "jane@x.org"}')
    assert upper(doc) == b'{"jane@x.org": "JANE@X.ORG"}'


def test_escapes_survive_and_new_text_is_escaped() -> None:
    src = '{"a": "caf\\u00e9 \\"q\\"", "b": "line\\nbreak", "c": "ü"}'.encode()
    doc = JsonFormat().parse(src)
    assert list(doc.texts) == ['café "q"', "line\nbreak", "ü"]
    out = doc.render(['café "q"', 'new "x"\n', "Ü"])
    assert out.startswith(b'{"a": "caf\\u00e9 \\"q\\""')  # unchanged: original spelling kept
    assert json.loads(out) == {"a": 'café "q"', "b": 'new "x"\n', "c": "Ü"}


def test_lone_surrogate_stays_escaped() -> None:
    doc = JsonFormat().parse(b'["\\ud800 x"]')
    out = doc.render(["\ud800 y"])
    assert out == b'["\\ud800 y"]'


def test_a_top_level_string_is_a_value() -> None:
    assert upper(JsonFormat().parse(b'"hi"')) == b'"HI"'
    assert list(JsonFormat(["a"]).parse(b'"hi"').texts) == []


@pytest.mark.parametrize(
    "payload",
    [
        b"",
        b"{",
        b'{"a": 1,}',
        b"{'a': 1}",
        b'{"a": NaN}',
        b"[Infinity]",
        b'{"a": 1} trailing',
        b'{"a": "\xff"}',
        b'"raw \x01 control"',
        b"[" * 100_000 + b"]" * 100_000,
    ],
)
def test_invalid_json_is_refused(payload: bytes) -> None:
    with pytest.raises(FormatError) as err:
        JsonFormat().parse(payload)
    assert err.value.reason == "invalid_json"


def test_render_needs_one_text_per_value() -> None:
    with pytest.raises(ValueError):
        JsonFormat().parse(b'["a", "b"]').render(["a"])


def test_text_format_refuses_undecodable_bytes() -> None:
    assert TextFormat().parse("naïve".encode()).texts == ("naïve",)
    with pytest.raises(FormatError) as err:
        TextFormat().parse(b"abc \xc3\x28")
    assert err.value.reason == "invalid_utf8"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=20,
)


@given(value=json_values, indent=st.sampled_from([None, 1]))
def test_any_document_round_trips_and_maps_every_string(value: Any, indent: int | None) -> None:
    src = json.dumps(value, indent=indent, ensure_ascii=False).encode()
    doc = JsonFormat().parse(src)
    assert doc.render(list(doc.texts)) == src
    marked = json.loads(doc.render([f"<{t}>" for t in doc.texts]))
    assert marked == _mark(value)


def _mark(value: Any) -> Any:
    if isinstance(value, str):
        return f"<{value}>"
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 1000:
        return f"<{value}>"  # an integer of four digits or more is scrubbed, and a string if changed
    if isinstance(value, list):
        return [_mark(v) for v in value]
    if isinstance(value, dict):
        return {k: _mark(v) for k, v in value.items()}
    return value


@pytest.mark.parametrize(
    ("doc", "contexts"),
    [
        (b'{"customer": {"name": "Maria"}}', ["name: "]),
        (b'{"user": {"first_name": "Maria", "last_name": "Gonzalez"}}', ["first_name: ", "last_name: "]),
        (b'{"name": {"first": "Maria", "last": "Gonzalez"}}', ["first_name: ", "last_name: "]),
        (b'{"fullName": "Maria Gonzalez", "tags": ["a"]}', ["fullName: ", "tags: "]),
        (b'["top", {"card": 4111111111111111, "n": 42}]', ["", "card: "]),
        (b'{"odd\\nkey  with   spaces": "x", "": "y"}', ["odd key with spaces: ", ""]),
    ],
)
def test_each_value_is_read_with_its_key(doc: bytes, contexts: list[str]) -> None:
    assert list(JsonFormat().parse(doc).contexts) == contexts


def test_a_long_integer_becomes_a_string_only_when_it_changes() -> None:
    src = b'{"card": 4111111111111111, "count": 12345, "n": 7, "pi": 3.14159}'
    doc = JsonFormat().parse(src)
    assert list(doc.texts) == ["4111111111111111", "12345"]
    assert (
        doc.render(["[CREDIT_CARD]", "12345"])
        == b'{"card": "[CREDIT_CARD]", "count": 12345, "n": 7, "pi": 3.14159}'
    )
