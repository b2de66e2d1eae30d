"""Formats: turn a message's bytes into the text units the engine scrubs, and back.

A format parses a payload into a :class:`Document` whose ``texts`` are scrubbed (in one batch,
together with other documents); ``render`` puts the scrubbed texts back in place. Formats know
nothing of detection or of transports. A payload that cannot be parsed raises
:class:`FormatError` with a short, fixed, metric-safe ``reason``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class FormatError(ValueError):
    """A payload the format cannot take apart; ``reason`` is a metric-safe code."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


class Document(Protocol):
    @property
    def texts(self) -> Sequence[str]:
        """The text units to scrub, in a fixed order."""

    def render(self, scrubbed: Sequence[str]) -> bytes:
        """The payload with ``texts`` replaced, one for one, by ``scrubbed``."""


class Format(Protocol):
    name: str

    def parse(self, payload: bytes) -> Document:
        """Take ``payload`` apart; raises :class:`FormatError`."""
