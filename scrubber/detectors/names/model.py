"""Names without an announcing phrase: a small linear model over lexicon statistics.

Rules find a name where a phrase announces it ("my name is", "Dear", a signature). This model
finds the rest: "Customer John Smith called", "wow emma and kaite are so funny", "Okafor's
new novel". Each word that may be a name is scored by a logistic model whose features say

- how the word is used in English at large: how often it is written capitalised rather than
  in lower case (a proper noun), how common it is in lower case (an ordinary word), and what
  share of its distributional word cluster are known given names and surnames;
- whether it is a known given name or surname (lists of many languages);
- its context: sentence start, a title before it, a preposition of place or a person word
  before it, a possessive after it, digits or code punctuation around it, name-like
  neighbours, a street, company or place word after it.

The statistics and the weights are data (``grammar/name_lexicon.tsv.gz``,
``grammar/name_model.yaml``), built and fitted by ``python -m scrubber.detectors.names.build``
from public word lists and our own labelled text. Adjacent name words form one name.

Speed: most messages hold no word that could reach the threshold whatever its context; one
scan over the words (a set look-up each) says so, and only the words that can matter are
scored.
"""

from __future__ import annotations

import functools
import gzip
import math
import re
import zlib
from array import array
from bisect import bisect_left
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from scrubber import rulefile
from scrubber.detectors import CHECK_EVERY, MessageContext
from scrubber.detectors.cues import with_slips
from scrubber.detectors.names.shapes import Endings
from scrubber.findings import Finding, Spans
from scrubber.masking import placeholders
from scrubber.textsearch import FIND_BUDGET

# A word: letters, joined by an inner apostrophe or hyphen ("O'Neil", "Jean-Luc", "don't");
# a possessive is not part of it ("Trump's" is "Trump").
WORD = re.compile(r"[^\W\d_]+(?:(?:['’](?![sS]\b)|-)[^\W\d_]+)*")
# A longer word is no name (and a compound check over it would cost its length squared).
LONGEST = 40
# Contractions are ordinary words whatever their first part ("don't", "she'd", "Would've").
CONTRACTION = re.compile(r"['’](?:[dmt]|ve|ll|re)$", re.IGNORECASE)
# Findings of the model stay below the rules' scores: where both find a value, the rule's
# span and entity win.
MAX_SCORE = 0.8
# Ordinary words looked up in a set rather than by their checksum: the most frequent ones.
FAST_ORDINARY = 20_000
# How many distinct words a detector remembers what it worked out of (bounded: input is
# untrusted; when full, it starts afresh).
WORDS_MAX = 16_384


@dataclass(frozen=True, slots=True)
class Lexeme:
    """What the lexicon knows of a word that may be a name (lower-cased)."""

    proper: float  # log odds of the capitalised spelling against the lower-case one, within +-6
    given: bool  # a known given name
    surname: bool  # a known surname
    cluster: float | None  # log odds that a capitalised word of its cluster is a name
    common: float  # how common the lower-case spelling is: 0 (unseen) .. ~2 ("the")
    mixed_cluster: bool  # its cluster is large and mostly not names (places, months, brands)

    @staticmethod
    def unpack(code: int) -> Lexeme:
        cluster = code >> 16 & 0xFF
        return Lexeme(
            proper=(code & 0x7F) / 10 - 6,
            common=(code >> 7 & 0x1FF) / 100,
            cluster=None if cluster == 0 else (cluster - 1) / 10 - 8,
            given=bool(code >> 24 & 1),
            surname=bool(code >> 25 & 1),
            mixed_cluster=bool(code >> 26 & 1),
        )


KINDS = ("cap", "upper", "low")
# In memory each word's statistics are one int (a dict of objects would take five times
# more): bits 0-6 proper, 7-15 common, 16-23 cluster, 24-26 given, surname, mixed cluster;
# above them the model's flags: the word can reach the lower bar in a shape (EXTEND_BIT + the
# shape's index in KINDS), or the threshold (SEED_BIT + index).
EXTEND_BIT = 27
SEED_BIT = 30


def pack(columns: Mapping[str, npt.NDArray[np.float64]]) -> npt.NDArray[np.int64]:
    """The codes of many words at once (``unpack`` reads one back)."""
    cluster = columns["cluster"]
    has = ~np.isnan(cluster)
    cluster_code = np.where(has, 1 + np.round((np.clip(np.nan_to_num(cluster), -8, 8) + 8) * 10), 0)
    return (
        np.round((np.clip(columns["proper"], -6, 6) + 6) * 10).astype(np.int64)
        | np.round(np.clip(columns["common"], 0, 3) * 100).astype(np.int64) << 7
        | cluster_code.astype(np.int64) << 16
        | columns["given"].astype(np.int64) << 24
        | columns["surname"].astype(np.int64) << 25
        | columns["mixed_cluster"].astype(np.int64) << 26
    )


def unpack_many(codes: npt.NDArray[np.int64]) -> dict[str, npt.NDArray[np.float64]]:
    cluster = (codes >> 16 & 0xFF).astype(float)
    return {
        "proper": (codes & 0x7F) / 10 - 6,
        "common": (codes >> 7 & 0x1FF) / 100,
        "cluster": np.where(cluster == 0, np.nan, (cluster - 1) / 10 - 8),
        "given": (codes >> 24 & 1).astype(float),
        "surname": (codes >> 25 & 1).astype(float),
        "mixed_cluster": (codes >> 26 & 1).astype(float),
    }


# How far above 0 a word's leaning to capitals (Lexeme.proper) must be for it to name a street
# whatever it is ("Hillcrest", "Riverside" are; "Apple", "Willow", "Elm" are not quite).
PROPER_STREET = 1.0


class Lexicon:
    """Words that may be names, with their statistics; ordinary words (known, never names);
    everything else is unknown (rare words, typos, names the lists lack)."""

    def __init__(self, names: Mapping[str, int], ordinary: list[str]) -> None:
        self.names = dict(names)
        # Ordinary words as a sorted array of CRC-32 checksums: 4 bytes a word instead of ~90
        # for a set of strings; the most frequent in a set, looked up faster. A rare collision
        # makes an unknown word ordinary.
        self._fast = frozenset(ordinary[:FAST_ORDINARY])
        self._sums = array("I", sorted({zlib.crc32(w.encode()) for w in ordinary}))

    def with_codes(self, names: dict[str, int]) -> Lexicon:
        """The same ordinary words, with ``names`` as the table of name-like words."""
        # Made empty, then given this one's ordinary words: a class compiled by mypyc (release
        # builds) cannot be made with ``__new__`` alone, it runs ``__init__``.
        other = Lexicon({}, [])
        other.names, other._fast, other._sums = names, self._fast, self._sums
        return other

    def get(self, word: str) -> Lexeme | None:
        code = self.names.get(word)
        return None if code is None else Lexeme.unpack(code)

    def street_name_word(self, word: str) -> bool:
        """Whether a lower-case word may name a street before its suffix: a given name or a
        surname written capitalised more often than not ("tyler"), a word written capitalised
        far more often than not ("hillcrest", "riverside"), or one that neither the lexicon nor
        the ordinary words know ("ashgrove", "ballymun"); not "golden", "rock", "star"."""
        entry = self.get(word)
        if entry is None:
            return not self.ordinary(word)
        return (bool(entry.given or entry.surname) and entry.proper > 0) or entry.proper > PROPER_STREET

    def ordinary_word(self, word: str) -> bool:
        """Whether a lower-case word is an ordinary word and no given name: one the lexicon
        lists as ordinary, or a surname at most that is written in lower case far more often
        than capitalised ("reader", "guest")."""
        entry = self.get(word)
        if entry is None:
            return self.ordinary(word)
        return not entry.given and entry.proper < -1.0

    def thing_word(self, word: str) -> bool:
        """Whether a lower-case word names things and never a person: no list knows it as a
        given name or a surname, and it is written in lower case more often than not
        ("telecom", "analytics", "rental"; not "white", "stone", "church", which are surnames
        too)."""
        entry = self.get(word)
        if entry is None:
            return self.ordinary(word)
        return not entry.given and not entry.surname and entry.proper < 0

    def name_word(self, word: str) -> bool:
        """Whether a lower-case word is a given name or a surname, written capitalised at least
        as often as not."""
        entry = self.get(word)
        return entry is not None and bool(entry.given or entry.surname) and entry.proper >= 0

    def lower_more_often(self, word: str) -> bool:
        """Whether a lower-case word is written in lower case more often than capitalised
        ("green", "will", "rose"), or is an ordinary word that no name list holds."""
        entry = self.get(word)
        return self.ordinary(word) if entry is None else entry.proper < 0

    def ordinary(self, word: str) -> bool:
        if word in self._fast:
            return True
        s = zlib.crc32(word.encode())
        i = bisect_left(self._sums, s)
        return i < len(self._sums) and self._sums[i] == s


COLUMNS = ("proper", "given", "surname", "cluster", "common", "mixed_cluster")


def read_lexicon(path: Path) -> Lexicon:
    """The lexicon file: ``word<TAB>statistics`` lines (COLUMNS) for the words that may be
    names, then, after a ``# ordinary`` line, ordinary words, the most frequent first."""
    words: list[str] = []
    # Column by column, as arrays of doubles: a list of rows would hold ~40 MB of strings.
    columns = {name: array("d") for name in COLUMNS}
    cols = [columns[name] for name in COLUMNS]
    ordinary: list[str] = []
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            if line.startswith("# ordinary"):
                ordinary = f.read().splitlines()
                break
            if line.startswith("#"):
                continue
            fields = line.rstrip("\n").split("\t")
            if len(fields) != len(COLUMNS) + 1:
                raise ValueError(f"every line needs {len(COLUMNS) + 1} tab-separated fields: {line[:40]!r}")
            words.append(fields[0])
            for col, value in zip(cols, fields[1:], strict=True):
                col.append(float(value) if value else math.nan)
    codes = pack({name: np.frombuffer(col, dtype=float) for name, col in columns.items()})
    return Lexicon(dict(zip(words, codes.tolist(), strict=True)), ordinary)


@dataclass(frozen=True, slots=True)
class ContextWords:
    """Small closed classes of words around a name (``context`` in grammar/name_model.yaml)."""

    titles: frozenset[str]  # "Dr. Adeyemi"
    place_before: frozenset[str]  # "in Paris"
    person_before: frozenset[str]  # "met Priya", "thanks Omar"
    dates: frozenset[str]  # months and weekdays: "Mar 12", "June"
    place_words: frozenset[str]  # "Hale Street", "Grant Industries": a place's or a company's
    place_starts: frozenset[str]  # "San Diego", "New York"
    companies: frozenset[str]  # "Wells Fargo", "Morgan Stanley": companies named after people
    # contractions typed without their apostrophe ("dont", "thats", "im"): never a name
    bare_contractions: frozenset[str]
    # second-person words: a name before them is often the one spoken to ("Priya you forgot")
    second_person: frozenset[str]
    # What follows a company's name that bears people's names: a legal form ("Lindblom
    # Lindberg AB", "da Rosa Martins S/A") or partners ("Mendoza and Sons", "Colletti,
    # Liverotti e Antelami e figli"); see firm_after.
    firm_after: re.Pattern[str] = re.compile(r"(?!)")
    # The small words that tell a line in English from one in another language (see _foreign).
    english_words: frozenset[str] = frozenset()
    foreign_words: frozenset[str] = frozenset()
    foreign_titles: frozenset[str] = frozenset()  # "Frau", "Señora": see _known_name
    # Labels and keys whose value names a thing ("Company:", "location="): see _in_thing_field.
    thing_fields: frozenset[str] = frozenset()
    # Greetings that open a line ("Hi alex,"): see _greeted.
    line_greetings: frozenset[str] = frozenset()
    # A run between a determiner and a noun modifies the noun: see NameModelDetector._modifies.
    noun_determiners: frozenset[str] = frozenset()
    determiner_adjectives: frozenset[str] = frozenset()
    person_nouns: frozenset[str] = frozenset()
    # Going somewhere: a place's name after one of these and "to" or "from" ("the trip to
    # Niagara Falls") is the place (see NameModelDetector._travelled_to).
    travel_words: frozenset[str] = frozenset()
    # Paying: a run after one of these and "at" is where one paid ("a transaction of $40 at
    # Hollis Bramwell was declined"): see NameModelDetector._paid_at.
    payment_words: frozenset[str] = frozenset()
    # The last part of a street's name joined by hyphens ("Willy-Brandt-Platz").
    street_ends: frozenset[str] = frozenset()


# ", NC 27684" / ", CA": a city before a state or province code.
STATE_AFTER = re.compile(r",? [A-Z]{2}\b(?!['’])")
STATE_ZIP_AFTER = re.compile(r", [A-Za-z]{2},? \d{5}\b")
SENTENCE_END = frozenset('.!?:;"|>*#\n')
CODE_AFTER = frozenset("=_.(/[{<@")
# The longest word in capitals that no list knows and that is read as an acronym, not a name,
# on a line written in both cases.
ACRONYM = 5
SHORT_ACRONYM = 3
# An acronym run into a capitalised word, before or after it: "IAMUser", "AWSService",
# "OpenBSD", "MySQL".
ACRONYM_GLUED = re.compile(r"[A-Z]{2}[a-z]|[a-z][A-Z]{2}")
# The same letter three times running, in either case ("ITTTT", "Aaawww").
DRAWN_OUT = re.compile(r"([^\W\d_])(?i:\1){2}")
# A word glued to a digit (or to ":" and a digit), as in "fd12:", "AB12", "v2".
DIGIT_GLUED = re.compile(r":?\d")
# The parts of a word written in camel case: "UsersController" is "Users", "Controller".
CAMEL_PART = re.compile(r"[A-Z][a-z]*|[a-z]+")
CODE_BEFORE = frozenset("_/=.<$#@{[\\")


def word_kind(word: str) -> str | None:
    """``cap`` (Xxxx, McDonald), ``upper`` (XXXX), ``low`` (xxxx), or None (iPhone, eBay,
    contractions, words drawn out: "YASSSS", "Beyoooond")."""
    if len(word) > LONGEST or (("'" in word or "’" in word) and CONTRACTION.search(word)):
        return None
    if DRAWN_OUT.search(word) is not None:
        # A letter three times running is a word drawn out for emphasis, not a name's spelling.
        return None
    if word.isupper():
        return "upper" if len(word) > 1 else "cap"
    if ACRONYM_GLUED.search(word) is not None:
        # An acronym run into a word ("IAMUser", "AWSService", "PDOException") names a type
        # or a class, not a person ("McDonald", "DeShawn" have one capital per part).
        return None
    if word[0].isupper():
        return "cap"
    return "low" if word.islower() else None


def _lower_case(word: str, lexicon: Lexicon) -> bool:
    """Whether a word is written in lower case more often than capitalised."""
    entry = lexicon.get(word)
    return lexicon.ordinary(word) if entry is None else entry.proper < 0


def lexical(
    word: str,
    kind: str,
    lexicon: Lexicon,
    words: ContextWords,
    famous: frozenset[str] = frozenset(),
    places: frozenset[str] = frozenset(),
) -> dict[str, float]:
    """The features of a word that do not depend on its context."""
    key = word.lower()
    entry = lexicon.get(key)
    f: dict[str, float] = {"bias": 1.0, "k_" + kind: 1.0}
    if key in famous and (entry is None or not entry.given):
        # Part of a famous person's name that is no given name ("Obama", "Messi"): such words
        # are frequent, which alone would count against them (the weight of ``famous_common``
        # takes that back).
        tag = "low_famous" if kind == "low" else "famous"
        f[tag] = 1.0
        if entry is not None:
            f[tag + "_common"] = entry.common
    if key in places:
        # The name of a town, a country or a state ("Charlotte", "Valencia").
        f["low_place" if kind == "low" else "place"] = 1.0
    if kind == "cap" and any(c.isupper() for c in word[1:]):
        f["inner_capital"] = 1.0
    if key in words.dates:
        f["month"] = 1.0
    if entry is None:
        if (
            lexicon.ordinary(key)
            or ("-" in key and _hyphened_ordinary(key, lexicon))
            or ("inner_capital" in f and _camel_ordinary(word, lexicon))
        ):
            f["ordinary"] = 1.0
        else:
            f["unknown"] = 1.0
            if _compound(key, lexicon):
                f["compound"] = 1.0
        return f
    f["proper"] = entry.proper / 6.0
    f["common"] = entry.common
    if entry.given:
        f["given"] = 1.0
    if entry.surname:
        f["surname"] = 1.0
    if entry.given and entry.surname:
        f["given_surname"] = 1.0
    if entry.cluster is None:
        f["no_cluster"] = 1.0
    else:
        f["cluster"] = entry.cluster / 4.0
    if entry.mixed_cluster:
        f["mixed_cluster"] = 1.0
    if kind == "low":
        # A lower-case name needs other evidence than a capitalised one: its own weights.
        f["low_proper"] = f["proper"]
        f["low_common"] = f["common"]
        if entry.given or entry.surname:
            f["low_name"] = 1.0
    return f


def _camel_ordinary(word: str, lexicon: Lexicon) -> bool:
    """Whether a word with inner capitals is words mostly written in lower case run together,
    each capitalised ("UsersController", "PaymentGateway", "StatusPage"): code and brands are
    named so; "McDonald", "DeShawn" and "LeBron" hold a part that is no ordinary word."""
    parts = CAMEL_PART.findall(word)
    if len(parts) < 2:
        return False
    if all(len(p) > 1 and _lower_case(p.lower(), lexicon) for p in parts):
        return True
    # A type or a product that ends in an ordinary word ("KafkaConsumer", "RedisClient");
    # the parts of names are short or no ordinary words ("LeBron", "MacKenzie", "VanDyke").
    return len(parts[0]) >= 4 and len(parts[-1]) >= 4 and _lower_case(parts[-1].lower(), lexicon)


def _hyphened_ordinary(key: str, lexicon: Lexicon) -> bool:
    """Whether a hyphened word no list knows is an ordinary one: ordinary words (or single
    letters) joined by hyphens ("Auto-renew", "Back-off", "USB-C"), or an ordinary word
    written with a hyphen ("Wi-Fi", "E-mail")."""
    parts = key.split("-")
    return lexicon.ordinary("".join(parts)) or all(len(p) == 1 or _lower_case(p, lexicon) for p in parts)


# How much context may lift a word, at most, in practice: a word whose own features stay
# more than this under a bar is not scored (exhaustive scoring finds the same names in our
# corpora; see tests/unit/test_name_model.py).
LIFT = 2.5


def _compound(word: str, lexicon: Lexicon) -> bool:
    """Whether an unknown word is two ordinary words run together ("harbourline",
    "parcelwise", "webhook"): brands and products are made that way, names rarely."""
    return any(lexicon.ordinary(word[:i]) and lexicon.ordinary(word[i:]) for i in range(3, len(word) - 2))


class NameModel:
    """The lexicon, the weights and the two bars; ``score`` turns features into a probability."""

    def __init__(
        self,
        lexicon: Lexicon,
        words: ContextWords,
        weights: Mapping[str, float],
        *,
        threshold: float,
        extend: float,
        threshold_at_start: float | None = None,
        classes: Mapping[str, int] | None = None,
        lone_context: float = math.inf,
        lone_inside: float = math.inf,
        famous: frozenset[str] = frozenset(),
        places: frozenset[str] = frozenset(),
    ) -> None:
        self.lexicon = lexicon
        self.famous = famous
        self.places = places
        # Words that are never part of a run: person words and titles (see _runs).
        self.outside_runs = words.person_before | words.titles | words.foreign_titles
        self.words = words
        self.classes: Mapping[str, int] = classes or {}
        self.lone_context = lone_context
        self.lone_inside = lone_inside
        self.weights = dict(weights)
        self.threshold = threshold
        # A run whose best word opens a sentence, where a capital is no mark of a name.
        self.threshold_at_start = threshold if threshold_at_start is None else threshold_at_start
        self.extend = extend
        seed_bar = _logit(threshold) - LIFT
        extend_bar = _logit(extend) - LIFT
        # Which words can be scored at all, in which shape: two bits per shape on each entry.
        keys = list(lexicon.names)
        codes = np.fromiter(lexicon.names.values(), dtype=np.int64, count=len(keys)) & ((1 << EXTEND_BIT) - 1)
        longer = np.array([len(w) > 1 for w in keys])
        for bit, kind in enumerate(KINDS):
            z = self.lexical_scores(keys, codes, kind)
            codes |= (z >= extend_bar).astype(np.int64) << (EXTEND_BIT + bit)
            codes |= ((z >= seed_bar) & longer).astype(np.int64) << (SEED_BIT + bit)
        # A copy: another model over the same lexicon (fitting makes one) keeps its own flags.
        self.lexicon = lexicon = lexicon.with_codes(dict(zip(keys, codes.tolist(), strict=True)))
        # Whether a word the lexicon does not know can matter at all, by its shape.
        unknown = {
            k: self.linear({"bias": 1.0, "k_" + k: 1.0, "unknown": 1.0}) for k in ("cap", "upper", "low")
        }
        self.unknown_seeds = {k: v >= seed_bar for k, v in unknown.items()}
        self.unknown_extends = {k: v >= extend_bar for k, v in unknown.items()}
        # The same for an unknown word of a famous name ("Shaquille").
        famous_unknown = {
            k: v + self.weights.get("low_famous" if k == "low" else "famous", 0.0) for k, v in unknown.items()
        }
        self.famous_seeds = {k: v >= seed_bar for k, v in famous_unknown.items()}
        self.famous_extends = {k: v >= extend_bar for k, v in famous_unknown.items()}

    def firm_word(self, word: str) -> bool:
        """Whether a word right after a name makes it a company's or a product's name
        ("Quigley Analytics", "Halvorsen Mutual", "Okonjo Property Group"), as a street's word
        makes it a street's: capitalised (not all in capitals), a word that names things and
        never a person (Lexicon.thing_word), and of a class of words that the fitted model
        learned seldom follow a name (``next_c<class>`` weighs ``FIRM_CLASS`` or less: mostly
        nouns), or of none (rare words). Words of other classes say nothing of the kind:
        "Sarah Jones About ...", "Dmitri Great work", "lunch with Maria Tomorrow"."""
        if not word[:1].isupper() or word.isupper():
            return False
        low = word.lower()
        if not self.lexicon.thing_word(low):
            return False
        c = word_class(self.classes, low)
        return c is None or self.weights.get(f"next_c{c}", 0.0) <= FIRM_CLASS

    def unknown_reaches(self, key: str, kind: str, *, seed: bool) -> bool:
        """Whether a word the lexicon does not know (``key``) can reach the threshold (``seed``)
        or else the lower bar in the best of contexts, written in the shape ``kind``."""
        unknown, famous = (
            (self.unknown_seeds, self.famous_seeds) if seed else (self.unknown_extends, self.famous_extends)
        )
        return (unknown[kind] or (key in self.famous and famous[kind])) and not self.lexicon.ordinary(key)

    def lexical_scores(
        self, words: list[str], codes: npt.NDArray[np.int64], kind: str
    ) -> npt.NDArray[np.float64]:
        """``linear(lexical(word))`` of each word written in the given shape, over arrays
        (scoring ~80,000 words one by one would take seconds at start-up)."""
        w = self.weights.get
        c = unpack_many(codes)
        has_cluster = ~np.isnan(c["cluster"])
        famous = np.array([x in self.famous for x in words], dtype=float) * (1.0 - c["given"])
        places = np.array([x in self.places for x in words], dtype=float)
        proper = c["proper"] / 6.0
        name = np.maximum(c["given"], c["surname"])
        z = (
            w("bias", 0.0)
            + w("k_" + kind, 0.0)
            + w("month", 0.0) * np.array([x in self.words.dates for x in words], dtype=float)
            + w("proper", 0.0) * proper
            + w("common", 0.0) * c["common"]
            + w("given", 0.0) * c["given"]
            + w("surname", 0.0) * c["surname"]
            + w("given_surname", 0.0) * c["given"] * c["surname"]
            + w("no_cluster", 0.0) * ~has_cluster
            + w("cluster", 0.0) * np.where(has_cluster, np.nan_to_num(c["cluster"]) / 4.0, 0.0)
            + w("mixed_cluster", 0.0) * c["mixed_cluster"]
            + w("low_famous" if kind == "low" else "famous", 0.0) * famous
            + w("low_famous_common" if kind == "low" else "famous_common", 0.0) * famous * c["common"]
            + w("low_place" if kind == "low" else "place", 0.0) * places
        )
        if kind == "low":
            z = (
                z
                + w("low_proper", 0.0) * proper
                + w("low_common", 0.0) * c["common"]
                + w("low_name", 0.0) * name
            )
        if kind == "cap":
            # Inner capitals ("McDonald") are not in the lower-cased key: count them where they
            # can only raise the score, so that this stays a bound.
            z = z + max(0.0, w("inner_capital", 0.0))
        return np.asarray(z, dtype=float)

    def linear(self, features: Mapping[str, float]) -> float:
        w = self.weights
        return sum(w.get(k, 0.0) * x for k, x in features.items())

    def score(self, features: Mapping[str, float]) -> float:
        z = self.linear(features)
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


def _logit(p: float) -> float:
    return math.log(p / (1.0 - p))


def load_model(root: Path | None = None) -> NameModel:
    """The model in ``grammar/`` (read once per process: it is read-only); a missing or
    malformed file is a RuleError naming it."""
    return _load_model(root or rulefile.grammar_dir())


# The firm's words (``context`` in grammar/name_model.yaml, both optional).
FIRM_KEYS = ("legal_forms", "firm_partners", "firm_words")
# What joins the last of a firm's partners' names: "and" in the languages the legal forms come
# from ("Jones, Wilson and Peterson LLP", "Larsson och Berg AB"); the others take commas.
FIRM_AND = r",? (?:and|&|e|y|et|und|i|en|och|og|ja|és|a) "


def firm_after(
    legal_forms: Sequence[str], partners: Sequence[str], trades: Sequence[str] = ()
) -> re.Pattern[str]:
    """The pattern that matches right after a run of name words when they name a firm: up to
    two more capitalised words, more partners' names, then a legal form, "and" partners, or a
    trade's or a site's word ("Haugen Telecom", "Moreau Recruitment", "the Nelson depot").

    A legal form is matched as written ("AB", "GmbH", "S.L."): in other cases some are everyday
    words ("as", "ab"). One of two capitals or fewer only right after a space and before no
    letter or digit ("Berg AB just renewed"; not "Anna, SE team"); a longer one also after a
    comma ("Acme, Inc."). Partners follow an "and", as written too ("and Sons", "e figli"; not
    "and sons").
    """
    names = r"(?:[^\W\d_][\w'’.-]*(?: [^\W\d_][\w'’.-]*)?)"
    short = sorted((f for f in legal_forms if len(f.replace(".", "")) <= 2), key=len, reverse=True)
    long = sorted((f for f in legal_forms if len(f.replace(".", "")) > 2), key=len, reverse=True)
    tails = []
    if short:
        tails.append(rf" (?:{'|'.join(map(re.escape, short))})(?![^\W_])")
    if long:
        tails.append(rf",? (?:{'|'.join(map(re.escape, long))})(?![^\W_])")
    if partners:
        words = "|".join(map(re.escape, sorted(partners, key=len, reverse=True)))
        tails.append(rf"{FIRM_AND}(?:{words})(?![^\W_])")
    if trades:
        words = "|".join(map(re.escape, sorted(trades, key=len, reverse=True)))
        tails.append(rf" (?:{words})(?![^\W_])")
    if not tails:
        return re.compile(r"(?!)")
    # The run may end before its last name words ("Remigio [Mir Montesinos] S.L."): up to two
    # capitalised words, not in capitals ("DAVIDE YOU OWE ME" shouts).
    more = r"(?: [^\W\d_a-zß-ÿ][a-zß-ÿ][\w'’-]*){0,2}"
    # More partners: names after commas, then one after an "and" ("Carter, Powell and Reeves";
    # "Jane Doe, Acme Ltd" is a person at a firm).
    partners_before = rf"(?:(?:, {names}){{0,2}}{FIRM_AND}{names})?"
    return re.compile(rf"{more}{partners_before}(?:{'|'.join(tails)})")


# A value right after a word (a number, maybe after ":", "#" or "="): the word is a field's
# label ("Maria Lopez Account 4411", "Anna Berg Phone 555-0186"), not a company's.
VALUE_AFTER = re.compile(r"[ \t]*[:#=]?[ \t]*\d")


def firm_word_after(text: str, end: int, firm_word: Callable[[str], bool]) -> bool:
    """Whether the word right after a name at ``end`` makes it a company's (``firm_word``,
    NameModel.firm_word) and is no field's label, which a value follows."""
    m = WORD_AFTER.match(text, end)
    return m is not None and firm_word(m.group(1)) and VALUE_AFTER.match(text, m.end()) is None


# Possessive determiners: what follows one right away is a thing someone has, not a person
# ("our Skoda Octavia", "my Breville kettle"); people are named past a kin word ("my sister
# Ana"), which is no name word.
OWNED_BY = frozenset({"my", "our", "your", "their"})
# The weight of ``next_c<class>`` at or under which a capitalised word of that class right after
# a name makes it a company's (see NameModel.firm_word).
FIRM_CLASS = -0.15
# The weight of ``next_c<class>`` at or under which a lower-case word of that class is read as a
# noun (see NameModelDetector._modifies): nouns' classes count against a name before them,
# verbs' and small words' for it or hardly at all ("who", "there").
NOUN_CLASS = -0.05


# The optional word lists of ``context``: the small words of English and of other languages,
# and the rest that are not fitted as features.
LANGUAGE_KEYS = (
    "english_words",
    "foreign_words",
    "foreign_titles",
    "thing_fields",
    "line_greetings",
    "noun_determiners",
    "determiner_adjectives",
    "person_nouns",
    "travel_words",
    "street_ends",
    "payment_words",
)

CONTEXT_KEYS = (
    "titles",
    "place_before",
    "person_before",
    "dates",
    "place_words",
    "place_starts",
    "companies",
    "bare_contractions",
    "second_person",
)


@functools.lru_cache(maxsize=4)
def _load_model(root: Path) -> NameModel:
    path = root / "name_model.yaml"
    cfg = rulefile.load(path)
    try:
        threshold, extend = float(cfg["threshold"]), float(cfg["extend"])
        at_start = float(cfg.get("threshold_at_start", threshold))
        lone_context = float(cfg["lone_word_context"])
        lone_inside = float(cfg.get("lone_word_inside", lone_context))
        context = cfg["context"]
        lists = {k: frozenset(str(w).lower() for w in context[k] or ()) for k in CONTEXT_KEYS}
        # A company's name is its words: "Ben & Jerry's" is "ben jerry", as _company_key reads it.
        lists["companies"] = frozenset(" ".join(WORD.findall(c)) for c in lists["companies"])
        firm = {k: [str(w) for w in context.get(k) or ()] for k in FIRM_KEYS}
        language = {k: frozenset(str(w).lower() for w in context.get(k) or ()) for k in LANGUAGE_KEYS}
        words = ContextWords(
            **lists,
            **language,
            firm_after=firm_after(firm["legal_forms"], firm["firm_partners"], firm["firm_words"]),
        )
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise rulefile.RuleError(path, None, f"malformed name model: missing or bad {exc}") from exc
    if not 0 < extend <= threshold <= at_start < 1:
        raise rulefile.RuleError(path, None, "need 0 < extend <= threshold <= threshold_at_start < 1")
    weights_path = root / "name_weights.yaml"
    raw = rulefile.load(weights_path)
    try:
        weights = {str(k): float(v) for k, v in raw["weights"].items() if k != rulefile.LINE_KEY}
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise rulefile.RuleError(weights_path, None, f"malformed weights: {exc}") from exc
    lexicon_path = root / "name_lexicon.tsv.gz"
    try:
        lexicon = read_lexicon(lexicon_path)
    except (OSError, ValueError, EOFError) as exc:
        raise rulefile.RuleError(lexicon_path, None, f"cannot read the name lexicon: {exc}") from exc
    famous = _word_list(root / "name_famous.txt.gz", "the famous names")
    places = _word_list(root / "name_places.txt.gz", "the place names")
    classes_path = root / "name_classes.tsv.gz"
    try:
        classes = read_classes(classes_path)
    except (OSError, ValueError, EOFError) as exc:
        raise rulefile.RuleError(classes_path, None, f"cannot read the word classes: {exc}") from exc
    return NameModel(
        lexicon,
        words,
        weights,
        threshold=threshold,
        threshold_at_start=at_start,
        extend=extend,
        classes=classes,
        lone_context=lone_context,
        lone_inside=lone_inside,
        famous=famous,
        places=places,
    )


def _word_list(path: Path, what: str) -> frozenset[str]:
    """A gzipped list of lower-case words, one a line; ``#`` lines are comments."""
    try:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            return frozenset(w for w in f.read().splitlines() if w and not w.startswith("#"))
    except (OSError, ValueError, EOFError) as exc:
        raise rulefile.RuleError(path, None, f"cannot read {what}: {exc}") from exc


def read_classes(path: Path) -> dict[str, int]:
    """The word classes file: ``word<TAB>class`` lines, the class a small integer."""
    out: dict[str, int] = {}
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                continue
            word, sep, cls = line.rstrip("\n").partition("\t")
            if not sep or not cls.isdigit():
                raise ValueError(f"every line needs a word, a tab and a class number: {line[:40]!r}")
            out[word] = int(cls)
    return out


# The ends of contractions, which the classes hold as words of their own ("I'm" is "I" + "'m").
CONTRACTION_ENDS = ("n't", "'m", "'s", "'re", "'ve", "'ll", "'d")


def word_class(classes: Mapping[str, int], word: str) -> int | None:
    """The class of a lower-case word; a contraction has its ending's ("I'm" reads as "am",
    "doesn't" as "not")."""
    c = classes.get(word)
    if c is None and ("'" in word or "’" in word):
        w = word.replace("’", "'")
        end = "n't" if w.endswith("n't") else w[w.rfind("'") :]
        c = classes.get(end)
    return c


# A part of a found name shorter than this is not looked for on its own (see
# NameModelDetector._recurring).
RECUR_CHARS = 3


# A list of names (see NameModelDetector._listed): items of one to three words, each beginning
# with a letter, joined by ", ", " and ", " & " or ", and ", on one line.
_ITEM_SOURCE = r"(?!and )[^\W\d_][\w'’-]*(?: (?!and\b)[^\W\d_][\w'’-]*){0,2}"
_ITEM = re.compile(rf"(?<![\w'’-]){_ITEM_SOURCE}(?![\w'’-])")
# What may not stand right before (after) a part of a name looked for again: it would be a part
# of a word, an address or a file's name ("ilse.vermaelen@", "Vermaelen.pdf" is taken).
_GLUED_BEFORE = frozenset("_'’.@-")
_GLUED_AFTER = frozenset("_@-")
_LIST = re.compile(
    rf"(?<![\w'’-]){_ITEM_SOURCE}(?:(?:, (?:and |& )?| and | & ){_ITEM_SOURCE}){{2,}}(?![\w'’-])"
)


@dataclass(frozen=True, slots=True)
class Candidate:
    """A word that may be (part of) a name, with its features."""

    start: int
    end: int
    features: dict[str, float]


class NameModelDetector:
    """PERSON where the name model scores a run of name-like words over its threshold."""

    name = "name_model"
    entities = frozenset({"PERSON"})

    def __init__(
        self, model: NameModel, *, word_endings: Sequence[Endings] = (), particles: Iterable[str] = ()
    ) -> None:
        self.model = model
        # The gap of one or two name particles between two names of a line that are one
        # ("Mateus da Silva", "Ludwig van Beethoven"); "y" and "e" also mean "and" ("Ana y
        # Pedro") and join nothing.
        self._particles = frozenset(p for p in particles if p.isalpha() and p not in AND_PARTICLES)
        joining = "|".join(map(re.escape, sorted(self._particles)))
        self._particle_gap = re.compile(rf" (?:(?:{joining}) ){{1,2}}") if joining else None
        # Words already judged: seeds and the rest (see _seeds), each word's shape and whether
        # it can reach the lower bar (see _shape), and its lexical features. Most words of a stream recur, and
        # a set operation or a look-up in C costs less than judging a word again in Python.
        self._seed_words: set[str] = set()
        self._other_words: set[str] = set()
        self._shapes: dict[str, tuple[str | None, bool]] = {}
        # The features of a word that do not depend on its context (``lexical``).
        self._lexicals: dict[str, dict[str, float]] = {}
        # The greetings that open a line, before a blank: what _greeted looks for first (a
        # greeting indented with blanks is not looked for).
        self._greeting_heads = tuple(g + b for g in model.words.line_greetings for b in " \t")
        words = "|".join(
            re.escape(g).replace(r"\ ", "[ \t]+")
            for g in sorted(model.words.line_greetings, key=len, reverse=True)
        )
        # ... and in a text of several lines, after each line break (in "\n" + text: a match's
        # start is the greeting's offset in the text).
        self._greeting_at = re.compile(rf"\n(?i:{words})[ \t]" if words else r"(?!)")
        # Endings of ordinary words (names.yaml: "-ing", "-ly", "-ator" ...): a word no list
        # knows that ends so is no name on its neighbours' word alone ("Descaling is ...").
        self.word_endings = tuple(word_endings)

    def detect(self, text: str, ctx: MessageContext) -> list[Finding]:
        found = self.find(text, ctx)
        if found and ctx.kept:
            found = list(_beside(found, ctx.kept))
        if found and (ctx.kept or "[" in text or "<" in text):
            # Where the detectors before found postcodes and streets, looked up once a message.
            zips = {k.start for k in ctx.kept if k.entity == "ZIP_CODE"}
            streets = {k.end for k in ctx.kept if k.entity == "STREET_ADDRESS"}
            found = [f for f in found if not _before_postcode(text, f.end, zips)]
            if found:
                found = [f for f in found if not _after_postcode(text, f.start)]
            found = [f for f in found if not _after_street(text, f.start, f.end, streets)]
        elif found:
            found = [f for f in found if not _after_postcode(text, f.start)]
        if found and self.model.words.thing_fields and (":" in text or "=" in text):
            found = [f for f in found if not _in_thing_field(text, f.start, self.model.words.thing_fields)]
        if len(found) >= 2 and ("," in text or " and " in text or "&" in text):
            found = self._listed(text, found)
        if found:
            found = self._recurring(text, found)
        return found

    def _listed(self, text: str, found: list[Finding]) -> list[Finding]:
        """``found``, and the other capitalised items of a list of names ("Present: Ilse
        Vermaelen, Tomas Brink, Chi."; "Okafor, Lindqvist and Li"): in a list of items joined
        by commas, "and" or "&" of which two at least are names found, an item of one to three
        capitalised words is a name too, with the lowest score of the list's names, if each of
        its words is a given name or a surname of the lexicon written capitalised at least as
        often as not: not "Apple", "Chiropodist" ("Okoro, Chidinma, Chiropodist"), a month
        or a word in capitals."""
        lexicon, dates = self.model.lexicon, self.model.words.dates
        spans = {(f.start, f.end): f.score for f in found}
        more: list[Finding] = []
        reached = -1
        for f in found:
            if f.start < reached:
                continue
            m = _LIST.match(text, f.start)
            if m is None:
                continue
            reached = m.end()
            items = [(i.start(), i.end()) for i in _ITEM.finditer(text, m.start(), m.end())]
            named = [spans[i] for i in items if i in spans]
            if len(named) < 2 or len(named) == len(items):
                continue
            for a, b in items:
                if (a, b) in spans:
                    continue
                words = text[a:b].split()
                if all(w[0].isupper() and not w.isupper() for w in words) and all(
                    w.lower() not in dates and lexicon.name_word(w.lower()) for w in words
                ):
                    more.append(Finding(a, b, "PERSON", min(named), self.name))
        if not more:
            return found
        taken = Spans(found)
        more = [f for f in more if not taken.overlaps(f.start, f.end)]
        return sorted(found + more, key=lambda f: (f.start, f.end)) if more else found

    def _recurring(self, text: str, found: list[Finding]) -> list[Finding]:
        """``found``, and the words of its names of two words or more where they stand alone
        elsewhere in the message: the same person named again by one part ("Call with Ilse
        Vermaelen ..." ... "Vermaelen's team wants ..."), with the name's score. A word that is
        an ordinary word too ("Green", "Will"), a month or a weekday, or that is written in
        capitals, is not looked for; nor is it taken before a company's word ("Ines Vaal" /
        "Vaal Property Mgmt")."""
        lexicon, dates = self.model.lexicon, self.model.words.dates
        words: dict[str, float] = {}
        for f in found:
            parts = text[f.start : f.end].split()
            if len(parts) < 2:
                continue
            for word in parts:
                key = word.lower()
                if (
                    len(word) >= RECUR_CHARS
                    and word[0].isupper()
                    and not word.isupper()
                    and word.isalpha()
                    and key not in dates
                    and not lexicon.lower_more_often(key)
                ):
                    words[word] = max(words.get(word, 0.0), f.score)
        if not words:
            return found
        taken, firm = Spans(found), self.model.firm_word
        more = []
        size = len(text)
        for i, j in _places(text, set(words)):
            if (
                (i == 0 or (text[i - 1] not in _GLUED_BEFORE and not text[i - 1].isalnum()))
                and (j == size or not (text[j].isalnum() or text[j] in _GLUED_AFTER))
                and not (j + 1 < size and text[j] == "." and text[j + 1].isalnum())
                and not taken.overlaps(i, j)
                and not firm_word_after(text, j, firm)
            ):
                more.append(Finding(i, j, "PERSON", words[text[i:j]], self.name))
        return sorted(found + more, key=lambda f: (f.start, f.end)) if more else found

    def find(self, text: str, ctx: MessageContext | None = None) -> list[Finding]:
        """The model's names in ``text``, whatever other detectors found; with ``ctx``, past
        its deadline TimeBudgetExceeded."""
        greeted = self._greeted(text) if self.model.words.line_greetings else []
        found = self._find(text, ctx)
        if greeted:
            found = sorted(
                found + [g for g in greeted if not any(f.start < g.end and g.start < f.end for f in found)],
                key=lambda f: (f.start, f.end),
            )
        return found

    def _greeted(self, text: str) -> list[Finding]:
        """A given name typed in lower case after a greeting that opens a line, alone before a
        comma, a "!" or the line's end ("Hi alex,"), in text that capitalises other words,
        where the model's lower-case features would not take it: the lexicon must know it as a
        given name written capitalised far more often than not ("alex", not "bill" or "hope")
        and no month or weekday ("june")."""
        out: list[Finding] = []
        greetings = self.model.words.line_greetings
        lex, dates = self.model.lexicon, self.model.words.dates
        # Where a greeting opens a line, before the pattern that reads it.
        starts: set[int]
        heads = self._greeting_heads
        if "\n" not in text:
            # One line (most chat and log lines): its first letters alone.
            if not text[:GREETING_HEAD].lower().startswith(heads):
                return out
            starts = {0}
        else:
            # One pass: the pattern starts with a line break, which the engine skips to in C.
            starts = {m.start() for m in self._greeting_at.finditer("\n" + text)}
        for at in sorted(starts):
            end = text.find("\n", at)
            m = GREETED.match(text, at, len(text) if end < 0 else end)
            if m is None or " ".join(m.group(1).lower().split()) not in greetings:
                continue
            word = m.group(2)
            entry = lex.get(word)
            if entry is not None and entry.given and entry.proper >= GREETED_PROPER and word not in dates:
                out.append(Finding(m.start(2), m.end(2), "PERSON", GREETED_SCORE, self.name))
        return out

    def _find(self, text: str, ctx: MessageContext | None) -> list[Finding]:
        seeds = self._seeds(text)
        if not seeds:
            return []
        # A name never spans lines, and a word's context is its line: only the lines where a
        # seed stands as a word of its own (not inside an address or an identifier) are scored.
        lines: set[tuple[int, int]] = set()
        a = b = -1  # the last line added: seeds on it need no search for its ends
        for s, e in _places(text, seeds):
            if a <= s and e <= b:
                continue
            if not _joined_before(text, s) and not _joined_after(text, e) and not _in_code(text, s, e):
                a, b = text.rfind("\n", 0, s) + 1, text.find("\n", e)
                b = len(text) if b < 0 else b
                lines.add((a, b))
        out: list[Finding] = []
        for a, b in sorted(lines):
            if ctx is not None:
                ctx.check(self.name)
            cands = self._line_candidates(text, a, b, only_relevant=True, seeds=seeds, ctx=ctx)
            scored = [(c, self.model.score(c.features)) for c in cands]
            out.extend(self._runs(text, scored))
        return _one_sense(text, out, self.model)

    def candidates(self, text: str) -> list[Candidate]:
        """Every word that may be part of a name, with its features (for fitting the model)."""
        out: list[Candidate] = []
        for a, b in _lines(text):
            out.extend(self._line_candidates(text, a, b, only_relevant=False, seeds=None))
        return out

    def _seeds(self, text: str) -> set[str]:
        """The words that could reach the threshold in the best of contexts."""
        words = set(WORD.findall(text))
        seeds, others = self._seed_words, self._other_words
        new = words.difference(seeds, others)
        if len(seeds) + len(others) + len(new) > WORDS_MAX:
            seeds.clear()
            others.clear()
            if len(words) > WORDS_MAX:
                return {w for w in words if self._seed(w)}
            new = words
        for w in new:
            (seeds if self._seed(w) else others).add(w)
        return words & seeds

    def _seed(self, w: str) -> bool:
        """Whether the word ``w`` could reach the threshold in the best of contexts."""
        if len(w) > LONGEST or (("'" in w or "’" in w) and CONTRACTION.search(w)):
            return False
        if w.lower() in self.model.words.bare_contractions:
            return False
        if w[0].isupper():
            k, kind = w.lower(), "upper" if w.isupper() else "cap"
        else:
            k, kind = w, "low"
        code = self.model.lexicon.names.get(k)
        if code is None:
            return len(w) > 1 and self.model.unknown_reaches(k, kind, seed=True)
        return bool(code >> (SEED_BIT + KINDS.index(kind)) & 1)

    def _shape(self, word: str) -> tuple[str | None, bool]:
        """The word's shape (``word_kind``) and whether it can reach the lower bar in the best of
        contexts, remembered."""
        kind = word_kind(word)
        if kind is not None and word.lower() in self.model.words.bare_contractions:
            kind = None
        known = (kind, kind is not None and self._relevant(word, kind))
        shapes = self._shapes
        if len(shapes) >= WORDS_MAX:
            shapes.clear()
        shapes[word] = known
        return known

    def _relevant(self, word: str, kind: str) -> bool:
        """Whether the word can reach the lower bar in the best of contexts."""
        m = self.model
        k = word.lower()
        code = m.lexicon.names.get(k)
        if code is not None:
            return bool(code >> (EXTEND_BIT + KINDS.index(kind)) & 1)
        return m.unknown_reaches(k, kind, seed=False)

    def _runs(self, text: str, scored: list[tuple[Candidate, float]]) -> Iterator[Finding]:
        """A name is a run of adjacent candidates (one space or a hyphen apart, or particles
        between: see _next_to) whose best word scores over the threshold and whose other words
        over the lower ``extend`` bar."""
        th, ext = self.model.threshold, self.model.extend
        # A word that goes before persons ("Hallo", "Dear", "Thanks") is never part of a name,
        # nor is a title ("Dr Okafor": the name is "Okafor").
        before = self.model.outside_runs
        scored = [(c, 0.0 if text[c.start : c.end].lower() in before else p) for c, p in scored]
        # A particle in lower case is no name word of its own: it may stand between two.
        if self._particles:
            scored = [(c, p) for c, p in scored if text[c.start : c.end] not in self._particles]
        start_th = self.model.threshold_at_start
        foreign_lines: dict[int, bool] = {}
        i = 0
        while i < len(scored):
            if scored[i][1] < th or (scored[i][1] < start_th and "initial" in scored[i][0].features):
                i += 1
                continue
            a = i
            # A word before the best one joins if it scores over ``extend``, unless it opens the
            # line or sentence and scores under the threshold ("Hallo Jörg Müller").
            while (
                a > 0
                and scored[a - 1][1] >= ext
                and self._next_to(text, scored[a - 1][0], scored[a][0])
                and (scored[a - 1][1] >= th or "initial" not in scored[a - 1][0].features)
            ):
                a -= 1
            b = i
            while (
                b + 1 < len(scored)
                and scored[b + 1][1] >= ext
                and self._next_to(text, scored[b][0], scored[b + 1][0])
            ):
                b += 1
            i = b + 1
            # A name written with capitals does not end in a lower-case word that is mostly
            # written so and only joined on the lower bar: "Rückruf von ..." is a German noun
            # and a preposition; "Kwame mensah" stays.
            while (
                b > a
                and scored[b][1] < th
                and "k_low" in scored[b][0].features
                and any("k_low" not in c.features for c, _ in scored[a:b])
                and _lower_case(text[scored[b][0].start : scored[b][0].end], self.model.lexicon)
            ):
                b -= 1
            # Nor does it start with a lower-case word that no list knows and that only joined
            # on the lower bar: "the account is undre Sarah Kirk" holds a slip, not a name. (The
            # word stood by the name: what is left needs no more support to stand alone, "tita
            # Bituin".)
            joined = a < b
            while (
                a < b
                and scored[a][1] < th
                and "k_low" in scored[a][0].features
                and "unknown" in scored[a][0].features
                and any("k_low" not in c.features for c, _ in scored[a + 1 : b + 1])
            ):
                a += 1
            if _names_a_place(text, scored[b][0].end, scored[a : b + 1], self.model.words):
                continue
            if firm_word_after(text, scored[b][0].end, self.model.firm_word):
                continue  # "Quigley Analytics", "Okonjo Property Group": a company's name
            if self._owned(text, scored[a : b + 1]):
                continue  # "our Skoda Octavia", "my Morphy Richards toaster": a thing one has
            if self._modifies(text, scored[a][0].start, scored[b][0].end):
                continue  # "the Hollis Bramwell watch", "a new Quentin Marlowe mattress": a brand
            if self._travelled_to(text, scored[a : b + 1]):
                continue  # "the school trip to Niagara Falls", "our flight to Adelaide": a place
            if self._paid_at(text, scored[a][0].start) and not text.startswith(
                ("'s", "’s"), scored[b][0].end
            ):
                continue  # "a transaction of $40 at Hollis Bramwell was declined": a shop
            last = text[scored[a][0].start : scored[b][0].end].rsplit("-", 1)
            if len(last) == 2 and last[1].lower() in self.model.words.street_ends:
                continue  # "Willy-Brandt-Platz": a street named after a person
            if a == b and text[scored[a][0].start : scored[a][0].end].lower() in self.model.words.place_words:
                continue  # a street's or a company's word alone ("... King Jr Blvd", "GmbH")
            if a == b and _place_start_alone(text, scored[a][0], self.model.words.place_starts):
                continue  # "on Avenida da Liberdade": the street's type, before its name
            if a == b and not joined and not self._stands_alone(text, scored[a][0]):
                continue
            if a == b and _unspoken(text, scored[a][0]):
                continue  # "DHCPACK", "ESMTPS": a protocol's word, not a name in capitals
            if any(_code_word(text[c.start : c.end], self.model.lexicon) for c, _ in scored[a : b + 1]):
                continue  # "TrackingPoller", "mrr": a program's word
            if not _known_name(text, scored[a : b + 1], self.model.words):
                # Each line's language is read once.
                line = text.rfind("\n", 0, scored[a][0].start) + 1
                foreign = foreign_lines.get(line)
                if foreign is None:
                    foreign = foreign_lines[line] = _foreign(text, scored[a][0].start, self.model.words)
                if foreign:
                    continue  # "Meine neue Telefonnummer", "prosimy o kontakt": another language
            best = max(p for _, p in scored[a : b + 1])
            yield Finding(scored[a][0].start, scored[b][0].end, "PERSON", min(best, MAX_SCORE), self.name)

    @staticmethod
    def _owned(text: str, run: Sequence[tuple[Candidate, float]]) -> bool:
        """Whether a run of capitalised words comes right after a possessive determiner (see
        OWNED_BY); a kin word between, in lower case, keeps the name ("my tía Ofelia")."""
        if any("k_cap" not in c.features for c, _ in run):
            return False
        start = run[0][0].start
        owner = WORD_BEFORE.search(text, max(0, start - 8), start)
        return owner is not None and owner.group(1).lower() in OWNED_BY

    def _modifies(self, text: str, start: int, end: int) -> bool:
        """Whether a run stands between a determiner and a noun, and so names a kind of thing
        ("the Hollis Bramwell watch", "a new Quentin Marlowe mattress", "every Dyson model"), unless
        the noun is one a person's name goes before (``person_nouns``: "the Lindgren novel",
        "the Pinto family"). The noun is a lower-case word whose class counts against a name
        before it (NOUN_CLASS): "the Smith who called" and "the Ruiz twins" keep their names."""
        words = self.model.words
        if not words.noun_determiners:
            return False
        m = NOUN_AFTER.match(text, end)
        if m is None or m.group(1) in words.person_nouns:
            return False
        c = word_class(self.model.classes, m.group(1))
        if c is None or self.model.weights.get(f"next_c{c}", 0.0) > NOUN_CLASS:
            return False
        m = DETERMINED.search(text, max(0, start - 40), start)
        if m is None:
            return False
        first, second = (m.group(1) or "").lower(), m.group(2).lower()
        if second in words.noun_determiners:
            return True
        return second in words.determiner_adjectives and first in words.noun_determiners

    def _travelled_to(self, text: str, run: Sequence[tuple[Candidate, float]]) -> bool:
        """Whether a run that starts with a place's name (``name_places``) is where someone
        goes or comes from: right after "to" or "from", in a sentence with a word of going
        (``travel_words``) at most five words before ("the school trip to Niagara Falls", "our
        flight to Adelaide", "moving from Austin"). "Sent it to Florence" keeps the name."""
        words = self.model.words
        if not words.travel_words:
            return False
        if text[run[0][0].start : run[0][0].end].lower() not in self.model.places:
            return False
        return _said_after(text, run[0][0].start, ("to", "from"), words.travel_words)

    def _paid_at(self, text: str, start: int) -> bool:
        """Whether a run is where one paid: right after "at", in a sentence with a word of paying
        (``payment_words``) at most five words before ("A transaction of $40 at Hollis Bramwell
        was declined", "you spent £12 at Quentin Marlowe"). Not before a possessive: "I'll pay
        you back at Priya's" is at her home."""
        words = self.model.words
        return bool(words.payment_words) and _said_after(text, start, ("at",), words.payment_words)

    def _next_to(self, text: str, a: Candidate, b: Candidate) -> bool:
        """Whether two words are next to each other in a name: one space or a hyphen apart,
        or one or two particles between a name word the lexicon knows and a capital ("Mateus
        da Silva"; "Rückruf von Anna" is a German noun and a preposition)."""
        gap = text[a.end : b.start]
        if gap in (" ", "-"):
            return True
        joins = self._particle_gap
        return (
            joins is not None
            and text[b.start].isupper()
            and not NAME_WORD.isdisjoint(a.features)
            and joins.fullmatch(gap) is not None
        )

    def _stands_alone(self, text: str, cand: Candidate) -> bool:
        """Whether a one-word run is more than a word no list knows (a typo, a brand, a German
        noun: "Custmer", "Parcelwise", "Grüße"): a title, a person word or a possessive says
        so, or the classes of the words around it add at least ``lone_context`` to its score
        (``lone_inside`` for a capitalised word inside a sentence)
        ("Oyelaran stated that", "i think kwame knows"), unless it is one slip away from an
        ordinary word ("paassword is", "biirth is") or ends as ordinary words do ("Descaling
        is", "Frobnicator should")."""
        f = cand.features
        # A word in lower case by a digit needs that support too ("ula fd12:3456::9").
        lower_by_digit = "k_low" in f and "digit_near" in f
        if ("unknown" not in f and not lower_by_digit) or not SUPPORT.isdisjoint(f):
            return True
        w = self.model.weights
        lift = sum(w.get(k, 0.0) * v for k, v in f.items() if k.startswith(LIFTING))
        # Inside a sentence a capital is the writer's own mark of a name ("anyone know why
        # Mbali stopped"), and the lower ``lone_inside`` bar holds; at a sentence's start or in
        # lower case it says nothing ("Rückruf von ...": a German noun).
        m = self.model
        word = text[cand.start : cand.end].lower()
        # (A word all in capitals on a line in both cases is a code as often: "promo code
        # FREESHIP", "booking XCHNMW".)
        inside = (
            "initial" not in f
            and "k_low" not in f
            and "upper_mixed" not in f
            and not self._capital_says_nothing(text, cand.start)
        )
        if inside and self._names_a_thing(text, cand.start, cand.end):
            return False
        bar = min(m.lone_inside, m.lone_context) if inside else m.lone_context
        if lift < bar:
            return False
        # A typing slip of an ordinary word is not capitalised inside a sentence ("video Ssundee",
        # "Lil Yachty"); elsewhere it may be ("Custmer:", "undre").
        return (inside or not _slip_of(word, self.model.lexicon)) and not any(
            e.end(word) for e in self.word_endings
        )

    def _names_a_thing(self, text: str, start: int, end: int) -> bool:
        """Whether a capitalised word beside a capitalised ordinary word names a company, a
        product or a place: the word after it ("Larkspur Home", "Westpoint Health Plan"), or the
        word before it, itself inside the sentence ("at Hotel Vltava", "the Jet Black Airpods";
        not "Where's Kishan?")."""
        lex = self.model.lexicon

        def thing_word(word: str) -> bool:
            # Capitalised and no more (a line that shouts capitalises all), mostly written in
            # lower case, and no name's particle ("Te Rangi", "Van Dyke").
            low = word.lower()
            capitalised = word[0].isupper() and not word.isupper()
            return capitalised and low not in self._particles and _lower_case(low, lex)

        m = WORD_AFTER.match(text, end)
        if m is not None and thing_word(m.group(1)):
            return True
        m = WORD_BEFORE.search(text, max(0, start - 40), start)
        if m is None or not thing_word(m.group(1)):
            return False
        gap = WORD_BEFORE_GAP.search(text, max(0, m.start(1) - 40), m.start(1))
        return gap is not None and not any(c in SENTENCE_END for c in gap.group(1))

    @staticmethod
    def _capital_says_nothing(text: str, start: int) -> bool:
        """Whether the word before ``start`` makes a capital no mark of a name: a place's
        preposition ("a startup in Yaba") or a German article or possessive, before which every
        noun is capitalised ("meine Bankverbindung", "die Überweisung")."""
        m = WORD_BEFORE.search(text, max(0, start - 24), start)
        return m is not None and m.group(1).lower() in CAPITAL_SAYS_NOTHING

    def _line_candidates(
        self,
        text: str,
        a: int,
        b: int,
        *,
        only_relevant: bool,
        seeds: set[str] | None,
        ctx: MessageContext | None = None,
    ) -> list[Candidate]:
        """The line's words that may be part of a name, with their features: with ``seeds``,
        only those that can end up in a name (see _reach); without, every word of a name's
        shape (for fitting)."""
        lex = self.model.lexicon
        words = [(m.start(), m.end(), m.group()) for m in WORD.finditer(text, a, b)]
        known = self._shapes.get
        shapes = [known(w) or self._shape(w) for _, _, w in words]
        reach = self._reach(text, words, shapes, seeds) if seeds is not None else None
        kinds = [kind for kind, _ in shapes]
        seg = text[a:b]
        labels = [(a + x, a + y) for x, y in placeholders(seg)] if "[" in seg or "<" in seg else []
        shouts = seg == seg.upper()
        line = _Line(text, a, b, words, kinds, labels, seg == seg.lower(), shouts)
        out: list[Candidate] = []
        lexicals = self._lexicals
        for i, ((s, e, w), (kind, relevant)) in enumerate(zip(words, shapes, strict=True)):
            if (
                kind is None
                or (only_relevant and not relevant)
                or (reach is not None and i not in reach)
                or _in_code(text, s, e)
            ):
                continue
            if (
                kind == "upper"
                and not shouts
                and (e - s <= SHORT_ACRONYM or (e - s <= ACRONYM and w.lower() not in lex.names))
            ):
                # A short word in capitals that no list knows, on a line written in both cases,
                # is an acronym ("CPI", "JCB", "SIRET"), not a name; so is one of three letters
                # or fewer that a list knows ("NAT", "SHA").
                continue
            f = lexicals.get(w)
            if f is None:
                f = lexical(w, kind, lex, self.model.words, self.model.famous, self.model.places)
                if len(lexicals) >= WORDS_MAX:
                    lexicals.clear()
                lexicals[w] = f
            if ctx is not None and len(out) % CHECK_EVERY == CHECK_EVERY - 1:  # a long line
                ctx.check(self.name)
            f = f.copy()  # the context adds its own features
            _context(line, self.model, i, f)
            out.append(Candidate(s, e, f))
        return out

    def _reach(
        self,
        text: str,
        words: list[tuple[int, int, str]],
        shapes: list[tuple[str | None, bool]],
        seeds: set[str],
    ) -> set[int]:
        """The indices of the words a name of the line can hold: a name is a run of words that
        _next_to joins around a word that reaches the threshold, and only a seed can; so only
        the words joined to a seed by gaps of one space or a hyphen, through words that reach the
        lower bar or name particles, need their features. Where a line holds one name among
        many other words (a log line, a JSON event), the others are never judged, and the runs
        found are the same as if they were."""
        reach: set[int] = set()
        n = len(words)
        particles = self._particles
        for i in range(n):
            if i in reach or words[i][2] not in seeds:
                continue
            reach.add(i)
            for step in (-1, 1):
                j = i
                while 0 <= j + step < n:
                    k = j + step
                    lo, hi = min(j, k), max(j, k)
                    if text[words[lo][1] : words[hi][0]] not in (" ", "-"):
                        break
                    if not (shapes[k][1] or words[k][2] in particles):
                        break
                    reach.add(k)
                    j = k
        return reach


@dataclass(frozen=True, slots=True)
class _Line:
    text: str
    start: int
    end: int
    words: list[tuple[int, int, str]]
    kinds: list[str | None]
    # Labels and pseudonyms an earlier scrub wrote ("[BANK_ACCOUNT]"), as offsets of text.
    labels: list[tuple[int, int]]
    # Whether the line is all in lower case, and all in capitals (worked out once a line).
    lower_case: bool
    shouts: bool


def _lines(text: str) -> Iterator[tuple[int, int]]:
    a = 0
    while True:
        b = text.find("\n", a)
        if b < 0:
            yield a, len(text)
            return
        yield a, b
        a = b + 1


def _context(line: _Line, model: NameModel, i: int, f: dict[str, float]) -> None:
    text, words, kinds = line.text, line.words, line.kinds
    lex, cw = model.lexicon, model.words
    s, e = words[i][0], words[i][1]
    kind = kinds[i]
    before = text[words[i - 1][1] : s] if i > 0 else text[line.start : s]
    after = text[e : words[i + 1][0]] if i + 1 < len(words) else text[e : line.end]
    prev = words[i - 1][2].lower() if i > 0 else ""
    nxt = words[i + 1][2].lower() if i + 1 < len(words) else ""
    if i == 0 or any(c in SENTENCE_END for c in before):
        f["initial"] = 1.0
    if prev.rstrip(".") in cw.titles and before.strip() in ("", "."):
        f["title"] = 1.0
    if prev in cw.place_before and not before.strip():
        f["place_before"] = 1.0
    if prev in cw.person_before and not before.strip(" ,"):
        f["person_before"] = 1.0
    if prev == "the" and not before.strip():
        f["the_before"] = 1.0
    if prev.rstrip(".") in cw.place_starts and before.strip() in ("", ".") and words[i - 1][2][0].isupper():
        f["place_prefix"] = 1.0
    if STATE_AFTER.match(text, e, line.end):
        f["state_after"] = 1.0
    if before.strip() == "&" or after.strip() == "&":
        f["ampersand"] = 1.0
    if text.startswith(("'s", "’s"), e):
        f["possessive"] = 1.0
    # Where a name is spoken to: "Priya, you nailed it", "where are my keys, Tomas?", "great
    # video Ines!", "kemal why do you ..." (the fit weighs each; ordinary words there stay
    # ordinary by their own features).
    gap = after.lstrip(" ")
    last = i + 1 == len(words) or any(c in SENTENCE_END for c in after)
    if gap[:1] == ",":
        f["comma_after"] = 1.0
        if "initial" in f:
            f["initial_comma"] = 1.0
    elif gap[:1] == "!":
        f["exclaim_after"] = 1.0
    if last and before.strip(" ") == ",":
        f["comma_last"] = 1.0
    if "initial" in f and _second_person_soon(line, i, cw.second_person):
        f["initial_you"] = 1.0
    # A list of names: the word across an "and" or a comma is a known given name ("kyungho
    # and shota", "Ropati, Dahye, Ramón").
    if _coordinated_with_given(line, i, lex):
        f["coord_given"] = 1.0
    if nxt in cw.place_words and not after.strip(" &"):
        f["place_after"] = 1.0
    if after[:1] in CODE_AFTER and after[1:2] not in ("", " "):
        f["code_after"] = 1.0
    if before[-1:] in CODE_BEFORE:
        f["code_before"] = 1.0
    if (
        any(c.isdigit() for c in before[-3:])
        or any(c.isdigit() for c in after[:3])
        # the next word is a code, an address or a number that starts with letters
        # ("ula fd12:3456::9", "ref AB12")
        or (after == " " and i + 1 < len(words) and DIGIT_GLUED.match(text, words[i + 1][1]) is not None)
    ):
        f["digit_near"] = 1.0
    elif line.labels and any(s - 2 <= y <= s or e <= x <= e + 2 for x, y in line.labels):
        # A label an earlier scrub wrote stands where a value stood, as near as a digit would
        # count: "ABA [BANK_ACCOUNT]" reads as "ABA 626244088" did, so that scrubbing twice
        # changes nothing.
        f["digit_near"] = 1.0
    if kind == "low" or kind == "upper":
        if kind == "low" and line.lower_case:
            f["no_capitals"] = 1.0
        elif kind == "upper":
            # Capitals on a line that shouts are a name's as much as any word's; on a line
            # written in both cases a word in capitals is mostly an acronym ("CPI", "SIRET").
            if line.shouts:
                f["shouting"] = 1.0
            else:
                f["upper_mixed"] = 1.0
    # The class of each neighbour word when only spaces part them: a coarse distributional
    # class (verbs, auxiliaries, pronouns, prepositions, greetings ...), so that the words
    # around a name count by their kind, not one by one: "emma said", "thanks obama",
    # "why did Kishan", "Niskanen should". A rare neighbour has no class: what it says is in
    # the neighbour features below.
    if nxt and not after.strip() and (c := word_class(model.classes, nxt)) is not None:
        f[f"next_c{c}"] = 1.0
    if prev and not before.strip() and (c := word_class(model.classes, prev)) is not None:
        f[f"prev_c{c}"] = 1.0
    for j, tag in ((i - 1, "prev"), (i + 1, "next")):
        if not 0 <= j < len(words) or kinds[j] != kind:
            continue
        if (before if tag == "prev" else after) not in (" ", "-"):
            continue
        f[tag + "_same"] = 1.0
        key = words[j][2].lower()
        other = lex.get(key)
        if other is None:
            if not lex.ordinary(key):
                f[tag + "_unknown"] = 1.0
            continue
        f[tag + "_proper"] = other.proper / 6.0
        if other.given:
            f[tag + "_given"] = 1.0
        if other.surname:
            f[tag + "_surname"] = 1.0


COORDINATORS = frozenset({"and", "&", "n", "or", "an", "nd"})


def _coordinated_with_given(line: _Line, i: int, lex: Lexicon) -> bool:
    """Whether the word across an "and" (or a comma) from word ``i`` is a given name in the same
    shape."""
    text, words, kinds = line.text, line.words, line.kinds
    n = len(words)
    others: list[int] = []
    if (
        i >= 2
        and words[i - 1][2].lower() in COORDINATORS
        and text[words[i - 2][1] : words[i][0]].count(" ") == 2
    ):
        others.append(i - 2)
    if (
        i + 2 < n
        and words[i + 1][2].lower() in COORDINATORS
        and text[words[i][1] : words[i + 2][0]].count(" ") == 2
    ):
        others.append(i + 2)
    if i >= 1 and text[words[i - 1][1] : words[i][0]] == ", ":
        others.append(i - 1)
    if i + 1 < n and text[words[i][1] : words[i + 1][0]] == ", ":
        others.append(i + 1)
    for j in others:
        if kinds[j] != kinds[i]:
            continue
        entry = lex.get(words[j][2].lower())
        if entry is not None and (entry.given or entry.surname) and entry.proper > 0:
            return True
    return False


def _second_person_soon(line: _Line, i: int, second: frozenset[str]) -> bool:
    """Whether one of the three words after word ``i`` of its sentence is "you", "your" ..."""
    text, words = line.text, line.words
    for j in range(i + 1, min(i + 4, len(words))):
        if any(c in SENTENCE_END for c in text[words[j - 1][1] : words[j][0]]):
            return False
        if words[j][2].lower() in second:
            return True
    return False


# Inside a token holding one of these, a word is part of an address, a path, a key or an
# identifier, never a name on its own ("sofia.duarte@example.com", "user_name=", "/home/ana").
# A method or a namespace joins words too: "UsersController#create", "Billing::Invoice".
CODE_MARKS = re.compile(r"[@/=_\\]|\w[.#]\w|\w::\w|\d|://")


# A token runs to the next space or closing mark after a word, and back to the last space or
# opening mark before it (``\s`` is ``str.isspace``: the same characters).
TOKEN_END = re.compile(r"[^\s\"')>\]},;]*")
# A "[" that opens a label the scrubber wrote ("name=[PERSON]+Dolan") is inside the token, as
# the value it stands for was: scrubbing twice reads the token as the first scrub did.
TOKEN_BEFORE = re.compile(r".*(?:[\s\"'(<{,;]|\[(?![A-Z][A-Z_]*\]))", re.DOTALL)
LABEL_AT = re.compile(r"\[[A-Z][A-Z_]*\]")
# How far back one search looks for the token's start; a longer token is walked in Python.
TOKEN_REACH = 64


def _in_code(text: str, s: int, e: int) -> bool:
    """Whether the word at s..e is part of a longer token that is code or an address."""
    b = TOKEN_END.match(text, e).end()  # type: ignore[union-attr]  # matches the empty string
    lo = s - TOKEN_REACH if s > TOKEN_REACH else 0
    m = TOKEN_BEFORE.match(text, lo, s)  # the last space or opening mark in text[lo:s]
    if m is not None:
        a = m.end()
    else:
        a = lo
        while a > 0 and not text[a - 1].isspace() and text[a - 1] not in "\"'(<{,;":
            if text[a - 1] == "[" and LABEL_AT.match(text, a - 1) is None:
                break
            a -= 1
    if a == s and b == e:
        return False
    return CODE_MARKS.search(text, a, b) is not None


# A word joined to the run by an ampersand: "Ben & Jerry", "Marks & Spencer".
AMPERSAND_BEFORE = re.compile(r"([^\W\d_]+) & $")
AMPERSAND_AFTER = re.compile(r" & ([^\W\d_]+)")


def _company_key(text: str, start: int, end: int) -> str:
    """The run's words in lower case, with a word an ampersand joins to it on either side."""
    words = WORD.findall(text, start, end)
    before = AMPERSAND_BEFORE.search(text, max(0, start - 40), start)
    after = AMPERSAND_AFTER.match(text, end)
    if before:
        words.insert(0, before.group(1))
    if after:
        words.append(after.group(1))
    return " ".join(words).lower()


# What stands between a word and the word before it (nothing at a line's start).
WORD_BEFORE_GAP = re.compile(r"[^\W\d_]([^\w\n]+)$")
# The capitalised word right before or right after a run.
WORD_BEFORE = re.compile(r"([^\W\d_]+) $")
WORD_AFTER = re.compile(r" ([^\W\d_]+)")
# The words of a sentence up to an "at" right before a run.
PAID_AT = re.compile(r"((?:[^.!?;:\n]|[.:](?=\d))*?)\bat[ \t]+$")
# Where a sentence ends: a mark, not the point or colon of a number ("$276.20", "3:15").
SENTENCE_BREAK = re.compile(r"[!?;\n]|[.:](?!\d)")


def _said_after(text: str, start: int, small: tuple[str, ...], cues: frozenset[str]) -> bool:
    """Whether the word right before ``start`` is one of ``small`` ("to", "at"), with one of
    ``cues`` among the five words before it in the same sentence (within 80 characters)."""
    end = start
    while end > 0 and text[end - 1] in " \t":
        end -= 1
    if end == start:
        return False
    for w in small:
        at = end - len(w)
        if at >= 0 and text[at:end].lower() == w and (at == 0 or not text[at - 1].isalnum()):
            break
    else:
        return False
    lo = max(0, at - 80)
    cut = lo
    for m in SENTENCE_BREAK.finditer(text, lo, at):
        cut = m.end()
    return any(w.lower() in cues for w in WORD.findall(text, cut, at)[-5:])


# A lower-case word right after a run, not a possessive's or a contraction's first part.
NOUN_AFTER = re.compile(r"[ \t]([a-z]+)\b(?!['’-])")
# The two words right before a run, on its line: "the new", "bought the".
DETERMINED = re.compile(r"(?<![^\W\d_])(?:([^\W\d_]+)[ \t]+)?([^\W\d_]+)[ \t]+$")


def _company_keys(text: str, start: int, end: int) -> list[str]:
    """The run's company key, and the same with the capitalised word next to it on either side
    (the model may leave a weak first word out of the run: "Grant Thornton")."""
    key = _company_key(text, start, end)
    keys = [key]
    before = WORD_BEFORE.search(text, max(0, start - 40), start)
    if before and before.group(1)[0].isupper():
        keys.append(before.group(1).lower() + " " + key)
    after = WORD_AFTER.match(text, end)
    if after and after.group(1)[0].isupper():
        keys.append(key + " " + after.group(1).lower())
    if text.startswith(("'s", "’s"), end):
        # A company named in the possessive ("McDonald's", "Trader Joe's"): the list holds it
        # so ("mcdonald s"), a run ends before the "'s".
        keys += [k + " s" for k in keys]
        after = WORD_AFTER.match(text, end + 2)
        if after and after.group(1)[0].isupper():
            keys.append(key + " s " + after.group(1).lower())  # "Victoria's Secret"
    return keys


def _names_a_place(text: str, end: int, run: list[tuple[Candidate, float]], cw: ContextWords) -> bool:
    """Whether a run of name words is a date, or the name of a place or a company: it is only
    weekdays and months, it begins with a
    place's first word ("San Diego"), holds or is followed by a street's, building's or
    company's word ("Martin Luther King Jr Blvd", "Hale Street"), or a state code follows it
    ("Raleigh, NC")."""
    first = run[0][0]
    if all(text[c.start : c.end].lower() in cw.dates for c, _ in run):
        return True  # "Thu Mar", "June": a date
    if cw.firm_after.match(text, end) is not None and not text[first.start : end].isupper():
        return True  # "Nilsson & Strandberg AB", "Wilson and Sons": a firm (not "DAVIDE AS USUAL")
    if cw.companies and not cw.companies.isdisjoint(_company_keys(text, first.start, end)):
        return True  # "Wells Fargo", "Ben & Jerry's": a company that bears a person's name
    if len(run) > 1 and text[first.start : first.end].lower() in cw.place_starts:
        return True
    before = text[max(0, first.start - 16) : first.start]
    words = before.rstrip(". ").rsplit(" ", 2)[-2:]
    # A particle may stand between ("Via del Corso", "Rua das Flores").
    head = words[0] if len(words) == 2 and words[1] in PLACE_PARTICLES else words[-1]
    if before.endswith(" ") and head[:1].isupper() and head.lower() in cw.place_starts:
        return True
    if any(text[c.start : c.end].lower() in cw.place_words for c, _ in run[1:]):
        return True
    if STATE_AFTER.match(text, end) and text[end : end + 1] == ",":
        return True
    if STATE_ZIP_AFTER.match(text, end):
        return True  # "atlanta, ga 30362": a state code in lower case, before a ZIP code
    # The next word, past a "Jr" or "Sr" ("Martin Luther King Jr Blvd").
    m = WORD.match(text, end + 1) if text[end : end + 1] == " " else None
    if m is not None and m.group().lower() in cw.titles:
        after = m.end() + (text[m.end() : m.end() + 1] == ".")
        m = WORD.match(text, after + 1) if text[after : after + 1] == " " else None
    return m is not None and m.group().lower() in cw.place_words


# Words after which a name is a place's, not a person's ("in Charlotte", "near Raleigh").
ONLY_PLACES_AFTER = frozenset(
    {"in", "into", "near", "inside", "outside", "throughout", "across", "en", "em", "nach", "dans"}
)
# Words after which a capital is no mark of a name (see _capital_says_nothing): the
# prepositions of places, and German articles and possessives (German capitalises every noun).
CAPITAL_SAYS_NOTHING = ONLY_PLACES_AFTER | frozenset(
    {
        "into",
        "via",
        "der",
        "die",
        "das",
        "den",
        "dem",
        "des",
        "ein",
        "eine",
        "einen",
        "einem",
        "einer",
        "eines",
        "meine",
        "meinen",
        "meiner",
        "mein",
        "ihre",
        "ihren",
        "ihr",
        "unsere",
        "unser",
        "seine",
        "sein",
        "keine",
        "kein",
        "deine",
        "dein",
    }
)
# The lexical features of a word some list knows as part of a person's name.
NAME_WORD = frozenset({"given", "surname", "famous"})
# A greeting at a line's start and one word in lower case alone after it (see _greeted); the
# greeting is checked against ``line_greetings``.
GREETED = re.compile(r"([A-Za-z]{1,12}(?: you)?)[ \t]+([a-z][a-z'’-]{1,30})[ \t]*(?=[,!]|\r?$)")
# How much more often the word must be written capitalised than not (the lexicon's ``proper``, a
# log ratio), and the score of such a name.
GREETED_PROPER = 1.0
GREETED_SCORE = 0.6
# How many first letters of a line may hold a greeting and the blank after it.
GREETING_HEAD = 12
# The longest word in capitals that _unspoken reads as an acronym, and the vowels it counts.
UNSPOKEN_LONGEST = 8
VOWELS = frozenset("AEIOUÀÁÂÃÄÅÆÈÉÊËÌÍÎÏÒÓÔÕÖØÙÚÛÜ")


def _unspoken(text: str, cand: Candidate) -> bool:
    """Whether a word in capitals that no list knows, alone on a line written in both cases, is
    too long for ``ACRONYM`` but has one vowel at most, as no name has: a protocol's or a
    program's word ("DHCPACK", "ESMTPS"); "WÓJCIK, AGNIESZKA" is a name."""
    f = cand.features
    if "upper_mixed" not in f or "unknown" not in f or cand.end - cand.start > UNSPOKEN_LONGEST:
        return False
    return sum(c in VOWELS for c in text[cand.start : cand.end]) <= 1


# A capitalised word next, maybe after a particle ("Avenida da Liberdade", "Via del Corso").
PLACE_PARTICLES = frozenset({"da", "de", "di", "do", "du", "das", "des", "dos", "del", "della", "la", "le"})
# Each particle is followed by a blank, so the order of the alternatives does not matter.
CAPITAL_NEXT = re.compile(rf" (?:(?:{'|'.join(sorted(PLACE_PARTICLES))}) )?[^\W\d_a-zß-ÿ]")


def _place_start_alone(text: str, cand: Candidate, starts: frozenset[str]) -> bool:
    """Whether a word that starts places' names ("Avenida", "Rue", "San") stands alone as a run
    before a capitalised word: the start of a place's name whose other words are no names."""
    return text[cand.start : cand.end].lower() in starts and CAPITAL_NEXT.match(text, cand.end) is not None


# Letters that make a syllable, in lower case ("y" too: "lynn", "glyn").
SYLLABIC = frozenset("aeiouyàáâãäåæèéêëìíîïòóôõöøùúûüýÿąęėįųūœ")
# An inner capital after this many letters or more starts a second word, not a name's second
# part ("McDonald", "MacArthur", "DeShawn", "LaToya", "DiCaprio" have two or three before it).
CAMEL_HEAD = 4
# The endings of words that name what a program's part does ("Poller", "Reconciler", "Handler").
CODE_ENDINGS = ("er", "or", "service", "manager", "handler", "controller", "client", "worker", "job")


def _code_word(word: str, lexicon: Lexicon) -> bool:
    """Whether a word is a program's, not a name: two ordinary words run together with a capital
    between ("TrackingPoller", "PaymentReconciler": a class in a log line), or a word in lower
    case with no vowel at all ("mrr", "pwd", "txn": a key or a column)."""
    if word.islower():
        return len(word) >= 2 and word.isalpha() and SYLLABIC.isdisjoint(word)
    if not word[:1].isupper():
        return False
    inner = next((i for i in range(1, len(word)) if word[i].isupper()), None)
    if inner is None or inner < CAMEL_HEAD or not word[inner + 1 :].islower():
        return False
    head, tail = word[:inner].lower(), word[inner:].lower()
    return lexicon.ordinary_word(head) and (lexicon.ordinary_word(tail) or tail.endswith(CODE_ENDINGS))


def _known_name(text: str, run: Sequence[tuple[Candidate, float]], cw: ContextWords) -> bool:
    """Whether the name lists or a title vouch for a run: a given name in it, a title before
    it (or at its start: "Frau Pärtzelt" may be read as one run), or two words or more that the
    lists know as parts of names."""
    if any("given" in c.features or "title" in c.features for c, _ in run):
        return True
    titles = cw.foreign_titles
    first = run[0][0]
    if text[first.start : first.end].lower() in titles:
        return True
    m = TOKEN_BEFORE_RUN.search(text, max(0, first.start - 16), first.start)
    if m is not None and m.group(1).lower().rstrip(".") in titles:
        return True
    return sum(not NAME_WORD.isdisjoint(c.features) for c, _ in run) >= 2


# The token before a run, one space before it ("Frau Jüttner", "Sr. Pérez", "Sig.ra Winther").
TOKEN_BEFORE_RUN = re.compile(r"(\S+) $")


def _foreign(text: str, at: int, cw: ContextWords) -> bool:
    """Whether the line around ``at`` is in another language than English: two or more of
    its words are small words of other languages, and more of them than of English's.
    There a capital says nothing (German capitalises every noun) and the name model, fitted
    on English, does not know the ordinary words."""
    if not cw.foreign_words:
        return False
    a = text.rfind("\n", 0, at) + 1
    b = text.find("\n", at)
    foreign, english = _small_words(text, a, len(text) if b < 0 else b, cw)
    if foreign + english < 2:
        # A short line ("Pozdrawiamy,") says little: the text around it decides.
        foreign, english = _small_words(text, max(0, at - LANGUAGE_REACH), at + LANGUAGE_REACH, cw)
    return foreign >= 2 and foreign > english


# How far around a short line the text is read for its language.
LANGUAGE_REACH = 400


def _small_words(text: str, a: int, b: int, cw: ContextWords) -> tuple[int, int]:
    """How many words of text[a:b] are small words of other languages, and of English."""
    words = [w.lower() for w in WORD.findall(text, a, b)]
    return sum(w in cw.foreign_words for w in words), sum(w in cw.english_words for w in words)


# Name particles that also mean "and": "Ana y Pedro", "Maria e João".
AND_PARTICLES = frozenset({"y", "e"})
# A word joined to another by "and", "or", "&" or a comma: "Raleigh or Charlotte".
COORDINATED_AFTER = re.compile(r"\s*(?:,|&|and\b|or\b)\s*([^\W\d_]+)")
COORDINATED_BEFORE = re.compile(r"([^\W\d_]+)\s*(?:,|&|\band|\bor)\s*$")


def _one_sense(text: str, found: list[Finding], model: NameModel) -> list[Finding]:
    """A place's name read as a person's where the same message shows it is the place: the
    same word stands after "in" or "near" elsewhere ("Charlotte ... rent is cheaper in
    Charlotte"), or is joined by "and", "or" or a comma to such a word ("Raleigh or
    Charlotte"). A word means one thing in one message; only one-word names that the place
    names list holds are read again. Words like "to" and "from" go before people as well
    ("send it to Jordan", "a note from Georgia") and say nothing here."""
    places = model.places
    lone = [f for f in found if text[f.start : f.end].lower() in places]
    if not lone:
        return found
    placed = _after_place_words(text, {text[f.start : f.end] for f in lone})
    if not placed:
        return found

    def reads_as_place(f: Finding) -> bool:
        if text[f.start : f.end] in placed:
            return True
        after = COORDINATED_AFTER.match(text, f.end)
        ahead = COORDINATED_BEFORE.search(text, max(0, f.start - 40), f.start)
        return any(m is not None and m.group(1) in placed for m in (after, ahead))

    dropped = {id(f) for f in lone if reads_as_place(f)}
    return [f for f in found if id(f) not in dropped] if dropped else found


def _after_place_words(text: str, words: set[str]) -> set[str]:
    """Those of ``words`` that stand somewhere in ``text`` right after a word that goes before
    places only, and not as a possessive ("in Jordan's team" is a person's team). One pass for
    all: the word is looked for ahead, not taken, so that each word before one is tried."""
    alternatives = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    pattern = rf"(?<![\w'’])([^\W\d_]+) +(?=({alternatives})(?![\w'’]))"
    return {m.group(2) for m in re.finditer(pattern, text) if m.group(1).lower() in ONLY_PLACES_AFTER}


def _beside(found: list[Finding], kept: list[Finding]) -> Iterator[Finding]:
    """The model's names that do not run over another entity's value that an earlier detector
    found (an address, an e-mail); over a rule's name they stand, and add the words the rule
    left out ("Whitaker" -> "Grant Whitaker")."""
    others = Spans([k for k in kept if k.entity != "PERSON"])
    for f in found:
        if not others.overlaps(f.start, f.end):
            yield f


# Between a name and the postcode after it: a comma maybe, blanks, a state code maybe.
_POSTCODE_GAP = re.compile(r",?[ \t]+(?:[A-Z]{2},?[ \t]+)?")
_POSTCODE_MARKS = ("[ZIP_CODE]", "<ZIP_CODE:")


def _before_postcode(text: str, end: int, zips: Collection[int]) -> bool:
    """Whether a postcode follows the name that ends at ``end``: then the name is the town of
    an address ("14 Clarendon Road, Cheltenham GL52 2LQ", "Springfield, IL 62704"), whether
    the postcode is still there (another detector found it) or scrubbing wrote its label
    (scrubbed text scrubbed again must not change)."""
    gap = _POSTCODE_GAP.match(text, end)
    if gap is None:
        return False
    at = gap.end()
    if text.startswith(_POSTCODE_MARKS, at):
        # A label, or a pseudonym as the hash operator writes it ("<ZIP_CODE:1a2b3c4d>").
        return any(a == 0 for a, _ in placeholders(text[at : at + 20]))
    return at in zips  # where a ZIP_CODE that another detector found starts


# A postcode of four or five digits (maybe after a country letter: "D-10115", "L-1234") right
# before a name, after a comma or at the start of a line: the name is the town of a European
# address ("9, rue Millet, 35801 Regnier", "Hauptstraße 5\n10115 Berlin").
# A postcode: four or five digits (maybe a country's letters first: "D-10115"), a Dutch one
# ("2803 VA", "2803VA"), a British one ("YO9 2UW", "SW1A 1AA") or a Canadian one ("N7A 4PD").
_POSTCODE = (
    r"(?:(?:[A-Z]{1,2}-)?\d{4,5}|\d{4}[ \t]?[A-Z]{2}|[A-Z]{1,2}\d[A-Z\d]?[ \t]?\d[A-Z]{2}"
    r"|[A-Z]\d[A-Z][ \t]?\d[A-Z]\d)"
)
_POSTCODE_AFTER_COMMA = re.compile(rf"[,;][ \t]*{_POSTCODE}[ \t]+$")
_POSTCODE_LINE_START = re.compile(rf"[ \t]*{_POSTCODE}[ \t]+")


def _after_postcode(text: str, start: int) -> bool:
    """Whether the name that starts at ``start`` is a town after its postcode (see above)."""
    if start < 2 or text[start - 1] not in " \t" or not text[start - 2].isalnum():
        return False
    line = text.rfind("\n", 0, start) + 1
    a = max(line, start - 40)
    if a == line and _POSTCODE_LINE_START.fullmatch(text, a, start):
        return True
    return _POSTCODE_AFTER_COMMA.search(text, a, start) is not None


# Between a street and the town after it: a comma, or the end of the line; and maybe the
# town's first word, which the name left out ("West" in "West Dale").
_STREET_GAP = re.compile(r"(?:,[ \t]*|[ \t]*\r?\n[ \t]*)(?:[A-Z][a-z]+[ \t]+)?$")
# What follows a town: the end of its line, a comma, a postcode or a state code.
_TOWN_END = re.compile(rf"[ \t]*(?:$|\r?\n|,|{_POSTCODE}\b|[A-Z]{{2}}\b)", re.MULTILINE)
_STREET_MARKS = ("[STREET_ADDRESS]", "<STREET_ADDRESS:")


def _after_street(text: str, start: int, end: int, streets: Collection[int]) -> bool:
    """Whether the name at start..end is the town after a street that a detector before this
    one found (the address grammar's or the patterns': "7 Shane Viaduct\nWest Dale",
    "Kvarngatan 8\nWest Andreaberg"), past a comma or on the next line, and ends its line or
    comes before a comma or a postcode; a label or a pseudonym that scrubbing wrote for the
    street counts the same ("[STREET_ADDRESS]\nWest Andreaberg\n[ZIP_CODE]": scrubbing twice
    changes nothing)."""
    gap = _STREET_GAP.search(text, max(0, start - 24), start)
    if gap is None or _TOWN_END.match(text, end) is None:
        return False
    at = gap.start()
    if at in streets:  # where a STREET_ADDRESS that another detector found ends
        return True
    before = text[max(0, at - 40) : at]
    return before.endswith(_STREET_MARKS[0]) or (before.endswith(">") and _STREET_MARKS[1] in before)


# The label or key before a ":" or "=", maybe quoted ("Company", '"location"'), and the
# value's opening quote after it, up to a name that holds no other quote, "=" or ":".
_LABEL_END = re.compile(r"""(?:^|(?<=[\s,;{(]))["']?([A-Za-z][\w.]{0,40})["']?[ \t]*\Z""")
_VALUE_START = re.compile(r"""[ \t]*["']?[^"'\n=:]*""")


def _in_thing_field(text: str, start: int, fields: frozenset[str]) -> bool:
    """Whether the name at ``start`` stands in the value of a label or a key that names a thing
    (``thing_fields``: "Company: Carter, Powell and Reeves", 'location="Lugo"'): on its line,
    after the label's ":" or "=", with no other label or quote between. A label before ":"
    opens its line or follows a field before it (",", ";", "{", "|"): a sentence's word before
    a colon labels nothing ("The seating plan: Esther Olsson and ...", "Quick note from the
    warehouse: the parcel for ...")."""
    lo = max(text.rfind("\n", 0, start) + 1, start - 120)
    sep = max(text.rfind(":", lo, start), text.rfind("=", lo, start))
    if sep < 0 or _VALUE_START.match(text, sep + 1, start).end() != start:  # type: ignore[union-attr]
        return False
    m = _LABEL_END.search(text, max(lo, sep - 48), sep)
    if m is None or m.group(1).lower() not in fields:
        return False
    if text[sep] == "=":
        return True
    before = text[text.rfind("\n", 0, m.start()) + 1 : m.start()].rstrip(" \t\"'")
    return not before.strip(" \t>*-•") or before[-1] in ",;{(|["


# What says that a word no list knows is a name when it stands alone: a title before it, a
# word that goes before persons, a possessive after it.
SUPPORT = frozenset({"title", "person_before", "possessive"})
# The context features that count towards a lone word's ``lone_context``: its neighbours'
# classes and the marks of a name spoken to.
LIFTING = ("prev_c", "next_c", "comma_after", "initial_comma", "exclaim_after", "comma_last", "initial_you")


def _slip_of(word: str, lexicon: Lexicon) -> bool:
    """Whether a lower-case word is a word mostly written in lower case with one letter too
    many, two letters swapped or, in a word of five letters or more, one letter missing
    ("paassword", "biirth", "wrold", "graant", "custmer"): the cue words' typing slips, read
    the other way."""
    if any(_lower_case(w, lexicon) for w in with_slips([word]) if w != word):
        return True
    if len(word) < 5 or not word.isalpha():
        return False
    return any(
        _lower_case(word[:i] + c + word[i:], lexicon) for i in range(1, len(word) + 1) for c in LETTERS
    )


LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _places(text: str, seeds: set[str]) -> Iterator[tuple[int, int]]:
    """Where the seed words stand in ``text`` (also inside longer words: the caller checks).

    Looking for each seed in turn is the fastest in a message of a few lines, but costs seeds x
    length: in a long message full of names, one pass over its words instead.
    """
    if len(seeds) * len(text) > FIND_BUDGET:
        for match in WORD.finditer(text):
            if match.group() in seeds:
                yield match.span()
        return
    for w in seeds:
        s = text.find(w)
        while s >= 0:
            yield s, s + len(w)
            s = text.find(w, s + len(w))


def _joined_before(text: str, s: int) -> bool:
    """Whether the word starting at s continues one before it ("Jean-Luc", "O'Neil")."""
    if s == 0:
        return False
    c = text[s - 1]
    return c.isalpha() or (c in "'’-" and s >= 2 and text[s - 2].isalpha())


def _joined_after(text: str, e: int) -> bool:
    """Whether the word ending at e goes on after it (a possessive does not: "Trump's")."""
    if e >= len(text):
        return False
    c = text[e]
    if c.isalpha():
        return True
    if c not in "'’-" or e + 1 >= len(text) or not text[e + 1].isalpha():
        return False
    return not (c in "'’" and text[e + 1] in "sS" and (e + 2 >= len(text) or not text[e + 2].isalpha()))
