"""The engine's fast paths: what they skip must never change what is found."""

from __future__ import annotations

import pytest

from scrubber.dial import Policy
from scrubber.engine import Scrubber, ScrubError


@pytest.fixture(scope="module")
def level2() -> Scrubber:
    return Scrubber(Policy(level=2))


@pytest.fixture(scope="module")
def level7() -> Scrubber:
    return Scrubber(Policy(level=7))


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


def test_a_message_past_its_time_budget_is_held_back_with_a_reason() -> None:
    engine = Scrubber(Policy(level=1), time_budget=1e-9)
    for call in (lambda: engine.scrub("call me at 415-555-0134"), lambda: engine.scrub_many(["a", "b"])):
        with pytest.raises(ScrubError) as info:
            call()
        assert info.value.reason == "time_budget"


def test_no_time_budget_by_default() -> None:
    assert Scrubber(Policy(level=1)).time_budget is None


@pytest.mark.parametrize("unit", ["1 ", "12 "])
def test_a_long_run_of_numbers_is_scrubbed_not_timed_out(level7: Scrubber, unit: str) -> None:
    # 900 KB of one repeated shape: every detector must stay linear on it.
    text = unit * (900_000 // len(unit))
    result = level7.scrub(text)
    assert result.findings == ()
    assert result.text == text


def test_a_long_sentence_of_cues_and_values_is_scrubbed_in_one_pass(level2: Scrubber) -> None:
    # Thousands of "cue value" pairs in one sentence: each value looks up its cue, the
    # lookup table is built once per sentence.
    text = "my ssn is 1 " * 3_000
    result = level2.scrub(text)
    assert result.findings == ()
    assert result.text == text
