"""setuptools' build backend, plus what a compiled release build needs (pyproject.toml names it).

``SCRUBBER_MYPYC=1 pip wheel . --no-deps -w dist`` builds a wheel whose hot detector modules are
compiled by mypyc (setup.py lists them). Only that build needs mypy, and mypy needs the type
information of what those modules import (numpy's own, PyYAML's stubs), so they are asked for
here, for that build alone: a plain ``pip wheel .`` needs setuptools only and no C compiler.
An editable install always stays pure Python, whatever the variable says: a compiled module
would shadow the source file being edited.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from setuptools import build_meta
from setuptools.build_meta import *  # noqa: F403  (the rest of the backend is setuptools' own)

VARIABLE = "SCRUBBER_MYPYC"
# The mypy that compiles the release build: pinned, as the CI check builds with it
# (tests/integration/firstrun/test_compiled_wheel.py); a new mypy may compile differently.
COMPILE_REQUIRES = ["mypy==2.4.1", "numpy>=1.24", "types-PyYAML>=6.0"]

ConfigSettings = dict[str, "str | list[str] | None"] | None


def compiling() -> bool:
    """Whether the builder asked for mypyc: ``1`` yes; unset, empty or ``0`` no."""
    value = os.environ.get(VARIABLE, "")
    if value not in ("", "0", "1"):
        raise SystemExit(f"{VARIABLE}={value!r}: use 1 for a compiled build, 0 or unset for pure Python")
    return value == "1"


@contextmanager
def _pure() -> Iterator[None]:
    """setup.py without the variable: it then lists no compiled modules and needs no mypy."""
    value = os.environ.pop(VARIABLE, None)
    try:
        yield
    finally:
        if value is not None:
            os.environ[VARIABLE] = value


def get_requires_for_build_wheel(config_settings: ConfigSettings = None) -> list[str]:
    compile_ = compiling()
    # setuptools runs setup.py to find its requirements, before mypy is installed.
    with _pure():
        base: list[str] = build_meta.get_requires_for_build_wheel(config_settings)
    return base + COMPILE_REQUIRES if compile_ else base


def prepare_metadata_for_build_wheel(metadata_directory: str, config_settings: ConfigSettings = None) -> str:
    # The metadata is the same either way; without the variable, mypyc does not run twice.
    with _pure():
        name: str = build_meta.prepare_metadata_for_build_wheel(metadata_directory, config_settings)
    return name


def get_requires_for_build_editable(config_settings: ConfigSettings = None) -> list[str]:
    with _pure():
        base: list[str] = build_meta.get_requires_for_build_editable(config_settings)
    return base


def prepare_metadata_for_build_editable(
    metadata_directory: str, config_settings: ConfigSettings = None
) -> str:
    with _pure():
        name: str = build_meta.prepare_metadata_for_build_editable(metadata_directory, config_settings)
    return name


def build_editable(
    wheel_directory: str, config_settings: ConfigSettings = None, metadata_directory: str | None = None
) -> str:
    with _pure():
        name: str = build_meta.build_editable(wheel_directory, config_settings, metadata_directory)
    return name
