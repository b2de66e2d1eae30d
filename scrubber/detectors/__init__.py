"""Detectors: small objects that turn text into findings.

Every detector has a ``name``, the ``entities`` it can produce and ``detect(text)``; the engine
holds one list of them per policy, built once. Detectors know nothing of transports.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol, runtime_checkable

from scrubber.findings import Finding


@runtime_checkable
class Detector(Protocol):
    name: str
    entities: frozenset[str]

    def detect(self, text: str) -> Iterable[Finding]:
        """Findings in ``text``; offsets index ``text``."""


@runtime_checkable
class BatchDetector(Detector, Protocol):
    def detect_many(self, texts: Sequence[str]) -> list[list[Finding]]:
        """Findings for each of ``texts``; faster than calling ``detect`` in a loop."""
