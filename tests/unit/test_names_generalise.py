"""PERSON in contexts, spellings and line ends the lexicon was not written from: CRLF mail
bodies, one-line sign-offs, "spoke with", header lists, titles, initials, names from many
cultures, typing slips, lower-case chat; and the look-alikes that must stay unmasked."""

from __future__ import annotations

import re

import pytest

from scrubber import rulefile
from scrubber.detectors import MessageContext
from scrubber.detectors.names import NameDetector, load_names
from scrubber.dial import Policy
from scrubber.engine import Scrubber


@pytest.fixture(scope="module")
def detector() -> NameDetector:
    return NameDetector(load_names(rulefile.grammar_dir() / "names.yaml"))


def _marked(text: str) -> tuple[str, list[str]]:
    return re.sub(r"\[\[(.+?)\]\]", r"\1", text), re.findall(r"\[\[(.+?)\]\]", text)


POSITIVE = [
    # CRLF line ends (mail bodies as the SMTP relay hands them over).
    "Thanks,\r\n[[Jane Miller]]\r\n",
    "Hello [[Priyanka]],\r\n\r\nYour ticket was updated.\r\n\r\n"
    "Kind regards,\r\n\r\n[[Tomasz Wójcik]]\r\nAcme Support\r\n",
    "Cheers, [[Ana]]\r\n",
    "Sincerely,\r\n> [[Kwame Mensah]]\r\n",
    # One-line sign-offs, a dash instead of a comma, the "-- " signature delimiter.
    "Regards, [[Tom]]",
    "Thanks - [[Siobhan]]",
    "Best wishes, [[Mei Ling]].",
    "see you then\n-- \n[[Lars Eriksson]]\nSenior Engineer, Fjord Labs",
    # Intros other than "my name is".
    "I spoke with [[Olusegun Adeyemi]] yesterday and he promised a refund.",
    "We talked to [[Dmitri Volkov]] on Monday.",
    "Hi, this is [[Priya]] from Acme Billing.",
    "This is Dr. [[Amara Okafor]] from the clinic, returning your call.",
    "the refund was approved by [[Keiko Yamamoto]] last week",
    "a woman named [[Fatima Zahra]] called twice",
    "the account is undre [[Sarah Kirk]]",
    # Titles and initials.
    "Ms. [[Fernández]] called about the invoice.",
    "Please ask Prof. [[Ngozi Okonjo-Iweala]] to sign.",
    "Dear [[J. R. Hartley]],\nthank you for your letter.",
    "I talked to [[John F. Kennedy]] today",
    "Herr [[Müller]] will call back.",
    # Header-like keys, with one name or a list.
    "cc: [[Hiroshi Tanaka]]",
    "Cc: [[Hiroshi Tanaka]], [[María José García]]; [[Bjørn Ødegård]]",
    "To: [[Chidi Okeke]]\nSubject: your claim",
    "Attendees: [[Aisha Khan]], [[Liam O'Brien]] and [[Zhang Wei]]",
    "emergency_contact=[[Rosa Delgado]] relation=mother",
    # Names from many cultures, particles, hyphens, apostrophes.
    "Name: [[José María de la Cruz]]",
    "My mother, [[Nguyễn Thị Lan]], is the account holder.",
    "my colleague [[Abdullah al-Rashid]] set it up",
    "Dear Mr. [[van der Berg]],",
    "Hello [[Siân]], your parcel is on its way.",
    # Several names in one greeting; a dash after the name.
    "Hi [[Jane]] and [[Tom]], thanks for the quick reply.",
    "Hi [[Zoë]], [[Łukasz]] and [[Søren]],\nthe build is ready.",
    "Hi [[Jane]], Thanks for the update",
    # Signature lines with a suffix, a company or a credential after the name.
    "Thanks,\n[[Martin Luther King Jr]].\n",
    "Regards,\n[[John Smith]] III",
    "Best,\n[[Ruth Gordon]] | Acme Freight\n+1 555 0100",
    "Thanks,\r\n[[Ruth Gordon]], CPA\r\n",
    "Hey [[Raj]] - quick question about my bill",
    # Display names as "Last, First"; dotted log keys; ticket history; a signed line.
    'From: "[[Oyelaran]], [[Tunde]]" <t.oyelaran@example.com>',
    'user.name: "[[Thabo Nkosi]]" event=login',
    "The ticket was opened by [[Grace Liu]] and assigned to [[Omar Haddad]].",
    "Signed, [[Farah Siddiqui]]",
    # Mistyped context words.
    "Regrads,\n[[Liam O'Connor]]",
    "Sincerly,\n[[Aroha Ngata]]",
    # Lower case chat.
    "customer: can i speak with [[owen rahman]]? she handled my case",
    "can i talk to [[marisol]] please",
    # Intros, fields, greetings and relations added for phrasings the devset does not have.
    "my full name is [[Lucia Fernandez Ortiz]]",
    "the account holder is [[Janet Wu]]",
    "Reported by: [[Anika Patel]]\nPriority: high",
    "The order was placed by [[Fiona McAllister]].",
    "Per my conversation with [[Andre Williams]], the fee is waived.",
    "Thanks for your help [[Yolanda]]",
    "my advisor, [[Renata Kowalski]], set this up for me",
]


@pytest.mark.parametrize("marked", POSITIVE)
def test_names_are_found_in_new_contexts(detector: NameDetector, marked: str) -> None:
    text, names = _marked(marked)
    found = sorted(detector.detect(text, MessageContext()), key=lambda f: f.start)
    assert [text[f.start : f.end] for f in found] == names


@pytest.mark.parametrize("marked", [p for p in POSITIVE if "\n" in p])
def test_crlf_and_lf_give_the_same_names(detector: NameDetector, marked: str) -> None:
    lf = marked.replace("\r\n", "\n")
    for variant in (lf, lf.replace("\n", "\r\n")):
        text, names = _marked(variant)
        found = sorted(detector.detect(text, MessageContext()), key=lambda f: f.start)
        assert [text[f.start : f.end] for f in found] == names


NEGATIVE = [
    # Companies, teams and products in name slots.
    "I spoke with Apple Support yesterday",
    "This is Pinecrest Mutual Billing, how can we help?",
    "Thanks,\r\nThe Northwind Traders Team\r\n",
    "Regards, Customer Care",
    "cc: Platform Team, Finance Department",
    "From: Acme Billing",
    "To: Undisclosed Recipients",
    "approved by Legal on Friday",
    "Kind regards,\r\nBluefin Logistics Ltd\r\n",
    "Hi there,\r\nyour order shipped.\r\n",
    # Months, weekdays, modal verbs and ambiguous first names at a sentence start.
    "Will you be attending? May I ask you to confirm by Friday?",
    "March was busy; April will be quieter.",
    "Bill me later please, and Mark the invoice as paid.",
    "Hope this helps. Grace period ends soon.",
    # Capitalised words that are not after a context.
    "Customer: Refund it to my card please",
    "Agent: Thank you for waiting, I will check.",
    "Please Confirm The Order Details Below",
    "Dear Valued Customer,\r\nyour statement is ready.",
    "Best Buy had it cheaper",
    # Lower case chat that only looks like an intro.
    "can i speak with someone about my bill?",
    "can i talk to a manager please",
    "i need to speak with the billing team.",
    "username=jdoe hostname=web-1 filename=Report.pdf",
    "service.name: Checkout host.name: Web",
    "ticket reassigned to Tier 2 support",
    "assigned to Network Ops on Monday",
    "I am Writing to complain about the delay",
    "This is Support, how can we help?",
    "Thanks,\nPlease find the file attached.",
    "Best regards,\nBilling Department | Acme",
    # Kin said to, adjectives after "This is", assistants and brands, products and automation.
    "Hi Mom, the router is fixed",
    "Thanks Dad!",
    "This is Ridiculous, I've waited 3 weeks",
    "Hey Google, set a timer",
    "Thanks Amazon! arrived early",
    "Dear Amazon Seller Central,",
    "Name: Premium Plan",
    '{"name": "Widget Pro 3000", "qty": 2}',
    "ticket 4471 updated by Automation Rule",
    "Dear Sales,\n\nDo you ship to Canada?",
    "assigned to: unassigned",
]


@pytest.mark.parametrize("text", NEGATIVE)
def test_look_alikes_stay_unmasked(detector: NameDetector, text: str) -> None:
    assert [text[f.start : f.end] for f in detector.detect(text, MessageContext())] == []


def test_a_signature_in_a_crlf_mail_body_is_masked_by_the_engine() -> None:
    body = "Hi team,\r\n\r\nplease see the attached.\r\n\r\nBest regards,\r\nJane Miller\r\n"
    result = Scrubber(Policy(level=5)).scrub(body)
    assert result.text == "Hi team,\r\n\r\nplease see the attached.\r\n\r\nBest regards,\r\n[PERSON]\r\n"
