"""Scrubber.warm_up: what detectors load on first use is loaded before the first message."""

from __future__ import annotations

import subprocess
import sys

# In a fresh process: this one may have loaded the parser already.
CHILD = """
import scrubber.detectors.grammar.parse as grammar
from scrubber.dial import Policy
from scrubber.engine import Scrubber

engine = Scrubber(Policy(level=7), time_budget=1e-6)
print(grammar._NLP is not None)
engine.warm_up()
print(grammar._NLP is not None, engine.time_budget)
"""


def test_warm_up_loads_the_parser_outside_the_time_budget() -> None:
    out = subprocess.run(
        [sys.executable, "-c", CHILD], capture_output=True, text=True, check=True, timeout=300
    ).stdout.split()
    assert out == ["False", "True", "1e-06"]
