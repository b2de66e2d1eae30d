"""Sentences of a message as the grammar reads them: cut, with their cues and values, and
which cue stands right by each value; requests for a value and the replies that give one."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise

import regex

from scrubber.detectors import CHECK_EVERY, MessageContext
from scrubber.detectors.cues import CueHit, CueHits, CueIndex
from scrubber.detectors.grammar.rules import PARSE_PENALTY, Grammar
from scrubber.detectors.tokens import (
    MASK_HINT,
    MASK_START,
    Token,
    Value,
    masked_value_pattern,
    number_like,
    tokenize,
    values,
)
from scrubber.masking import placeholders

# Whether a sentence (its cues, start and end) can yield nothing that known findings leave standing.
OutOfReach = Callable[[Sequence[CueHit], int, int], bool]
# Sentence ends inside a line: ".", "!" or "?" and a space, unless the word is an abbreviation.
_SENTENCE_END = regex.compile(r"(?<=[.!?])\s+")
# A word that changes from lower to upper case: "cardLast4", "postalCode" (keys in JSON logs).
# Not after a single small letter: "iPhone", "eBay" and "iCloud" are names of things.
_CAMEL = re.compile(r"(?<=[a-z]{2})(?=[A-Z])")
# The same test as a pair of characters. It starts with the capital, which is rarer than a
# small letter, so the search skips in C to the next capital and only then looks behind.
CAMEL_PAIR = re.compile(r"[A-Z](?<=[a-z][A-Z])")
# An entity cue with a 4 glued on says "the last four": "ssn4", "card_4".
LAST4 = re.compile(r"_?4(?![0-9])")
# What may join two values that one cue names: "ending 4242 or 5678", "4242, 5678 and 9012".
_JOINERS = frozenset({"and", "or", ",", "&", "/"})
# A sentence that starts by pointing back at the one before: "that's", "this is", "those are".
_POINTS_BACK = re.compile(
    r"\W*(?:that|this|it|which|those|these)(?:['’]s\b|s\b|['’]d\b|\s+(?:is|are|was|were|would|should|will)\b)",
    re.IGNORECASE,
)
# Words of a request made as a statement: "Please type your social with no dashes", "I'll need
# the subscriber's social". A sentence with one of them and no value asks, as a question does.
_REQUEST_WORDS = re.compile(
    r"\b(?:please|pls|plz|need|provide|type|give|confirm|read|send|tell|enter|share|verify"
    # ... and a question typed without its "?": "what's the billing zip", "can I get your social"
    r"|what(?:'s|s| is| was)|(?:can|could|may) (?:i|we) (?:get|have|take))\b",
    re.IGNORECASE,
)
# A reply that points back at a value named before ("no, bill the one ending 2276 instead")
# may be this many times as long as other replies: the pointer and qualifier say enough.
_POINTED_ROOM = 2
# A question of at most this many words (a speaker's label included) may ask for more of
# what was just given ("Agent: and the rest?"); a longer one asks something new.
_AGAIN_WORDS = 7
# How many tokens from a reply's number a qualifier stands when it speaks of that number
# ("7477 are the last four": 3).
QUALIFIER_REACH = 4
# Where a label that scrubbing writes ("[US_SSN]", "<US_SSN:1a2b3c4d>") starts.
_OPENERS = frozenset({"[", "<"})
# At most this many words between a qualified cue and a value it names from afar (_announced).
_ANNOUNCED_WORDS = 6
_ABBREVIATIONS = frozenset({"mr.", "mrs.", "ms.", "dr.", "st.", "apt.", "no.", "ste.", "e.g.", "i.e.", "vs."})


@dataclass(slots=True)
class Cue:
    first: int
    last: int
    lists: frozenset[str]
    qualifier: bool
    # Whether a label an earlier scrub wrote follows it, links aside ("my social [US_SSN]"):
    # the cue names that value, as it named the number the label stands for.
    labelled: bool = False


@dataclass(frozen=True, slots=True)
class Request:
    """A sentence that asks for a value: the cue naming it, and whether a fragment will do."""

    cue: Cue
    fragment: bool


@dataclass(slots=True)
class Sentence:
    """One sentence of one message, with its tokens, cues and values."""

    text_index: int
    line: int
    tokens: list[Token]
    cues: list[Cue]
    values: list[Value]
    qualified: bool
    pending: list[Value] = field(default_factory=list)  # values that need the tree
    unclaimed: list[Value] = field(default_factory=list)  # values no cue governs
    cue_at: dict[int, Cue] | None = None  # token index -> its cue, built once (see _adjacent)
    # First tokens of the values for which the sentence's qualifiers do not count (claims).
    unqualified: frozenset[int] = frozenset()


@dataclass(frozen=True, slots=True)
class Reply:
    """A value given in reply to a request (or named by the sentence after it), and its cue."""

    fragment: bool
    value: Value
    cue: Cue
    # One of several numbers of a reply that differ ("415 867, umm, 5309"): only a part of
    # a value read out in parts (GrammarDetector._emit_parts), never a value of its own.
    part: bool = False
    # Replies with no other number read between them share a run: only they may be the parts
    # of one value ("Order 829972046 shipped." between two replies ends the run).
    run: int = 0


class SentenceReader:
    """Reads the sentences of a message for one grammar (see ``read``)."""

    def __init__(self, grammar: Grammar) -> None:
        self.grammar = grammar
        self._masked_rules = grammar.masked_rules
        self._alnum = any(shape.alnum for rule in grammar.rules for shape in rule.shapes)
        # Where a masked value that a masked rule could take may stand: a sentence that only a
        # masked number lets in, and has none of these, cannot yield a finding.
        self._maskable = masked_value_pattern(
            n for rule in self._masked_rules for shape in rule.shapes for n in shape.digits
        )
        self._any_masked = masked_value_pattern()
        # Cue lists whose rules take only fragments ("account": the last four of an account),
        # which need a qualifier or a mask in the sentence.
        self._fragments_only = frozenset(
            name
            for name in grammar.entity_lists
            if all(shape.fragment for rule in grammar.rules if name in rule.cues for shape in rule.shapes)
        )

    def masked_only(self, text: str, start: int, end: int) -> bool:
        """Whether a masked rule may find a value in ``text[start:end]``, which has no cue."""
        return (
            bool(self._masked_rules)
            and self._maskable.search(text, start, end) is not None
            and MASK_HINT.search(text, start, end) is not None
        )

    def read(
        self,
        index: int,
        text: str,
        hits: list[CueHit],
        out_of_reach: OutOfReach | None,
        starts: frozenset[int] = frozenset(),
        ctx: MessageContext | None = None,
    ) -> tuple[list[Sentence], list[Reply]]:
        """The sentences with values to judge, and the replies to a request, which are left out.

        A request asks for a fragment and gives none ("The last four of your SSN?"); a short
        sentence with one number and no cue after it, on the same line or one of the next
        ``carry_lines`` lines, is the fragment asked for ("Sure, it's 6021."). Given known
        findings that outrank every finding inside them, ``out_of_reach`` says of a sentence
        (its cues, start and end) that it can neither yield a finding they leave standing nor
        ask for a value: it is left out before it is tokenized (known.Shortcut.out_of_reach).
        Without them, so few sentences are (only those whose numbers are all too short) that
        the test would cost more than it saves. With ``ctx``, past its deadline the reading
        stops with TimeBudgetExceeded (looked at every ``CHECK_EVERY`` sentences).
        """
        g = self.grammar
        found: list[Sentence] = []
        replies: list[Reply] = []
        request: tuple[int, Request] | None = None  # the last request and its line
        # The last sentence with an entity cue (its span, cues and line), for a fragment with no
        # entity cue of its own on one of the next ``carry_lines`` lines (see _topic).
        topic: tuple[int, int, list[CueHit], int] | None = None
        # Where the labels of an earlier scrub start ("[US_SSN]"): looked for once a message,
        # not once a sentence.
        labels = frozenset(lo for lo, _ in placeholders(text)) if "[" in text or "<" in text else frozenset()
        # Where a sentence may start to matter: a cue that lets it in, or a masked value. A
        # line with neither, and no request before it, is passed over unsplit.
        triggers = [c.start for c in hits if c.lists & g.gate_lists]
        if self._masked_rules:
            triggers = sorted(triggers + [m.start() for m in self._maskable.finditer(text)])
        trig = 0
        h = 0
        pos = 0
        read = 0  # sentences read, for the deadline's checks (with ``ctx``) and the carry's reach
        asked_at = topic_at = -1  # the sentence that set ``request``, and ``topic``
        run = 0  # goes up with every sentence with a number that is no reply (see Reply.run)
        for line_no, line in enumerate(text.split("\n")):
            if request is not None and line_no - request[0] > g.carry_lines:
                request = None
            while trig < len(triggers) and triggers[trig] < pos:
                trig += 1
            if request is None and (trig == len(triggers) or triggers[trig] >= pos + len(line)):
                pos += len(line) + 1
                continue
            prev: tuple[int, int] | None = None  # the sentence before, if it has no cue
            for start, end in split(line):
                read += 1
                if ctx is not None and read % CHECK_EVERY == 0:
                    ctx.check("grammar")
                # A request, and a topic, reach ``carry_sentences`` sentences at most, however
                # few lines that is.
                if request is not None and read - asked_at > g.carry_sentences:
                    request = None
                if topic is not None and read - topic_at > g.carry_sentences:
                    topic = None
                s, e = pos + start, pos + end
                while h < len(hits) and hits[h].start < s:
                    h += 1
                local = h
                while local < len(hits) and hits[local].start < e:
                    local += 1
                mine = hits[h:local]
                back, prev = prev, ((s, e) if not mine and request is None else None)
                before = topic if topic is not None and line_no - topic[3] <= g.carry_lines else None
                if any(c.lists & g.entity_lists for c in mine):
                    topic, topic_at = (s, e, mine, line_no), read
                gated = any(c.lists & g.gate_lists for c in mine)
                # Without a cue, only a reply to a request or a masked value can yield a finding
                # (a sentence of neither sets no request either).
                if gated or request is not None:
                    if request is None and self._idle(text, mine, s, e):
                        continue
                    number = number_like(text, s, e)
                    # A question with no cue may still ask for more of what was asked (_again).
                    if not (gated or number or (request is not None and text[s:e].rstrip().endswith("?"))):
                        continue
                elif self.masked_only(text, s, e):
                    number = True
                else:
                    continue
                if number and request is None and out_of_reach is not None and out_of_reach(mine, s, e):
                    continue
                question = text[s:e].rstrip().endswith("?") or _REQUEST_WORDS.search(text, s, e) is not None
                # "4821... that's the last four of my social": a sentence that points back.
                back = back if gated and _POINTS_BACK.match(text, s, e) else None
                if (
                    not number
                    and back is None
                    and not (g.carry_lines and (question or any(c.lists & g.qualifiers for c in mine)))
                ):
                    continue
                tokens = tokenize(text, s, e)
                cues = self._cues(text, mine, tokens, labels)
                skip = frozenset(t for c in cues for t in range(c.first, c.last + 1))
                # A number another detector found starts a value of its own: "the last four of
                # my social 6789 (415) 555-2671" holds two, not one run of fourteen digits.
                breaks = (
                    frozenset(k for k, t in enumerate(tokens) if t.start in starts) if starts else frozenset()
                )
                vals = values(tokens, skip, alnum=self._alnum, breaks=breaks) if number else []
                if not vals:
                    if back is not None:
                        self._named_back(text, index, line_no, back, cues, replies)
                        continue
                    asked = self._asked(cues, question)
                    # "And the rest?", "What's your IBAN? Just the last four is fine.": more of
                    # the same; "and the order number?": something else.
                    if asked is None and request is not None and (question or qualified_only(cues)):
                        asked, ends = self._again(tokens, cues, request[1])
                        request = None if ends else request
                    # A value an earlier scrub masked was given: "use [PHONE_NUMBER]" asks nothing.
                    if asked is not None and g.carry_lines and not placeholders(text[s:e]):
                        if request is None or request[1].cue is not asked.cue:
                            run += 1  # a new request; "and the rest?" goes on with the same
                        request, asked_at = (line_no, asked), read
                    continue
                qualified = any(c.qualifier for c in cues)
                sentence = Sentence(index, line_no, tokens, cues, vals, qualified)
                if request is not None and self._reply(sentence, parts=True):
                    asked = request[1]
                    # "it's the one ending 4668": a qualifier in the reply makes it a fragment.
                    part = any(v.digits != vals[0].digits for v in vals[1:])
                    replies.extend(Reply(asked.fragment or qualified, v, asked.cue, part, run) for v in vals)
                    continue
                if before is not None and qualified and len(vals) == 1 and self._points_back(sentence):
                    named = self._topic(text, before, labels)
                    # Cues of the kind named before may stand in it: "the one ending 7731, keep
                    # the other card".
                    if named is not None and self._reply(sentence, _POINTED_ROOM, named.lists):
                        replies.append(Reply(True, vals[0], named))
                        continue
                found.append(sentence)
                run += 1
            pos += len(line) + 1
        return found, replies

    def _points_back(self, s: Sentence) -> bool:
        """Whether the lone value of ``s`` is the fragment of a value named before: a qualifier
        stands right before it (only ``links`` between), and a word of ``pointers`` or nothing
        stands right before that qualifier or before the ``links`` words that lead to it ("the
        one ending 7617", "the old one (ending 3371)", "it ends in 3390", "Last 4 were 8812"),
        not a noun that says what ends ("the office ends service at 1700", "offer ends 2025")."""
        crossed: list[Cue] = []
        if self._adjacent(s, s.values[0], crossed) is not None or not crossed:
            return False
        pointers, links, tokens = self.grammar.pointers, self.grammar.links, s.tokens
        at = crossed[-1].first - 1
        if at < 0 or tokens[at].text.lower() in pointers:
            return True
        while at >= 0 and tokens[at].text.lower() in links:
            at -= 1
        return at < 0 or tokens[at].text.lower() in pointers

    def _topic(
        self, text: str, before: tuple[int, int, list[CueHit], int], labels: frozenset[int]
    ) -> Cue | None:
        """The entity cue that names a fragment in a sentence with none of its own, from the
        last sentence with an entity cue, on the same line or one of the ``carry_lines`` lines
        above: "I have two cards on file. The one ending in 7617 was declined.", "My social was
        stolen last year. The last four are 4471.", or in a transcript "Rep: I see two cards
        on file. Which one goes?" then "Member: the one that ends in 8093". That sentence
        must name one kind of value: with two, the fragment's kind is anyone's guess."""
        s, e, hits, _ = before
        g = self.grammar
        cues = self._cues(text, hits, tokenize(text, s, e), labels)
        named = [c for c in cues if c.lists & g.entity_lists and not c.qualifier]
        if len({c.lists & g.entity_lists for c in named}) != 1:
            return None  # none, or two kinds ("the phone number on my card"): which one?
        return named[-1]

    def _named_back(
        self,
        text: str,
        index: int,
        line_no: int,
        span: tuple[int, int],
        cues: Sequence[Cue],
        replies: list[Reply],
    ) -> None:
        """A reply before the sentence that names it ("4821. That's the last four of my SSN.",
        "94110 — that's my zip" across a full stop): as a reply after a request."""
        named = self._asked(cues, True)
        if named is None:
            return
        tokens = tokenize(text, *span)
        vals = values(tokens, frozenset(), alnum=self._alnum)
        if vals and self._reply(Sentence(index, line_no, tokens, [], vals, False)):
            replies.extend(Reply(named.fragment, v, named.cue) for v in vals)

    def _idle(self, text: str, hits: Sequence[CueHit], start: int, end: int) -> bool:
        """Whether a sentence can neither yield a finding nor ask for a value, untokenized.

        So it is when its only entity cues take fragments alone ("account") and nothing can
        make a value a fragment: no qualifier (nor a "4" glued to a cue), no masked value. Nor
        does it ask for a value: that takes a qualifier or a question mark.
        """
        g = self.grammar
        for c in hits:
            if c.lists & g.qualifiers:
                return False
            named = c.lists & g.entity_lists
            if named and (not named <= self._fragments_only or LAST4.match(text, c.end)):
                return False
        return (
            not text[start:end].rstrip().endswith("?") and self._any_masked.search(text, start, end) is None
        )

    def _cues(
        self, text: str, hits: Sequence[CueHit], tokens: list[Token], labels: frozenset[int]
    ) -> list[Cue]:
        """The cues of a sentence (its ``tokens``) from the message's cue ``hits``; ``labels``:
        where the labels of an earlier scrub start in ``text``."""
        g = self.grammar
        found: list[Cue] = []
        ti = 0
        for hit in hits:
            while ti < len(tokens) and tokens[ti].end <= hit.start:
                ti += 1
            first = ti
            last = first
            while last + 1 < len(tokens) and tokens[last + 1].start < hit.end:
                last += 1
            if first >= len(tokens):
                continue
            if hit.lists & g.ignore:
                # An ignored phrase still covers its tokens, so "zip" in "zip file" is no cue.
                found.append(Cue(first, last, frozenset(), False))
                continue
            glued = bool(hit.lists & g.entity_lists) and LAST4.match(text, hit.end) is not None
            found.append(Cue(first, last, hit.lists, glued or bool(hit.lists & g.qualifiers)))
        # "the last four years", "the last 4 pages": a qualifier that a blocker follows counts
        # something else.
        for c, nxt in pairwise(found):
            counts = nxt.lists & g.blockers and not nxt.lists & g.entity_lists
            if c.qualifier and nxt.first == c.last + 1 and counts:
                c.lists, c.qualifier = frozenset(), False
        if labels:
            self._labelled(found, tokens, labels)
        # A qualifier that is also an entity cue ("last4") names the entity only when the
        # sentence has no other cue for one ("card_added last4=0293" but "SSN last4: 1234").
        others = any(not c.qualifier and c.lists & (g.entity_lists | g.foreign) for c in found)
        for c in found:
            if c.qualifier and others and c.lists & g.qualifiers:
                c.lists = c.lists - g.entity_lists
        return found

    def _labelled(self, cues: list[Cue], tokens: list[Token], starts: frozenset[int]) -> None:
        """Mark the entity cues that a label of an earlier scrub follows, links aside."""
        links = self.grammar.links
        for c in cues:
            if not c.lists & self.grammar.entity_lists:
                continue
            i = c.last + 1
            while i < len(tokens) and tokens[i].start not in starts and tokens[i].text.lower() in links:
                i += 1
            c.labelled = i < len(tokens) and tokens[i].start in starts

    def _again(
        self, tokens: Sequence[Token], cues: Sequence[Cue], asked: Request
    ) -> tuple[Request | None, bool]:
        """What a question (or a sentence of qualifiers) with no entity cue asks while
        ``asked`` holds, and whether it ends it: a short one asks for more of the same ("And
        the rest?", "the last two?", "Could you try again?"), a fragment if it has a
        qualifier; one with a cue that claims a value asks for something else ("and the
        order number?") and ends the request; a longer one leaves it as it is.

        Neither depends on the replies given, so a text scrubbed once, whose replies are
        labels, reads the same."""
        claimers = self.grammar.blockers | self.grammar.entity_lists
        if any(c.lists & claimers for c in cues):
            return None, True
        if sum(1 for t in tokens if t.text[0].isalnum()) > _AGAIN_WORDS:
            return None, False
        return Request(asked.cue, asked.fragment or any(c.qualifier for c in cues)), False

    def _asked(self, cues: Sequence[Cue], question: bool) -> Request | None:
        """What a sentence without a value asks for: "the last four of your SSN", "your zip?".

        The entity cue nearest a qualifier names the entity ("last 4 of the phone number on the
        account": the phone); a question without a qualifier asks for a whole value.
        """
        quals = [c for c in cues if c.qualifier]
        named = [c for c in cues if c.lists & self.grammar.entity_lists and not c.qualifier]
        named = named or [c for c in quals if c.lists & self.grammar.entity_lists]
        if not named or not (quals or question):
            return None
        if not quals:
            return Request(named[0], False)
        cue = min(named, key=lambda c: min(abs(c.first - q.first) for q in quals))
        return Request(cue, True)

    def _reply(
        self, s: Sentence, room: int = 1, kinds: frozenset[str] = frozenset(), *, parts: bool = False
    ) -> bool:
        """A reply: short (``room`` times ``carry_max_tokens``, twice that with a qualifier
        a few tokens from the number), with one number in it (said
        once, or said and typed: "nine one seven, four four two ... I mean 917-442-...") and no
        cue of its own (a speaker's label that happens to be a cue word, "Client: 0262", names
        no value, nor does a qualifier alone, "it's the one ending 4668": they do not count,
        nor do cues of the entity lists ``kinds``, those of the value asked for). With
        ``parts``, numbers that differ may stand in it: the parts of one value ("415 867,
        umm, 5309")."""
        named = self.grammar.entity_lists
        first = s.values[0]
        if not parts and any(v.digits != first.digits for v in s.values[1:]):
            return False
        # The value's own words do not make a reply long ("four one one one, one one one one, ...").
        words = len(s.tokens) - sum(v.last - v.first for v in s.values)
        # A qualifier by the number says it is a part of the value asked for: such a reply may
        # go on a while ("7477 are the last four, the rest is on the letter"; not "7477 people
        # came ... and the rest left").
        near = any(
            c.qualifier
            and (0 < c.first - first.last <= QUALIFIER_REACH or 0 < first.first - c.last <= QUALIFIER_REACH)
            for c in s.cues
        )
        budget = room * self.grammar.carry_max_tokens * (2 if near else 1)
        return words <= budget and all(
            self._label(s, c)
            or (c.qualifier and not c.lists & named)
            or (kinds and c.lists & named and not c.lists - kinds)
            for c in s.cues
        )

    def _label(self, s: Sentence, c: Cue) -> bool:
        """Whether ``c`` is the label of who speaks: the sentence's first words (after a time
        stamp in brackets, if any) and a colon, and a word that names no entity a rule finds
        ("Client:", not "SSN:")."""
        tokens = s.tokens
        first = 0
        if tokens[0].text == "[":  # a time stamp before the label: "[12:10] Client: 0262"
            first = next((i + 1 for i, t in enumerate(tokens[: c.first]) if t.text == "]"), -1)
        return (
            c.first == first
            and c.last + 1 < len(tokens)
            and tokens[c.last + 1].text == ":"
            and not c.lists & self.grammar.entity_lists
        )

    def _cue_at(self, s: Sentence) -> dict[int, Cue]:
        """Token index -> the cue covering it, built once per sentence."""
        cue_at = s.cue_at
        if cue_at is None:
            # Once per sentence, not per value: a long one with many values stays linear.
            cue_at = s.cue_at = {}
            claimers = self.grammar.entity_lists | self.grammar.blockers
            for c in s.cues:
                for t in range(c.first, c.last + 1):
                    # Two cues in one word ("phone_last_4"): the one that names something wins.
                    held = cue_at.get(t)
                    if held is None or not (held.lists & claimers) or c.lists & claimers:
                        cue_at[t] = c
        return cue_at

    def claims(self, s: Sentence) -> list[tuple[Cue | None, float]]:
        """Per value of ``s``: the cue that stands right by it, if any, and the score penalty.

        First the cue right before it (_adjacent); then the cue right after it, as the tree
        would give it (_adjacent_after: "1234 is the last four of my SSN"); then, for a value
        joined to the one before by "and", "or" or a comma, that one's cue and qualifiers
        ("card ending 4242 or 5678"). A qualifier read on the way belongs to the values that
        read it: for the others of the sentence it does not count ("I paid 1234 for the card
        ending in 5678", "amount=1234 card_last4=5678"); see qualifies.
        """
        g = self.grammar
        qualified = s.qualified
        reads: list[list[Cue]] = []
        left: list[Cue | None] = []
        for v in s.values:
            crossed: list[Cue] = []
            left.append(self._adjacent(s, v, crossed if qualified else None))
            reads.append(crossed)
        naming = {id(c) for c in left if c is not None} | {id(c) for c in s.cues if c.labelled}
        claims: list[tuple[Cue | None, float]] = []
        for k, v in enumerate(s.values):
            claim, penalty, crossed = left[k], 0.0, reads[k]
            if claim is None and g.links_after:
                crossed.clear()
                claim, penalty = self._adjacent_after(s, v, crossed, naming), PARSE_PENALTY
            if claim is None and k and claims[k - 1][0] is not None and self._joined(s, s.values[k - 1], v):
                (claim, penalty), crossed = claims[k - 1], reads[k - 1]
            elif claim is None:
                crossed = []
                # With a label an earlier scrub wrote in it, the sentence had another value.
                if len(s.values) == 1 and qualified and not any(t.text in _OPENERS for t in s.tokens):
                    claim, penalty = self._announced(s, v, crossed, naming), PARSE_PENALTY
            elif qualified:
                # The claim itself, or a qualifier in its word ("card_last4"), is read too.
                first, last = claim.first, claim.last
                crossed += [c for c in s.cues if c.qualifier and c.first <= last and first <= c.last]
            claims.append((claim, penalty))
            reads[k] = crossed
        if qualified:
            readers: dict[int, set[int]] = {}
            for k, crossed in enumerate(reads):
                for q in crossed:
                    readers.setdefault(id(q), set()).add(k)
            if readers:
                s.unqualified = frozenset(
                    v.first
                    for k, v in enumerate(s.values)
                    if not any(c.qualifier and k in readers.get(id(c), (k,)) for c in s.cues)
                )
        return claims

    def _announced(self, s: Sentence, v: Value, crossed: list[Cue], naming: set[int]) -> Cue | None:
        """The entity cue that a qualifier makes a fragment's name a few words before the lone
        value of a sentence: "the last 4 of my social so I typed 3481", "I entered my card's
        last four, and it said 0917 was wrong". No cue of any list may stand between them (a
        blocker claims the value: "the last four of my card and 30 minutes later"), and at
        most ``_ANNOUNCED_WORDS`` words; the tree often joins such a value to a verb three or
        more arcs away from the cue."""
        g = self.grammar
        cue_at = self._cue_at(s)
        i, words = v.first - 1, 0
        while i >= 0:
            cue = cue_at.get(i)
            if cue is not None:
                if not cue.lists & g.entity_lists or id(cue) in naming or cue.labelled:
                    return None
                qualifier = self._qualifier_by(s, cue)
                if qualifier is None:
                    return None
                crossed.append(qualifier)
                return cue
            words += 1
            if words > _ANNOUNCED_WORDS:
                return None
            i -= 1
        return None

    def _qualifier_by(self, s: Sentence, cue: Cue) -> Cue | None:
        """The qualifier that ``cue`` is part of or stands by (``links`` words between, either
        side): "last 4 of my ssn", "my social's last four", "card_last4"."""
        if cue.qualifier:
            return cue
        cue_at, links = self._cue_at(s), self.grammar.links
        for step, edge in ((-1, cue.first - 1), (1, cue.last + 1)):
            i = edge
            while 0 <= i < len(s.tokens):
                near = cue_at.get(i)
                if near is not None:
                    if near.qualifier:
                        return near
                    break
                if s.tokens[i].text.lower() not in links:
                    break
                i += step
        return None

    def _joined(self, s: Sentence, before: Value, v: Value) -> bool:
        """Whether only "and", "or" and commas stand between two values ("4242 or 5678")."""
        between = s.tokens[before.last + 1 : v.first]
        return bool(between) and all(t.text.lower() in _JOINERS for t in between)

    def _adjacent(self, s: Sentence, v: Value, crossed: list[Cue] | None = None) -> Cue | None:
        """The cue right before ``v``, with only link words, qualifiers and punctuation between;
        the qualifiers passed go to ``crossed``."""
        cue_at = self._cue_at(s)
        g = self.grammar
        i = v.first - 1
        # A qualifier after a comma, read back past the comma: "the card used for the booking,
        # ending 7723" says what ends, but not by the word before the comma.
        aside = False
        qualified = False
        while i >= 0:
            cue = cue_at.get(i)
            if cue is not None:
                if cue.lists & g.entity_lists:
                    return cue
                if cue.lists & g.blockers:
                    # ... so a blocker there ("booking") does not claim the value: the tree says
                    # which noun the qualifier's phrase hangs on.
                    return None if aside else cue
                if cue.qualifier or not cue.lists:
                    if cue.qualifier:
                        qualified = True
                        if crossed is not None:
                            crossed.append(cue)
                    i = cue.first - 1
                    continue
                return None
            word = s.tokens[i].text.lower()
            if word not in g.links:
                return None
            aside = aside or (qualified and word == ",")
            i -= 1
        return None

    def _adjacent_after(self, s: Sentence, v: Value, crossed: list[Cue], naming: set[int]) -> Cue | None:
        """The cue right after ``v`` that says what it is: "4821 is the last four of my social",
        "4821 — that's the last 4 of my SSN", "9921 (last four of my social)", "94110 is my zip".

        Between them only ``links_after`` words ("is", "that's", "the", "my", punctuation) and a
        qualifier, after which the ``links`` too ("of", "on"). A word or a qualifier must be
        among them: "1234, card ending 5678" is a list, not "1234 is the card". Nor does a cue
        that names the value after it (``naming``: "card ending 5678") name one before it. A
        blocker claims the value with nothing between too ("5000 dollars").
        """
        g = self.grammar
        cue_at = self._cue_at(s)
        claimers = g.entity_lists | g.blockers
        worded = qualified = False
        i = v.last + 1
        while i < len(s.tokens):
            cue = cue_at.get(i)
            if cue is not None:
                if cue.lists & g.blockers and not cue.lists & g.entity_lists:
                    return cue  # "5000 dollars", "1234 is my order number"
                if cue.lists & claimers:
                    if not (worded or qualified) or id(cue) in naming:
                        return None
                    return cue
                if not cue.qualifier:
                    return None  # an ignored phrase ("zip file") or another list's word
                qualified = True
                crossed.append(cue)
                i = cue.last + 1
                continue
            word = s.tokens[i].text.lower()
            if word in g.links_after:
                worded = worded or word[0].isalpha()
            elif not (qualified and word in g.links):
                return None
            i += 1
        return None


def qualified_only(cues: Sequence[Cue]) -> bool:
    """Whether a sentence's cues are qualifiers, one at least, and nothing else."""
    return bool(cues) and all(c.qualifier for c in cues)


def qualifies(s: Sentence, v: Value) -> bool:
    """Whether a qualifier of the sentence that no other value reads is there for ``v``."""
    return s.qualified and v.first not in s.unqualified


def scan(index: CueIndex, text: str) -> CueHits:
    """The cues of ``text``, also where words are joined in camel case ("cardLast4")."""
    if CAMEL_PAIR.search(text) is None:
        return index.scan(text)
    # Scan a copy with a space at every lower-to-upper change, then map offsets back.
    spaced = _CAMEL.sub(" ", text)
    origin: list[int] = []
    pos = 0
    for piece in _CAMEL.split(text):
        if origin:
            origin.append(pos)  # the inserted space stands for the letter after it
        origin.extend(range(pos, pos + len(piece)))
        pos += len(piece)
    origin.append(len(text))
    return CueHits([CueHit(origin[h.start], origin[h.end - 1] + 1, h.lists) for h in index.scan(spaced)])


def split(line: str) -> Iterable[tuple[int, int]]:
    """Sentences of one line as (start, end) offsets."""
    if "." not in line and "!" not in line and "?" not in line:
        yield 0, len(line)
        return
    start = 0
    for m in _SENTENCE_END.finditer(line):
        word = line[line.rfind(" ", 0, m.start()) + 1 : m.start()].lower()
        if word in _ABBREVIATIONS:
            continue
        yield start, m.start()
        start = m.end()
    yield start, len(line)


def number_sign(text: str, v: Value) -> bool:
    """Whether a masked value is a number after a lone "#" ("PR #2210", "the gate code is
    #4410"): a number sign, not a mask. A cue may still claim it ("card #4242"); the rules for
    masked values that no cue claims do not take it. "##1234" and "###-##-1234" are masks."""
    at = v.start
    return at > 0 and text[at - 1] == "#" and (at < 2 or text[at - 2] not in MASK_START)
