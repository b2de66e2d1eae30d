"""What the fuzz targets share: a short derandomized pass by default, a long random one on demand.

By default (CI) every target runs a few dozen fixed examples, in seconds. For a long run::

    FUZZ_SECONDS=3600 .venv/bin/python -m pytest tests/fuzz/test_mime_fuzz.py -q -s

Each test then repeats fresh random passes (a few hundred inputs each, so that the time is
checked often) until the time is up, and prints how many inputs it tried; a failure stops it
and prints the smallest input hypothesis found, and the count so far.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable

from hypothesis import HealthCheck, settings

SECONDS = float(os.environ.get("FUZZ_SECONDS", "0"))
LONG = SECONDS > 0


def checks(short: int = 60, long: int = 300) -> settings:
    """Hypothesis settings: ``short`` fixed examples in CI, ``long`` random ones per pass."""
    return settings(
        max_examples=long if LONG else short,
        deadline=None,
        derandomize=not LONG,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    )


class Counter:
    """Counts the inputs a target was given (hypothesis calls the test body once per input)."""

    def __init__(self) -> None:
        self.runs = 0

    def __call__(self) -> None:
        self.runs += 1


def repeat(test: Callable[[], None], counter: Counter, name: str) -> None:
    """Run a hypothesis test once, or again and again until FUZZ_SECONDS are over."""
    start = time.monotonic()
    deadline = start + SECONDS
    outcome = "failed"
    try:
        while True:
            test()
            if time.monotonic() >= deadline:
                break
        outcome = "passed"
    finally:
        # Said on a failure too: the count of a long run that found something is part of its result.
        if LONG:
            took = time.monotonic() - start
            sys.stderr.write(f"fuzz {name}: {counter.runs} inputs in {took:.0f} s, {outcome}\n")
