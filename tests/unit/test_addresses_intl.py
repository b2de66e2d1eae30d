"""STREET_ADDRESS: times and measures that look like a house number and a street; streets with
the number last in Spanish, Catalan, Italian and Portuguese, with a unit after it; a US house
number before a Spanish street type; a French house number with a comma."""

from __future__ import annotations

import re

import pytest

from scrubber import rulefile
from scrubber.detectors import MessageContext
from scrubber.detectors.addresses import AddressDetector, load_address_grammar


@pytest.fixture(scope="module")
def detector() -> AddressDetector:
    return AddressDetector(load_address_grammar(rulefile.grammar_dir() / "addresses.yaml"))


def _found(detector: AddressDetector, marked: str) -> tuple[list[str], list[str]]:
    text = re.sub(r"\[\[(.+?)\]\]", r"\1", marked)
    return [
        text[f.start : f.end] for f in detector.detect(text, MessageContext()) if f.entity == "STREET_ADDRESS"
    ], re.findall(r"\[\[(.+?)\]\]", marked)


POSITIVE = [
    # India: a house, door or plot number before a comma and the street; "Marg", "Salai"
    "Please ship it to [[H.No. 68, Chadha Circle]], Pune.",
    "Send it to [[Door No. 12, Gandhi Salai]], Chennai 600017.",
    "Please ship it to [[Flat 3, 44 Rao Marg]], Pune.",
    "[[2 Way St]].",
    "Ship it to [[2 Way St]] please",
    "the office is at [[Av. Reforma 221]], CDMX",
    "[[Avenida Paulista 1578]] - São Paulo",
    "Send it to [[Av. Paulista, 1578]] - Bela Vista",
    "vivo en [[Calle Mayor 12, 3º B]], Madrid",
    "[[Calle Alcalá 45, 2º izq]].",
    "mail to [[1500 Calle Ocho Apt 3]], Miami",
    "[[1500 Calle Ocho]], Miami FL",
    "[[12 rue de la Paix]], Paris",
    "[[Rue des Lilas 12]], Bruxelles",
    "[[Via Roma 5]], Milano",
    "[[Rua Augusta 100]], Lisboa",
    "[[Rua Augusta, 1500]]",
    "[[Via Roma 5, Apt 3]]",
    "office: [[10 Main St]] at 10:30 AM",
    "[[77 Highway 101 N]]",
    "Envoyez-le au [[36, rue de Vaugirard]], Paris",
    "Consegna a [[Piazza Navona, 8 Piano 2]], Roma",
    "[[Strada Maggiore, 29 Interno 4]], Bologna",
    "[[Rotonda dei Mille, 3]]",
    "[[Glorieta de Bilbao 5]], Madrid",
    "[[Passeig de Gràcia 43]], Barcelona",
    "[[Plaza Mayor 7, 2º B]]",
    # Polish types abbreviated in lower case, a flat after a slash; a flat's word after the street.
    "kurier zostawił paczkę pod [[ul. Piękna 17/3]] wczoraj",
    "[[ul. Słoneczna 8]], Kraków",
    "the invoice says [[28 boulevard Haussmann, app. 4]], Paris",
    "[[Avenue Louise 54, bte 7]], Bruxelles",
    "she moved to [[17 Kelburn Parade, Flat 3A]] last month",
    # A flat's number, a slash, then the house number: Australia and New Zealand.
    "post it to [[4/118 Ponsonby Road]], Auckland",
    "Old address: [[Unit 3/41 Karori Road]], Wellington",
]


@pytest.mark.parametrize("marked", POSITIVE)
def test_addresses(detector: AddressDetector, marked: str) -> None:
    found, want = _found(detector, marked)
    assert found == want


NEGATIVE = [
    # a house or plot number with no street after it
    "The house no. 5 is empty. Plot no 7 sold.",
    "Wednesday June 25, 11:00 AM PT",
    "see you at 10 AM ET",
    "call at 5 PM CT",
    "call at 5 pm ct",
    "meet 10:30 PM EST tomorrow",
    "Standup 9:15 AM Pt 2",
    "it's 3 PM Pacific",
    "The store at 00 Main St",
    "build 07 Oak Dr",
    "a 5 Min Walk from the station",
    "a 10 Minute Walk",
    "24 Hrs Drive",
    "lunch at 12 PM Way",
    "at 10 a.m. Drive",
    "the Calle Ocho festival had 3 stages",
    "sent via dhl 3 days ago",
    "I have 3, rue is the French word",
    "meet me at the Plaza Hotel at 5",
    "Ronda played 3 sets",
    "I practise piano 3 times a week",
    # Lower case before a dot: an abbreviation that is no street type.
    '"Mozilla/5.0 (Macintosh; Intel Mac OS X 14.4; rv:126.0)"',
    "as Nowak et al. Nature 2019 showed",
    "the ratio was 3/4 Main results below",
]


@pytest.mark.parametrize("text", NEGATIVE)
def test_look_alikes(detector: AddressDetector, text: str) -> None:
    assert _found(detector, text)[0] == []
