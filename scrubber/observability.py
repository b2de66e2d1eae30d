"""Metrics (prometheus-client) and logging (structlog). Labels and logs never carry content."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram, Info

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
KAFKA_LAG = Gauge("scrubber_kafka_consumer_lag", "Records behind the partition end", ["topic", "partition"])
KAFKA_IN_FLIGHT = Gauge("scrubber_kafka_in_flight", "Records consumed but not yet committed")
SMTP_SESSIONS = Gauge("scrubber_smtp_sessions", "Open SMTP sessions")
UPSTREAM_ERRORS = Counter("scrubber_upstream_errors", "Errors talking to the next hop", ["transport", "kind"])
QUARANTINED = Counter(
    "scrubber_quarantined", "Messages held back instead of forwarded", ["transport", "reason"]
)
REGEX_TIMEOUTS = Counter("scrubber_regex_timeouts", "Pattern runs that exceeded their time budget")
BUILD_INFO = Info("scrubber_build", "Version of the running scrubber")


def record_findings(result: ScrubResult) -> None:
    """Count a result's findings by entity and detector family (``pattern``, ``grammar``...)."""
    for f in (*result.findings, *result.observed):
        FINDINGS.labels(f.entity, f.detector.split(":", 1)[0]).inc()
