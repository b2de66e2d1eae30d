"""Test texts that mark their expected values: '[[4821]] is my zip' -> text and spans."""

from __future__ import annotations

import re

from scrubber.detectors import Detector, MessageContext

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


def marked_values(text: str) -> tuple[str, list[str]]:
    """The text without its [[...]] marks, and what the marks held, in order."""
    plain, spans = marked_spans(text)
    return plain, [plain[a:b] for a, b in spans]


def found_values(detector: Detector, text: str) -> list[str]:
    """What ``detector`` finds in ``text``, in the order of the text."""
    return [
        text[f.start : f.end] for f in sorted(detector.detect(text, MessageContext()), key=lambda f: f.start)
    ]
