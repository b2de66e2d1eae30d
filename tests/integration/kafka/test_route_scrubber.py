"""The record-level half of the proxy (bytes in, outcome out) and the Kafka settings; no broker."""

from __future__ import annotations

import json
import os
import ssl
import subprocess
import sys

import pytest

from scrubber import config
from scrubber.config import ConfigError, KafkaRoute
from scrubber.detectors import MessageContext
from scrubber.dial import Policy
from scrubber.engine import Scrubber
from scrubber.findings import Finding
from scrubber.kafka.session import client_security
from scrubber.kafka.transform import Outcome, RouteScrubber

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
    assert ok.found == (("EMAIL_ADDRESS", "pattern", 1), ("US_SSN", "pattern", 1))
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


def test_header_values_are_scrubbed_when_the_route_asks() -> None:
    engine = Scrubber(Policy(level=3))
    headers = [
        ("x-user", b"jane.roe@example.com"),
        ("trace", b"t-1"),
        ("x-null", None),
        ("scrubber-reason", b"spoofed"),  # dropped on the way out; never scrubbed
    ]
    items = [(b"hi a@b.org", None)]
    (every,) = RouteScrubber(route(scrub_headers=True), engine, 1000).run(items, 10, [headers])
    assert every.headers == (
        ("x-user", b"[EMAIL_ADDRESS]"),
        ("trace", b"t-1"),
        ("x-null", None),
        ("scrubber-reason", b"spoofed"),
    )
    assert every.value == b"hi [EMAIL_ADDRESS]"
    assert json.loads(every.summary) == {"EMAIL_ADDRESS": 2}
    named = [*headers, ("x-other", b"john@example.org")]
    (listed,) = RouteScrubber(route(scrub_headers=("x-other",)), engine, 1000).run(items, 10, [named])
    assert listed.headers is not None
    assert dict(listed.headers)["x-other"] == b"[EMAIL_ADDRESS]"
    assert dict(listed.headers)["x-user"] == b"jane.roe@example.com"  # not listed: as it was
    (off,) = RouteScrubber(route(), engine, 1000).run(items, 10, [headers])
    assert off.headers is None  # the record's own headers go out unchanged


def test_a_header_that_is_not_utf8_quarantines_the_record_only_when_it_is_scrubbed() -> None:
    engine = Scrubber(Policy(level=3))
    headers = [("x-bin", b"\xff\xfe"), ("x-user", b"a@b.org")]
    items = [(b"fine", None), (b"also fine", None)]
    every = RouteScrubber(route(scrub_headers=True), engine, 1000).run(items, 10, [headers, []])
    assert [(o.reason, o.value) for o in every] == [("invalid_header", None), (None, b"also fine")]
    (other,) = RouteScrubber(route(scrub_headers=("x-user",)), engine, 1000).run(items[:1], 10, [headers])
    assert other.reason is None
    assert other.headers == (("x-bin", b"\xff\xfe"), ("x-user", b"[EMAIL_ADDRESS]"))


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
        ({"routes": [{"in": "a", "out": "b", "scrub_headers": 1}]}, "scrub_headers: expected true or false"),
        ({"routes": [{"in": "a", "out": "b", "scrub_headers": ["x", ""]}]}, "names must not be empty"),
    ],
)
def test_kafka_settings_are_checked_at_load(section: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace(".", r"\.")):
        config.parse(kafka_doc(**section))


def test_scrub_processes_default_to_two_but_never_more_than_the_cpus_allowed() -> None:
    probe = "from scrubber.config import KafkaConfig; print(KafkaConfig.scrub_processes)"

    def default(cpus: set[int]) -> int:
        code = f"import os; os.sched_setaffinity(0, {cpus!r}); {probe}"
        return int(subprocess.run([sys.executable, "-c", code], capture_output=True, check=True).stdout)

    assert default({min(os.sched_getaffinity(0))}) == 1
    if len(os.sched_getaffinity(0)) >= 2:
        two = set(sorted(os.sched_getaffinity(0))[:2])
        assert default(two) == 2
        assert default(os.sched_getaffinity(0)) == 2


def test_kafka_settings_and_their_environment_overrides() -> None:
    doc = kafka_doc(session_timeout_ms=6000)
    s = config.parse(config.apply_env(doc, {"SCRUBBER_KAFKA__HEARTBEAT_INTERVAL_MS": "500"}))
    assert s.kafka is not None
    assert (s.kafka.session_timeout_ms, s.kafka.heartbeat_interval_ms) == (6000, 500)
    assert (s.kafka.auto_offset_reset, s.kafka.exactly_once) == ("earliest", False)
    assert s.kafka.scrub_processes == min(2, len(os.sched_getaffinity(0)))
    assert s.kafka.auto_create_topics is False
    s = config.parse(config.apply_env(doc, {"SCRUBBER_KAFKA__AUTO_CREATE_TOPICS": "true"}))
    assert s.kafka is not None and s.kafka.auto_create_topics is True
    assert s.kafka.routes[0].scrub_headers is False
    env = {"SCRUBBER_KAFKA__ROUTES__0__SCRUB_HEADERS": "[x-user, subject]"}
    s = config.parse(config.apply_env(kafka_doc(), env))
    assert s.kafka is not None and s.kafka.routes[0].scrub_headers == ("x-user", "subject")
    s = config.parse(config.apply_env(kafka_doc(), {"SCRUBBER_KAFKA__ROUTES__0__SCRUB_HEADERS": "true"}))
    assert s.kafka is not None and s.kafka.routes[0].scrub_headers is True


class Fragile:
    """A detector with a bug that only some input triggers."""

    name = "fragile"
    entities = frozenset({"US_SSN"})

    def detect(self, text: str, ctx: MessageContext) -> list[Finding]:
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


def test_a_record_keeps_its_own_time_budget_and_borrows_none_from_its_batch() -> None:
    # A large record that takes 0.6 s (Sleepy) amid 63 small ones, on a 0.2 s budget a record:
    # it is held back on its own budget, and its neighbours, scrubbed without it, go on.
    from kafka_helpers import Sleepy

    detectors = [Sleepy(), *Scrubber(Policy(level=7)).detectors]
    engine = Scrubber(Policy(level=7), detectors=detectors, time_budget=0.2)
    rs = RouteScrubber(route(), engine, max_bytes=10_000_000)
    big = ("sleep 600 " + "word " * 20_000 + f"ssn {SSN}").encode()
    small = [(f"row {i}, ssn {SSN}".encode(), None) for i in range(63)]
    out = rs.run([*small[:30], (big, None), *small[30:]], budget=60)
    assert out[30].reason == "time_budget" and out[30].value is None
    assert [o.value for o in out[:30] + out[31:]] == [f"row {i}, ssn [US_SSN]".encode() for i in range(63)]
