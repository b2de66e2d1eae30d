"""Metric definitions: names, label sets, and that multi-process mode sums them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from prometheus_client import REGISTRY, CollectorRegistry, Gauge, multiprocess
from prometheus_client.metrics import MetricWrapperBase

from scrubber import __version__, observability
from scrubber.engine import ScrubResult
from scrubber.findings import Finding

METRICS = {name: obj for name, obj in vars(observability).items() if isinstance(obj, MetricWrapperBase)}

# Labels a metric may carry; none of them is message content or a user-chosen value.
ALLOWED_LABELS = {
    "transport",
    "route",
    "outcome",
    "entity",
    "detector",
    "topic",
    "partition",
    "kind",
    "reason",
    "component",
    "version",
    "python",
    "logger",  # a library's logger name (aiokafka.conn...): named in its code, a bounded set
}


def test_every_metric_is_prefixed_and_labelled_only_with_bounded_labels() -> None:
    assert len(METRICS) >= 14
    for name, metric in METRICS.items():
        assert metric._name.startswith("scrubber_"), name
        assert set(metric._labelnames) <= ALLOWED_LABELS, (name, metric._labelnames)


def test_gauges_aggregate_without_a_pid_label_in_multiprocess_mode() -> None:
    for name, metric in METRICS.items():
        if isinstance(metric, Gauge):
            assert metric._multiprocess_mode.startswith(("live", "max", "min", "sum")), name


def test_build_info_names_the_version() -> None:
    labels = {"version": __version__, "python": sys.version.split()[0]}
    assert REGISTRY.get_sample_value("scrubber_build_info", labels) == 1.0


def test_findings_are_counted_by_entity_and_detector_family() -> None:
    def value() -> float:
        labels = {"entity": "US_SSN", "detector": "pattern"}
        return REGISTRY.get_sample_value("scrubber_findings_total", labels) or 0.0

    before = value()
    results = [
        ScrubResult(
            "x",
            (Finding(0, 1, "US_SSN", 1.0, "pattern:us_ssn_formatted"),),
            (Finding(2, 3, "US_SSN", 1.0, "pattern:us_ssn_plain"),),
        ),
        ScrubResult("y", (Finding(0, 1, "PERSON", 0.9, "names:greeting"),)),
    ]
    counts = observability.finding_counts(results)
    assert counts == (("PERSON", "names", 1), ("US_SSN", "pattern", 2))
    observability.TransportMetrics("kafka").found(counts)
    assert value() == before + 2


CHILD = """
import os, sys
from scrubber.observability import MESSAGES, SMTP_SESSIONS, KAFKA_LAG
MESSAGES.labels("kafka", "chat.raw", "forwarded").inc(3)
SMTP_SESSIONS.inc(2)
KAFKA_LAG.labels("chat.raw", "0").set(int(sys.argv[1]))
print(os.getpid())
"""


def test_one_collection_shows_the_sum_over_processes(tmp_path: Path) -> None:
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path)}
    pids = [
        int(
            subprocess.run(
                [sys.executable, "-c", CHILD, str(lag)], env=env, check=True, timeout=60, capture_output=True
            ).stdout
        )
        # The partition's lag as its first owner left it, then as the owner after a rebalance saw it.
        for lag in (500, 7)
    ]
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry, path=str(tmp_path))  # type: ignore[no-untyped-call]
    labels = {"transport": "kafka", "route": "chat.raw", "outcome": "forwarded"}
    assert registry.get_sample_value("scrubber_messages_total", labels) == 6.0
    assert (
        registry.get_sample_value(
            "scrubber_build_info", {"version": __version__, "python": sys.version.split()[0]}
        )
        == 1.0
    )
    partition = {"topic": "chat.raw", "partition": "0"}
    assert registry.get_sample_value("scrubber_kafka_consumer_lag", partition) == 7.0
    assert registry.get_sample_value("scrubber_smtp_sessions") == 4.0
    # What the supervisor does when a worker exits: its live gauges go, its counters stay.
    multiprocess.mark_process_dead(pids[0], str(tmp_path))  # type: ignore[no-untyped-call]
    assert registry.get_sample_value("scrubber_smtp_sessions") == 2.0
    assert registry.get_sample_value("scrubber_messages_total", labels) == 6.0
