"""README's mail admin recipe, run: a real Postfix with its relayhost, STARTTLS and SASL AUTH lines
sends through the relay configured as the recipe says; smtp-sink stands in for the signing MTA."""

from __future__ import annotations

import re
import smtplib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from smtp_helpers import PASSWORD, USER, Postfix, RelayRunner, find, marker, tagged

from tests.conftest import REPO, SmtpSink

README = (REPO / "README.md").read_text()
RECIPE = README.split("## Recipe: an outbound mail relay", 1)[1].split("\n## ", 1)[0]


def postfix_lines() -> list[str]:
    (block,) = [b for b in re.findall(r"```text\n(.*?)```", RECIPE, re.S) if "relayhost = " in b]
    return block.strip().splitlines()


def scrubber_config() -> tuple[int, dict[str, Any]]:
    (block,) = re.findall(r"```yaml\n(.*?)```", RECIPE, re.S)
    doc = yaml.safe_load(block)
    assert set(doc) == {"level", "smtp"}
    return doc["level"], dict(doc["smtp"])


def test_postfix_relays_through_scrubber_with_starttls_and_auth(
    start_relay: Callable[..., RelayRunner],
    start_postfix: Callable[..., Postfix],
    smtp_sink: SmtpSink,
    certificate: tuple[Path, Path],
    users_file: Path,
) -> None:
    cert, key = certificate
    level, smtp = scrubber_config()
    # The recipe's file paths and hosts, made local: the test certificate and users file, and
    # smtp-sink (no TLS) in place of the signing MTA.
    assert smtp["auth"]["required"] is True and "cert" in smtp["tls"]
    smtp.update(
        listen="127.0.0.1:0",
        allowed_networks=["127.0.0.0/8"],
        tls={"cert": str(cert), "key": str(key)},
        auth={"required": True, "users_file": str(users_file)},
        upstream={"host": "127.0.0.1", "port": smtp_sink.port},
    )
    relay = start_relay(level, **smtp)

    # Postfix "out": the recipe's main.cf lines, with the relay's address and files beside main.cf.
    lines = postfix_lines()
    (relayhost,) = [line for line in lines if line.startswith("relayhost = ")]
    assert relayhost == "relayhost = [scrubber.mail.internal]:2525"
    extra = "\n".join(line for line in lines if line != relayhost).replace(
        "/etc/postfix/", "$config_directory/"
    )
    said = re.search(r"holding `\[scrubber\.mail\.internal\]:2525 relay:PASSWORD`", RECIPE)
    assert said, "the recipe names the password file's line"
    postfix = start_postfix(
        relay.port,
        extra=extra,
        files={
            "scrubber-ca.pem": cert.read_text(),
            "sasl_passwd": f"[127.0.0.1]:{relay.port} {USER}:{PASSWORD}\n",
        },
    )

    token = marker()
    message = b"Subject: card 4111 1111 1111 1111\r\n\r\nMy SSN is 123-45-6789.\r\n"
    with smtplib.SMTP("127.0.0.1", postfix.port, timeout=30) as client:
        client.sendmail("app@example.com", ["partner@example.net"], tagged(message, token))
    try:
        delivered = find(smtp_sink, token, timeout=60)
    except TimeoutError:
        raise AssertionError((postfix.base / "maillog").read_text()[-3000:]) from None
    assert delivered.get_content().strip() == "My SSN is [US_SSN]."
    assert str(delivered["Subject"]) == "card [CREDIT_CARD]"
    # It came through Postfix; the relay takes mail only after AUTH, and offers AUTH only over TLS.
    received = " ".join(str(v) for v in delivered.get_all("Received", []))
    assert "upstream.test" in received
