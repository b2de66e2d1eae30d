"""The SMTP transform: one e-mail message in, the scrubbed message and its findings' counts out.

Pure and synchronous, like the Kafka transform, and in the same three steps: the MIME format
takes the message apart into text units (:meth:`~scrubber.formats.mime.MimeFormat.parse`), the
engine scrubs them (``scrub_many``, in batches: the message's deadline is checked between them),
and the format renders the message from the results. It runs in a scrub worker
(:class:`SmtpJob`, in a process or a thread of the relay: :mod:`scrubber.workers`), and knows
nothing of sessions or upstreams.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from scrubber.detectors import REGEX_TIMEOUT
from scrubber.dial import Policy
from scrubber.engine import Scrubber, ScrubError, ScrubResult
from scrubber.formats import FormatError
from scrubber.formats.mime import MimeFormat, MimeOptions
from scrubber.observability import finding_counts, per_entity
from scrubber.smtp.delivery import wire_form

# Text units go to the engine in batches of about this many characters.
BATCH_CHARS = 128 * 1024


@dataclass(frozen=True)
class Scrubbed:
    """A scrubbed message: its bytes, and what was found in it as counts (never the findings
    themselves: a 5 MB text has some 26,000, and unpickling them held the relay's event loop
    for 0.14 s)."""

    data: bytes
    counts: tuple[tuple[str, str, int], ...]  # (entity, detector family, findings), masked or not
    masked: int  # findings masked (none at level 0, where they are only counted)
    parts: int
    stripped: int = 0  # attachments replaced by a note
    wire: bool = False  # data is in wire form (see scrubber.smtp.delivery.wire_form)

    @property
    def findings(self) -> int:
        return sum(n for _, _, n in self.counts)

    def entities(self) -> dict[str, int]:
        """Findings per entity, masked and observed together."""
        return per_entity(self.counts)


def scrub_message(
    data: bytes, scrubber: Scrubber, options: MimeOptions | None = None, *, deadline: float | None = None
) -> Scrubbed:
    """Scrub one RFC 5322 message. ``deadline`` is a ``time.monotonic`` value; passing it between
    two batches of text raises ``ScrubError("time_budget")``. A message the format refuses raises
    :class:`~scrubber.formats.FormatError`."""
    doc = MimeFormat(options or MimeOptions(), scrubber.apply, scrubber.policy.level).parse(data)
    results = _scrub_texts(scrubber, doc.texts, deadline)
    masked = sum(len(r.findings) for r in results)
    return Scrubbed(doc.render(results), finding_counts(results), masked, doc.parts, doc.stripped)


def _scrub_texts(scrubber: Scrubber, texts: Sequence[str], deadline: float | None) -> list[ScrubResult]:
    """Scrub ``texts`` in batches, checking the deadline before each batch."""
    results: list[ScrubResult] = []
    batch: list[str] = []
    size = 0
    for i, text in enumerate(texts):
        batch.append(text)
        size += len(text)
        if size >= BATCH_CHARS or i == len(texts) - 1:
            if deadline is not None and time.monotonic() > deadline:
                raise ScrubError("time_budget", "message took longer than its time budget")
            results.extend(scrubber.scrub_many(batch))
            batch, size = [], 0
    return results


@dataclass(frozen=True)
class SmtpJob:
    """The SMTP transform in a scrub worker (:mod:`scrubber.workers`): a request is
    ``(message, budget)``, the reply what :func:`run_job` returns."""

    policy: Policy
    options: MimeOptions
    regex_timeout: float = REGEX_TIMEOUT
    detectors: bool = True  # False: none at all, to measure the relay's own cost (load/)
    # The scrubbed message comes back as DATA sends it (dot-stuffed): made here, not in 14 ms
    # (5 MB) on the relay's event loop.
    wire: bool = False

    def start(self) -> Callable[[Any], tuple[Any, ...]]:
        scrubber = Scrubber(
            self.policy, detectors=None if self.detectors else [], regex_timeout=self.regex_timeout
        )
        scrubber.warm_up()

        def handle(request: Any) -> tuple[Any, ...]:
            data, budget = request
            return run_job(scrubber, self, data, budget)

        return handle


def run_job(scrubber: Scrubber, job: SmtpJob, data: bytes, budget: float) -> tuple[Any, ...]:
    """One message: ``("ok", Scrubbed)`` or ``("error", reason, detail)``; never raises."""
    try:
        scrubbed = scrub_message(data, scrubber, job.options, deadline=time.monotonic() + budget)
    except (ScrubError, FormatError) as exc:
        return ("error", exc.reason, exc.detail)
    except Exception as exc:  # a bug or a parser limit (deep nesting): refuse the message, never crash
        return ("error", "internal_error", type(exc).__name__)
    ready = wire_form(scrubbed.data) if job.wire else None
    if ready is not None:
        scrubbed = dataclasses.replace(scrubbed, data=ready, wire=True)
    return ("ok", scrubbed)
