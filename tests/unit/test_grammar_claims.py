"""A value before what names it ("4821 is the last four of my social"), values joined to one
cue ("card ending 4242 or 5678"), and a qualifier that another value reads ("I paid 1234 for
the card ending in 5678"): positives with their exact spans, and look-alikes."""

from __future__ import annotations

import re

import pytest
from marks import marked_spans

from scrubber import rulefile
from scrubber.detectors import MessageContext
from scrubber.detectors.cues import load_cues
from scrubber.detectors.grammar import GrammarDetector, load_grammar

GRAMMAR = rulefile.grammar_dir()


@pytest.fixture(scope="module")
def detector() -> GrammarDetector:
    cues = load_cues(GRAMMAR / "cues.yaml")
    return GrammarDetector(load_grammar(GRAMMAR / "rules.yaml", cues))


POSITIVE = [
    # The value is the subject of a copula whose attribute names it, or its appositive.
    ("US_SSN", "I think [[4821]] is the last four of my social, Maya"),
    ("US_SSN", "[[4821]] — that's the last 4 of my SSN"),
    ("US_SSN", "it's [[6789]], the last four of my social"),
    ("US_SSN", "[[5562]], last four of my social"),
    ("US_SSN", "[[0419]] - last 4 of ssn"),
    ("US_SSN", "[[9921]] (last four of my social)"),
    ("US_SSN", "[[1188]] would be the last four of my social"),
    ("US_SSN", "For verification: [[5521]] are the last digits of my social security number."),
    ("US_SSN", "is it ok if i give you [[7731]], the last four of my social?"),
    ("CREDIT_CARD", "[[5521]] are the last digits of my card"),
    ("CREDIT_CARD", "[[7789]] is the last four on my visa"),
    ("CREDIT_CARD", "[[2210]], the last four of the amex"),
    ("PHONE_NUMBER", "[[4455]] are the last four of my cell"),
    ("BANK_ACCOUNT", "[[7730]] is the last four of my checking account"),
    ("ZIP_CODE", "my code? [[94110]] is my zip"),
    ("ZIP_CODE", "and [[94110]] would be my zip"),
    ("ZIP_CODE", "[[60614]] is the zip code"),
    # The tree hangs "of my social" elsewhere; the qualifier still stands in for its cue.
    ("US_SSN", "I think [[4821]], if I remember right, is the last four of my social, Maya"),
    # A reply before the sentence that points back at it.
    ("US_SSN", "[[4821]]... that's the last four of my social i think"),
    ("US_SSN", "[[6021]]! this is the last 4 of my ssn"),
    ("ZIP_CODE", "[[94110]]. That's my zip."),
    # Values joined to the one a cue names.
    ("CREDIT_CARD", "card ending [[4242]] or [[5678]]"),
    ("US_SSN", "the last four of my ssn is [[1234]] or maybe [[1243]]"),
    ("CREDIT_CARD", "visa ending [[1881]] and mastercard ending [[9902]]"),
    # More ways to say "ends in", and a relative clause between the cue and the qualifier.
    ("CREDIT_CARD", "it was the card finishing with [[8192]] i think"),
    ("CREDIT_CARD", "the amex that ends [[8288]] zip code is new"),
    ("CREDIT_CARD", "the visa which finishes in [[0045]]"),
    # A log's "field=... value=...".
    ("US_SSN", 'stderr F level=warn msg="validation failed" field=ssn4 value=[[9608]]'),
    # A Ruby/Perl hash: '"key"=>"value"'.
    ("CREDIT_CARD", 'Parameters: {"card_last4"=>"[[4242]]", "plan"=>"pro"}'),
    # A reply whose speaker label is a cue word of no rule's entity ("client" is an IP cue).
    ("CREDIT_CARD", "Operator: Can you give me the last four digits on the card?\nClient: [[0262]]"),
    ("CREDIT_CARD", "[12:09] Rep: last four of the card on file?\n[12:10] Client: [[0262]]"),
    # A request made as a statement, and replies that are whole values or fragments.
    ("US_SSN", "Rep: please enter your social security number for the form\nCaller: [[524593318]]"),
    ("CREDIT_CARD", "Rep: which card should I use?\nCustomer: it's the one ending [[4668]]"),
    (
        "CREDIT_CARD",
        "Agent: the card number please?\nGuest: [[four one one one, one one one one, one one one one, "
        "one one one one]]",
    ),
    ("PHONE_NUMBER", "ok ring me on [[4 1 5 5 5 5 2 6 7 1]] later"),
    # A request for several things, answered one line each: the third line is still a reply.
    (
        "US_SSN",
        "agent: please confirm: name, dob, last four of social.\ncust: nour m\ncust: 20 June 1952\n"
        "cust: and [[eight four eight five]]",
    ),
]


@pytest.mark.parametrize(("entity", "marked"), POSITIVE)
def test_a_value_before_or_beside_its_cue_is_found(
    detector: GrammarDetector, entity: str, marked: str
) -> None:
    text, spans = marked_spans(marked)
    found = detector.detect(text, MessageContext())
    assert sorted((f.start, f.end) for f in found) == spans, [text[f.start : f.end] for f in found]
    assert {f.entity for f in found} == {entity}


# {{...}}: the value that must not be found (the others in the text may be).
NEGATIVE = [
    "{{4821}} is the last four of our orders",
    "{{1234}} is my order number",
    "{{1500}} are the last items in stock",
    "{{2021}} was the last year I used that card",
    "{{4}} is the last digit of my card",
    "{{6000}} steps, that is the last four of my goals",
    "{{1234}} is the room, my zip is unknown",
    "{{2024}} is the last year of my zip file archive",
    "{{1234}} likes on my last social post",
    "social media post {{1234}} likes",
    "zip file {{2024}}.zip",
    "card {{3}} of 5",
    "{{1999}}. That's when I got my card",
    "{{4821}}. that is my order number",
    "{{2024}}. That was the year I moved, new zip and all",
    # A qualifier that another value reads does not make this one a fragment.
    "order {{1234}}, card ending 5678",
    "I paid {{1234}} for the card ending in 5678",
    "amount={{1234}} card_last4=5678",
    "total {{1234}} card ending 5678",
    "card ending 4242, {{5000}} dollars charged",
    "my ssn ends in 1234 and {{2024}} was the year",
    "the card ending 4242 was charged {{1999}} on my card",
    "Visa ending 4242 - {{1250}} points earned",
    "ssn last 4 1234; order {{5678}} is late",
    # Statements that are no request: nothing asks for the number after them.
    "Customer: I'll send the card photo tomorrow\nCustomer: {{1234}}",
    # A lone "#" before a number is a number sign, not a mask.
    "3 PRs merged (#{{2210}}, #2214, #2219)",
    "code for the gate is #{{4410}}.",
    # A label that names an entity is a key, not a speaker: this is no reply about the card.
    "Agent: last four of your card?\nSSN: {{1234}}",
    # A cue before the label of an earlier scrub names the value the label stands for, not one
    # before it: as "social 2290" did before the scrub.
    "ref [IBAN] {{481-22-9034}} last four of my social [US_SSN]",
]


@pytest.mark.parametrize("marked", NEGATIVE)
def test_look_alikes_are_left_alone(detector: GrammarDetector, marked: str) -> None:
    text = re.sub(r"\{\{(.+?)\}\}", r"\1", marked)
    (bad,) = re.findall(r"\{\{(.+?)\}\}", marked)
    assert bad not in [text[f.start : f.end] for f in detector.detect(text, MessageContext())]


def test_a_cue_that_names_the_value_after_it_does_not_name_one_before(detector: GrammarDetector) -> None:
    text = "1234, card ending 5678"
    assert [text[f.start : f.end] for f in detector.detect(text, MessageContext())] == ["5678"]


def test_a_value_named_by_the_cue_after_it_needs_no_parse(detector: GrammarDetector) -> None:
    detector.stats = dict.fromkeys(detector.stats, 0)
    assert [f.entity for f in detector.detect("94110 is my zip", MessageContext())] == ["ZIP_CODE"]
    assert detector.stats["parsed_sentences"] == 0


def test_hash_arrow_values_survive_the_skip_of_known_values() -> None:
    # The zip is known to the engine before the grammar runs; the card fragment is not, and the
    # search for where values stand must see it after "=>".
    from scrubber import Scrubber

    text = '{"card_last4"=>"4242", "zip"=>"94105"}'
    assert Scrubber().scrub(text).text == '{"card_last4"=>"[CREDIT_CARD]", "zip"=>"[ZIP_CODE]"}'
