"""Pattern rules (grammar/patterns.yaml): loading and checking, and what makes some of them
cheap: a twin on the standard library's engine for linear patterns, and a search for what a
text must hold before a pattern runs. The detector that runs them is ``patterns``.
"""

from __future__ import annotations

import hashlib
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import regex

from scrubber import rulefile
from scrubber.detectors.validators import VALIDATORS, Validator
from scrubber.dial import ENTITY_LEVELS
from scrubber.rulefile import RuleError

DEFAULT_WINDOW = 40
DEFAULT_CONTEXT_SCORE = 0.95
DEFAULT_PENALTY = 0.5


# Rules whose pattern also runs on the standard library's engine, on ASCII texts, without a
# timeout: a ``regex`` call with ``timeout=`` reads the process clock (a system call, ~1 us)
# two or three times, which costs more than the whole scan of a chat line. Only patterns that
# provably run in linear time are listed: every quantifier is bounded ({m,n}, ?), so a match is
# at most a few dozen characters and each start position tries a bounded number of paths, or,
# in ``phone``, the one unbounded ``[ \t]*`` run is followed by an item that cannot match a
# blank (a letter of "ext"/"x" or a digit), so each run of blanks is read a bounded number of
# times. None of them has a variable-width look-behind or ``\s`` (which the two engines read
# differently for \x1c-\x1f); on ASCII texts ``\d``, ``\w`` and ``\b`` mean the same in both, and
# the same again with ``re.ASCII``, which the twins are compiled with: then each is a table
# look-up, not a call into the Unicode database (15-25% faster on log lines).
# Each is pinned to the pattern it was checked on (a prefix of the SHA-256 of the rule's
# regex): a rule whose regex has changed runs on ``regex`` with its timeout until it is
# checked again and its new digest written here. On some of these patterns ``regex`` skips
# ahead faster than ``re``, so on long stretches the clock costs less than the slower scan:
# those twins run on stretches up to TWIN_MAX_CHARS (measured on 600-character e-mail bodies:
# us_zip4 7.4 us on ``re`` against 4.3 us on ``regex`` with its timeout; ipv4 8.7 against 8.1).
# The others run on stretches of any length (ANY_LENGTH): ``re`` is as fast or faster there
# (measured on PII-dense lines of 200-450 characters, 600-character e-mail bodies and 2 KB of
# e-mail prose, us per text, ``re`` against ``regex``: iban 6.1/17.6, 15.8/50.4, 58/164; phone
# 5.3/14.1, 11.0/18.9, 26/44; credit_card 5.5/8.8, 11.2/13.5, 28/29).
TWIN_MAX_CHARS = 200
ANY_LENGTH = sys.maxsize
_LINEAR = {
    # name: (digest of the regex, a class every match starts with, the longest stretch the
    # twin runs on). The twin starts with a look-ahead for that class: the pattern starts with
    # a look-behind, which leaves ``re`` trying the whole pattern at every position; the
    # look-ahead fails first (15-60% faster). The class is tested at every position: spelt
    # with ranges only, it is one bit test.
    "credit_card": ("990ea87c603c", "[0-9]", ANY_LENGTH),
    "iban": ("3db8b6588f47", "[A-Za-z]", ANY_LENGTH),
    "aba_routing": ("99069df88ad1", "[0-9]", ANY_LENGTH),
    "bank_account": ("f6f9c2f482f8", "[0-9]", ANY_LENGTH),
    "us_ssn_formatted": ("09edacb187bc", "[0-9]", ANY_LENGTH),
    "us_ssn_plain": ("d40a01280919", "[0-9]", ANY_LENGTH),
    "phone": ("44a8b4bf8f60", "[+(0-9]", ANY_LENGTH),
    "phone_cued": ("44a8b4bf8f60", "[+(0-9]", ANY_LENGTH),
    "us_zip_after_state": ("5380d5db125b", "[A-Z,]", ANY_LENGTH),
    "us_zip4": ("7d76cef2e7e8", "[0-9]", TWIN_MAX_CHARS),
    "us_zip_cued": ("370c25015255", "[0-9]", ANY_LENGTH),
    "postcode": ("2c7d3bcd32ab", "[A-Z]", TWIN_MAX_CHARS),
    "postcode_cued": ("57e03287a246", "[A-Za-z]", ANY_LENGTH),
    "ipv4": ("b8bae59cf9f6", "[0-9]", TWIN_MAX_CHARS),
    "ipv6": ("11fc26ad710a", "[0-9A-Fa-f]", TWIN_MAX_CHARS),
    "ipv6_short": ("a46803467807", "[0-9A-Fa-f:]", ANY_LENGTH),
}


# What a pattern needs somewhere in an ASCII text to match at all, as one search for the
# standard library's engine (bounded quantifiers only: linear), far cheaper than the pattern
# itself, which then runs only where it can match: from ``reach`` characters before where the
# search found it, since no match starts earlier (a match holds what is needed, its start at
# most ``reach`` characters before). Pinned like ``_LINEAR``. A search is fast when ``re`` can
# skip ahead to where it may match: when it starts with a literal (found like ``str.find``) or
# with one character class (``[0-9]{5}`` is a repeat, so it is written ``-(?<=[0-9]{5}-)``,
# which finds the same texts, or ``[0-9][0-9]{4}``); a look-behind after a literal is cheap.
# Why each is needed:
_NEEDS = {
    # A two-letter state code (capitals, or any case after a comma), a comma maybe, 1-3 blanks,
    # then the five digits of the value; the match starts where this does.
    "us_zip_after_state": (
        "5380d5db125b",
        r"[A-Z,](?:(?<=[A-Z])[A-Z]|(?<=,)[ \t]?[A-Za-z]{2}),?[ \t]{1,3}[0-9](?:[0-9]{4}|(?: [0-9]){4})",
        0,
    ),
    # The value itself (both shapes), without what is around it.
    "postcode": (
        "2c7d3bcd32ab",
        r"[A-Z](?:[A-Z]?[0-9][A-Z0-9]? ?[0-9][ABD-HJLNP-UW-Z]{2}"
        r"|[0-9][ABCEGHJ-NPRSTV-Z] ?[0-9][ABCEGHJ-NPRSTV-Z][0-9])",
        0,
    ),
    # The value itself, from its dash: the five digits before it.
    "us_zip4": ("7d76cef2e7e8", r"-(?<=[0-9]{5}-)[0-9]{4}", 5),
    # The value itself, from its first dash.
    "us_ssn_formatted": ("09edacb187bc", r"-(?<=[0-9]{3}-)[0-9]{2}-[0-9]{4}", 3),
    # Four numbers and three dots, from the first dot (after the first number, 1-3 digits).
    "ipv4": ("b8bae59cf9f6", r"\.(?<=[0-9]\.)[0-9]{1,3}\.[0-9]{1,3}\.[0-9]", 3),
    # Seven colons between hex digits, from the first colon (after the first group, 1-4 digits).
    "ipv6": ("11fc26ad710a", r":(?<=[0-9A-Fa-f]:)(?:[0-9A-Fa-f]{1,4}:){6}[0-9A-Fa-f]", 4),
    # "::", at most 34 characters in: at most seven groups of 1-4 hex digits and a colon before.
    "ipv6_short": ("a46803467807", "::", 34),
    # Two letters, a blank maybe, two digits: how every shape of the value starts. From the first
    # digit (few texts have one right after two letters), at most three characters in.
    "iban": ("3db8b6588f47", r"[0-9](?:(?<=[A-Za-z]{2}[0-9])|(?<=[A-Za-z]{2} [0-9]))[0-9]", 3),
    # Where a number starts: the value's first character, not after a word character or one of
    # the symbols of the look-behind (read from the character after it, so that the search
    # skips in C to a digit), then the start of the value: a phone number's first seven
    # characters are all digits, blanks and separators; a card's first 13 digits, with a blank
    # or two or a dash maybe between each two.
    "phone": ("44a8b4bf8f60", r"[+(0-9](?<![\w.+/-][+(0-9])[0-9 \t().\-/+]{6}", 0),
    "credit_card": ("990ea87c603c", r"[0-9](?<![\w.+/&!*%^~-][0-9])(?:(?: {1,2}|-)?[0-9]){12}", 0),
    # "@" or "%40", after the local part: one character and at most 63 more, each "%2B" three.
    "email": ("9ca6298f375c", "@|%40", 190),
}


def digest(source: str) -> str:
    """What ``_LINEAR`` pins a rule's regex by."""
    return hashlib.sha256(source.encode()).hexdigest()[:12]


def linear_twin(source: str, flags: int, first: str = "") -> re.Pattern[str]:
    """``source`` (``regex`` syntax) compiled for the standard library's engine, for ASCII texts.

    The two spell named groups and their back-references differently; the rest of what
    ``_LINEAR`` patterns use is common to both. ``first``, a class every match starts with,
    goes in front as a look-ahead.
    """
    source = re.sub(r"(?<!\\)\(\?<([A-Za-z_]\w*)>", r"(?P<\1>", source)
    source = re.sub(r"\\g<([A-Za-z_]\w*)>", r"(?P=\1)", source)
    if first:
        # A global flag such as "(?i)" must stay at the very start.
        head = re.match(r"\(\?[aiLmsux]+\)", source)
        at = head.end() if head else 0
        source = f"{source[:at]}(?={first}){source[at:]}"
    return re.compile(source, re.ASCII | (re.IGNORECASE if flags & regex.IGNORECASE else 0))


@dataclass(frozen=True, slots=True)
class PatternRule:
    name: str
    entity: str
    pattern: regex.Pattern[str]
    score: float
    validator: Validator | None
    raise_lists: frozenset[str]
    lower_lists: frozenset[str]
    requires: frozenset[str]
    cue_words: Mapping[str, tuple[str, ...]]
    window: int
    after: int
    context_score: float
    penalty: float
    min_digits: int = 0
    min_run: int = 0
    min_count: tuple[tuple[str, int], ...] = ()
    gate: tuple[str, ...] = ()
    anchored: bool = False
    # The same pattern on the standard library's engine, for ASCII texts (see ``_LINEAR``).
    linear: re.Pattern[str] | None = None
    # The longest stretch of text the twin runs on (see ``_LINEAR``).
    twin_chars: int = 0
    # What an ASCII text must contain for the pattern to match, and how far before where it
    # is found a match may start (see ``_NEEDS``).
    needs: re.Pattern[str] | None = None
    reach: int = 0
    # The group that is the value: "v" when the pattern names one, else the whole match.
    value_group: str | int = 0
    # How many lines after a line that asks for a value (a cue of ``requires``, no value) a
    # short reply may give it (see ``PatternDetector._answers``).
    answer_lines: int = 0
    # With ``answer_lines``: the value comes only in replies, maybe in parts, one a line ("30
    # June" / "and the year?" / "1971"); cues of these lists may stand in a reply ("the
    # month is May", "year 1988"). None: the rule also matches by its cues, one reply.
    answer_parts: frozenset[str] | None = None
    # The lists whose cue raises the score (``raise`` and ``requires``), worked out once: a
    # union of two sets is a new set, and ``_judge`` asks for it on every value it scores.
    raised_by: frozenset[str] = frozenset()
    # Every list the rule reads: ``raise``, ``lower`` and ``requires``.
    read_lists: frozenset[str] = frozenset()
    # A match no prefix of which validates is tried again where a number starts anew inside it,
    # at a "(" or "+" after a blank (a value may follow another: "536-22-8173 (415) 555-2671").
    # "groups": also at its second group of digits ("ending 4242 4539 1488 0343 6467": a card
    # after the last four of another).
    rescan: bool | str = False
    # A value typed over two lines (two chat messages): what its start looks like at the end of
    # a line, compiled to match only there (see ``PatternDetector._split``); None: off.
    split_head: re.Pattern[str] | None = None

    @property
    def gate_cased(self) -> tuple[str, ...]:
        """Gate strings with capitals: looked for as written."""
        return tuple(g for g in self.gate if g != g.lower())

    @property
    def gate_folded(self) -> tuple[str, ...]:
        """Gate strings without capitals: looked for in any case."""
        return tuple(g for g in self.gate if g == g.lower())


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
    "min_digits",
    "min_run",
    "min_count",
    "gate",
    "anchored",
    "answer_lines",
    "answer_parts",
    "rescan",
    "split_head",
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
        rules.append(build_rule(path, node, cues))
        if rules[-1].name in seen:
            raise RuleError(path, rulefile.line_of(node), f"duplicate pattern name {rules[-1].name!r}")
        seen.add(rules[-1].name)
    return rules


def build_rule(path: Path, node: Mapping[str, Any], cues: Mapping[str, Sequence[str]]) -> PatternRule:
    """One rule of a rule file (a mapping of the keys above), checked; errors name its line."""
    line = rulefile.line_of(node)
    rulefile.check_keys(path, node, _KEYS_REQUIRED, _KEYS_OPTIONAL)
    name = str(node["name"])

    def fail(reason: str) -> RuleError:
        return RuleError(path, line, f"pattern {name!r}: {reason}")

    entity = node["entity"]
    if entity not in ENTITY_LEVELS:
        raise fail(f"unknown entity {entity!r}")
    score = node["score"]
    if not isinstance(score, int | float) or not 0 <= score <= 1:
        raise fail("score must be a number between 0 and 1")
    flags = regex.IGNORECASE if node.get("ignorecase") else 0
    try:
        pattern = regex.compile(str(node["regex"]), flags | regex.VERSION0)
    except regex.error as exc:
        raise fail(f"invalid regex: {exc}") from exc
    validator = None
    if "validate" in node:
        validator = VALIDATORS.get(node["validate"])
        if validator is None:
            known = ", ".join(sorted(VALIDATORS))
            raise fail(f"unknown validator {node['validate']!r} (known: {known})")

    def lists(key: str) -> frozenset[str]:
        names = node.get(key)
        if names is None:
            return frozenset()
        if not isinstance(names, list) or not names:
            raise fail(f"{key} must be a list of cue list names")
        for cue in names:
            if cue not in cues:
                raise fail(f"unknown cue list {cue!r}")
        return frozenset(names)

    def number(key: str, default: int) -> int:
        value = node.get(key, default)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise fail(f"{key} must be a whole number >= 0")
        return value

    gate = node.get("gate", [])
    if not isinstance(gate, list) or not all(isinstance(g, str) and g for g in gate):
        raise fail("gate must be a list of strings")
    min_count = node.get("min_count", {})
    if not isinstance(min_count, Mapping) or not all(
        isinstance(k, str) and k and isinstance(v, int) and v > 0
        for k, v in min_count.items()
        if k != rulefile.LINE_KEY
    ):
        raise fail("min_count must map strings to whole numbers > 0")
    requires = lists("requires")
    anchored = node.get("anchored", False)
    if not isinstance(anchored, bool) or (anchored and not requires):
        raise fail("anchored must be true or false, and needs requires")
    rescan = node.get("rescan", False)
    if not isinstance(rescan, bool) and rescan != "groups":
        raise fail("rescan must be true, false or groups")
    split_head = None
    if "split_head" in node:
        if validator is None:
            raise fail("split_head needs validate")
        try:
            split_head = re.compile(rf"(?<![\w-])(?:{node['split_head']})[ \t]*(?=\r?\n)")
        except re.error as exc:
            raise fail(f"invalid split_head: {exc}") from exc
    answer_lines = number("answer_lines", 0)
    if answer_lines and not requires:
        raise fail("answer_lines needs requires")
    answer_parts = lists("answer_parts") if "answer_parts" in node else None
    if answer_parts is not None and not answer_lines:
        raise fail("answer_parts needs answer_lines")
    raise_lists, lower_lists = lists("raise"), lists("lower")
    used = raise_lists | lower_lists | requires
    source = str(node["regex"])
    pinned, first, twin_chars = _LINEAR.get(name, ("", "", 0))
    linear = linear_twin(source, flags, first) if pinned == digest(source) else None
    pinned, needs, reach = _NEEDS.get(name, ("", "", 0))
    needed = re.compile(needs) if pinned == digest(source) else None
    return PatternRule(
        name=name,
        entity=entity,
        pattern=pattern,
        score=float(score),
        validator=validator,
        raise_lists=raise_lists,
        lower_lists=lower_lists,
        requires=requires,
        cue_words={n: tuple(cues[n]) for n in sorted(used)},
        window=number("window", DEFAULT_WINDOW),
        after=number("after", 0),
        context_score=float(node.get("context_score", DEFAULT_CONTEXT_SCORE)),
        penalty=float(node.get("penalty", DEFAULT_PENALTY)),
        min_digits=number("min_digits", 0),
        min_run=number("min_run", 0),
        min_count=tuple((k, v) for k, v in min_count.items() if k != rulefile.LINE_KEY),
        gate=tuple(gate),
        anchored=anchored,
        linear=linear,
        twin_chars=twin_chars if linear is not None else 0,
        needs=needed,
        reach=reach,
        value_group="v" if "v" in pattern.groupindex else 0,
        answer_lines=answer_lines,
        answer_parts=answer_parts,
        raised_by=raise_lists | requires,
        read_lists=used,
        rescan=rescan,
        split_head=split_head,
    )
