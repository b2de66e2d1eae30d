"""Cost per KB of one message as it grows, 200 B to 4 MB, dense and sparse: two trees side by side.

    .venv/bin/python -m load.bench_sizes --base /tmp/base          # before (base) and after (this tree)
    .venv/bin/python -m load.bench_sizes --base /tmp/base --sizes 1000000,3000000 --rounds 2

Each tree runs in a child process of its own (as in ``load.ab_findings``: the scrubber package
from the tree, the streams and the timing from this tree's ``load/``), before and after in
turn, ``--rounds`` times, best figure kept, so that both see the same machine. The table is
CPU microseconds per KB (``time.process_time`` of the child) of the full engine at level 7,
scrubbing single messages made of the PII-dense lines of ``load.traffic`` (48 % of the lines
hold a value) or of sparse ones (5 %); many messages of a small size, one of a large size. A
cost that grows faster than the text shows as a rising row: the target is a max / min of
1.5x or less.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from load.bench import machine
from load.bench_engine import SIZES, cost_per_kb, size_table

ROOT = Path(__file__).resolve().parents[1]


def child(level: int, repeat: int, sizes: Sequence[int]) -> None:
    """Runs inside one tree: prints its table as JSON."""
    json.dump(cost_per_kb(level, repeat, sizes), sys.stdout)


def run_tree(tree: Path, level: int, repeat: int, sizes: Sequence[int]) -> dict[str, dict[int, float]]:
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); import scrubber.engine; "
        "sys.path.insert(0, sys.argv[2]); from load.bench_sizes import child; "
        "child(int(sys.argv[3]), int(sys.argv[4]), [int(s) for s in sys.argv[5].split(',')])"
    )
    args = [str(tree), str(ROOT), str(level), str(repeat), ",".join(map(str, sizes))]
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"{tree}: child failed\n{done.stderr[-3000:]}")
    raw: dict[str, dict[str, float]] = json.loads(done.stdout)
    return {kind: {int(size): us for size, us in per.items()} for kind, per in raw.items()}


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench_sizes", description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", type=Path, help="the 'before' tree (a checkout); without it, this tree only")
    ap.add_argument("--new", type=Path, default=ROOT, help="the 'after' tree (default: this one)")
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)), help="bytes, comma-separated")
    ap.add_argument("--level", type=int, default=7)
    ap.add_argument("--repeat", type=int, default=3, help="runs per size under 1 MB, best kept")
    ap.add_argument("--rounds", type=int, default=1, help="before/after pairs; best kept")
    a = ap.parse_args(argv)
    sizes = [int(s) for s in a.sizes.split(",")]
    trees = {"before": a.base, "after": a.new} if a.base else {"this": a.new}
    best: dict[str, dict[str, dict[int, float]]] = {}
    header = machine()
    for _ in range(a.rounds):
        for label, tree in trees.items():
            table = run_tree(tree.resolve(), a.level, a.repeat, sizes)
            slot = best.setdefault(label, {})
            for kind, per in table.items():
                for size, us in per.items():
                    slot.setdefault(kind, {})[size] = min(us, slot.get(kind, {}).get(size, float("inf")))
    print("\n".join(header))
    print(f"load average at the end: {os.getloadavg()[0]:.2f} (1 min)")
    print(f"\nCPU us per KB, level {a.level}, full engine, one message of each size (best of {a.rounds})")
    print(size_table(best))
    return 0


if __name__ == "__main__":
    sys.exit(main())
