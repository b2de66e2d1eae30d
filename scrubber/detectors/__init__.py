"""Detectors: small objects that turn text into findings.

Every detector has a ``name``, the ``entities`` it can produce and ``detect(text, ctx)``; the
engine holds one list of them per policy, built once, and gives each message one
``MessageContext``. Detectors know nothing of transports.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from scrubber.detectors.validators.base import Memo
from scrubber.detectors.validators.ip import IpPolicy
from scrubber.findings import Finding

# Seconds one regular-expression call may take (on up to patterns.TIMEOUT_CHARS characters;
# a longer text gets proportionally more): the default of ``limits.regex_timeout_ms``.
REGEX_TIMEOUT = 0.5
# How many matches or words a detector's inner loop takes between two looks at the deadline
# (MessageContext.check), on a long line.
CHECK_EVERY = 256


class TimeBudgetExceeded(Exception):
    """The message ran past the engine's time budget (``Scrubber(time_budget=...)``)."""


@dataclass(slots=True)
class MessageContext:
    """What the engine tells the detectors about the message being scrubbed; one per message."""

    # time.monotonic() past which the message is over its time budget; None: no budget.
    deadline: float | None = None
    # Which address ranges the policy masks.
    ips: IpPolicy = field(default_factory=IpPolicy)
    # The score from which the engine keeps a finding (the policy's ``min_score``).
    min_score: float = 0.5
    # The findings of the detectors before this one that the engine acts on (past its policy
    # checks), in their order: a detector may spare work whose outcome they settle.
    kept: list[Finding] = field(default_factory=list)
    # Findings that work spared on the strength of ``kept`` could have made, for the engine to
    # check once every detector has run (see engine._spared_idle).
    spared: list[Finding] = field(default_factory=list)
    # What validators worked out about the values of this message: it goes with the message.
    memo: Memo = field(default_factory=Memo)
    # Where the values that detectors before this one found start, whether kept or not: a run
    # of digits is split there ("6789 (415) 555-2671" is a partial and a phone).
    starts: set[int] = field(default_factory=set)

    def check(self, where: str) -> None:
        """Raise TimeBudgetExceeded if the message is past its deadline: detectors call it
        between lines, so that a long message stops soon after its budget, not at the end of
        the detector that was running."""
        if self.deadline is not None and time.monotonic() >= self.deadline:
            raise TimeBudgetExceeded(where)

    def without_findings(self) -> MessageContext:
        """The same message read another way (a table's columns): its deadline, policy and
        memo, but nothing kept, since offsets in the other reading are not the message's."""
        return MessageContext(self.deadline, self.ips, self.min_score, memo=self.memo)


class Detector(Protocol):
    name: str
    entities: frozenset[str]

    def detect(self, text: str, ctx: MessageContext) -> list[Finding]:
        """Findings in ``text``; offsets index ``text``."""


@runtime_checkable
class BatchDetector(Detector, Protocol):
    def detect_many(self, texts: Sequence[str], ctxs: Sequence[MessageContext]) -> list[list[Finding]]:
        """``detect`` of each of ``texts`` with its context; faster than calling it in a loop."""
