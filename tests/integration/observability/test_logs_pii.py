"""Known PII sent through both transports, on good and bad paths, appears nowhere in the logs."""

from __future__ import annotations

import os
import re
import shutil
import smtplib
import subprocess
import tempfile
from email.message import EmailMessage
from pathlib import Path

import pytest
from obs_helpers import FAST_GROUP, Scrubber, consume, create_topics, produce, unique, wait_until

from tests.conftest import SmtpSink, free_port, stop_process, wait_for_port

NAME = "Marguerite Okonkwo-Lindqvist"
EMAIL = "marguerite.okonkwo@example.org"
SSN = "524-59-3318"
CARD = "4556 7375 8689 9855"
PHONE = "+44 20 7946 0958"
TEXT = f"Hi, this is {NAME}. SSN {SSN}, card {CARD}, phone {PHONE}, mail {EMAIL}."
# What must not appear, also with separators dropped and in any case.
NEEDLES = [
    NAME,
    "okonkwo",
    "lindqvist",
    EMAIL,
    SSN,
    "524593318",
    CARD,
    "4556737586899855",
    "7946 0958",
    "79460958",
]


def mail() -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = f"{NAME} <{EMAIL}>"
    msg["To"] = "support@example.net"
    msg["Subject"] = f"my ssn is {SSN}"
    msg.set_content(TEXT)
    return msg


def send(port: int, msg: EmailMessage) -> None:
    with smtplib.SMTP("127.0.0.1", port, timeout=60) as client:
        client.send_message(msg, from_addr=EMAIL, to_addrs=["support@example.net", EMAIL])


def leaks(text: str) -> list[str]:
    folded = text.casefold()
    return [n for n in NEEDLES if n.casefold() in folded]


@pytest.fixture
def refusing_sink() -> tuple[int, subprocess.Popen[bytes]]:
    """An smtp-sink that refuses every RCPT with 5xx (the test stops it to make the upstream go away)."""
    port = free_port()
    cmd = ["/usr/sbin/smtp-sink"] + (["-u", "root"] if os.geteuid() == 0 else [])
    proc = subprocess.Popen([*cmd, "-f", "RCPT", f"127.0.0.1:{port}", "16"], stderr=subprocess.DEVNULL)
    wait_for_port(port, proc)
    yield port, proc
    stop_process(proc)


def test_pii_sent_through_kafka_and_smtp_never_reaches_the_logs(
    kafka_bootstrap: str, smtp_sink: SmtpSink, refusing_sink: tuple[int, subprocess.Popen[bytes]]
) -> None:
    topics = {"in": unique("pii-in"), "out": unique("pii-out"), "quarantine": unique("pii-q")}
    create_topics(kafka_bootstrap, list(topics.values()))
    relay_port, refused_port = free_port(), free_port()
    sink_port, sink_proc = refusing_sink
    main_doc = {
        "level": 7,
        "kafka": {
            "bootstrap_servers": kafka_bootstrap,
            "group_id": unique("pii"),
            "quarantine_topic": topics["quarantine"],
            "max_message_bytes": 4096,
            "routes": [{"in": topics["in"], "out": topics["out"]}],
            **FAST_GROUP,
        },
        "smtp": {
            "listen": f"127.0.0.1:{relay_port}",
            "upstream": {"host": "127.0.0.1", "port": smtp_sink.port},
            "scrub_processes": 1,
        },
    }
    refused_doc = {
        "level": 7,
        "smtp": {
            "listen": f"127.0.0.1:{refused_port}",
            "upstream": {"host": "127.0.0.1", "port": sink_port, "timeout": 5},
            "scrub_processes": 1,
        },
    }
    tmp = Path(tempfile.mkdtemp(prefix="obs-pii-"))
    try:
        (tmp / "main").mkdir()
        (tmp / "refused").mkdir()
        main = Scrubber(tmp / "main", main_doc)
        refused = Scrubber(tmp / "refused", refused_doc)
        try:
            main.wait_ready()
            refused.wait_ready()
            # Kafka: one record scrubbed and forwarded, one too large, one that is not UTF-8.
            key = f"customer {EMAIL}".encode()
            produce(kafka_bootstrap, topics["in"], [TEXT.encode()], key=key)
            produce(kafka_bootstrap, topics["in"], [(TEXT + " ").encode() * 60], key=key)
            produce(kafka_bootstrap, topics["in"], [b"\xff\xfe" + TEXT.encode("utf-16-le")], key=key)
            (clean,) = consume(kafka_bootstrap, topics["out"], 1)
            assert SSN not in clean.decode() and EMAIL not in clean.decode()
            consume(kafka_bootstrap, topics["quarantine"], 2)
            # SMTP: one relayed, one refused by the upstream, one while the upstream is gone.
            before = len(smtp_sink.files())
            send(relay_port, mail())
            smtp_sink.wait_for(before + 1)
            with pytest.raises(smtplib.SMTPException):
                send(refused_port, mail())
            stop_process(sink_proc)
            with pytest.raises(smtplib.SMTPException):
                send(refused_port, mail())
            wait_until(
                lambda: (
                    refused.value("scrubber_messages_total", transport="smtp") >= 1
                    or refused.value("scrubber_upstream_errors_total") >= 1
                ),
                60,
                "the refused paths were counted",
            )
        finally:
            rc_main, rc_refused = main.stop(), refused.stop()
        assert (rc_main, rc_refused) == (0, 0)

        for proc in (main, refused):
            text = proc.log_text()
            assert leaks(text) == [], f"{proc.log_path}: {leaks(text)}"
            records = proc.log_records()  # every line is a JSON object
            assert records[-1]["event"] == "stopped"
        events = [r["event"] for r in main.log_records()]
        quarantined = [r for r in main.log_records() if "quarantine" in r["event"]]
        assert len(quarantined) >= 2 and all(r.get("reason") for r in quarantined), quarantined
        assert any(r.get("outcome") == "forwarded" for r in main.log_records()), events
        refused_events = refused.log_records()
        assert any(r.get("level") in ("warning", "error") for r in refused_events), refused_events
        assert re.search(r"upstream", " ".join(r["event"] for r in refused_events))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
