"""The engine's fast paths: what they skip must never change what is found."""

from __future__ import annotations

import pytest

from scrubber.dial import Policy
from scrubber.engine import Scrubber


@pytest.fixture(scope="module")
def level2() -> Scrubber:
    return Scrubber(Policy(level=2))


@pytest.mark.parametrize(
    "text",
    [
        "2024-01-20T13:46:18.909Z INFO callback_requested phone_last4=0346",
        "callback requested, phone last 4: 1019",
    ],
)
def test_a_cue_naming_an_entity_left_out_blocks_the_card_rule(level2: Scrubber, text: str) -> None:
    assert level2.scrub(text).findings == ()


def test_a_bare_last4_still_names_the_card_at_level_2(level2: Scrubber) -> None:
    result = level2.scrub("card_added last4=0293")
    assert [(f.entity, result.text) for f in result.findings] == [
        ("CREDIT_CARD", "card_added last4=[CREDIT_CARD]")
    ]
