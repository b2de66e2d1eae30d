"""Policies: what a route masks and how, built directly or from the YAML config."""

from __future__ import annotations

from pathlib import Path

import pytest

from scrubber import config
from scrubber.dial import ENTITIES, OperatorSpec, Policy, PolicyError
from scrubber.engine import Scrubber


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"level": 8}, "level"),
        ({"level": -1}, "level"),
        ({"always": frozenset({"NOPE"})}, "unknown entity"),
        ({"always": frozenset({"US_SSN"}), "never": frozenset({"US_SSN"})}, "both"),
        ({"default_operator": OperatorSpec("hash")}, "HMAC key"),
        ({"allow": frozenset({"re:[a-"})}, "allow"),
    ],
)
def test_invalid_policies_are_refused_with_a_reason(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(PolicyError, match=message):
        Policy(**kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(("name", "keep", "char"), [("shred", 4, "*"), ("mask", -1, "*"), ("mask", 4, "**")])
def test_invalid_operators_are_refused(name: str, keep: int, char: str) -> None:
    with pytest.raises(PolicyError):
        OperatorSpec(name, keep_last=keep, mask_char=char)


def test_masked_entities_follow_the_dial_and_overrides() -> None:
    policy = Policy(level=3, always=frozenset({"IP_ADDRESS"}), never=frozenset({"SECRET"}))
    masked = policy.masked_entities
    assert "IP_ADDRESS" in masked and "SECRET" not in masked
    assert {"CREDIT_CARD", "US_SSN", "EMAIL_ADDRESS"} <= masked
    assert "PHONE_NUMBER" not in masked
    assert policy.with_level(7).masked_entities == frozenset(ENTITIES) - {"SECRET"}


def test_the_yaml_policy_drives_the_engine(tmp_path: Path) -> None:
    (tmp_path / "key").write_text("k3y-from-a-file\n")
    path = tmp_path / "scrubber.yaml"
    path.write_text(
        f"""
level: 3
operator: label
allow: [help@shop.example, 're:.*@corp\\.example']
hmac_key_file: {tmp_path / "key"}
entities:
  US_SSN: {{operator: mask, keep_last: 4}}
  EMAIL_ADDRESS: {{operator: hash}}
  IP_ADDRESS: {{mask: always, operator: remove}}
  CREDIT_CARD: {{mask: never}}
"""
    )
    policy = config.load(path, environ={}).policy.policy()
    text = "ssn 536-22-8173 help@shop.example jane@example.com ip 81.2.69.160 card 4539 1488 0343 6467"
    out = Scrubber(policy).scrub(text).text
    assert out.startswith("ssn ***-**-8173 help@shop.example <EMAIL_ADDRESS:")
    assert out.endswith("> ip  card 4539 1488 0343 6467")


def test_the_hmac_key_comes_from_the_environment_never_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "scrubber.yaml"
    path.write_text("operator: hash\nhmac_key_env: SCRUB_TEST_KEY\n")
    monkeypatch.delenv("SCRUB_TEST_KEY", raising=False)
    with pytest.raises(config.ConfigError, match="SCRUB_TEST_KEY"):
        config.load(path, environ={})
    text = "mail jane@example.com"
    out = []
    for key in ("one", "two"):
        monkeypatch.setenv("SCRUB_TEST_KEY", key)
        policy = config.load(path, environ={}).policy.policy()
        assert key not in repr(policy)
        out.append(Scrubber(policy).scrub(text).text)
    assert out[0] != out[1]
    path.write_text("operator: hash\nhmac_key: in-the-clear\n")
    with pytest.raises(config.ConfigError, match="hmac_key"):
        config.load(path, environ={})
