"""`scrubber scan` and `scrubber scrub` as a user runs them: bad input is a per-record error."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def run(args: list[str], data: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "scrubber", *args], input=data, capture_output=True, cwd=REPO, timeout=300
    )


def test_scan_reports_every_bad_record_and_scrubs_the_rest() -> None:
    lines = [
        b'{"id": "ok", "text": "ssn 536-22-8173, mail jane@example.com"}',
        b"this is not json",
        b'{"id": "no-text"}',
        b'{"id": "number", "text": 42}',
        b'["not", "an", "object"]',
        b'{"id": "lone", "text": "a \\ud800 b"}',
        b'{"id": "bytes", "text": "caf\xe9 \xff"}',
        json.dumps({"id": "huge", "text": "x" * (10 * 1024 * 1024)}).encode(),
        b"",
        b'{"id": "pair", "text": "\\ud83d\\ude00 call (415) 555-2671"}',
    ]
    done = run(["scan", "--level", "7"], b"\n".join(lines) + b"\n")
    out = [json.loads(line) for line in done.stdout.decode("utf-8").splitlines()]
    assert done.returncode == 1  # some records failed; the run went on
    by_id = {r["id"]: r for r in out if r["id"] is not None}
    assert by_id["ok"]["text"] == "ssn [US_SSN], mail [EMAIL_ADDRESS]"
    assert [f["entity"] for f in by_id["ok"]["findings"]] == ["US_SSN", "EMAIL_ADDRESS"]
    assert by_id["pair"]["text"] == "😀 call [PHONE_NUMBER]"
    assert by_id["no-text"]["reason"] == by_id["number"]["reason"] == "no_text"
    assert by_id["lone"]["reason"] == "invalid_unicode"
    assert by_id["bytes"]["reason"] == "invalid_utf8"
    assert by_id["huge"]["reason"] == "too_large"
    anonymous = [r for r in out if r["id"] is None]
    assert [(r["line"], r["reason"]) for r in anonymous] == [(2, "invalid_json"), (5, "not_object")]
    assert len(out) == 9  # one line out for every non-blank line in
    errors = done.stderr.decode()
    assert errors.count("scrubber scan: line") == 7
    assert "536-22-8173" not in errors


def test_scan_answers_a_deeply_nested_line_and_goes_on() -> None:
    deep = b'{"id": "deep", "text": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    nested_id = b'{"id": ' + b"[" * 5000 + b"]" * 5000 + b', "text": "x"}'
    after = b'{"id": "after", "text": "ssn 536-22-8173"}'
    done = run(["scan"], b"\n".join([deep, nested_id, after]) + b"\n")
    out = [json.loads(line) for line in done.stdout.splitlines()]
    assert done.returncode == 1
    assert [(r["line"], r["reason"]) for r in out[:2]] == [(1, "invalid_json"), (2, "invalid_json")]
    assert out[2] == {"id": "after", "findings": out[2]["findings"], "text": "ssn [US_SSN]"}
    assert b"Traceback" not in done.stderr


def test_scan_level_2_finds_nothing_above_level_2() -> None:
    record = {"id": "r", "text": "ssn 536-22-8173, mail jane@example.com, call (415) 555-2671"}
    done = run(["scan", "--level", "2"], json.dumps(record).encode() + b"\n")
    (out,) = [json.loads(line) for line in done.stdout.splitlines()]
    assert [f["entity"] for f in out["findings"]] == ["US_SSN"]
    assert out["text"] == "ssn [US_SSN], mail jane@example.com, call (415) 555-2671"


def test_scan_refuses_a_bad_config_with_a_message(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("level: 12\n")
    done = run(["scan", "--config", str(bad)], b"")
    assert done.returncode == 2
    assert b"level" in done.stderr and b"Traceback" not in done.stderr


def test_scrub_lines_and_explain_never_shows_values() -> None:
    data = "ssn 536-22-8173\nnothing here\r\nbad \xff line\nmail jane@example.com".encode("latin-1")
    done = run(["scrub", "--lines", "--explain"], data)
    assert done.stdout == b"ssn [US_SSN]\nnothing here\nmail [EMAIL_ADDRESS]"
    assert done.returncode == 1
    err = done.stderr.decode()
    assert "message 1: US_SSN pattern:us_ssn_formatted 4-15" in err
    assert "message 3: cannot scrub (invalid_utf8)" in err
    assert "536-22-8173" not in err and "jane@example.com" not in err


def test_scrub_whole_input_is_one_message() -> None:
    done = run(["scrub", "--level", "3"], b"dear jane@example.com,\nyour ssn 536-22-8173\n")
    assert done.returncode == 0
    assert done.stdout == b"dear [EMAIL_ADDRESS],\nyour ssn [US_SSN]\n"


def test_version() -> None:
    res = run(["--version"], b"")
    assert res.returncode == 0 and res.stdout.decode().strip() == "scrubber 0.1.0"


def test_run_refuses_a_config_without_a_transport_unless_admin_only(tmp_path: Path) -> None:
    cfg = tmp_path / "empty.yaml"
    cfg.write_text("level: 4\n")
    res = run(["run", "--config", str(cfg)], b"")
    assert res.returncode == 2
    assert b"configures no transport (no kafka: or smtp: section)" in res.stderr
    assert b"--admin-only" in res.stderr


@pytest.mark.parametrize(
    ("key", "config"),
    [
        ("admin.listen", "admin:\n  listen: 127.0.0.1:{port}\n"),
        (
            "smtp.listen",
            "admin:\n  listen: 127.0.0.1:0\nsmtp:\n  listen: 127.0.0.1:{port}\n  scrub_processes: 0\n",
        ),
    ],
)
def test_a_listen_port_in_use_is_one_line_naming_the_key(tmp_path: Path, key: str, config: str) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        cfg = tmp_path / "in-use.yaml"
        cfg.write_text(config.format(port=port) + "logging:\n  format: json\n")
        res = run(["run", "--config", str(cfg), "--admin-only"], b"")
    err = res.stderr.decode()
    assert res.returncode == 2, err
    assert "Traceback" not in err
    errors = [json.loads(x) for x in err.splitlines() if '"level": "error"' in x]
    assert errors[-1]["event"] == "cannot start"
    assert errors[-1]["error"] == f"{key}: cannot listen on 127.0.0.1:{port}: Address already in use"


def test_check_config_and_run_refuse_an_open_relay(tmp_path: Path) -> None:
    path = tmp_path / "open.yaml"
    path.write_text("smtp:\n  allowed_networks: [0.0.0.0/0, '::/0']\n")
    for args in (["check-config", str(path)], ["run", "--config", str(path)]):
        done = run(args, b"")
        assert done.returncode == 2, args
        assert b"open relay" in done.stderr and b"smtp.allow_open_relay" in done.stderr


def test_scrub_keeps_a_time_budget_and_writes_nothing_past_it(tmp_path: Path) -> None:
    text = b"ssn 536-22-8173, mail jane@example.com\n" * 200
    over = run(["scrub", "--time-budget", "1e-9"], text)
    assert over.returncode == 1 and over.stdout == b""
    assert b"cannot scrub (time_budget)" in over.stderr
    eml = b"Subject: hi\r\nContent-Type: text/plain\r\n\r\n" + text
    over = run(["scrub", "--format", "eml", "--time-budget", "1e-9"], eml)
    assert over.returncode == 1 and over.stdout == b""
    assert b"cannot scrub this message (time_budget)" in over.stderr
    unlimited = run(["scrub", "--time-budget", "0"], text)
    assert unlimited.returncode == 0 and unlimited.stdout.count(b"[US_SSN]") == 200
    # Without the option, the config's budget holds.
    config = tmp_path / "c.yaml"
    config.write_text("limits: {time_budget_ms: 1}\n")
    assert run(["scrub", "--config", str(config)], text * 20).returncode == 1
    bad = run(["scrub", "--time-budget", "-1"], text)
    assert bad.returncode == 2 and b"time budget must be" in bad.stderr
