"""Fixtures for the Kafka proxy tests (helpers are in kafka_helpers.py)."""

from __future__ import annotations

import pytest


@pytest.fixture
def bootstrap(kafka_bootstrap: str) -> str:
    """The session's Tansu broker; every test uses its own topics and group."""
    return kafka_bootstrap
