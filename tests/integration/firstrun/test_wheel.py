"""The wheel as a user gets it: built with `pip wheel`, installed into a clean venv, run elsewhere.

Nothing of the checkout is on the path there, so the rule files must come from the wheel itself.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.conftest import REPO

# What the Dockerfile copies into its build stage too: the wheel is built from these alone.
SOURCES = ("pyproject.toml", "setup.py", "README.md", "build_backend", "scrubber", "grammar")


def _run(cmd: list[str], cwd: Path, env: dict[str, str], timeout: float = 900) -> str:
    res = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert res.returncode == 0, f"{cmd}: {res.stderr[-3000:]}"
    return res.stdout


def test_wheel_installs_into_a_clean_venv_and_scans_from_elsewhere(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    for name in SOURCES:
        path = REPO / name
        if path.is_dir():
            shutil.copytree(path, src / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(path, src / name)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "SCRUBBER_CONFIG")}
    dist = tmp_path / "dist"
    _run([sys.executable, "-m", "pip", "wheel", ".", "--no-deps", "-q", "-w", str(dist)], src, env)
    (wheel,) = dist.glob("scrubber-*.whl")

    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], tmp_path, env)
    _run([str(venv / "bin/pip"), "install", "-q", "--disable-pip-version-check", str(wheel)], tmp_path, env)

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    scrubber = str(venv / "bin/scrubber")
    assert _run([scrubber, "--version"], elsewhere, env).strip() == "scrubber 0.1.0"
    where = _run(
        [str(venv / "bin/python"), "-c", "from scrubber import rulefile; print(rulefile.grammar_dir())"],
        elsewhere,
        env,
    )
    assert Path(where.strip()).is_relative_to(venv), where

    def scan(level: int, text: str) -> dict[str, Any]:
        res = subprocess.run(
            [scrubber, "scan", "--level", str(level)],
            cwd=elsewhere,
            env=env,
            input=json.dumps({"id": "a", "text": text}) + "\n",
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert res.returncode == 0, res.stderr[-3000:]
        out: dict[str, Any] = json.loads(res.stdout)
        return out

    out = scan(2, "my ssn is 524-59-3318, the last four of my card are 4242")
    assert out["text"] == "my ssn is [US_SSN], the last four of my card are [CREDIT_CARD]"
    assert {f["detector"].split(":")[0] for f in out["findings"]} == {"pattern", "grammar"}

    # At level 7 the name model runs too: its lexicon and weights ship in the wheel as well.
    out = scan(7, "Customer Maria Okafor called about her refund")
    assert out["text"] == "Customer [PERSON] called about her refund"
    assert [f["detector"] for f in out["findings"]] == ["name_model"]


def test_a_source_tree_reads_its_own_grammar(tmp_path: Path) -> None:
    """A checkout on PYTHONPATH (load.ab_findings' "before" tree) uses the grammar/ beside it."""
    for name in ("scrubber", "grammar"):
        shutil.copytree(REPO / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    code = "from scrubber import rulefile; print(rulefile.grammar_dir())"
    where = _run([sys.executable, "-c", code], elsewhere, env)
    assert Path(where.strip()) == tmp_path / "grammar"
