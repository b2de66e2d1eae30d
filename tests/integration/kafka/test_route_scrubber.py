"""The record-level half of the proxy (bytes in, outcome out) and the Kafka settings; no broker."""

from __future__ import annotations

import json
import ssl

import pytest

from scrubber import config
from scrubber.config import ConfigError, KafkaRoute
from scrubber.dial import Policy
from scrubber.engine import Scrubber
from scrubber.findings import Finding
from scrubber.kafka import Outcome, RouteScrubber, client_security

SSN = "524-59-3318"


@pytest.fixture(scope="module")
def engine() -> Scrubber:
    return Scrubber(Policy(level=3))


def route(**kw: object) -> KafkaRoute:
    return KafkaRoute(input="in", output="out", **kw)  # type: ignore[arg-type]


def test_text_records_become_scrubbed_values_with_a_findings_summary(engine: Scrubber) -> None:
    rs = RouteScrubber(route(), engine, max_bytes=1000)
    (ok, tomb) = rs.run([(f"ssn {SSN} a@b.org".encode(), b"k"), (None, b"deleted")], budget=10)
    assert (ok.value, ok.key, ok.reason) == (b"ssn [US_SSN] [EMAIL_ADDRESS]", b"k", None)
    assert json.loads(ok.summary) == {"EMAIL_ADDRESS": 1, "US_SSN": 1}
    assert sorted(ok.found) == [("EMAIL_ADDRESS", "pattern"), ("US_SSN", "pattern")]
    assert (tomb.value, tomb.key, tomb.reason, json.loads(tomb.summary)) == (None, b"deleted", None, {})


@pytest.mark.parametrize(
    ("fmt", "scrub_keys", "value", "key", "reason"),
    [
        ("text", False, b"\xc3\x28", None, "invalid_utf8"),
        ("text", False, b"x" * 101, None, "too_large"),
        ("text", False, b"x" * 90, b"k" * 11, "too_large"),  # the key counts towards the size
        ("text", True, b"fine", b"\xff", "invalid_key"),
        ("text", False, None, None, "null_record"),
        ("json", False, b"{nope", None, "invalid_json"),
    ],
)
def test_records_that_cannot_be_scrubbed_get_a_reason(
    engine: Scrubber, fmt: str, scrub_keys: bool, value: bytes | None, key: bytes | None, reason: str
) -> None:
    rs = RouteScrubber(route(format=fmt, scrub_keys=scrub_keys), engine, max_bytes=100)
    (out,) = rs.run([(value, key)], budget=10)
    assert out.reason == reason and out.value is None


def test_an_undecodable_key_passes_when_keys_are_not_scrubbed(engine: Scrubber) -> None:
    (out,) = RouteScrubber(route(), engine, max_bytes=100).run([(b"x" * 99, b"\xff")], budget=10)
    assert (out.reason, out.value, out.key) == (None, b"x" * 99, b"\xff")


def test_an_engine_error_in_a_batch_quarantines_only_the_record_at_fault() -> None:
    # The engine refuses texts over max_chars with ScrubError, as it does a regex timeout.
    small = Scrubber(Policy(level=3), max_chars=50)
    rs = RouteScrubber(route(), small, max_bytes=1000)
    out = rs.run([(f"a {SSN}".encode(), None), (b"x" * 51, None), (f"b {SSN}".encode(), None)], 60)
    assert [o.reason for o in out] == [None, "too_large", None]
    assert [o.value for o in out] == [b"a [US_SSN]", None, b"b [US_SSN]"]


def test_a_spent_budget_returns_a_prefix_and_the_rest_follows(engine: Scrubber) -> None:
    rs = RouteScrubber(route(), engine, max_bytes=1000)
    items = [(f"{i} mail u{i}@x.org".encode(), None) for i in range(300)]
    whole = rs.run(items, budget=60)
    assert len(whole) == 300
    part = rs.run(items, budget=0)
    assert 1 <= len(part) < 300

    def seen(outcomes: list[Outcome]) -> list[tuple[object, ...]]:
        return [(o.value, o.key, o.summary, o.reason) for o in outcomes]

    assert seen(part) == seen(whole[: len(part)])


def test_security_settings_read_secrets_from_the_environment() -> None:
    env = {"KAFKA_PW": "s3cret"}
    out = client_security(
        {
            "security_protocol": "SASL_PLAINTEXT",
            "sasl_mechanism": "PLAIN",
            "sasl_plain_password_env": "KAFKA_PW",
        },
        env,
    )
    assert out == {
        "security_protocol": "SASL_PLAINTEXT",
        "sasl_mechanism": "PLAIN",
        "sasl_plain_password": "s3cret",
    }
    with pytest.raises(ConfigError, match="KAFKA_PW"):
        client_security({"sasl_plain_password_env": "KAFKA_PW"}, {})
    ctx = client_security({"security_protocol": "SSL", "ssl_check_hostname": False}, env)["ssl_context"]
    assert isinstance(ctx, ssl.SSLContext) and ctx.check_hostname is False


def kafka_doc(**kw: object) -> dict[str, object]:
    return {"kafka": {"routes": [{"in": "a", "out": "b"}], **kw}}


@pytest.mark.parametrize(
    ("section", "message"),
    [
        (
            {"security": {"sasl_plain_password": "x"}},
            "kafka.security.sasl_plain_password: use sasl_plain_password_env",
        ),
        ({"security": {"sasl_foo": "x"}}, "kafka.security.sasl_foo: unknown key"),
        ({"session_timeout_ms": 1000, "heartbeat_interval_ms": 1000}, "heartbeat_interval_ms: must be lower"),
        ({"max_message_bytes": 0}, "kafka.max_message_bytes: must be >= 1"),
        ({"scrub_processes": -1}, "kafka.scrub_processes: must be between 0 and 64"),
        ({"drain_timeout": 0}, "kafka.drain_timeout: must be > 0"),
        ({"auto_create_topics": "yes"}, "kafka.auto_create_topics: expected true or false"),
    ],
)
def test_kafka_settings_are_checked_at_load(section: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace(".", r"\.")):
        config.parse(kafka_doc(**section))


def test_kafka_settings_and_their_environment_overrides() -> None:
    doc = kafka_doc(session_timeout_ms=6000)
    s = config.parse(config.apply_env(doc, {"SCRUBBER_KAFKA__HEARTBEAT_INTERVAL_MS": "500"}))
    assert s.kafka is not None
    assert (s.kafka.session_timeout_ms, s.kafka.heartbeat_interval_ms) == (6000, 500)
    assert (s.kafka.auto_offset_reset, s.kafka.exactly_once, s.kafka.scrub_processes) == (
        "earliest",
        False,
        0,
    )
    assert s.kafka.auto_create_topics is False
    s = config.parse(config.apply_env(doc, {"SCRUBBER_KAFKA__AUTO_CREATE_TOPICS": "true"}))
    assert s.kafka is not None and s.kafka.auto_create_topics is True


class Fragile:
    """A detector with a bug that only some input triggers."""

    name = "fragile"
    entities = frozenset({"US_SSN"})

    def detect(self, text: str) -> list[Finding]:
        if "boom" in text:
            raise IndexError("detector bug")
        return []


def test_a_detector_failure_holds_back_only_that_record() -> None:
    rs = RouteScrubber(route(), Scrubber(Policy(level=3), detectors=[Fragile()]), max_bytes=1000)
    out = rs.run([(b"fine", None), (b"boom", None), (b"also fine", None)], budget=10)
    assert [(o.reason, o.value) for o in out] == [
        (None, b"fine"),
        ("detector_error", None),
        (None, b"also fine"),
    ]
