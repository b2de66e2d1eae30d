"""The rules of grammar/rules.yaml: value shapes, rules, and the loaded grammar, checked as read."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import regex

from scrubber import rulefile
from scrubber.detectors.cues import CueIndex
from scrubber.detectors.tokens import Value
from scrubber.detectors.validators import VALIDATORS, Validator
from scrubber.detectors.validators.base import Memo
from scrubber.dial import ENTITY_LEVELS
from scrubber.rulefile import RuleError

# A decimal point between digits.
_DECIMAL = re.compile(r"\d\.\d")
# What a value that the tree gives to a cue loses against one a cue right before it names.
PARSE_PENALTY = 0.05


@dataclass(frozen=True, slots=True)
class Shape:
    name: str
    digits: frozenset[int]
    fragment: bool
    spelled: bool
    validator: Validator | None
    alnum: bool = False
    match: regex.Pattern[str] | None = None

    def accepts(self, value: Value, text: str, qualified: bool, memo: Memo) -> bool:
        if len(value.digits) not in self.digits or (value.spelled and not self.spelled):
            return False
        if value.alnum and not self.alnum:
            return False
        if self.match is not None and not self.match.fullmatch(text, value.start, value.end):
            return False
        if self.fragment and not (qualified or value.masked):
            return False
        if self.fragment and not value.masked and _DECIMAL.search(text, value.start, value.end) is not None:
            return False  # "score 0.97": a decimal number is no value's last digits
        if value.ext and self.validator is None:
            return False
        if self.validator is not None:
            probe = value.digits if value.spelled else text[value.start : value.end]
            if self.validator(probe, memo) <= 0:
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
    # Words right before a qualifier that point back at a value named in the sentence before
    # ("the one ending 7617", "it ends in 3390"; see SentenceReader._topic).
    pointers: frozenset[str] = frozenset()
    max_distance: int = 3
    carry_lines: int = 2
    # ... and at most this many sentences on: a message of one line never reaches its next line.
    carry_sentences: int = 12
    carry_max_tokens: int = 10
    # Cue lists of entities the policy leaves out (see ``only``).
    foreign: frozenset[str] = frozenset()
    entity_lists: frozenset[str] = field(init=False)
    # The rules for masked values ("•••• 4258"), which need no cue.
    masked_rules: tuple[GrammarRule, ...] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "entity_lists", frozenset(c for r in self.rules for c in r.cues))
        object.__setattr__(self, "masked_rules", tuple(r for r in self.rules if r.masked))

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
            pointers=self.pointers,
            max_distance=self.max_distance,
            carry_lines=self.carry_lines,
            carry_sentences=self.carry_sentences,
            carry_max_tokens=self.carry_max_tokens,
        )


_TOP_KEYS = {"rules", "shapes"}
_TOP_OPTIONAL = {"settings", "qualifiers", "blockers", "ignore", "links", "links_after", "pointers"}
_SETTINGS = {"max_distance", "carry_lines", "carry_sentences", "carry_max_tokens"}


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
        pointers=words("pointers"),
        max_distance=int(settings.get("max_distance", Grammar.max_distance)),
        carry_lines=int(settings.get("carry_lines", Grammar.carry_lines)),
        carry_sentences=int(settings.get("carry_sentences", Grammar.carry_sentences)),
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
