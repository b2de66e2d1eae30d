"""An upstream failure is logged with the host, the port and the error, never the reply's text."""

from __future__ import annotations

import smtplib
from collections.abc import Callable

import pytest
from smtp_helpers import RelayRunner

from tests.conftest import free_port


def test_upstream_down_names_host_port_and_error(
    start_relay: Callable[..., RelayRunner], capfd: pytest.CaptureFixture[str]
) -> None:
    port = free_port()
    relay = start_relay(upstream={"host": "127.0.0.1", "port": port, "timeout": 2})
    capfd.readouterr()
    with (
        smtplib.SMTP("127.0.0.1", relay.port, timeout=30) as client,
        pytest.raises(smtplib.SMTPSenderRefused),
    ):
        client.sendmail("sam@example.com", ["rcpt@example.org"], b"Subject: hi\r\n\r\nhello\r\n")
    (line,) = [x for x in capfd.readouterr().out.splitlines() if "smtp.upstream_error" in x]
    assert f"upstream=127.0.0.1:{port}" in line
    assert "kind=connect" in line
    assert "SMTPConnectError" in line and "Connect" in line
