"""Cue lexicons (grammar/cues.yaml): loading, one pattern per list, and one scan for all lists.

``compile_cues`` turns a set of words into a pattern; ``CueIndex`` finds every cue of every list
in a text in a single pass (the pattern detectors read the context of a value from that), and
forgives the typing slips people make in chat ("passsport", "numer", "pohne", "biirth").
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

import regex

from scrubber import rulefile
from scrubber.masking import placeholders
from scrubber.rulefile import RuleError

# Slips forgiven in cue words of at least this many letters: one letter left out or two
# neighbours swapped (never the first letter). Any letter may also be typed twice.
TYPO_MIN_LETTERS = 5
# How many distinct matched spellings a CueIndex remembers (bounded: input is untrusted).
SEEN_MAX = 4096
_SEP = " "
_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyz")


def load_cues(path: Path) -> dict[str, tuple[str, ...]]:
    data = rulefile.load(path)
    if not isinstance(data, Mapping) or not isinstance(data.get("cues"), Mapping):
        raise RuleError(path, rulefile.line_of(data), "expected a mapping with a 'cues' mapping")
    out: dict[str, tuple[str, ...]] = {}
    for name, words in data["cues"].items():
        if name == rulefile.LINE_KEY:
            continue
        if (
            not isinstance(words, list)
            or not words
            or not all(isinstance(w, str) and w.strip() for w in words)
        ):
            raise RuleError(
                path, rulefile.line_of(data["cues"]), f"cue list {name!r} must be a list of words"
            )
        out[str(name)] = tuple(w.strip().lower() for w in words)
    return out


def compile_cues(words: Iterable[str], *, typos: bool = False) -> regex.Pattern[str]:
    """One case-insensitive pattern for a set of cue words and phrases, longest first.

    A cue is a whole word: it may not continue a longer word ("card" is not found in
    "discarded"), though it may be followed by a digit ("last4") or an underscore boundary.
    With ``typos``, the slips ``CueIndex`` forgives are found too ("adress").
    """
    alts = []
    for w in sorted(with_slips(words) if typos else set(words), key=len, reverse=True):
        body = r"[\s_-]+".join(regex.escape(part) for part in w.split())
        head = r"(?<![a-z0-9])" if w[0].isalnum() else ""
        tail = r"(?![a-z])" if w[-1].isalnum() else ""
        alts.append(f"{head}{body}{tail}")
    return regex.compile("|".join(alts), regex.IGNORECASE)


# --------------------------------------------------------------------------- one scan, all lists
class CueHit(NamedTuple):
    """A cue word at ``[start, end)`` of the text, and the lists it belongs to.

    A named tuple, not a dataclass: the scan makes one per cue found, on every message, and a
    tuple is built in C (a frozen dataclass's ``__init__`` sets each field through Python).
    """

    start: int
    end: int
    lists: frozenset[str]


_EMPTY: frozenset[str] = frozenset()


class CueHits:
    """The cues of one text, in order; answers "which cue of these lists is near here"."""

    __slots__ = ("_ends", "_hits", "_lists")

    def __init__(self, hits: Iterable[CueHit]) -> None:
        # Kept as given when it is a list (the scan's own, never changed after); what is
        # derived from it is worked out on the first question that needs it.
        self._hits: list[CueHit] = hits if type(hits) is list else list(hits)
        self._ends: list[int] | None = None
        self._lists: frozenset[str] | None = None

    @property
    def lists(self) -> frozenset[str]:
        """Every list with a cue in the text: a rule that requires one of none of them is skipped."""
        lists = self._lists
        if lists is None:
            hits = self._hits
            lists = hits[0][2] if len(hits) == 1 else _EMPTY.union(*[h[2] for h in hits])
            self._lists = lists
        return lists

    def __bool__(self) -> bool:
        return bool(self._hits)

    def __iter__(self) -> Iterator[CueHit]:
        return iter(self._hits)

    def of(self, lists: frozenset[str]) -> Iterator[CueHit]:
        return (h for h in self._hits if h.lists & lists)

    def _ends_of(self) -> list[int]:
        ends = self._ends
        if ends is None:
            ends = self._ends = [h[1] for h in self._hits]
        return ends

    def last_before(
        self, lists: frozenset[str], lo: int, hi: int, skip: Callable[[CueHit], bool] | None = None
    ) -> int:
        """End of the last cue of ``lists`` that ends in ``[lo, hi]``, or -1; with ``skip``,
        the last such cue for which ``skip`` is false."""
        i = bisect.bisect_right(self._ends_of(), hi) - 1
        while i >= 0:
            h = self._hits[i]
            if h.end < lo:
                return -1
            if h.lists & lists and (skip is None or not skip(h)):
                return h.end
            i -= 1
        return -1

    def first_after(self, lists: frozenset[str], lo: int, hi: int) -> int:
        """Start of the first cue of ``lists`` that starts in ``[lo, hi]``, or -1."""
        i = bisect.bisect_left(self._ends_of(), lo + 1)
        while i < len(self._hits):
            h = self._hits[i]
            if h.start > hi:
                return -1
            if h.start >= lo and h.lists & lists:
                return h.start
            i += 1
        return -1


# What a text without cues gets (most texts): one shared, never changed.
NO_HITS = CueHits(())


def _runs(word: str) -> list[tuple[str, int]]:
    """``word`` as runs of one character: "passport" -> p a ss p o r t (separators as one)."""
    out: list[tuple[str, int]] = []
    for ch in word:
        if ch.isspace() or ch in "_-":
            ch = _SEP
        if out and out[-1][0] == ch:
            if ch != _SEP:
                out[-1] = (ch, out[-1][1] + 1)
            continue
        out.append((ch, 1))
    return out


def _key(text: str) -> str:
    """What a matched cue and the word it stands for have in common: runs and separators collapsed."""
    return "".join(ch for ch, _ in _runs(text.lower()))


def with_slips(words: Iterable[str]) -> set[str]:
    """``words`` (lower case, one space between words) and the typing slips of each."""
    out: set[str] = set()
    for word in words:
        w = " ".join(word.lower().split())
        out.add(w)
        out |= _slips(w)
    return out


def _slips(word: str) -> set[str]:
    """``word`` with one letter left out or two neighbours swapped, first letter kept."""
    out: set[str] = set()
    for part_start, part in _parts(word):
        if len(part) < TYPO_MIN_LETTERS or not part.isalpha():
            continue
        for i in range(1, len(part)):
            out.add(word[: part_start + i] + word[part_start + i + 1 :])
        for i in range(1, len(part) - 1):
            a, b = part_start + i, part_start + i + 1
            if word[a] != word[b]:
                out.add(word[:a] + word[b] + word[a] + word[b + 1 :])
    return out


def _parts(word: str) -> Iterator[tuple[int, str]]:
    start = 0
    for piece in word.split(" "):
        yield start, piece
        start += len(piece) + 1


def _trie_pattern(variants: Iterable[str], *, possessive: bool = False) -> str:
    trie: dict[tuple[str, int], dict] = {}  # type: ignore[type-arg]
    end = ("", 0)
    for v in variants:
        node = trie
        for run in _runs(v):
            node = node.setdefault(run, {})
        node[end] = {}

    def emit(node: dict) -> str:  # type: ignore[type-arg]
        alts = []
        for (ch, n), child in sorted(node.items(), key=lambda kv: (-kv[0][1], kv[0][0])):
            if (ch, n) == end:
                continue
            # A run may be typed up to two letters longer; a separator is 1-3 characters. Spelling
            # the run out (not "c{1,3}") lets the engine dispatch on the first character.
            lit = re.escape(ch)
            if ch == _SEP:
                piece = r"[\s_-]{1,3}"
            elif possessive and ch in _LETTERS:
                # What follows a run of a letter never starts with that letter (the next run
                # is another character, and a word's end must not be followed by a letter), so
                # giving back a letter of the run can never let a match succeed: the extra
                # letters are taken for good, and the engine keeps no state to backtrack into.
                piece = lit * n + lit + "{0,2}+"
            else:
                piece = lit * n + f"{lit}?{lit}?"
            alts.append(piece + emit(child))
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        return f"(?:{body})?" if end in node else body

    return emit(trie)


def _compile(variants: frozenset[str]) -> tuple[re.Pattern[str], re.Pattern[str], int]:
    """The scan's pattern for lower-cased text, the one that ignores case (see ``scan``), and
    how many characters the first one reads before the cue (1: it runs on " " + the text).

    A pattern that starts with a look-behind makes ``re`` try every position of the text. So
    where it is exact, the first pattern reads the character before the cue instead (a space
    put in front of the text stands in for its start), and ``re`` skips in C to the characters
    that are no letter or digit. Exact when every spelling starts with a letter: reading that
    character hides it from the next match, which changes what is found only if a cue could
    start right where the last one ended, and a cue's end is never followed by a letter.
    """
    if not variants:
        never = re.compile(r"(?!)")
        return never, never, 0
    fast = _trie_pattern(variants, possessive=True)
    body = _trie_pattern(variants)
    folding = re.compile(rf"(?<![a-z0-9])(?:{body})(?![a-z])", re.IGNORECASE)
    firsts = {v[0] for v in variants}
    if firsts <= _LETTERS:
        # Then a look-ahead for those letters: where no cue starts (a blank, a digit or a letter
        # no cue starts with follows), one bit test instead of a test of each branch of the tree.
        ahead = "".join(sorted(firsts))
        return re.compile(rf"[^a-z0-9](?=[{ahead}])(?:{fast})(?![a-z])"), folding, 1
    return re.compile(rf"(?<![a-z0-9])(?:{fast})(?![a-z])"), folding, 0


class CueIndex:
    """Every cue of every list, found in one pass over a text.

    The words of all lists go into one prefix tree compiled to a single pattern. A cue is a
    whole word ("card" is not in "discarded") but may run into digits ("last4", "ssn#123"). Each
    run of a letter may be typed longer ("biirth"), and words of five letters or more are also
    found with one letter left out or two swapped ("numer", "pohne"); the first letter must be
    right.

    Unlike the value patterns, this one runs on the standard library's engine, without a
    timeout: it is generated here from literal words, every quantifier is bounded and followed
    by a different character, so matching is linear in the text (at most a few steps per cue
    letter at each position) and cannot run away. On this shape ``re`` is about 50 times faster
    than ``regex`` (measured: 5 us against 300+ us for a 120-character message).
    """

    def __init__(self, lists: Mapping[str, Sequence[str]]) -> None:
        owners: dict[str, set[str]] = {}
        variants: set[str] = set()
        for name, words in lists.items():
            for word in words:
                w = " ".join(word.lower().split())
                for v in {w, *_slips(w)}:
                    variants.add(v)
                    owners.setdefault(_key(v), set()).add(name)
        self._owners = {k: frozenset(v) for k, v in owners.items()}
        # Matched spellings already looked up; a message repeats the same few.
        self._seen: dict[str, frozenset[str]] = {}
        self.lists = frozenset(lists)
        self._variants = frozenset(variants)
        self._pattern, self._folding, self._pad = _compile(self._variants)
        # Patterns of the variants of some lists only, for ``may_find`` (built when first asked).
        self._narrow: dict[frozenset[str], tuple[re.Pattern[str], re.Pattern[str], int]] = {}

    def may_find(self, text: str, lists: frozenset[str]) -> bool:
        """Whether ``scan(text)`` may find a cue of ``lists``; False proves it finds none.

        One search in C with a smaller pattern, before the scan of a text that usually has no
        such cue. The pattern holds every spelling whose owners include one of ``lists``. Were
        the scan to find a cue of ``lists`` at ``[s, e)``, that text is such a spelling (with
        runs typed longer), so this pattern can match at ``s`` too, behind the same look-behind
        and before the same look-ahead; its search, going left to right, then stops at ``s``
        or before. (The converse does not hold: the scan may read a longer cue of another list
        there.)
        """
        narrow = self._narrow.get(lists)
        if narrow is None:
            owners = self._owners
            narrow = _compile(frozenset(v for v in self._variants if owners[_key(v)] & lists))
            if len(self._narrow) < 64:
                self._narrow[lists] = narrow
        lower = text.lower()
        if len(lower) == len(text):
            return narrow[0].search(" " + lower if narrow[2] else lower) is not None
        return narrow[1].search(text) is not None

    def scan(self, text: str) -> CueHits:
        """The cues in ``text``."""
        lower = text.lower()
        # Lower-casing is faster than a case-blind pattern, but a few characters change length
        # ("İ"); then the offsets would drift, so fall back to matching without regard to case.
        pad = 0
        if len(lower) != len(text):
            matches = self._folding.finditer(text)
        elif self._pad:
            # The pattern reads the character before each cue: match offsets in " " + lower
            # are the cue's own in ``text``, except that the match ends one later.
            pad = 1
            matches = self._pattern.finditer(" " + lower)
        else:
            matches = self._pattern.finditer(lower)
        hits: list[CueHit] = []
        seen = self._seen
        for m in matches:
            start, end = m.span()
            end -= pad
            word = lower[start:end] if pad else m.group()
            lists = seen.get(word)
            if lists is None:
                lists = self._owners.get(_key(word), _EMPTY)
                if len(seen) < SEEN_MAX:
                    seen[word] = lists
            if lists:
                hits.append(_new_hit(CueHit, (start, end, lists)))
        if not hits:
            return NO_HITS
        if "[" in text or "<" in text:
            # A label that scrubbing wrote ("[PHONE_NUMBER]") names no value after it.
            spans = placeholders(text)
            if spans:
                hits = [h for h in hits if not any(s <= h[0] and h[1] <= e for s, e in spans)]
        return CueHits(hits)


# Builds a CueHit from a tuple in C, without the Python-level ``__new__`` of a named tuple.
_new_hit = tuple.__new__
