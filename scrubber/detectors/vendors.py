"""Vendor tokens (grammar/tokens.yaml): an issuer's prefix and a body of a known alphabet and
length, turned into pattern rules that run only on texts holding one of the prefixes."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from scrubber import rulefile
from scrubber.detectors.pattern_rules import PatternRule, build_rule, load_patterns
from scrubber.rulefile import RuleError

# Body alphabets by name, as character classes (without the brackets).
ALPHABETS = {
    "alnum": "A-Za-z0-9",
    "alnum_": "A-Za-z0-9_",
    "base64url": "A-Za-z0-9_-",
    "base64": "A-Za-z0-9+/",
    "hex": "0-9a-f",
    "upper": "A-Z0-9",
}
_LENGTH = re.compile(r"(\d+)(?:(-)(\d*))?")
_KEYS = {"name", "forms"}
_OPTIONAL = {"score", "min_digits"}
_FORM_KEYS = {"prefix", "body", "length"}


def load_pattern_rules(root: Path, cues: Mapping[str, Sequence[str]]) -> list[PatternRule]:
    """The rules of ``patterns.yaml`` and of ``tokens.yaml`` beside it (if there is one); a name
    in both stops with an error naming the token file."""
    rules = load_patterns(root / "patterns.yaml", cues)
    if not (root / "tokens.yaml").is_file():
        return rules
    rules += load_tokens(root / "tokens.yaml", cues)
    names = [r.name for r in rules]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise RuleError(root / "tokens.yaml", None, f"names also in patterns.yaml: {', '.join(twice)}")
    return rules


def load_tokens(path: Path, cues: Mapping[str, Sequence[str]]) -> list[PatternRule]:
    """The pattern rules of a token table; a bad entry stops with ``FILE:LINE: reason``."""
    data = rulefile.load(path)
    if not isinstance(data, Mapping) or not isinstance(data.get("tokens"), list):
        raise RuleError(path, rulefile.line_of(data), "expected a mapping with a 'tokens' list")
    rules = []
    for node in data["tokens"]:
        if not isinstance(node, Mapping):
            raise RuleError(path, None, "every token entry must be a mapping")
        rulefile.check_keys(path, node, _KEYS, _OPTIONAL)
        forms = node["forms"]
        if not isinstance(forms, list) or not forms:
            reason = f"token {node['name']!r}: forms must be a non-empty list"
            raise RuleError(path, rulefile.line_of(node), reason)
        alternatives = [_form(path, node, form) for form in forms]
        prefixes = sorted({p for form in forms for p in form["prefix"]})
        rule: dict[str, Any] = {
            rulefile.LINE_KEY: rulefile.line_of(node),
            "name": node["name"],
            "entity": "SECRET",
            "regex": "|".join(alternatives),
            "score": node.get("score", 0.95),
            "validate": "secret_token",
            "gate": prefixes,
        }
        if "min_digits" in node:
            rule["min_digits"] = node["min_digits"]
        rules.append(build_rule(path, rule, cues))
    return rules


def _form(path: Path, node: Mapping[str, Any], form: object) -> str:
    """One form as a pattern: the prefix, then the body; no letter or digit before, and none
    nor a body character after (the body is possessive: a run longer than ``length`` is no token)."""
    line = rulefile.line_of(form) or rulefile.line_of(node)
    if not isinstance(form, Mapping):
        raise RuleError(path, line, f"token {node['name']!r}: a form is a mapping")
    rulefile.check_keys(path, form, _FORM_KEYS, set())
    prefixes = form["prefix"]
    if not isinstance(prefixes, list) or not prefixes or not all(isinstance(p, str) and p for p in prefixes):
        raise RuleError(path, line, f"token {node['name']!r}: prefix must be a list of strings")
    body = str(form["body"])
    chars = ALPHABETS.get(body)
    if chars is None:
        if not (body.startswith("[") and body.endswith("]") and len(body) > 2):
            known = ", ".join(ALPHABETS)
            reason = f"token {node['name']!r}: body {body!r} is none of {known} nor a [class]"
            raise RuleError(path, line, reason)
        chars = body[1:-1]
    size = _LENGTH.fullmatch(str(form["length"]))
    if size is None:
        raise RuleError(path, line, f"token {node['name']!r}: length must be N, MIN-MAX or MIN-")
    low, dash, high = size.groups()
    count = f"{{{low},{high}}}" if dash else f"{{{low}}}"
    padding = "={0,2}" if body == "base64" else ""
    heads = "|".join(re.escape(p) for p in sorted(prefixes, key=len, reverse=True))
    after = f"[A-Za-z0-9{'=' if padding else ''}]|[{chars}]"
    return f"(?<![A-Za-z0-9])(?<v>(?:{heads})[{chars}]{count}+{padding})(?!{after})"
