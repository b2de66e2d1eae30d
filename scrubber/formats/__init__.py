"""Formats: turn a message's bytes into the text units the engine scrubs, and back.

A format parses a payload into a :class:`Document` whose ``texts`` are scrubbed (in one batch,
together with other documents); ``render`` puts the scrubbed texts back in place. Formats know
nothing of detection or of transports, and never mask. The MIME format renders from each unit's
:class:`Result` instead of its text alone: it masks text other than the engine saw (undecodable
bytes are kept; HTML is edited at its source), and for that it is handed the engine's
:data:`Mask`. A payload that cannot be parsed raises :class:`FormatError` with a short, fixed,
metric-safe ``reason``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from scrubber.findings import Finding

# The engine's masker (Scrubber.apply): a text with the given findings replaced as the policy says.
Mask = Callable[[str, Sequence[Finding]], str]


class Result(Protocol):
    """What the engine made of one text unit (a ScrubResult)."""

    @property
    def text(self) -> str:
        """The scrubbed text."""

    @property
    def findings(self) -> Sequence[Finding]:
        """The masked findings, in the unit's offsets, sorted and disjoint."""

    @property
    def observed(self) -> Sequence[Finding]:
        """Findings only counted, not masked (dial level 0)."""


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

    @property
    def contexts(self) -> Sequence[str]:
        """What stands before each text where it came from (a JSON value's key), read with it by
        detection but never changed; "" for none."""

    def render(self, scrubbed: Sequence[str]) -> bytes:
        """The payload with ``texts`` replaced, one for one, by ``scrubbed``."""


class Format(Protocol):
    name: str

    def parse(self, payload: bytes) -> Document:
        """Take ``payload`` apart; raises :class:`FormatError`."""
