"""``scrubber run --workers 2``: one scrape shows the sum, workers are restarted, signals stop all."""

from __future__ import annotations

import json
import os
import signal
import tempfile
from pathlib import Path
from typing import Any

import pytest
from obs_helpers import FAST_GROUP, Scrubber, consume, create_topics, http_get, produce, unique, wait_until


def kafka_doc(bootstrap: str, topics: dict[str, str], **extra: Any) -> dict[str, Any]:
    return {
        "level": 7,
        "kafka": {
            "bootstrap_servers": bootstrap,
            "group_id": unique("workers"),
            "quarantine_topic": topics["quarantine"],
            "routes": [{"in": topics["in"], "out": topics["out"]}],
            **FAST_GROUP,
            # Each worker scrubs in processes of its own (the default on two CPUs): killing a
            # worker must leave nothing behind for anyone to complain about on stderr.
            "scrub_processes": 2,
            **extra,
        },
    }


def assignments(s: Scrubber) -> dict[int, list[str]]:
    """The latest partition assignment each worker logged."""
    out: dict[int, list[str]] = {}
    for rec in s.log_records():
        if rec["event"] == "kafka_assigned":
            out[rec["worker"]] = rec["partitions"]
        elif rec["event"] == "kafka_revoked":
            out[rec["worker"]] = []
    return out


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_two_workers_one_scrape_restart_and_clean_stop(kafka_bootstrap: str) -> None:
    topics = {"in": unique("w-in"), "out": unique("w-out"), "quarantine": unique("w-q")}
    create_topics(kafka_bootstrap, [topics["in"]], partitions=2)
    create_topics(kafka_bootstrap, [topics["out"], topics["quarantine"]])
    with tempfile.TemporaryDirectory(prefix="obs-workers-") as tmp:
        s = Scrubber(Path(tmp), kafka_doc(kafka_bootstrap, topics), "--workers", "2")
        try:
            s.wait_ready()
            _, body = http_get(s.admin + "/readyz")
            assert json.loads(body)["checks"] == {"worker-0": True, "worker-1": True}
            # Wait until the group has settled with one partition per worker.
            wait_until(
                lambda: sorted(len(p) for p in assignments(s).values()) == [1, 1], 60, "one partition each"
            )
            messages = s.reader("scrubber_messages_total", transport="kafka")
            for partition in (0, 1):
                produce(kafka_bootstrap, topics["in"], [b"ssn 524-59-3318"] * 10, partition=partition)
            consume(kafka_bootstrap, topics["out"], 20)
            wait_until(lambda: messages() == 20, 60, "20 messages in one scrape")
            assert s.value("scrubber_workers") == 2
            assert s.value("scrubber_findings_total", entity="US_SSN") == 20
            assert s.value("process_resident_memory_bytes") > 0
            assert s.value("scrubber_build_info") == 1  # one series, not one per worker

            pids = {r["worker"]: r["worker_pid"] for r in s.log_records() if r["event"] == "worker started"}
            os.kill(pids[1], signal.SIGKILL)
            wait_until(lambda: s.value("scrubber_worker_restarts_total") == 1, 60, "worker restarted")
            s.wait_ready()
            # The dead worker's counts stay in the sum; the new one adds to it.
            assert messages() >= 20
            produce(kafka_bootstrap, topics["in"], [b"ssn 524-59-3318"] * 5, partition=1)
            produce(kafka_bootstrap, topics["in"], [b"ssn 524-59-3318"] * 5, partition=0)
            wait_until(lambda: messages() >= 30, 90, "30 messages after the restart")
            workers = [r["worker_pid"] for r in s.log_records() if r["event"] == "worker started"]
        finally:
            rc = s.stop()
        assert rc == 0, s.log_text()[-3000:]
        not_json = [ln for ln in s.log_text().splitlines() if ln.strip() and not ln.startswith("{")]
        assert not not_json, not_json[:5]
        assert len(workers) == 3 and not any(alive(pid) for pid in workers)
        events = [r["event"] for r in s.log_records()]
        assert "worker exited" in events and events[-1] == "supervisor stopped"
        # Each worker (the two first ones and the one started after the kill) serves on uvloop.
        loops = [r["event_loop"] for r in s.log_records() if r["event"] == "starting"]
        assert loops == ["uvloop"] * 3
        # Two workers of two scrub processes each: more than this machine's CPUs?
        crowded = len(os.sched_getaffinity(0)) < 4
        assert ("kafka scrub processes outnumber the CPUs" in events) == crowded


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_configuration_that_cannot_start_exits_with_code_2(kafka_bootstrap: str, workers: str) -> None:
    topics = {"in": unique("bad-in"), "out": unique("bad-out"), "quarantine": unique("bad-q")}
    security = {
        "security_protocol": "SASL_PLAINTEXT",
        "sasl_mechanism": "PLAIN",
        "sasl_plain_username": "scrubber",
        "sasl_plain_password_env": "SCRUBBER_TEST_UNSET_PASSWORD",
    }
    with tempfile.TemporaryDirectory(prefix="obs-bad-") as tmp:
        s = Scrubber(Path(tmp), kafka_doc(kafka_bootstrap, topics, security=security), "--workers", workers)
        assert s.proc.wait(120) == 2
        records = s.log_records()
        errors = [r for r in records if r["level"] == "error"]
        assert any("SCRUBBER_TEST_UNSET_PASSWORD" in r.get("error", "") for r in errors), records
        if workers == "2":
            assert any("giving up" in r["event"] for r in errors)
