"""The known-values shortcut: what the findings of the detectors before the grammar spare it.

The engine tells the grammar which findings it will act on (``known``). A value that one of
them settles needs no parse (``settled``); a sentence, or a whole text, whose values they all
outrank needs no tokenizing (``out_of_reach``, ``outranked``). Each test is exact: a finding
it spares could not have changed the result, or it goes to ``spared`` for the engine to check.
"""

from __future__ import annotations

from collections.abc import Sequence

from scrubber.detectors.cues import CueHit
from scrubber.detectors.grammar.rules import PARSE_PENALTY, Grammar
from scrubber.detectors.grammar.sentences import CAMEL_PAIR, LAST4, Sentence, number_sign, qualifies
from scrubber.detectors.tokens import SPELLED_WORD, Value, masked_value_pattern, number_stretches
from scrubber.detectors.validators.base import Memo
from scrubber.dial import ENTITY_LEVELS
from scrubber.findings import Finding, Spans, rank

# More digits than any value has: the fewest a shape takes when no shape is in reach.
_NO_DIGITS = 1 << 30


class Shortcut:
    """The known-values tests for one grammar."""

    def __init__(self, grammar: Grammar) -> None:
        self.grammar = grammar
        self._masked_rules = grammar.masked_rules
        self._any_masked = masked_value_pattern()
        # Per entity cue list: the fewest digits a shape of its rules takes; the lists with a
        # rule that takes letters too, and the fewest digits a shape of any other rule takes
        # (see out_of_reach, outranked).
        self._fewest = {
            name: min(min(s.digits) for rule in grammar.rules if name in rule.cues for s in rule.shapes)
            for name in grammar.entity_lists
        }
        self._alnum_lists = frozenset(
            name for rule in grammar.rules if any(s.alnum for s in rule.shapes) for name in rule.cues
        )
        self._fewest_plain = min(
            (
                min(s.digits)
                for rule in grammar.rules
                if not any(s.alnum for s in rule.shapes)
                for s in rule.shapes
            ),
            default=_NO_DIGITS,
        )
        # The best score a finding of the grammar can have: a known finding above it outranks
        # every one (the parse and a reply only take some off).
        self._top = max((rule.score for rule in grammar.rules), default=0.0)

    def outranking(self, known: Sequence[Finding]) -> Spans:
        """The known findings that outrank every finding this detector could make inside them."""
        return Spans([k for k in known if k.score > self._top])

    def outranked(self, text: str, top: Spans) -> bool:
        """Whether no finding of ``text`` can matter, given the known findings ``top`` that
        outrank every one inside them: then neither cues nor sentences need a look.

        As out_of_reach, for the whole text and before the cue scan, with the fewest digits
        of any rule (bar those that take letters, whose cues must then be missing). The
        sentences' tokens are the text's, so each value lies in a stretch of the whole text.
        Every finding, a reply's too, spans a value: requests do not matter either.
        """
        return (
            bool(top)
            and self._beyond(text, 0, len(text), top, self._fewest_plain)
            # (words joined in camel case would need the scan to see their cues)
            and not (
                self._alnum_lists
                and (
                    CAMEL_PAIR.search(text) is not None or self.grammar.cues.may_find(text, self._alnum_lists)
                )
            )
        )

    def out_of_reach(self, text: str, hits: Sequence[CueHit], start: int, end: int, top: Spans) -> bool:
        """Whether a sentence, with no request before it, can neither ask for a value nor yield
        a finding that scrubbing would act on: so without tokenizing it.

        Asking takes a qualifier (or a "4" glued to a cue) or a question mark (_asked). Every
        finding spans a value exactly, with the entity and score of a rule of a cue in the
        sentence (less a penalty), or of a masked rule for a masked value. Values of letters
        and digits only a rule that takes letters takes: with no cue of one, they yield
        nothing. The others lie in number stretches (see _beyond).
        """
        g = self.grammar
        fewest = _NO_DIGITS
        for c in hits:
            if c.lists & g.qualifiers:
                return False
            named = c.lists & g.entity_lists
            if named:
                if named & self._alnum_lists or LAST4.match(text, c.end):
                    return False
                fewest = min(fewest, *(self._fewest[n] for n in named))
        if g.carry_lines and text[start:end].rstrip().endswith("?"):
            return False
        return self._beyond(text, start, end, top, fewest)

    def _beyond(self, text: str, start: int, end: int, top: Spans, fewest: int) -> bool:
        """Whether no value of ``text[start:end]`` other than one of letters and digits can
        yield a finding that matters, when no shape in reach takes fewer than ``fewest`` digits.

        With no spelled digit and no masked value, each value lies in one of the
        number_stretches, with no more digits than it. A stretch with fewer than ``fewest``
        yields nothing; one inside a finding of ``top`` (known, scoring above every rule) yields
        only findings that resolve() drops for good, whatever their entity: it puts each in
        that finding's cluster without widening it and never ranks it first (see settled).
        Nothing goes to ``spared`` for them either.
        """
        for a, b, digits in number_stretches(text, start, end):
            if digits >= fewest and not top.covers(a, b):
                return False
        return (
            self._any_masked.search(text, start, end) is None
            and SPELLED_WORD.search(text[start:end].lower()) is None
        )

    def settled(
        self, text: str, memo: Memo, s: Sentence, v: Value, around: Spans, spared: list[Finding]
    ) -> bool:
        """Whether the findings of other detectors settle ``v``: then the tree is not needed.

        Parsing can end in one of these for ``v``: a cue of the sentence claims it and the first
        rule of that cue whose shape takes it makes a finding (GrammarDetector._emit, less
        PARSE_PENALTY); a cue claims it and makes nothing (a blocker, or no shape takes it); no
        cue claims it. In the last two a masked value goes on to the masked rules
        (GrammarDetector._unclaim, _emit_masked), a plain one makes nothing. Nothing else follows
        from the parse: requests and replies are judged before it (SentenceReader.read), and one
        value's outcome never touches another's.

        So every finding the parse could make for ``v`` is one of the candidates below, and each
        spans ``v`` exactly. Let K be a known finding that spans at least ``v``:

        - If K ranks no worse than a candidate (findings.rank), the engine's resolve() puts the
          candidate in K's cluster without widening it (it lies inside K) and never picks it as
          the cluster's best (it is not better than K, and on a tie K comes first: the engine
          lists other detectors' findings before the grammar's). Resolving with or without it
          gives the same findings, to the score and detector: it is dropped for good.
        - Else, if K has the candidate's entity, the candidate can only lend the merged finding
          its higher score and its detector, if the cluster's best has that entity too. Whether
          that score can matter (a repeat of the value elsewhere, another entity in the
          cluster) shows only once everything is found: the candidate goes to ``spared`` and the
          engine checks it, and parses the message after all when it cannot rule it out.
        - Else (another entity) the value is parsed.

        The common case is the second: the pattern rule found "5163 2643 8457 6132" whole as a
        card (0.8 without a cue near it), and the card rule would give it 0.85.
        """
        around_v = around.spanning(v.start, v.end)
        if not around_v:
            return False
        g = self.grammar
        width = v.end - v.start
        candidates: list[tuple[str, float]] = []
        qualified = qualifies(s, v)
        for c in s.cues:
            if not c.lists & g.entity_lists:
                continue  # no claim, or a blocker's: no finding from this cue (GrammarDetector._emit)
            for rule in g.rules:
                if rule.cues & c.lists and any(
                    shape.accepts(v, text, qualified, memo) for shape in rule.shapes
                ):
                    candidates.append((rule.entity, rule.score - PARSE_PENALTY))
                    break  # GrammarDetector._emit stops at the first rule that takes the value
        if v.masked and not number_sign(text, v):
            for rule in self._masked_rules:
                if any(shape.accepts(v, text, qualified, memo) for shape in rule.shapes):
                    candidates.append((rule.entity, rule.score))
                    break
        unsure: list[Finding] = []
        for entity, score in candidates:
            key = (-score, -width, ENTITY_LEVELS.get(entity, 99), v.start)
            if any(key >= rank(k) for k in around_v):
                continue
            if not any(k.entity == entity for k in around_v):
                return False
            unsure.append(Finding(v.start, v.end, entity, score, "grammar:spared"))
        spared.extend(unsure)
        return True
