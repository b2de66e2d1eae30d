"""The first run: `scrubber run` with no config, its banner's three commands, and `scrubber demo`."""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

SCRUBBER = str(Path(sys.executable).parent / "scrubber")


def start(home: Path) -> tuple[subprocess.Popen[bytes], str]:
    """`scrubber run` (no config) in a session of its own, as a shell starts a foreground job; its banner."""
    env = {**os.environ, "SCRUBBER_HOME": str(home)}
    env.pop("SCRUBBER_CONFIG", None)
    out = home / "stdout"
    with open(out, "wb") as stdout, open(home / "stderr", "wb") as stderr:
        proc = subprocess.Popen(
            [SCRUBBER, "run"], stdout=stdout, stderr=stderr, env=env, start_new_session=True
        )
    deadline = time.monotonic() + 180
    while "Stop with Ctrl-C" not in out.read_text() and time.monotonic() < deadline:
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    banner = out.read_text()
    if "Stop with Ctrl-C" not in banner:
        stop(proc)
        pytest.fail(f"no banner within 180 s: {(home / 'stderr').read_text()[-2000:]}")
    return proc, banner


def stop(proc: subprocess.Popen[bytes]) -> None:
    """Ctrl-C as a terminal sends it: SIGINT to the whole process group."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGINT)
    try:
        proc.wait(60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def run_dir(banner: str) -> Path:
    found = re.search(r"^  this run +(\S+)", banner, re.M)
    assert found, banner
    return Path(found.group(1))


def broker_port(banner: str) -> int:
    found = re.search(r"^  Kafka broker +127\.0\.0\.1:(\d+)", banner, re.M)
    assert found, banner
    return int(found.group(1))


def refuses(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return False
    except OSError:
        return True


@pytest.fixture
def embedded(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A running `scrubber run` (no config) and the banner it printed."""
    proc, banner = start(tmp_path)
    try:
        yield banner, tmp_path
    finally:
        stop(proc)
    assert proc.returncode == 0, (tmp_path / "stderr").read_text()[-2000:]


def commands(banner: str) -> list[str]:
    lines = banner.split("Try it (in another terminal):", 1)[1].splitlines()
    return [line.strip() for line in lines if line.startswith("  ")]


def test_banner_lists_loopback_endpoints_and_its_commands_work(embedded: tuple[str, Path]) -> None:
    banner, home = embedded
    mailbox = run_dir(banner) / "mailbox"
    assert run_dir(banner).parent == home and f"delivers into {mailbox}" in banner
    addresses = re.findall(r"\b(\d+\.\d+\.\d+\.\d+):\d+", banner)
    assert addresses and set(addresses) == {"127.0.0.1"}
    produce, consume, mail = commands(banner)

    subprocess.run(shlex.split(produce), check=True, timeout=60)
    clean = subprocess.run(shlex.split(consume), check=True, timeout=60, capture_output=True, text=True)
    assert "123-45-6789" not in clean.stdout and "555-0142" not in clean.stdout
    assert "[US_SSN]" in clean.stdout and "[PHONE_NUMBER]" in clean.stdout

    listed = subprocess.run(mail, shell=True, check=True, timeout=60, capture_output=True, text=True)
    assert listed.stdout.strip().endswith(".eml")
    delivered = b"".join(p.read_bytes() for p in mailbox.glob("*.eml"))
    assert b"4111 1111 1111 1111" not in delivered and b"jane.doe@example.com" not in delivered
    assert b"[CREDIT_CARD]" in delivered and b"X-Scrubber: level=7" in delivered


def test_ctrl_c_drains_and_exits_cleanly_with_the_broker_stopped_last(tmp_path: Path) -> None:
    proc, banner = start(tmp_path)
    produce = commands(banner)[0]
    subprocess.run(shlex.split(produce), check=True, timeout=60)
    port = broker_port(banner)
    stop(proc)
    err = (tmp_path / "stderr").read_text()
    assert proc.returncode == 0, err[-3000:]
    assert "Traceback" not in err and "Unclosed" not in err, err[-3000:]
    # The proxy stopped while its broker was still up: no connection errors on the way out.
    assert "Connection refused" not in err, err[-3000:]
    assert refuses(port)
    assert not run_dir(banner).exists()


def test_sigkill_takes_the_embedded_broker_down_too(tmp_path: Path) -> None:
    proc, banner = start(tmp_path)
    port = broker_port(banner)
    assert not refuses(port)
    proc.kill()
    proc.wait()
    deadline = time.monotonic() + 15
    while not refuses(port) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert refuses(port), "the broker outlived scrubber run and still holds its port"
    # Nothing else of the run is left either (scrub processes stop when their pipes close).
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)


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
    # A name under a JSON key ("user": {"name": ...}) is read with its key, and masked.
    after = [line for line in out.splitlines() if line.startswith("  after:")]
    assert any("profile updated" in line and "[PERSON]" in line for line in after)
    assert not [line for line in after if "Carol Levine" in line]
    assert "scrubber_messages_total" in out
    for title in ("chat.raw -> chat.clean", "logs.raw -> logs.clean", "SMTP relay -> mailbox"):
        assert title in out
