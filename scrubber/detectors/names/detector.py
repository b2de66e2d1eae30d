"""The name detector: every part's candidates, trimmed, and a found name's other places."""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable, Iterator

from scrubber.detectors import REGEX_TIMEOUT, MessageContext
from scrubber.detectors.names import layout, records, replies
from scrubber.detectors.names.anchors import Anchors, Candidate, cancelled
from scrubber.detectors.names.lexicon import NameLexicon
from scrubber.detectors.names.model import firm_word_after
from scrubber.detectors.names.patterns import SIG_DASHES
from scrubber.detectors.names.shapes import joins, trim
from scrubber.detectors.patterns import RegexTimeout
from scrubber.findings import Finding
from scrubber.textsearch import FIND_BUDGET, occurrences_indexed

SCORE = 0.85
_DASH, _EM_DASH, _EN_DASH = SIG_DASHES
# Small words of English that no name holds capitalised after its first word ("Goods In").
_SMALL_WORDS = frozenset({"in", "on", "at", "to", "for", "of", "the", "and", "or", "with", "from"})


# Where one ordinary word is a role, not a name: after a greeting, as a speaker's label.
ROLE_PLACES = frozenset({"greeting", "transcript"})


class NameDetector:
    """PERSON by context; a name found once is also masked where it recurs in the message."""

    name = "names"
    entities = frozenset({"PERSON"})

    def __init__(
        self,
        lexicon: NameLexicon,
        *,
        timeout: float = REGEX_TIMEOUT,
        ordinary_word: Callable[[str], bool] | None = None,
        firm_word: Callable[[str], bool] | None = None,
    ) -> None:
        self.lex = lexicon
        self.timeout = timeout
        # Whether a lower-case word is an ordinary English word and no given name (the name
        # model's lexicon says so): one such word after a greeting or as a speaker's label is
        # a role or a group, not a person ("Dear Reader", "Hi Supplier", "Patron: hi").
        self.ordinary_word = ordinary_word
        # Whether a capitalised word makes the name before it a company's (the name model's
        # NameModel.firm_word): a name that ends in one or runs into one is no person's
        # ("Halvorsen Mutual", "Ferreira Building Society").
        self.firm_word = firm_word
        self.anchors = Anchors(lexicon, timeout=timeout)

    def detect(self, text: str, ctx: MessageContext) -> list[Finding]:
        try:
            candidates = self._candidates(text)
        except TimeoutError as exc:
            raise RegexTimeout("person") from exc
        if not candidates:
            return []
        spans: dict[tuple[int, int], str] = {}
        for start, end, how in candidates:
            # A possessive is not part of the name: "dr. karagiannis's office".
            if end - start > 3 and text[end - 2 : end] in ("'s", "’s"):
                end -= 2
            # Nor the quote that closes a value: "'last_name': 'Carvalho'".
            elif end - start > 2 and text[end - 1] in "'’":
                end -= 1
            cut = trim(self.lex, text, start, end)
            if (
                how in ROLE_PLACES
                and self.ordinary_word is not None
                and " " not in text[start:cut]
                and self.ordinary_word(text[start:cut].lower())
            ):
                continue
            if self.firm_word is not None and self._firm(text, start, cut):
                continue
            if self._role(text, start, cut):
                continue
            # Only where nothing has to follow the name may it be cut short.
            if cut == end or (how in self.lex.open_ended and cut > start):
                spans[start, cut] = how
        out = [Finding(s, e, "PERSON", SCORE, f"names:{how}") for (s, e), how in sorted(spans.items())]
        if out:
            out.extend(self._recurring(text, out))
        return out

    def _role(self, text: str, start: int, end: int) -> bool:
        """Whether a key's value names a role or a place in a firm, not a person: words of
        `job_words` only ("Approved by: Director of Finance"), or a capitalised small word of
        English after the first ("Deliver to: Goods In")."""
        words = [w.strip(".,") for w in text[start:end].split()]
        if not words:
            return False
        if all(w.lower() in self.lex.job_words for w in words):
            return True
        return any(w[:1].isupper() and w.lower() in _SMALL_WORDS for w in words[1:])

    def _firm(self, text: str, start: int, end: int) -> bool:
        """Whether a name of two words or more ends in a company's word, or one runs into it
        that is no field's label (a value after it: "Customer: Maria Lopez Account 4411")."""
        assert self.firm_word is not None
        last = text.rfind(" ", start, end)
        if last > start and self.firm_word(text[last + 1 : end]):
            return True
        return firm_word_after(text, end, self.firm_word)

    def _candidates(self, text: str) -> list[Candidate]:
        """Names in their contexts, as (start, end, context); not yet trimmed. Where two parts
        find the same span, the later one names it."""
        lex, t = self.lex, self.timeout
        out: list[Candidate] = []
        hits = lex.trigger.scan(text)
        # Worked out only once a pattern is about to run (most messages run none).
        mistyped: frozenset[str] | None = None
        closings: list[int] = []  # starts of the lines that may be closing lines
        commas: list[int] = []  # commas before a record's cue in running text
        if hits:
            out, mistyped = self.anchors.names(text, hits, closings, commas)
        if "<" in text or "]" in text:
            out.extend(layout.labels(lex, text, t))
        if "@" in text and "<" in text:
            out.extend(layout.display_names(lex, text, t))
        dashes = _DASH in text or _EM_DASH in text or _EN_DASH in text
        if closings or dashes:
            starts = layout.closing_lines(text, closings, dashes)
            if starts:
                if mistyped is None:
                    mistyped = self.anchors.triggers.mistyped(text, hits)
                out.extend(layout.signatures(lex, "closing" in mistyped, text, starts, t))
        low = text.lower()
        if "insert" in low:
            out.extend(records.sql(lex, text, t))
        if "\n" in text:
            # Only where a question's word is: a plain loop, cheaper than any() on chat lines.
            for piece in lex.ask_gate:
                if piece in low:
                    out.extend(replies.replies(lex, text, t))
                    break
        if "\n" in text:
            out.extend(layout.structure(lex, text, self.ordinary_word))
        if commas:
            out.extend(records.person_records(lex, text, t, commas))
        if ":" in text:
            for piece in lex.wrote_gate:
                if piece in text:
                    out.extend(replies.wrote(lex, text, t))
                    break
        out.extend(records.more(lex, text, t))
        if not out:
            return out
        out.extend(records.list_rest(lex, text, out, t))
        return [c for c in out if not cancelled(lex, text, *c)]

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
        # A place is taken if a finding covers it: of the findings (in order) that start at or
        # before it, the one that reaches furthest reaches past it.
        starts = [f.start for f in found]
        reach = list(itertools.accumulate((f.end for f in found), max))
        for word, i in _occurrences(text, words):
            j = i + len(word)
            k = bisect.bisect_right(starts, i) - 1
            if k < 0 or reach[k] <= i:
                out.append(Finding(i, j, "PERSON", SCORE - 0.1, "names:recurring"))
        return out


def _occurrences(text: str, words: set[str], budget: int = FIND_BUDGET) -> Iterator[tuple[str, int]]:
    """Each word's whole-word occurrences in ``text`` that do not overlap one another, left to
    right (as a regex scan of that word alone finds them), as (word, start).

    A search for each word in turn is the fastest in a message of a few lines, but costs words x
    length: in a long message with many names, one pass over the text's words
    (textsearch.occurrences_indexed, as the engine finds repeats of values).
    """
    size = len(text)
    if len(words) * size <= budget:
        for word in words:
            i = text.find(word)
            while i >= 0:
                j = i + len(word)
                if (i == 0 or not joins(text[i - 1])) and (j == size or not joins(text[j])):
                    yield word, i
                    i = text.find(word, j)
                else:
                    i = text.find(word, i + 1)
        return
    # Past the budget, the places where any of the words stands, found in one pass, each
    # word's in turn kept as the search for it alone would: whole words, not overlapping.
    found = []
    free = dict.fromkeys(words, 0)  # where each word's next occurrence may start
    for word, i in occurrences_indexed(text, words):
        j = i + len(word)
        if i >= free[word] and (i == 0 or not joins(text[i - 1])) and (j == size or not joins(text[j])):
            free[word] = j
            found.append((i, word))
    for i, word in sorted(found):
        yield word, i
