"""Speed work without changing what is found: two checkouts, the same texts, side by side.

    git archive HEAD | (mkdir -p /tmp/base && tar -x -C /tmp/base)   # the "before" tree
    .venv/bin/python -m load.ab_findings --base /tmp/base              # compare with this tree
    .venv/bin/python -m load.ab_findings --base /tmp/base --time-only  # speed only
    .venv/bin/python -m load.ab_findings --base /tmp/base --findings-only  # findings only (faster)

Each tree runs in a child process of its own (``PYTHONPATH`` points at it), alternating
before/after so that both see the same machine. Every child scrubs the same corpus at level 7
with all detectors: the devset texts (when ../shared/devset is there), the benchmark streams
(chat, log, mixed, e-mail bodies of 600 B and 2 KB, the PII-dense chat/log lines and 2 KB
e-mail prose of load/traffic.py, one dense and one sparse message of 200 KB) and
hand-written cases that tend to break fast paths (no digits, non-ASCII, CRLF, camelCase keys,
long lines). The findings of both
trees must be identical; the first differences are printed. Times are CPU seconds of the
child per detector and stream (best of ``--repeat``), so the table shows where a change won.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEVSET = ROOT.parent / "shared" / "devset" / "corpus.jsonl"

EXTRA = [
    "ok thanks, see you tomorrow at the office",
    "order 1234 shipped on tuesday, see you tomorrow",
    "Ünïcödé nàme: Zoë Åström, tél +33 1 42 68 53 00, İstanbul",
    "Dear Mr. van der Berg,\r\n\r\nyour card 4111 1111 1111 1111 expires.\r\n\r\n"
    "Regards,\r\nAnna Kowalski\r\n",
    '{"userEmail":"a.b@example.com","cardLast4":"4242","ssnLast4":"1234"}',
    "the last four of my SSN is 1234 and my social ends in 6789",
    "my phone is 415 555 0142, call after 5; my zip is 94110",
    "x" * 5000 + " 4111111111111111 " + "y" * 5000,
    " ".join(["1"] * 3000),
    "hi, I'm maya okafor, my dob is 03/14/1988 and I live at 12 alder way",
    "AKIAIOSFODNN7EXAMPLE aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "password: hunter22 token=ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    "ip 203.0.113.7 and 2001:db8::1 and fe80::1ff:fe23:4567:890a",
    "IBAN GB82 WEST 1234 5698 7654 32, routing 021000021, acct 12345678",
]


def corpus() -> dict[str, list[str]]:
    from load import streams, traffic

    out: dict[str, list[str]] = {}
    if DEVSET.exists():
        with DEVSET.open(encoding="utf-8") as f:
            out["devset"] = [json.loads(line)["text"] for line in f if line.strip()]
    out["chat"] = streams.chat_lines(4000, seed=11)
    out["log"] = streams.log_lines(4000, seed=12)
    out["mixed"] = streams.mixed(2000, seed=13)
    out["email600"] = streams.email_bodies(150, seed=14, size=600)
    out["email2k"] = streams.email_bodies(60, seed=15, size=2000)
    out["dense"] = traffic.dense_lines(3000, seed=16)
    out["prose2k"] = traffic.email_prose(60, seed=17)
    # Long messages, where a look-up that walks every finding or every word shows.
    out["long"] = [traffic.block(200_000, seed=18), traffic.block(200_000, seed=19, pii=0.05)]
    out["extra"] = EXTRA
    return out


def child(repeat: int, time_only: bool) -> None:
    """Runs inside one tree: prints one JSON object (findings and times; ``repeat`` 0: no times)."""
    from scrubber.dial import Policy
    from scrubber.engine import Scrubber, ScrubError

    full = Scrubber(Policy(level=7))
    engines = {"all": full} | {d.name: Scrubber(Policy(level=7), detectors=[d]) for d in full.detectors}
    if not repeat:
        engines = {}
    data = corpus()
    times: dict[str, dict[str, float]] = {}
    for ename, eng in engines.items():
        for sname, texts in data.items():
            best = float("inf")
            for _ in range(repeat):
                t0 = time.process_time()
                for t in texts:
                    with contextlib.suppress(ScrubError):
                        eng.scrub(t)
                best = min(best, time.process_time() - t0)
            times.setdefault(ename, {})[sname] = best / len(texts) * 1e6
    found: list[object] = []
    if not time_only:
        for sname, texts in data.items():
            for i, t in enumerate(texts):
                try:
                    r = full.scrub(t)
                    found.append([sname, i, r.text, [[f.start, f.end, f.entity] for f in r.findings]])
                except ScrubError as exc:
                    found.append([sname, i, "error", exc.reason])
    json.dump({"times": times, "findings": found}, sys.stdout)


def run_tree(tree: Path, repeat: int, time_only: bool) -> dict[str, object]:
    # The child imports the scrubber package from ``tree`` (its submodules follow the package's
    # path), then this file and the streams from this tree's load/.
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); import scrubber.engine; "
        "sys.path.insert(0, sys.argv[4]); "
        "from load.ab_findings import child; child(int(sys.argv[2]), sys.argv[3] == '1')"
    )
    cmd = [sys.executable, "-c", code, str(tree), str(repeat), "1" if time_only else "0", str(ROOT)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"{tree}: child failed\n{done.stderr[-3000:]}")
    result: dict[str, object] = json.loads(done.stdout)
    return result


def _print_times(best: dict[str, dict[str, dict[str, float]]]) -> None:
    """The times table: µs per message per detector and stream, before and after."""
    streams = list(next(iter(best["before"].values())))
    print(f"{'detector':10} {'stream':9} {'before us':>10} {'after us':>10} {'ratio':>6}")
    # A detector only one tree has (one added or removed) gets a row with the other side empty.
    detectors = list(best["before"]) + [d for d in best["after"] if d not in best["before"]]
    for det in detectors:
        for s in streams:
            b = best["before"].get(det, {}).get(s, float("nan"))
            a = best["after"].get(det, {}).get(s, float("nan"))
            ratio = f"{b / a:6.2f}x" if a == a and b == b and a else "     -"
            print(f"{det:10} {s:9} {b:10.1f} {a:10.1f} {ratio}")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="ab_findings", description=__doc__.split("\n")[0])
    ap.add_argument("--base", type=Path, required=True, help="the 'before' tree (a checkout)")
    ap.add_argument("--new", type=Path, default=ROOT, help="the 'after' tree (default: this one)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=1, help="before/after pairs; best time kept")
    ap.add_argument("--time-only", action="store_true")
    ap.add_argument("--findings-only", action="store_true", help="compare findings, time nothing")
    args = ap.parse_args(argv)
    if args.findings_only:
        args.repeat, args.rounds = 0, 1
    runs: dict[str, list[dict[str, object]]] = {"before": [], "after": []}
    for _ in range(args.rounds):
        runs["before"].append(run_tree(args.base.resolve(), args.repeat, args.time_only))
        runs["after"].append(run_tree(args.new.resolve(), args.repeat, args.time_only))
    best: dict[str, dict[str, dict[str, float]]] = {}
    for side, results in runs.items():
        for r in results:
            times = r["times"]
            assert isinstance(times, dict)
            for det, per in times.items():
                for stream, us in per.items():
                    slot = best.setdefault(side, {}).setdefault(det, {})
                    slot[stream] = min(us, slot.get(stream, float("inf")))
    if best:
        _print_times(best)
    if args.time_only:
        return 0
    before, after = runs["before"][0]["findings"], runs["after"][0]["findings"]
    assert isinstance(before, list) and isinstance(after, list)
    diffs = [(b, a) for b, a in zip(before, after, strict=True) if b != a]
    print(f"\nfindings: {len(before)} texts, {len(diffs)} differ")
    for b, a in diffs[:15]:
        print(f"- before {json.dumps(b)[:400]}\n+ after  {json.dumps(a)[:400]}")
    return 1 if diffs else 0


if __name__ == "__main__":
    raise SystemExit(main())
