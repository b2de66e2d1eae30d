"""`scrubber kafka-produce` / `kafka-consume` against the broker, cross-checked with kcat.

Debian's kcat links a librdkafka too old for Tansu's ApiVersions answer; it runs here with the
newer librdkafka that the confluent-kafka wheel ships (../shared/REAL_COMPONENTS.md).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import uuid
from pathlib import Path

import confluent_kafka
import pytest

SCRUBBER = str(Path(sys.executable).parent / "scrubber")


@pytest.fixture(scope="module")
def kcat_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    libs = Path(confluent_kafka.__file__).parent.parent / "confluent_kafka.libs"
    (lib,) = libs.glob("librdkafka-*.so.1")
    d = tmp_path_factory.mktemp("librdkafka")
    (d / "librdkafka.so.1").symlink_to(lib)
    return {**os.environ, "LD_LIBRARY_PATH": str(d)}


def topic() -> str:
    return f"tools-{uuid.uuid4().hex[:8]}"


def run(cmd: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, **kw)  # type: ignore[call-overload,no-any-return]


def test_kcat_runs_with_the_wheels_librdkafka(kcat_env: dict[str, str], kafka_bootstrap: str) -> None:
    res = run(["kcat", "-b", kafka_bootstrap, "-L"], env=kcat_env)
    assert res.returncode == 0, res.stderr
    assert "broker 111" in res.stdout


def test_consume_shows_key_and_headers_of_what_kcat_produced(
    kcat_env: dict[str, str], kafka_bootstrap: str
) -> None:
    t = topic()
    res = run(
        ["kcat", "-b", kafka_bootstrap, "-P", "-t", t, "-K", ":", "-H", "scrubber-reason=invalid_json"],
        input="k1:not json\n",
        env=kcat_env,
    )
    assert res.returncode == 0, res.stderr
    res = run([SCRUBBER, "kafka-consume", "--bootstrap", kafka_bootstrap, "--headers", "--count", "1", t])
    assert res.returncode == 0, res.stderr
    assert re.fullmatch(
        r"--- partition \d+, offset 0, key 'k1'\nscrubber-reason: invalid_json\nnot json\n", res.stdout
    )


def test_produce_with_key_and_header_reaches_kcat(kcat_env: dict[str, str], kafka_bootstrap: str) -> None:
    t = topic()
    res = run(
        [
            SCRUBBER,
            "kafka-produce",
            "--bootstrap",
            kafka_bootstrap,
            "--key",
            "k2",
            "--header",
            "src=cli",
            t,
            "hi",
        ]
    )
    assert res.returncode == 0, res.stderr
    res = run(
        ["kcat", "-b", kafka_bootstrap, "-C", "-t", t, "-o", "beginning", "-e", "-q", "-f", "%k|%s|%h\n"],
        env=kcat_env,
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout == "k2|hi|src=cli\n"


def test_from_end_skips_what_was_there(kafka_bootstrap: str) -> None:
    t = topic()
    produce = [SCRUBBER, "kafka-produce", "--bootstrap", kafka_bootstrap, t]
    assert run([*produce, "old"]).returncode == 0
    consume = subprocess.Popen(
        [SCRUBBER, "kafka-consume", "--bootstrap", kafka_bootstrap, "--from-end", "--count", "1", t],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        # The consumer sees only what arrives after it has its partition: keep sending until it has.
        deadline = time.monotonic() + 60
        while consume.poll() is None and time.monotonic() < deadline:
            assert run([*produce, "new"]).returncode == 0
            time.sleep(0.5)
        out, err = consume.communicate(timeout=30)
    finally:
        if consume.poll() is None:
            consume.kill()
            consume.wait()
    assert consume.returncode == 0, err
    assert out == "new\n"


def test_an_unreachable_broker_is_one_line_naming_it() -> None:
    res = run([SCRUBBER, "kafka-consume", "--bootstrap", "127.0.0.1:1", "--timeout", "1", "x"])
    assert res.returncode == 1
    assert res.stderr.startswith("scrubber kafka-consume: broker 127.0.0.1:1: ")
    assert "Traceback" not in res.stderr
