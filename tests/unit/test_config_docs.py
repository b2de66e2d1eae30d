"""One configuration, three descriptions that must agree: the parser (scrubber/config.py), the
README's reference and recipes, and the Helm chart's values.schema.json; and check-config's output
loads back to the same settings."""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from scrubber import config
from scrubber.dial import DEFAULT_LEVEL, ENTITIES, MAX_LEVEL, OPERATORS
from scrubber.kafka.session import client_security

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text()
SCHEMA = json.loads((REPO / "deploy/helm/scrubber/values.schema.json").read_text())

# Every key set away from its default: what the round trip and the key lists are checked on.
EVERYTHING: dict[str, Any] = {
    "level": 3,
    "operator": "mask",
    "entities": {"US_SSN": {"mask": "always", "operator": "hash", "keep_last": 2}},
    "allow": ["support@example.com", "re:.*@corp\\.example"],
    "hmac_key_env": "HMAC_TEST_KEY",
    "min_score": 0.6,
    "spare_ips": ["private", "10.20.0.0/16"],
    "admin": {"listen": "127.0.0.1:9200", "playground": True},
    "logging": {"format": "json", "level": "debug"},
    "limits": {"max_message_bytes": 2048, "regex_timeout_ms": 100, "time_budget_ms": 900},
    "workers": 2,
    "event_loop": "asyncio",
    "kafka": {
        "bootstrap_servers": "k1:9093,k2:9093",
        "group_id": "g",
        "client_id": "c",
        "security": {"security_protocol": "SASL_SSL", "sasl_plain_password_env": "KAFKA_PW"},
        "quarantine_topic": "q",
        "auto_offset_reset": "latest",
        "exactly_once": True,
        "idempotent": True,
        "max_in_flight": 10,
        "batch_size": 20,
        "linger_ms": 1,
        "max_message_bytes": 4096,
        "routes": [
            {
                "in": "a.raw",
                "out": "a.clean",
                "level": 2,
                "format": "json",
                "fields": ["msg", "user.*"],
                "scrub_keys": True,
                "scrub_headers": ["note"],
            }
        ],
        "session_timeout_ms": 6000,
        "heartbeat_interval_ms": 1000,
        "request_timeout_ms": 9000,
        "commit_interval_ms": 50,
        "drain_timeout": 5,
        "retry_backoff_max": 2,
        "scrub_processes": 3,
        "auto_create_topics": True,
    },
    "smtp": {
        "listen": "127.0.0.1:2600",
        "hostname": "relay.example",
        "upstream": {
            "host": "mx.example",
            "port": 587,
            "tls": "starttls",
            "username": "u",
            "password_env": "UP_PW",
            "timeout": 10,
            "verify": False,
            "ca_file": "/ca.pem",
        },
        "level": 4,
        "allowed_networks": ["10.0.0.0/8"],
        "allow_open_relay": True,
        "tls": {"cert": "/c.pem", "key": "/k.pem"},
        "auth": {"required": True, "users_file": "/users"},
        "max_message_bytes": 4096,
        "max_recipients": 5,
        "max_sessions": 6,
        "command_timeout": 7,
        "data_timeout": 8,
        "headers": ["Subject", "X-Note"],
        "attachments": "strip",
        "on_unscrubbable": "quarantine",
        "quarantine_dir": "/q",
        "mailbox_dir": "/m",
        "scrub_processes": 1,
        "time_budget_ms": 700,
    },
}
ENV = {"HMAC_TEST_KEY": "k" * 32}


def leaves(value: Any, path: str = "") -> dict[str, Any]:
    """Every dataclass field under ``value``, by dotted path (list items at index 0)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Any] = {}
        for f in dataclasses.fields(value):
            out.update(leaves(getattr(value, f.name), f"{path}{f.name}."))
        return out
    if isinstance(value, tuple) and value and dataclasses.is_dataclass(value[0]):
        return leaves(value[0], path)
    return {path[:-1]: value}


def test_everything_sets_every_key_away_from_its_default(monkeypatch: pytest.MonkeyPatch) -> None:
    """So that a key added to the parser but not here fails this test (and the round trip covers it)."""
    for k, v in ENV.items():
        monkeypatch.setenv(k, v)
    got = leaves(config.parse(EVERYTHING))
    defaults = leaves(
        config.parse({"kafka": {"routes": [{"in": "a", "out": "b"}]}, "smtp": {}}),
    )
    same = sorted(k for k in got if got[k] == defaults.get(k))
    # hmac_key_file is the alternative to hmac_key_env: its round trip is a case of its own below.
    assert same == ["policy.hmac_key_file"], same


@pytest.mark.parametrize(
    "doc",
    [{}, {"level": 2}, EVERYTHING, {"operator": "hash", "hmac_key_file": "KEY_FILE"}],
    ids=["empty", "level", "everything", "hmac-file"],
)
def test_check_config_prints_a_config_that_loads_back_the_same(
    doc: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for k, v in ENV.items():
        monkeypatch.setenv(k, v)
    if doc.get("hmac_key_file") == "KEY_FILE":
        (tmp_path / "hmac.key").write_text("k" * 32)
        doc = {**doc, "hmac_key_file": str(tmp_path / "hmac.key")}
    path = tmp_path / "in.yaml"
    path.write_text(yaml.safe_dump(doc))
    printed = subprocess.run(
        [str(REPO / ".venv/bin/scrubber"), "check-config", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    again = tmp_path / "again.yaml"
    again.write_text(printed)
    assert config.load(again, environ=ENV) == config.load(path, environ=ENV)
    assert config.dump(config.load(again, environ=ENV)) == printed


def readme_config_keys() -> set[str]:
    """Every key name the README's configuration reference mentions in backticks."""
    section = README.split("## Configuration", 1)[1].split("\n## ", 1)[0]
    section = re.sub(r"```.*?```", "", section, flags=re.S)
    names: set[str] = set()
    for token in re.findall(r"`([^`]+)`", section):
        names.update(re.findall(r"[a-z_]+", token))
    return names


def test_the_readme_reference_names_every_key(monkeypatch: pytest.MonkeyPatch) -> None:
    for k, v in ENV.items():
        monkeypatch.setenv(k, v)
    doc = config.document(config.parse(EVERYTHING))
    keys: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                if k not in ENTITIES:
                    keys.add(k)
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(doc)
    keys -= {"security_protocol", "sasl_plain_password_env"}  # aiokafka's, listed under `security`
    assert sorted(keys - readme_config_keys()) == []


def test_the_readme_yaml_examples_are_valid_configs() -> None:
    blocks = re.findall(r"```yaml\n(.*?)```", README, re.S)
    assert len(blocks) >= 4
    for block in blocks:
        config.parse(yaml.safe_load(block))


def test_the_production_kafka_recipe_gives_sasl_ssl_with_the_ca(tmp_path: Path) -> None:
    recipe = README.split("## Recipe: Kafka in production", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"```yaml\n(.*?)```", recipe, re.S)
    settings = config.parse(yaml.safe_load(block))
    assert settings.kafka is not None
    ca, key = tmp_path / "ca.pem", tmp_path / "ca.key"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=kafka-ca",
         "-keyout", str(key), "-out", str(ca)],
        check=True,
        capture_output=True,
    )  # fmt: skip
    security = {**settings.kafka.security, "ssl_cafile": str(ca)}
    with pytest.raises(config.ConfigError, match="KAFKA_SASL_PASSWORD is not set"):
        client_security(security, {})
    kwargs = client_security(security, {"KAFKA_SASL_PASSWORD": "s3cret"})
    assert kwargs["security_protocol"] == "SASL_SSL"
    assert kwargs["sasl_mechanism"] == "SCRAM-SHA-512"
    assert kwargs["sasl_plain_password"] == "s3cret"
    assert kwargs["ssl_context"].check_hostname is True
    assert [c["subject"] for c in kwargs["ssl_context"].get_ca_certs()] == [((("commonName", "kafka-ca"),),)]


def test_the_chart_schema_offers_the_configs_choices() -> None:
    props = SCHEMA["properties"]
    assert set(props["limits"]["properties"]) == set(EVERYTHING["limits"])
    assert set(props["logging"]["properties"]) == set(EVERYTHING["logging"])
    assert props["logging"]["properties"]["format"]["enum"] == list(config.LOG_FORMATS)
    assert props["logging"]["properties"]["level"]["enum"] == list(config.LOG_LEVELS)
    policy = props["policy"]["properties"]
    assert set(policy) <= set(EVERYTHING)
    assert policy["operator"]["enum"] == list(OPERATORS)
    entity = policy["entities"]["additionalProperties"]["properties"]
    assert set(entity) == set(EVERYTHING["entities"]["US_SSN"])
    assert entity["mask"]["enum"] == list(config.MASK_CHOICES)
    assert props["level"]["maximum"] == MAX_LEVEL
    assert yaml.safe_load((REPO / "deploy/helm/scrubber/values.yaml").read_text())["level"] == DEFAULT_LEVEL
    route = props["kafka"]["properties"]["routes"]["items"]
    assert route["properties"]["format"]["enum"] == list(config.ROUTE_FORMATS)
    assert set(route["properties"]) == set(EVERYTHING["kafka"]["routes"][0])
    upstream = props["smtp"]["properties"]["upstream"]["properties"]
    assert upstream["tls"]["enum"] == list(config.UPSTREAM_TLS)
