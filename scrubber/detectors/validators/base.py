"""What the families of validators share: the contract of a validator, and digits of a value."""

from __future__ import annotations

from collections.abc import Callable

# A validator takes the matched value and returns how many of its leading characters form a
# valid value: ``len(value)`` when all of it is valid, 0 when it is not a finding, something in
# between when only a prefix validates (an IBAN followed by an unrelated group of digits).
Validator = Callable[[str], int]


def digits_of(value: str) -> str:
    """The digits of ``value``, without what separates them."""
    return "".join(ch for ch in value if ch.isdigit())
