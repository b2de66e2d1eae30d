"""IP addresses: what ``ipaddress`` calls a public host, and the ranges a policy may spare."""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

from scrubber.detectors.validators.base import Memo


def _public_ip(addr: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    return not (addr.is_loopback or addr.is_unspecified or addr.is_multicast or addr.is_reserved)


_DOC_V4 = tuple(ipaddress.ip_network(n) for n in ("192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24"))
_DOC_V6 = ipaddress.ip_network("2001:db8::/32")


# A dotted quad as ipaddress accepts it: ASCII, four numbers 0-255 without leading zeros.
# Bounded alternations only: linear on the standard library's engine.
_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
_DOTTED_QUAD = re.compile(rf"{_OCTET}\.{_OCTET}\.{_OCTET}\.{_OCTET}")


def ipv4(value: str, memo: Memo) -> int:
    if _DOTTED_QUAD.fullmatch(value) is not None:
        # What ipaddress would say, read off the octets: loopback 127/8, multicast 224/4 and
        # reserved 240/4, link-local 169.254/16 (0.0.0.0 falls to the small-octets test).
        octets = tuple(map(int, value.split(".")))
        if octets[0] == 127 or octets[0] >= 224 or octets[:2] == (169, 254):
            return 0
    else:
        try:
            addr = ipaddress.IPv4Address(value)
        except ValueError:
            return 0
        if not _public_ip(addr) or addr.is_link_local:
            return 0
        octets = tuple(addr.packed)
    # "2.4.1.0" is a version far more often than a host; x.x.x.0 and .255 are rarely a client.
    if max(octets) < 10 or octets[3] in (0, 255):
        return 0
    return len(value)


def ipv6(value: str, memo: Memo) -> int:
    if value.count(":") < 3:
        return 0
    try:
        addr = ipaddress.IPv6Address(value)
    except ValueError:
        return 0
    if not _public_ip(addr) or addr.is_link_local:
        return 0
    return len(value)


# Private networks: RFC 1918, IPv4 link-local, IPv6 unique-local and link-local.
_PRIVATE = tuple(
    ipaddress.ip_network(n)
    for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16", "fc00::/7", "fe80::/10")
)


def ip_range(value: str) -> str | None:
    """Which range an address of a finding lies in, for the policy to decide on, parsed once:
    "documentation" (RFC 5737, RFC 3849: examples, not anyone's), "private" (10/8, 172.16/12,
    192.168/16, link-local, IPv6 unique-local: a company's own hosts, routers and containers,
    which reach no log from the internet as a client's address), or None.
    """
    try:
        addr = ipaddress.ip_address(value)
    except ValueError:
        return None
    if addr in _DOC_V6 if addr.version == 6 else any(addr in n for n in _DOC_V4):
        return "documentation"
    if any(addr.version == n.version and addr in n for n in _PRIVATE):
        return "private"
    return None


@dataclass(frozen=True, slots=True)
class IpPolicy:
    """Which of the ranges ``ip_range`` names a policy masks too (by default neither)."""

    documentation: bool = False
    private: bool = False

    def masks(self, value: str) -> bool:
        """Whether an address found in a message is masked."""
        kind = ip_range(value)
        if kind is None:
            return True
        return self.documentation if kind == "documentation" else self.private
