"""Dependency rules for partial PII: a table of sentences with their exact spans, near misses,
tokenization offsets, and rule-file validation."""

from __future__ import annotations

from pathlib import Path

import pytest
from marks import marked_spans

from scrubber import rulefile
from scrubber.detectors import MessageContext
from scrubber.detectors.cues import load_cues
from scrubber.detectors.grammar import GrammarDetector, load_grammar
from scrubber.detectors.tokens import tokenize, values
from scrubber.dial import Policy
from scrubber.engine import Scrubber
from scrubber.rulefile import RuleError

GRAMMAR = rulefile.grammar_dir()


@pytest.fixture(scope="module")
def detector() -> GrammarDetector:
    cues = load_cues(GRAMMAR / "cues.yaml")
    return GrammarDetector(load_grammar(GRAMMAR / "rules.yaml", cues))


POSITIVE = [
    # US_SSN
    ("US_SSN", "the last four of my SSN is [[1234]]."),
    ("US_SSN", "As requested, the last four digits of my social security number are [[0644]]."),
    ("US_SSN", "my social ends in [[6789]]"),
    ("US_SSN", "[[4321]] is the last four of my ssn"),
    ("US_SSN", "is [[0297]] enough or do you need the whole social?"),
    ("US_SSN", "SSN last4: [[1234]], DOB: 03/04/1985"),
    ("US_SSN", "ssn last 4: [[7811]]"),
    ("US_SSN", "ssn#[[123456789]] please"),
    ("US_SSN", "my ssn is [[867.70.6557]] i think"),
    ("US_SSN", "My SSN is [[123 45 6789]]."),
    ("US_SSN", "Last four of my social are [[three zero two two]]."),
    ("US_SSN", '{"msg":"identity verified","ssn_last4":"[[1689]]"}'),
    ("US_SSN", "The form shows ###-##-[[8128]] as my SSN, is that right?"),
    ("US_SSN", "Agent: please provide the last four of your SSN.\nCustomer: [[5521]]"),
    # CREDIT_CARD
    ("CREDIT_CARD", "card ending [[4242]]"),
    ("CREDIT_CARD", "Could you please refund the charge to the card ending in [[2046]]? The order is late."),
    ("CREDIT_CARD", "I paid with my Visa ending in [[7201]]."),
    ("CREDIT_CARD", "it's the card that ends in [[two nine eight eight]]"),
    ("CREDIT_CARD", "Refund it to •••• [[4258]] please"),
    ("CREDIT_CARD", "refund it to …[[6029]] please"),
    ("CREDIT_CARD", "INFO card_added last4=[[0293]] user_id=5932590"),
    # a key's "suffix" is its last digits
    ("CREDIT_CARD", "gateway INFO refund pan_suffix=[[4417]] amount=12.50"),
    ("BANK_ACCOUNT", "payout acct_suffix=[[6620]] status=sent"),
    ("CREDIT_CARD", '{"msg":"card on file","last4":"[[1527]]","brand":"Visa"}'),
    ("CREDIT_CARD", "The last 4 of my card are [[4066]]."),
    # BANK_ACCOUNT
    ("BANK_ACCOUNT", "direct deposit to account ending [[5318]]"),
    # "one" stands for the cue's noun: the qualifier on it is as near as it is
    ("BANK_ACCOUNT", "My savings account is the one ending [[8072]]."),
    ("US_SSN", "my SSN changed, the one on file ends in [[3390]]"),
    # PHONE_NUMBER
    ("PHONE_NUMBER", "my phone is [[five one three, six four nine, three seven six two]]"),
    ("PHONE_NUMBER", "cell: [[four one five - five five five - zero one four two]]"),
    ("PHONE_NUMBER", "phone [[8 5 9 8 8 4 1 8 1 8]] thanks"),
    ("PHONE_NUMBER", "My number ends in [[9009]]."),
    ("PHONE_NUMBER", "INFO callback_requested phone_last4=[[0346]]"),
    ("PHONE_NUMBER", "best number to reach me [[404.464.0704]] after 5pm"),
    ("PHONE_NUMBER", "You can reach me at [[(714) 901-2163 EXT 31]] during business hours."),
    # ZIP_CODE
    ("ZIP_CODE", "my zip is [[9 4 1 0 5]]"),
    ("ZIP_CODE", "zip code [[7-2-2-2-3]] sorry typing on my phone"),
    ("ZIP_CODE", "INFO billing_zip_check zip=[[9-9-2-6-2]] result=mismatch"),
    ("ZIP_CODE", "my zip is [[four six two seven five]]"),
]


@pytest.mark.parametrize(("entity", "marked"), POSITIVE)
def test_partial_values_are_found_with_exact_spans(
    detector: GrammarDetector, entity: str, marked: str
) -> None:
    text, spans = marked_spans(marked)
    found = detector.detect(text, MessageContext())
    assert [(f.start, f.end) for f in found] == spans, [text[f.start : f.end] for f in found]
    assert {f.entity for f in found} == {entity}


NEGATIVE = [
    "I watched the last four episodes last night",
    "my zip file is 40 MB",
    "my zip file is 40123 bytes",
    "I'm in room 1234 at the hotel",
    "order ending in 42 shipped yesterday",
    "I need the last 4 pages of the contract re-sent",
    "the card reader at store 7081 is broken",
    "my ticket ending in 4242 was closed",
    "I bought one ending 2024 at the card shop",
    "the one ending 4471 is mine, my card is fine",
    "call me at 5 tomorrow, my card works now",
    "SSN last4: 1234, DOB: 03/04/1985".replace("1234", "unknown"),
    "Agent: please provide the last four of your SSN.\nCustomer: I'm in room 2214 now",
]


@pytest.mark.parametrize("text", NEGATIVE)
def test_near_misses_are_left_alone(detector: GrammarDetector, text: str) -> None:
    assert detector.detect(text, MessageContext()) == []


def test_batch_gives_the_same_findings_as_one_by_one(detector: GrammarDetector) -> None:
    texts = [marked_spans(m)[0] for _, m in POSITIVE] + NEGATIVE
    assert detector.detect_many(texts, [MessageContext() for _ in texts]) == [
        detector.detect(t, MessageContext()) for t in texts
    ]


def test_messages_without_cue_or_number_never_reach_the_parser(detector: GrammarDetector) -> None:
    detector.stats = dict.fromkeys(detector.stats, 0)
    texts = ["hello there, how are you?", "order 1234 shipped", "my card was declined"]
    detector.detect_many(texts, [MessageContext() for _ in texts])
    assert detector.stats["gated_messages"] == 0
    assert detector.stats["parsed_sentences"] == 0
    # The cue stands right before the value.
    detector.detect_many(["zip code 9 4 1 0 5 sorry"], [MessageContext()])
    assert detector.stats["gated_messages"] == 1
    assert detector.stats["parsed_sentences"] == 0


def test_engine_masks_partial_values_at_their_level() -> None:
    text = "the last four of my SSN is 1234. my zip is 9 4 1 0 5"
    assert (
        Scrubber(Policy(level=7)).scrub(text).text
        == "the last four of my SSN is [US_SSN]. my zip is [ZIP_CODE]"
    )
    assert (
        Scrubber(Policy(level=2)).scrub(text).text
        == "the last four of my SSN is [US_SSN]. my zip is 9 4 1 0 5"
    )


def test_tokens_keep_exact_offsets_and_drop_edge_punctuation() -> None:
    text = 'SSN is 123-45-6789, "zip":"94105" ssn#123456789 (714) 555.'
    toks = tokenize(text)
    assert all(text[t.start : t.end] == t.text for t in toks)
    words = [t.text for t in toks]
    assert "123-45-6789" in words and "94105" in words and "123456789" in words and "(714)" in words
    assert "555" in words and "555." not in words


def test_values_join_spaced_spelled_and_masked_digits() -> None:
    text = "1 4 2 6 5 then five one three, six four nine and xxxx xxxx 3148"
    got = [(v.digits, text[v.start : v.end], v.masked) for v in values(tokenize(text))]
    assert got == [
        ("14265", "1 4 2 6 5", False),
        ("513649", "five one three, six four nine", False),
        ("3148", "3148", True),
    ]


_RULE = "shapes:\n  s: {digits: %s}\nrules:\n  - name: r\n    entity: %s\n%s    shapes: [s]\n"


@pytest.mark.parametrize(
    ("yaml_text", "line", "reason"),
    [
        (_RULE % ("4", "NOPE", "    cues: [ssn]\n"), 4, "unknown entity"),
        (_RULE % ("4", "US_SSN", "    cues: [nope]\n"), 4, "unknown cue list"),
        (_RULE % ("four", "US_SSN", "    cues: [ssn]\n"), 2, "digits"),
        (_RULE % ("4", "US_SSN", ""), 4, "either cues or masked"),
        ("shapes:\n  s: {digits: 4, validate: nope}\nrules: []\n", 2, "unknown validator"),
        ("shapes: {}\nrules: [\n", 3, "invalid YAML"),
    ],
)
def test_a_bad_rule_file_names_file_line_and_reason(
    tmp_path: Path, yaml_text: str, line: int, reason: str
) -> None:
    path = tmp_path / "rules.yaml"
    path.write_text(yaml_text, encoding="utf-8")
    with pytest.raises(RuleError) as err:
        load_grammar(path, load_cues(GRAMMAR / "cues.yaml"))
    assert err.value.path == str(path)
    assert err.value.line == line
    assert reason in err.value.reason
    assert str(err.value).startswith(f"{path}:{line}: ")
