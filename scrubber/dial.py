"""Entity taxonomy, the privacy dial, and the policy a route scrubs with."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import regex

# The dial: level N masks every entity whose level is <= N; level 0 only observes.
ENTITY_LEVELS: Mapping[str, int] = MappingProxyType(
    {
        "CREDIT_CARD": 1,
        "BANK_ACCOUNT": 1,
        "IBAN": 1,
        "SECRET": 1,
        "US_SSN": 2,
        "PASSPORT": 2,
        "DRIVER_LICENSE": 2,
        "EMAIL_ADDRESS": 3,
        "PHONE_NUMBER": 4,
        "PERSON": 5,
        "STREET_ADDRESS": 5,
        "ZIP_CODE": 6,
        "DATE_OF_BIRTH": 7,
        "IP_ADDRESS": 7,
    }
)
ENTITIES: tuple[str, ...] = tuple(ENTITY_LEVELS)
MAX_LEVEL = 7
# The level everything starts at unless told otherwise (config, embedded run, demo, playground,
# Helm chart): all of it. A leak costs more than an extra mask, so lowering the dial is the
# operator's explicit choice, never a default.
DEFAULT_LEVEL = MAX_LEVEL

OPERATORS = ("label", "mask", "hash", "remove")

# Names a policy's ``spare_ips`` may use for well-known ranges, besides CIDR blocks.
IP_RANGES: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        # RFC 5737, RFC 3849: examples in manuals and tests.
        "documentation": ("192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24", "2001:db8::/32"),
        # RFC 1918 and IPv6 unique-local: a network's own hosts, routers and containers.
        "private": ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"),
        "link-local": ("169.254.0.0/16", "fe80::/10"),
        # RFC 6598: carrier-grade NAT.
        "shared": ("100.64.0.0/10",),
        "multicast": ("224.0.0.0/4", "ff00::/8"),
    }
)


class PolicyError(ValueError):
    """A policy that cannot be built: unknown entity, bad level, missing key."""


IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


def ip_networks(entries: Iterable[str]) -> tuple[IPNetwork, ...]:
    """The networks of ``spare_ips`` entries: names of IP_RANGES or CIDR blocks ("10.20.0.0/16",
    "2001:db8:5::/48"; a single address is a /32 or /128). PolicyError names a bad entry."""
    out: list[IPNetwork] = []
    for entry in entries:
        blocks = IP_RANGES.get(entry, (entry,))
        for block in blocks:
            try:
                out.append(ipaddress.ip_network(block))
            except ValueError:
                names = ", ".join(IP_RANGES)
                raise PolicyError(
                    f"spare_ips: {entry!r} is neither a CIDR block with its host bits zero "
                    f"(10.20.0.0/16) nor one of {names}"
                ) from None
    return tuple(out)


# An allow-list entry with this prefix is a pattern (``regex`` syntax, whole value, any case).
ALLOW_PATTERN = "re:"


@dataclass(frozen=True, slots=True)
class OperatorSpec:
    """How one entity is replaced: ``label``, ``mask`` (keep the last N), ``hash`` or ``remove``."""

    name: str = "label"
    keep_last: int = 4
    mask_char: str = "*"

    def __post_init__(self) -> None:
        if self.name not in OPERATORS:
            raise PolicyError(f"unknown operator {self.name!r} (expected one of {', '.join(OPERATORS)})")
        if self.keep_last < 0:
            raise PolicyError("operator keep_last must be >= 0")
        if len(self.mask_char) != 1:
            raise PolicyError("operator mask_char must be one character")


@dataclass(frozen=True)
class Policy:
    """What a route masks and how.

    ``level`` is the dial; ``always``/``never`` override it per entity; ``allow`` lists values
    that are never masked, compared without regard to case (the company's own support address,
    say), or, prefixed with ``re:``, patterns a whole value must match; ``operators`` picks
    the replacement per entity, ``default_operator`` for the rest. ``hmac_key`` is required by the
    ``hash`` operator and never leaves the process. ``spare_ips`` lists IP ranges whose
    addresses are not masked (CIDR blocks or names of IP_RANGES: "private", "documentation",
    ...); every other address is, but loopback and unspecified, which name no one.
    """

    level: int = MAX_LEVEL
    always: frozenset[str] = frozenset()
    never: frozenset[str] = frozenset()
    allow: frozenset[str] = frozenset()
    operators: Mapping[str, OperatorSpec] = field(default_factory=dict)
    default_operator: OperatorSpec = OperatorSpec()
    hmac_key: bytes | None = field(default=None, repr=False)
    min_score: float = 0.5
    spare_ips: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        ip_networks(self.spare_ips)
        if not 0 <= self.level <= MAX_LEVEL:
            raise PolicyError(f"level must be between 0 and {MAX_LEVEL}, got {self.level}")
        for name, group in (("always", self.always), ("never", self.never), ("operators", self.operators)):
            unknown = sorted(set(group) - set(ENTITIES))
            if unknown:
                raise PolicyError(f"{name}: unknown entity {', '.join(unknown)}")
        both = self.always & self.never
        if both:
            raise PolicyError(f"entity both in always and never: {', '.join(sorted(both))}")
        uses_hash = self.default_operator.name == "hash" or any(
            op.name == "hash" for op in self.operators.values()
        )
        if uses_hash and not self.hmac_key:
            raise PolicyError("the hash operator needs an HMAC key (hmac_key_env or hmac_key_file)")
        for entry in self.allow:
            if entry.startswith(ALLOW_PATTERN):
                try:
                    regex.compile(entry[len(ALLOW_PATTERN) :])
                except regex.error as exc:
                    raise PolicyError(f"allow: invalid pattern {entry!r}: {exc}") from None

    def masks(self, entity: str) -> bool:
        """Whether this policy masks ``entity`` (as opposed to only counting it)."""
        if entity in self.never:
            return False
        if entity in self.always:
            return True
        return ENTITY_LEVELS.get(entity, MAX_LEVEL + 1) <= self.level

    @property
    def masked_entities(self) -> frozenset[str]:
        return frozenset(e for e in ENTITIES if self.masks(e))

    def operator(self, entity: str) -> OperatorSpec:
        return self.operators.get(entity, self.default_operator)

    def with_level(self, level: int) -> Policy:
        """The same policy at another dial level."""
        return Policy(
            level=level,
            always=self.always,
            never=self.never,
            allow=self.allow,
            operators=self.operators,
            default_operator=self.default_operator,
            hmac_key=self.hmac_key,
            min_score=self.min_score,
            spare_ips=self.spare_ips,
        )
