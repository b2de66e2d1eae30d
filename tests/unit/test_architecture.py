"""ARCHITECTURE.md names real code: every module, class, method and function it cites exists."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DOC = (REPO / "ARCHITECTURE.md").read_text()
MODULES = [
    "scrubber.admin",
    "scrubber.cli",
    "scrubber.engine",
    "scrubber.findings",
    "scrubber.formats",
    "scrubber.formats.html",
    "scrubber.formats.json",
    "scrubber.formats.mime",
    "scrubber.formats.text",
    "scrubber.kafka.proxy",
    "scrubber.kafka.session",
    "scrubber.kafka.transform",
    "scrubber.mailbox",
    "scrubber.masking",
    "scrubber.observability",
    "scrubber.pipes",
    "scrubber.service",
    "scrubber.smtp.auth",
    "scrubber.smtp.delivery",
    "scrubber.smtp.relay",
    "scrubber.smtp.server",
    "scrubber.smtp.transform",
    "scrubber.supervisor",
    "scrubber.workers",
]


def cited() -> set[str]:
    """Backticked names in the text, and names along the arrows of its drawings."""
    names = set(re.findall(r"`([^`\s]+)`", DOC))
    for drawing in re.findall(r"```\n(.*?)```", DOC, flags=re.S):
        names |= set(re.findall(r"\b[A-Za-z_]+\.[A-Za-z_]+(?:/[A-Za-z_]+)?\b", drawing))
    return names


def test_every_cited_name_exists() -> None:
    modules = {m: importlib.import_module(m) for m in MODULES}
    short = {m.rsplit(".", 1)[1]: mod for m, mod in modules.items()}
    classes = {
        n: v
        for m, mod in modules.items()
        for n, v in vars(mod).items()
        if isinstance(v, type) and v.__module__ == m  # defined here, not imported (aiosmtpd's Session)
    }
    missing = []
    for name in sorted(cited()):
        if name.endswith(".py"):
            places = (REPO / name, *(REPO / "scrubber" / d / name for d in ("", "kafka", "smtp")))
            if not any(p.exists() for p in places):
                missing.append(name)
            continue
        head, _, attr = name.partition(".")
        owner = classes.get(head) or short.get(head)
        if owner is None or "/" in attr:
            continue  # not a name of ours (a library's, a Kafka call)
        if attr and not all(hasattr(owner, a) for a in attr.split("/")):
            missing.append(name)
    assert not missing, f"ARCHITECTURE.md cites what the code does not have: {missing}"
