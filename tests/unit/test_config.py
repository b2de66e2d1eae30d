"""The config file: validation with key paths, environment overrides, redaction."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from scrubber import config

ROUTES = {"routes": [{"in": "a.raw", "out": "a.clean"}]}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"level": 9}, "level: dial level must be between 0 and 7, got 9"),
        ({"level": "high"}, "level: expected an integer, got str"),
        ({"colour": "blue"}, "colour: unknown key"),
        (
            {"kafka": {"routes": [{"in": "a", "out": "b", "format": "xml"}]}},
            "kafka.routes[0].format: expected one of",
        ),
        ({"kafka": {"routes": [{"in": "a", "out": "a"}]}}, "kafka.routes[0]: 'in' and 'out' must differ"),
        ({"kafka": {"routes": []}}, "kafka.routes: at least one route"),
        ({"kafka": {**ROUTES, "quarantine_topic": "a.clean"}}, "kafka.quarantine_topic: must differ"),
        ({"kafka": {"routes": [{"in": "a", "out": "b", "fields": ["x"]}]}}, "fields: only for format: json"),
        ({"smtp": {"listen": "nowhere"}}, "smtp.listen: expected HOST:PORT"),
        ({"smtp": {"upstream": {"port": 70000}}}, "smtp.upstream.port: must be between 1 and 65535"),
        (
            {"smtp": {"allowed_networks": ["10.0.0.0/33"]}},
            "smtp.allowed_networks: '10.0.0.0/33' is not a network",
        ),
        ({"smtp": {"auth": {"required": True}}}, "smtp.auth.required: needs auth.users_file and tls"),
        ({"smtp": {"upstream": {"password": "x"}}}, "smtp.upstream.password"),
        ({"hmac_key": "secret"}, "hmac_key: the key may not sit in the config file"),
        ({"entities": {"SSN": {"mask": "always"}}}, "entities.SSN: unknown entity"),
        ({"entities": {"US_SSN": {"operator": "blur"}}}, "entities.US_SSN.operator: expected one of"),
        ({"operator": "hash"}, "hash operator needs an HMAC key"),
        ({"event_loop": "fast"}, "event_loop: expected one of"),
    ],
)
def test_invalid_configs_name_the_key_and_the_reason(data: dict[str, object], message: str) -> None:
    with pytest.raises(config.ConfigError) as err:
        config.parse(data)
    assert message in str(err.value)


def test_defaults_are_loopback_and_full_dial() -> None:
    s = config.parse({})
    assert s.event_loop == "auto"
    assert s.policy.level == 7
    assert s.admin.listen.startswith("127.0.0.1:")
    assert s.kafka is None and s.smtp is None


def test_environment_overrides_nested_keys_and_list_items(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump({"level": 7, "kafka": ROUTES}))
    env = {
        "SCRUBBER_LEVEL": "4",
        "SCRUBBER_KAFKA__BOOTSTRAP_SERVERS": "broker:9092",
        "SCRUBBER_KAFKA__ROUTES__0__LEVEL": "2",
        "SCRUBBER_SMTP__UPSTREAM__PORT": "2526",
        "SCRUBBER_HMAC_KEY": "not a config key",
        "OTHER": "ignored",
    }
    s = config.load(path, environ=env)
    assert s.policy.level == 4
    assert s.kafka is not None and s.kafka.bootstrap_servers == "broker:9092"
    assert s.kafka.routes[0].level == 2
    assert s.smtp is not None and s.smtp.upstream.port == 2526


def test_environment_override_of_a_missing_list_item_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump({"kafka": ROUTES}))
    with pytest.raises(config.ConfigError, match="SCRUBBER_KAFKA__ROUTES__3__LEVEL"):
        config.load(path, environ={"SCRUBBER_KAFKA__ROUTES__3__LEVEL": "2"})


def test_invalid_yaml_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("level: 4\nkafka: [unclosed\n")
    with pytest.raises(config.ConfigError, match=r"c\.yaml:\d+: invalid YAML"):
        config.load(path, environ={})


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(config.ConfigError, match="cannot read"):
        config.load(tmp_path / "absent.yaml", environ={})


def test_passwords_never_sit_in_the_file_and_dump_keeps_only_where_they_come_from() -> None:
    with pytest.raises(config.ConfigError, match="sasl_plain_password_env"):
        config.parse({"kafka": {**ROUTES, "security": {"sasl_plain_password": "hunter2"}}})
    s = config.parse({"kafka": {**ROUTES, "security": {"sasl_plain_password_env": "KAFKA_PW"}}})
    assert "KAFKA_PW" in config.dump(s)


def test_spare_ips_reach_the_policy() -> None:
    assert config.parse({}).policy.policy().spare_ips == ()
    got = config.parse({"spare_ips": ["private", "10.99.0.0/16", "2001:db8:5::/48"]}).policy.policy()
    assert got.spare_ips == ("private", "10.99.0.0/16", "2001:db8:5::/48")
    assert config.parse({"spare_ips": "documentation"}).policy.policy().spare_ips == ("documentation",)


@pytest.mark.parametrize("bad", [["10.0.0.1/8"], ["intranet"], ["300.1.2.0/24"], [""]])
def test_a_bad_spare_ips_entry_is_named(bad: list[str]) -> None:
    with pytest.raises(config.ConfigError, match=r"spare_ips: .*CIDR block"):
        config.parse({"spare_ips": bad})


def test_the_older_ip_keys_still_spare_what_they_spared() -> None:
    # They said "also mask": false kept a range unmasked, true is what every address gets now.
    assert config.parse({"documentation_ips": False}).policy.spare_ips == ("documentation",)
    assert config.parse({"private_ips": False}).policy.spare_ips == ("private", "link-local")
    assert config.parse({"private_ips": True, "documentation_ips": True}).policy.spare_ips == ()
    both = config.parse({"private_ips": False, "spare_ips": ["private"]}).policy.spare_ips
    assert both == ("private", "link-local")
    with pytest.raises(config.ConfigError, match="private_ips"):
        config.parse({"private_ips": "yes"})


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"levle": 3}, "levle: unknown key; did you mean level?"),
        ({"admin": {"listn": "x"}}, "admin.listn: unknown key; did you mean listen?"),
        ({"kafka": {"routes": [{"in": "a", "out": "b", "formt": "json"}]}}, "did you mean format?"),
        ({"kafka": {**ROUTES, "security": {"sasl_mechanisms": "PLAIN"}}}, "did you mean sasl_mechanism?"),
        (
            {"smtp": {"upstream": {"password": "x"}}},
            "smtp.upstream.password: a password may not sit in the config file; use password_env",
        ),
    ],
)
def test_typos_get_the_closest_key_and_passwords_the_env_hint(data: dict[str, object], message: str) -> None:
    with pytest.raises(config.ConfigError) as err:
        config.parse(data)
    assert message in str(err.value)


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        (
            {"SCRUBBER_LEVL": "4"},
            "environment variable SCRUBBER_LEVL: levl: unknown key; did you mean level? Use SCRUBBER_LEVEL.",
        ),
        ({"SCRUBBER_LEVEL": "high"}, "environment variable SCRUBBER_LEVEL: level: expected an integer"),
        (
            {"SCRUBBER_SMTP__UPSTREAM__PASWORD_ENV": "PW"},
            "environment variable SCRUBBER_SMTP__UPSTREAM__PASWORD_ENV: smtp.upstream.pasword_env: "
            "unknown key; did you mean password_env? Use SCRUBBER_SMTP__UPSTREAM__PASSWORD_ENV.",
        ),
        (
            {"SCRUBBER_KAFKA__ROUTES__0__LEVEL": "9"},
            "environment variable SCRUBBER_KAFKA__ROUTES__0__LEVEL: kafka.routes[0].level: dial level",
        ),
    ],
)
def test_a_wrong_override_names_its_environment_variable(
    tmp_path: Path, environ: dict[str, str], message: str
) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump({"kafka": ROUTES}))
    with pytest.raises(config.ConfigError) as err:
        config.load(path, environ=environ)
    assert message in str(err.value)


def test_an_error_in_the_file_does_not_blame_an_unrelated_variable(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump({"levle": 3}))
    with pytest.raises(config.ConfigError) as err:
        config.load(path, environ={"SCRUBBER_ADMIN__LISTEN": "127.0.0.1:9000"})
    assert str(err.value).startswith("levle: unknown key")


OPEN = {"allowed_networks": ["0.0.0.0/0", "::/0"]}


@pytest.mark.parametrize(
    "networks",
    [["0.0.0.0/0"], ["::/0"], ["127.0.0.0/8", "0.0.0.0/1", "128.0.0.0/1"], ["::ffff:0:0/96"], ["2000::/3"]],
)
def test_an_open_relay_is_refused_without_auth_or_an_explicit_yes(networks: list[str]) -> None:
    with pytest.raises(config.ConfigError) as err:
        config.parse({"smtp": {"allowed_networks": networks}})
    assert "smtp.allowed_networks:" in str(err.value)
    assert "open relay" in str(err.value) and "smtp.allow_open_relay" in str(err.value)


def test_own_networks_of_any_size_and_a_partners_public_range_are_no_open_relay() -> None:
    networks = ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7", "127.0.0.0/8", "8.8.0.0/16"]
    assert config.parse({"smtp": {"allowed_networks": networks}}).smtp is not None
    assert config.open_networks(tuple(networks)) == []


def test_an_open_relay_is_accepted_with_auth_or_when_meant(tmp_path: Path) -> None:
    meant = config.parse({"smtp": {**OPEN, "allow_open_relay": True}}).smtp
    assert meant is not None and meant.allow_open_relay
    (tmp_path / "users").write_text("")
    tls = {"cert": str(tmp_path / "c.pem"), "key": str(tmp_path / "k.pem")}
    auth = {"required": True, "users_file": str(tmp_path / "users")}
    with_auth = config.parse({"smtp": {**OPEN, "tls": tls, "auth": auth}}).smtp
    assert with_auth is not None and not with_auth.allow_open_relay
