"""load.proctree charges a process with its descendants' CPU, running or already reaped.

No wall-clock time is asserted: a grandchild burns a known amount of CPU time (measured by
itself with ``time.process_time``) and the tree's figure must include it, within a wide bound.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import pytest

from load.proctree import descendants, tree_cpu_seconds

BURN = 0.3  # CPU seconds each of the middle process and the grandchild spends
# The middle process burns BURN seconds of CPU, then starts a grandchild that burns as much and
# says so. With "wait" the middle process then reaps it (its time moves to the middle's
# cutime), otherwise the grandchild stays alive, asleep. Either way the middle process then
# reports and blocks.
MIDDLE = f"""
import subprocess, sys, time
while time.process_time() < {BURN}: pass
burn = (
    "import sys, time\\n"
    "while time.process_time() < {BURN}: pass\\n"
    "print('burnt', flush=True)\\n"
    "sys.stdin.read()\\n"
)
child = subprocess.Popen([sys.executable, "-c", burn], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
assert child.stdout.readline() == b"burnt\\n"
if sys.argv[1] == "wait":
    child.stdin.close()
    child.wait()
print(child.pid, flush=True)
sys.stdin.read()
"""


def _middle(mode: str) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    proc = subprocess.Popen(
        [sys.executable, "-c", MIDDLE, mode], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    try:
        assert proc.stdout is not None
        grandchild = int(proc.stdout.readline())
        yield proc, grandchild
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(30)


@pytest.fixture
def live() -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    yield from _middle("live")


@pytest.fixture
def reaped() -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    yield from _middle("wait")


def test_a_running_grandchild_is_found_and_its_cpu_counted(live: tuple[subprocess.Popen[bytes], int]) -> None:
    proc, grandchild = live
    assert descendants(proc.pid)[:2] == [proc.pid, grandchild]
    # Both burns, and not many times over.
    assert 2 * BURN * 0.9 <= tree_cpu_seconds(proc.pid) < 2 * BURN + 5


def test_a_reaped_grandchild_still_counts_through_its_parent(
    reaped: tuple[subprocess.Popen[bytes], int],
) -> None:
    proc, grandchild = reaped
    assert grandchild not in descendants(proc.pid)
    assert 2 * BURN * 0.9 <= tree_cpu_seconds(proc.pid) < 2 * BURN + 5


def test_processes_outside_the_tree_do_not_count(live: tuple[subprocess.Popen[bytes], int]) -> None:
    proc, grandchild = live
    # The grandchild's subtree is only itself: its parent's burn stays out.
    assert descendants(grandchild) == [grandchild]
    assert BURN * 0.9 <= tree_cpu_seconds(grandchild) < 1.5 * BURN
    assert os.getpid() not in descendants(proc.pid)


def test_a_process_that_is_gone_counts_nothing(reaped: tuple[subprocess.Popen[bytes], int]) -> None:
    _proc, grandchild = reaped
    assert tree_cpu_seconds(grandchild) == 0.0
