"""Pattern detectors: regular expressions from grammar/patterns.yaml, validated and scored."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import regex

from scrubber import rulefile
from scrubber.detectors.cues import compile_cues
from scrubber.detectors.validators import VALIDATORS, Validator
from scrubber.dial import ENTITY_LEVELS
from scrubber.findings import Finding
from scrubber.rulefile import RuleError

DEFAULT_WINDOW = 40
DEFAULT_CONTEXT_SCORE = 0.95
DEFAULT_PENALTY = 0.5


class RegexTimeout(Exception):
    """A pattern ran past its time budget on some input."""

    def __init__(self, pattern: str) -> None:
        super().__init__(f"pattern {pattern!r} timed out")
        self.pattern = pattern


@dataclass(frozen=True, slots=True)
class PatternRule:
    name: str
    entity: str
    pattern: regex.Pattern[str]
    score: float
    validator: Validator | None
    raise_cues: regex.Pattern[str] | None
    lower_cues: regex.Pattern[str] | None
    requires: regex.Pattern[str] | None
    window: int
    after: int
    context_score: float
    penalty: float


_KEYS_REQUIRED = {"name", "entity", "regex", "score"}
_KEYS_OPTIONAL = {
    "validate",
    "raise",
    "lower",
    "requires",
    "window",
    "after",
    "ignorecase",
    "context_score",
    "penalty",
}


def load_patterns(path: Path, cues: Mapping[str, Sequence[str]]) -> list[PatternRule]:
    data = rulefile.load(path)
    if not isinstance(data, Mapping) or not isinstance(data.get("patterns"), list):
        raise RuleError(path, rulefile.line_of(data), "expected a mapping with a 'patterns' list")
    rules: list[PatternRule] = []
    seen: set[str] = set()
    for node in data["patterns"]:
        if not isinstance(node, Mapping):
            raise RuleError(path, None, "every pattern must be a mapping")
        rules.append(_build(path, node, cues))
        if rules[-1].name in seen:
            raise RuleError(path, rulefile.line_of(node), f"duplicate pattern name {rules[-1].name!r}")
        seen.add(rules[-1].name)
    return rules


def _build(path: Path, node: Mapping[str, Any], cues: Mapping[str, Sequence[str]]) -> PatternRule:
    line = rulefile.line_of(node)
    rulefile.check_keys(path, node, _KEYS_REQUIRED, _KEYS_OPTIONAL)
    name = str(node["name"])
    entity = node["entity"]
    if entity not in ENTITY_LEVELS:
        raise RuleError(path, line, f"pattern {name!r}: unknown entity {entity!r}")
    score = node["score"]
    if not isinstance(score, int | float) or not 0 <= score <= 1:
        raise RuleError(path, line, f"pattern {name!r}: score must be a number between 0 and 1")
    flags = regex.IGNORECASE if node.get("ignorecase") else 0
    try:
        pattern = regex.compile(str(node["regex"]), flags | regex.VERSION0)
    except regex.error as exc:
        raise RuleError(path, line, f"pattern {name!r}: invalid regex: {exc}") from exc
    validator = None
    if "validate" in node:
        validator = VALIDATORS.get(node["validate"])
        if validator is None:
            raise RuleError(
                path,
                line,
                f"pattern {name!r}: unknown validator {node['validate']!r} "
                f"(known: {', '.join(sorted(VALIDATORS))})",
            )

    def cue_pattern(key: str) -> regex.Pattern[str] | None:
        names = node.get(key)
        if names is None:
            return None
        if not isinstance(names, list) or not names:
            raise RuleError(path, line, f"pattern {name!r}: {key} must be a list of cue list names")
        words: list[str] = []
        for cue in names:
            if cue not in cues:
                raise RuleError(path, line, f"pattern {name!r}: unknown cue list {cue!r}")
            words.extend(cues[cue])
        return compile_cues(words)

    return PatternRule(
        name=name,
        entity=entity,
        pattern=pattern,
        score=float(score),
        validator=validator,
        raise_cues=cue_pattern("raise"),
        lower_cues=cue_pattern("lower"),
        requires=cue_pattern("requires"),
        window=int(node.get("window", DEFAULT_WINDOW)),
        after=int(node.get("after", 0)),
        context_score=float(node.get("context_score", DEFAULT_CONTEXT_SCORE)),
        penalty=float(node.get("penalty", DEFAULT_PENALTY)),
    )


def _last_cue(cue: regex.Pattern[str] | None, window: str) -> int:
    """End offset in ``window`` of the last cue found there, or -1."""
    if cue is None:
        return -1
    last = -1
    for m in cue.finditer(window):
        last = m.end()
    return last


class PatternDetector:
    """Runs a set of pattern rules; one detector per policy, built once."""

    name = "pattern"

    def __init__(self, rules: Iterable[PatternRule], *, timeout: float = 0.5) -> None:
        self.rules = tuple(rules)
        self.entities = frozenset(r.entity for r in self.rules)
        self.timeout = timeout

    def detect(self, text: str) -> list[Finding]:
        out: list[Finding] = []
        for rule in self.rules:
            try:
                matches = list(rule.pattern.finditer(text, timeout=self.timeout))
            except TimeoutError as exc:
                raise RegexTimeout(rule.name) from exc
            for m in matches:
                finding = self._judge(rule, text, m)
                if finding is not None:
                    out.append(finding)
        return out

    def _judge(self, rule: PatternRule, text: str, m: regex.Match[str]) -> Finding | None:
        group = "v" if "v" in rule.pattern.groupindex else 0
        start, end = m.span(group)
        value = text[start:end]
        if rule.validator is not None:
            valid = rule.validator(value)
            if valid <= 0:
                return None
            end = start + valid
        score = rule.score
        if rule.raise_cues or rule.lower_cues or rule.requires:
            line_start = text.rfind("\n", max(0, start - rule.window), start) + 1
            before = text[max(line_start, start - rule.window) : start]
            after = text[end : end + rule.after] if rule.after else ""
            required = rule.requires
            if (
                required is not None
                and _last_cue(required, before) < 0
                and (not after or required.search(after) is None)
            ):
                return None
            pos = max(_last_cue(rule.raise_cues, before), _last_cue(required, before))
            neg = _last_cue(rule.lower_cues, before)
            if pos >= 0 and pos >= neg:
                score = max(score, rule.context_score)
            elif neg >= 0:
                score -= rule.penalty
            elif after and rule.raise_cues is not None and rule.raise_cues.search(after):
                score = max(score, rule.context_score)
        return Finding(start, end, rule.entity, score, f"pattern:{rule.name}")
