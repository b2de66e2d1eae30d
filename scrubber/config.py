"""Configuration: one YAML file plus ``SCRUBBER_*`` environment overrides, validated at start.

Every error names the key path (``kafka.routes[1].format``) and what was expected. Secrets never
sit in the file in clear: the file names an environment variable or a file that holds them.
Environment overrides: ``SCRUBBER_<KEY>`` with ``__`` between nesting levels, the value read as
a YAML scalar or flow collection, e.g. ``SCRUBBER_LEVEL=4``,
``SCRUBBER_KAFKA__BOOTSTRAP_SERVERS=h:9092``, ``SCRUBBER_SMTP__UPSTREAM__PORT=2526``.
List items are addressed by index: ``SCRUBBER_KAFKA__ROUTES__0__LEVEL=3``.
"""

from __future__ import annotations

import difflib
import importlib.util
import ipaddress
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields, is_dataclass
from pathlib import Path
from typing import Any

import yaml

from scrubber.detectors import REGEX_TIMEOUT
from scrubber.dial import (
    DEFAULT_LEVEL,
    ENTITIES,
    MAX_LEVEL,
    OPERATORS,
    OperatorSpec,
    Policy,
    PolicyError,
    ip_networks,
)

ENV_PREFIX = "SCRUBBER_"

# The choices a key accepts (the Helm chart's values.schema.json offers the same; a test checks).
LOG_FORMATS = ("auto", "json", "console")
LOG_LEVELS = ("debug", "info", "warning", "error")
MASK_CHOICES = ("dial", "always", "never")
ROUTE_FORMATS = ("text", "json")
UPSTREAM_TLS = ("none", "starttls", "implicit")


class ConfigError(ValueError):
    """Invalid configuration; the message names the key and the reason."""


class ListenError(ConfigError):
    """A ``listen`` address that cannot be bound (in use, not on this host); names the key."""

    def __init__(self, key: str, address: str, exc: OSError) -> None:
        # The event loops word it differently; the errno's own text is the same everywhere.
        reason = os.strerror(exc.errno) if exc.errno else str(exc)
        super().__init__(f"{key}: cannot listen on {address}: {reason}")


class UnknownKeyError(ConfigError):
    """A key the configuration does not have; ``suggestion`` is the closest known key, if any."""

    def __init__(self, key: str, known: Iterable[str], *, listed: bool = False) -> None:
        name = key.rsplit(".", 1)[-1]
        known = sorted(known)
        close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
        self.key = key
        self.suggestion = close[0] if close else None
        hint = f"; did you mean {self.suggestion}?" if self.suggestion else ""
        listing = f" (known: {', '.join(known)})" if listed else ""
        super().__init__(f"{key}: unknown key{hint}{listing}")


# --------------------------------------------------------------------------- sections
@dataclass(frozen=True)
class EntitySetting:
    mask: str = "dial"  # dial | always | never
    operator: str | None = None
    keep_last: int = 4


@dataclass(frozen=True)
class PolicyConfig:
    level: int = DEFAULT_LEVEL
    entities: Mapping[str, EntitySetting] = field(default_factory=dict)
    default_operator: str = "label"
    allow: tuple[str, ...] = ()
    hmac_key_env: str | None = None
    hmac_key_file: str | None = None
    min_score: float = 0.5
    spare_ips: tuple[str, ...] = ()

    def hmac_key(self) -> bytes | None:
        if self.hmac_key_env:
            value = os.environ.get(self.hmac_key_env)
            if not value:
                raise ConfigError(f"hmac_key_env: environment variable {self.hmac_key_env} is not set")
            return value.encode()
        if self.hmac_key_file:
            try:
                data = Path(self.hmac_key_file).read_bytes().strip()
            except OSError as exc:
                raise ConfigError(f"hmac_key_file: cannot read {self.hmac_key_file}: {exc.strerror}") from exc
            if not data:
                raise ConfigError(f"hmac_key_file: {self.hmac_key_file} is empty")
            return data
        return None

    def policy(self, level: int | None = None) -> Policy:
        ops = {
            e: OperatorSpec(s.operator or self.default_operator, keep_last=s.keep_last)
            for e, s in self.entities.items()
            if s.operator is not None
        }
        try:
            return Policy(
                level=self.level if level is None else level,
                always=frozenset(e for e, s in self.entities.items() if s.mask == "always"),
                never=frozenset(e for e, s in self.entities.items() if s.mask == "never"),
                allow=frozenset(self.allow),
                operators=ops,
                default_operator=OperatorSpec(self.default_operator),
                hmac_key=self.hmac_key(),
                min_score=self.min_score,
                spare_ips=self.spare_ips,
            )
        except PolicyError as exc:
            raise ConfigError(str(exc)) from exc


@dataclass(frozen=True)
class AdminConfig:
    listen: str = "127.0.0.1:9108"
    playground: bool = False


@dataclass(frozen=True)
class LoggingConfig:
    format: str = "auto"  # auto | json | console
    level: str = "info"


@dataclass(frozen=True)
class LimitsConfig:
    max_message_bytes: int = 1024 * 1024
    regex_timeout_ms: int = round(REGEX_TIMEOUT * 1000)
    time_budget_ms: int = 5000


@dataclass(frozen=True)
class KafkaRoute:
    input: str
    output: str
    level: int | None = None
    format: str = "text"  # text | json
    fields: tuple[str, ...] = ()
    scrub_keys: bool = False
    # Record headers whose values are scrubbed as text: False (none), True (all), or their names.
    scrub_headers: bool | tuple[str, ...] = False


@dataclass(frozen=True)
class KafkaConfig:
    bootstrap_servers: str = "127.0.0.1:9092"
    group_id: str = "scrubber"
    client_id: str = "scrubber"
    security: Mapping[str, Any] = field(default_factory=dict)
    quarantine_topic: str = "scrubber.quarantine"
    auto_offset_reset: str = "earliest"
    exactly_once: bool = False
    idempotent: bool = False
    max_in_flight: int = 1000
    batch_size: int = 200
    linger_ms: int = 5
    max_message_bytes: int | None = None
    routes: tuple[KafkaRoute, ...] = ()
    # Group timing: Apache Kafka refuses session timeouts under group.min.session.timeout.ms
    # (6 s by default); tests against Tansu use 1000/200 for fast joins.
    session_timeout_ms: int = 10000
    heartbeat_interval_ms: int = 3000
    request_timeout_ms: int = 30000
    commit_interval_ms: int = 200
    drain_timeout: float = 30.0
    retry_backoff_max: float = 10.0
    # 0: scrub in one thread of this process; N: N worker processes. Default: 2, or 1 where this
    # process may run on one CPU only (sched_getaffinity sees cpusets; a CFS quota it does not).
    scrub_processes: int = min(
        2, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    )
    # Missing output/quarantine topics: False waits for them (not ready, nothing consumed);
    # True asks the broker to create them with its defaults, where its settings allow that.
    auto_create_topics: bool = False


@dataclass(frozen=True)
class SmtpUpstream:
    host: str = "127.0.0.1"
    port: int = 25
    tls: str = "none"  # none | starttls | implicit
    username: str | None = None
    password_env: str | None = None
    timeout: float = 30.0
    verify: bool = True
    ca_file: str | None = None


@dataclass(frozen=True)
class SmtpTls:
    cert: str | None = None
    key: str | None = None


@dataclass(frozen=True)
class SmtpAuth:
    required: bool = False
    users_file: str | None = None


@dataclass(frozen=True)
class SmtpConfig:
    listen: str = "127.0.0.1:2525"
    hostname: str = "scrubber"
    upstream: SmtpUpstream = SmtpUpstream()
    level: int | None = None
    allowed_networks: tuple[str, ...] = ("127.0.0.0/8", "::1/128")
    tls: SmtpTls = SmtpTls()
    auth: SmtpAuth = SmtpAuth()
    max_message_bytes: int = 26214400
    max_recipients: int = 100
    max_sessions: int = 100
    command_timeout: float = 300.0
    data_timeout: float = 600.0
    headers: tuple[str, ...] = ("Subject",)
    attachments: str = "pass"  # pass | strip | reject
    on_unscrubbable: str = "reject"  # reject | quarantine
    quarantine_dir: str | None = None
    mailbox_dir: str | None = None  # embedded default: deliver into a directory instead of upstream
    scrub_processes: int = 2  # 0: scrub in one thread of this process; N: a pool of N processes
    time_budget_ms: int | None = None  # per message; None: limits.time_budget_ms
    # Accept allowed_networks that let the whole internet relay without AUTH (warned at start).
    allow_open_relay: bool = False


@dataclass(frozen=True)
class Settings:
    policy: PolicyConfig = PolicyConfig()
    admin: AdminConfig = AdminConfig()
    logging: LoggingConfig = LoggingConfig()
    limits: LimitsConfig = LimitsConfig()
    kafka: KafkaConfig | None = None
    smtp: SmtpConfig | None = None
    workers: int = 1
    event_loop: str = "auto"  # auto: uvloop when it is installed; uvloop; asyncio


# --------------------------------------------------------------------------- parsing
class _Reader:
    """Reads one mapping, remembering the key path for error messages."""

    def __init__(self, data: Any, path: str) -> None:
        if data is None:
            data = {}
        if not isinstance(data, Mapping):
            raise ConfigError(f"{path or 'config'}: expected a mapping, got {type(data).__name__}")
        self.data = dict(data)
        self.path = path
        self.used: set[str] = set()

    def key(self, name: str) -> str:
        return f"{self.path}.{name}" if self.path else name

    def get(self, name: str, kind: type | tuple[type, ...], default: Any) -> Any:
        self.used.add(name)
        if name not in self.data or self.data[name] is None:
            return default
        value = self.data[name]
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if isinstance(value, bool) and kind is not bool and not (isinstance(kind, tuple) and bool in kind):
            raise ConfigError(f"{self.key(name)}: expected {_kind_name(kind)}, got a boolean")
        if not isinstance(value, kind):
            raise ConfigError(f"{self.key(name)}: expected {_kind_name(kind)}, got {type(value).__name__}")
        return value

    def choice(self, name: str, options: tuple[str, ...], default: str) -> str:
        value = self.get(name, str, default)
        if value not in options:
            raise ConfigError(f"{self.key(name)}: expected one of {', '.join(options)}, got {value!r}")
        return str(value)

    def number(self, name: str, default: int, lo: int, hi: int | None = None) -> int:
        value = self.get(name, int, default)
        if value < lo or (hi is not None and value > hi):
            bound = f"between {lo} and {hi}" if hi is not None else f">= {lo}"
            raise ConfigError(f"{self.key(name)}: must be {bound}, got {value}")
        return int(value)

    def seconds(self, name: str, default: float) -> float:
        value = self.get(name, (int, float), default)
        if value <= 0:
            raise ConfigError(f"{self.key(name)}: must be > 0, got {value}")
        return float(value)

    def strings(self, name: str, default: tuple[str, ...]) -> tuple[str, ...]:
        value = self.get(name, (list, str), list(default))
        if isinstance(value, str):
            value = [value]
        if not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{self.key(name)}: expected a list of strings")
        return tuple(value)

    def level(self, name: str, default: int | None) -> int | None:
        value = self.get(name, int, default)
        if value is not None and not 0 <= value <= MAX_LEVEL:
            raise ConfigError(f"{self.key(name)}: dial level must be between 0 and {MAX_LEVEL}, got {value}")
        return None if value is None else int(value)

    def done(self) -> None:
        unknown = sorted(set(self.data) - self.used)
        if unknown:
            raise UnknownKeyError(self.key(unknown[0]), self.used)


def _kind_name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    names = {
        "str": "a string",
        "int": "an integer",
        "float": "a number",
        "bool": "true or false",
        "list": "a list",
        "dict": "a mapping",
    }
    return " or ".join(names.get(k.__name__, k.__name__) for k in kinds)


def _listen(r: _Reader, name: str, default: str) -> str:
    value = r.get(name, str, default)
    host, sep, port = value.rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) <= 65535 or not host:
        raise ConfigError(f"{r.key(name)}: expected HOST:PORT, got {value!r}")
    return str(value)


def _policy(r: _Reader) -> PolicyConfig:
    level = r.level("level", DEFAULT_LEVEL)
    entities: dict[str, EntitySetting] = {}
    raw = r.get("entities", Mapping, {})
    for name, spec in raw.items():
        if name not in ENTITIES:
            raise ConfigError(f"entities.{name}: unknown entity (known: {', '.join(ENTITIES)})")
        er = _Reader(spec, f"entities.{name}")
        op = er.get("operator", str, None)
        if op is not None and op not in OPERATORS:
            raise ConfigError(f"entities.{name}.operator: expected one of {', '.join(OPERATORS)}, got {op!r}")
        entities[name] = EntitySetting(
            mask=er.choice("mask", MASK_CHOICES, "dial"),
            operator=op,
            keep_last=er.number("keep_last", 4, 0, 64),
        )
        er.done()
    default_op = r.choice("operator", OPERATORS, "label")
    min_score = r.get("min_score", float, 0.5)
    if not 0 <= min_score <= 1:
        raise ConfigError(f"min_score: must be between 0 and 1, got {min_score}")
    if "hmac_key" in r.data:
        raise ConfigError(
            "hmac_key: the key may not sit in the config file; use hmac_key_env or hmac_key_file"
        )
    return PolicyConfig(
        level=DEFAULT_LEVEL if level is None else level,
        entities=entities,
        default_operator=default_op,
        allow=r.strings("allow", ()),
        hmac_key_env=r.get("hmac_key_env", str, None),
        hmac_key_file=r.get("hmac_key_file", str, None),
        min_score=min_score,
        spare_ips=_spare_ips(r),
    )


# The keys spare_ips replaced, and the range each one's ``false`` spared (they said "also mask").
_OLD_IP_KEYS = {"documentation_ips": ("documentation",), "private_ips": ("private", "link-local")}


def _spare_ips(r: _Reader) -> tuple[str, ...]:
    """``spare_ips``, plus what the older ``documentation_ips``/``private_ips`` set to false spare."""
    spare = list(r.strings("spare_ips", ()))
    for key, ranges in _OLD_IP_KEYS.items():
        if not r.get(key, bool, True):
            spare.extend(n for n in ranges if n not in spare)
    try:
        ip_networks(spare)
    except PolicyError as exc:
        raise ConfigError(str(exc)) from None
    return tuple(spare)


def _scrub_headers(r: _Reader) -> bool | tuple[str, ...]:
    """``scrub_headers``: true, false, or a list of header names."""
    value = r.get("scrub_headers", (bool, list, str), False)
    if isinstance(value, bool):
        return value
    names = r.strings("scrub_headers", ())
    if not all(names):
        raise ConfigError(f"{r.key('scrub_headers')}: header names must not be empty")
    return names


def _kafka(data: Any) -> KafkaConfig:
    r = _Reader(data, "kafka")
    routes = []
    raw_routes = r.get("routes", list, [])
    for i, spec in enumerate(raw_routes):
        rr = _Reader(spec, f"kafka.routes[{i}]")
        route = KafkaRoute(
            input=rr.get("in", str, None),
            output=rr.get("out", str, None),
            level=rr.level("level", None),
            format=rr.choice("format", ROUTE_FORMATS, "text"),
            fields=rr.strings("fields", ()),
            scrub_keys=rr.get("scrub_keys", bool, False),
            scrub_headers=_scrub_headers(rr),
        )
        rr.done()
        if not route.input or not route.output:
            raise ConfigError(f"kafka.routes[{i}]: needs both 'in' and 'out' topics")
        if route.input == route.output:
            raise ConfigError(f"kafka.routes[{i}]: 'in' and 'out' must differ ({route.input})")
        if route.fields and route.format != "json":
            raise ConfigError(f"kafka.routes[{i}].fields: only for format: json")
        routes.append(route)
    inputs = [rt.input for rt in routes]
    dup = {t for t in inputs if inputs.count(t) > 1}
    if dup:
        raise ConfigError(f"kafka.routes: input topic {sorted(dup)[0]} appears in more than one route")
    cfg = KafkaConfig(
        bootstrap_servers=r.get("bootstrap_servers", str, KafkaConfig.bootstrap_servers),
        group_id=r.get("group_id", str, KafkaConfig.group_id),
        client_id=r.get("client_id", str, KafkaConfig.client_id),
        security=dict(r.get("security", Mapping, {})),
        quarantine_topic=r.get("quarantine_topic", str, KafkaConfig.quarantine_topic),
        auto_offset_reset=r.choice("auto_offset_reset", ("earliest", "latest"), "earliest"),
        exactly_once=r.get("exactly_once", bool, False),
        idempotent=r.get("idempotent", bool, False),
        max_in_flight=r.number("max_in_flight", KafkaConfig.max_in_flight, 1),
        batch_size=r.number("batch_size", KafkaConfig.batch_size, 1),
        linger_ms=r.number("linger_ms", KafkaConfig.linger_ms, 0),
        max_message_bytes=r.get("max_message_bytes", int, None),
        routes=tuple(routes),
        session_timeout_ms=r.number("session_timeout_ms", KafkaConfig.session_timeout_ms, 100),
        heartbeat_interval_ms=r.number("heartbeat_interval_ms", KafkaConfig.heartbeat_interval_ms, 10),
        request_timeout_ms=r.number("request_timeout_ms", KafkaConfig.request_timeout_ms, 100),
        commit_interval_ms=r.number("commit_interval_ms", KafkaConfig.commit_interval_ms, 0),
        drain_timeout=r.seconds("drain_timeout", KafkaConfig.drain_timeout),
        retry_backoff_max=r.seconds("retry_backoff_max", KafkaConfig.retry_backoff_max),
        scrub_processes=r.number("scrub_processes", KafkaConfig.scrub_processes, 0, 64),
        auto_create_topics=r.get("auto_create_topics", bool, False),
    )
    r.done()
    if not cfg.routes:
        raise ConfigError("kafka.routes: at least one route is needed")
    if cfg.max_message_bytes is not None and cfg.max_message_bytes < 1:
        raise ConfigError(f"kafka.max_message_bytes: must be >= 1, got {cfg.max_message_bytes}")
    if cfg.heartbeat_interval_ms >= cfg.session_timeout_ms:
        raise ConfigError("kafka.heartbeat_interval_ms: must be lower than session_timeout_ms")
    _kafka_security(cfg.security)
    if cfg.quarantine_topic in inputs or cfg.quarantine_topic in [rt.output for rt in routes]:
        raise ConfigError("kafka.quarantine_topic: must differ from every route's topics")
    return cfg


# Passed through to aiokafka; secrets are named by environment variable, never written in the file.
_KAFKA_SECURITY_KEYS = frozenset(
    {
        "security_protocol",
        "sasl_mechanism",
        "sasl_plain_username",
        "sasl_plain_password_env",
        "sasl_kerberos_service_name",
        "sasl_kerberos_domain_name",
        "ssl_cafile",
        "ssl_certfile",
        "ssl_keyfile",
        "ssl_password_env",
        "ssl_check_hostname",
    }
)


def _kafka_security(security: Mapping[str, Any]) -> None:
    for name in security:
        if name in ("sasl_plain_password", "ssl_password"):
            raise ConfigError(f"kafka.security.{name}: use {name}_env (the name of an environment variable)")
        if name not in _KAFKA_SECURITY_KEYS:
            raise UnknownKeyError(f"kafka.security.{name}", _KAFKA_SECURITY_KEYS, listed=True)


# Networks of the operator's own hosts, whatever their size.
_LOCAL_V4 = tuple(
    ipaddress.IPv4Network(n)
    for n in (
        "10.0.0.0/8",
        "172.16.0.0/12",
        "192.168.0.0/16",
        "100.64.0.0/10",
        "127.0.0.0/8",
        "169.254.0.0/16",
    )
)
_LOCAL_V6 = tuple(ipaddress.IPv6Network(n) for n in ("fc00::/7", "fe80::/10", "::1/128"))
# Wider than this, a network of public addresses is not a partner's hosts but the internet at
# large: a /8 of IPv4, a /32 of IPv6 (a whole provider's allocation).
_WIDEST_PREFIX = {4: 8, 6: 32}
_MAPPED_V4 = ipaddress.IPv6Network("::ffff:0:0/96")


def open_networks(networks: tuple[str, ...]) -> list[str]:
    """The entries of ``allowed_networks`` that let the internet at large connect."""
    out = []
    for entry in networks:
        net: ipaddress.IPv4Network | ipaddress.IPv6Network = ipaddress.ip_network(entry, strict=False)
        if isinstance(net, ipaddress.IPv6Network) and net.prefixlen >= 96 and net.subnet_of(_MAPPED_V4):
            # ::ffff:a.b.c.d is how an IPv6 socket sees an IPv4 client.
            net = ipaddress.ip_network(f"{net.network_address.ipv4_mapped}/{net.prefixlen - 96}")
        if net.prefixlen >= _WIDEST_PREFIX[net.version]:
            continue
        if isinstance(net, ipaddress.IPv4Network):
            local = any(net.subnet_of(n) for n in _LOCAL_V4)
        else:
            local = any(net.subnet_of(n) for n in _LOCAL_V6)
        if local:
            continue
        out.append(entry)
    return out


def _smtp(data: Any) -> SmtpConfig:
    r = _Reader(data, "smtp")
    ur = _Reader(r.get("upstream", Mapping, {}), "smtp.upstream")
    upstream = SmtpUpstream(
        host=ur.get("host", str, SmtpUpstream.host),
        port=ur.number("port", SmtpUpstream.port, 1, 65535),
        tls=ur.choice("tls", UPSTREAM_TLS, "none"),
        username=ur.get("username", str, None),
        password_env=ur.get("password_env", str, None),
        timeout=ur.seconds("timeout", SmtpUpstream.timeout),
        verify=ur.get("verify", bool, True),
        ca_file=ur.get("ca_file", str, None),
    )
    if "password" in ur.data:
        raise ConfigError(
            "smtp.upstream.password: a password may not sit in the config file; use password_env "
            "(the name of an environment variable that holds it)"
        )
    ur.done()
    tr = _Reader(r.get("tls", Mapping, {}), "smtp.tls")
    tls = SmtpTls(cert=tr.get("cert", str, None), key=tr.get("key", str, None))
    tr.done()
    if bool(tls.cert) != bool(tls.key):
        raise ConfigError("smtp.tls: cert and key go together")
    ar = _Reader(r.get("auth", Mapping, {}), "smtp.auth")
    auth = SmtpAuth(required=ar.get("required", bool, False), users_file=ar.get("users_file", str, None))
    ar.done()
    if auth.required and not (auth.users_file and tls.cert):
        raise ConfigError("smtp.auth.required: needs auth.users_file and tls (AUTH is only offered over TLS)")
    networks = r.strings("allowed_networks", SmtpConfig.allowed_networks)
    for n in networks:
        try:
            ipaddress.ip_network(n, strict=False)
        except ValueError:
            raise ConfigError(f"smtp.allowed_networks: {n!r} is not a network") from None
    cfg = SmtpConfig(
        listen=_listen(r, "listen", SmtpConfig.listen),
        hostname=r.get("hostname", str, SmtpConfig.hostname),
        upstream=upstream,
        level=r.level("level", None),
        allowed_networks=networks,
        tls=tls,
        auth=auth,
        max_message_bytes=r.number("max_message_bytes", SmtpConfig.max_message_bytes, 1024),
        max_recipients=r.number("max_recipients", SmtpConfig.max_recipients, 1),
        max_sessions=r.number("max_sessions", SmtpConfig.max_sessions, 1),
        command_timeout=r.seconds("command_timeout", SmtpConfig.command_timeout),
        data_timeout=r.seconds("data_timeout", SmtpConfig.data_timeout),
        headers=r.strings("headers", SmtpConfig.headers),
        attachments=r.choice("attachments", ("pass", "strip", "reject"), "pass"),
        on_unscrubbable=r.choice("on_unscrubbable", ("reject", "quarantine"), "reject"),
        quarantine_dir=r.get("quarantine_dir", str, None),
        mailbox_dir=r.get("mailbox_dir", str, None),
        scrub_processes=r.number("scrub_processes", SmtpConfig.scrub_processes, 0, 64),
        time_budget_ms=r.get("time_budget_ms", int, None),
        allow_open_relay=r.get("allow_open_relay", bool, False),
    )
    r.done()
    wide = open_networks(networks)
    if wide and not auth.required and not cfg.allow_open_relay:
        raise ConfigError(
            f"smtp.allowed_networks: {', '.join(wide)} lets anyone on the internet send mail through "
            "this relay without AUTH (an open relay): list your own networks, or require AUTH "
            "(smtp.auth.required), or set smtp.allow_open_relay: true if that is really meant"
        )
    if cfg.on_unscrubbable == "quarantine" and not cfg.quarantine_dir:
        raise ConfigError("smtp.on_unscrubbable: quarantine needs smtp.quarantine_dir")
    if cfg.time_budget_ms is not None and cfg.time_budget_ms < 1:
        raise ConfigError(f"smtp.time_budget_ms: must be >= 1, got {cfg.time_budget_ms}")
    from scrubber.formats.mime import STRUCTURED_HEADERS

    structured = [h for h in cfg.headers if h.lower() in STRUCTURED_HEADERS]
    if structured:
        raise ConfigError(f"smtp.headers: {structured[0]} is not a free-text header and cannot be scrubbed")
    return cfg


def parse(data: Any) -> Settings:
    """Validate a parsed YAML document into Settings."""
    r = _Reader(data, "")
    policy = _policy(r)
    ad = _Reader(r.get("admin", Mapping, {}), "admin")
    admin = AdminConfig(
        listen=_listen(ad, "listen", AdminConfig.listen), playground=ad.get("playground", bool, False)
    )
    ad.done()
    lg = _Reader(r.get("logging", Mapping, {}), "logging")
    logging_cfg = LoggingConfig(
        format=lg.choice("format", LOG_FORMATS, "auto"),
        level=lg.choice("level", LOG_LEVELS, "info"),
    )
    lg.done()
    lm = _Reader(r.get("limits", Mapping, {}), "limits")
    limits = LimitsConfig(
        max_message_bytes=lm.number("max_message_bytes", LimitsConfig.max_message_bytes, 1),
        regex_timeout_ms=lm.number("regex_timeout_ms", LimitsConfig.regex_timeout_ms, 1),
        time_budget_ms=lm.number("time_budget_ms", LimitsConfig.time_budget_ms, 1),
    )
    lm.done()
    kafka = _kafka(r.data["kafka"]) if r.data.get("kafka") is not None else None
    smtp = _smtp(r.data["smtp"]) if r.data.get("smtp") is not None else None
    r.used |= {"kafka", "smtp"}
    workers = r.number("workers", 1, 1, 64)
    event_loop = r.choice("event_loop", ("auto", "uvloop", "asyncio"), "auto")
    if event_loop == "uvloop" and importlib.util.find_spec("uvloop") is None:
        raise ConfigError("event_loop: uvloop is not installed (pip install uvloop), or use auto/asyncio")
    r.done()
    # Resolve the key now so a missing variable fails at start, not on the first message.
    policy.policy()
    return Settings(
        policy=policy,
        admin=admin,
        logging=logging_cfg,
        limits=limits,
        kafka=kafka,
        smtp=smtp,
        workers=workers,
        event_loop=event_loop,
    )


def apply_env(data: Any, environ: Mapping[str, str]) -> Any:
    """Overlay SCRUBBER_* variables onto the parsed file (see the module docstring)."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError("config: expected a mapping at the top level")
    for name, raw in sorted(environ.items()):
        if not name.startswith(ENV_PREFIX) or name in _NOT_CONFIG_ENV:
            continue
        path = [p.lower() for p in name[len(ENV_PREFIX) :].split("__")]
        try:
            value = yaml.safe_load(raw) if raw != "" else None
        except yaml.YAMLError:
            value = raw
        node: Any = data
        for i, part in enumerate(path[:-1]):
            key: Any = int(part) if isinstance(node, list) and part.isdigit() else part
            if isinstance(node, list):
                if not 0 <= key < len(node):
                    raise ConfigError(f"{name}: no list item {key} at {'.'.join(path[: i + 1])}")
                node = node[key]
                continue
            if node.get(key) is None:
                node[key] = {}
            node = node[key]
            if not isinstance(node, dict | list):
                raise ConfigError(f"{name}: {'.'.join(path[: i + 1])} is not a section")
        last = path[-1]
        if isinstance(node, list):
            if not last.isdigit() or not 0 <= int(last) < len(node):
                raise ConfigError(f"{name}: no list item {last}")
            node[int(last)] = value
        else:
            node[last] = value
    return data


# Variables with the prefix that are not configuration keys (keys, passwords, switches).
_NOT_CONFIG_ENV = frozenset({"SCRUBBER_HMAC_KEY", "SCRUBBER_CONFIG"})


def load(path: str | os.PathLike[str] | None, environ: Mapping[str, str] | None = None) -> Settings:
    """Read, overlay environment overrides, validate."""
    data: Any = {}
    if path is not None:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"{path}: cannot read: {exc.strerror}") from exc
        try:
            data = yaml.safe_load(text) or {}
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f"{path}:{mark.line + 1}" if mark else str(path)
            raise ConfigError(f"{where}: invalid YAML: {getattr(exc, 'problem', exc)}") from exc
    environ = os.environ if environ is None else environ
    data = apply_env(data, environ)
    try:
        return parse(data)
    except ConfigError as exc:
        raise _blame_environment(exc, environ) from None


def _env_key(name: str) -> str:
    """The key path a SCRUBBER_* variable sets, written as errors write it: ``kafka.routes[0].level``."""
    key = ""
    for part in name[len(ENV_PREFIX) :].lower().split("__"):
        key += f"[{part}]" if part.isdigit() else f".{part}" if key else part
    return key


def _blame_environment(exc: ConfigError, environ: Mapping[str, str]) -> ConfigError:
    """``exc`` naming the environment variable that set the key it is about, if one did."""
    where = str(exc).split(": ", 1)[0]
    for name in sorted(environ):
        if not name.startswith(ENV_PREFIX) or name in _NOT_CONFIG_ENV:
            continue
        key = _env_key(name)
        inside = where.startswith((f"{key}.", f"{key}[")) or key.startswith((f"{where}.", f"{where}["))
        if where != key and not inside:
            continue
        hint = ""
        if isinstance(exc, UnknownKeyError) and exc.suggestion and where == key:
            hint = f" Use {name.rsplit('__', 1)[0] if '__' in name else ENV_PREFIX[:-1]}"
            hint = f"{hint}{'__' if '__' in name else '_'}{exc.suggestion.upper()}."
        return ConfigError(f"environment variable {name}: {exc}{hint}")
    return exc


_SECRET_KEYS = ("password", "sasl_plain_password", "ssl_password", "secret", "token")


def _redact(value: Any, key: str = "") -> Any:
    if isinstance(value, Mapping):
        return {k: _redact(v, str(k)) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_redact(v, key) for v in value]
    if (
        value is not None
        and any(s in key.lower() for s in _SECRET_KEYS)
        and not key.endswith(("_env", "_file"))
    ):
        return "<redacted>"
    return value


def document(settings: Settings) -> dict[str, Any]:
    """``settings`` as a config file writes them (policy keys at the top, ``operator``, routes'
    ``in``/``out``), every key spelled out, so that :func:`parse` reads it back to equal settings."""
    doc: dict[str, Any] = _plain(settings)
    policy = doc.pop("policy")
    policy = {"level": policy.pop("level"), "operator": policy.pop("default_operator"), **policy}
    for section in ("kafka", "smtp"):
        if doc[section] is None:
            del doc[section]
    if "kafka" in doc:
        doc["kafka"]["routes"] = [
            {"in": r.pop("input"), "out": r.pop("output"), **r} for r in doc["kafka"]["routes"]
        ]
    return {**policy, **doc}


def _plain(value: Any) -> Any:
    """Dataclasses, mappings and tuples as the dicts and lists YAML writes."""
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def dump(settings: Settings) -> str:
    """The effective configuration as a loadable config file, secrets redacted (the names of the
    variables and files that hold them are kept)."""
    return yaml.safe_dump(_redact(document(settings)), sort_keys=False, default_flow_style=False)


def load_policy(path: str | None, *, level: int | None = None) -> Policy:
    """The policy of a config file (or the defaults), at ``level`` if given."""
    settings = load(path)
    return settings.policy.policy(level)
