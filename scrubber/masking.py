"""Replacement operators: label, mask, hash (keyed pseudonym), remove."""

from __future__ import annotations

import hashlib
import hmac

from scrubber.dial import OperatorSpec


def replacement(value: str, entity: str, op: OperatorSpec, key: bytes | None) -> str:
    """The text that stands in for ``value`` under ``op``."""
    if op.name == "label":
        return f"[{entity}]"
    if op.name == "remove":
        return ""
    if op.name == "hash":
        if key is None:  # Policy refuses to build without one; keep the type checker honest.
            raise ValueError("hash operator without a key")
        digest = hmac.new(key, f"{entity}\x00{value}".encode("utf-8", "surrogatepass"), hashlib.sha256)
        return f"<{entity}:{digest.hexdigest()[:8]}>"
    return _mask(value, op.keep_last, op.mask_char)


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
