"""PERSON in shapes without a phrase of their own (XML elements, a name before contact data,
reply attributions, lists, "Mateo's mom", "(DOB ...)", table cells, "—Benedikt"), keys and
intros in other languages, relations with an adjective; and the look-alikes that stay
unmasked: XML field names, role labels, header keys, group greetings, departments, pets."""

from __future__ import annotations

import pytest
from marks import found_values, marked_values

from scrubber import rulefile
from scrubber.detectors.names import NameDetector, load_names
from scrubber.detectors.names.shapes import agent_noun

LEXICON = load_names(rulefile.grammar_dir() / "names.yaml")


@pytest.fixture(scope="module")
def detector() -> NameDetector:
    return NameDetector(LEXICON)


POSITIVE = [
    # XML: a name element, or a Name attribute that says the element's text is a name.
    '<Data Name="DisplayName">[[Rosalind Villanueva]]</Data>',
    "<Customer><FirstName>[[Ana]]</FirstName><LastName>[[SILVA]]</LastName></Customer>",
    # Keys of other shapes and languages: Python and Ruby reprs, camelCase, dotted, Spanish.
    "<QueryDict: {'first_name': ['[[Ines]]'], 'last_name': ['[[Carvalho]]']}>",
    "{'last_name': '[[Carvalho]]', 'plan': 'Basic'}",
    '{"name"=>"[[Grant Whitfield]]", "plan"=>"pro"}',
    '{"recipient": "[[Jane Doe]]", "amount": 12}',
    'actor.displayName="[[Samuel Roe]]" action=login',
    '{"displayName":"[[Xi Li]]"}',
    "titular: [[Rodrigo Paredes Gil]]",
    "nombre=[[Lucía Fernández]] cuenta=ES12",
    "Name as in passport: [[WÓJCIK, AGNIESZKA]]",
    "Contact: [[Vusi Dlamini]]",
    # A name right before contact data.
    "Contact for queries: [[Franziska Albrecht]], f.albrecht@example.de, +49 30 1234567",
    "ok here's everything: [[Sunil Mehta]], +91 98765 43210",
    "Customer: [[Dmitri Volkov]], dvolkov@example.com",
    "me> [[Kwame]], 901-706-7709",
    "1. me, [[Meera Bakshi-Rao]] 978.218.7032",
    # Reply attributions in quoted mail.
    "On 3/1/25, [[Trevor Blackwood]] wrote:\n> see below",
    "> > On Tue, Mar 4, 2025 at 9:12 AM [[Trevor Blackwood]] <t@example.com> wrote:",
    "Le 3 mars 2025, [[Jean Dupont]] a écrit :",
    "Am 03.03.2025 schrieb [[Jana Novak]]:",
    # Lists and relations.
    "Our team: [[Anya Petrova]] (lead), [[Kenji Watanabe]], [[Olumide Bakare]], and [[Zoë Hartmann-Klein]].",
    "Driver: [[Beatriz Santos]], additional driver [[Marco Santos]]",
    "travelling with my two kids [[Léa]] and [[Mathis Girard]]",
    "my late father [[Desmond Achterberg]] opened it",
    "the other driver, [[Peter Nakagawa]], said",
    "the other driver was [[Hyun-woo Park]]",
    "her aunt [[Rukhsana]] and grandpa [[Tariq Ahmed]] came",
    # Intros.
    "Please welcome [[Teodora Ilić]] who joins us from Zagreb.",
    "Let's say goodbye to [[Callum]], whose last day is Friday.",
    "hi this is [[Aisha]] again",
    "Is this [[Mateo]]'s mom?",
    "referral for [[Kateryna Bondarenko]] (DOB 1990-01-02)",
    "Booking under [[Nakamura]] for 8pm",
    "Booking under [[van der Berg]]",
    "the name on the order is [[Fatima Zahra Benali]]",
    "the account holder is [[Gutiérrez Vela, Ignacio]]",
    "please transfer it to my name, [[Ilse Achterberg]]",
    "full name [[Ana Lucía Jiménez]]",
    "beneficiary name [[Henrike Vogelsang]]",
    "der Name [[Lukas Hofbauer]]",
    "titular [[Rodrigo Paredes Gil]]",
    # Signatures.
    "See you.\n\n—[[Benedikt]]",
    "Thanks,\n\n[[Bjørn]]",
    "Thanks for the update.\n\n[[Gloria Stanfield]], Escrow Officer",
    # A table's first cell.
    "[[Nguyen, Bao]]\t254425800\t2024-01-02",
    # A job title after the comma is no given name.
    "Assigned to [[Jane Doe]], Product Manager",
    "Assigned to [[Jane Doe]], Manager",
    "I spoke with [[Jane Roe]], San Francisco, CA",
    # Speakers whose names end like roles do not lose their labels.
    "[[Peter]]: hi\nAgent: hello there friend\n[[Peter]]: ok so we can start",
    "[[Jean-Luc]]: hi\nAgent: hello there\n[[Jean-Luc]]: ok",
]


@pytest.mark.parametrize("marked", POSITIVE)
def test_names_in_new_shapes(detector: NameDetector, marked: str) -> None:
    text, names = marked_values(marked)
    assert found_values(detector, text) == names


NEGATIVE = [
    # XML field names in a Name attribute.
    '<Data Name="TargetUserName">u48812</Data>',
    '<Data Name="LogonType">3</Data>',
    '<EventData><Data Name="SubjectUserName">SYSTEM</Data><Data Name="IpPort">0</Data></EventData>',
    # Role labels not on the list, header keys.
    "Preparer: hi\nClient: hello there friend\nPreparer: ok so we can start",
    "Player: hi\nSupport: hello\nPlayer: my account is locked out",
    "Adjuster: hi\nClaimant: hello there friend\nAdjuster: ok so we can start",
    "Pharmacist: hi\nPatient: hello there friend\nPharmacist: ok",
    "Landlord: hi\nTenant: the heating is broken again\nLandlord: ok",
    "Teacher: hi\nParent: hello there friend\nTeacher: ok",
    "Dispatcher: unit 4 respond\nDriver: copy that on my way\nDispatcher: thanks",
    "Content-Type: application/json\nContent-Type: text/plain\nAccept-Language: en-US",
    "X-Request-Id: abc\nX-Request-Id: def\nUser-Agent: curl/8",
    # Groups and offices in greetings.
    "Dear Admissions,\nplease find my transcript attached.",
    "Dear Tenant,\nthe water will be off on Monday.",
    "Dear Parents,\nthe trip is on Friday.",
    "Dear Consulate,\nI am writing about my visa.",
    "Dear Visa Section,\nplease advise.",
    "Dear Counsel,\nplease see the attached notice.",
    "Thanks,\n\nResidents' Association",
    "Dear Hiring Team,\nplease find my CV attached.",
    # Departments as signature lines.
    "Thanks,\nInvestor Relations",
    "Best,\nTalent Acquisition",
    "Best,\nDev Rel",
    "Regards,\nClaims Processing",
    "Regards,\nMember Services",
    "Regards,\nAccounts Payable",
    # Pets.
    "I have a cat named Biscuit",
    "our dog, Max, chewed the cable",
    # Look-alikes of the new shapes.
    "Signed by nobody, San Francisco, CA",
    "Version Alpha, 2025-03-04",
    "Agenda:\n- Budget\n- Hiring",
    "Mar 12 10:54:48 web-5 billing[7640]: charge amount=$384.61",
    "Deploy Done, 2025-03-04 10:00",
    "Customer: I bought 9 items but only 2 arrived",
    "Status: In Progress, 555-0100 queued",
    "Features: Fast Sync, Dark Mode, and Smart Search",
    "Team: Platform Engineering",
    "Agent: Good Morning",
    "Customer: Quick Question",
    "Driver: Not Available",
    "Support: Call Center, 1-800-555-0100",
    "Location: New York, 212-555-0100",
    "Note: Contact Us, support@example.com",
    "Is this Apple's support?",
    "Warehouse: Building Seven, 415-555-0100",
    "Please enter your full name\nSubmit",
]


@pytest.mark.parametrize("text", NEGATIVE)
def test_look_alikes_of_the_new_shapes(detector: NameDetector, text: str) -> None:
    assert found_values(detector, text) == []


@pytest.mark.parametrize(
    "word",
    [
        "preparer",
        "adjuster",
        "pharmacist",
        "coordinator",
        "auditor",
        "assessor",
        "volunteer",
        "applicant",
        "resident",
        "inspector",
        "trustee",
        "librarian",
        "optician",
        "treasurer",
    ],
)
def test_agent_nouns_are_roles(word: str) -> None:
    assert agent_noun(LEXICON, word)


@pytest.mark.parametrize(
    "word",
    [
        "peter",
        "oliver",
        "heather",
        "jennifer",
        "esther",
        "walter",
        "christopher",
        "alexander",
        "victor",
        "hector",
        "vincent",
        "laurent",
        "clement",
        "bryant",
        "grant",
        "tyler",
        "sawyer",
        "meyer",
        "miller",
        "keller",
        "sylvester",
        "chester",
        "marian",
        "lucian",
        "desiree",
        "renee",
        "aimee",
        "greer",
        "trevor",
        "taylor",
        "xavier",
        "javier",
        "christian",
        "julian",
        "adrian",
        "noa",
        "jasper",
        "hunter",
        "parker",
        "archer",
        "roger",
        "homer",
        "kent",
        "brent",
        "ernest",
    ],
)
def test_first_names_are_no_agent_nouns(word: str) -> None:
    assert not agent_noun(LEXICON, word)
