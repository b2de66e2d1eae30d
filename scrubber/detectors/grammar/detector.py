"""The grammar detector: gate a message, read its sentences, claim values, parse the rest."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

import regex

from scrubber.detectors import MessageContext
from scrubber.detectors.cues import CueHit
from scrubber.detectors.grammar.known import Shortcut
from scrubber.detectors.grammar.parse import tree_claims
from scrubber.detectors.grammar.rules import PARSE_PENALTY, Grammar, GrammarRule
from scrubber.detectors.grammar.sentences import (
    CAMEL_PAIR,
    Cue,
    Reply,
    Sentence,
    SentenceReader,
    number_sign,
    qualifies,
    scan,
)
from scrubber.detectors.tokens import Value, number_like, tokenize, values
from scrubber.detectors.validators.base import Memo
from scrubber.findings import Finding, Spans

# What a value given in reply to a request loses against one a cue names in its own sentence.
REPLY_PENALTY = 0.1
# After a value at the end of its line: nothing but a full stop or a comma, the line break, and
# on the next line a speaker's label ("C:", "[10:42] Customer:", "> ") before what follows.
_LINE_TAIL = regex.compile(
    r"[ \t]*[.,]?[ \t]*\r?\n[ \t>]*(?:\[[^\]\n]{1,24}\][ \t]*)?(?:[^\W\d][\w .'()-]{0,30}?:[ \t]+)?(?=\d)"
)
# How far into that next line its number is read.
_NEXT_REACH = 80
_NEXT_TOKENS = 12
# A value read out in parts ("6 0 2... hang on, it's on the bill... 1 4") is read in this many
# replies at most.
REPLY_PARTS = 4


class GrammarDetector:
    """Partial PII by cue words and the dependency tree; one per policy, the parser shared."""

    name = "grammar"

    def __init__(self, grammar: Grammar) -> None:
        self.grammar = grammar
        self.entities = grammar.entities
        self.reader = SentenceReader(grammar)
        self.shortcut = Shortcut(grammar)
        self._masked_rules = grammar.masked_rules
        # Per cue list: (digit count, spelled, fragment allowed, letters in it) of every value
        # a shape of its rules accepts.
        fits: dict[str, set[tuple[int, bool, bool, bool]]] = {}
        for rule in grammar.rules:
            for name in rule.cues:
                fits.setdefault(name, set()).update(
                    (n, spelled, frag, alnum)
                    for shape in rule.shapes
                    for n in shape.digits
                    for spelled in ((False, True) if shape.spelled else (False,))
                    for frag in ((True,) if shape.fragment else (False, True))
                    for alnum in ((False, True) if shape.alnum else (False,))
                )
        self._fits = {name: frozenset(f) for name, f in fits.items()}
        self.stats = {
            "messages": 0,
            "gated_messages": 0,
            "sentences": 0,
            "parsed_sentences": 0,
            "settled_values": 0,
        }

    def detect(self, text: str, ctx: MessageContext) -> list[Finding]:
        """Findings in ``text``.

        ``ctx.kept``: findings of the detectors before this one that the engine will act on. A
        value they settle is not parsed (see known.Shortcut.settled); the findings the parse
        could have made for it that outrank the kept ones go to ``ctx.spared``, for the engine
        to check.
        """
        self.stats["messages"] += 1
        hits = self.gate(text, ctx.kept)
        if hits is None:  # most messages: none of the batch's bookkeeping
            return []
        return self._judge([text], [hits], [ctx])[0]

    def detect_many(self, texts: Sequence[str], ctxs: Sequence[MessageContext]) -> list[list[Finding]]:
        """``detect`` of each text with its context, the parses done in one batch."""
        self.stats["messages"] += len(texts)
        gated = [self.gate(text, ctx.kept) for text, ctx in zip(texts, ctxs, strict=True)]
        return self._judge(texts, gated, ctxs)

    def _judge(
        self, texts: Sequence[str], gated: Sequence[list[CueHit] | None], ctxs: Sequence[MessageContext]
    ) -> list[list[Finding]]:
        """Findings of each text, given what ``gate`` said of it (and its context)."""
        out: list[list[Finding]] = [[] for _ in texts]
        to_parse: list[Sentence] = []
        done: list[Sentence] = []
        for i, text in enumerate(texts):
            hits = gated[i]
            if hits is None:
                continue
            self.stats["gated_messages"] += 1
            ctx = ctxs[i]
            known, memo = ctx.kept, ctx.memo
            top = self.shortcut.outranking(known)
            skip = partial(self.shortcut.out_of_reach, text, top=top) if top else None
            starts = frozenset(ctx.starts.union(f.start for f in known))
            sentences, replies = self.reader.read(i, text, hits, skip, starts, ctx)
            if replies:
                # A reply with other numbers in it ("415 867, umm, hold on, 5309") counts only as
                # parts, unless the number is a whole value on its own: a value said, then said
                # again corrected ("2 0 6 3 8 8 6 6 6 5 no wait ... it's 2 0 6 3 8 8 6 6 5 6").
                taken = [
                    (not r.part or self._whole(text, memo, r))
                    and self._emit(text, memo, r.fragment, r.value, r.cue, REPLY_PENALTY, out[i])
                    for r in replies
                ]
                self._emit_parts(text, memo, replies, taken, out[i])
            self.stats["sentences"] += len(sentences)
            around: Spans | None = None
            for s in sentences:
                # Every value's claim, also of those skipped below: which qualifier a value
                # reads decides for the others too (SentenceReader.claims), whatever is known.
                for v, (claim, penalty) in zip(s.values, self.reader.claims(s), strict=True):
                    if top and top.covers(v.start, v.end):
                        continue  # whatever it yields, resolve() drops it (see known.Shortcut)
                    if claim is None:
                        s.pending.append(v)
                    elif not self._emit(
                        text, memo, qualifies(s, v), v, claim, penalty, out[i]
                    ) and not self._continued(text, memo, v, claim, out[i]):
                        self._unclaim(s, v, claim, adjacent=True)
                named = frozenset(n for c in s.cues for n in c.lists & self.grammar.entity_lists)
                pending, s.pending = s.pending, []
                for v in pending:
                    if self._could_fit(text, memo, v, qualifies(s, v), named):
                        if known:
                            around = around or Spans(known)
                            if self.shortcut.settled(text, memo, s, v, around, ctx.spared):
                                self.stats["settled_values"] += 1
                                continue
                        s.pending.append(v)
                    elif v.masked:
                        s.unclaimed.append(v)
                (to_parse if s.pending else done).append(s)
        if to_parse:
            self._parse(texts, ctxs, to_parse, out)
        for s in (*done, *to_parse):
            for v in s.unclaimed:
                if v.masked:
                    i = s.text_index
                    self._emit_masked(texts[i], ctxs[i].memo, s, v, out[i])
        return out

    # -------------------------------------------------------------- steps
    def gate(self, text: str, known: Sequence[Finding] = ()) -> list[CueHit] | None:
        """The cues of ``text`` if it may hold a value a rule takes and ``known`` (see detect)
        leaves standing, else None (most messages)."""
        if not number_like(text):
            return None
        g = self.grammar
        # Most messages have no cue that lets them in (their cues are words like "order" or
        # "version", if any): one search for those cues alone proves it, without the scan.
        # Words joined in camel case are scanned apart (sentences.scan), so they take the long way.
        if CAMEL_PAIR.search(text) is None and not g.cues.may_find(text, g.gate_lists):
            # Only a masked value can let it in (asked once: on a long text it is the dearest).
            return list(g.cues.scan(text)) if self.reader.masked_only(text, 0, len(text)) else None
        # Only a one-line text, as a chat message or a log line: one of several lines seldom has
        # all its numbers covered, and its sentences are tested one by one anyway.
        if known and "\n" not in text and self.shortcut.outranked(text, self.shortcut.outranking(known)):
            return None
        hits = scan(g.cues, text)
        if hits.lists & g.gate_lists or self.reader.masked_only(text, 0, len(text)):
            return list(hits)
        return None

    def _emit(
        self, text: str, memo: Memo, qualified: bool, v: Value, cue: Cue, penalty: float, out: list[Finding]
    ) -> bool:
        if cue.lists & self.grammar.blockers and not cue.lists & self.grammar.entity_lists:
            return False
        for rule in self.grammar.rules:
            if not rule.cues & cue.lists:
                continue
            for shape in rule.shapes:
                if shape.accepts(v, text, qualified, memo):
                    out.append(
                        Finding(v.start, v.end, rule.entity, rule.score - penalty, f"grammar:{rule.name}")
                    )
                    return True
        return False

    def _emit_parts(
        self, text: str, memo: Memo, replies: Sequence[Reply], taken: Sequence[bool], out: list[Finding]
    ) -> None:
        """Replies to one request that together give one value read out in parts, with words
        or turns between them ("6 0 2... hang on... 1 4" for a ZIP code; "941" then,
        asked "and the rest?", "05"; "First three?" / "219" / "then the middle two?" / "04" /
        "and the last four?" / "7731" for a social). Their digits, joined in order, must make a value
        that a shape of the request's rules accepts as it stands (a ZIP code's five digits, a
        social the SSA could issue, a phone number libphonenumber calls valid); then each part
        is that entity. Of the replies in a row to one request, the longest such run from each
        reply on is taken (``REPLY_PARTS`` parts at most), if a part of it is no finding yet."""
        n = len(replies)
        first = 0
        while first < n:
            last = first + 1
            while (
                last < n
                and replies[last].cue is replies[first].cue
                and replies[last].run == replies[first].run
            ):
                last += 1
            if last - first < 2:
                first = last
                continue
            # A value whole on its own is no part of another ("+1 415 867 5309, she's free after 6").
            whole = {k: self._whole(text, memo, replies[k]) for k in range(first, last)}
            at = first
            while at < last - 1:
                for size in range(min(REPLY_PARTS, last - at), 1, -1):
                    window = replies[at : at + size]
                    if (
                        not all(taken[at : at + size])
                        and not any(whole[k] for k in range(at, at + size))
                        and self._emit_run(text, memo, window, out)
                    ):
                        at += size - 1
                        break
                at += 1
            first = last

    def _continued(self, text: str, memo: Memo, v: Value, cue: Cue, out: list[Finding]) -> bool:
        """A value its cue names that is too short for the cue's rules, at the end of its line,
        and the number that starts the next line (after a speaker's label) together make a
        whole value: a number typed in two messages ("Buyer: the card number is 4532 0151" /
        "Buyer: 1128 3039 oops, hit enter too soon"). Both parts are then that entity."""
        if v.masked or v.alnum or v.ext or not cue.lists & self.grammar.entity_lists:
            return False
        tail = _LINE_TAIL.match(text, v.end)
        if tail is None:
            return False
        nxt = tail.end()
        tokens = tokenize(text, nxt, min(len(text), nxt + _NEXT_REACH))
        rest = values(tokens[:_NEXT_TOKENS])
        if not rest or rest[0].first != 0 or rest[0].masked or rest[0].alnum:
            return False
        return self._emit_joined(text, memo, (v, rest[0]), cue.lists, out)

    def _whole_rule(self, text: str, memo: Memo, v: Value, lists: frozenset[str]) -> GrammarRule | None:
        """The first rule of the cue lists ``lists`` with a shape that takes ``v`` as a whole
        value, no fragment; None if there is none."""
        for rule in self.grammar.rules:
            if rule.cues & lists and any(
                not shape.fragment and shape.accepts(v, text, False, memo) for shape in rule.shapes
            ):
                return rule
        return None

    def _whole(self, text: str, memo: Memo, reply: Reply) -> bool:
        """Whether a reply's value is a whole value of the kind asked for, no fragment."""
        return self._whole_rule(text, memo, reply.value, reply.cue.lists) is not None

    def _emit_run(self, text: str, memo: Memo, run: Sequence[Reply], out: list[Finding]) -> bool:
        parts = [r.value for r in run]
        # A part is two digits at least: one digit in a reply is a count, a step, a choice.
        if any(v.masked or v.alnum or v.ext or len(v.digits) < 2 for v in parts):
            return False
        return self._emit_joined(text, memo, parts, run[0].cue.lists, out)

    def _emit_joined(
        self, text: str, memo: Memo, parts: Sequence[Value], lists: frozenset[str], out: list[Finding]
    ) -> bool:
        """The parts of one value (``_emit_parts``, ``_continued``) as one value said digit by
        digit: its digits are what it says, and what stands between the parts is no part of it.
        It must be a whole value, not a fragment (four numbers in a row, "Step 1 is done. Step
        2 ...", would make any last four); then each part is that entity."""
        joined = Value(
            parts[0].first,
            parts[-1].last,
            parts[0].start,
            parts[-1].end,
            "".join(v.digits for v in parts),
            True,
            False,
        )
        rule = self._whole_rule(text, memo, joined, lists)
        if rule is None:
            return False
        score = rule.score - REPLY_PENALTY
        out.extend(Finding(v.start, v.end, rule.entity, score, f"grammar:{rule.name}") for v in parts)
        return True

    def _unclaim(self, s: Sentence, v: Value, cue: Cue, *, adjacent: bool) -> None:
        """A value that its cue's rules do not take is free for the masked rules, unless a
        blocker right before it claims it ("order •••• 4242")."""
        if cue.lists & self.grammar.entity_lists or (v.masked and not adjacent):
            s.unclaimed.append(v)

    def _could_fit(self, text: str, memo: Memo, v: Value, qualified: bool, named: frozenset[str]) -> bool:
        """Whether a rule of a cue list in the sentence takes ``v``: if none, no parse.

        Whatever cue the tree gives ``v`` to, only such a rule could make it a finding. The
        shape's own test (a checksum, a phone number's validity) costs far less than a parse.
        """
        key = (len(v.digits), v.spelled, qualified or v.masked, v.alnum)
        if not any(key in self._fits[name] for name in named if name in self._fits):
            return False
        return any(
            shape.accepts(v, text, qualified, memo)
            for rule in self.grammar.rules
            if rule.cues & named
            for shape in rule.shapes
        )

    def _emit_masked(self, text: str, memo: Memo, s: Sentence, v: Value, out: list[Finding]) -> None:
        if number_sign(text, v):
            return
        for rule in self._masked_rules:
            for shape in rule.shapes:
                if shape.accepts(v, text, qualifies(s, v), memo):
                    out.append(Finding(v.start, v.end, rule.entity, rule.score, f"grammar:{rule.name}"))
                    return

    def _parse(
        self,
        texts: Sequence[str],
        ctxs: Sequence[MessageContext],
        sentences: list[Sentence],
        out: list[list[Finding]],
    ) -> None:
        self.stats["parsed_sentences"] += len(sentences)
        for s, v, claim in tree_claims(self.grammar, texts, sentences):
            i = s.text_index
            if claim is None:
                s.unclaimed.append(v)
            elif not self._emit(texts[i], ctxs[i].memo, qualifies(s, v), v, claim, PARSE_PENALTY, out[i]):
                self._unclaim(s, v, claim, adjacent=False)
