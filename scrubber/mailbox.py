"""A directory of ``.eml`` files: where the relay delivers without an upstream, and its quarantine.

Each message is one file, written whole or not at all (a hidden temporary file, flushed to disk,
then renamed), so a reader never sees half a message and a 250 is only given for a message that
is on disk. File names sort by arrival: ``<nanoseconds>.<pid>.<n>.eml``. Files are readable by
the owner only: a quarantine holds messages that could not be scrubbed.
"""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Sequence
from pathlib import Path

_COUNTER = itertools.count()


class Mailbox:
    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def create(self) -> None:
        """Make the directory (owner-only if it is new); raises OSError if that is not possible."""
        self.path.mkdir(mode=0o700, parents=True, exist_ok=True)

    def deliver(self, data: bytes, headers: Sequence[tuple[str, str]] = ()) -> Path:
        """Write one message, with ``headers`` put in front of its own; returns the file's path."""
        name = f"{time.time_ns():020d}.{os.getpid()}.{next(_COUNTER)}.eml"
        final = self.path / name
        tmp = self.path / f".{name}.tmp"
        head = "".join(f"{k}: {_one_line(v)}\r\n" for k, v in headers).encode("utf-8", "surrogateescape")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(head)
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, final)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        return final


def _one_line(value: str) -> str:
    return value.replace("\r", " ").replace("\n", " ")
