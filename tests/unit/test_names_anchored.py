"""The name detector tries each context only at its trigger phrases, after cheap character tests.

Those tests must be looser than the patterns on every character, and the anchored search must
find what each pattern found when it ran over the whole message: checked here against a
detector that still does the latter, on hand-picked and on generated texts.
"""

from __future__ import annotations

import dataclasses
import re

import pytest
import regex
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from scrubber import rulefile
from scrubber.detectors import MessageContext
from scrubber.detectors.names import NameDetector, layout, load_names, records, replies, triggers
from scrubber.detectors.names.anchors import Candidate, cancelled
from scrubber.detectors.names.lines import has_lower_line, is_lower, line, next_line
from scrubber.detectors.names.patterns import SIG_DASHES, alternation, display
from scrubber.detectors.names.shapes import Namer, ends_name, joins, may_start, trim, uncommon

# Every code point that can stand in a str (no lone surrogates).
ALL = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)
LEXICON = load_names(rulefile.grammar_dir() / "names.yaml")


class WholeText(NameDetector):
    """The detector as it was: every context with a phrase in the message runs over all of it."""

    def _candidates(self, text: str) -> list[Candidate]:
        lex = self.lex
        wanted: set[str] = set()
        mistyped: set[str] = set()
        for hit in lex.trigger.scan(text):
            wanted |= hit.lists
            if triggers.phrase(text[hit.start : hit.end]) not in lex.phrases:
                mistyped |= hit.lists
        if any(d in text for d in SIG_DASHES):
            wanted.add("closing")
        lower_lines = has_lower_line(text)
        out: list[Candidate] = []
        for how in sorted(wanted):
            ctx = lex.slipped if how in mistyped else lex.exact
            if how in ctx.cased:
                out += [(s, e, how) for m in ctx.cased[how].finditer(text) for s, e in m.spans("n")]
            if lower_lines and how in ctx.lower:
                for m in ctx.lower[how].finditer(text):
                    out += [
                        (s, e, how)
                        for s, e in m.spans("n")
                        if is_lower(line(text, s))
                        and (how in lex.keyed or uncommon(lex, text, s, trim(lex, text, s, e)))
                    ]
        if "@" in text and "<" in text:
            out += [(s, e, "display") for m in lex.display.finditer(text) for s, e in m.spans("n")]
        if "closing" in wanted:
            ctx = lex.slipped if "closing" in mistyped else lex.exact
            for m in ctx.closing.finditer(text):
                nxt = next_line(text, m.end())
                n = lex.name_line.fullmatch(text, *nxt) if nxt else None
                if n is not None:
                    out.append((n.start("n"), n.end("n"), "signature"))
        t = self.timeout
        if "insert" in text.lower():
            out += list(records.sql(lex, text, t))
        # The layout's names and records before ", ssn" are found without anchors in both.
        if "\n" in text:
            out += list(layout.structure(lex, text))
            # Replies are looked for after every line, not only after a question's gate word.
            out += list(replies.replies(lex, text, t))
        out += list(replies.wrote(lex, text, t))
        if "," in text:
            out += list(records.person_records(lex, text, t))
        # So are the shapes without phrases, the rest of a list and what cancels a name.
        out += records.more(lex, text, t)
        if out:
            out += list(records.list_rest(lex, text, out, t))
        return [c for c in out if not cancelled(lex, text, *c)]


FAST = NameDetector(LEXICON)
SLOW = WholeText(LEXICON)


def _spans(detector: NameDetector, text: str) -> list[tuple[int, int]]:
    return sorted((f.start, f.end) for f in detector.detect(text, MessageContext()))


def _marked(text: str) -> tuple[str, list[str]]:
    return re.sub(r"\[\[(.+?)\]\]", r"\1", text), re.findall(r"\[\[(.+?)\]\]", text)


CASES = [
    # A phrase of one context inside a longer one of another: "many thanks" holds the greeting
    # "thanks", "user.name" the intro "name is", "thank you" the start of "you are speaking with".
    "Hello team,\nMany thanks [[Jane]], see you soon",
    "I'm here. user.name is [[Jane Doe]]",
    "Hi all, thank you are speaking with [[Tom Baker]]",
    # A phrase that runs on past the longer one: "thank you so much" after "thank you".
    "Hello,\r\nThank you so much, [[Ana]]\r\n",
    # Triggers at the very start and the very end of the text.
    "Regards",
    "Thanks,\n[[Ruth Gordon]]",
    "please call me, thanks",
    "see you then\n--",
    # CRLF lines, quoted lines, a closing after blank lines, a delimiter with a trailing blank.
    "ok\r\n\r\n> Kind regards,\r\n> [[Barry Townsend]]\r\n",
    "see you then\n-- \n[[Lars Eriksson]]\nSenior Engineer",
    # A record's cue right after the comma that ends a name in running text.
    "a call from [[Jane]] a call from, [[Ruth Gordon]],SSN",
    # Mistyped phrases, of one word and of several.
    "Regrads,\n[[Liam O'Connor]]",
    "Kind regrads,\n[[Aroha Ngata]]",
    # A relation after "my" on the line before, and one whose "my" is part of another word.
    "it was my\nmother, [[Katie Garcia]], who called",
    "tell enemy mother Katie to call",
    # Records: the name, a comma or blanks, the cue; not after other words or digits.
    "Customer: [[Alexander Hawkins]], SSN 440-34-3006",
    "For verification: SSN 278-95-4191, date of birth 05/24/1949.",
    "Please update the account for Jonas Kowalski",
    "customer: [[panini sarma]], ssn 409-57-3615",
    # A phrase inside the match of another: the greeting's list of names takes in "Thanks Tom"
    # (then cut at "Thanks"), so "Thanks" starts no greeting of its own.
    "Hi [[Jane]], Thanks Tom",
    # Non-ASCII around the phrases, and a letter newer than this Python's Unicode tables.
    "Hola [[Zoë]], thanks",
    "Dear Mr. [[Ødegård]],\nthanks",
    "Hi \U0001e030ala, thanks",
    # A phrase with an apostrophe hides phrases that run on past it ("I'm" + "any thanks"):
    # whatever follows it, a blank, "_" or "-", a capital, a folded letter, or nothing.
    "I'm [[Jane Doe]]",
    "I'many thanks,\nRuth Gordon",
    "ask my I'mother, Katie Garcia",
    "I'M\tJane",
    "I'm_Jane",
    "I'm-Jane",
    "I'mANY thanks,\nRuth",
    "I'm\u017fo",
    "I'm\u212any thanks,\nRuth",
    "I'm",
    # Display names on some lines of a mail, and an address cut by a line break.
    'From: Chloe Hanna <chloe@example.com>\nhi\nTo: "Oyelaran, Tunde" <t.o@example.com>, Ana <a@b.c>',
    "To: Ana Lima <ana\n@example.com>\nCc: Bo Ek <b\x1co@example.com> <x@y>",
]


@pytest.mark.parametrize("marked", CASES)
def test_anchored_search_finds_what_the_whole_text_search_found(marked: str) -> None:
    text, expected = _marked(marked)
    assert _spans(FAST, text) == _spans(SLOW, text)
    found = sorted(FAST.detect(text, MessageContext()), key=lambda f: f.start)
    if expected:
        assert [text[f.start : f.end] for f in found if f.detector != "names:recurring"] == expected


# Random messages built from the lexicon's phrases, names, blanks and punctuation, mostly as a
# phrase, a gap and a name.
PHRASES = sorted(LEXICON.phrases)
NAMES = ["Jane", "Ruth Gordon", "van der Berg", "O'Neil", "maya okafor", "J. R. Hartley", "al-Rashid"]
WORDS = ["Support", "Team", "my", "My", "the", "ok", "you", "so much", "is", "SSN", "user.", "Zoë"]
WORDS += ["<ana@example.com>", "440-34-3006"]
GLUE = [" ", "  ", "\n", "\r\n", "\t", ", ", ",", ": ", "=", '"', "'", ".", "-", "--", "— ", "> ", "\n\n"]
phrase = st.sampled_from(PHRASES).flatmap(lambda p: st.sampled_from([p, p.capitalize(), p.upper()]))
glue = st.sampled_from(GLUE)
gap = st.sampled_from([" ", ", ", ": ", "\n", "=", " - "])
unit = st.one_of(
    st.tuples(phrase, gap, st.sampled_from(NAMES), glue).map("".join),
    st.tuples(st.sampled_from(NAMES), gap, phrase, glue).map("".join),
    phrase,
    st.sampled_from(NAMES + WORDS),
    glue,
    st.text(max_size=3),
)
messages = st.lists(unit, max_size=12).map("".join)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(messages)
# Once found by the generator: a reply to a question for a name, which the reference lacked.
@example("a call from Jane Jane name on the account ?a call from Jane\n\nacct")
def test_anchored_search_equals_whole_text_search_on_generated_messages(text: str) -> None:
    assert _spans(FAST, text) == _spans(SLOW, text)


def test_a_display_name_over_a_line_break_is_still_found() -> None:
    # With a particle of two words, a display name may run over two lines ("de\nla"): then
    # the search is not kept to the lines with an address.
    namer = Namer(particles=alternation(["de la", "van"]), title=r"(?:Dr\.[ \t]+)")
    lex = dataclasses.replace(LEXICON, particles=frozenset({"de la", "van"}), display=display(namer))
    text = "hi\nAna de\nla Lima <ana@example.com>"
    assert [text[s:e] for s, e, _ in layout.display_names(lex, text, 5)] == ["Ana de\nla Lima"]
    assert layout._broken_particles(frozenset({"van", "de"})) is None


def test_a_name_may_start_wherever_the_name_patterns_start_one() -> None:
    # _CASED, _INITIALS and titles start with a capital or with "al-", "el-", "d'" ...
    cased = set(regex.findall(r"\p{Lu}|[aeud]", ALL))
    lower = set(regex.findall(r"\p{L}", ALL))
    assert all(may_start(ch, 0, False) for ch in cased)
    assert all(may_start(ch, 0, True) for ch in lower)
    assert not may_start("b", 0, False) and not may_start("1", 0, True)


def test_the_blank_tests_take_every_blank_of_the_patterns() -> None:
    assert all(ch.isspace() for ch in regex.findall(r"\s", ALL))


def test_the_joiner_test_is_the_recurrence_pattern_s_class() -> None:
    joiners = set(regex.findall(r"[\p{L}\d'’-]", ALL))
    assert {ch for ch in ALL if joins(ch)} == joiners


def test_a_name_ends_wherever_the_name_patterns_end_one() -> None:
    assert all(ends_name(ch) for ch in regex.findall(r"[\p{L}'’]", ALL))


def test_the_possessive_test_knows_every_spelling_the_pattern_folds_to() -> None:
    last = "".join(sorted({w[-1] for w in LEXICON.possessives}))
    assert all(ch.casefold() in LEXICON.possessive_ends for ch in regex.findall(f"(?i:[{last}])", ALL))
