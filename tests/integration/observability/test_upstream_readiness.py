"""Readiness stays local: an SMTP upstream that is down is a /readyz detail, a gauge and an alert."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path

from obs_helpers import Scrubber, http_get, wait_until

from tests.conftest import free_port, stop_process, wait_for_port


def readyz(proc: Scrubber) -> tuple[int, dict[str, object]]:
    status, body = http_get(proc.admin + "/readyz")
    return status, json.loads(body)


def test_an_unreachable_upstream_is_reported_but_keeps_the_pod_ready(tmp_path: Path) -> None:
    upstream = free_port()
    doc = {
        "smtp": {"listen": f"127.0.0.1:{free_port()}", "upstream": {"port": upstream}, "scrub_processes": 0}
    }
    proc = Scrubber(tmp_path, doc)
    sink: subprocess.Popen[bytes] | None = None
    try:
        proc.wait_ready()
        wait_until(lambda: readyz(proc)[1].get("details") == {"smtp_upstream": "unreachable"}, 60, "probe")
        status, body = readyz(proc)
        assert status == 200 and body["ready"] is True
        assert proc.value("scrubber_upstream_up", transport="smtp") == 0
        # The upstream comes (a real smtp-sink): the next probe sees it.
        dump = Path(tempfile.mkdtemp(prefix="sink-"))
        cmd = ["/usr/sbin/smtp-sink"] + (["-u", "root"] if os.geteuid() == 0 else [])
        sink = subprocess.Popen(
            [*cmd, "-d", f"{dump}/%s.", f"127.0.0.1:{upstream}", "16"], stderr=subprocess.DEVNULL
        )
        wait_for_port(upstream, sink)
        wait_until(
            lambda: readyz(proc)[1].get("details") == {"smtp_upstream": "reachable"}, 60, "second probe"
        )
        assert proc.value("scrubber_upstream_up", transport="smtp") == 1
    finally:
        proc.stop()
        if sink is not None:
            stop_process(sink)
    events = [r["event"] for r in proc.log_records()]
    assert "smtp.upstream_unreachable" in events and "smtp.upstream_reachable" in events
