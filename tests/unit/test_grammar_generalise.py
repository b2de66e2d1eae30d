"""Partial values in phrasings, formats and spellings the rules were not written from: CRLF
line ends, "ends" without "in", a question answered in the next sentence, licence numbers,
typing slips in cue words, lower case; and look-alikes through the whole engine."""

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


@pytest.fixture(scope="module")
def detector() -> GrammarDetector:
    cues = load_cues(GRAMMAR / "cues.yaml")
    return GrammarDetector(load_grammar(GRAMMAR / "rules.yaml", cues))


@pytest.fixture(scope="module")
def engine() -> Scrubber:
    return Scrubber(Policy(level=7))


def _marked(text: str) -> tuple[str, list[str]]:
    """'ends [[0045]]' -> the plain text and the values inside [[...]], in order."""
    return re.sub(r"\[\[(.+?)\]\]", r"\1", text), re.findall(r"\[\[(.+?)\]\]", text)


POSITIVE = [
    # "ends" on its own, "ends with", "ending with", "ended in".
    ("CREDIT_CARD", "the visa on file ends [[0045]]"),
    ("CREDIT_CARD", "Which card? The Mastercard, it ends with [[8812]]."),
    ("CREDIT_CARD", "charge went to the amex ending with [[3300]] I think"),
    ("CREDIT_CARD", "My debit card ended in [[5521]] but I replaced it."),
    ("BANK_ACCOUNT", "the checking account ends [[0912]], routing I don't have handy"),
    ("PHONE_NUMBER", "yeah my cell ends with [[7781]]"),
    # A question, then the answer in the next sentence or on the next line (another turn).
    ("US_SSN", "The last four of my SSN? [[6021]]."),
    ("BANK_ACCOUNT", "Could you confirm the last 4 digits of the account? Sure — they are [[7730]]."),
    ("US_SSN", "Rep: what are the last four of your social?\r\nMe: [[3318]]"),
    ("CREDIT_CARD", "What does the card end in?\nUser: it's [[4492]]"),
    ("PHONE_NUMBER", "last 4 of the phone number on the account?\n\n[[0187]]"),
    # Driver's licence by the word "license" alone, with a licence-shaped value.
    ("DRIVER_LICENSE", "my license is [[D1234567]] in california"),
    ("DRIVER_LICENSE", "Licence: [[W425-123-45-678-0]] (Florida)"),
    ("DRIVER_LICENSE", "her licence number? it's [[S530-4612-8870]]"),
    ("DRIVER_LICENSE", "my license is [[123456789]], issued in New York"),
    # A question for a whole value, answered in the next turn.
    ("US_SSN", "Agent: What is your SSN?\nCustomer: [[412 55 7821]]"),
    ("ZIP_CODE", "what zip code should I put?\n[[9 4 1 0 5]]"),
    # Typing slips in cue words.
    ("CREDIT_CARD", "my card endng in [[4421]]"),
    ("PHONE_NUMBER", "my phone numer ends in [[6654]]"),
    ("ZIP_CODE", "pstal code is [[9 8 1 0 1]]"),
    ("ZIP_CODE", "postaal code [[6 0 6 1 4]]"),
    ("US_SSN", "my socail ends in [[4432]]"),
    ("US_SSN", "the last four of my scoial are [[2290]]"),
    # The value away from its cue: the dependency tree decides.
    ("US_SSN", "the digits at the end of my SSN are [[0921]]"),
    ("US_SSN", "For verification, [[4432]] are the last digits of my social."),
    ("CREDIT_CARD", "I think the card I used, the one ending in [[4242]], was declined"),
    ("CREDIT_CARD", "The last four on the card should be [[9981]] if I remember right"),
    ("CREDIT_CARD", "I watched the last four episodes in 2 days, my card ending [[4242]] was charged"),
    # Lower case, chat spellings, other log formats.
    ("US_SSN", "ssn last four [[9921]] pls"),
    ("CREDIT_CARD", "LAST 4 OF CARD: [[6617]]"),
    ("ZIP_CODE", "ts=2024-05-01T10:22:31Z level=warn event=zip_mismatch postal_code=[[3-0-3-0-9]]"),
    ("PHONE_NUMBER", "2024-05-01 10:22:31 WARN callback phone_last_4=[[5120]] queue=retail"),
    ("CREDIT_CARD", "<event type='payment' card_last4='[[9034]]' status='ok'/>"),
    ("US_SSN", "my social is [[five five one, two two, nine zero one three]]"),
    ("PHONE_NUMBER", "can you call me at [[6 one 7 five five five 0 1 2 3]]"),
    ("CREDIT_CARD", "card ending [[4242]] one more thing"),
    # Masks of "*" keep their digits a fragment; JSON keys in camel case or with a 4 glued on.
    ("CREDIT_CARD", "Card: ************[[4821]] exp 09/27"),
    ("CREDIT_CARD", "refund it to (****[[4821]]) please"),
    ("US_SSN", '{"event":"verify","ssn4":"[[4410]]"}'),
    ("CREDIT_CARD", '{"cardLast4":"[[9921]]","status":"ok"}'),
    ("ZIP_CODE", '{"shipTo":{"postalCode":"[[3 0 3 0 9]]"}}'),
    ("US_SSN", '{"customer":{"ssnLastFour":"[[2210]]"}}'),
    # A UK sort code or an Australian BSB, the last five of an Amex, the last four of an IBAN,
    # a licence by "lic" or a state ID.
    ("BANK_ACCOUNT", "sort code [[20-41-66]], account ends [[4471]]"),
    ("BANK_ACCOUNT", "BSB: [[062 000]]"),
    ("CREDIT_CARD", "I paid with the amex ending [[31007]]"),
    ("IBAN", "my iban ends with [[1916]]"),
    ("IBAN", "Can you confirm the last five of the IBAN: [[44019]]"),
    # An SSN's first three (the area number) or first five.
    ("US_SSN", "first three of my social security number are [[219]]"),
    ("US_SSN", "the first five of my SSN are [[219 04]]"),
    ("DRIVER_LICENSE", "lic # [[B1234567]]"),
    ("DRIVER_LICENSE", "state ID number [[D7730412]]"),
    ("DRIVER_LICENSE", "mi permiso de conducir es [[48213907K]], caduca en 2031"),
    ("US_SSN", "my ss number ends in [[5519]]"),
    ("CREDIT_CARD", "I used my debit ending with [[3018]]"),
]


@pytest.mark.parametrize(("entity", "marked"), POSITIVE)
def test_new_phrasings_find_the_value(detector: GrammarDetector, entity: str, marked: str) -> None:
    text, wanted = _marked(marked)
    found = detector.detect(text, MessageContext())
    assert [text[f.start : f.end] for f in found] == wanted
    assert {f.entity for f in found} == {entity}


@pytest.mark.parametrize(("entity", "marked"), [p for p in POSITIVE if "\n" in p[1] or "\r" in p[1]])
def test_crlf_and_lf_give_the_same_values(detector: GrammarDetector, entity: str, marked: str) -> None:
    text, wanted = _marked(marked.replace("\r\n", "\n").replace("\n", "\r\n"))
    assert [text[f.start : f.end] for f in detector.detect(text, MessageContext())] == wanted


NEGATIVE = [
    # "ends" and friends without a card, SSN or account cue.
    "The sale ends 0045 hours Friday",
    "the trial ends in 2026 for everyone",
    "My card's grace period ends on 30 Apr 2021, right?",
    # A question, then a number that answers something else.
    "What are the last four of your card? Order 7731 is the one that is late.",
    "Can you send the last 4 of the SSN?\nTicket 4410 has been updated.",
    "Could you confirm the last 4 digits of the account? I have 2 accounts.",
    # "license" that is no driver's licence.
    "my license key is ABCD-1234-EFGH-5678",
    "the software license 20240101 expired",
    "our license server at port 27000 is down",
    "license plate 7ABC123 was parked outside",
    "my license expires 2026-05-01",
    # Three or five digits by an SSN or IBAN cue with no qualifier: no part of one.
    "the SSN field holds 219 characters at most",
    "IBAN checks failed 44019 times last week",
    # A decimal number is no value's first or last digits.
    '{"ssn_last4":"[US_SSN]"},"score":0.97}',
    "ssn last four matched with confidence 0.973",
    "MIT license, version 2.0",
    # Cue-like words that are something else.
    "I watched the last four episodes in 2 days",
    "please unzip the zip file 20240501.zip",
    "room 1234, floor 12, at the Hilton",
    "socal weather is 75 degrees today",
    "the last four years my SSN was fine, since 2019",
    "at the end of the day my card was charged 4242 times",
    "I was charged 4410 dollars on my card",
    "my card expires 0927",
    "ZipRecruiter sent 3 emails about 2 cards",
    # A brand written in camel case after one small letter is no key: a user agent's device.
    '"DELETE /v1/accounts HTTP/1.1" 201 - 0 3217 333 397 "-" "MyBankApp/8.14.2 (iOS 17.5; iPhone15,2)"',
    "sent from my iPhone 0 2186 346 265",
    '{"cardCount":"3","lastLogin":"2024-05-01"}',
    "the sort order of the 20 items is wrong",
    "the gift card ending 31007 has no balance",
    "my state ID expired in 2019",
    "the iban field holds 34 characters at most",
]


@pytest.mark.parametrize("text", NEGATIVE)
def test_look_alikes_in_new_phrasings_are_left_alone(detector: GrammarDetector, text: str) -> None:
    assert [text[f.start : f.end] for f in detector.detect(text, MessageContext())] == []


# Hard negatives through the whole engine at dial level 7: nothing may be masked.
ENGINE_NEGATIVE = [
    "Order #100045823 shipped on 2024-03-02; tracking 1Z999AA10123456784",
    "Your order number is 304-5567812-3349001, thanks for shopping",
    "ticket INC0041289 reassigned to network ops",
    "Invoice INV-2024-00317 total $1,249.00 due in 30 days",
    "invoice 88213 was paid twice, refund 45.10 EUR",
    "upgraded from v2.14.3 to 3.0.1-rc2 and build 20240517.4 is green",
    "Release 4.2 ends support for Python 3.8",
    "The price went from $19.99 to $24.99 (+25%)",
    "2024-05-01T10:22:31.123Z INFO request completed in 182 ms",
    "[12/Mar/2024:09:14:55 +0000] GET /api/v1/items?page=4 200 5120",
    "I watched the last four episodes last night, the finale ends at 10",
    "my zip file is 24 MB, can you resend it?",
    "the zip archive backup_2024.zip is 4096 bytes",
    "I'm in room 1204 until Sunday, then room 331",
    "request_id=3f2b8c1e-9a4d-4c7e-8f21-6b5d0e9a7c13 status=200",
    "trace 550e8400-e29b-41d4-a716-446655440000 took 3012 ms",
    "commit 9fceb02d0ae598e95dc970b74767f19372d61af8 fixed issue 4417",
    "Flight UA 1742 departs gate B12 at 14:35",
    "the meeting ends at 1530, see you in room 4B",
    "Will you call me back? May I ask for a refund?",
    "Bill the client for 3 hours and 15 minutes",
    "March 2024 sales: 1,245 units, April 1,320 units",
    "Hello team,\r\nbuild 4471 passed on all 3 runners.\r\nThanks,\r\nThe Release Team\r\n",
    "Our Mastercard partnership starts in 2025 with 12 banks",
    "the last 4 builds failed, last four deploys succeeded",
    "Apple Support said to call back in 5 days",
    "The card reader on register 3 ends every transaction with an error",
    "Release 10.2.14.7 fixes the sync bug",
    "firmware 3.10.2.1 is out, should I install it?",
    "Hi Mom, the router is fixed",
    "This is Ridiculous, I've waited 3 weeks",
    'Name: Premium Plan, {"name": "Widget Pro 3000"}',
    "ticket 4471 updated by Automation Rule",
    "Hey Google, set a timer for ten minutes",
]


@pytest.mark.parametrize("text", ENGINE_NEGATIVE)
def test_hard_negatives_are_not_masked(engine: Scrubber, text: str) -> None:
    result = engine.scrub(text)
    assert [(text[f.start : f.end], f.entity) for f in result.findings] == []
    assert result.text == text


def test_a_request_in_one_message_does_not_reach_another(detector: GrammarDetector) -> None:
    first, second = "What are the last four of your SSN?", "4432"
    assert detector.detect_many([first, second], [MessageContext(), MessageContext()]) == [[], []]


def test_a_request_reaches_only_a_few_lines(detector: GrammarDetector) -> None:
    asked = "Agent: the last four of your SSN please\n"
    assert detector.detect(asked + "Customer: 4432", MessageContext())
    assert detector.detect(asked + "a\nb\nc\nCustomer: 4432", MessageContext()) == []


def test_a_request_reaches_only_a_few_sentences_on_one_line(detector: GrammarDetector) -> None:
    # A chat flattened into one line never reaches its next line: the reach in sentences
    # (carry_sentences, 12) bounds it there, and the reading of a long line with it.
    asked = "Agent: what are the last four of your SSN? "
    filler = " ".join(f"Step {n} is done." for n in range(1, 13))
    assert detector.detect(asked + "Sure. It is 4471.", MessageContext())
    assert detector.detect(asked + filler + " It is 4471.", MessageContext()) == []
    # ... and so does a topic: "My social was stolen. ... The last four are 4471."
    named = "My social was stolen last year. "
    assert detector.detect(named + "The last four are 4471.", MessageContext())
    assert detector.detect(named + filler + " The last four are 4471.", MessageContext()) == []
