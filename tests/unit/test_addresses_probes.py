"""STREET_ADDRESS on unseen phrasings: street names that are suffixes too ("Birch Hollow Ln"),
route numbers ("County Road 42"), streets with no suffix ("1500 Broadway"), the number after the
street ("Via Roma 5"), PO boxes; US, UK, Canadian and European forms, units, lower case, chat
and e-mail. And hard negatives: routes with no house number, counts of things named after a
street, a preposition "via", boxes that are no PO box."""

from __future__ import annotations

import re

import pytest

from scrubber import rulefile
from scrubber.detectors import MessageContext
from scrubber.detectors.addresses import AddressDetector, load_address_grammar


@pytest.fixture(scope="module")
def detector() -> AddressDetector:
    return AddressDetector(load_address_grammar(rulefile.grammar_dir() / "addresses.yaml"))


POSITIVE = [
    "i moved to [[58 birch hollow ln]]",
    "I live at [[12 Park Row]], Manhattan",
    "ship to [[400 Grove Court Ave]] please",
    "deliver to [[9 mill run rd]] by friday",
    "my address is [[2500 County Road 42]]",
    "Our farm is at [[1200 State Route 9]], Ohio",
    "send it to [[77 Highway 101 N]] thanks",
    "Mi indirizzo è [[Via Roma 5]], Milano",
    "Adresse : [[Rue des Lilas 12]], 1050 Bruxelles",
    "j'habite au [[12 rue des Lilas]], Paris",
    "Office: [[1500 Broadway]], New York",
    "the theater office is at [[Broadway 1500]]",
    "Mail the cheque to [[PO Box 1234]], Austin TX",
    "Remit to: [[P.O. Box 77]]",
    "send the docs to [[po box 4410]] pls",
    "Dirección: [[Calle Mayor 10]], Madrid",
    "moradas: [[Rua Augusta 100]], Lisboa",
    "Hi, my new place is [[221B Baker Street]], London.",
    "I'm at [[4 Privet Dr]], come by after 6",
    "please update my billing to [[88 Queen St W, Unit 1402]], Toronto ON M5H 2N2",
    "[[1 Infinite Loop]], Cupertino",
    "she lives at [[17 Cherry Tree Lane]] with her aunt",
    "Can you send the replacement to [[3500 Deer Creek Rd, Suite 200]]?",
    "shipping: [[700 5th Ave #14]] new york",
    "Hello, I moved — new address is [[45 King's Road]], Chelsea.",
    "address: [[10 Downing St]]",
    "Our HQ: [[350 Fifth Avenue, 34th Floor]], NY",
    "return to [[Apt 2, 14 Rosemary Gardens]] Leeds",
    "we're at [[1600 Pennsylvania Ave NW]] now",
    "Deliver to [[Unit 5, 120 Harbour Quay]], Dublin",
    "pls ship to [[12 oak hill dr apt 3]]",
    "Mailing address: [[PO Box 9032]], Halifax NS B3K 5M7",
    "my folks live at [[880 Maple Crescent]], Ottawa",
    "Invoice address: [[Piazza Navona 45]], Roma",
    "Ship to [[2100 W Farm Road 182]], Springfield MO",
    "Please forward mail to [[P.O. Box 512]] until June.",
    "i live on [[46 sycamore ridge ct]]",
    "The house at [[9 Crown Point Rd]] is ours",
    "Send the keys to [[31 Station Approach Road]], Woking",
    "new address: [[15 Cove Landing Way]]",
]


@pytest.mark.parametrize("marked", POSITIVE)
def test_addresses_in_unseen_phrasings(detector: AddressDetector, marked: str) -> None:
    text = re.sub(r"\[\[(.+?)\]\]", r"\1", marked)
    want = re.findall(r"\[\[(.+?)\]\]", marked)
    assert [
        text[f.start : f.end] for f in detector.detect(text, MessageContext()) if f.entity == "STREET_ADDRESS"
    ] == want


NEGATIVE = [
    "we stopped at the Route 66 diner on the way",
    "version 2 drive mapping is broken",
    "we have 3 Main St. locations in our chain",
    "Suite 200 of the benchmark passed",
    "Box 3 of 5 arrived damaged",
    "I took the 5 Ave bus downtown",
    "Highway 61 was closed all weekend",
    "we drove Highway 1 for 300 miles",
    "I sent it via dhl 3 days ago",
    "I bought 2 Broadway tickets for Friday",
    "sent via Zoom 3 times already",
    "there are 4 Park Avenue stores in town",
    "take Route 9 to exit 12",
    "the Interstate 95 traffic is awful",
    "got 2 boxes, 3 of them broken",
    "our 12 Oak Street properties are sold",
    "she ran 5 miles along the river path",
    "the 3 Court Road shops close at 6",
    "order 4471 ships via UPS Ground",
    "Chapter 12 Broadway and the jazz age",
    "Room 4 Floor 2 has the projector",
    "I waited 10 minutes at the 42nd St station",
    "Rue 12 is a board game",
    "rated 5 stars on Via",
    "I work 9 to 5 on Broadway",
    "the PO Box option costs 5 dollars",
    "he scored 2 goals in the Grove Street game",
    "Road 2 is closed",
    "the 2 Abbey Road albums I own",
    "call me at 5 tomorrow, Main St is closed",
    "I paid 40 Euro via PayPal 2 times",
    "Broadway 3 tickets sold out",
]


@pytest.mark.parametrize("text", NEGATIVE)
def test_hard_negatives_are_left_alone(detector: AddressDetector, text: str) -> None:
    assert [
        text[f.start : f.end] for f in detector.detect(text, MessageContext()) if f.entity == "STREET_ADDRESS"
    ] == []
