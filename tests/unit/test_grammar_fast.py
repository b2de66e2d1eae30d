"""What the grammar detector settles without tokenizing or parsing: messages that only a
masked number could let in, and values that no rule of the sentence's cues would take."""

from __future__ import annotations

import pytest

from scrubber import rulefile
from scrubber.detectors import MessageContext
from scrubber.detectors.cues import load_cues
from scrubber.detectors.grammar import GrammarDetector, load_grammar

GRAMMAR = rulefile.grammar_dir()


@pytest.fixture
def detector() -> GrammarDetector:
    cues = load_cues(GRAMMAR / "cues.yaml")
    return GrammarDetector(load_grammar(GRAMMAR / "rules.yaml", cues))


@pytest.mark.parametrize(
    "text",
    [
        "Customer: ticket #123456789 was closed without a reply",
        '10.0.0.1 - - "GET / HTTP/1.1" 200 512 "-" "Mozilla/5.0 (X11; Linux x86_64)"',
        '{"trace":"10565696-5903-bf6e-304c-f9ebcd0804fb","order":"#669456676"}',
    ],
)
def test_a_mask_with_no_value_a_masked_rule_takes_lets_nothing_in(
    detector: GrammarDetector, text: str
) -> None:
    assert detector.detect(text, MessageContext()) == []
    assert detector.stats["gated_messages"] == 0


def test_a_masked_value_in_another_sentence_of_a_cued_message_is_still_found(
    detector: GrammarDetector,
) -> None:
    text = "My zip is 94105. Refund it to •••• 4258 please"
    found = detector.detect(text, MessageContext())
    assert [(text[f.start : f.end], f.entity) for f in found] == [
        ("94105", "ZIP_CODE"),
        ("4258", "CREDIT_CARD"),
    ]


def test_a_value_no_rule_of_the_sentence_takes_is_not_parsed(detector: GrammarDetector) -> None:
    # Sixteen digits far from "card", but not a card number (Luhn): no rule would take it.
    assert (
        detector.detect(
            "The card on file ends the old way; the new one is 4111111111111112.", MessageContext()
        )
        == []
    )
    assert detector.stats["parsed_sentences"] == 0


def test_a_value_a_rule_takes_is_still_parsed(detector: GrammarDetector) -> None:
    text = "The card on file ends the old way; the new one is 4111111111111111."
    found = detector.detect(text, MessageContext())
    assert [(text[f.start : f.end], f.entity) for f in found] == [("4111111111111111", "CREDIT_CARD")]
    assert detector.stats["parsed_sentences"] == 1


@pytest.mark.parametrize(
    "text",
    [
        '10.0.0.1 - - [12/Mar/2025:10:00:00 +0000] "GET /account/profile HTTP/1.1" 200 512',
        "Please update the account for Maya Okafor; the new address is 12 Alder Way, Tulsa.",
    ],
)
def test_a_sentence_whose_only_cue_takes_fragments_alone_is_not_tokenized(
    detector: GrammarDetector, text: str
) -> None:
    assert detector.detect(text, MessageContext()) == []
    assert detector.stats["sentences"] == 0


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("direct deposit to account ending 5318", "5318"),
        ("refund it to the account •••• 5318 please", "5318"),
        ("the account4: 5318", "5318"),
        ("What are the last digits of the account?\n5318", "5318"),
    ],
)
def test_an_account_fragment_is_still_found(detector: GrammarDetector, text: str, value: str) -> None:
    assert [(text[f.start : f.end], f.entity) for f in detector.detect(text, MessageContext())] == [
        (value, "BANK_ACCOUNT")
    ]


def test_the_gate_pre_test_lets_in_what_the_scan_would(detector: GrammarDetector) -> None:
    """The gate asks may_find before it scans; it must agree with the scan alone."""
    import random

    from load.bench import chat_log_stream
    from scrubber.detectors.grammar.sentences import scan
    from scrubber.detectors.tokens import number_like

    g = detector.grammar

    def by_scan(text: str) -> list[object] | None:
        if not number_like(text):
            return None
        hits = scan(g.cues, text)
        if hits.lists & g.gate_lists or detector.reader.masked_only(text, 0, len(text)):
            return list(hits)
        return None

    rng = random.Random(3)
    words = ["my", "SSN", "card", "cardNumber", "order", "zip", "is", "•••• 4258", "x8335", "phone", "İ"]
    generated = [
        " ".join(rng.choice(words) for _ in range(rng.randint(1, 6))) + f" {rng.randint(0, 99999)}"
        for _ in range(400)
    ]
    texts = chat_log_stream(1500) + generated
    let_in = 0
    for text in texts:
        expected = by_scan(text)
        assert detector.gate(text) == expected, text
        let_in += expected is not None
    assert 100 < let_in < len(texts) - 100
