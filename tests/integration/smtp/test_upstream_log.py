"""An upstream failure is logged with the host, the port and the error, never the reply's text."""

from __future__ import annotations

import smtplib
from collections.abc import Callable

import pytest
from smtp_helpers import RelayRunner

from tests.conftest import LogLines, free_port


def test_upstream_down_names_host_port_and_error(
    start_relay: Callable[..., RelayRunner], log_lines: LogLines
) -> None:
    port = free_port()
    relay = start_relay(upstream={"host": "127.0.0.1", "port": port, "timeout": 2})
    with (
        smtplib.SMTP("127.0.0.1", relay.port, timeout=30) as client,
        pytest.raises(smtplib.SMTPSenderRefused),
    ):
        client.sendmail("sam@example.com", ["rcpt@example.org"], b"Subject: hi\r\n\r\nhello\r\n")
    (line,) = [x for x in log_lines() if x["event"] == "smtp.upstream_error"]
    assert line["upstream"] == f"127.0.0.1:{port}"
    assert line["kind"] == "connect"
    assert "SMTPConnectError" in line["error"] and "Connect" in line["error"]
