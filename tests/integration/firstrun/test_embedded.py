"""The first run: `scrubber run` with no config, its banner's three commands, and `scrubber demo`."""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

SCRUBBER = str(Path(sys.executable).parent / "scrubber")


@pytest.fixture
def embedded(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A running `scrubber run` (no config) and the banner it printed."""
    env = {**os.environ, "SCRUBBER_HOME": str(tmp_path)}
    env.pop("SCRUBBER_CONFIG", None)
    out = tmp_path / "stdout"
    with open(out, "wb") as stdout, open(tmp_path / "stderr", "wb") as stderr:
        proc = subprocess.Popen([SCRUBBER, "run"], stdout=stdout, stderr=stderr, env=env)
    try:
        deadline = time.monotonic() + 60
        while "Stop with Ctrl-C" not in out.read_text() and time.monotonic() < deadline:
            assert proc.poll() is None, (tmp_path / "stderr").read_text()[-2000:]
            time.sleep(0.1)
        banner = out.read_text()
        assert "Stop with Ctrl-C" in banner, "no banner within 60 s"
        yield banner, tmp_path
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, (tmp_path / "stderr").read_text()[-2000:]


def commands(banner: str) -> list[str]:
    lines = banner.split("Try it (in another terminal):", 1)[1].splitlines()
    return [line.strip() for line in lines if line.startswith("  ")]


def test_banner_lists_loopback_endpoints_and_its_commands_work(embedded: tuple[str, Path]) -> None:
    banner, home = embedded
    addresses = re.findall(r"\b(\d+\.\d+\.\d+\.\d+):\d+", banner)
    assert addresses and set(addresses) == {"127.0.0.1"}
    produce, consume, mail = commands(banner)

    subprocess.run(shlex.split(produce), check=True, timeout=60)
    clean = subprocess.run(shlex.split(consume), check=True, timeout=60, capture_output=True, text=True)
    assert "123-45-6789" not in clean.stdout and "555-0142" not in clean.stdout
    assert "[US_SSN]" in clean.stdout and "[PHONE_NUMBER]" in clean.stdout

    listed = subprocess.run(mail, shell=True, check=True, timeout=60, capture_output=True, text=True)
    assert listed.stdout.strip().endswith(".eml")
    delivered = b"".join(p.read_bytes() for p in (home / "mailbox").glob("*.eml"))
    assert b"4111 1111 1111 1111" not in delivered and b"jane.doe@example.com" not in delivered
    assert b"[CREDIT_CARD]" in delivered and b"X-Scrubber: level=5" in delivered


def test_demo_shows_before_and_after(tmp_path: Path) -> None:
    env = {**os.environ, "SCRUBBER_HOME": str(tmp_path)}
    res = subprocess.run(
        [SCRUBBER, "demo", "--level", "5"], env=env, capture_output=True, text=True, timeout=180
    )
    assert res.returncode == 0, res.stderr[-2000:]
    out = res.stdout
    assert "producing sample chat and log lines" in out
    # Not a terminal: findings are marked in plain text, the clean side carries labels.
    assert "[[524-59-3318|US_SSN]]" in out
    assert "after:  Customer: hi, my SSN is [US_SSN] and my zip is 94105" in out
    assert "scrubber_messages_total" in out
    for title in ("chat.raw -> chat.clean", "logs.raw -> logs.clean", "SMTP relay -> mailbox"):
        assert title in out
