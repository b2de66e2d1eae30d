"""The release build compiled by mypyc against this checkout's pure Python, side by side.

    .venv/bin/python -m load.compiled                          # builds it, then pure vs compiled
    .venv/bin/python -m load.compiled --target /tmp/compiled   # keeps the build there (reused next time)
    .venv/bin/python -m load.compiled --rounds 3 --n 5000

The compiled tree is what a release build installs: ``SCRUBBER_MYPYC=1 pip wheel . --no-deps``
(setup.py lists the modules), unpacked with ``pip install --no-deps --target``. As in
``load.ab_findings``, each tree runs in a child process of its own with the scrubber package
from that tree (``PYTHONPATH`` style), pure and compiled in turn, ``--rounds`` times, best kept:
the engine at level 7, all detectors, one message at a time, on the PII-dense lines and the
2 KB e-mail prose of ``load.traffic`` (the streams and seeds of ``load.bench_engine``). Times
are CPU time of the child (``time.process_time``).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
STREAMS = ("dense", "prose 2KB")
VARIABLE = "SCRUBBER_MYPYC"


def compiled_modules(root: Path = ROOT) -> list[str]:
    """The dotted names of the modules setup.py compiles (its MYPYC_MODULES)."""
    tree = ast.parse((root / "setup.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == [
            "MYPYC_MODULES"
        ]:
            paths: list[str] = ast.literal_eval(node.value)
            return [p.removesuffix(".py").replace("/", ".") for p in paths]
    raise LookupError("setup.py has no MYPYC_MODULES")


def build(src: Path, target: Path, python: str = sys.executable) -> str:
    """The compiled wheel of the checkout ``src``, unpacked into ``target``; returns its file name.

    This is the release build (README, Deployment): needs a C compiler and Python's headers."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env[VARIABLE] = "1"
    with tempfile.TemporaryDirectory(prefix="scrubber-wheel-") as dist:
        _pip(python, ["wheel", ".", "--no-deps", "-q", "-w", dist], src, env)
        (wheel,) = Path(dist).glob("*.whl")
        _pip(python, ["install", "-q", "--no-deps", "--target", str(target), str(wheel)], src, env)
        return wheel.name


def _pip(python: str, args: list[str], cwd: Path, env: dict[str, str]) -> None:
    cmd = [python, "-m", "pip", "--disable-pip-version-check", *args]
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{done.stderr[-4000:]}")


def child(n: int, repeat: int) -> None:
    """Runs inside one tree: which files the compiled modules came from, and the times, as JSON."""
    import importlib

    from load.bench_engine import _best, _run, data, engines

    scrubber = engines(7)["full"]
    streams = {name: texts for name, texts in data(n).items() if name in STREAMS}
    out: dict[str, Any] = {"files": [importlib.import_module(m).__file__ for m in compiled_modules()]}
    for name, texts in streams.items():
        _run(scrubber, texts[:200])
        secs = _best(lambda t=texts: _run(scrubber, t), repeat)
        out[name] = {"secs": secs, "msgs": len(texts), "mb": sum(len(t.encode("utf-8")) for t in texts) / 1e6}
    json.dump(out, sys.stdout)


def run_tree(tree: Path, n: int, repeat: int) -> dict[str, Any]:
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); import scrubber.engine; "
        "sys.path.insert(0, sys.argv[2]); from load.compiled import child; "
        "child(int(sys.argv[3]), int(sys.argv[4]))"
    )
    cmd = [sys.executable, "-c", code, str(tree), str(ROOT), str(n), str(repeat)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"{tree}: child failed\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def main(argv: Sequence[str] | None = None) -> int:
    from load.bench import machine

    ap = argparse.ArgumentParser(prog="compiled", description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--target", type=Path, help="the compiled tree: built there if empty (default: a temp dir)"
    )
    ap.add_argument("--n", type=int, default=3000, help="dense lines (mails: n / 10; default 3000)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per figure in a child, best kept")
    ap.add_argument("--rounds", type=int, default=2, help="pure/compiled pairs, alternating; best kept")
    a = ap.parse_args(argv)
    target = a.target or Path(tempfile.mkdtemp(prefix="scrubber-compiled-"))
    if not (target / "scrubber").is_dir():
        print(f"building the compiled wheel into {target} ...", file=sys.stderr)
        build(ROOT, target)
    header = machine()
    trees = {"pure": ROOT, "compiled": target.resolve()}
    best: dict[str, dict[str, dict[str, float]]] = {}
    for _ in range(a.rounds):
        for label, tree in trees.items():
            result = run_tree(tree, a.n, a.repeat)
            suffixes = {Path(f).suffix for f in result.pop("files")}
            if suffixes != ({".py"} if label == "pure" else {".so"}):
                sys.exit(f"{label} tree {tree}: the modules came from {suffixes} files")
            for stream, m in result.items():
                slot = best.setdefault(label, {})
                if stream not in slot or m["secs"] < slot[stream]["secs"]:
                    slot[stream] = m
    print("\n".join(header))
    print(f"load average at the end: {os.getloadavg()[0]:.2f} (1 min)")
    print(f"compiled modules: {', '.join(compiled_modules())}")
    print(
        f"\nlevel 7, all detectors, one message at a time; CPU time, best of {a.repeat} x {a.rounds} rounds"
    )
    print(
        f"{'stream':<10} {'msgs':>5} {'pure msg/s':>11} {'comp msg/s':>11} {'pure MB/s':>10} "
        f"{'comp MB/s':>10} {'pure us':>8} {'comp us':>8} {'speed-up':>9}"
    )
    for stream in STREAMS:
        p, c = best["pure"][stream], best["compiled"][stream]
        print(
            f"{stream:<10} {p['msgs']:>5} {p['msgs'] / p['secs']:>11,.0f} {c['msgs'] / c['secs']:>11,.0f} "
            f"{p['mb'] / p['secs']:>10.3f} {c['mb'] / c['secs']:>10.3f} {p['secs'] / p['msgs'] * 1e6:>8.0f} "
            f"{c['secs'] / c['msgs'] * 1e6:>8.0f} {p['secs'] / c['secs']:>8.2f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
