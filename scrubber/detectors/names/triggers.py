"""Trigger phrases: a context's phrase as written in the lexicon and as found in a message,
spelt right or mistyped, and the phrases of other contexts that hide inside a longer one ("many
thanks" holds the greeting "thanks"; the scan reports only the longest)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from scrubber.detectors.cues import SEEN_MAX, CueHits, with_slips
from scrubber.detectors.names.lines import skip_space
from scrubber.detectors.names.shapes import SEPARATORS

# A context's phrase inside a longer one: (start, end or -1 if it runs on past the longer
# phrase, context, what must follow the longer phrase then: " word" after a blank, or "'s").
Inner = tuple[int, int, str, str]
# The phrases inside a trigger phrase worth a look, by what follows it: whether a blank does
# (blanks, "_" and "-"), and the next character after it lower-cased ("" at the end of the
# text; None beyond ASCII, where every phrase of that kind is looked at).
ByNext = dict[tuple[bool, str | None], tuple[Inner, ...]]
# The words of a trigger phrase as matched, between the separators the scan allows.
_WORD = re.compile(r"[^\s_-]+")


def phrase(text: str) -> str:
    """A phrase as written or as found: lower case, one space between words."""
    return " ".join(SEPARATORS.split(text.lower())).strip()


def run_starts(text: str, i: int) -> bool:
    """Whether a run of letters or digits starts at ``i`` (where a context's phrase may start)."""
    return text[i].isalnum() and (i == 0 or not text[i - 1].isalnum())


def inner_table(phrases: Mapping[str, Sequence[str]]) -> dict[str, tuple[Inner, ...]]:
    """For each phrase that is not one plain word, where the phrases of each context sit in it.

    "many thanks" holds the greeting "thanks", "user.name is" the intro "name is"; a phrase
    may also run on past the end ("you" in "thank you" starts "you are speaking with"), and
    then what must come next is kept: its next word (after a blank), or the rest of the word
    ("'s" of "name's"). Slips count, as the mistyped patterns allow them.
    """
    by_first: dict[str, list[tuple[str, str]]] = {}
    for how, group in phrases.items():
        for v in with_slips(group):
            q = phrase(v)
            by_first.setdefault(q[0], []).append((q, how))
    table: dict[str, tuple[Inner, ...]] = {}
    for p in {phrase(x) for group in phrases.values() for x in group}:
        if p.isalnum():
            continue
        entries: set[Inner] = set()
        for k in range(len(p)):
            if not run_starts(p, k):
                continue
            rest = p[k:]
            for q, how in by_first.get(p[k], ()):
                if rest.startswith(q):
                    end = k + len(q)
                    # A phrase that ends inside a word of ``p`` cannot match there (``\b``).
                    if end == len(p) or not (q[-1].isalnum() and p[end].isalnum()):
                        entries.add((k, end, how, ""))
                elif q.startswith(rest):
                    entries.add((k, -1, how, _next_piece(q[len(rest) :])))
        table[p] = tuple(sorted(entries))
    return table


def _next_piece(more: str) -> str:
    """What a phrase that runs on needs next: " so" of " so much", "'s" of "'s"."""
    if more[0] == " ":
        return " " + more.split(" ")[1]
    return more.split(" ")[0]


class Triggers:
    """What the phrases the scan found hide, and which are mistyped; remembers the phrases seen."""

    def __init__(self, table: Mapping[str, tuple[Inner, ...]], phrases: frozenset[str]) -> None:
        self._table = table
        self._phrases = phrases
        # Trigger phrases that are not one plain word, as matched (a message repeats the same
        # few): whether spelt right, and the phrases inside. Bounded: input is untrusted.
        self._seen: dict[str, tuple[bool, tuple[Inner, ...], ByNext]] = {}

    def mistyped(self, text: str, hits: CueHits) -> frozenset[str]:
        """The contexts with a mistyped phrase in the message: their patterns allow the slips."""
        out: set[str] = set()
        for hit in hits:
            matched = text[hit.start : hit.end]
            if matched.isalnum():
                if matched.lower() not in self._phrases:
                    out |= hit.lists
            elif not self.inside_of(matched)[0]:
                out |= hit.lists
        return frozenset(out)

    def inside_of(self, matched: str) -> tuple[bool, tuple[Inner, ...], ByNext]:
        """Whether a trigger phrase (not one plain word) is spelt right, the phrases in it, and
        those worth a look given what follows it (``_by_next``).

        As in ``inner_table``, with offsets within ``matched``; context "" stands for
        every context, at each word of a mistyped phrase (nothing is known of what it hides).
        """
        known = self._seen.get(matched)
        if known is not None:
            return known
        low = matched.lower()
        words = [(m.start(), m.end()) for m in _WORD.finditer(low)]
        said = " ".join(low[a:b] for a, b in words)
        table = self._table.get(said) if len(low) == len(matched) else None
        if table is not None:
            # Offsets in the phrase as written in the lexicon -> offsets in the text.
            where: list[tuple[int, int]] = []  # (offset in the phrase, offset in the text)
            at = 0
            for a, b in words:
                where.append((at, a))
                at += b - a + 1

            entries = tuple(
                (_place(where, k), _place(where, e) if e >= 0 else -1, how, nxt) for k, e, how, nxt in table
            )
            known = (True, entries, _by_next(entries))
        else:
            starts = [i for i in range(len(matched)) if run_starts(matched, i)]
            entries = tuple((i, -1, "", "") for i in starts)
            known = (said in self._phrases, entries, _by_next(entries))
        if len(self._seen) < SEEN_MAX:
            self._seen[matched] = known
        return known


def _by_next(entries: tuple[Inner, ...]) -> ByNext:
    """``entries`` by what must follow the phrase for each to be there (see ``continues``).

    One that needs nothing is always kept. One that runs on with " word" needs a blank and
    then the word's first letter; one that runs on within the word ("'s") needs no blank and
    its first character at once (never a blank: phrases are split at blanks). An ASCII
    character is that letter when lower-cased, or the first of the case-folded piece. Entries
    keep their order (records are noted in the order of their places).
    """

    def firsts(nxt: str) -> set[str]:
        piece = nxt[1:] if nxt[0] == " " else nxt
        return {piece[0], piece.casefold()[:1]}

    def kept(nxt: str, blank: bool, c: str | None) -> bool:
        return not nxt or ((nxt[0] == " ") == blank and (c is None or c in firsts(nxt)))

    keys: set[tuple[bool, str | None]] = {(b, c) for b in (False, True) for c in ("", None)}
    keys |= {(nxt[0] == " ", c) for *_, nxt in entries if nxt for c in firsts(nxt)}
    return {(blank, c): tuple(x for x in entries if kept(x[3], blank, c)) for blank, c in keys}


def continues(text: str, i: int, nxt: str) -> bool:
    """Whether the text at ``i`` goes on as a phrase does: " word" after blanks, or "'s" at once."""
    if nxt[0] == " ":
        j = skip_space(text, i, "_-")
        if j == i:
            return False
        i, nxt = j, nxt[1:]
    piece = text[i : i + len(nxt)]
    return piece.lower() == nxt or piece.casefold() == nxt.casefold()


def _place(where: list[tuple[int, int]], x: int) -> int:
    """The text offset of offset ``x`` of a phrase, given where each word starts in both."""
    for n, a in reversed(where):
        if n <= x:
            return a + x - n
    return x
