"""Names of people (PERSON) from the contexts that announce them: grammar/names.yaml.

No dictionary and no parser: a greeting, a title, a closing line, "my name is", a name field,
an e-mail display name, a relation ("my mother, ..."), or a record ("Lee Huang, SSN ...") says
that the capitalised words after it are a name. Measured against the parser's NER on the
devset this finds more names, far fewer false ones, and costs a few regular expressions.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import regex

from scrubber import rulefile
from scrubber.detectors.cues import CueIndex, with_slips
from scrubber.detectors.patterns import RegexTimeout
from scrubber.findings import Finding
from scrubber.rulefile import RuleError

_LISTS = (
    "greetings",
    "titles",
    "closings",
    "intros",
    "loose_intros",
    "intro_followers",
    "talk_intros",
    "talk_followers",
    "fields",
    "list_fields",
    "relations",
    "record_cues",
    "particles",
    "not_names",
    "org_words",
    "ambiguous",
)
# Lists whose words people mistype ("Regrads,", "the account is undre ..."): their typing slips
# (one letter left out or two swapped, in words of five letters or more) count too.
_SLIPPED = ("greetings", "closings", "intros", "loose_intros", "talk_intros", "fields", "relations")
SCORE = 0.85
# A capitalised name word: "Martín", "McDonald", "O'Neil", "Jean-Luc", "al-Rashid", "d'Souza";
# never all capitals.
_CASED = r"(?:\p{Lu}['’]|(?:al|el|ad|ud|ul|d)['’-])?\p{Lu}\p{Ll}[\p{L}'’]*(?:-\p{Lu}\p{Ll}+)?"
# The same on a line typed without capitals.
_LOWER = r"\p{Ll}[\p{Ll}'’]+(?:-\p{Ll}+)?"
# Initials before or inside a name: "J. Smith", "John F. Kennedy", "J.R.R. Tolkien".
_INITIALS = r"\p{Lu}\.(?:[ \t]?\p{Lu}\.)*"
# The end of a line, "\r\n" or "\n" (the SMTP relay hands over bodies with CRLF).
_EOL = r"[ \t]*\r?$"
# Contexts after which the name may end anywhere ("this is Tabitha from ...").
_OPEN_ENDED = frozenset({"intro", "relation", "title", "talk"})
_NAME_WORD = regex.compile(r"[^\s]+")
_SQL = regex.compile(
    r"(?i:insert\s+into)\s+[\w.\"`]+\s*\((?P<cols>[^)]{1,500})\)\s*(?i:values)\s*\((?P<vals>[^)]{1,2000})\)"
)
_SQL_VALUE = regex.compile(r"'(?:[^']|'')*'|[^,]+")
# A signature block's delimiter line ("-- ") stands where a closing would.
_SIG_DASHES = ("--", "—", "–")
_SEPARATORS = re.compile(r"[\s_-]+")


def _alternation(words: Sequence[str]) -> str:
    parts = []
    for w in sorted(set(words), key=len, reverse=True):
        body = r"[\s_-]+".join(regex.escape(p) for p in w.split())
        parts.append(body + (r"\b" if w[-1].isalnum() else ""))
    return "(?:" + "|".join(parts) + ")"


@dataclass(frozen=True)
class Contexts:
    """Compiled contexts: each pattern has a group ``n`` (or several) that is the name."""

    cased: Mapping[str, regex.Pattern[str]]
    lower: Mapping[str, regex.Pattern[str]]
    closing: regex.Pattern[str]


@dataclass(frozen=True)
class NameLexicon:
    """The contexts as written, the same with their words mistyped, and what to skip."""

    exact: Contexts
    slipped: Contexts
    name_line: regex.Pattern[str]
    field_keys: regex.Pattern[str]
    not_names: frozenset[str]
    org_words: frozenset[str]
    ambiguous: frozenset[str]
    # One pass over the message finds the phrases that start a context, mistyped or not; only
    # the contexts whose phrases are there run (most messages have none), and their mistyped
    # versions (larger patterns) only where a phrase was mistyped.
    trigger: CueIndex
    phrases: frozenset[str]


def load_names(path: Path) -> NameLexicon:
    """Compile grammar/names.yaml; a bad file fails with the file, the line and the reason."""
    data = rulefile.load(path)
    if not isinstance(data, Mapping):
        raise RuleError(path, None, f"expected a mapping with {', '.join(_LISTS)}")
    rulefile.check_keys(path, data, set(_LISTS), set())
    w: dict[str, list[str]] = {}
    for key in _LISTS:
        words = data[key]
        if (
            not isinstance(words, list)
            or not words
            or not all(isinstance(x, str) and x.strip() for x in words)
        ):
            raise RuleError(path, rulefile.line_of(data), f"{key} must be a non-empty list of words")
        w[key] = [x.strip().lower() for x in words]
    alt = {k: _alternation(v) for k, v in w.items()}
    title = rf"(?:{_title(w['titles'])})\.?[ \t]+"

    # Words that are never names are dropped after matching (NameDetector._trim): a look-ahead
    # for each of them at every name word would cost more than all the rest.
    def name(word: str, most: int = 4, least: int = 1, *, lead: bool = False) -> str:
        # After a title a name may start with its particles ("Dear Mr. van der Berg").
        first = rf"(?:(?:{alt['particles']})[ \t]+){{0,2}}" if lead else ""
        gap = rf"[ \t]+(?:(?:{alt['particles']}|{_INITIALS})[ \t]+){{0,2}}"
        return rf"(?P<n>{first}(?:{_INITIALS}[ \t]*)?{word}(?:{gap}{word}){{{least - 1},{most - 1}}})"

    def titled(word: str, most: int = 4) -> str:
        """A name, or a title and a name (the title not part of it)."""
        return rf"(?:{title}{name(word, most, lead=True)}|{name(word, most)})"

    def build(word: str, lower_line: bool, w: Mapping[str, list[str]]) -> dict[str, regex.Pattern[str]]:
        alt = {k: _alternation(v) for k, v in w.items()}
        end = r"(?![\p{L}'’-])"
        # More names in the same slot: "cc: Hiroshi Tanaka, Maria Lopez", "Hi Jane and Tom,".
        also = rf"[ \t]+(?:and|&)[ \t]+{name(word)}"
        listed = rf"(?:[ \t]*[,;][ \t]*(?:and[ \t]+)?{name(word)}{end}|{also}{end}){{0,8}}"
        contexts = {
            "field": rf"(?i:(?<![\w.])(?:{alt['fields']}))[\"']?\s*[:=]\s*[\"']?{name(word)}{end}",
            "list_field": rf"(?i:(?<![\w.-])(?:{alt['list_fields']}))[ \t]*:[ \t]*{name(word)}{end}" + listed,
            "intro": rf"(?i:(?<![\w'])(?:{_intros(w['intros'], w['loose_intros'], lower_line)}))\s+"
            rf"{titled(word)}{end}(?:{also}{end})?",
            "relation": rf"(?i:\b(?:my|our|his|her|their)\s+(?:{alt['relations']}))\s*,?\s+{name(word)}{end}",
            "record": rf"^[> \t]*(?:\w+:[ \t]+)?(?:{name(word)},"
            + ("" if lower_line else rf"|{name(word, 4, 2)}")
            + r")[ \t]+"
            rf"(?i:{alt['record_cues']})\b",
        }
        if lower_line:
            contexts["talk"] = (
                rf"(?<![\w'])(?:{alt['talk_intros']})[ \t]+{name(word, 2)}"
                rf"(?=[ \t]*(?:[?.!,;]|\r?$)|[ \t]+(?:{alt['talk_followers']}))"
            )
        else:
            contexts |= {
                "greeting": rf"(?i:(?<![\w'])(?:{alt['greetings']}))[ \t]*,?[ \t]+"
                rf"{titled(word, 3)}(?:[ \t]*,[ \t]*{name(word, 3)}{end}){{0,4}}(?:{also})?"
                rf"(?=[ \t]*(?:[,!:\r\n.]|$)|[ \t]+(?:[-–—]|(?i:this|it's|here)\b))",
                "title": rf"(?<![\w.]){title}{name(word, 2, lead=True)}{end}",
                "loose_intro": rf"(?i:(?<![\w'])(?:{alt['loose_intros']}))\s+{titled(word, 3)}"
                rf"(?=\s*(?:[,.!;)]|$|(?i:{alt['intro_followers']})\s))",
                # "Chloe Hanna <chloe@...>", '"Oyelaran, Tunde" <t.oyelaran@...>'
                "display": rf"(?:^|(?<=[\s:,\"']))\"?(?:{name(word)},[ \t]*)?{name(word)}\"?"
                r"[ \t]*<[^<>\s@]+@",
                "sign_same_line": rf"^[>\s]*(?i:{alt['closings']})[ \t]*(?:,|[ \t][-–—]{{1,2}})[ \t]*"
                rf"{name(word, 3)}[.!]?{_EOL}",
            }
        return {k: regex.compile(v, regex.MULTILINE) for k, v in contexts.items()}

    dashes = "|".join(regex.escape(d) for d in _SIG_DASHES)

    def contexts(w: Mapping[str, list[str]]) -> Contexts:
        return Contexts(
            cased=build(_CASED, False, w),
            lower=build(_LOWER, True, w),
            closing=regex.compile(
                rf"^[>\s]*(?:(?i:{_alternation(w['closings'])})[ \t]*[,.!]*|(?:{dashes})[ \t]?){_EOL}",
                regex.MULTILINE,
            ),
        )

    # Which contexts each word can start: the words of every phrase of a context's lists.
    triggers = {
        "greeting": ("greetings",),
        "title": ("titles",),
        "closing": ("closings",),
        "sign_same_line": ("closings",),
        "intro": ("intros",),
        "loose_intro": ("loose_intros",),
        "talk": ("talk_intros",),
        "field": ("fields",),
        "list_field": ("list_fields",),
        "relation": ("relations",),
        "record": ("record_cues",),
    }
    phrases = {context: [p for key in keys for p in w[key]] for context, keys in triggers.items()}
    try:
        lex = NameLexicon(
            exact=contexts(w),
            slipped=contexts(w | {k: sorted(with_slips(w[k])) for k in _SLIPPED}),
            # A signature line: the name, maybe "Jr." or "III", maybe a title or company after
            # a separator ("Ruth Gordon | Acme", "Ruth Gordon, CPA", "Ruth Gordon - Sales").
            name_line=regex.compile(
                rf"[>\s]*{name(_CASED)}\.?(?:[ \t]+(?:II|III|IV))?"
                rf"(?:[ \t]*(?:[,|(]|[ \t][-–—])[^\r\n]*)?[ \t\r]*"
            ),
            field_keys=regex.compile(alt["fields"], regex.IGNORECASE),
            # A title is never the name it stands before ("Dear Mr. ...").
            not_names=frozenset(w["not_names"]) | frozenset(w["titles"]),
            org_words=frozenset(w["org_words"]),
            ambiguous=frozenset(w["ambiguous"]),
            trigger=CueIndex(phrases),
            phrases=frozenset(_phrase(p) for group in phrases.values() for p in group),
        )
    except regex.error as exc:
        raise RuleError(path, rulefile.line_of(data), f"cannot compile the name contexts: {exc}") from exc
    return lex


def _phrase(text: str) -> str:
    """A phrase as written or as found: lower case, one space between words."""
    return " ".join(_SEPARATORS.split(text.lower())).strip()


def _intros(words: list[str], loose: list[str], lower_line: bool) -> str:
    return _alternation([x for x in words if x not in loose and (not lower_line or "name" in x)])


def _title(titles: list[str]) -> str:
    # Titles are matched capitalised only: "Dr. Lee", not "dr" inside a sentence.
    return "|".join(regex.escape(t.capitalize()) for t in sorted(titles, key=len, reverse=True))


class NameDetector:
    """PERSON by context; a name found once is also masked where it recurs in the message."""

    name = "names"
    entities = frozenset({"PERSON"})

    def __init__(self, lexicon: NameLexicon, *, timeout: float = 0.5) -> None:
        self.lex = lexicon
        self.timeout = timeout

    def detect(self, text: str) -> list[Finding]:
        try:
            spans = sorted({(s, e): how for s, e, how in self._spans(text)}.items())
        except TimeoutError as exc:
            raise RegexTimeout("person") from exc
        out = [Finding(s, e, "PERSON", SCORE, f"names:{how}") for (s, e), how in spans]
        out.extend(self._recurring(text, out))
        return out

    def _spans(self, text: str) -> Iterator[tuple[int, int, str]]:
        for start, end, how in self._candidates(text):
            cut = self._trim(text, start, end)
            # Only where nothing has to follow the name may it be cut short.
            if cut == end or (how in _OPEN_ENDED and cut > start):
                yield start, cut, how

    def _trim(self, text: str, start: int, end: int) -> int:
        """End of the name once a word that is never a name cuts it short (start: no name).

        A company's word ("Apple Support") means the words before it were no person's name.
        """
        for m in _NAME_WORD.finditer(text, start, end):
            word = m.group().lower().rstrip(".!,;:")
            if word in self.lex.org_words:
                return start
            if word in self.lex.not_names:
                return max(start, len(text[: m.start()].rstrip(" \t")))
        return end

    def _candidates(self, text: str) -> Iterator[tuple[int, int, str]]:
        t = self.timeout
        wanted: set[str] = set()
        mistyped: set[str] = set()
        for hit in self.lex.trigger.scan(text):
            wanted |= hit.lists
            if _phrase(text[hit.start : hit.end]) not in self.lex.phrases:
                mistyped |= hit.lists
        if "@" in text and "<" in text:
            wanted.add("display")
        if any(d in text for d in _SIG_DASHES):
            wanted.add("closing")
        lower_lines = any(line.islower() for line in text.split("\n"))
        for how in wanted:
            ctx = self.lex.slipped if how in mistyped else self.lex.exact
            pattern = ctx.cased.get(how)
            if pattern is not None:
                for m in pattern.finditer(text, timeout=t):
                    for s, e in m.spans("n"):
                        yield s, e, how
            pattern = ctx.lower.get(how) if lower_lines else None
            if pattern is not None:
                for m in pattern.finditer(text, timeout=t):
                    for s, e in m.spans("n"):
                        if _line(text, s).islower():
                            yield s, e, how
        if "closing" in wanted:
            ctx = self.lex.slipped if "closing" in mistyped else self.lex.exact
            for m in ctx.closing.finditer(text, timeout=t):
                nxt = _next_line(text, m.end())
                if nxt is not None:
                    s, e = nxt
                    n = self.lex.name_line.fullmatch(text, s, e, timeout=t)
                    if n is not None:
                        yield n.start("n"), n.end("n"), "signature"
        yield from self._sql(text, text.lower())

    def _sql(self, text: str, low: str) -> Iterator[tuple[int, int, str]]:
        if "insert" not in low:
            return
        for m in _SQL.finditer(text, timeout=self.timeout):
            cols = [c.strip(" \"`'") for c in m.group("cols").split(",")]
            vals = list(_SQL_VALUE.finditer(text, m.start("vals"), m.end("vals")))
            for col, val in zip(cols, vals, strict=False):
                raw = val.group().strip()
                if self.lex.field_keys.fullmatch(col) and raw.startswith("'") and len(raw) > 2:
                    start = val.start() + val.group().index("'") + 1
                    yield start, start + len(raw) - 2, "sql"

    def _recurring(self, text: str, found: list[Finding]) -> list[Finding]:
        """The words of a found name where they stand alone elsewhere ("Hello Dalbir," ... "Dalbir")."""
        words = {
            word
            for f in found
            for word in text[f.start : f.end].split()
            if len(word) >= 3
            and word[0].isupper()
            and word.lower() not in self.lex.ambiguous
            and word.lower() not in self.lex.not_names
        }
        out: list[Finding] = []
        taken = [(f.start, f.end) for f in found]
        for word in words:
            for m in regex.finditer(rf"(?<![\p{{L}}\d'’-]){regex.escape(word)}(?![\p{{L}}\d'’-])", text):
                if not any(s <= m.start() < e for s, e in taken):
                    out.append(Finding(m.start(), m.end(), "PERSON", SCORE - 0.1, "names:recurring"))
        return out


def _line(text: str, pos: int) -> str:
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    return text[start : end if end >= 0 else len(text)]


def _next_line(text: str, pos: int) -> tuple[int, int] | None:
    """The next non-blank line after the one ending at ``pos``, as (start, end)."""
    while pos < len(text):
        start = text.find("\n", pos)
        if start < 0:
            return None
        start += 1
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        if text[start:end].strip(" \t\r>"):
            return start, end
        pos = end
    return None
