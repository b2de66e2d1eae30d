"""CPU time of a process and all its descendants, read from /proc (Linux only).

The benchmarks use it to charge a proxy or relay with its own CPU: the ``scrubber`` process and
the scrub worker processes it starts, but not the broker, the mail sink or the load driver
that share the machine with it.

Why the live tree plus ``cutime``/``cstime``: the scrub workers are long-lived children that
are still running when a measurement ends, and the kernel adds a child's time to its parent's
``cutime``/``cstime`` only once the parent has reaped it. Reading ``cutime`` of the root alone
would therefore miss every running worker; reading only the live processes' own ``utime`` and
``stime`` would lose a worker that was replaced (killed and reaped) during the measurement. The
sum over every live process of the tree of its own and its reaped children's time counts each
CPU second exactly once: a process's time moves from its own entry to its parent's ``cutime``
at the moment it leaves the tree. Take two readings and subtract them to get the cost of what
happened in between (start-up, such as loading the spaCy model, then does not count).
"""

from __future__ import annotations

import os
from pathlib import Path

PROC = Path("/proc")
_TICK = os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> tuple[int, float] | None:
    """(parent pid, own + reaped children's CPU seconds) of ``pid``; None if it is gone."""
    try:
        raw = (PROC / str(pid) / "stat").read_text(encoding="ascii", errors="replace")
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    # The command name is in parentheses and may itself hold spaces or ')': split after the last.
    fields = raw.rpartition(")")[2].split()
    # fields[0] is the state (field 3 of proc(5)); utime, stime, cutime, cstime are fields 14-17.
    utime, stime, cutime, cstime = (int(x) for x in fields[11:15])
    return int(fields[1]), (utime + stime + cutime + cstime) / _TICK


def descendants(root: int) -> list[int]:
    """``root`` and every live process below it, parents before their children."""
    children: dict[int, list[int]] = {}
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        got = _stat(int(entry.name))
        if got is not None:
            children.setdefault(got[0], []).append(int(entry.name))
    out = [root]
    for pid in out:  # grows as it is walked: breadth first
        out.extend(children.get(pid, ()))
    return out


def tree_cpu_seconds(root: int) -> float:
    """CPU seconds (user + system) that ``root`` and all its descendants have used so far,
    those already exited and reaped included; 0.0 if ``root`` is gone."""
    total = 0.0
    for pid in descendants(root):
        got = _stat(pid)
        if got is not None:
            total += got[1]
    return total
