"""Metrics (prometheus-client). Labels never carry content: only configured route names,
transport names, outcome and reason codes, entity types and detector families.

Multi-process mode (``scrubber run --workers N``): the supervisor sets ``PROMETHEUS_MULTIPROC_DIR``
before it starts the workers, so every metric below is backed by a file in that directory and the
supervisor's ``/metrics`` shows the sum. That is why each gauge names its ``multiprocess_mode``
(ignored in a single process) and why build info is a gauge, not an ``Info`` (which has no
multi-process support).
"""

from __future__ import annotations

import platform
from collections.abc import Iterable
from typing import Any

from prometheus_client import Counter, Gauge, Histogram

from scrubber import __version__
from scrubber.engine import ScrubResult

MESSAGES = Counter(
    "scrubber_messages",
    "Messages handled, by transport, route and outcome",
    ["transport", "route", "outcome"],
)
FINDINGS = Counter("scrubber_findings", "Findings, by entity and detector family", ["entity", "detector"])
SCRUB_SECONDS = Histogram(
    "scrubber_scrub_duration_seconds",
    "Time spent scrubbing one message",
    ["transport"],
    buckets=(
        0.00005,
        0.0001,
        0.00025,
        0.0005,
        0.001,
        0.0025,
        0.005,
        0.01,
        0.025,
        0.05,
        0.1,
        0.25,
        0.5,
        1,
        2.5,
        5,
    ),
)
MESSAGE_BYTES = Histogram(
    "scrubber_message_bytes",
    "Size of messages handled",
    ["transport"],
    buckets=(64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864),
)
# A partition moves between workers on a rebalance, and a label cannot be removed from another
# process's file: the value set most recently (by the partition's current owner) is the one shown.
KAFKA_LAG = Gauge(
    "scrubber_kafka_consumer_lag",
    "Records behind the partition end",
    ["topic", "partition"],
    multiprocess_mode="livemostrecent",
)
KAFKA_IN_FLIGHT = Gauge(
    "scrubber_kafka_in_flight", "Records consumed but not yet committed", multiprocess_mode="livesum"
)
SMTP_SESSIONS = Gauge("scrubber_smtp_sessions", "Open SMTP sessions", multiprocess_mode="livesum")
UPSTREAM_ERRORS = Counter("scrubber_upstream_errors", "Errors talking to the next hop", ["transport", "kind"])
QUARANTINED = Counter(
    "scrubber_quarantined", "Messages held back instead of forwarded", ["transport", "reason"]
)
WORKER_RESTARTS = Counter(
    "scrubber_worker_restarts",
    "Scrub worker processes that died (or were stopped past their time budget) and were replaced",
    ["transport"],
)
REGEX_TIMEOUTS = Counter("scrubber_regex_timeouts", "Pattern runs that exceeded their time budget")
SMTP_TLS_FAILURES = Counter("scrubber_smtp_tls_failures", "STARTTLS handshakes with clients that failed")
SMTP_AUTH_FAILURES = Counter("scrubber_smtp_auth_failures", "SMTP AUTH attempts that were refused")
SMTP_REFUSED = Counter(
    "scrubber_smtp_refused",
    "SMTP connections and recipients refused by the relay's own rules, by reason",
    ["reason"],  # network | sessions | recipients
)
UPSTREAM_UP = Gauge(
    "scrubber_upstream_up",
    "1 when the next hop answered the last reachability probe, 0 when it did not (not part of readiness)",
    ["transport"],
    multiprocess_mode="livemin",
)
COMPONENT_READY = Gauge(
    "scrubber_component_ready",
    "1 when the component (transport, rules) is ready, by component; the minimum over workers",
    ["component"],
    multiprocess_mode="livemin",
)
LOG_SUPPRESSED = Counter(
    "scrubber_log_records_suppressed",
    "Library log records not written because the same kind came too often (see logs.LibraryRate)",
    ["logger"],
)
LOG_REDACTIONS = Counter(
    "scrubber_log_redactions",
    "Log fields refused (raw-content key) or redacted (value looked like PII), by reason",
    ["reason"],
)
BUILD_INFO = Gauge(
    "scrubber_build_info",
    "Always 1; the labels say which scrubber and Python are running",
    ["version", "python"],
    multiprocess_mode="max",
)
BUILD_INFO.labels(__version__, platform.python_version()).set(1)


def finding_counts(results: Iterable[ScrubResult]) -> tuple[tuple[str, str, int], ...]:
    """(entity, detector family, findings) over ``results``, masked and observed, sorted: what
    ``scrubber_findings_total`` counts, in a form cheap to send back from a scrub process."""
    tally: dict[tuple[str, str], int] = {}
    for r in results:
        for f in (*r.findings, *r.observed):
            key = (f.entity, f.detector.split(":", 1)[0])
            tally[key] = tally.get(key, 0) + 1
    return tuple((entity, family, n) for (entity, family), n in sorted(tally.items()))


def per_entity(counts: Iterable[tuple[str, str, int]]) -> dict[str, int]:
    """Findings per entity, over the detector families of :func:`finding_counts`."""
    out: dict[str, int] = {}
    for entity, _family, n in counts:
        out[entity] = out.get(entity, 0) + n
    return out


class TransportMetrics:
    """One transport's message metrics, each label child looked up once: per Kafka record,
    ``labels()`` would cost more than the send."""

    def __init__(self, transport: str) -> None:
        self.transport = transport
        self.message_bytes = MESSAGE_BYTES.labels(transport)
        self.scrub_seconds = SCRUB_SECONDS.labels(transport)
        self._outcomes: dict[tuple[str, str], Any] = {}
        self._findings: dict[tuple[str, str], Any] = {}

    def outcome(self, route: str, outcome: str) -> Any:
        """The messages_total child for this route and outcome."""
        key = (route, outcome)
        child = self._outcomes.get(key)
        if child is None:
            child = self._outcomes[key] = MESSAGES.labels(self.transport, route, outcome)
        return child

    def found(self, counts: Iterable[tuple[str, str, int]]) -> None:
        """Count findings given as :func:`finding_counts` gives them (the one findings counter)."""
        for entity, family, n in counts:
            key = (entity, family)
            child = self._findings.get(key)
            if child is None:
                child = self._findings[key] = FINDINGS.labels(entity, family)
            child.inc(n)
