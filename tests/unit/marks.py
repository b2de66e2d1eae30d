"""Test texts that mark their expected values: '[[4821]] is my zip' -> text and spans; probe
files that mark gold spans ('[[ZIP_CODE:94110]]') -> records in the devset's format, scored."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

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


# A gold span in a probe file: [[ENTITY:value]], or [[ENTITY~:value]] for a partial one.
PROBE_MARK = re.compile(r"\[\[([A-Z_]+)(~?):(.+?)\]\]")


def parse_probes(source: Path, prefix: str = "probe") -> list[dict[str, Any]]:
    """The records of a probe file (one ``CHANNEL<tab>TEXT`` a line, "\\n" a line break, gold
    spans marked with PROBE_MARK), in the gold format of ``score.py``; ids ``PREFIX-CHANNEL-N``."""
    records: list[dict[str, Any]] = []
    counts: dict[str, int] = {}
    for ln, line in enumerate(source.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        channel, sep, marked = line.partition("\t")
        if not sep or channel not in ("chat", "email", "log"):
            raise ValueError(f"{source}:{ln}: expected CHANNEL<tab>TEXT")
        marked = marked.replace("\\n", "\n")
        text, spans, at = "", [], 0
        for m in PROBE_MARK.finditer(marked):
            text += marked[at : m.start()]
            start = len(text)
            text += m.group(3)
            spans.append(
                {"start": start, "end": len(text), "entity": m.group(1), "partial": m.group(2) == "~"}
            )
            at = m.end()
        text += marked[at:]
        if "[[" in text or "]]" in text:
            raise ValueError(f"{source}:{ln}: unbalanced mark")
        counts[channel] = counts.get(channel, 0) + 1
        records.append(
            {
                "id": f"{prefix}-{channel}-{counts[channel]:03d}",
                "channel": channel,
                "text": text,
                "spans": spans,
            }
        )
    return records


def dump_probes(records: list[dict[str, Any]]) -> str:
    """Records as JSONL, one a line."""
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


@cache
def scored(gold_path: Path, level: int = 7) -> dict[str, Any]:
    """``scrubber scan --level N`` over a gold file, scored by ``score.py`` (full result)."""
    from load.devset_score import scan, score_module

    preds = scan(gold_path, level)
    score = score_module()
    gold, order = score.load_gold(str(gold_path))
    return score.score(gold, order, preds, level)  # type: ignore[no-any-return]
