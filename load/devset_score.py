"""Recall and precision of one slice of a labelled corpus: some entities, partial spans or not.

``score.py`` (../shared/tools) reports per entity and micro over everything in scope; the
detection work is judged on slices of that (the pattern entities without the ``partial`` spans,
say). This module computes such a slice with the same rules as ``score.py`` — a gold span is
recalled when every alphanumeric character of it is covered by a finding of any type; a finding
is correct when it overlaps any gold span — by importing ``score.py``'s loaders and helpers.

    python -m load.devset_score GOLD PRED [--entities pattern|grammar|all|E1,E2] [--partial no|yes|any] [-v]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
SCORE_PY = SHARED / "tools" / "score.py"
DEVSET = SHARED / "devset" / "corpus.jsonl"

GRAMMAR_ENTITIES = frozenset({"PERSON", "STREET_ADDRESS"})


def score_module(path: Path = SCORE_PY) -> ModuleType:
    """``score.py`` loaded by path (it is a stand-alone script, not a package)."""
    spec = importlib.util.spec_from_file_location("devset_score_py", path)
    if spec is None or spec.loader is None:
        raise FileNotFoundError(path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def scan(gold: Path, level: int) -> dict[str, dict[str, Any]]:
    """``scrubber scan --level N`` over a gold file: each record's findings and text, by id.

    A record the scan could not scrub fails the caller: a corpus we score must scrub whole.
    """
    with gold.open("rb") as inp:
        done = subprocess.run(
            [sys.executable, "-m", "scrubber", "scan", "--level", str(level)],
            stdin=inp,
            capture_output=True,
            cwd=REPO,
            check=True,
            timeout=600,
        )
    out = {}
    for line in done.stdout.decode().splitlines():
        rec = json.loads(line)
        if "error" in rec:
            raise AssertionError(f"{gold}: {rec}")
        out[rec["id"]] = {"findings": rec["findings"], "text": rec["text"]}
    return out


def pattern_entities(score: ModuleType) -> frozenset[str]:
    return frozenset(score.LEVEL) - GRAMMAR_ENTITIES


@dataclass
class Slice:
    """Counts for one slice; ``missed`` and ``wrong`` list (id, entity, start, end) for reading."""

    gold: int = 0
    recalled: int = 0
    findings: int = 0
    correct: int = 0
    missed: list[tuple[str, str, int, int]] = field(default_factory=list)
    wrong: list[tuple[str, str, int, int]] = field(default_factory=list)

    @property
    def recall(self) -> float:
        return self.recalled / self.gold if self.gold else 1.0

    @property
    def precision(self) -> float:
        return self.correct / self.findings if self.findings else 1.0


def slice_scores(
    gold: Mapping[str, Any],
    order: Sequence[str],
    preds: Mapping[str, Any],
    entities: Collection[str],
    partial: bool | None = False,
) -> Slice:
    """Recall over gold spans of ``entities`` (``partial`` False/True/None = no/only/either);
    precision over findings typed as one of ``entities``."""
    out = Slice()
    for rid in order:
        text: str = gold[rid]["text"]
        spans = gold[rid]["spans"]
        finds = preds.get(rid, {"findings": []})["findings"]
        covered = bytearray(len(text))
        for f in finds:
            covered[f["start"] : f["end"]] = b"\x01" * (f["end"] - f["start"])
        for s in spans:
            if s["entity"] not in entities or (partial is not None and s["partial"] != partial):
                continue
            need = [i for i in range(s["start"], s["end"]) if text[i].isalnum()] or range(
                s["start"], s["end"]
            )
            out.gold += 1
            if all(covered[i] for i in need):
                out.recalled += 1
            else:
                out.missed.append((rid, s["entity"], s["start"], s["end"]))
        for f in finds:
            if f["entity"] not in entities:
                continue
            out.findings += 1
            if any(f["start"] < s["end"] and s["start"] < f["end"] for s in spans):
                out.correct += 1
            else:
                out.wrong.append((rid, f["entity"], f["start"], f["end"]))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="devset_score", description=__doc__.split("\n\n")[0])
    ap.add_argument("gold", nargs="?", default=str(DEVSET))
    ap.add_argument("pred")
    ap.add_argument("--entities", default="pattern", help="pattern | grammar | all | comma list")
    ap.add_argument("--partial", choices=("no", "yes", "any"), default="no")
    ap.add_argument("-v", "--verbose", action="store_true", help="list missed spans and wrong findings")
    a = ap.parse_args(argv)
    score = score_module()
    gold, order = score.load_gold(a.gold)
    preds, _ = score.load_pred(a.pred, gold)
    named = {
        "pattern": pattern_entities(score),
        "grammar": GRAMMAR_ENTITIES,
        "all": frozenset(score.LEVEL),
    }
    entities = named.get(a.entities) or frozenset(a.entities.split(","))
    partial = {"no": False, "yes": True, "any": None}[a.partial]
    total = slice_scores(gold, order, preds, entities, partial)
    print(f"{'entity':16}{'gold':>6}{'recall':>8}{'finds':>7}{'prec':>8}")
    for e in sorted(entities, key=lambda e: (score.LEVEL[e], e)):
        s = slice_scores(gold, order, preds, {e}, partial)
        print(f"{e:16}{s.gold:>6}{s.recall:>8.3f}{s.findings:>7}{s.precision:>8.3f}")
    print(f"{'TOTAL':16}{total.gold:>6}{total.recall:>8.3f}{total.findings:>7}{total.precision:>8.3f}")
    if a.verbose:
        for label, rows in (("missed", total.missed), ("wrong", total.wrong)):
            for rid, e, start, end in rows:
                print(f"{label} {rid} {e} {gold[rid]['text'][start:end]!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
