"""A running ``scrubber run`` with both transports, scraped by promtool and a real Prometheus."""

from __future__ import annotations

import json
import re
import smtplib
import subprocess
import tempfile
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import pytest
from obs_helpers import (
    FAST_GROUP,
    Prometheus,
    Scrubber,
    consume,
    create_topics,
    http_get,
    produce,
    unique,
    wait_until,
)

from tests.conftest import SmtpSink

DASHBOARD = Path(__file__).resolve().parents[3] / "deploy" / "helm" / "scrubber" / "files" / "dashboard.json"


class Live:
    def __init__(self, scrubber: Scrubber, bootstrap: str, topics: dict[str, str], smtp_port: int) -> None:
        self.scrubber = scrubber
        self.bootstrap = bootstrap
        self.topics = topics
        self.smtp_port = smtp_port

    def send_mail(self, body: str) -> None:
        msg = EmailMessage()
        msg["From"] = "sender@example.com"
        msg["To"] = "rcpt@example.net"
        msg["Subject"] = "observability test"
        msg.set_content(body)
        with smtplib.SMTP("127.0.0.1", self.smtp_port, timeout=60) as client:
            client.send_message(msg)


@pytest.fixture(scope="module")
def live(kafka_bootstrap: str, smtp_sink: SmtpSink) -> Iterator[Live]:
    topics = {"in": unique("obs-in"), "out": unique("obs-out"), "quarantine": unique("obs-q")}
    create_topics(kafka_bootstrap, list(topics.values()))
    from tests.conftest import free_port

    smtp_port = free_port()
    doc = {
        "level": 7,
        "kafka": {
            "bootstrap_servers": kafka_bootstrap,
            "group_id": unique("obs"),
            "quarantine_topic": topics["quarantine"],
            "routes": [{"in": topics["in"], "out": topics["out"]}],
            **FAST_GROUP,
        },
        "smtp": {
            "listen": f"127.0.0.1:{smtp_port}",
            "upstream": {"host": "127.0.0.1", "port": smtp_sink.port},
            "scrub_processes": 1,
        },
    }
    with tempfile.TemporaryDirectory(prefix="obs-live-") as tmp:
        scrubber = Scrubber(Path(tmp), doc)
        try:
            scrubber.wait_ready()
            yield Live(scrubber, kafka_bootstrap, topics, smtp_port)
        finally:
            assert scrubber.stop() == 0, scrubber.log_text()[-3000:]


def test_promtool_accepts_a_live_scrape(live: Live) -> None:
    produce(live.bootstrap, live.topics["in"], [b"my ssn is 524-59-3318"])
    live.send_mail("call me at +44 20 7946 0958")
    for transport in ("smtp", "kafka"):
        counted = live.scrubber.reader("scrubber_messages_total", transport=transport)
        wait_until(lambda c=counted: c() >= 1, 60, f"{transport} message counted")
        # Readiness gauges are refreshed once a second.
        ready = live.scrubber.reader("scrubber_component_ready", component=transport)
        wait_until(lambda r=ready: r() == 1, 60, f"{transport} ready gauge")
    status, body = http_get(live.scrubber.admin + "/metrics")
    assert status == 200
    proc = subprocess.run(["promtool", "check", "metrics"], input=body, capture_output=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout == b"" and proc.stderr == b""
    text = body.decode()
    for name in (
        "scrubber_findings_total",
        "scrubber_scrub_duration_seconds_bucket",
        "scrubber_message_bytes_bucket",
    ):
        assert re.search(rf"^{name}{{", text, re.M), name


def test_the_service_runs_on_uvloop_by_default_and_says_so(live: Live) -> None:
    # Both transports served the traffic of the test above on it; the start-up line says which loop.
    live.send_mail("write to jane.roe@example.org")
    counted = live.scrubber.reader("scrubber_messages_total", transport="smtp")
    wait_until(lambda: counted() >= 1, 60, "smtp message counted")
    starting = [r for r in live.scrubber.log_records() if r["event"] == "starting"]
    assert [r["event_loop"] for r in starting] == ["uvloop"]


def test_prometheus_scrapes_a_counter_that_moves_and_every_dashboard_query_runs(live: Live) -> None:
    with tempfile.TemporaryDirectory(prefix="obs-prom-") as tmp:
        prom = Prometheus(Path(tmp), [f"127.0.0.1:{live.scrubber.admin_port}"])
        try:
            prom.wait_scraped()
            kafka_total = 'sum(scrubber_messages_total{job="scrubber", transport="kafka"})'
            before = prom.scalar(kafka_total) or 0.0
            produce(
                live.bootstrap,
                live.topics["in"],
                [f"ticket {i}: mail jane.roe@example.org".encode() for i in range(3)],
            )
            consume(live.bootstrap, live.topics["out"], 3 + int(before))
            wait_until(
                lambda: (prom.scalar(kafka_total) or 0.0) >= before + 3, 60, "prometheus saw the counter move"
            )
            found = 'sum(scrubber_findings_total{job="scrubber", entity="EMAIL_ADDRESS"})'
            assert (prom.scalar(found) or 0.0) >= 3
            # Give rate() two scrapes' worth of data, then run the dashboard as Grafana would.
            wait_until(
                lambda: prom.scalar(f"sum(rate({kafka_total[4:-1]}[1m]))") not in (None, 0.0),
                60,
                "a non-zero rate",
            )
            dash = json.loads(DASHBOARD.read_text())
            empty = []
            for panel in dash["panels"]:
                for target in panel.get("targets", []):
                    expr = (
                        target["expr"]
                        .replace("$__rate_interval", "1m")
                        .replace('namespace=~"$namespace", job=~"$job"', 'job=~".*"')
                    )
                    if not prom.query(expr)["data"]["result"]:
                        empty.append(panel["title"])
            # Panels about things this run never did (lag while idle is 0, not empty) may be empty;
            # the core ones must show data.
            for title in (
                "Messages / s",
                "Messages by outcome",
                "Findings by entity",
                "Scrub latency percentiles",
                "Consumer lag",
                "CPU",
            ):
                assert title not in empty, empty
        finally:
            prom.stop()


def test_the_readmes_metrics_command_lists_scrubbers_own_series(live: Live) -> None:
    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text()
    (cmd,) = re.findall(r"^curl .*/metrics \| grep \^scrubber_$", readme, re.M)
    cmd = cmd.replace("http://127.0.0.1:9108", live.scrubber.admin)
    res = subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=30)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines and all(line.startswith("scrubber_") for line in lines)
    assert any(line.startswith("scrubber_build_info{") for line in lines)
