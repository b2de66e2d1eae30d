"""The release build, compiled by mypyc (README, Deployment), beside the editable pure install.

Built once, as README says, from a copy of the sources the wheel and the image are built from,
and unpacked into a directory. Its compiled modules must be the shared libraries, and it must
find exactly what the pure source tree finds on the devset, the benchmark streams and the
hand-written cases of ``load.ab_findings``. The build needs a C compiler and the headers of
the Python that runs it: tests/run installs them (gcc, python3-dev) when they are missing, and
without them this test fails, saying so.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from load.ab_findings import DEVSET
from load.compiled import build, compiled_modules
from tests.conftest import REPO
from tests.integration.firstrun.test_wheel import SOURCES

RELEASE_BUILD = "SCRUBBER_MYPYC=1 .venv/bin/pip wheel . --no-deps -w dist"


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    compiler = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    assert compiler, "no C compiler (cc or gcc) for the compiled release build: install gcc"
    headers = Path(sysconfig.get_paths()["include"]) / "Python.h"
    assert headers.exists(), f"no {headers} for the compiled release build: install python3-dev"
    tmp = tmp_path_factory.mktemp("compiled")
    src = tmp / "src"
    src.mkdir()
    for name in SOURCES:
        path = REPO / name
        if path.is_dir():
            shutil.copytree(path, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
        else:
            shutil.copy2(path, src / name)
    target = tmp / "site"
    wheel = build(src, target)
    # A platform wheel for this Python: a pure one (py3-none-any) would mean nothing was compiled.
    assert f"-cp{sys.version_info.major}{sys.version_info.minor}-" in wheel, wheel
    return target


def test_readmes_release_build_is_the_one_built_here() -> None:
    # load.compiled.build runs it: the variable, then `pip wheel . --no-deps` in the checkout.
    assert f"\n{RELEASE_BUILD}\n" in (REPO / "README.md").read_text()


def test_the_compiled_modules_are_shared_libraries(compiled: Path) -> None:
    modules = compiled_modules()
    assert "scrubber.detectors.names.model" in modules
    code = (
        "import importlib, sys; sys.path.insert(0, sys.argv[1]); "
        "[print(importlib.import_module(m).__file__) for m in sys.argv[2:]]"
    )
    # A module left pure comes from the same installed tree, as its source.
    names = [*modules, "scrubber.detectors.registry"]
    res = subprocess.run(
        [sys.executable, "-c", code, str(compiled), *names], capture_output=True, text=True, timeout=300
    )
    assert res.returncode == 0, res.stderr[-3000:]
    files = [Path(line) for line in res.stdout.splitlines()]
    assert len(files) == len(names)
    assert all(f.is_relative_to(compiled) for f in files), files
    assert [f.suffix for f in files] == [".so"] * len(modules) + [".py"], files


def test_the_compiled_build_finds_exactly_what_the_pure_tree_finds(compiled: Path) -> None:
    assert DEVSET.exists(), "shared/devset must sit beside the checkout"
    args = ["-m", "load.ab_findings", "--base", str(REPO), "--new", str(compiled), "--findings-only"]
    res = subprocess.run(
        [sys.executable, *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    assert res.stdout.strip().endswith(" differ"), res.stdout
    total = int(res.stdout.split("findings: ", 1)[1].split()[0])
    assert total > 10_000 and res.stdout.strip().endswith(f"findings: {total} texts, 0 differ")
