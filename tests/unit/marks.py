"""Test texts that mark their expected values: '[[4821]] is my zip' -> text and spans."""

from __future__ import annotations

import re

_MARK = re.compile(r"\[\[(.+?)\]\]")


def marked_spans(text: str) -> tuple[str, list[tuple[int, int]]]:
    """The text without its [[...]] marks, and the (start, end) of what each mark held."""
    spans = []
    plain = ""
    pos = 0
    for m in _MARK.finditer(text):
        plain += text[pos : m.start()]
        spans.append((len(plain), len(plain) + len(m.group(1))))
        plain += m.group(1)
        pos = m.end()
    return plain + text[pos:], spans
