"""What the families of validators share: the contract of a validator, its memo, and digits."""

from __future__ import annotations

from collections.abc import Callable


class Memo(dict[tuple[str, str | None], bool]):
    """What validators worked out about the values of one message; it goes with the message.

    A phone number is judged by two pattern rules and a grammar shape, and libphonenumber's
    verdict costs tens of microseconds: ``phone`` keeps it per (value, region). A dict of its
    own kind, not a dataclass around one: one is made per message, and this costs least.
    """

    __slots__ = ()


# A validator takes the matched value (and the memo of its message) and returns how many of
# its leading characters form a valid value: ``len(value)`` when all of it is valid, 0 when it
# is not a finding, something in between when only a prefix validates (an IBAN followed by an
# unrelated group of digits).
Validator = Callable[[str, Memo], int]


def digits_of(value: str) -> str:
    """The digits of ``value``, without what separates them."""
    return "".join(ch for ch in value if ch.isdigit())
