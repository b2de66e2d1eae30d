"""PERSON by context: greetings, sign-offs, intros, fields, headers, relations; and the classic
false positives ("Will", "May", company names, capitalised sentence starts)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from scrubber import rulefile
from scrubber.detectors import MessageContext
from scrubber.detectors.names import NameDetector, load_names
from scrubber.rulefile import RuleError


@pytest.fixture(scope="module")
def detector() -> NameDetector:
    return NameDetector(load_names(rulefile.grammar_dir() / "names.yaml"))


def _marked(text: str) -> tuple[str, list[str]]:
    return re.sub(r"\[\[(.+?)\]\]", r"\1", text), re.findall(r"\[\[(.+?)\]\]", text)


POSITIVE = [
    "Hi [[Martín]], thanks for waiting.",
    "Dear Mr. [[Arroyo]],\nyour refund is on its way.",
    "Hello [[Jodi Andersen]],\nplease see below.",
    "Agent: Hi [[Jay]], this is [[Tabitha]] from Pinecrest Mutual.",
    "Agent: Thanks [[Viviana]], I see the card on file.",
    "Thanks for your help.\n\nBest regards,\n[[Ruth Gordon]]\n110 Madison Hwy",
    "Kind regards,\n> [[Barry Townsend]]",
    "Cheers, [[Ana]]",
    "my name is [[Carl Gumprich]] and I need help",
    "Can I speak with [[Benito Solana]]? She handled my case.",
    "Name: [[Carol Levine]]\nDOB: 01/02/1980",
    "customer: name: [[tammy garrett]] / dob: 1968-01-28",
    'INFO shipping_label name="[[Max Nagi]]" street="1 Main St"',
    '{"msg":"profile updated","user":{"name":"[[Carol Levine]]","phone":"+1 555 0100"}}',
    '{"msg":"payout created","beneficiary":"[[Pranit Rattan]]"}',
    "INSERT INTO customers (full_name, email) VALUES ('[[Ivan Brock]]', 'ivan@example.com');",
    "From: [[Chloe Hanna]] <chloe.hanna@example.com>\nSubject: hello",
    "My mother, [[Katie Garcia]], is the account holder.",
    "My husband [[Donald]] set the account up",
    "Customer: [[Alexander Hawkins]], SSN 440-34-3006, DOB 08-24-1958",
    "customer: [[panini sarma]], ssn 409-57-3615",
    "Dear Mr. [[Sharma]],\nplease call.\n\nSincerely,\n[[Dalbir Sharma]]\n\nPS: [[Dalbir]] again",
    # Months that are given names too, where a greeting names someone by them
    "Hi [[April]], your parcel is ready.",
    "Dear [[June]],\nthank you for the note.",
]


@pytest.mark.parametrize("marked", POSITIVE)
def test_names_are_found_in_their_contexts(detector: NameDetector, marked: str) -> None:
    text, names = _marked(marked)
    found = sorted(detector.detect(text, MessageContext()), key=lambda f: f.start)
    assert [text[f.start : f.end] for f in found] == names
    assert {f.entity for f in found} == {"PERSON"}


NEGATIVE = [
    "Will you be attending the workshop? May I ask you to confirm by Friday?",
    "Bill me later, please.",
    "Hello team,\nthe build is green.",
    "Dear Customer,\nyour order has shipped.",
    "Thanks,\nThe Oakline Furniture Team",
    "Best regards,\nBilling Department",
    "Kind regards,\nBluefin Logistics",
    "Customer: Refund it to my card please",
    "Customer: How do I download my statements?",
    "Agent: Thank you for waiting.",
    "The Globex Corporation invoice came through twice",
    "username=jdoe hostname=web-1 filename=Report.pdf",
    "please call me back on 555 0100",
    "agent: can you confirm the email on the account?",
    "Hi there, how can I help?",
    "Hi all, April 3 is the date.",
    "Hello, June 12 works for me.",
]


@pytest.mark.parametrize("text", NEGATIVE)
def test_look_alikes_are_left_alone(detector: NameDetector, text: str) -> None:
    assert [text[f.start : f.end] for f in detector.detect(text, MessageContext())] == []


def test_a_bad_lexicon_names_file_line_and_reason(tmp_path: Path) -> None:
    data = yaml.safe_load((rulefile.grammar_dir() / "names.yaml").read_text(encoding="utf-8"))
    data["greetings"] = 7
    path = tmp_path / "names.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(RuleError) as err:
        load_names(path)
    assert err.value.path == str(path) and err.value.line and "greetings" in err.value.reason
