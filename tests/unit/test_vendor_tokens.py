"""Vendor tokens from the table of grammar/tokens.yaml: found wherever they stand, not when
they are template filler or run on past their length, and a bad entry names its line."""

from __future__ import annotations

from pathlib import Path

import pytest

from scrubber import rulefile
from scrubber.detectors.cues import load_cues
from scrubber.detectors.pattern_rules import load_patterns
from scrubber.detectors.patterns import PatternDetector
from scrubber.detectors.vendors import load_tokens
from scrubber.dial import Policy
from scrubber.engine import Scrubber
from scrubber.rulefile import RuleError

GRAMMAR = rulefile.grammar_dir()
CUES = load_cues(GRAMMAR / "cues.yaml")
TOKENS = load_tokens(GRAMMAR / "tokens.yaml", CUES)
ENGINE = Scrubber(Policy(level=7), detectors=[PatternDetector(TOKENS)])


def secrets(text: str) -> list[tuple[str, str]]:
    return [(f.detector, text[f.start : f.end]) for f in ENGINE.scrub(text).findings]


@pytest.mark.parametrize(
    ("text", "rule", "value"),
    [
        (
            "token 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 here",
            "huggingface_token",
            "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",
        ),
        (
            "DIGITALOCEAN_TOKEN=dop_v1_a5ff5180bc0dbc0e15637ebb8e3b91d26ab4a829a95249f512c17b8ed411fa64",
            "digitalocean_token",
            "dop_v1_a5ff5180bc0dbc0e15637ebb8e3b91d26ab4a829a95249f512c17b8ed411fa64",
        ),
        (
            "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.",
            "shopify_token",
            "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",
        ),
        ("key=AKIAIOSFODNN7EXAMPLE", "aws_access_key", "AKIAIOSFODNN7EXAMPLE"),
        ("whsec_0WwsURgEvDOyLklZivizuhg3T3ylJyzs", "stripe_key", "whsec_0WwsURgEvDOyLklZivizuhg3T3ylJyzs"),
        ("(NRAK-LMMC54WA14T1U33GMJKEXY4J9QH)", "newrelic_key", "NRAK-LMMC54WA14T1U33GMJKEXY4J9QH"),
    ],
)
def test_a_vendor_token_is_found_by_its_prefix(text: str, rule: str, value: str) -> None:
    assert secrets(text) == [(f"pattern:{rule}", value)]


@pytest.mark.parametrize(
    "text",
    [
        "ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",  # template filler
        "sk_live_YOUR_KEY_HERE_0000000000",  # put your own here
        "npm_abcdefghijklmnopqrstuvwxyz0123456789X",  # one character longer than npm's 36
        "shpat_8b0e7153bf7c",  # too short
        "xhf_sumIROnlSmytbxAkjqevtMLaMRTvetwtES",  # the prefix inside a longer word
        "the hf_ prefix and dop_v1_ are documented here",
    ],
)
def test_look_alikes_of_vendor_tokens_are_none(text: str) -> None:
    assert secrets(text) == []


def test_token_rules_run_only_where_their_prefix_is() -> None:
    rule = next(r for r in TOKENS if r.name == "digitalocean_token")
    assert set(rule.gate) == {"dop_v1_", "doo_v1_", "dor_v1_"}


def test_token_names_do_not_clash_with_pattern_names() -> None:
    names = [r.name for r in load_patterns(GRAMMAR / "patterns.yaml", CUES)] + [r.name for r in TOKENS]
    assert len(names) == len(set(names))


@pytest.mark.parametrize(
    ("entry", "reason"),
    [
        ("  - name: x\n    forms: []\n", "forms must be a non-empty list"),
        ("  - name: x\n    forms:\n      - {prefix: [x_], body: octal, length: 8}\n", "body 'octal'"),
        ("  - name: x\n    forms:\n      - {prefix: [x_], body: hex, length: many}\n", "length must be"),
        ("  - name: x\n    forms:\n      - {prefix: x_, body: hex, length: 8}\n", "prefix must be a list"),
        (
            "  - name: x\n    colour: red\n    forms:\n      - {prefix: [x_], body: hex, length: 8}\n",
            "unknown key",
        ),
    ],
)
def test_a_bad_entry_names_its_line(tmp_path: Path, entry: str, reason: str) -> None:
    path = tmp_path / "tokens.yaml"
    path.write_text("tokens:\n" + entry, encoding="utf-8")
    with pytest.raises(RuleError, match=rf"tokens.yaml:\d+: .*{reason}"):
        load_tokens(path, CUES)
