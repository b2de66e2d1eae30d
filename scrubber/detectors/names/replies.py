"""Names given in reply: to a line that asks for one ("Agent: Who am I speaking with?" /
"Customer: Beatriz Souza"), and in a quoted mail's attribution line ("On 3/1/25, Trevor
Blackwood wrote:")."""

from __future__ import annotations

from collections.abc import Iterator

import regex

from scrubber.detectors.names.anchors import Candidate
from scrubber.detectors.names.lexicon import NameLexicon
from scrubber.detectors.names.lines import lines_holding, next_line, speaker
from scrubber.detectors.names.shapes import CASED_WORD, INITIAL, shaped, trim, uncommon


def replies(lex: NameLexicon, text: str, timeout: float) -> Iterator[Candidate]:
    """Names given in reply to a line that asks for one ("Agent: Who am I speaking with?"
    / "Customer: Beatriz Souza"): the next one or two lines, by another speaker."""
    done = -1  # end of the last question line looked at
    for m in _asked(lex, text, timeout):
        if m.start() < done:
            continue
        s = text.rfind("\n", 0, m.start()) + 1
        e = text.find("\n", m.end())
        e = len(text) if e < 0 else e
        done = e
        # A question, or in a transcript a request ("Agent: please confirm your full name").
        asker = speaker(text, s, e)[0]
        if "?" not in text[m.end() : e] and (
            asker is None or lex.requests.search(text, s, e, timeout=timeout) is None
        ):
            continue
        pos = e
        for _ in range(2):
            nxt = next_line(text, pos)
            if nxt is None:
                break
            ls, pos = nxt
            who, body = speaker(text, ls, pos)
            if asker is not None:
                if who is None:
                    break
                if who.lower() == asker.lower():
                    continue
            lowered = text[body:pos].islower()
            pattern = lex.reply_lower if lowered else lex.reply_cased
            n = pattern.match(text, body, pos, timeout=timeout)
            # A reply that is no name ("one sec") leaves the next line to look at.
            spans = [] if n is None else n.spans("n")
            if spans and all(uncommon(lex, text, a, b) and trim(lex, text, a, b) == b for a, b in spans):
                for a, b in spans:
                    yield a, b, "reply"
                break


def _asked(lex: NameLexicon, text: str, timeout: float) -> Iterator[regex.Match[str]]:
    """The questions for a name in ``text``, in order. A question stands on one line (its words
    are apart by blanks and tabs) and holds one of ``lex.ask_gate`` in lower case: only such
    lines are searched, not the whole of a long message."""
    low = text.lower()
    if len(low) != len(text):  # a character changed length ("İ"): offsets would drift
        yield from lex.asks.finditer(text, timeout=timeout)
        return
    for start, end in lines_holding(low, lex.ask_gate):
        yield from lex.asks.finditer(text, start, end, timeout=timeout)


def wrote(lex: NameLexicon, text: str, timeout: float) -> Iterator[Candidate]:
    """The name in a reply's attribution line: "On 3/1/25, Trevor Blackwood wrote:",
    "... AM Trevor Blackwood <t@x.com> wrote:", "Am 03.03.2025 schrieb Jana Novak:".
    The verb stands on one line and holds one of ``lex.wrote_gate``: only those lines are read."""
    verbs = (m for a, b in lines_holding(text, lex.wrote_gate) for m in lex.wrote.finditer(text, a, b))
    for m in verbs:
        s = text.rfind("\n", 0, m.start()) + 1
        if m.group("after") is not None:
            n = lex.more["wrote_after"].match(text, m.start(), timeout=timeout)
            if n is not None and shaped(lex, text[n.start("n") : n.end("n")].split(), False, 4):
                yield n.start("n"), n.end("n"), "wrote"
        head = text[s : m.start()].rstrip()
        # An address or a quoted display name before the verb: <t@x.com>, "Trevor".
        if head.endswith(">") and "<" in head:
            head = head[: head.rfind("<")].rstrip()
        head = head.rstrip("\"'").rstrip()
        taken: list[str] = []
        for word in reversed(head.split()):
            if word in lex.particles and taken:
                taken.append(word)
                continue
            if (
                len(taken) >= 4
                or word.lower() in lex.no_name
                or (CASED_WORD.fullmatch(word.strip("\"'")) is None and INITIAL.fullmatch(word) is None)
            ):
                break
            taken.append(word)
        while taken and (taken[-1] in lex.particles or INITIAL.fullmatch(taken[-1])):
            taken.pop()
        if taken:
            end = s + len(head)
            pos = len(head)
            for word in taken:
                pos = head.rfind(word, 0, pos)
            yield s + pos + (head[pos] in "\"'"), end, "wrote"
