"""Streets whose type ends one word (German, Dutch, Scandinavian, Finnish, Hungarian) or is a
word of its own after the name (Hungarian, Norwegian, Danish): written here for this test, in
other words than any corpus, as the addresses people give in mail and chat."""

from __future__ import annotations

from functools import cache

import pytest

from scrubber.dial import Policy
from scrubber.engine import Scrubber


@cache
def engine() -> Scrubber:
    return Scrubber(Policy(level=7))


ADDRESSES = [
    ("Please send the forms to Birkenweg 7, 35037 Marburg.", "Birkenweg 7"),
    ("Neue Anschrift: Schillerstraße 114a\n04109 Leipzig", "Schillerstraße 114a"),
    ("we moved to Goethestrasse 3 in the spring", None),  # a lower-case word follows: not read
    ("Lieferung an Am Rosengarten, Mühlgasse 21, Wien", "Mühlgasse 21"),
    ("Office: Kastanienallee 88, Berlin", "Kastanienallee 88"),
    ("Return address Marktplatz 4-6, 72070 Tübingen", "Marktplatz 4-6"),
    ("Our flat is Bahnhofstr. 19, Zürich", "Bahnhofstr. 19"),
    ("Mijn adres is Prinsengracht 263, Amsterdam.", "Prinsengracht 263"),
    ("Stuur het naar Wilhelminalaan 12B, 3701 Zeist", "Wilhelminalaan 12B"),
    ("Ik woon op 45 Vrijheidstraat, Brugge", "45 Vrijheidstraat"),
    ("Deliver to Nieuwe Binnenweg 301, Rotterdam", "Binnenweg 301"),
    ("The shop is at Storgatan 22, Umeå.", "Storgatan 22"),
    ("Ny adress: Drottninggatan 71 B, 111 36 Stockholm", "Drottninggatan 71 B"),
    ("Bor i Nørregade 5, 1165 København", "Nørregade 5"),
    ("Adresse: Bogstadveien 30, 0355 Oslo", "Bogstadveien 30"),
    ("Please mail it to Hämeenkatu 14, Tampere", "Hämeenkatu 14"),
    ("Osoite on Hervannan valtaväylä, Pispalanvaltatie 9, Tampere", "Pispalanvaltatie 9"),
    ("Küldje ide: Rákóczi utca 8, Budapest", "Rákóczi utca 8"),  # the type a word of its own
    ("Irodánk: Andrássy út 60", "Andrássy út 60"),
    ("we stay in Karl Johans gate 5, 0162 Oslo", "Karl Johans gate 5"),
    ("Ny adresse: Olav Kyrres plass 2, 5012 Bergen", "Olav Kyrres plass 2"),
    ("ship to Ostertorsteinweg 12, Bremen", "Ostertorsteinweg 12"),
    ("Invoice address\nHafenkade 3\n2000 Antwerpen", "Hafenkade 3"),
    # Named after a person or a place, joined by hyphens; a German type after an adjective.
    ("Neue Adresse: Rosa-Luxemburg-Platz 2/4, 10178 Berlin", "Rosa-Luxemburg-Platz 2/4"),
    ("Paket bitte an Heinrich-Heine-Ring 17, Kiel", "Heinrich-Heine-Ring 17"),
    ("Office: Karl-Marx-Allee 90a", "Karl-Marx-Allee 90a"),
    ("Wir wohnen in der Frankfurter Straße 211, Kassel", "Frankfurter Straße 211"),
    ("Lieferadresse Hamburger Str. 6\n01067 Dresden", "Hamburger Str. 6"),
    ("Stuur het naar Koningin-Wilhelmina-Laan 40, Leiden", "Koningin-Wilhelmina-Laan 40"),
    # Dutch lanes, avenues and ways ("-dreef", "-boulevard", "-baan")
    ("Nieuw adres: Beukendreef 17, 3451 AB Utrecht", "Beukendreef 17"),
    ("verhuisd naar Stationsboulevard 240, Almere", "Stationsboulevard 240"),
    ("post graag naar Kruisbaan 6\n2931 LC Krimpen", "Kruisbaan 6"),
    # the end of a question or an exclamation ends the street as a full stop does
    ("is yours the one at Anna-Seghers-Allee 31/16?", "Anna-Seghers-Allee 31/16"),
    ("Welcome to your new home at Lindenstraße 42! The keys are ready", "Lindenstraße 42"),
    # The floor and side of a flat, or a flat's number, after the house number.
    ("Min adresse er Vesterbrogade 114, 3. tv, 1620 København", "Vesterbrogade 114, 3. tv"),
    ("Ny adress: Sveavägen 20, lgh 1204, Stockholm", "Sveavägen 20, lgh 1204"),
    ("Lieferung an Bergstraße 7, 2. OG. Danke!", "Bergstraße 7, 2. OG"),
]

NOT_ADDRESSES = [
    "Spring 2024 sale starts on Monday",
    "Delegate 3 tasks to the new intern",
    "Investigate 2 alerts from last night",
    "The Allgate 3 release notes are out",  # a lower-case word follows
    "Norway 2 Sweden 1 in the final",
    "Homestead 4 players online",
    "Update 17 went out yesterday",
    "Tollgate 5 minutes away",
    "page 12, line 4",
    "Platform 9 and Gate 12 are closed",
    "go to Departures gate 14B",  # a genitive-looking word, but no postcode and town after
    "Departures gate 14B, 2 hours to go",
    "the Main utca 5 tickets",
    "Silver Ring 2, the sequel",  # an English word after an adjective in -er
    "the Lord-of-the-Ring 3 box set",
]


@pytest.mark.parametrize(("text", "value"), ADDRESSES)
def test_a_street_whose_type_ends_its_word_is_an_address(text: str, value: str | None) -> None:
    found = [text[f.start : f.end] for f in engine().scrub(text).findings if f.entity == "STREET_ADDRESS"]
    if value is None:
        assert found == []
    else:
        assert found == [value]


@pytest.mark.parametrize("text", NOT_ADDRESSES)
def test_words_that_merely_end_like_a_street_are_no_address(text: str) -> None:
    assert [f for f in engine().scrub(text).findings if f.entity == "STREET_ADDRESS"] == []


@pytest.mark.parametrize(
    "text",
    [
        "Lieferung: Lindenweg 4, 35037 Marburg",
        "Envoyez-le au 9, rue Millet, 35801 Regnier.",
        "Consegna in Via Garibaldi 12, 20121 Milano",
        "Adresse:\nSchillerstraße 114a\n04109 Leipzig",
    ],
)
def test_the_town_after_a_postcode_is_no_person(text: str) -> None:
    assert [f for f in engine().scrub(text).findings if f.entity == "PERSON"] == []


def test_a_name_after_a_number_without_a_comma_is_still_a_name() -> None:
    found = engine().scrub("order 12345 Maria Keller called twice").findings
    assert [f.entity for f in found] == ["PERSON"]
