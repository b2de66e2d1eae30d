"""Names in social-media posts: famous people's names (grammar/name_famous.txt.gz), a name
spoken to (vocatives), and contractions typed without their apostrophe, which are no names;
and a greeting to a role ("Dear Reader") or a speaker's label of one ("Patron:"), which name
nobody."""

from __future__ import annotations

import gzip

import pytest

from scrubber import rulefile
from scrubber.detectors.names.model import NameModelDetector, load_model
from scrubber.dial import Policy
from scrubber.engine import Scrubber


@pytest.fixture(scope="module")
def scrubber() -> Scrubber:
    return Scrubber(Policy(level=7))


@pytest.fixture(scope="module")
def detector() -> NameModelDetector:
    return NameModelDetector(load_model())


def persons(scrubber: Scrubber, text: str) -> list[str]:
    return [text[f.start : f.end] for f in scrubber.scrub(text).findings if f.entity == "PERSON"]


def test_the_famous_words_leave_places_titles_and_epithets_out() -> None:
    with gzip.open(rulefile.grammar_dir() / "name_famous.txt.gz", "rt", encoding="utf-8") as f:
        words = {w for w in f.read().splitlines() if not w.startswith("#")}
    assert {"obama", "messi", "oprah", "einstein"} <= words
    # Cities, countries and states ("George Washington", "Paris Hilton"), titles, particles
    # and epithets ("Alexander the Great") are not famous words.
    assert words.isdisjoint({"paris", "washington", "sydney", "france", "pope", "king", "van", "great"})


def test_a_famous_word_is_a_feature_only_when_it_is_no_given_name(detector: NameModelDetector) -> None:
    text = "so Obama and Paris and Emma"
    feats = {text[c.start : c.end]: c.features for c in detector.candidates(text)}
    assert feats["Obama"].get("famous") == 1.0
    assert "famous" not in feats["Paris"] and "famous" not in feats["Emma"]
    low = "honestly obama"
    (cand,) = (c for c in detector.candidates(low) if low[c.start : c.end] == "obama")
    assert cand.features.get("low_famous") == 1.0


# Written for these tests: public figures by one name, as posts mention them.
FAMOUS = [
    ("Obama gave the best speech of the night", "Obama"),
    ("cant believe Messi missed that penalty", "Messi"),
    ("Einstein would have hated this homework", "Einstein"),
]


@pytest.mark.parametrize(("text", "name"), FAMOUS)
def test_famous_people_by_one_name(scrubber: Scrubber, text: str, name: str) -> None:
    assert persons(scrubber, text) == [name]


# Their words where they name a place or a product, and contractions without apostrophes.
LEFT_ALONE = [
    "Kafka consumer lag is back under a thousand",
    "the Tesla in the loading bay has its lights on",
    "Thats some serious guitar work",
    "Dont forget the charger",
    "Isnt it past midnight there",
    "Hes not wrong about the ending",
    "Sydney is two hours ahead of Perth",
]


@pytest.mark.parametrize("text", LEFT_ALONE)
def test_look_alikes(scrubber: Scrubber, text: str) -> None:
    assert persons(scrubber, text) == []


def test_the_marks_of_a_name_spoken_to(detector: NameModelDetector) -> None:
    def features(text: str, word: str) -> dict[str, float]:
        (cand,) = (c for c in detector.candidates(text) if text[c.start : c.end] == word)
        return cand.features

    assert {"comma_after", "initial_comma"} <= features("Ayodele, you nailed the bridge", "Ayodele").keys()
    assert "comma_last" in features("where did you park, Ottilie?", "Ottilie")
    assert "exclaim_after" in features("great cover Sunniva!", "Sunniva")
    assert "initial_you" in features("Torvik why do you always do this", "Torvik")
    # "you" past the end of the sentence does not count.
    assert "initial_you" not in features("Torvik left. Do you know why", "Torvik")


# One word after a greeting that is an ordinary word and no given name is a role or a group.
@pytest.mark.parametrize(
    "text", ["Dear Reader,\n\nIn this issue", "Dear Volunteer,\nthanks", "Hi Supplier,\nsee below"]
)
def test_a_greeting_to_a_role_names_nobody(scrubber: Scrubber, text: str) -> None:
    assert persons(scrubber, text) == []


# So is a speaker's label of one such word; a given name that is also a word stays a name.
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Patron: the card was declined\nAgent: which one?\nPatron: the blue one", []),
        ("Diner: a table for two?\nHost: checking\nDiner: ok", []),
        ("Grace: the card was declined\nAgent: which one?\nGrace: the blue one", ["Grace", "Grace"]),
    ],
)
def test_a_speaker_labelled_by_a_role(scrubber: Scrubber, text: str, expected: list[str]) -> None:
    assert persons(scrubber, text) == expected


@pytest.mark.parametrize(
    ("text", "name"), [("Dear Hunter,\nsee below", "Hunter"), ("Hi Grace,\nthanks", "Grace")]
)
def test_a_greeting_to_a_given_name_that_is_also_a_word(scrubber: Scrubber, text: str, name: str) -> None:
    assert persons(scrubber, text) == [name]


def test_a_title_is_never_part_of_the_models_name(scrubber: Scrubber) -> None:
    assert persons(scrubber, "Dear Dr Okafor,\n\nAs discussed on the call") == ["Okafor"]
