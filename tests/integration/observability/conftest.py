"""Fixtures for the observability tests (helpers are in obs_helpers.py)."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest
import structlog
from obs_helpers import LogLines

from scrubber import logs


@pytest.fixture
def log_lines() -> Iterator[LogLines]:
    """Configure the real log pipeline into a buffer; give back its JSON lines; restore after."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    buf = io.StringIO()
    logs.configure("json", "info", buf)
    yield lambda: [json.loads(line) for line in buf.getvalue().splitlines()]
    logging.captureWarnings(False)
    structlog.reset_defaults()
    for h in list(root.handlers):
        root.removeHandler(h)
    for h in handlers:
        root.addHandler(h)
    root.setLevel(level)
