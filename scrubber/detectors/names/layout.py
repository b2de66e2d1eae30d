"""Names a message's layout gives away: the name under a closing line or a "-- " delimiter,
speakers' labels in a chat or a transcript, e-mail display names, a mail's vocative first line,
the name line of an address block, and a signature block without a closing."""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Callable, Iterator

import regex

from scrubber.detectors.names.anchors import Candidate, matches
from scrubber.detectors.names.lexicon import NameLexicon
from scrubber.detectors.names.lines import has_digit, line_opened_by, lines_with, next_line, skip, skip_space
from scrubber.detectors.names.patterns import SIG_DASHES
from scrubber.detectors.names.shapes import SEPARATORS, may_start, role, shaped

# The words after a chat label's colon.
LOG_REST = regex.compile(r"[\p{L}\d][\p{L}\d'’_-]*")
# A line's speaker label in a transcript: "[22:05] henrike schäfer:", "Avi P.:", "João (support):".
_LABEL_LINE = regex.compile(
    r"[ \t>]*(?:\[\d{1,2}:\d\d(?::\d\d)?(?:[ \t]?[AaPp][Mm])?\][ \t]*)?"
    r"(?P<who>\p{L}[\p{L}\p{M}'’._\d-]*(?:[ \t]+\p{L}[\p{L}\p{M}'’._\d-]*){0,3})"
    r"(?:[ \t]*\((?P<role>[\p{L} \t]{1,24})\))?[ \t]*:(?:[ \t]+|\r?$)"
)
# The "<local@" of a "Name <local@": a cheap, linear search for the lines where the display-name
# pattern may match. A match of that pattern holds one, on its last line, and stands on one
# line (a name's words are apart by blanks and tabs, its address has no whitespace), unless a
# particle of several words is written over a line break ("de\nla": see _broken_particles).
_DISPLAY_HINT = re.compile(r"<[^<>@\n]+@")
# A line that opens with "<" or "[" after blanks and ">" (a "\n" first, so that ``re`` skips in
# C from one line break to the next): where a chat nick or a stamp may be.
_BRACKETED = re.compile(r"\n[ \t>]*[<\[]")


def closing_lines(text: str, closings: list[int], dashes: bool) -> list[int]:
    """The lines where a closing may stand (``closings``), and those of a "-- " delimiter."""
    for dash in SIG_DASHES if dashes else ():
        pos = text.find(dash)
        while pos >= 0:
            s = _dash_line(text, pos)
            if s >= 0:
                closings.append(s)
            end = text.find("\n", pos)
            pos = text.find(dash, end) if end >= 0 else -1
    return closings


def signatures(
    lex: NameLexicon, slipped: bool, text: str, starts: list[int], timeout: float
) -> Iterator[Candidate]:
    """The name on the line after a closing line ("Best regards,") or a "-- " delimiter;
    ``starts``: the lines where one may stand, ``slipped``: a closing was mistyped."""
    exact = lex.exact.closing
    # A mistyped closing anywhere ("your" for "yours") makes every closing line run the
    # pattern with the slips of all closings, about five times the cost. Where the exact
    # pattern matches, that one does too, and ends at the same place unless a longer closing
    # ran on over the line's end ("Best\nregads"): not past a mark no closing holds.
    first = (exact, functools.partial(_stopped, lex.closing_stops, text)) if slipped else None
    pattern = lex.slipped.closing if slipped else exact
    for m in matches(pattern, text, sorted(set(starts)), timeout, first):
        nxt = next_line(text, m.end())
        if nxt is not None:
            s, e = nxt
            if may_start(text, skip_space(text, s, ">"), False):
                n = lex.name_line.fullmatch(text, s, e, timeout=timeout)
                if n is not None:
                    yield n.start("n"), n.end("n"), "signature"


def _stopped(stops: frozenset[str], text: str, m: regex.Match[str]) -> bool:
    """Whether a closing line's match ends the text or ends in one of ``stops`` ("Cheers,")."""
    end = m.end()
    if end == len(text):
        return True
    k = end
    while k > m.start() and text[k - 1] in " \t\r":
        k -= 1
    return text[k - 1 : k] in stops


def _dash_line(text: str, pos: int) -> int:
    """Start of the line of a dash at ``pos`` if the line may be a signature delimiter, else -1."""
    s = line_opened_by(text, pos)
    if s < 0:
        return -1
    i = skip(text, skip(text, pos, "-–—"), " \t\r")
    return s if i == len(text) or text[i] == "\n" else -1


def labels(lex: NameLexicon, text: str, timeout: float) -> Iterator[Candidate]:
    """Chat speakers: "[10:42] Priya Shah: ...", "<Tom Becker> hi there" (no role, no log)."""
    for s in _label_lines(text):
        n = lex.label.match(text, s, timeout=timeout)
        if (
            n is not None
            and not log_label(lex, text, n.start("n"), n.end("n"))
            and not role(lex, n.group("n"))
        ):
            yield n.start("n"), n.end("n"), "label"


def _label_lines(text: str) -> list[int]:
    """Starts of the lines that open with a chat stamp ("[10:42]") or a nick ("<Tom"): where
    the label pattern may match. Log stamps ("[2024-06-01 ...") are ruled out by their third
    or fourth character."""
    out: list[int] = []
    # (start of the line, its first character after blanks and ">"): the first line, and the
    # others that open with "<" or "[" found in one scan, not by a step for every line.
    heads = [(0, skip(text, 0, " \t>"))]
    heads.extend((m.start() + 1, m.end() - 1) for m in _BRACKETED.finditer(text))
    for s, i in heads:
        ch = text[i : i + 1]
        if (ch == "<" and may_start(text, i + 1, False)) or (
            ch == "[" and text[i + 1 : i + 2].isdigit() and ":" in text[i + 2 : i + 4]
        ):
            out.append(s)
    return out


def log_label(lex: NameLexicon, text: str, s: int, e: int) -> bool:
    """Whether a chat label's shape is a log's words ("[14:22] Connection Reset: retrying"):
    a word of the label is a log word, or only log words (and numbers) follow it."""
    if any(word.lower() in lex.log_words for word in text[s:e].split()):
        return True
    colon = text.find(":", e)
    stop = text.find("\n", colon)
    rest = LOG_REST.findall(text, colon + 1, len(text) if stop < 0 else stop)
    return 0 < len(rest) <= 3 and all(w.lower() in lex.log_words or w.isdigit() for w in rest)


def display_names(lex: NameLexicon, text: str, timeout: float) -> Iterator[Candidate]:
    """E-mail display names: "From: Chloe Hanna <chloe@...>", '"Oyelaran, Tunde" <t@...>'."""
    if _DISPLAY_HINT.search(text) is None:
        return
    broken = _broken_particles(lex.particles)
    if broken is not None and broken.search(text) is not None:
        for m in lex.display.finditer(text, timeout=timeout):
            for s, e in m.spans("n"):
                yield s, e, "display"
        return
    for start, end in lines_with(_DISPLAY_HINT, text):
        for m in lex.display.finditer(text, start, end, timeout=timeout):
            for s, e in m.spans("n"):
                yield s, e, "display"


@functools.lru_cache(maxsize=4)
def _broken_particles(particles: frozenset[str]) -> re.Pattern[str] | None:
    """A particle of several words written over a line break ("de\nla"): the names' patterns
    join its words with any whitespace, so a display name may run over two lines there."""
    parts = [p.split() for p in particles if len(p.split()) > 1]
    if not parts:
        return None
    gap = r"[\s_-]*\n[\s_-]*"
    return re.compile("|".join(gap.join(map(re.escape, words)) for words in parts), re.IGNORECASE)


# A team's acronym in capitals ("HR", "IT", "QA").
_ACRONYM = re.compile(r"[A-Z][A-Z&]{1,3}")


def _name_and_role(
    lex: NameLexicon, text: str, a: int, b: int, ordinary: Callable[[str], bool] | None
) -> tuple[int, int] | None:
    """The name of a mail's last line that names its writer's team or job after a comma:
    "Tore, Billing", "Anneke Vos, Senior Analyst" (the words of `job_words` and `org_words`);
    one ordinary word is none ("Revenue, Finance")."""
    comma = text.find(",", a, b)
    if comma < 0:
        return None
    role = SEPARATORS.split(text[comma + 1 : b].strip(" .|"))
    if not role or not all(
        w.lower() in lex.job_words or w.lower() in lex.org_words or _ACRONYM.fullmatch(w) for w in role
    ):
        return None
    head = text[a:comma].rstrip()
    words = head.split()
    if len(words) == 1 and (ordinary is None or ordinary(head.lower())):
        return None
    return (a, a + len(head)) if shaped(lex, words, False) else None


def structure(
    lex: NameLexicon, text: str, ordinary: Callable[[str], bool] | None = None
) -> Iterator[Candidate]:
    """Names the layout of a message gives away: speakers' labels in a transcript, a mail's
    vocative first line, the name line of an address block, a signature without a closing.
    ``ordinary`` tells an ordinary English word (lower case) from a name, where known."""
    lines: list[tuple[int, int]] = []  # (start, end) of each line's words: no ">", no blanks
    pos = 0
    for raw in text.split("\n"):
        body = raw.lstrip(" \t>")
        a = pos + len(raw) - len(body)
        lines.append((a, a + len(body.rstrip(" \t\r"))))
        pos += len(raw) + 1
    if ":" in text:
        yield from _transcript(lex, text, lines)
    filled = [i for i, (a, b) in enumerate(lines) if b > a]
    if len(filled) < 2:
        return
    # "Marcus,\n\nPlease find ..." (a mail that opens with the name it speaks to).
    a, b = lines[filled[0]]
    if text[b - 1] == ",":
        words = text[a : b - 1].split()
        if shaped(lex, words, False):
            yield a, a + len(text[a : b - 1].rstrip()), "vocative"

    def blank(i: int) -> bool:
        return i < 0 or lines[i][0] == lines[i][1]

    def named(i: int, most: int = 3, least: int = 1) -> tuple[int, int] | None:
        a, b = lines[i]
        body = text[a:b].rstrip(".")
        if body and shaped(lex, body.split(), False, most, least):
            return a, a + len(body)
        return None

    last = filled[-1]
    for i in filled[1:] if has_digit(text) else ():
        # A name line above a street line: "Ana Beatriz Souza\n42 Harbour Street".
        head = text[lines[i][0]]
        if (
            (head.isdigit() or head in lex.street_heads)
            and not blank(i - 1)
            and lex.street_line.match(text, *lines[i]) is not None
            and (blank(i - 2) or text[lines[i - 2][1] - 1] == ":")
        ):
            n = named(i - 1, 4, 2)
            if n is not None:
                yield n[0], n[1], "address_block"
    # A signature block is among the last six lines.
    for i in filled[-6:]:
        if i == filled[0]:
            continue
        if not blank(i - 1):
            # A last line that names the writer's team needs no blank line above it ("Do say
            # hello to them!\nTore Berg, HR").
            if i == last and (n := _name_and_role(lex, text, *lines[i], ordinary)) is not None:
                yield n[0], n[1], "signature_block"
            continue
        if i == last:
            # A lone name line ends the mail: "See you then.\n\nJoão Pereira". One word
            # after a short line ("Talk soon!\n\nAlex"), not a cut-off word ("Th"); after a
            # longer one only a word that is no ordinary word and has no inner capital
            # ("...on the SendGrid side.\n\nJi-woo"; not "Unsubscribe", "Confidential",
            # "GitHub": a footer's). Only words with a letter count: a number's groups ("+380
            # 67 418 2236") are one value, as its label is once scrubbed ("[PHONE_NUMBER]"), so
            # both read alike.
            n = named(i)
            if n is not None and " " not in text[n[0] : n[1]]:
                before = [k for k in filled if k < i][-1]
                said = sum(any(c.isalpha() for c in w) for w in text[slice(*lines[before])].split())
                word = text[n[0] : n[1]]
                if n[1] - n[0] < 3 or (
                    said > 5
                    and (ordinary is None or ordinary(word.lower()) or any(c.isupper() for c in word[1:]))
                ):
                    n = None
            if n is None:
                # The writer's team or job after a comma says the rest is a name ("Tore, Billing").
                n = _name_and_role(lex, text, *lines[i], ordinary)
        elif i + 1 < len(lines) and not blank(i + 1):
            # A name over a job title or a company ("Keiko Sato\nSenior Engineer") or a
            # signature delimiter.
            a, b = lines[i + 1]
            nxt = text[a:b]
            if nxt.strip() in SIG_DASHES or any(
                w in lex.job_words or w in lex.org_words for w in SEPARATORS.split(nxt.lower().strip(".,|"))
            ):
                n = named(i)
            elif lex.sig_contact.fullmatch(nxt) is not None:
                # A full name over a phone number or an e-mail address ("Wanjiru Kamau\n+44 ...").
                n = named(i, 3, 2)
            else:
                n = None
        else:
            n = None
        if n is None:
            n = _titled_line(lex, text, *lines[i])
        if n is not None:
            yield n[0], n[1], "signature_block"


def _titled_line(lex: NameLexicon, text: str, a: int, b: int) -> tuple[int, int] | None:
    """A signature line of a full name and a job title: "Gloria Stanfield, Escrow Officer"."""
    if b - a > 90 or not text[a : a + 1].isupper():
        return None
    line = text[a:b]
    cut = min((k for k in (line.find(","), line.find(" | "), line.find(" - ")) if k > 0), default=-1)
    if cut < 0 or cut > 40:
        return None
    tail = SEPARATORS.split(line[cut:].lower().strip(",|- .").replace(",", " "))
    if not any(w in lex.job_words for w in tail):
        return None
    head = line[:cut].rstrip()
    if shaped(lex, head.split(), False, 3, 2):
        return a, a + len(head)
    return None


def _transcript(lex: NameLexicon, text: str, lines: list[tuple[int, int]]) -> Iterator[Candidate]:
    """Speakers' names in a transcript: a line's label that recurs, that carries a role
    ("João (support):"), or that speaks among lines labelled with roles ("Agent:")."""
    found: list[tuple[int, int, str, bool, str]] = []
    # Only lines with a colon among their first 80 characters are read. Going from colon to
    # colon finds them without a step for each line of a long mail, most of which have none.
    heads = [a for a, _ in lines]
    next_colon = text.find(":")
    while next_colon >= 0:
        # The line of this colon, the first on its line (the ">" and blanks before a line's
        # words hold none).
        colon = next_colon
        a, b = lines[bisect.bisect_right(heads, colon) - 1]
        eol = text.find("\n", colon)
        next_colon = text.find(":", eol + 1) if eol >= 0 else -1
        if colon >= min(b, a + 80):
            continue
        # Without a stamp first ("[22:05]"), a label's colon is the line's first, and a blank
        # or the line's end follows it: not so in "at 10:12, Sam wrote:".
        if text[a] != "[" and colon + 1 < b and text[colon + 1] not in " \t":
            continue
        m = _LABEL_LINE.match(text, a, b)
        if m is None:
            continue
        ws, we = m.span("who")
        said_role = m.group("role")
        # Only a role in brackets says the label is a speaker ("Traceback (most recent ...):").
        marked = said_role is not None and role(lex, said_role)
        if said_role is not None and not marked:
            continue
        key = " ".join(m.group("who").lower().split())
        found.append((ws, we, key, marked, text[m.end() : b]))
    if len(found) < 2:
        return
    counts: dict[str, int] = {}
    for *_, key, _m, _r in found:
        counts[key] = counts.get(key, 0) + 1
    if len(counts) < 2:
        return
    roles = {key for key in counts if role(lex, key)}
    for ws, we, key, marked, rest in found:
        if key in roles:
            continue
        who = text[ws:we]
        lower = who.islower()
        if lower and not (roles and rest.strip() and rest.islower()):
            continue
        if not (marked or counts[key] >= 2):
            # Once a label recurs it is a conversation: the other speakers' labels count too.
            recurs = any(n >= 2 for k, n in counts.items() if k != key)
            # The words said are counted only where they decide (a mail's "From:" and
            # "Subject:" lines are labels that neither recur nor speak among roles).
            if not (roles or recurs):
                continue
            said = sum(1 for w in LOG_REST.findall(rest) if w.isalpha())
            if not ((roles and said >= 3) or (recurs and said >= 1)):
                continue
        if shaped(lex, who.split(), lower, 3) and not log_label(lex, text, ws, we):
            yield ws, we, "transcript"
