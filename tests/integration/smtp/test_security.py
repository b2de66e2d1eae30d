"""No open relay: allowed networks, STARTTLS, AUTH only over TLS against the users file, limits."""

from __future__ import annotations

import smtplib
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import structlog.testing
from smtp_helpers import PASSWORD, USER, RelayRunner, find, marker, metric, received, tagged

from scrubber.smtp.auth import UsersFile, UsersFileError, entry
from tests.conftest import SmtpSink

MESSAGE = b"Subject: hi\r\n\r\nmail jane.roe@example.com\r\n"


# --------------------------------------------------------------------------- networks
@pytest.fixture(scope="module")
def local_only(start_relay: Callable[..., RelayRunner], smtp_sink: SmtpSink) -> RelayRunner:
    return start_relay(upstream={"port": smtp_sink.port}, allowed_networks=["127.0.0.1/32"])


def test_client_from_a_disallowed_network_is_refused(local_only: RelayRunner, smtp_sink: SmtpSink) -> None:
    before = metric("scrubber_smtp_refused_total", reason="network")
    with pytest.raises(smtplib.SMTPConnectError) as exc:
        smtplib.SMTP("127.0.0.1", local_only.port, source_address=("127.0.0.2", 0), timeout=10)
    assert exc.value.smtp_code == 554
    assert metric("scrubber_smtp_refused_total", reason="network") == before + 1


def test_swaks_open_relay_attempt_is_refused(local_only: RelayRunner, smtp_sink: SmtpSink) -> None:
    token = marker()
    run = subprocess.run(
        [
            "swaks", "--server", f"127.0.0.1:{local_only.port}", "--local-interface", "127.0.0.2",
            "--from", "spammer@example.net", "--to", "victim@example.org",
            "--header", f"X-Test-Id: {token}", "--timeout", "10",
        ],
        capture_output=True,
        text=True,
    )  # fmt: skip
    assert run.returncode != 0
    assert "554 5.7.1" in run.stdout
    time.sleep(0.2)
    assert not received(smtp_sink, token)


def test_allowed_client_gets_through(local_only: RelayRunner, smtp_sink: SmtpSink) -> None:
    token = marker()
    with smtplib.SMTP("127.0.0.1", local_only.port, source_address=("127.0.0.1", 0)) as client:
        client.sendmail("a@example.com", ["b@example.org"], tagged(MESSAGE, token))
    assert find(smtp_sink, token).get_content().strip() == "mail [EMAIL_ADDRESS]"


# --------------------------------------------------------------------------- TLS and AUTH
@pytest.fixture(scope="module")
def secured(
    start_relay: Callable[..., RelayRunner],
    smtp_sink: SmtpSink,
    certificate: tuple[Path, Path],
    users_file: Path,
) -> RelayRunner:
    cert, key = certificate
    return start_relay(
        upstream={"port": smtp_sink.port},
        tls={"cert": str(cert), "key": str(key)},
        auth={"required": True, "users_file": str(users_file)},
    )


def tls_client(port: int, cert: Path) -> smtplib.SMTP:
    client = smtplib.SMTP("127.0.0.1", port, timeout=10)
    client.starttls(context=ssl.create_default_context(cafile=str(cert)))
    return client


def test_no_auth_and_no_mail_before_starttls(secured: RelayRunner) -> None:
    with smtplib.SMTP("127.0.0.1", secured.port, timeout=10) as client:
        client.ehlo()
        assert client.has_extn("starttls")
        assert not client.has_extn("auth")
        code, _ = client.mail("a@example.com")
        assert code == 530
        code, _ = client.docmd("AUTH", "PLAIN " + "AGFsaWNlAHg=")
        assert code == 530


def test_auth_plain_over_tls_then_relay(
    secured: RelayRunner, certificate: tuple[Path, Path], smtp_sink: SmtpSink
) -> None:
    token = marker()
    with tls_client(secured.port, certificate[0]) as client:
        client.ehlo()
        assert client.esmtp_features["auth"].split() == ["LOGIN", "PLAIN"]
        code, _ = client.mail("a@example.com")
        assert code == 530  # TLS alone is not enough: AUTH is required
        client.rset()
        client.login(USER, PASSWORD)
        client.sendmail("a@example.com", ["b@example.org"], tagged(MESSAGE, token))
    assert find(smtp_sink, token).get_content().strip() == "mail [EMAIL_ADDRESS]"


def test_wrong_password_is_refused_and_counted(secured: RelayRunner, certificate: tuple[Path, Path]) -> None:
    before = metric("scrubber_smtp_auth_failures_total")
    with tls_client(secured.port, certificate[0]) as client:
        with pytest.raises(smtplib.SMTPAuthenticationError) as exc:
            client.login(USER, "wrong")
        assert exc.value.smtp_code == 535
        with pytest.raises(smtplib.SMTPAuthenticationError):
            client.login("mallory", PASSWORD)
    assert metric("scrubber_smtp_auth_failures_total") >= before + 2


def test_auth_login_over_tls(
    secured: RelayRunner, certificate: tuple[Path, Path], smtp_sink: SmtpSink
) -> None:
    token = marker()
    data = tagged(b"Subject: x\r\n\r\nSSN 123-45-6789\r\n", token)
    with tls_client(secured.port, certificate[0]) as client:
        client.ehlo()
        client.user, client.password = USER, PASSWORD
        code, _ = client.auth("LOGIN", client.auth_login, initial_response_ok=False)
        assert code == 235
        client.sendmail("a@example.com", ["b@example.org"], data)
    assert find(smtp_sink, token).get_content().strip() == "SSN [US_SSN]"


def test_failed_tls_handshake_is_counted(secured: RelayRunner) -> None:
    before = metric("scrubber_smtp_tls_failures_total")
    with socket.create_connection(("127.0.0.1", secured.port), timeout=10) as sock:
        f = sock.makefile("rwb")
        f.readline()
        f.write(b"EHLO x\r\n")
        f.flush()
        while not f.readline().startswith(b"250 "):
            pass
        f.write(b"STARTTLS\r\n")
        f.flush()
        assert f.readline().startswith(b"220")
        f.write(b"this is not a TLS client hello\r\n" * 4)
        f.flush()
        f.read()  # the relay hangs up
    deadline = time.monotonic() + 5
    while metric("scrubber_smtp_tls_failures_total") == before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert metric("scrubber_smtp_tls_failures_total") == before + 1


# --------------------------------------------------------------------------- limits
@pytest.fixture(scope="module")
def limited(start_relay: Callable[..., RelayRunner], smtp_sink: SmtpSink) -> RelayRunner:
    return start_relay(
        upstream={"port": smtp_sink.port},
        max_recipients=2,
        max_message_bytes=4096,
        max_sessions=2,
        command_timeout=1,
        data_timeout=2,
    )


def test_too_many_recipients_gets_452(limited: RelayRunner) -> None:
    with smtplib.SMTP("127.0.0.1", limited.port) as client:
        client.ehlo()
        client.mail("a@example.com")
        assert client.rcpt("b@example.org")[0] == 250
        assert client.rcpt("c@example.org")[0] == 250
        assert client.rcpt("d@example.org")[0] == 452


def test_declared_size_over_the_limit_gets_552_at_mail(limited: RelayRunner) -> None:
    with smtplib.SMTP("127.0.0.1", limited.port) as client:
        client.ehlo()
        assert client.esmtp_features["size"] == "4096"
        assert client.mail("a@example.com", ["SIZE=5000"])[0] == 552


def test_data_over_the_limit_gets_552_and_is_counted(limited: RelayRunner, smtp_sink: SmtpSink) -> None:
    token = marker()
    before = metric("scrubber_messages_total", transport="smtp", route="smtp", outcome="rejected")
    with smtplib.SMTP("127.0.0.1", limited.port) as client:
        client.ehlo()
        client.mail("a@example.com")  # no SIZE declared: the limit bites during DATA
        client.rcpt("b@example.org")
        code, _ = client.data(tagged(b"Subject: big\r\n\r\n" + (b"x" * 80 + b"\r\n") * 100, token))
    assert code == 552
    assert metric("scrubber_messages_total", transport="smtp", route="smtp", outcome="rejected") == before + 1
    assert not received(smtp_sink, token)


def test_session_cap_gives_421(limited: RelayRunner) -> None:
    first = smtplib.SMTP("127.0.0.1", limited.port)
    second = smtplib.SMTP("127.0.0.1", limited.port)
    try:
        with pytest.raises(smtplib.SMTPConnectError) as exc:
            smtplib.SMTP("127.0.0.1", limited.port, timeout=10)
        assert exc.value.smtp_code == 421
    finally:
        first.close()
        second.close()


def test_idle_client_is_disconnected(limited: RelayRunner) -> None:
    with socket.create_connection(("127.0.0.1", limited.port), timeout=10) as sock:
        assert sock.recv(1024).startswith(b"220")
        sock.settimeout(10)
        assert sock.recv(1024) == b""  # command_timeout is 1 s: the relay hangs up


# --------------------------------------------------------------------------- the users file
def test_users_file_round_trip_and_errors(tmp_path: Path) -> None:
    path = tmp_path / "users"
    path.write_text(f"{entry('bob', 'secret one')}\n\n# comment\n{entry('carol', 'two')}\n")
    users = UsersFile.load(path)
    assert users.check(b"bob", b"secret one")
    assert not users.check(b"bob", b"secret two")
    assert not users.check(b"dave", b"secret one")
    path.write_text(f"{entry('bob', 'changed')}\n")
    assert users.check(b"bob", b"changed")  # read again when it changes
    path.write_text("bob:plaintext\n")
    with pytest.raises(UsersFileError, match=":1: expected NAME:scrypt"):
        UsersFile.load(path)
    with pytest.raises(ValueError):
        entry("a:b", "x")


def test_smtp_passwd_command_prints_a_working_line() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "scrubber", "smtp-passwd", "erin"],
        input="hunter2 hunter2\n",
        capture_output=True,
        text=True,
        check=True,
    )
    name, _, stored = run.stdout.strip().partition(":")
    assert name == "erin" and stored.startswith("scrypt$16384$8$1$")
    assert "hunter2" not in run.stdout


def test_stalled_data_is_cut_off_and_nothing_forwarded(limited: RelayRunner, smtp_sink: SmtpSink) -> None:
    token = marker()
    commands = b"EHLO x\r\nMAIL FROM:<a@example.com>\r\nRCPT TO:<b@example.org>\r\nDATA\r\n"
    partial = f"X-Test-Id: {token}\r\nSubject: never ends\r\n\r\nhalf a line".encode()
    # data_timeout is 2 s: the relay hangs up, so read() returns; were it to wait for ever, the
    # socket's own 30 s timeout would fail the test.
    with socket.create_connection(("127.0.0.1", limited.port), timeout=30) as sock:
        sock.sendall(commands + partial)
        rest = sock.makefile("rb").read()
    assert b"354" in rest and b"250 2.0.0" not in rest
    assert not received(smtp_sink, token)


# --------------------------------------------------------------------------- refusals on either loop
@pytest.mark.parametrize("event_loop", ["uvloop", "asyncio"])
def test_refusals_are_answered_on_either_event_loop(
    start_relay: Callable[..., RelayRunner],
    smtp_sink: SmtpSink,
    event_loop: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    relay = start_relay(
        upstream={"port": smtp_sink.port},
        allowed_networks=["127.0.0.1/32"],
        max_sessions=1,
        event_loop=event_loop,
    )
    with pytest.raises(smtplib.SMTPConnectError) as outside:
        smtplib.SMTP("127.0.0.1", relay.port, source_address=("127.0.0.2", 0), timeout=10)
    assert outside.value.smtp_code == 554 and b"5.7.1" in outside.value.smtp_error
    first = smtplib.SMTP("127.0.0.1", relay.port, timeout=10)
    try:
        with pytest.raises(smtplib.SMTPConnectError) as over:
            smtplib.SMTP("127.0.0.1", relay.port, timeout=10)
        assert over.value.smtp_code == 421
    finally:
        first.close()
    # A refusal is one log line, never a traceback that a stranger could repeat to fill the log.
    assert not [r for r in caplog.records if r.exc_info or "Traceback" in r.getMessage()]


def test_an_open_relay_that_is_meant_warns_at_every_start(
    start_relay: Callable[..., RelayRunner], smtp_sink: SmtpSink
) -> None:
    with structlog.testing.capture_logs() as logs:
        start_relay(upstream={"port": smtp_sink.port}, allowed_networks=["0.0.0.0/0"], allow_open_relay=True)
    (warning,) = [e for e in logs if e["event"] == "smtp.open_relay"]
    assert warning["log_level"] == "warning" and warning["allowed_networks"] == ["0.0.0.0/0"]
