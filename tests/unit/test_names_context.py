"""The words around a name count by their class (grammar/name_classes.tsv.gz); a lone word no
list knows stands as a name when those classes say enough (``lone_word_context``); companies
that bear a person's name are not persons (``companies`` in grammar/name_model.yaml)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from scrubber import rulefile
from scrubber.detectors import MessageContext
from scrubber.detectors.names.model import NameModelDetector, load_model, word_class
from scrubber.dial import Policy
from scrubber.engine import Scrubber


@pytest.fixture(scope="module")
def detector() -> NameModelDetector:
    return NameModelDetector(load_model())


@pytest.fixture(scope="module")
def scrubber() -> Scrubber:
    return Scrubber(Policy(level=7))


def persons(scrubber: Scrubber, text: str) -> list[str]:
    return [text[f.start : f.end] for f in scrubber.scrub(text).findings if f.entity == "PERSON"]


def test_verbs_fall_in_few_classes_and_contractions_read_as_their_ending() -> None:
    classes = load_model().classes
    # Auxiliaries share a class, and so do verbs of saying: the model learns a class once.
    assert word_class(classes, "is") == word_class(classes, "should") == word_class(classes, "will")
    assert word_class(classes, "said") == word_class(classes, "says")
    assert word_class(classes, "i'm") == word_class(classes, "i’m") == word_class(classes, "am")
    assert word_class(classes, "doesn't") == word_class(classes, "n't") is not None
    assert word_class(classes, "zzkqx") is None


def test_a_neighbours_class_is_a_feature_only_when_spaces_part_them(detector: NameModelDetector) -> None:
    text = "honestly tobias said so, then tobias: fine"
    said = word_class(detector.model.classes, "said")
    first, second = (c for c in detector.candidates(text) if text[c.start : c.end] == "tobias")
    assert first.features.get(f"next_c{said}") == 1.0
    assert not any(k.startswith("next_c") for k in second.features)


# Written for these tests: lower-case and capitalised names in chat, announced by no phrase,
# where the verb or contraction next to the name is what tells.
FOUND = [
    ("i think osei knows the answer", "osei"),
    ("i'm torvald and i approve this message", "torvald"),
    ("honestly tobias said he would bring the snacks", "tobias"),
    ("ngl bertrand was carrying the whole team", "bertrand"),
    ("Gretchen should really start a channel", "Gretchen"),
    ("Where did Anneliese go?", "Anneliese"),
]


@pytest.mark.parametrize(("text", "name"), FOUND)
def test_names_next_to_verbs(scrubber: Scrubber, text: str, name: str) -> None:
    assert persons(scrubber, text) == [name]


# The same contexts around words that are not names, and companies named after people.
LEFT_ALONE = [
    "i think python knows better",
    "Docker should really start faster",
    "lol the printer was right all along",
    "why does the kettle keep clicking",
    "I bank at Wells Fargo and nowhere else",
    "She wore a Ralph Lauren shirt to the party",
    "Morgan Stanley raised its forecast",
    "my Honda keeps stalling",
    "Grant Thornton needs the statements for the audit",
    "Ben & Jerry's discontinued my favourite flavour",
    "we only shop at Marks & Spencer now",
]


@pytest.mark.parametrize("text", LEFT_ALONE)
def test_look_alikes_in_the_same_contexts(scrubber: Scrubber, text: str) -> None:
    assert persons(scrubber, text) == []


def test_a_company_is_only_its_exact_name(detector: NameModelDetector) -> None:
    # The company list rules out the run that is the company, not a person who shares a word.
    found = [f for f in detector.detect("Harrison Ford called about the refund", MessageContext())]
    assert [("Harrison Ford"[f.start : f.end]) for f in found] == ["Harrison Ford"]


# A single word no list knows, supported only by the classes of its neighbours.
LONE = [
    ("Zvezdomir is hilarious in that clip", "Zvezdomir"),
    ("i think Kwabenaa knows", "Kwabenaa"),
]
# The same support around words that are typos of ordinary words, words with an ordinary
# ending, or ordinary words joined by a hyphen.
LONE_LEFT_ALONE = [
    "the wifi paassword is blue-lantern-42",
    "my date of biirth is 05/06/1970",
    "Descaling is every Friday",
    "Frobnicator should be renamed",
    "Auto-renew is ON for this plan",
    "Back-off is set to five seconds",
    # ... a slip with a letter missing, and an acronym run into a word (a type, a class).
    "Custmer: my parcel still says pending",
    '{"userIdentity": {"type": "IAMUser", "userName": "ci-deployer"}}',
    "php: Uncaught PDOException in the billing worker",
]

# Inside a sentence a capital marks a name on its own: no neighbour needs to vouch for it
# (``lone_word_inside``); at a sentence's start it does not.
LONE_INSIDE = [
    ("the loudest cheer of the night went to Zandile", "Zandile"),
    ("honestly the best verse came from Oyelowo", "Oyelowo"),
    # neighbours may count a little against it
    ("Where's Kishan?", "Kishan"),
    ("wait did Oyelaran see this", "Oyelaran"),
    ("that Bagdanovich part I watched three times", "Bagdanovich"),
    # a particle before it is no thing's word
    ("the coach says Te Rangi is fit again", "Rangi"),
    ("HAPPY GRADUATION DINEO", "DINEO"),
]


# ... but not after a place's preposition, a German article or possessive (German capitalises
# every noun), or a postcode; nor a company's word.
LONE_INSIDE_LEFT_ALONE = [
    "he runs a bakery in Ikorodu and wants to expand",
    "Bitte senden Sie uns Ihre Bankverbindung.",
    "Deliver to 4 Mill Lane, LS6 3QT Oakbridge.",
    "Lever aan Kerkstraat 12, 2803VA Donkerwoud.",
    "The invoice is from Fernwald Tools GmbH",
    # beside a capitalised ordinary word it names a company, a product or a place
    "Rep: Hi, thanks for contacting Larkspur Home. Who am I speaking with?",
    "Thank you for your booking at Hotel Vltava.",
    "I would love to win the Jet Black Airpods",
    # a word all in capitals on a line in both cases: a code as often
    "customer: promo code FREESHIP didn't apply at checkout",
    "please add the passport details for both travellers on booking XCHNMW (flight AF752):",
]


@pytest.mark.parametrize("text", LONE_INSIDE_LEFT_ALONE)
def test_a_capital_inside_a_sentence_that_marks_no_name(scrubber: Scrubber, text: str) -> None:
    assert persons(scrubber, text) == []


@pytest.mark.parametrize(("text", "name"), LONE_INSIDE)
def test_a_capitalised_unknown_word_inside_a_sentence(scrubber: Scrubber, text: str, name: str) -> None:
    assert persons(scrubber, text) == [name]


@pytest.mark.parametrize(("text", "name"), LONE)
def test_a_lone_unknown_word_with_a_verb_next_to_it(scrubber: Scrubber, text: str, name: str) -> None:
    assert persons(scrubber, text) == [name]


@pytest.mark.parametrize("text", LONE_LEFT_ALONE)
def test_a_lone_word_that_reads_as_an_ordinary_one(scrubber: Scrubber, text: str) -> None:
    assert persons(scrubber, text) == []


def test_lone_words_need_other_support_when_the_setting_says_so(tmp_path: Path) -> None:
    root = rulefile.grammar_dir()
    for f in root.iterdir():
        if f.is_file():
            shutil.copy(f, tmp_path / f.name)
    model = tmp_path / "name_model.yaml"
    setting = re.compile(r"^lone_word_context: .*$", re.MULTILINE)
    assert setting.search(model.read_text()) is not None
    model.write_text(setting.sub("lone_word_context: .inf", model.read_text()))
    strict = Scrubber(Policy(level=7), grammar_dir=tmp_path)
    assert persons(strict, "Zvezdomir is hilarious in that clip") == []
    assert persons(strict, "thanks Zvezdomir") == ["Zvezdomir"]


# A one-word sign-off after a blank line ends a mail; after a long line only a word that is no
# ordinary word and has no inner capital (a footer's "Unsubscribe", a service's "GitHub").
SIGN_OFFS = [
    ("The keys are rotated; please rotate yours on the vendor's side too.\n\nJi-woo", ["Ji-woo"]),
    ("Please don't change the group settings, three teams depend on them.\n\nYaroslav", ["Yaroslav"]),
    ("We have updated the terms of the service for all of our customers.\n\nUnsubscribe", []),
    ("We have updated the terms of the service for all of our customers.\n\nConfidential", []),
    ("The build on main is green again after the three fixes landed.\n\nGitHub", []),
]


@pytest.mark.parametrize(("text", "names"), SIGN_OFFS)
def test_a_one_word_sign_off_after_a_long_line(scrubber: Scrubber, text: str, names: list[str]) -> None:
    assert persons(scrubber, text) == names
