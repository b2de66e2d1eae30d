"""Cue lexicons (grammar/cues.yaml) compiled into one pattern per list."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

import regex

from scrubber import rulefile
from scrubber.rulefile import RuleError


def load_cues(path: Path) -> dict[str, tuple[str, ...]]:
    data = rulefile.load(path)
    if not isinstance(data, Mapping) or not isinstance(data.get("cues"), Mapping):
        raise RuleError(path, rulefile.line_of(data), "expected a mapping with a 'cues' mapping")
    out: dict[str, tuple[str, ...]] = {}
    for name, words in data["cues"].items():
        if name == rulefile.LINE_KEY:
            continue
        if (
            not isinstance(words, list)
            or not words
            or not all(isinstance(w, str) and w.strip() for w in words)
        ):
            raise RuleError(
                path, rulefile.line_of(data["cues"]), f"cue list {name!r} must be a list of words"
            )
        out[str(name)] = tuple(w.strip().lower() for w in words)
    return out


def compile_cues(words: Iterable[str]) -> regex.Pattern[str]:
    """One case-insensitive pattern for a set of cue words and phrases, longest first.

    A cue is a whole word: it may not continue a longer word ("card" is not found in
    "discarded"), though it may be followed by a digit ("last4") or an underscore boundary.
    """
    alts = []
    for w in sorted(set(words), key=len, reverse=True):
        body = r"[\s_-]+".join(regex.escape(part) for part in w.split())
        head = r"(?<![a-z0-9])" if w[0].isalnum() else ""
        tail = r"(?![a-z])" if w[-1].isalnum() else ""
        alts.append(f"{head}{body}{tail}")
    return regex.compile("|".join(alts), regex.IGNORECASE)
