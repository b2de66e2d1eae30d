"""Many strings looked for in a long text in one pass, for the engine's repeats of found values
and the name detector's recurring names."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

# Past this many characters searched (strings x text length), a search for each string in turn
# costs more than one pass over the text's words: the callers switch there.
FIND_BUDGET = 2_000_000
# A run of letters and digits. Linear by construction (one class, no alternation), so it runs
# on the standard library's engine without a timeout, like the cue scan.
WORD = re.compile(r"[^\W_]+")


def occurrences_indexed(text: str, values: Iterable[str]) -> Iterator[tuple[str, int]]:
    """Occurrences of many values in one pass over the words of the text, as (value, start).

    Each value is looked for only where its longest word stands ("okafor42" rather than "maya"
    or "com"): any of its words would do for an occurrence with no letter or digit on either
    side, which is all the callers keep, and the longest is mostly the rarest. A value with no
    letter or digit is not looked for. Each value's occurrences come left to right; values are
    interleaved by where their looked-for word stands. Searching for each value in turn would
    cost values x text length: minutes for a long message with thousands of findings.
    """
    wanted: dict[str, list[tuple[str, int]]] = {}
    for value in values:
        runs = [(m.group(), m.start()) for m in WORD.finditer(value)]
        if runs:
            word, offset = max(runs, key=lambda r: len(r[0]))
            wanted.setdefault(word, []).append((value, offset))
    get = wanted.get
    for m in WORD.finditer(text):
        found = get(m.group())
        if found is not None:
            pos = m.start()
            for value, offset in found:
                at = pos - offset
                if at >= 0 and text.startswith(value, at):
                    yield value, at
