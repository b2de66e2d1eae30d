"""A broker that goes away does not flood the log: library records are rate-limited and counted."""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

from obs_helpers import FAST_GROUP, Scrubber, create_topics, unique, wait_until

from scrubber import logs
from scrubber.embedded import Broker
from tests.conftest import free_port


def test_a_dead_broker_logs_a_few_lines_per_window_and_counts_the_rest(tmp_path: Path) -> None:
    broker = Broker.start(free_port(), tmp_path / "tansu.log")
    topics = {"in": unique("rate-in"), "out": unique("rate-out"), "quarantine": unique("rate-q")}
    try:
        create_topics(broker.bootstrap, list(topics.values()))
        doc = {
            "kafka": {
                "bootstrap_servers": broker.bootstrap,
                "quarantine_topic": topics["quarantine"],
                "routes": [{"in": topics["in"], "out": topics["out"]}],
                **FAST_GROUP,
                "drain_timeout": 2,  # nothing can be drained from a dead broker: stop soon
            },
            "logging": {"format": "json", "level": "info"},
        }
        proc = Scrubber(tmp_path, doc)
        try:
            proc.wait_ready()
        finally:
            broker.process.kill()
            broker.process.wait()
        # Enough left out that a flood there was: aiokafka retries many times a second.
        wait_until(
            lambda: proc.value("scrubber_log_records_suppressed_total") >= 100, 120, "suppressed records"
        )
    finally:
        proc.stop()
        broker.stop()
    library = [r for r in proc.log_records() if r["logger"].startswith("aiokafka")]
    kinds = Counter(_kind(r) for r in library)
    # Per kind, at most a burst per window over the span its lines cover.
    for kind, written in kinds.items():
        times = [datetime.fromisoformat(r["timestamp"]) for r in library if _kind(r) == kind]
        windows = 1 + int((max(times) - min(times)).total_seconds() // logs.LIBRARY_WINDOW) + 1
        assert written <= logs.LIBRARY_BURST * windows, kind
    # What was left out is said in the log too, as a count on the next line of its kind: far
    # more than was written.
    said = sum(r.get("suppressed", 0) for r in library)
    assert said > 2 * len(library)


def _kind(record: dict[str, Any]) -> tuple[str, str, str]:
    return record["logger"], record["level"], record["event"]
