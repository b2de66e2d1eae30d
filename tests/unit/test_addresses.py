"""STREET_ADDRESS: house number + street + suffix + unit, exact spans; look-alikes left alone."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scrubber import rulefile
from scrubber.detectors import MessageContext
from scrubber.detectors.addresses import AddressDetector, load_address_grammar
from scrubber.rulefile import RuleError


@pytest.fixture(scope="module")
def detector() -> AddressDetector:
    return AddressDetector(load_address_grammar(rulefile.grammar_dir() / "addresses.yaml"))


POSITIVE = [
    "Ship it to [[742 Evergreen Ter Apt 5]], Springfield",
    "I'm in the UK, address is [[Flat 3, 27 Abbey Road]] London NW8 9AY",
    "New address: [[10228 N 16th Rd]], Memphis, TN 38149",
    "My new address is [[312 Depot Cir, Apt. 470]], Philadelphia, PA 19192.",
    "[[55 Broad Cir Ste 156]]",
    "customer: i live at [[39 lake terrace]], atlanta, ga 30362.",
    "the package went to [[1591 kingsley lane, suite 524]] instead of my house SKU X1",
    '{"msg":"address verified","street":"[[34 North Sheridan St Apt 5B]]","zip":"53289"}',
    'INFO shipping_label street="[[51 Kingsley Avenue]]" zip=89199',
    "> [[70 Prospect Trl #2]]",
    "Deliver to [[220 NE 17th Place]].",
]


@pytest.mark.parametrize("marked", POSITIVE)
def test_addresses_have_exact_spans(detector: AddressDetector, marked: str) -> None:
    text = re.sub(r"\[\[(.+?)\]\]", r"\1", marked)
    assert [
        text[f.start : f.end] for f in detector.detect(text, MessageContext()) if f.entity == "STREET_ADDRESS"
    ] == re.findall(r"\[\[(.+?)\]\]", marked)


NEGATIVE = [
    "I'm in room 1234 at the hotel",
    "I bought 2 items but only got one box",
    "send 3 copies to the Main Street office",
    "I need the last 4 pages of the contract",
    "We have 2 Park tickets left",
    "Version 2 of the app crashes on launch",
    "the meeting is at 3 PM on Friday",
]


@pytest.mark.parametrize("text", NEGATIVE)
def test_look_alikes_are_left_alone(detector: AddressDetector, text: str) -> None:
    assert detector.detect(text, MessageContext()) == []


def test_a_bad_lexicon_names_file_line_and_reason(tmp_path: Path) -> None:
    path = tmp_path / "addresses.yaml"
    path.write_text("suffixes: []\ndirections: [n]\n", encoding="utf-8")
    with pytest.raises(RuleError) as err:
        load_address_grammar(path)
    assert err.value.path == str(path) and err.value.line == 1 and "missing key" in err.value.reason


def test_a_suffix_in_both_lists_is_refused(tmp_path: Path) -> None:
    source = (rulefile.grammar_dir() / "addresses.yaml").read_text(encoding="utf-8")
    path = tmp_path / "addresses.yaml"
    path.write_text(
        source.replace("confirmed_suffixes:\n  [", "confirmed_suffixes:\n  [street, ", 1), encoding="utf-8"
    )
    with pytest.raises(RuleError) as err:
        load_address_grammar(path)
    assert "confirmed_suffixes may not repeat" in err.value.reason and "street" in err.value.reason
