"""SMTP AUTH users: a file of names and scrypt password hashes.

One user per line, ``#`` starts a comment::

    alice:scrypt$16384$8$1$<salt, base64>$<hash, base64>

Create a line with ``scrubber smtp-passwd alice >> users`` (the password is read from the
terminal, or from the first line of standard input). The file is read again when it changes.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

N, R, P = 2**14, 8, 1  # ~16 MiB and a few tens of milliseconds per check
HASH_BYTES = 32


class UsersFileError(ValueError):
    """A users file that cannot be read; the message names the line, never a hash."""


def hash_password(password: str) -> str:
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode("utf-8"), salt=salt, n=N, r=R, p=P, dklen=HASH_BYTES)
    return f"scrypt${N}${R}${P}${_b64(salt)}${_b64(digest)}"


def entry(name: str, password: str) -> str:
    """One line of the users file."""
    if not name or ":" in name or any(c.isspace() for c in name):
        raise ValueError("a user name must be non-empty, without ':' or white space")
    if not password:
        raise ValueError("the password must not be empty")
    return f"{name}:{hash_password(password)}"


def verify(stored: str, password: bytes) -> bool:
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        want = base64.b64decode(digest)
        got = hashlib.scrypt(
            password, salt=base64.b64decode(salt), n=int(n), r=int(r), p=int(p), dklen=len(want)
        )
    except ValueError:
        return False
    return hmac.compare_digest(got, want)


@dataclass
class UsersFile:
    path: Path
    _users: dict[str, str]
    _stamp: tuple[int, int]

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> UsersFile:
        p = Path(path)
        users, stamp = _read(p)
        return cls(p, users, stamp)

    def check(self, name: bytes, password: bytes) -> bool:
        """Whether ``name`` may log in with ``password``; an unknown name costs as much time."""
        self._reload()
        stored = self._users.get(name.decode("utf-8", "replace"))
        ok = verify(stored or _DUMMY, password)
        return ok and stored is not None

    def _reload(self) -> None:
        try:
            st = self.path.stat()
        except OSError:
            return  # keep the users we have; a missing file is reported at start, not per login
        if (st.st_mtime_ns, st.st_size) != self._stamp:
            try:
                self._users, self._stamp = _read(self.path)
            except UsersFileError:
                return


def _read(path: Path) -> tuple[dict[str, str], tuple[int, int]]:
    try:
        st = path.stat()
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsersFileError(f"{path}: cannot read the users file ({type(exc).__name__})") from None
    users: dict[str, str] = {}
    for n, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, sep, stored = line.partition(":")
        if not sep or not name or not stored.startswith("scrypt$") or stored.count("$") != 5:
            raise UsersFileError(f"{path}:{n}: expected NAME:scrypt$N$r$p$SALT$HASH")
        users[name] = stored
    return users, (st.st_mtime_ns, st.st_size)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


# Checked against when the name is unknown, so that a wrong name takes as long as a wrong password.
_DUMMY = f"scrypt${N}${R}${P}${_b64(bytes(16))}${_b64(bytes(HASH_BYTES))}"
