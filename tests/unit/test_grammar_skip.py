"""Values other detectors already found whole are not parsed, and that changes no result.

The grammar detector reads ``ctx.kept`` (the findings before it that the engine acts on) and
leaves out of the parse a value a kept finding settles (grammar.known.Shortcut.settled);
candidates it cannot rule out alone go to ``ctx.spared`` and the engine checks them
(engine._spared_idle), scrubbing the message again the plain way when they might matter.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from load import streams
from scrubber.detectors import Detector, MessageContext
from scrubber.detectors.grammar import GrammarDetector
from scrubber.dial import Policy
from scrubber.engine import Scrubber, ScrubResult
from scrubber.findings import Finding

CARD = "The card on file ends the old way; the new one is 5163 2643 8457 6132."
CARD_AT = (CARD.index("5163"), CARD.index("6132") + 4)


class _Plain:
    """The grammar detector told nothing of what was found before it: the old way."""

    def __init__(self, inner: GrammarDetector) -> None:
        self.inner = inner
        self.name = inner.name
        self.entities = inner.entities

    def detect(self, text: str, ctx: MessageContext) -> list[Finding]:
        return self.inner.detect(text, ctx.without_findings())

    def detect_many(self, texts: Sequence[str], ctxs: Sequence[MessageContext]) -> list[list[Finding]]:
        return self.inner.detect_many(texts, [c.without_findings() for c in ctxs])


def _engines(policy: Policy) -> tuple[Scrubber, Scrubber, GrammarDetector]:
    fast = Scrubber(policy)
    grammar = next(d for d in fast.detectors if isinstance(d, GrammarDetector))
    plain_dets: list[Detector] = [_Plain(d) if isinstance(d, GrammarDetector) else d for d in fast.detectors]
    return fast, Scrubber(policy, detectors=plain_dets), grammar


@pytest.fixture(scope="module")
def level7() -> tuple[Scrubber, Scrubber, GrammarDetector]:
    return _engines(Policy(level=7))


def _same(a: ScrubResult, b: ScrubResult) -> bool:
    def spans(r: ScrubResult) -> list[tuple[int, int, str]]:
        return [(f.start, f.end, f.entity) for f in (*r.findings, *r.observed)]

    return a.text == b.text and spans(a) == spans(b)


def _parses(grammar: GrammarDetector) -> int:
    return grammar.stats["parsed_sentences"]


# ------------------------------------------------------------------ the detector alone
def _card(entity: str, score: float, start: int = CARD_AT[0], end: int = CARD_AT[1]) -> Finding:
    return Finding(start, end, entity, score, "pattern:test")


def test_a_value_a_known_finding_outranks_is_neither_parsed_nor_reported(
    level7: tuple[Scrubber, Scrubber, GrammarDetector],
) -> None:
    grammar = level7[2]
    before, ctx = _parses(grammar), MessageContext(kept=[_card("CREDIT_CARD", 0.95)])
    # The card rule would give 0.85; a known card at 0.95 wins against it whatever the tree says.
    assert grammar.detect(CARD, ctx) == []
    assert _parses(grammar) == before
    assert ctx.spared == []


def test_another_entity_that_outranks_every_candidate_settles_the_value_too(
    level7: tuple[Scrubber, Scrubber, GrammarDetector],
) -> None:
    grammar = level7[2]
    before, ctx = _parses(grammar), MessageContext(kept=[_card("PHONE_NUMBER", 0.95)])
    assert grammar.detect(CARD, ctx) == []
    assert _parses(grammar) == before
    assert ctx.spared == []


def test_a_known_finding_of_the_same_entity_that_scores_lower_leaves_a_candidate_to_check(
    level7: tuple[Scrubber, Scrubber, GrammarDetector],
) -> None:
    grammar = level7[2]
    before, ctx = _parses(grammar), MessageContext(kept=[_card("CREDIT_CARD", 0.8)])
    assert grammar.detect(CARD, ctx) == []
    assert _parses(grammar) == before
    assert [(f.start, f.end, f.entity) for f in ctx.spared] == [(*CARD_AT, "CREDIT_CARD")]
    assert ctx.spared[0].score == pytest.approx(0.85)


@pytest.mark.parametrize(
    "known",
    [
        # another entity that the card rule's finding would outrank
        [_card("PHONE_NUMBER", 0.8)],
        # the right entity, but it leaves the last group of the value out
        [_card("CREDIT_CARD", 0.95, end=CARD_AT[1] - 5)],
        # elsewhere in the text
        [Finding(0, 3, "CREDIT_CARD", 0.99, "pattern:test")],
    ],
)
def test_a_value_no_known_finding_settles_is_parsed(
    level7: tuple[Scrubber, Scrubber, GrammarDetector], known: list[Finding]
) -> None:
    grammar = level7[2]
    before, ctx = _parses(grammar), MessageContext(kept=known)
    found = grammar.detect(CARD, ctx)
    assert _parses(grammar) == before + 1
    assert [(f.start, f.end, f.entity) for f in found] == [(*CARD_AT, "CREDIT_CARD")]
    assert ctx.spared == []


def test_a_known_finding_that_starts_inside_a_run_of_digits_starts_a_value_of_its_own(
    level7: tuple[Scrubber, Scrubber, GrammarDetector],
) -> None:
    # "... 5163 [2643 8457 6132]": what another detector found is a value apart, so the parse
    # judges the digits before it alone (as it would once the known value is masked).
    grammar = level7[2]
    before, ctx = _parses(grammar), MessageContext(kept=[_card("CREDIT_CARD", 0.95, start=CARD_AT[0] + 5)])
    found = grammar.detect(CARD, ctx)
    assert _parses(grammar) == before + 1
    assert [(f.start, f.end, f.entity) for f in found] == [(CARD_AT[0], CARD_AT[0] + 4, "CREDIT_CARD")]


def test_a_masked_value_is_left_out_only_if_the_masked_rule_is_outranked_too(
    level7: tuple[Scrubber, Scrubber, GrammarDetector],
) -> None:
    grammar = level7[2]
    text = "Refund the card we kept on file, •••• 4258, please."
    at = (text.index("•"), text.index("4258") + 4)
    value = text.index("4258"), at[1]
    before = _parses(grammar)
    # The masked rule (0.8, no parse penalty) loses to a known card at 0.9 on the whole "•••• 4258".
    assert grammar.detect(text, MessageContext(kept=[Finding(*at, "CREDIT_CARD", 0.9, "pattern:test")])) == []
    assert _parses(grammar) == before
    # A known phone at 0.7 would lose to the masked card finding: parsed, and found.
    found = grammar.detect(text, MessageContext(kept=[Finding(*at, "PHONE_NUMBER", 0.7, "pattern:test")]))
    assert _parses(grammar) == before + 1
    assert [(f.start, f.end, f.entity) for f in found] == [(*value, "CREDIT_CARD")]


# ------------------------------------------------------------------ through the engine
def test_the_engine_spares_the_parse_of_a_card_the_pattern_found_with_the_same_result(
    level7: tuple[Scrubber, Scrubber, GrammarDetector],
) -> None:
    fast, plain, grammar = level7
    before = _parses(grammar)
    result = fast.scrub(CARD)
    assert _parses(grammar) == before
    assert _same(result, plain.scrub(CARD))
    assert [(f.start, f.end, f.entity) for f in result.findings] == [(*CARD_AT, "CREDIT_CARD")]


def test_a_repeated_value_the_spared_score_could_change_is_parsed_after_all(
    level7: tuple[Scrubber, Scrubber, GrammarDetector],
) -> None:
    fast, plain, grammar = level7
    # The second card is a repeat of the first: its finding takes the first one's score, and
    # so the spared 0.85 might decide against another entity there. The engine parses.
    text = CARD + " Again: 5163 2643 8457 6132"
    before = _parses(grammar)
    result = fast.scrub(text)
    assert _parses(grammar) == before + 1
    assert _same(result, plain.scrub(text))
    assert [f.detector for f in result.findings] == ["grammar:card", "repeat"]


def test_a_pattern_finding_below_the_policy_minimum_settles_nothing() -> None:
    fast, plain, grammar = _engines(Policy(level=7, min_score=0.82))
    before = _parses(grammar)
    result = fast.scrub(CARD)
    assert _parses(grammar) == before + 1  # the pattern's 0.8 is dropped: only the tree finds it
    assert [(f.start, f.end, f.entity) for f in result.findings] == [(*CARD_AT, "CREDIT_CARD")]
    assert _same(result, plain.scrub(CARD))


def test_an_allow_listed_value_settles_nothing() -> None:
    fast, plain, grammar = _engines(Policy(level=7, allow=frozenset({"5163 2643 8457 6132"})))
    before = _parses(grammar)
    result = fast.scrub(CARD)
    assert _parses(grammar) == before + 1
    assert result.findings == ()
    assert _same(result, plain.scrub(CARD))


def test_sparing_parses_changes_no_result_on_e_mail_and_batches(
    level7: tuple[Scrubber, Scrubber, GrammarDetector],
) -> None:
    fast, plain, grammar = level7
    texts = [
        *streams.email_bodies(40, seed=5, size=200),
        *streams.email_bodies(12, seed=14, size=600),
        CARD,
        CARD + " Again: 5163 2643 8457 6132",
        "The phone we have on the account for you is 415 555 0142.",
        "The zip code on the old form we kept is 94110. Card ending •••• 4258.",
    ]
    grammar.stats = dict.fromkeys(grammar.stats, 0)
    one_by_one = [fast.scrub(t) for t in texts]
    spared_parses = grammar.stats["parsed_sentences"]
    batched = fast.scrub_many(texts)
    grammar.stats = dict.fromkeys(grammar.stats, 0)
    expected = [plain.scrub(t) for t in texts]
    assert spared_parses < grammar.stats["parsed_sentences"]
    for got, many, want in zip(one_by_one, batched, expected, strict=True):
        assert _same(got, want)
        assert _same(many, want)


# ------------------------------------------------------------------ before tokenizing
@pytest.mark.parametrize(
    "text",
    [
        "Customer: sure, my SSN is 262-16-8118",
        "Mar 12 10:56:46 web-2 billing[9699]: charge card=6011 7674 6327 9487",
        "2025-11-25T19:03:55Z INFO worker=5 job=sync phone=617-247-5512 took=182ms",
        "Hi. My SSN is 262-16-8118.\nThanks, see you at 10",
    ],
)
def test_a_text_whose_values_known_findings_outrank_is_neither_tokenized_nor_changed(
    level7: tuple[Scrubber, Scrubber, GrammarDetector], text: str
) -> None:
    fast, plain, grammar = level7
    known = [f for f in fast.scrub(text).findings if f.score > 0.9]
    ctx = MessageContext(kept=known)
    assert known
    assert grammar.detect(text, ctx) == []
    assert ctx.spared == []
    # Alone, the grammar finds the value (an adjacent cue): the known finding only outranks it.
    assert grammar.detect(text, MessageContext())
    grammar.stats = dict.fromkeys(grammar.stats, 0)
    grammar.detect(text, MessageContext(kept=known))
    assert grammar.stats["sentences"] == 0
    assert _same(fast.scrub(text), plain.scrub(text))


@pytest.mark.parametrize(
    "text",
    [
        # a spelled value, a masked one, a question that asks for one, a value outside the
        # known finding, a licence number (letters): each may still yield something
        "my SSN is 262-16-8118 and my zip is nine four one one oh",
        "my SSN is 262-16-8118, card •••• 4258",
        "my SSN is 262-16-8118. And the last four of your card?\nSure, 4242",
        "my SSN is 262-16-8118 and my zip is 94105",
        "my SSN is 262-16-8118 and my license is D1234567",
    ],
)
def test_a_text_with_a_value_no_known_finding_outranks_is_still_judged(
    level7: tuple[Scrubber, Scrubber, GrammarDetector], text: str
) -> None:
    fast, plain, grammar = level7
    known = [f for f in fast.scrub(text).findings if f.score > 0.9 and f.entity == "US_SSN"]
    assert known
    found = grammar.detect(text, MessageContext(kept=known))
    assert [f for f in found if f.entity != "US_SSN"]
    assert _same(fast.scrub(text), plain.scrub(text))
