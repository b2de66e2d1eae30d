"""A fragment whose kind is named before: "I have two cards on file. The one ending in 7617
was declined." The fragment's own sentence has a qualifier right before the value and a word
that points back ("one", "it", "its", "the") or nothing before the qualifier; the last
sentence with an entity cue, on the same line or one of the three above, names one kind.
Look-alikes: a noun that says what ends ("offer ends 2025"), a qualifier that counts something
else, two kinds named before, a kind named too far back."""

from __future__ import annotations

import re

import pytest

from scrubber import rulefile
from scrubber.detectors import MessageContext
from scrubber.detectors.cues import load_cues
from scrubber.detectors.grammar import GrammarDetector, load_grammar
from scrubber.dial import Policy
from scrubber.engine import Scrubber

GRAMMAR = rulefile.grammar_dir()
ENGINE = Scrubber(Policy(level=7))


@pytest.fixture(scope="module")
def detector() -> GrammarDetector:
    cues = load_cues(GRAMMAR / "cues.yaml")
    return GrammarDetector(load_grammar(GRAMMAR / "rules.yaml", cues))


def _marked(text: str) -> tuple[str, str]:
    """'ending [[7617]]' -> the plain text and the value inside [[...]]."""
    (value,) = re.findall(r"\[\[(.+?)\]\]", text)
    return re.sub(r"\[\[(.+?)\]\]", r"\1", text), value


POSITIVE = [
    ("CREDIT_CARD", "I have two cards on file. The one ending in [[7617]] was declined."),
    ("CREDIT_CARD", "I have two cards on file.\nThe one ending in [[7617]] was declined."),
    # Sentences that name nothing may stand between, on the next lines (carry_lines).
    ("CREDIT_CARD", "I have two cards on file.\n\nThe one ending in [[7617]] was declined."),
    (
        "CREDIT_CARD",
        "I added a new visa on Monday. Thanks for waiting. Please bill the new one ending [[3309]].",
    ),
    ("CREDIT_CARD", "Two debit cards are linked to it. Only the one that ends in [[6603]] is active."),
    ("CREDIT_CARD", "I lost my credit card on the train. Its last four digits are [[7732]]."),
    ("CREDIT_CARD", "My wife's Mastercard got cloned last week on holiday. The one ending [[4419]]."),
    ("US_SSN", "My social was stolen last year. The last four are [[4471]]."),
    ("US_SSN", "The form asks for my social security number. I only know the last four, [[2286]]."),
    ("BANK_ACCOUNT", "Our records show a checking account in your name. The one ending [[5521]] is closed."),
    (
        "BANK_ACCOUNT",
        "My savings account dates from 1998. Its last four digits are [[0917]].",
    ),
    ("PHONE_NUMBER", "They mailed the new cell phone to my sister. The last 4 are [[3904]]."),
    ("PHONE_NUMBER", "You called from a different number today. Was it the one ending [[4490]]?"),
    ("IBAN", "Can't remember my IBAN. Just that it ends in [[6610]]."),
    ("PHONE_NUMBER", "I switched carriers, my mobile number is new. The old one (ending [[8820]]) is dead."),
]


@pytest.mark.parametrize(("entity", "marked"), POSITIVE)
def test_a_fragment_takes_its_kind_from_the_sentence_before(
    detector: GrammarDetector, entity: str, marked: str
) -> None:
    text, value = _marked(marked)
    found = [(f.entity, text[f.start : f.end]) for f in detector.detect(text, MessageContext())]
    assert (entity, value) in found
    assert value not in ENGINE.scrub(text).text


NEGATIVE = [
    "I paid by card. Order 88231 ships today.",
    "Your card was charged. The one ending at 5pm was the second shift.",
    "We sent the phone to repair. The one ending the queue is ticket 4471.",
    "I called about my card. The last four orders were 2231, 2232, 2233 and 2234.",
    "I need a new card. The one I liked costs 1299 dollars.",
    # A noun, not a word that points back, says what ends.
    "Your card is ready for pickup. The office ends service at 1700.",
    "Card declined again. Ending balance was 1250.",
    "Your card is ready. Pickup (ends at 1700) is at the front desk.",
    "The phone rang twice. The last four calls came after 2200.",
    "My phone battery died. The last 4 hours were rough, I got to bed at 0230.",
    # Two kinds named before: which one?
    "I updated the phone number on my card. The one ending 4410 is new.",
    # Named too far back: more than ``carry_lines`` (3) lines above.
    "I have two cards on file.\nThanks for the quick reply.\nWe moved last month.\nThe kids are fine."
    "\nThe one ending in 7617 was declined.",
]


@pytest.mark.parametrize("text", NEGATIVE)
def test_look_alikes_after_a_sentence_that_names_a_kind(detector: GrammarDetector, text: str) -> None:
    assert [f for f in detector.detect(text, MessageContext()) if f.detector.startswith("grammar:")] == []
