"""Partial values in dialogue: a value split across a question and its answers, given in
digits said one by one or in words, pointed at from a later turn, or named a few words before
it. Each positive is a transcript or message written for this test; the look-alikes are
replies that hold order numbers, counts, times, amounts and versions, which stay."""

from __future__ import annotations

import pytest
from marks import marked_values

from scrubber.detectors.tokens import tokenize, values
from scrubber.dial import Policy
from scrubber.engine import Scrubber

ENGINE = Scrubber(Policy(level=7))


POSITIVE = [
    # A value in parts: the first digits, then the rest on a later turn.
    (
        "ZIP_CODE",
        "Rep: Can you give me the first three digits of your zip?\nCaller: [[941]]\n"
        "Rep: and the last two?\nCaller: [[07]]",
    ),
    (
        "ZIP_CODE",
        "Concierge: what are the first 3 of the postal code on the booking?\nTraveller: [[303]]\n"
        "Concierge: great, and the rest?\nTraveller: [[18]]",
    ),
    # Digits said one by one, in groups with dashes.
    ("US_SSN", "Agent: What's the social on the file?\nGuest: [[2 1 9 - 0 4 - 7 7 3 1]]"),
    (
        "US_SSN",
        "Teller: read me your social security number slowly please\nPatron: [[2 1 9 - 0 4 - 7 7 3 1]]",
    ),
    # A later turn points back at a card named in the question, however long the reply.
    (
        "CREDIT_CARD",
        "Clerk: Which card ends in [[5150]]?\n"
        "Patron: no that one's closed, bill the one ending [[2276]] instead",
    ),
    # ... or in a turn before the question.
    (
        "CREDIT_CARD",
        "Host: You have two cards saved.\nHost: Which one should I delete?\n"
        "Member: the one that ends in [[8093]]",
    ),
    (
        "CREDIT_CARD",
        "Support: I can see a visa and a debit card here.\nSupport: Which should stay as the default?\n"
        "Subscriber: keep the one ending with [[6631]] please",
    ),
    # ... with a cue of the same kind in the reply.
    (
        "CREDIT_CARD",
        "Support: There are two cards on this profile. Which one should go?\n"
        "User: the one that ends in [[7731]], keep the visa",
    ),
    # A value said, then typed: both are the reply.
    (
        "PHONE_NUMBER",
        "Agent: And your phone number, please?\nCaller: [[six one seven, five five five, zero one nine two]]"
        " -- I mean [[617-555-0192]]",
    ),
    # A sentence after the question that asks for a fragment of it.
    ("BANK_ACCOUNT", "Banker: what's your account number? only the last four digits\nClient: [[7712]]"),
    # Digits said one by one after a state's code.
    ("ZIP_CODE", "Caller: 12 Birch Lane, Keene NH [[0 3 4 3 1]]"),
    # A short question after an answer asks for more of the same.
    (
        "US_SSN",
        "Agent: please confirm the last four of your social\nMember: [[8812]]\n"
        "Agent: That doesn't match what I have. Could you try again?\nMember: sorry, it's [[8821]]",
    ),
    # A qualified cue names the lone value a few words later.
    ("US_SSN", "I entered the last 4 of my ssn so it should be [[6620]]"),
    ("CREDIT_CARD", "they asked for the last four of the card and I told them [[3047]]"),
    # Typed groups, then digits said in words.
    ("PHONE_NUMBER", "you can reach me on [[+1 415 six two eight oh three four four]]"),
    ("PHONE_NUMBER", "text me at [[617 five five five zero one nine two]] after six"),
    # A reply with a qualifier may go on a while: the qualifier says the number is a part.
    (
        "BANK_ACCOUNT",
        "Agent: Which account should the direct debit come from?\n"
        "Customer: [[7477]] are the last four, the rest is on the letter we sent back to you",
    ),
    # A value read out in parts, with words between them: each part is the value asked for.
    (
        "ZIP_CODE",
        "Agent: and the zip code for billing?\nCaller: [[6 0 2]]... hang on, I'm reading it off the "
        "bill... [[1 4]]",
    ),
    (
        "ZIP_CODE",
        "Clerk: What's the postal code there?\nGuest: [[853]]\nClerk: mm-hm, and then?\nGuest: [[01]]",
    ),
    ("US_SSN", "Rep: Could I have your social?\nMember: [[412 55]]... one sec, my glasses... [[7821]]"),
    # ... the second part after dots glued to it.
    ("ZIP_CODE", "Agent: and the zip code?\nCustomer: [[7 0 1]]\nCustomer: ...[[1 8]]"),
    # A dash said aloud between typed groups.
    ("ZIP_CODE", "Clerk: and the zip plus four?\nResident: [[60614 dash 2207]]"),
    ("PHONE_NUMBER", "you can call me on [[312 dash 555 dash 0186]] after five"),
    # A number typed in two messages after its cue: the line ends, the next one goes on.
    ("CREDIT_CARD", "Buyer: the card number is [[4532 0151]]\nBuyer: [[1128 3039]] oops, hit enter too soon"),
    ("PHONE_NUMBER", "[14:02] Guest: my phone is [[312 555]]\n[14:02] Guest: [[0186]]"),
    # ... asked for part by part; the last part is a last four on its own too.
    (
        "US_SSN",
        "Clerk: I need the social. Give me the first three digits?\nApplicant: [[219]]\n"
        "Clerk: then the middle two?\nApplicant: [[04]]\nClerk: and the last four?\nApplicant: [[7731]]",
    ),
    # ... in one reply, with words between the parts.
    ("PHONE_NUMBER", "Host: and a number we can call?\nGuest: [[415 867]], umm, hold on, [[5309]]"),
    # ... but two whole values in one reply are two values, not the parts of one.
    ("PHONE_NUMBER", "Host: a number to reach you?\nGuest: [[4158675309]] or my desk [[4158675310]]"),
    ("ZIP_CODE", "Agent: your zip?\nCaller: [[94105]] or maybe [[94107]]"),
    # Digits said twice or three times: "double", "triple".
    (
        "PHONE_NUMBER",
        "Rep: your mobile, please?\nCaller: [[oh seven seven double zero nine triple one two three]]",
    ),
    # A fragment pointed at by "one", with the card named earlier in the sentence.
    ("CREDIT_CARD", "my new card is 4111 1111 1111 1111, but the old one ending [[5108]] is still charged"),
    # A qualifier after a comma reads back past the noun before it: the card is what ends.
    ("CREDIT_CARD", "Please refund the card you charged for the reservation, ending [[7723]]."),
    # A date of birth given as a reply, its year in words.
    ("DATE_OF_BIRTH", "Rep: And your date of birth?\nCaller: [[twelfth of march, seventy-nine]]"),
    (
        "DATE_OF_BIRTH",
        "Nurse: can you confirm your DOB for me?\nPatient: [[june 3rd, nineteen eighty eight]]",
    ),
]


@pytest.mark.parametrize(("entity", "marked"), POSITIVE)
def test_values_given_in_dialogue_are_found(entity: str, marked: str) -> None:
    text, wanted = marked_values(marked)
    found = {(f.entity, text[f.start : f.end]) for f in ENGINE.detect(text)}
    for value in wanted:
        assert (entity, value) in found, (value, found)
    scrubbed = ENGINE.scrub(text).text
    assert all(value not in scrubbed for value in wanted)
    # Scrubbing twice changes nothing: a label is no value and no cue.
    assert ENGINE.scrub(scrubbed).text == scrubbed


# Look-alikes: the text must come back as it went in, but for the values in [[...]].
NEGATIVE = [
    "Agent: What's your order number?\nCustomer: 48213\nAgent: and how many units?\nCustomer: 4",
    "Rep: what time works for you?\nCaller: around 4 30 or five",
    "Agent: Which version are you running?\nUser: 3 1 4",
    "Agent: Can I get your tracking number?\nShopper: 1 Z 9 9 9 2 0 4 1 1 2",
    "Agent: how much was the charge on the card?\nCustomer: 1299",
    "Rep: what's the ticket number?\nClient: 5 5 1 2 0",
    "we ordered four five-packs and two three-packs",
    "one two three four, here we go",
    # A follow-up that asks for something else.
    "Agent: what's the zip on the account?\nCaller: [[94107]]\nAgent: and the order number?\nCaller: 55120",
    "Agent: last four of your social?\nCaller: [[8812]]\n"
    "Agent: Thanks! Is there anything else I can help with today?\nCaller: yes, 2 more questions",
    # Parts of something that is no value of ours.
    "Bot: what are the first three letters of the code?\nUser: ABC\nBot: and the rest?\nUser: 42",
    "Coach: how did the last two games end?\nPlayer: 3 - 1 and 2 - 2",
    # A list, not digits said one by one.
    "please pick options 1, 2, 3, 4 on the form",
    # A qualified cue, then a value that something else claims.
    "I gave them the last four of my card and 30 minutes later it was blocked",
    "the last four of my social are on the form, I paid 1250 dollars for it",
    "in NY 2 3 4 5 6 7 people",
    "Agent: what's your SSN?\nCaller: 1234",
    # ... but a long reply without one is a story with a number in it.
    "Agent: Which account should the direct debit come from?\n"
    "Customer: 7477 people were at the concert and the rest of them left before it ended",
    # A whole value and a count after it are no parts of one value.
    "Agent: And the best number to reach her?\nCustomer: [[+1 415 867 5309]], she's free after 6",
    # Numbers with another number between them that answers nothing are no parts of one value.
    "Rep: what's the best phone number for you?\nCaller: the refund for RMA 6653142 is late.\n"
    "Caller: Order #829972046 shows label created.\nCaller: it says error 551 again.",
    # A number on the next line that does not start it, or that makes no value with the first.
    "Buyer: the card number is 4532 0151\nBuyer: my order is 1128 3039",
    "Buyer: the card number is 4532 0151\nBuyer: 2 more minutes",
    # Parts whose digits together make no value asked for: a ZIP code is five digits.
    "Agent: what's your zip?\nCustomer: 94... no wait... 12",
    "Agent: what's your SSN?\nCaller: 12, I think... maybe 34",
    # A booking that ends, and no card or other value named.
    "my booking, ending 7723, was cancelled",
    # A card named long before: too far back.
    "I have two cards on file.\nThe app crashed.\nI restarted it.\nThen it worked.\n"
    "The one ending 4402 stays.",
]


@pytest.mark.parametrize("marked", NEGATIVE)
def test_look_alikes_in_dialogue_stay(marked: str) -> None:
    text, wanted = marked_values(marked)
    found = sorted(text[f.start : f.end] for f in ENGINE.detect(text))
    assert found == sorted(wanted)


def test_digits_said_one_by_one_in_groups_are_one_value() -> None:
    text = "Guest: 1 1 4 - 1 2 - 6 1 4 3 ok"
    (v,) = values(tokenize(text))
    assert (v.digits, text[v.start : v.end]) == ("114126143", "1 1 4 - 1 2 - 6 1 4 3")


def test_a_dash_said_aloud_joins_groups_of_three_digits_or_more() -> None:
    (v,) = values(tokenize("it's 60614 dash 2207"))
    assert (v.digits, v.spelled) == ("606142207", True)
    # Not between short numbers: a score, a race.
    assert [w.digits for w in values(tokenize("won 3 dash 1, the 100 dash in 9 dash 58"))] == [
        "3",
        "1",
        "100",
        "9",
        "58",
    ]


def test_double_and_triple_say_a_digit_twice_and_three_times() -> None:
    (v,) = values(tokenize("it's double seven four triple oh one"))
    assert (v.digits, v.spelled) == ("7740001", True)
    # Not before a digit: a word like any other.
    assert values(tokenize("a double shot and a triple check")) == []


def test_typed_groups_go_on_with_three_spelled_digits_or_more() -> None:
    (v,) = values(tokenize("on +1 212 four four eight oh nine one two"))
    assert (v.digits, v.spelled) == ("12124480912", True)
    # Fewer are words: "call 415 one two" is a number and two words.
    assert [w.digits for w in values(tokenize("call 415 one two"))] == ["415"]
