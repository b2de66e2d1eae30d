"""What the families of validators share: the contract of a validator, its memo, digits, and
whether groups of digits read as a date."""

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


def spaced_date(groups: list[str]) -> bool:
    """Whether three groups read as a date written with blanks ("1979 06 12", "12 06 1979")."""
    if len(groups) != 3:
        return False
    a, b, c = groups
    if len(a) == 4 and len(b) <= 2 and len(c) <= 2:
        year, mid, last = a, b, c
    elif len(c) == 4 and len(a) <= 2 and len(b) <= 2:
        year, mid, last = c, a, b
    else:
        return False
    if not (year + mid + last).isdigit():
        return False
    small = sorted((int(mid), int(last)))
    return year[:2] in ("19", "20") and 1 <= small[0] <= 12 and 1 <= small[1] <= 31
