"""Replacement operators: label, mask, hash (keyed pseudonym), remove."""

from __future__ import annotations

import hashlib
import hmac
import re

from scrubber.dial import ENTITIES, OperatorSpec

# What the label and hash operators write: "[PASSPORT]", "<PERSON:1a2b3c4d>". Literal
# alternatives and one bounded class: linear on the standard library's engine. Two patterns,
# each opening with its own literal, which ``re`` looks for with a fast search; one pattern of
# both is tried at every position of the text (0.9 rather than 0.2 us on an access-log line).
_NAMES = "|".join(sorted(ENTITIES, key=len, reverse=True))
_LABEL = re.compile(rf"\[(?:{_NAMES})\]")
_PSEUDONYM = re.compile(rf"<(?:{_NAMES}):[0-9a-f]{{8}}>")


def placeholders(text: str) -> list[tuple[int, int]]:
    """Where ``text`` holds a label or pseudonym that scrubbing wrote, as (start, end) spans.

    Scrubbed text scrubbed again must not change: the words in "[PHONE_NUMBER]" are no cue
    for the number after them, and "[PASSPORT]" is no value.
    """
    # Labels and pseudonyms hold no "[" or "<" inside, so the two never overlap.
    spans = [m.span() for m in _LABEL.finditer(text)] if "[" in text else []
    if "<" in text:
        spans.extend(m.span() for m in _PSEUDONYM.finditer(text))
        spans.sort()
    return spans


def replacement(value: str, entity: str, op: OperatorSpec, key: bytes | None) -> str:
    """The text that stands in for ``value`` under ``op``."""
    fixed = fixed_replacement(entity, op)
    if fixed is not None:
        return fixed
    if op.name == "hash":
        if key is None:  # Policy refuses to build without one; keep the type checker honest.
            raise ValueError("hash operator without a key")
        digest = hmac.new(key, f"{entity}\x00{value}".encode("utf-8", "surrogatepass"), hashlib.sha256)
        return f"<{entity}:{digest.hexdigest()[:8]}>"
    return _mask(value, op.keep_last, op.mask_char)


def fixed_replacement(entity: str, op: OperatorSpec) -> str | None:
    """What stands in for every value of ``entity`` under ``op``; None if that depends on the value."""
    if op.name == "label":
        return f"[{entity}]"
    if op.name == "remove":
        return ""
    return None


def _mask(value: str, keep_last: int, mask_char: str) -> str:
    # Separators survive so that the shape stays readable ("***-**-6789"); only letters and
    # digits count towards the characters kept.
    alnum_total = sum(ch.isalnum() for ch in value)
    # Never reveal the whole value, however short: keep at most half of it.
    keep = min(keep_last, alnum_total // 2)
    out: list[str] = []
    seen = 0
    for ch in value:
        if ch.isalnum():
            seen += 1
            out.append(ch if seen > alnum_total - keep else mask_char)
        else:
            out.append(ch)
    return "".join(out)
