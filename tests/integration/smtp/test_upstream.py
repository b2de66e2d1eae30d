"""Before-queue semantics against real upstreams: smtp-sink set to refuse or stall, a real Postfix
with per-recipient rules, a Postfix sender that must keep what the relay could not pass on, and
a second relay reached over STARTTLS with AUTH."""

from __future__ import annotations

import email
import email.policy
import os
import smtplib
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from smtp_helpers import (
    PASSWORD,
    USER,
    Postfix,
    RelayRunner,
    find,
    marker,
    messages,
    metric,
    received,
    tagged,
)

from tests.conftest import SmtpSink, free_port, stop_process, wait_for_port

MESSAGE = b"Subject: hello\r\n\r\nMy SSN is 123-45-6789.\r\n"


def send(port: int, data: bytes, rcpts: list[str], sender: str = "sam@example.com", **kw: object) -> object:
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
        return client.sendmail(sender, rcpts, data, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("switches", "error", "code"),
    [
        (("-f", "."), smtplib.SMTPDataError, 5),  # upstream refuses the data: 5xx stays 5xx
        (("-r", "."), smtplib.SMTPDataError, 4),  # upstream defers the data: 4xx stays 4xx
        (("-f", "MAIL"), smtplib.SMTPSenderRefused, 5),
        (("-r", "MAIL"), smtplib.SMTPSenderRefused, 4),
    ],
)
def test_upstream_refusal_keeps_its_class(
    switches: tuple[str, ...],
    error: type[smtplib.SMTPException],
    code: int,
    special_sink: Callable[..., SmtpSink],
    start_relay: Callable[..., RelayRunner],
) -> None:
    sink = special_sink(*switches)
    relay = start_relay(upstream={"port": sink.port})
    with pytest.raises(error) as exc:
        send(relay.port, MESSAGE, ["rcpt@example.org"])
    assert exc.value.smtp_code // 100 == code  # type: ignore[attr-defined]


def test_upstream_down_gives_451_and_counts_it(start_relay: Callable[..., RelayRunner]) -> None:
    relay = start_relay(upstream={"port": free_port(), "timeout": 2})
    before = metric("scrubber_upstream_errors_total", transport="smtp", kind="connect")
    with pytest.raises(smtplib.SMTPSenderRefused) as exc:
        send(relay.port, MESSAGE, ["rcpt@example.org"])
    assert exc.value.smtp_code == 451
    assert exc.value.smtp_error.startswith(b"4.4.1")
    assert metric("scrubber_upstream_errors_total", transport="smtp", kind="connect") == before + 1


def test_upstream_too_slow_gives_451(
    special_sink: Callable[..., SmtpSink], start_relay: Callable[..., RelayRunner]
) -> None:
    sink = special_sink("-W", ".:5")
    relay = start_relay(upstream={"port": sink.port, "timeout": 1})
    before = messages("tempfailed")
    with pytest.raises(smtplib.SMTPDataError) as exc:
        send(relay.port, MESSAGE, ["rcpt@example.org"])
    assert exc.value.smtp_code == 451
    assert messages("tempfailed") == before + 1


RCPT_RULES = "/^bounce@/ 550 5.1.1 No such user here\n/^busy@/ 450 4.2.1 Mailbox busy, try again later\n"


@pytest.fixture(scope="module")
def postfix_upstream(start_postfix: Callable[..., Postfix], smtp_sink: SmtpSink) -> Postfix:
    """Postfix relaying to smtp-sink, refusing two recipients by rule (one hard, one soft)."""
    return start_postfix(
        smtp_sink.port,
        extra="smtpd_recipient_restrictions = check_recipient_access regexp:$config_directory/rcpt\n",
        files={"rcpt": RCPT_RULES},
    )


def test_per_recipient_results_are_the_upstreams(
    postfix_upstream: Postfix, start_relay: Callable[..., RelayRunner], smtp_sink: SmtpSink
) -> None:
    relay = start_relay(upstream={"port": postfix_upstream.port})
    token = marker()
    rcpts = ["ok@example.org", "bounce@example.org", "busy@example.org"]
    refused = send(relay.port, tagged(MESSAGE, token), rcpts)
    assert isinstance(refused, dict)
    assert refused["bounce@example.org"][0] == 550
    assert refused["bounce@example.org"][1].endswith(b"Recipient address rejected: No such user here")
    assert refused["busy@example.org"][0] == 450
    assert refused["busy@example.org"][1].startswith(b"4.2.1 <busy@example.org>")
    assert set(refused) == {"bounce@example.org", "busy@example.org"}
    msg = find(smtp_sink, token, timeout=30)
    assert [str(v).split()[0] for v in msg.get_all("X-Rcpt-Args")] == ["<ok@example.org>"]
    assert msg.get_content().strip() == "My SSN is [US_SSN]."
    assert "upstream.test" in str(msg["Received"])


def test_all_recipients_refused_means_no_message(
    postfix_upstream: Postfix, start_relay: Callable[..., RelayRunner]
) -> None:
    relay = start_relay(upstream={"port": postfix_upstream.port})
    with pytest.raises(smtplib.SMTPRecipientsRefused) as exc:
        send(relay.port, MESSAGE, ["bounce@example.org"])
    assert exc.value.recipients["bounce@example.org"][0] == 550


def test_nothing_is_lost_when_the_upstream_is_down(
    start_postfix: Callable[..., Postfix],
    start_relay: Callable[..., RelayRunner],
    special_sink: Callable[..., SmtpSink],
) -> None:
    """A Postfix sender keeps the message the relay answered 451 for, and delivers it later."""
    upstream_port = free_port()
    relay = start_relay(upstream={"port": upstream_port, "timeout": 2})
    sender = start_postfix(
        relay.port,
        extra="minimal_backoff_time = 1s\nmaximal_backoff_time = 2s\nqueue_run_delay = 1s\n",
    )
    token = marker()
    send(sender.port, tagged(MESSAGE, token), ["far@example.net"])
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        queue = sender.queue()
        reasons = [r.get("delay_reason", "") for m in queue for r in m.get("recipients", [])]
        if any("4.4.1" in r for r in reasons):
            break
        time.sleep(0.2)
    else:
        pytest.fail(f"the message was not deferred with 4.4.1: {sender.queue()}")
    # postqueue may list a message twice while it moves between queues (active -> deferred).
    assert len({m["queue_id"] for m in queue}) == 1
    sink = special_sink(port=upstream_port)
    sender.flush()
    msg = find(sink, token, timeout=30)
    assert msg.get_content().strip() == "My SSN is [US_SSN]."
    deadline = time.monotonic() + 15
    while sender.queue() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert sender.queue() == []


# --------------------------------------------------------------------------- relay -> relay over TLS
@pytest.fixture(scope="module")
def tls_chain(
    start_relay: Callable[..., RelayRunner],
    certificate: tuple[Path, Path],
    users_file: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[RelayRunner, Path]]:
    """Relay A (no TLS towards its clients) -> STARTTLS + AUTH -> relay B -> mailbox directory."""
    cert, key = certificate
    box = tmp_path_factory.mktemp("chain") / "mailbox"
    b = start_relay(
        tls={"cert": str(cert), "key": str(key)},
        auth={"required": True, "users_file": str(users_file)},
        mailbox_dir=str(box),
        level=0,
    )
    with pytest.MonkeyPatch.context() as env:
        env.setenv("RELAY_TEST_UPSTREAM_PASSWORD", PASSWORD)
        a = start_relay(
            upstream={
                "port": b.port,
                "tls": "starttls",
                "ca_file": str(cert),
                "username": USER,
                "password_env": "RELAY_TEST_UPSTREAM_PASSWORD",
            }
        )
    yield a, box


def delivered(box: Path, token: str) -> email.message.Message:
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        for path in box.glob("*.eml"):
            if token.encode() in path.read_bytes():
                return email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        time.sleep(0.05)
    raise TimeoutError(token)


def test_upstream_starttls_and_auth(tls_chain: tuple[RelayRunner, Path]) -> None:
    relay, box = tls_chain
    token = marker()
    send(relay.port, tagged(MESSAGE, token), ["rcpt@example.org"])
    msg = delivered(box, token)
    assert msg.get_content() == "My SSN is [US_SSN].\r\n"
    # B ran at level 0: its trace counts what A had left, which is nothing of A's kind.
    assert msg.get_all("X-Scrubber") == ["level=7; findings=US_SSN:1", "level=0; findings=none"]


def test_smtputf8_envelope_passes_unchanged(tls_chain: tuple[RelayRunner, Path]) -> None:
    relay, box = tls_chain
    token = marker()
    data = tagged("Subject: Grüße\r\nFrom: Zoë <zoë@example.com>\r\n\r\nHallo!\r\n".encode(), token)
    send(relay.port, data, ["jörg@example.de"], sender="zoë@example.com", mail_options=["SMTPUTF8"])
    msg = delivered(box, token)
    assert msg["Return-Path"] == "<zoë@example.com>"
    assert msg["Envelope-To"] == "jörg@example.de"
    assert str(msg["From"]) == "Zoë <zoë@example.com>"


def test_wrong_upstream_password_gives_451(
    tls_chain: tuple[RelayRunner, Path],
    start_relay: Callable[..., RelayRunner],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    chain_a, _ = tls_chain
    monkeypatch.setenv("RELAY_TEST_WRONG_PASSWORD", "not it")
    assert chain_a.settings.smtp is not None
    up = chain_a.settings.smtp.upstream
    relay = start_relay(
        upstream={
            "port": up.port,
            "tls": "starttls",
            "ca_file": up.ca_file,
            "username": USER,
            "password_env": "RELAY_TEST_WRONG_PASSWORD",
        }
    )
    before = metric("scrubber_upstream_errors_total", transport="smtp", kind="auth")
    with pytest.raises(smtplib.SMTPSenderRefused) as exc:
        send(relay.port, MESSAGE, ["rcpt@example.org"])
    assert exc.value.smtp_code == 451
    assert metric("scrubber_upstream_errors_total", transport="smtp", kind="auth") == before + 1


def test_refusal_is_not_forwarded_as_accepted(
    special_sink: Callable[..., SmtpSink], start_relay: Callable[..., RelayRunner]
) -> None:
    sink = special_sink("-f", "RCPT")
    relay = start_relay(upstream={"port": sink.port})
    token = marker()
    with pytest.raises(smtplib.SMTPRecipientsRefused):
        send(relay.port, tagged(MESSAGE, token), ["a@example.org", "b@example.org"])
    assert not received(sink, token)


def test_stop_lets_the_message_in_flight_finish(
    special_sink: Callable[..., SmtpSink], start_relay: Callable[..., RelayRunner]
) -> None:
    """A shutdown while the upstream is still answering: the sender still gets its 250."""
    sink = special_sink("-W", ".:2")
    relay = start_relay(upstream={"port": sink.port, "timeout": 10})
    token = marker()
    outcome: list[object] = []
    data = tagged(MESSAGE, token)
    sender = threading.Thread(target=lambda: outcome.append(send(relay.port, data, ["a@example.org"])))
    sender.start()
    time.sleep(1.0)  # the message is with the upstream, which answers after 2 s
    relay.stop()
    sender.join(30)
    assert outcome == [{}]
    assert received(sink, token)
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", relay.port), timeout=2)


# --------------------------------------------------------------------------- the upstream pool
def upstream_opened(relay: RelayRunner) -> int:
    assert relay.relay is not None and relay.relay.upstream is not None
    return relay.relay.upstream.opened


def test_sessions_one_after_another_share_one_upstream_connection(
    start_relay: Callable[..., RelayRunner], smtp_sink: SmtpSink
) -> None:
    relay = start_relay(upstream={"port": smtp_sink.port})
    tokens = [marker() for _ in range(3)]
    for token in tokens:  # a new client session for every message, as many MTAs do
        assert send(relay.port, tagged(MESSAGE, token), ["rcpt@example.org"]) == {}
    for token in tokens:
        assert find(smtp_sink, token).get_content().strip() == "My SSN is [US_SSN]."
    assert upstream_opened(relay) == 1


def test_concurrent_sessions_get_connections_of_their_own(
    start_relay: Callable[..., RelayRunner], smtp_sink: SmtpSink
) -> None:
    """Two transactions open at once never share a connection; afterwards both are kept."""
    relay = start_relay(upstream={"port": smtp_sink.port})
    tokens = [marker(), marker()]
    with (
        smtplib.SMTP("127.0.0.1", relay.port, timeout=30) as a,
        smtplib.SMTP("127.0.0.1", relay.port, timeout=30) as b,
    ):
        for client in (a, b):
            client.ehlo()
            assert client.mail("sam@example.com")[0] == 250
        for client, rcpt in ((a, "one@example.org"), (b, "two@example.org")):
            assert client.rcpt(rcpt)[0] == 250
        for client, token in ((b, tokens[1]), (a, tokens[0])):
            assert client.data(tagged(MESSAGE, token))[0] == 250
    rcpts = [[str(v).split()[0] for v in find(smtp_sink, t).get_all("X-Rcpt-Args")] for t in tokens]
    assert rcpts == [["<one@example.org>"], ["<two@example.org>"]]
    assert upstream_opened(relay) == 2
    send(relay.port, tagged(MESSAGE, marker()), ["three@example.org"])
    assert upstream_opened(relay) == 2


def test_abandoned_transaction_is_reset_before_the_connection_is_reused(
    postfix_upstream: Postfix, start_relay: Callable[..., RelayRunner], smtp_sink: SmtpSink
) -> None:
    """A session that leaves after MAIL and RCPT: the next session's message carries only its
    own recipient (without the RSET the upstream would refuse its MAIL as nested)."""
    relay = start_relay(upstream={"port": postfix_upstream.port})
    with smtplib.SMTP("127.0.0.1", relay.port, timeout=30) as client:
        client.ehlo()
        assert client.mail("sam@example.com")[0] == 250
        assert client.rcpt("ok@example.org")[0] == 250
        assert client.rcpt("bounce@example.org")[0] == 550
    token = marker()
    assert send(relay.port, tagged(MESSAGE, token), ["second@example.org"]) == {}
    msg = find(smtp_sink, token, timeout=30)
    assert [str(v).split()[0] for v in msg.get_all("X-Rcpt-Args")] == ["<second@example.org>"]
    assert upstream_opened(relay) == 1


def test_a_pooled_connection_the_upstream_dropped_is_replaced(
    start_relay: Callable[..., RelayRunner], tmp_path: Path
) -> None:
    """The upstream restarts between two messages: the second still goes through, on a new
    connection, and the sender never sees an error."""
    port = free_port()

    def sink() -> subprocess.Popen[bytes]:
        cmd = ["/usr/sbin/smtp-sink"] + (["-u", "root"] if os.geteuid() == 0 else [])
        proc = subprocess.Popen([*cmd, f"127.0.0.1:{port}", "16"], stderr=subprocess.DEVNULL)
        wait_for_port(port, proc)
        return proc

    relay = start_relay(upstream={"port": port, "timeout": 5})
    first = sink()
    try:
        assert send(relay.port, MESSAGE, ["rcpt@example.org"]) == {}
    finally:
        stop_process(first)
    second = sink()
    try:
        errors = metric("scrubber_upstream_errors_total", transport="smtp", kind="disconnected")
        assert send(relay.port, MESSAGE, ["rcpt@example.org"]) == {}
        assert metric("scrubber_upstream_errors_total", transport="smtp", kind="disconnected") == errors
    finally:
        stop_process(second)
    assert upstream_opened(relay) == 2
