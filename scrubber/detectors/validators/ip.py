"""IP addresses: every address ``ipaddress`` reads, but those that name no one (loopback,
unspecified), and the ranges a policy spares. Whether an address is a server's or a version
string is the context's (grammar/patterns.yaml)."""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

from scrubber.detectors.validators.base import Memo

# A dotted quad as ipaddress accepts it: ASCII, four numbers 0-255 without leading zeros.
# Bounded alternations only: linear on the standard library's engine.
_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
DOTTED_QUAD = re.compile(rf"{_OCTET}\.{_OCTET}\.{_OCTET}\.{_OCTET}")


def ipv4(value: str, memo: Memo) -> int:
    """Any IPv4 address but loopback (127/8) and unspecified (0.0.0.0): private, link-local,
    documentation and reserved ranges, small octets ("5.6.7.8") too."""
    if DOTTED_QUAD.fullmatch(value) is not None:
        if value.startswith("127.") or value == "0.0.0.0":
            return 0
        return len(value)
    try:
        addr = ipaddress.IPv4Address(value)
    except ValueError:
        return 0
    return 0 if addr.is_loopback or addr.is_unspecified else len(value)


def ipv6(value: str, memo: Memo) -> int:
    """Any IPv6 address but loopback (::1) and unspecified (::), as ``ipv4``, and none of ::/96.

    With two colons only ("fe80::1"), the first group must be four hex digits, one a digit:
    "a::b" and "dead::beef" are more often code than an address."""
    colons = value.count(":")
    if colons < 2:
        return 0
    if colons == 2:
        head = value[: value.index(":")]
        if len(head) != 4 or not any(c.isdigit() for c in head):
            return 0
    try:
        addr = ipaddress.IPv6Address(value)
    except ValueError:
        return 0
    # ::/96, the old IPv4-compatible form, holds loopback and unspecified; in a log, "::1:8080"
    # is loopback and a port.
    if int(addr) >> 32 == 0:
        return 0
    # "::ffff:127.0.0.1" is loopback written as IPv6.
    mapped = addr.ipv4_mapped
    if mapped is not None and (mapped.is_loopback or mapped.is_unspecified):
        return 0
    return len(value)


@dataclass(frozen=True, slots=True)
class IpPolicy:
    """The ranges whose addresses a policy leaves unmasked (``spare_ips``; by default none)."""

    spare: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = ()

    def masks(self, value: str) -> bool:
        """Whether an address found in a message is masked."""
        if not self.spare:
            return True
        try:
            addr = ipaddress.ip_address(value)
        except ValueError:
            return True  # not an address as ipaddress writes it: masked, to be safe
        # An IPv4 address written as IPv6 ("::ffff:10.1.2.3") is spared by its IPv4 range.
        if addr.version == 6 and addr.ipv4_mapped is not None:
            addr = addr.ipv4_mapped
        return not any(addr.version == n.version and addr in n for n in self.spare)
