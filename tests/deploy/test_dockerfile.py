"""deploy/Dockerfile without a container engine: hadolint's checks, and the same sources as the wheel.

No image is built here (no daemon); the build itself was checked once by hand with buildah (see
the chart README). What the image's build stage runs — `pip wheel`, a venv, `scrubber` from
another directory — is what tests/integration/firstrun/test_wheel.py runs.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.integration.firstrun.test_wheel import SOURCES

REPO = Path(__file__).resolve().parents[2]
DOCKERFILE = REPO / "deploy" / "Dockerfile"
HADOLINT = str(Path(sys.executable).parent / "hadolint")


def test_hadolint_finds_nothing() -> None:
    res = subprocess.run(
        [HADOLINT, "--no-color", "--failure-threshold", "info", str(DOCKERFILE)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert res.returncode == 0, res.stdout + res.stderr


def test_the_readmes_build_and_push_commands_are_the_dockerfiles() -> None:
    """The header says how to build and push; README.md gives the same docker build / docker push."""
    header = [line[1:].strip() for line in DOCKERFILE.read_text().splitlines() if line.startswith("#   ")]
    readme = (REPO / "README.md").read_text()
    assert [c.split()[:2] for c in header] == [["docker", "build"], ["docker", "push"]]
    for command in header:
        assert f"\n{command}\n" in readme


def test_the_build_stage_copies_what_the_wheel_is_built_from_and_installs_the_wheel() -> None:
    text = DOCKERFILE.read_text()
    build = text.split("\nFROM ", 2)[1]
    copied = {src for line in re.findall(r"^COPY (?!--from)(.+)$", build, re.M) for src in line.split()[:-1]}
    assert copied == set(SOURCES)
    assert "SCRUBBER_MYPYC=1 python -m pip wheel . --no-deps -w /wheels" in build
    assert "pip install /wheels/scrubber-*.whl" in build
