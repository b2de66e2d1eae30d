"""PERSON on phrasings of the probe round: names in capitals after a field, initials with a
dot, chat speaker labels, "the technician, Luis,", "Last, First" in a field, lower-case titles;
and the look-alikes that must stay unmasked (service accounts in fields, roles, products, log
words in capitals)."""

from __future__ import annotations

import re

import pytest

from scrubber import rulefile
from scrubber.detectors import MessageContext
from scrubber.detectors.names import NameDetector, load_names


@pytest.fixture(scope="module")
def detector() -> NameDetector:
    return NameDetector(load_names(rulefile.grammar_dir() / "names.yaml"))


POSITIVE = [
    "Account holder: [[DAVID O'BRIEN]]",
    'full_name="[[ANA LUCIA PEREZ]]"',
    "Beneficiary: [[Okafor, Chinedu]]",
    "Regards,\n[[M. Okonkwo]]",
    "Best,\n[[J. R. Hartley]]",
    "Thanks, [[E. Lindqvist]]",
    "Rep [[Daniel]]: your refund is on its way",
    "Operator [[Sofia Marin]]: please hold",
    "[09:15] [[Ahmed Raza]]: is anyone there?",
    "[3:07 PM] [[Julia Becker]]: thanks!",
    "<[[Marta Kowal]]> the link is broken",
    "[10:02] <[[Ben Ode]]> back online",
    "The agent, [[Keisha]], was very helpful",
    "the courier, [[Pavel Novak]], left it outside",
    "our plumber [[Gerald]] fixed it",
    "my mechanic, [[Luca Bianchi]], says it's the battery",
    "Insured: [[Tanaka, Hiroshi]]",
    "Patient: [[Oduya, Grace Ann]]",
    "hi mr. [[patel]], the order shipped",
    "thanks ms [[lee]] for the help",
    "good morning dr [[nguyen]]",
    "dear mrs. [[o'hara]],",
    "i talked to mr. [[brennan]] yesterday",
    "Name: [[Lars Eriksson]]",
    "first_name=[[maria]]",
    "name: [[tammy garrett]]",
    "Signed, [[J. Alvarez]]",
    "Technician [[Omar]]: I'm on site now",
    "Dear Ms. [[Achebe]],",
    "Hello [[Sven]], thanks for the update",
    "Cardholder name: [[PRIYA NAIR]]",
]

NEGATIVE = [
    "Dear Customer,\nyour order shipped",
    "Hi team, the build is green",
    "Regards,\nSupport",
    "Name: Premium Plan",
    "ERROR WARN INFO retry later",
    "2024-06-01 ERROR DB TIMEOUT: retrying",
    "Status: FAILED",
    "Name: N/A",
    "NAME: TBD",
    "name: ADMIN",
    "Customer: hi, my package is late",
    "Agent: hello, how can I help?",
    "Agent Notes: customer was upset",
    "Agent Status: online",
    "Customer Service: we are closed",
    "[10:42] ERROR: disk full",
    "[12:01] Payment Service: started",
    "<Button> click here",
    "reporter: jenkins",
    "owner: root",
    "created_by=jenkins",
    "assignee=deploy-bot",
    "author: svc",
    "the technician said it would take a week",
    "The manager, Acme Corp, replied",
    "our driver was late again",
    "took 30 ms total",
    "the ms teams call dropped",
    "Monday, March 3 works for me",
    "I love the Samsung Galaxy",
    "Shipped from Denver via Seattle",
    "hi there, anyone around?",
    "Thanks again, Support Team",
    "Best,\nThe Billing Team",
    "Name: Gold Membership",
]


@pytest.mark.parametrize("marked", POSITIVE)
def test_finds_the_name(detector: NameDetector, marked: str) -> None:
    text = re.sub(r"\[\[(.+?)\]\]", r"\1", marked)
    want = sorted(set(re.findall(r"\[\[(.+?)\]\]", marked)))
    assert sorted({text[f.start : f.end] for f in detector.detect(text, MessageContext())}) == want


@pytest.mark.parametrize("text", NEGATIVE)
def test_finds_no_name(detector: NameDetector, text: str) -> None:
    assert [text[f.start : f.end] for f in detector.detect(text, MessageContext())] == []
