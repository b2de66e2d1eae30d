"""Pattern detectors: regular expressions from grammar/patterns.yaml, validated and scored.

A rule is a value pattern plus data that says when it is worth running (``min_digits``,
``gate``), which cue words around a match raise or lower its score (``raise``, ``lower``), and
which are required (``requires``: the pattern then only runs just after such a cue; with
``anchored`` it must match right where the cue ends, as in ``password: hunter2``; with
``answer_lines`` also on the short reply lines that follow a line asking for such a value, as
in ``Agent: and your date of birth?`` then ``Customer: 03/22/1979``). Cues come from one scan
of the text per message (:class:`~scrubber.detectors.cues.CueIndex`).
"""

from __future__ import annotations

import dataclasses
import heapq
import re
import time
from collections.abc import Callable, Iterable, Iterator, Sequence

import regex

from scrubber.detectors import REGEX_TIMEOUT, MessageContext, TimeBudgetExceeded
from scrubber.detectors.cues import CueHit, CueHits, CueIndex
from scrubber.detectors.pattern_rules import PatternRule
from scrubber.detectors.tokens import SPELLED
from scrubber.detectors.validators import VALIDATORS
from scrubber.detectors.validators.base import Memo, spaced_date
from scrubber.findings import Finding
from scrubber.masking import placeholders

# How far past its cue window a value of a ``requires`` rule may reach.
MAX_VALUE_CHARS = 64
# The time budget of one pattern run is for this many characters; a longer text gets
# proportionally more. Catastrophic backtracking blows any such budget, a long text should not.
TIMEOUT_CHARS = 65536
_DIGIT_BYTES = b"0123456789"
# How many combinations of woken rules a detector remembers (see ``PatternDetector._merged``).
MERGED_MAX = 4096
_NONE: frozenset[int] = frozenset()
# A reply line (see ``PatternDetector._answers``): at most this many words after its speaker
# label ("Customer:", "Rep (Ana):", "> Caller:"), the value's words included.
ANSWER_MAX_WORDS = 10
# A value given in parts in replies (``answer_parts``) has this many at most: day, month, year.
ANSWER_PARTS = 3
# A speaker label: a few words, no digit first, then a colon and a blank. Bounded: linear.
_SPEAKER = re.compile(r"[ \t>]*[^\W\d][\w .'()-]{0,30}?:[ \t]")
# A line that asks for a value: a question, a request ("Please enter the routing number",
# "I'll need her licence number") or a label that ends the line ("Date of birth:"). A line that
# only names one ("Account Manager | Northwind", a signature's job title) asks for nothing, and
# the line under it is no reply.
_ASKS = re.compile(
    r"\?|:[ \t\r]*$|\b(?:please|pls|plz|enter|provide|confirm|verify|need|give|type|send|share|"
    r"tell|what|which|may i|can i|could i|can you|could you)\b",
    re.IGNORECASE,
)
_NO_LISTS: frozenset[str] = frozenset()
# Words of a request for more than one value (see ``PatternDetector._answers``).
_SEVERAL = re.compile(r"\b(?:both|each|all|every|dates|numbers|dobs|birthdates)\b", re.IGNORECASE)
# The head of a line that continues a value typed on the line before (``PatternDetector._split``):
# a quote mark, a time or a bracketed stamp, and a speaker's label ("guest |", "Ana (customer):").
_NEXT_LABEL = re.compile(
    r"[ \t>]*(?:\[[^\]\n]{1,24}\][ \t]*)?(?:\d{1,2}:\d{2}(?::\d{2})?[ \t]+)?"
    r"(?:[^\W\d][\w .'()-]{0,30}?[ \t]*[:|][ \t]+)?"
)
# ... and the groups of letters and digits that continue it.
_TAIL_GROUPS = re.compile(r"[A-Za-z0-9]{1,4}(?: [A-Za-z0-9]{1,4}){0,8}(?![\w-])")
# A value spelt out in a reply (see ``PatternDetector._spelled_out``): its words, the letters of
# the spelling alphabet and the digits said in words, and the words that may stand between.
_SPELL_WORD = re.compile(r"[A-Za-z0-9]+(?:['’-][A-Za-z]+)?|[^\sA-Za-z0-9]+")
_ALPHABET = (
    "alpha", "alfa", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india",
    "juliet", "juliett", "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo",
    "sierra", "tango", "uniform", "victor", "whiskey", "whisky", "x-ray", "xray", "yankee", "zulu",
)  # fmt: skip
_SPELLING = {**{w: w[0].upper() for w in _ALPHABET}, **SPELLED}
_AS_IN = re.compile(r"(?:(?<=^[A-Za-z])|(?<=[^A-Za-z][A-Za-z])) as in [A-Za-z]+")
_SPELL_FILLERS = frozenset(
    {"um", "umm", "uh", "er", "erm", "then", "and", "it's", "its", "is", "it", "that's"}
)
# A number read out in groups of digits, one blank between groups (see ``PatternDetector._read_out``).
_READ_OUT = re.compile(r"(?<![\w.,-])\d{1,4}(?:[ \t]\d{1,4}){1,16}(?![\w,-]|\.\d)")
_DIGIT = re.compile(r"\d")
_PHONE_GROUPS = VALIDATORS["phone_formatted"]
# A linear twin whose match starts at most this many characters before what it needs (see
# ``_near``) is tried only there; one that may start further back scans the text from there.
NEAR_REACH = 8


class RegexTimeout(Exception):
    """A pattern ran past its time budget on some input."""

    def __init__(self, pattern: str) -> None:
        super().__init__(f"pattern {pattern!r} timed out")
        self.pattern = pattern


# A rule's pre-checks: min_digits, min_run, min_count, gate (any case), gate (as written).
_Check = tuple[int, int, tuple[tuple[str, int], ...], tuple[str, ...], tuple[str, ...]]
# A woken rule, what is left to check of it, and what an ASCII text needs for it.
_Plan = tuple[PatternRule, _Check | None, re.Pattern[str] | None]

# Digits stay, spaces and dashes between digits vanish, anything else ends a run.
_RUNS = {i: (chr(i) if chr(i).isdigit() else None if chr(i) in " \t-" else " ") for i in range(128)}
# The same for an ASCII text as bytes (faster): blanks and dashes deleted, non-digits to spaces.
_RUN_BYTES = bytes(c if 48 <= c <= 57 else 32 for c in range(256))


class _Text:
    """One message and what rules ask of it, each worked out at most once."""

    __slots__ = ("_cues", "_digits", "_index", "_lower", "_run", "ascii", "lowered", "memo", "text")

    def __init__(self, text: str, index: CueIndex, memo: Memo) -> None:
        self.text = text
        self.memo = memo
        self.ascii = text.isascii()
        self._index = index
        self._digits = -1
        self._run = -1
        self._lower: str | None = None
        self._cues: CueHits | None = None
        # The findings a cue lowered, and their rules (see ``PatternDetector._spend``).
        self.lowered: list[tuple[Finding, PatternRule]] = []

    @property
    def digits(self) -> int:
        if self._digits < 0:
            # Patterns' \d also matches digits of other scripts; outside ASCII, assume the most.
            text = self.text
            if self.ascii:
                self._digits = len(text) - len(text.encode("ascii").translate(None, _DIGIT_BYTES))
            else:
                self._digits = len(text)
        return self._digits

    @property
    def run(self) -> int:
        """The longest run of digits, spaces and dashes between them not counted.

        An upper bound: characters outside ASCII are kept and may lengthen a run, never shorten it.
        """
        if self._run < 0:
            if self.ascii:
                runs = self.text.encode("ascii").translate(_RUN_BYTES, b" \t-").split()
                self._run = max(map(len, runs), default=0)
            else:
                self._run = max(map(len, self.text.translate(_RUNS).split()), default=0)
        return self._run

    def admits(self, check: _Check) -> bool:
        """Whether a rule can match here at all, by cheap counts (no pattern is run)."""
        min_digits, min_run, min_count, folded, cased = check
        # A run of digits is never longer than the count of all digits: count first, it is cheaper.
        least = min_digits if min_digits > min_run else min_run
        if least and self.digits < least:
            return False
        if min_run and self.run < min_run:
            return False
        for s, n in min_count:
            if self.text.count(s) < n:
                return False
        if not (folded or cased):
            return True
        if folded:
            lower = self.lower
            for g in folded:
                if g in lower:
                    return True
        text = self.text
        return any(g in text for g in cased)

    @property
    def lower(self) -> str:
        if self._lower is None:
            self._lower = self.text.lower()
        return self._lower

    @property
    def cues(self) -> CueHits:
        if self._cues is None:
            self._cues = self._index.scan(self.text)
        return self._cues


class PatternDetector:
    """Runs a set of pattern rules; one detector per policy, built once."""

    name = "pattern"

    def __init__(self, rules: Iterable[PatternRule], *, timeout: float = REGEX_TIMEOUT) -> None:
        self.rules = tuple(rules)
        self.entities = frozenset(r.entity for r in self.rules)
        self.timeout = timeout
        # Whether any rule finds addresses, which the message's policy may spare (ctx.ips).
        self._ips = "IP_ADDRESS" in self.entities
        words: dict[str, tuple[str, ...]] = {}
        for r in self.rules:
            words.update(r.cue_words)
        self.cues = CueIndex(words)
        # The entities each cue list announces: those of the rules a cue of it raises.
        announcing: dict[str, set[str]] = {}
        for r in self.rules:
            for name in r.raised_by:
                announcing.setdefault(name, set()).add(r.entity)
        self._announcing = {name: frozenset(e) for name, e in announcing.items()}
        self._announces: dict[frozenset[str], frozenset[str]] = {}
        # Which rules a message can wake, so that a message wakes few and the rest cost nothing.
        # A rule that requires cues is woken by a cue of one of those lists; one with a gate, by
        # one of its gate strings (but when it also needs digits and a gate is one character,
        # found in most texts, by its digits); any other, by the count of digits (the rules for
        # each count are worked out here). A woken rule still has all its pre-checks made
        # (``_Text.admits``) before its pattern runs, but for what woke it: its digit count, its
        # gate, or its cue lists (the check is None when nothing is left).
        folded: dict[str, set[int]] = {}
        cased: dict[str, set[int]] = {}
        by_list: dict[str, set[int]] = {}
        by_digits: list[tuple[int, int, int]] = []
        checks: list[_Check | None] = []
        for i, r in enumerate(self.rules):
            least = max(r.min_digits, r.min_run)
            # A one-character gate ("-") is in most texts: such a rule is woken by its digits.
            gated = bool(r.gate) and (not least or min(map(len, r.gate)) > 1)
            check: _Check
            if r.requires:
                check = (r.min_digits, r.min_run, r.min_count, r.gate_folded, r.gate_cased)
            elif gated:
                check = (r.min_digits, r.min_run, r.min_count, (), ())
            else:
                check = (0, 0, r.min_count, r.gate_folded, r.gate_cased)
            checks.append(check if any(check) else None)
            if r.requires:
                for name in r.requires:
                    by_list.setdefault(name, set()).add(i)
            elif gated:
                for g in r.gate_folded:
                    folded.setdefault(g, set()).add(i)
                for g in r.gate_cased:
                    cased.setdefault(g, set()).add(i)
            else:
                by_digits.append((least, r.min_run, i))
        # What the loop over woken rules needs of each: the rule, what is left to check, and
        # what an ASCII text must contain.
        plans = tuple((r, check, r.needs) for r, check in zip(self.rules, checks, strict=True))
        self._plans = plans
        # Woken by digits: the rules for each (digit count, longest run) bucket, the pair read as
        # one index; the run is only worked out where some rule's min_run can be met.
        self._most_digits = max((least for least, _, _ in by_digits), default=0)
        self._most_run = max((run for _, run, _ in by_digits), default=0)
        self._least_run = min((run for _, run, _ in by_digits if run), default=0)
        self._by_count_ix = tuple(
            tuple(i for least, run, i in by_digits if least <= n and run <= m)
            for n in range(self._most_digits + 1)
            for m in range(self._most_run + 1)
        )
        self._by_count = tuple(tuple(plans[i] for i in ix) for ix in self._by_count_ix)
        # Which gate strings a text holds, in one pass each (see ``_GateScan``), not one ``in``
        # for each string (~200).
        self._folded = _GateScan(folded)
        self._cased = _GateScan(cased)
        self._by_list = {name: frozenset(ix) for name, ix in by_list.items()}
        # The rules woken by a digit count, cue lists and gates, in rule order: a stream has few
        # such combinations, so each is sorted once (bounded: the combinations are the input's).
        self._merged: dict[tuple[int, frozenset[str], frozenset[int]], tuple[_Plan, ...]] = {}

    def _woken(self, doc: _Text) -> Sequence[_Plan]:
        """The rules worth trying on ``doc``, in rule order."""
        digits = min(doc.digits, self._most_digits) if self._most_digits else 0
        run = min(doc.run, self._most_run) if self._least_run and digits >= self._least_run else 0
        bucket = digits * (self._most_run + 1) + run
        gated = self._gated(doc)
        lists = doc.cues.lists if self._by_list else _NO_LISTS
        if not lists and not gated:
            return self._by_count[bucket]
        key = (bucket, lists, gated)
        woken = self._merged.get(key)
        if woken is None:
            more = set(self._by_count_ix[bucket]) | gated
            for name in lists:
                more |= self._by_list.get(name, _NONE)
            woken = tuple(self._plans[i] for i in sorted(more))
            if len(self._merged) >= MERGED_MAX:
                self._merged.clear()
            self._merged[key] = woken
        return woken

    def _gated(self, doc: _Text) -> frozenset[int]:
        """The rules one of whose gate strings is in ``doc``."""
        return self._folded.woken(doc.lower) | self._cased.woken(doc.text)

    def detect(self, text: str, ctx: MessageContext) -> list[Finding]:
        """Findings in ``text``; past ``ctx.deadline`` (``time.monotonic()``) raise TimeBudgetExceeded."""
        deadline = ctx.deadline
        doc = _Text(text, self.cues, ctx.memo)
        out: list[Finding] = []
        timeout = self.timeout * max(1.0, len(text) / TIMEOUT_CHARS)
        ascii_text = doc.ascii
        for rule, check, needs in self._woken(doc):
            if check is not None and not doc.admits(check):
                continue
            start = 0
            found = None
            if needs is not None and ascii_text:
                found = needs.search(text)
                if found is None:
                    continue
                start = max(0, found.start() - rule.reach)
            budget = timeout
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeBudgetExceeded(rule.name)
                budget = min(timeout, left)
            try:
                self._scan(rule, doc, out, budget, start, found)
            except TimeoutError as exc:
                if budget < timeout:
                    raise TimeBudgetExceeded(rule.name) from exc
                raise RegexTimeout(rule.name) from exc
        if doc.lowered:
            out = self._spend(doc, out, ctx.min_score)
        if self._ips and out:
            out = [f for f in out if f.entity != "IP_ADDRESS" or ctx.ips.masks(text[f.start : f.end])]
        return out

    def _scan(
        self,
        rule: PatternRule,
        doc: _Text,
        out: list[Finding],
        timeout: float,
        start: int = 0,
        found: re.Match[str] | None = None,
    ) -> None:
        """Judge the matches of ``rule`` in ``doc``, none of which starts before ``start``;
        ``found``: where ``rule.needs`` is first found, if it was looked for."""
        text = doc.text
        if rule.answer_lines and "\n" in text:
            first = len(out)
            if rule.answer_parts is None:
                self._scan_cued(rule, doc, out, timeout, start, found)
            self._answers(rule, doc, out, first, timeout)
            return
        if rule.answer_parts is None:
            self._scan_cued(rule, doc, out, timeout, start, found)
        if rule.split_head is not None and "\n" in text:
            self._split(rule, doc, out)

    @staticmethod
    def _split(rule: PatternRule, doc: _Text, out: list[Finding]) -> None:
        """Values typed over two lines, as two chat messages ("guest | DE44 5001" / "guest |
        0517 5407 3249 31"): a line that ends in what ``rule.split_head`` says a value starts
        with, and the groups that start the next line after its speaker's label (as many as
        make one), joined with a blank, must be a match of the rule's pattern as a whole that
        its validator takes (an IBAN's checksum). Then both parts are that entity. A head that
        is a finding on its own is left alone."""
        assert rule.split_head is not None and rule.validator is not None
        text = doc.text
        taken = [(f.start, f.end) for f in out if f.entity == rule.entity]
        for m in rule.split_head.finditer(text):
            head = m.group().rstrip()
            if any(lo < m.end() and m.start() < hi for lo, hi in taken):
                continue
            nl = text.find("\n", m.end())
            label = _NEXT_LABEL.match(text, nl + 1)
            at = label.end() if label is not None else nl + 1
            tail = _TAIL_GROUPS.match(text, at)
            if tail is None:
                continue
            groups = tail.group().split()
            for n in range(len(groups), 0, -1):
                joined = head + " " + " ".join(groups[:n])
                if rule.pattern.fullmatch(joined) is None or rule.validator(joined, doc.memo) <= 0:
                    continue
                end = at + len(" ".join(groups[:n]))
                if text[at:end] != " ".join(groups[:n]):
                    break  # groups spaced other than by one blank: not read back exactly
                name = f"pattern:{rule.name}"
                out.append(Finding(m.start(), m.start() + len(head), rule.entity, rule.score, name))
                out.append(Finding(at, end, rule.entity, rule.score, name))
                break

    def _scan_cued(
        self,
        rule: PatternRule,
        doc: _Text,
        out: list[Finding],
        timeout: float,
        start: int,
        found: re.Match[str] | None = None,
    ) -> None:
        text = doc.text
        if rule.anchored:
            for hit in doc.cues.of(rule.requires):
                m = rule.pattern.match(text, hit.end, timeout=timeout)
                finding = self._judge(rule, doc, m) if m is not None else None
                if finding is not None:
                    out.append(finding)
            return
        linear = rule.linear if doc.ascii else None
        if linear is not None and not rule.requires and len(text) <= rule.twin_chars:
            # The common case: the whole text on the standard library's engine (a short line,
            # or a text of any length for a twin that is the faster on long ones too).
            if found is not None and rule.needs is not None and rule.reach <= NEAR_REACH:
                matches: Iterable[re.Match[str]] = _near(linear, rule.needs, rule.reach, text, found)
            else:
                matches = linear.finditer(text, start)
            for m in matches:
                finding = self._judge(rule, doc, m)
                if finding is not None:
                    out.append(finding)
                    if finding.end < m.end():
                        self._stretch(rule, doc, out, finding.end, len(text), timeout)
                        return
                elif rule.rescan and (inner := _next_group(text, m.span(rule.value_group), rule.rescan)) > 0:
                    self._stretch(rule, doc, out, inner, len(text), timeout)
                    return
            return
        for lo, hi in self._stretches(rule, doc, start):
            self._stretch(rule, doc, out, lo, hi, timeout)

    def _stretch(
        self, rule: PatternRule, doc: _Text, out: list[Finding], pos: int, hi: int, timeout: float
    ) -> None:
        """Judge the matches of ``rule`` in ``doc.text[pos:hi]``."""
        text = doc.text
        linear = rule.linear if doc.ascii else None
        while pos < hi:
            resume = hi
            if linear is not None and hi - pos <= rule.twin_chars:
                matches = linear.finditer(text, pos, hi)
            else:
                matches = rule.pattern.finditer(text, pos, hi, timeout=timeout)
            for m in matches:
                # A match cut off by the end of the stretch may be part of a longer token.
                if m.end() == hi < len(text):
                    continue
                finding = self._judge(rule, doc, m)
                if finding is None:
                    if (
                        rule.rescan
                        and (inner := _next_group(text, m.span(rule.value_group), rule.rescan)) > 0
                    ):
                        resume = inner  # "536-22-8173 (415) 555-2671": the number after a number
                        break
                    continue
                out.append(finding)
                if finding.end < m.end():
                    # The validator kept a prefix; what it dropped may start another value.
                    resume = finding.end
                    break
            pos = resume

    def _answers(self, rule: PatternRule, doc: _Text, out: list[Finding], first: int, timeout: float) -> None:
        """Values of ``rule`` given as the reply to a line that asks for one.

        A line with a cue of ``rule.requires``, no value of the rule found on it (findings
        from ``out[first:]`` on) and a question mark, a request's word or a label that ends
        the line (``_ASKS``) asks for one ("Agent: and your date of birth?", "Please confirm
        the DOB on file."). Its value may come on one of the next ``rule.answer_lines``
        lines (blank lines not counted), each of which must be a reply: no cue of any list
        (a cue would make it a sentence of its own), no ``=`` (a ``key=value`` line is a
        record, as in a log) and at most ANSWER_MAX_WORDS words after an optional speaker
        label. The first reply line with a value ends the reach, as does a line that is no
        reply; a line with more than one value answers nothing, nor does one that holds a
        placeholder of an earlier scrub (it held another value: a record). Runs only on texts
        with a required cue and a line break.

        A rule with ``answer_parts`` takes a value given in parts, a part a line ("Guest: 30
        June" / "Clerk: and which year?" / "Guest: 1971"): a part does not end the reach but
        starts it anew, three parts at most; cues of the lists ``answer_parts`` may stand in a
        reply ("the month is May", "year 1988").
        """
        text = doc.text
        size = len(text)
        cues = doc.cues
        found = out[first:]
        line_end = -1
        for hit in cues.of(rule.requires):
            if hit.start <= line_end:
                continue  # the line of a cue already looked at
            line_end = text.find("\n", hit.end)
            if line_end < 0:
                return  # the last line: no reply after it, nor after any later cue
            line_start = text.rfind("\n", 0, hit.start) + 1
            if any(line_start <= f.start < line_end for f in found):
                continue  # the line gives its value itself
            if _ASKS.search(text, line_start, line_end) is None:
                continue  # it names the value, asks for none
            if "[" in text or "<" in text:
                asked = text[line_start:line_end]
                if placeholders(asked):
                    continue  # ... masked by an earlier scrub ("DOB: [DATE_OF_BIRTH]")
            pos, left = line_end + 1, rule.answer_lines
            parts = 0
            # A request for several values ("dates of birth for both of you?") may be answered
            # by one line that gives them all in words, twice as long as a reply to one.
            several = rule.answer_parts is None and _SEVERAL.search(text, line_start, line_end) is not None
            stops = cues.lists if rule.answer_parts is None else cues.lists - rule.answer_parts
            while left and pos < size:
                end = text.find("\n", pos)
                if end < 0:
                    end = size
                line = text[pos:end]
                if not line.strip():
                    pos = end + 1
                    continue
                left -= 1
                label = _SPEAKER.match(line)
                said = pos + label.end() if label is not None else pos
                words = text[said:end]
                # In a speaker label only the cues of the rule's own lists count ("Order:" does,
                # for a date; "Client:" names a speaker, not an IP address).
                size_words = len(words.split())
                if size_words > ANSWER_MAX_WORDS and " as in " in words:
                    # A letter spelt "B as in bravo" is one word of the reply.
                    size_words = len(_AS_IN.sub("", words).split())
                if (
                    size_words > ANSWER_MAX_WORDS * (2 if several else 1)
                    or "=" in words
                    or (("[" in words or "<" in words) and placeholders(words))
                    or cues.first_after(stops, said, end) >= 0
                    or (said > pos and cues.first_after(rule.read_lists, pos, said) >= 0)
                ):
                    break
                given = []
                for m in rule.pattern.finditer(text, pos, end, timeout=timeout):
                    finding = self._judge(rule, doc, m, cued=True)
                    if finding is not None:
                        given.append(finding)
                if not given and rule.answer_parts is None:
                    read_out = self._read_out(rule, doc, said, end) or self._spelled_out(rule, doc, said, end)
                    if read_out is not None:
                        given.append(read_out)
                if size_words > ANSWER_MAX_WORDS and len(given) < 2:
                    break  # a long line with one value: a sentence, no reply
                if given:
                    # One value answers; a line of several is a record (a table's row under
                    # its header, "E95108,Quintero,1942-11-10,2018-09-20"), no reply, unless
                    # the line asked for several and the reply is said in words ("dates of
                    # birth for both of you?" / "me 27 August 1966, my husband May 3, 1969").
                    if len(given) == 1 or (several and " " in words.strip()):
                        out.extend(given)
                    parts += 1
                    if rule.answer_parts is None or len(given) > 1 or parts == ANSWER_PARTS:
                        break
                    left = rule.answer_lines
                pos = end + 1

    @staticmethod
    def _spelled_out(rule: PatternRule, doc: _Text, start: int, end: int) -> Finding | None:
        """A reply that spells its value out character by character, as said on the phone:
        "K 2 P... 1 L 4", "M as in mike 1 1, 1 A as in apple E", "kilo one alpha ...". Single
        letters and digits, the words of the spelling alphabet (the letter they stand for),
        digits said in words, and "X as in <word starting with X>" (the letter) make the value;
        marks and a few fillers ("um", "then", "it's") may stand between; any other word and
        the reply is no spelling. The characters joined must be a match of the rule's pattern
        (and pass its validator), with a letter among them: digits alone are ``_read_out``'s."""
        text = doc.text
        chars: list[str] = []
        first = last = -1
        words = list(_SPELL_WORD.finditer(text, start, end))
        i = 0
        while i < len(words):
            m = words[i]
            w = m.group()
            low = w.lower()
            if (
                i + 2 < len(words)
                and low == "as"
                and words[i + 1].group().lower() == "in"
                and chars
                and words[i + 2].group()[:1].lower() == chars[-1].lower()
            ):
                i += 3  # "B as in bravo": the letter said already
                last = words[i - 1].end()
                continue
            if len(w) == 1 and w.isalnum():
                char = w
            elif low in _SPELLING:
                char = _SPELLING[low]
            elif low in _SPELL_FILLERS or not w[0].isalnum():
                i += 1
                continue
            else:
                return None
            chars.append(char)
            first = m.start() if first < 0 else first
            last = m.end()
            i += 1
        value = "".join(chars)
        if len(value) < 5 or not any(c.isalpha() for c in value) or not any(c.isdigit() for c in value):
            return None
        if rule.pattern.fullmatch(value.upper()) is None:
            return None
        if rule.validator is not None and rule.validator(value.upper(), doc.memo) <= 0:
            return None
        score = max(rule.score, rule.context_score)
        return Finding(first, last, rule.entity, score, f"pattern:{rule.name}")

    @staticmethod
    def _read_out(rule: PatternRule, doc: _Text, start: int, end: int) -> Finding | None:
        """A reply that reads its number out in groups of digits ("271 066 190", "5 0 9 1 7 7 2
        3 8", "602 991 478 3"), the one number of the reply, as the value ``rule`` takes when
        written in one run: its digits must make a match of the rule's pattern and pass its
        validator. Groups a phone number is written in ("514 847 2290") are a phone's, whatever
        was asked (a contact's number under a request for an account), and a date written with
        blanks ("12 05 2029") a date's."""
        text = doc.text
        runs = list(_READ_OUT.finditer(text, start, end))
        if len(runs) != 1:
            return None
        m = runs[0]
        if _DIGIT.search(text, start, m.start()) or _DIGIT.search(text, m.end(), end):
            return None
        said = m.group()
        groups = said.split()
        if spaced_date(groups):
            return None  # "12 05 2029": a date, whatever was asked
        digits = "".join(groups)
        if rule.pattern.fullmatch(digits) is None:
            return None
        if rule.validator is not None and rule.validator(digits, doc.memo) <= 0:
            return None
        if rule.entity != "PHONE_NUMBER" and _PHONE_GROUPS(said, doc.memo) > 0:
            return None
        score = max(rule.score, rule.context_score)
        return Finding(m.start(), m.end(), rule.entity, score, f"pattern:{rule.name}")

    @staticmethod
    def _stretches(rule: PatternRule, doc: _Text, start: int) -> list[tuple[int, int]]:
        """Where a rule's pattern runs, from ``start`` on: the whole text, or just after (before)
        its required cues. (A stretch cut at ``start`` finds the same: look-behinds see before it.)
        """
        if not rule.requires:
            return [(start, len(doc.text))]
        spans = []
        for hit in doc.cues.of(rule.requires):
            spans.append((hit.end, hit.end + rule.window + MAX_VALUE_CHARS))
            if rule.after:
                spans.append((max(0, hit.start - rule.after - MAX_VALUE_CHARS), hit.start))
        size = len(doc.text)
        return [(max(lo, start), min(hi, size)) for lo, hi in _merge(spans) if hi > start]

    @staticmethod
    def _judge(
        rule: PatternRule, doc: _Text, m: regex.Match[str] | re.Match[str], cued: bool = False
    ) -> Finding | None:
        """The finding of match ``m``, scored by its cues, or None; ``cued``: a reply to a cue
        on an earlier line (see ``_answers``), which stands for a required cue before it. A
        finding a cue lowered is noted in ``doc.lowered`` (see ``_spend``)."""
        start, end = m.span(rule.value_group)
        if start >= end:
            return None
        if rule.validator is not None:
            valid = rule.validator(doc.text[start:end], doc.memo)
            if valid <= 0:
                return None
            end = start + valid
        name = f"pattern:{rule.name}"
        if cued:
            return Finding(start, end, rule.entity, max(rule.score, rule.context_score), name)
        scored = _score(rule, doc, start, end)
        if scored is None:
            return None
        finding = Finding(start, end, rule.entity, scored[0], name)
        if scored[1]:
            doc.lowered.append((finding, rule))
        return finding

    def _spend(self, doc: _Text, out: list[Finding], min_score: float) -> list[Finding]:
        """``out``, the findings that a used-up cue lowered scored again without that cue.

        A cue announces one value. Once a value of its own kind stands between it and a later
        value ("Phone: 31-47-92-08, dob 536-22-8173"), the cue is used up and lowers that later
        value no more. A value of its kind is a finding of an entity that a rule raises on a
        cue of its list (``_announcing``: "phone" raises PHONE_NUMBER), kept at ``min_score``, or
        the label of one that an earlier scrub wrote ("Phone: [PHONE_NUMBER]"): so the second
        scrub of a text reads its cues as the first did. The lowered findings are taken in the
        order of their starts, and a value is counted once the finding at hand starts after
        its end: one scored up in time uses up a cue before a later one.
        """
        text = doc.text
        values = [(f.end, f.start, f.entity) for f in out if f.score >= min_score]
        if "[" in text or "<" in text:
            for lo, hi in placeholders(text):
                values.append((hi, lo, text[lo + 1 : hi - 1].split(":", 1)[0]))
        heapq.heapify(values)
        # The greatest start of a value of each entity that ends before the finding at hand.
        last: dict[str, int] = {}

        def used_up(hit: CueHit) -> bool:
            return any(last.get(entity, -1) >= hit.end for entity in self._announced(hit.lists))

        again: dict[Finding, Finding] = {}
        for finding, rule in sorted(doc.lowered, key=lambda fr: fr[0].start):
            while values and values[0][0] <= finding.start:
                _, lo, entity = heapq.heappop(values)
                if lo > last.get(entity, -1):
                    last[entity] = lo
            scored = _score(rule, doc, finding.start, finding.end, used_up)
            if scored is None or scored[0] == finding.score:
                continue
            better = dataclasses.replace(finding, score=scored[0])
            again[finding] = better
            if better.score >= min_score:
                heapq.heappush(values, (better.end, better.start, better.entity))
        return [again.get(f, f) for f in out] if again else out

    def _announced(self, lists: frozenset[str]) -> frozenset[str]:
        """The entities whose values cues of ``lists`` announce."""
        found = self._announces.get(lists)
        if found is None:
            found = frozenset(e for name in lists for e in self._announcing.get(name, ()))
            if len(self._announces) < MERGED_MAX:
                self._announces[lists] = found
        return found


def _score(
    rule: PatternRule, doc: _Text, start: int, end: int, used_up: Callable[[CueHit], bool] | None = None
) -> tuple[float, bool] | None:
    """The score of a value of ``rule`` at ``[start, end)`` by its cues, and whether a cue
    lowered it; None for a rule that requires a cue with none near. ``used_up``: which
    lowering cues no longer count (see ``PatternDetector._spend``)."""
    score = rule.score
    if (rule.raise_lists or rule.lower_lists or rule.requires) and doc.cues:
        cues = doc.cues
        text = doc.text
        lo = max(text.rfind("\n", 0, start) + 1, start - rule.window)
        raised = cues.last_before(rule.raised_by, lo, start)
        hi = -1
        if rule.after:
            line_end = text.find("\n", end)
            hi = min(end + rule.after, len(text) if line_end < 0 else line_end)
        if rule.requires:
            required = raised if not rule.raise_lists else cues.last_before(rule.requires, lo, start)
            if required < 0 and (hi < 0 or cues.first_after(rule.requires, end, hi) < 0):
                return None
        server = "server_ip" in rule.lower_lists

        # A lowering cue that is a key with a value of its own before this one was said of that
        # value ("call_id=00a2083d caller_ani=+9173...", "ticket: HD-5512 phone ..."); a host's
        # name in a syslog header ("gw-01 dhcpd[4411]: DHCPACK on ...") names the machine that
        # logs, not the address the message goes on to give.
        def skip(h: CueHit, used_up: Callable[[CueHit], bool] | None = used_up) -> bool:
            if used_up is not None and used_up(h):
                return True
            if _KEYED_VALUE.match(text, h.end, start) is not None:
                return True
            return server and _SYSLOG_TAG.search(text, h.end, start) is not None

        lowered = cues.last_before(rule.lower_lists, lo, start, skip) if rule.lower_lists else -1
        if "server_ip" in rule.lower_lists:
            # A server's own name right before its address: "app-01 (10.0.3.16)", "host=cache-a
            # ip=10.22.5.10" (the nearest cue, even with "ip" in it). A name of what it serves,
            # not a person's machine ("laptop-42").
            lowered = max(lowered, _server_named(text, start, rule.window))
        if raised >= 0 and (raised >= lowered or _qualifies(text, raised, lowered)):
            return max(score, rule.context_score), False
        if lowered >= 0:
            return score - rule.penalty, True
        if hi >= 0 and cues.first_after(rule.raised_by, end, hi) >= 0:
            return max(score, rule.context_score), False
    elif rule.requires:
        return None  # not a cue in the text
    elif "server_ip" in rule.lower_lists and _server_named(doc.text, start, rule.window) >= 0:
        return score - rule.penalty, True
    return score, False


def _server_named(text: str, start: int, window: int) -> int:
    """``start`` if a server's name stands right before it (see _SERVER_NAME), else -1."""
    lo = max(text.rfind("\n", 0, start) + 1, start - window)
    return start if _SERVER_NAME.search(text, lo, start) is not None else -1


# A machine named by what it serves, in the shape of a host name ("app-01", "web-3", "cache-a",
# "worker-b7", "db02"), right before an address: in brackets, after "ip=", a colon or "at"/"on".
_SERVER_NAME = re.compile(
    r"(?<![\w.-])(?:app|web|api|db|cache|worker|node|srv|svc|lb|edge|proxy|gw|mq|redis|kafka|pg|"
    r"mysql|mongo|k8s|vm|host|server|backend|frontend|nginx|ingress|bastion|jump)[-_]?(?:[a-z]{0,2}\d{1,3}[a-z]?|[a-z])"
    r"(?:[ \t]*\(|[ \t]+ip[=:][ \t]?|[ \t]*[=:][ \t]*|[ \t]+(?:at|on)[ \t]+)\Z",
    re.IGNORECASE,
)
# The rest of a key after a cue, and its own value with a digit in it, up to the blank before
# the next field: "_id=00a2083d ", ': "HD-5512", ' ("Phone: see the form, ..." gives no value).
_KEYED_VALUE = re.compile(r"""[\w.-]*["']?[ \t]*[=:][ \t]*["']?[^\s"',;\d]*\d[^\s"',;]*["']?[,;]?[ \t]+""")
# A syslog line's program and process id before its message ("dhcpd[4411]:").
_SYSLOG_TAG = re.compile(r"[\w.-]+\[\d+\]: ")


# What stands between a cue and a lowering cue that only qualifies it: a preposition and the
# lowering cue's words ("passport number on the booking is ...", "phone on the account is
# ..."): the value is still the first cue's.
_QUALIFIER = re.compile(
    r"(?: (?:numbers?|no\.?|#|details))? (?:on|for|in|of|from|with|at|under) "
    r"(?:(?:the|my|your|our|this|that|his|her|their|a|an) )?[^\W\d_]+(?: [^\W\d_]+)?"
)


def _qualifies(text: str, cue_end: int, lowering_end: int) -> bool:
    """Whether the lowering cue that ends at ``lowering_end`` sits in a phrase that qualifies
    the cue that ends at ``cue_end`` (see _QUALIFIER)."""
    return 0 < lowering_end - cue_end <= 40 and _QUALIFIER.fullmatch(text, cue_end, lowering_end) is not None


class _GateScan:
    """Which rules the gate strings in a text wake, in one pass over it.

    The pattern finds the longest gate string that starts at a place (a prefix tree: its
    branches start with different characters, and a word's end is tried after its longer
    continuations); the next search starts one character later, not where the string ends, so
    that gates that overlap are all found. The strings that start at a place are the longest
    one and those of its prefixes that are gates too: each gate string stands for the rules of
    all of them. Most texts hold no gate string: one search in C says so.
    """

    __slots__ = ("_pattern", "_wakes")

    def __init__(self, gates: dict[str, set[int]]) -> None:
        self._wakes = {
            g: frozenset(i for other, ix in gates.items() if g.startswith(other) for i in ix) for g in gates
        }
        self._pattern = re.compile(_prefix_tree(list(gates))) if gates else None

    def woken(self, text: str) -> frozenset[int]:
        if self._pattern is None:
            return _NONE
        search, wakes = self._pattern.search, self._wakes
        found = search(text)
        if found is None:
            return _NONE
        woken = set(wakes[found.group()])
        while (found := search(text, found.start() + 1)) is not None:
            woken |= wakes[found.group()]
        return frozenset(woken)


def _prefix_tree(words: list[str]) -> str:
    """An alternation of ``words`` with common starts written once; where words are the start
    of others, the longest of them that is there is matched ("gat(?:an?|e)").

    ``re`` tries the branches of an alternation one by one at each place: as a tree, a place
    where no word starts costs one test of the first character of each branch ("a(?:ws|uth)"
    instead of "aws|auth"), and most places of a text are such.
    """
    rests: dict[str, list[str]] = {}
    for w in words:
        rests.setdefault(w[0], []).append(w[1:])
    alts = []
    for c, r in sorted(rests.items()):
        more = [x for x in r if x]
        if not more:
            alts.append(re.escape(c))
        elif len(more) < len(r):  # a word ends here, and longer ones go on
            alts.append(f"{re.escape(c)}(?:{_prefix_tree(more)})?")
        else:
            alts.append(re.escape(c) + _prefix_tree(more))
    return alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"


def _near(
    pattern: re.Pattern[str], needs: re.Pattern[str], reach: int, text: str, found: re.Match[str]
) -> Iterator[re.Match[str]]:
    """What ``pattern.finditer(text)`` yields, tried only where a match can start.

    A match starts at most ``reach`` characters before a place where ``needs`` matches (see
    pattern_rules._NEEDS; ``found`` is the first such place). So each start from there back to
    ``reach`` characters before it is tried with one ``match``, leftmost first, and the prose in
    between, where most of a long text's letters are, is never read by the pattern. As with
    ``finditer``, no match starts before the end of the one before it. Places where ``needs``
    matches may overlap: the search for the next starts at the first start not yet tried.
    """
    free = 0  # no match starts before this: every start before it was tried, or is in a match
    place: re.Match[str] | None = found
    while place is not None:
        at = place.start()
        for pos in range(max(free, at - reach), at + 1):
            m = pattern.match(text, pos)
            if m is not None:
                yield m
                # A match holds a needed character: it is never empty. It may end before ``at``,
                # whose other starts are then tried next (the search finds ``at`` again).
                free = max(m.end(), pos + 1)
                break
        else:
            free = at + 1
        place = needs.search(text, free)


def _next_group(text: str, span: tuple[int, int], how: bool | str = True) -> int:
    """Where, inside the value in ``span``, a number visibly starts anew: a "(" or "+" after a
    blank ("536-22-8173 (415) 555-2671"), or -1. Not any later group: the tail of a tracking
    or card number ("2131 3288 0407 231") is no number of its own; unless ``how`` is "groups",
    where the second group is tried: one number may follow another with only a blank between
    ("4242 4539 1488 0343 6467": the last four of one card, then another; an IBAN's last group,
    then a card)."""
    start, end = span
    found = [at for at in (text.find(" (", start, end), text.find(" +", start, end)) if at > start]
    if how == "groups":
        gap = next((i for i in range(start, end) if text[i] in " -"), -1)
        if gap > start:
            found.append(gap)
    return min(found) + 1 if found else -1


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(spans):
        if out and lo <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out
