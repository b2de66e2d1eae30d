"""The log pipeline: JSON lines, raw-content keys refused, PII-looking values redacted."""

from __future__ import annotations

import io
import json
import logging
import warnings
from collections.abc import Callable
from typing import Any

import pytest
from prometheus_client import REGISTRY

from scrubber import logs

Lines = Callable[[], list[dict[str, Any]]]


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def lines(restore_logging: None) -> Lines:
    buf = io.StringIO()
    logs.configure("json", "info", buf)
    return lambda: [json.loads(line) for line in buf.getvalue().splitlines()]


def redactions(reason: str) -> float:
    return REGISTRY.get_sample_value("scrubber_log_redactions_total", {"reason": reason}) or 0.0


@pytest.mark.parametrize(
    "key", ["text", "body", "value", "raw", "payload", "content", "message_text", "Subject"]
)
def test_raw_content_keys_are_refused_whatever_they_hold(lines: Lines, key: str) -> None:
    before = redactions("raw_key")
    logs.get_logger().info("decided", **{key: "hello there", "route": "chat.raw"})
    (rec,) = lines()
    assert rec[key] == logs.REFUSED
    assert rec["route"] == "chat.raw"
    assert redactions("raw_key") == before + 1


def test_raw_content_keys_are_refused_inside_nested_fields(lines: Lines) -> None:
    logs.get_logger().info("decided", detail={"body": "hello", "parts": [{"payload": "x", "n": 2}]})
    (rec,) = lines()
    assert rec["detail"] == {"body": logs.REFUSED, "parts": [{"payload": logs.REFUSED, "n": 2}]}


@pytest.mark.parametrize(
    ("value", "label"),
    [
        ("recipient jane.doe@example.com refused", "[EMAIL_ADDRESS]"),
        ("ssn 524-59-3318 seen", "[US_SSN]"),
        ("call +1 415 555 0142", "[PHONE_NUMBER]"),
        ("key AKIAIOSFODNN7EXAMPLE leaked", "[SECRET]"),
    ],
)
def test_values_that_look_like_pii_are_redacted(lines: Lines, value: str, label: str) -> None:
    before = redactions("pii_value")
    logs.get_logger().warning("upstream failed", error=value, also=[value])
    (rec,) = lines()
    assert label in rec["error"]
    assert rec["also"] == [rec["error"]]
    assert redactions("pii_value") >= before + 2


def test_pii_in_the_event_name_and_in_tracebacks_is_redacted(lines: Lines) -> None:
    log = logs.get_logger()
    log.info("mail from jane.doe@example.com")
    try:
        raise KeyError("524-59-3318")
    except KeyError:
        log.exception("lookup failed")
    first, second = lines()
    assert first["event"] == "mail from [EMAIL_ADDRESS]"
    assert "524-59-3318" not in second["exception"]
    assert "[US_SSN]" in second["exception"]


def test_operational_values_are_kept(lines: Lines) -> None:
    fields: dict[str, Any] = {
        "bootstrap": "10.1.2.3:9092",
        "topic": "support.chat.raw",
        "partition": 3,
        "offset": 1234567890,
        "reason": "regex_timeout",
        "path": "kafka.routes[1].format",
        "ok": True,
        "ratio": 0.25,
        "none": None,
    }
    logs.get_logger().info("route started", **fields)
    (rec,) = lines()
    assert {k: rec[k] for k in fields} == fields
    assert rec["level"] == "info" and rec["logger"] == "scrubber" and "timestamp" in rec


def test_a_value_that_cannot_be_scanned_is_not_written(lines: Lines, monkeypatch: pytest.MonkeyPatch) -> None:
    class Broken:
        def scrub(self, text: str) -> None:
            raise RuntimeError("scanner failed")

    logs._scan.cache_clear()
    monkeypatch.setattr(logs, "_scanner", lambda: Broken())
    logs.get_logger().info("decided", detail="anything at all")
    logs._scan.cache_clear()
    (rec,) = lines()
    assert rec["detail"] == logs.REFUSED


def test_library_records_keep_only_their_template_unless_trusted(lines: Lines) -> None:
    logging.getLogger("mail.log").warning("%r unrecognised: %s", ("127.0.0.1", 4000), "my name is Jane Roe")
    logging.getLogger("aiokafka.consumer").warning("Heartbeat failed for group %s", "scrubber")
    logging.getLogger("mail.log").info("%r sender: %s", ("127.0.0.1", 4000), "jane@example.com")
    first, second = lines()
    assert first["event"] == "%r unrecognised: %s" and first["logger"] == "mail.log"
    assert second["event"] == "Heartbeat failed for group scrubber"


def test_level_filters_our_events(restore_logging: None) -> None:
    buf = io.StringIO()
    logs.configure("json", "warning", buf)
    log = logs.get_logger()
    log.info("quiet")
    log.warning("loud")
    assert [json.loads(x)["event"] for x in buf.getvalue().splitlines()] == ["loud"]


def test_console_renderer_on_a_terminal_json_otherwise(restore_logging: None) -> None:
    tty = _Tty()
    logs.configure("auto", "info", tty)
    logs.get_logger().info("hello", route="chat.raw", body="secret words")
    out = tty.getvalue()
    assert "hello" in out and "route=chat.raw" in out and "secret words" not in out
    with pytest.raises(json.JSONDecodeError):
        json.loads(out)
    plain = io.StringIO()
    logs.configure("auto", "info", plain)
    logs.get_logger().info("hello")
    assert json.loads(plain.getvalue())["event"] == "hello"


def test_python_warnings_become_json_records(lines: Lines) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.warn("label removal is not supported here", UserWarning, stacklevel=1)
    (rec,) = lines()
    assert rec["logger"] == "py.warnings" and "label removal is not supported here" in rec["event"]


def suppressed(logger: str) -> float:
    return REGISTRY.get_sample_value("scrubber_log_records_suppressed_total", {"logger": logger}) or 0.0


def test_a_library_repeating_itself_is_written_a_few_times_a_window_and_counted(lines: Lines) -> None:
    before = suppressed("aiokafka")
    lib = logging.getLogger("aiokafka")
    for _ in range(600):  # what aiokafka logs in about ten seconds while its broker is down
        lib.error("Unable connect to node with id %s: %s", 111, "[Errno 111] Connection refused")
    lib.error("Unable to update metadata from %s", [111])
    written = lines()
    assert len(written) == logs.LIBRARY_BURST + 1
    assert written[-1]["event"] == "Unable to update metadata from [111]"
    assert suppressed("aiokafka") - before == 600 - logs.LIBRARY_BURST


def test_after_its_window_a_kind_is_written_again_with_the_count_left_out() -> None:
    now = [0.0]
    rate = logs.LibraryRate(burst=2, window=10.0, clock=lambda: now[0])

    def record() -> logging.LogRecord:
        return logging.LogRecord("aiokafka", logging.ERROR, __file__, 1, "node %s down", (111,), None)

    passed = [rate.filter(record()) for _ in range(5)]
    assert passed == [True, True, False, False, False]
    now[0] = 10.0
    first = record()
    assert rate.filter(first) and first.suppressed == 3  # type: ignore[attr-defined]
    second = record()
    assert rate.filter(second) and not hasattr(second, "suppressed")
    assert not rate.filter(record())
    other = logging.LogRecord("aiokafka", logging.ERROR, __file__, 1, "metadata from %s", (111,), None)
    assert rate.filter(other)  # another kind has its own count
