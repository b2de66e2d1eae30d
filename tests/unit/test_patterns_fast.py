"""Fast paths of the pattern detector: each must find exactly what the plain path finds."""

from __future__ import annotations

import ipaddress
import random
import re
import zlib
from pathlib import Path

import pytest
import regex

from load import streams
from scrubber.detectors import MessageContext, pattern_rules, patterns
from scrubber.detectors.cues import load_cues
from scrubber.detectors.pattern_rules import load_patterns
from scrubber.detectors.patterns import PatternDetector
from scrubber.detectors.registry import build_detectors
from scrubber.detectors.validators import ip, phone
from scrubber.detectors.validators.base import Memo
from scrubber.detectors.validators.ip import IpPolicy
from scrubber.dial import ENTITIES, ip_networks
from scrubber.rulefile import grammar_dir

DETECTOR = next(d for d in build_detectors(frozenset(ENTITIES)) if isinstance(d, PatternDetector))
RULES = {r.name: r for r in DETECTOR.rules}
TWINNED = sorted(name for name, r in RULES.items() if r.linear is not None)

# Characters the patterns care about, over-represented so that near-misses are common.
ALPHABET = "0123456789" * 4 + "  \t--..//()++,::__" + "AZSWKEXTNaexztnosi" + "SW1A 1AA K1A0B1" + "@#x\n"
TRICKY = [
    "call (415) 555-0142 ext. 12 or +44 20 7946 0958x9",
    "1 2 3 4 5 6 7 8 9 0 1 2" + " " * 300 + "x 12",
    "415-555-0142-" + "5" * 40,
    "Austin, TX 78701-1234 and austin,tx  78701 and CA\t94110-",
    "SW1A 1AA, K1A 0B1, k1a-0b1, EC1A1BB, W1 1AA1",
    "10.0.0.1.2 192.168.1.300 8.8.8.8: 1.2.3.4-5 fe80::1 2001:db8:0:0:0:0:0:1",
    "4111 1111 1111 1111 4111-1111-1111-1111. 4111  1111  1111  1111/",
    "DE89 3704 0044 0532 0130 00 de89370400440532013000 GB82 WEST 1234 5698 7654 32",
    "123-45-6789 123 45 6789 123.45.6789 123 45.6789 12345-6789",
    "ship to 94110-1234. or 02134-0001, not 12345-67890 nor 1234-5678",
    "Boston, MA 02134-0001; reno,nv 89501",
    "2001:0db8:85a3:0000:0000:8a2e:0370:7334 fe80:0:0:0:0:0:0:1 1:2:3:4:5:6:7:8:9 ::1 a::b:c",
    "from 2a00:1450:4001:81b::200e and 2001:db8:0:0:1:0:0:1, not 1:2:3:4:5:6:7",
    "to 2606:4700:4700:0:0:0:0:1111. EC1A 1BB, M1 1AE, B33 8TH, CR2 6XH and DN55 1PT",
    "aba 021000021, acct 12345678901234567, 123 45 6789 and 123.45.6789",
]


def _spans(
    pattern: regex.Pattern[str] | re.Pattern[str], text: str, pos: int, end: int
) -> list[tuple[int, ...]]:
    if isinstance(pattern, re.Pattern):
        found = pattern.finditer(text, pos, end)
    else:
        found = pattern.finditer(text, pos, end, timeout=5)
    group = "v" if "v" in pattern.groupindex else 0
    return [(*m.span(), *m.span(group)) for m in found]


def _fuzz(seed: int, count: int) -> list[str]:
    rnd = random.Random(seed)
    return ["".join(rnd.choice(ALPHABET) for _ in range(rnd.randint(1, 48))) for _ in range(count)]


def test_every_pinned_rule_has_its_twin() -> None:
    # A rule in _LINEAR whose regex changed loses its twin; this says it must be checked again.
    assert set(TWINNED) == set(pattern_rules._LINEAR)


@pytest.mark.parametrize("name", TWINNED)
def test_twin_matches_like_the_pattern(name: str) -> None:
    rule = RULES[name]
    assert rule.linear is not None
    texts = TRICKY + _fuzz(zlib.crc32(name.encode()), 1500) + streams.chat_lines(300, seed=3)
    texts += streams.log_lines(300, seed=4)
    matched = 0
    for text in texts:
        spans = _spans(rule.pattern, text, 0, len(text))
        matched += bool(spans)
        assert _spans(rule.linear, text, 0, len(text)) == spans, text
        # Stretches: look-behind sees before ``pos``, look-ahead not past ``endpos``.
        lo, hi = len(text) // 3, 2 * len(text) // 3 + 1
        assert _spans(rule.linear, text, lo, hi) == _spans(rule.pattern, text, lo, hi), text
    assert matched >= 3  # the inputs do exercise the pattern


def test_twin_is_not_used_for_a_changed_pattern(tmp_path: Path) -> None:
    cues = load_cues(grammar_dir() / "cues.yaml")
    kept = RULES["us_zip4"].pattern.pattern.replace("'", "''")
    (tmp_path / "patterns.yaml").write_text(
        "patterns:\n"
        f"  - {{name: us_zip4, entity: ZIP_CODE, regex: '{kept}', score: 0.6}}\n"
        "  - {name: postcode, entity: ZIP_CODE, regex: '(?<v>[A-Z]\\d[A-Z] ?\\d[A-Z]\\d)', score: 0.6}\n"
    )
    same, changed = load_patterns(tmp_path / "patterns.yaml", cues)
    assert same.linear is not None
    assert changed.linear is None


def test_non_ascii_text_takes_the_regex_engine() -> None:
    # The twin is only trusted on ASCII: here the plain path runs and still finds the number.
    text = "appelez le +33 1 42 68 53 00 — merci"
    assert not text.isascii()
    found = [(f.entity, text[f.start : f.end]) for f in DETECTOR.detect(text, MessageContext())]
    assert ("PHONE_NUMBER", "+33 1 42 68 53 00") in found


def test_translation_of_group_syntax() -> None:
    twin = pattern_rules.linear_twin(r"(?<![\w.-])(?<v>\d{3}(?<s>[ .]?)\d{2}\g<s>\d{4})\(?<x", 0)
    assert twin.pattern == r"(?<![\w.-])(?P<v>\d{3}(?P<s>[ .]?)\d{2}(?P=s)\d{4})\(?<x"


NEEDING = sorted(name for name, r in RULES.items() if r.needs is not None)


def test_every_pinned_pre_check_is_in_use() -> None:
    assert set(NEEDING) == set(pattern_rules._NEEDS)


@pytest.mark.parametrize("name", NEEDING)
def test_a_text_the_pattern_matches_has_what_the_rule_needs(name: str) -> None:
    rule = RULES[name]
    assert rule.needs is not None
    texts = TRICKY + _fuzz(zlib.crc32(name.encode()), 3000) + streams.mixed(600, seed=5)
    matched = 0
    for text in filter(str.isascii, texts):
        first = rule.pattern.search(text, timeout=5)
        if first is not None:
            matched += 1
            found = rule.needs.search(text)
            # The pattern runs from ``reach`` before what was found: no match starts earlier.
            assert found is not None and found.start() - rule.reach <= first.start(), text
    assert matched >= 3  # the inputs do exercise the rule


NEAR = sorted(
    name
    for name, r in RULES.items()
    if r.linear is not None and r.needs is not None and r.reach <= patterns.NEAR_REACH
)


@pytest.mark.parametrize("name", NEAR)
def test_trying_only_near_what_is_needed_finds_every_match(name: str) -> None:
    # Every match, not just the first, starts at most ``reach`` before a place the rule needs:
    # long texts of many values, overlapping and back to back, find what ``finditer`` finds.
    rule = RULES[name]
    assert rule.linear is not None and rule.needs is not None
    short = TRICKY + _fuzz(zlib.crc32(name.encode()) + 1, 3000)
    holding = [t for t in short if rule.linear.search(t)]
    rnd = random.Random(name)
    texts = short + [" ".join(rnd.sample(short, 12)) for _ in range(300)]
    texts += [sep.join(rnd.choices(holding, k=6)) for _ in range(300) for sep in ("", " ", "\n")]
    texts += streams.mixed(300, seed=6)
    several = 0
    for text in filter(str.isascii, texts):
        spans = [m.span() for m in rule.linear.finditer(text)]
        found = rule.needs.search(text)
        if found is None:
            assert not spans, text
            continue
        near = [m.span() for m in patterns._near(rule.linear, rule.needs, rule.reach, text, found)]
        assert near == spans, text
        several += len(spans) > 1
    assert several >= 3  # the inputs do hold several values in one text


def test_no_date_or_time_has_more_than_eight_digits() -> None:
    # The phone validators ask _looks_like_date_or_time only of values with at most eight.
    rnd = random.Random(23)
    values = ["2024-01-31", "31/01/1999", " 2024 - 1 - 3 ", "--2024--01-31-", "١٩٩٩-01-31", "2024-01-311"]
    for _ in range(30000):
        numbers = [
            "".join(rnd.choice("0123456789" * 4 + "١² \t\x1ca") for _ in range(rnd.randint(1, 6)))
            for _ in range(3)
        ]
        seps = [rnd.choice(["-", "/", ".", "--", " -", "/ ", "-/"]) for _ in range(4)]
        values.append(
            seps[0] * rnd.randint(0, 1)
            + numbers[0]
            + seps[1]
            + numbers[1]
            + seps[2]
            + numbers[2]
            + seps[3] * rnd.randint(0, 1)
        )
    dates = 0
    for value in values:
        if phone._looks_like_date_or_time(value):
            dates += 1
            assert sum(ch.isdigit() for ch in value) <= 8, value
    assert dates > 100


def _ipv4_by_ipaddress(value: str) -> int:
    """What ipaddress says of an address: every one is a finding but loopback and unspecified."""
    try:
        addr = ipaddress.IPv4Address(value)
    except ValueError:
        return 0
    return 0 if addr.is_loopback or addr.is_unspecified else len(value)


def test_ipv4_reads_dotted_quads_as_ipaddress_does() -> None:
    rnd = random.Random(11)
    firsts = [0, 1, 9, 10, 126, 127, 128, 169, 223, 224, 239, 240, 254, 255, 256]
    values = ["169.254.1.1", "169.253.1.1", "0.0.0.0", "255.255.255.255", "01.2.3.4", "1.2.3", "1.2.3.4.5"]
    for _ in range(5000):
        octets = [rnd.choice(firsts)] + [
            rnd.choice([0, 1, 9, 10, 99, 254, 255, rnd.randint(0, 300)]) for _ in range(3)
        ]
        values.append(".".join(str(o) for o in octets))
    values += ["٤.٤.٤.٤", "1.2.3.04", "1.2.3.4 "]
    for value in values:
        assert ip.ipv4(value, Memo()) == _ipv4_by_ipaddress(value), value


def test_digit_counts_and_runs_of_ascii_texts_read_as_bytes() -> None:
    rnd = random.Random(5)
    texts = ["", "-", "1 2-3\t4", "4111 1111-1111 1111", "a1b22c333", "12\n34", "\x1c12 3"]
    texts += [
        "".join(rnd.choice("0123456789 -\t\n\x1cab.:_") for _ in range(rnd.randint(0, 40)))
        for _ in range(3000)
    ]
    for text in texts:
        doc = patterns._Text(text, DETECTOR.cues, Memo())
        assert doc.digits == sum(ch in "0123456789" for ch in text), text
        assert doc.run == max(map(len, text.translate(patterns._RUNS).split()), default=0), text


def test_gate_scan_wakes_the_rules_of_every_gate_string_in_the_text() -> None:
    # What the one pass must agree with: a look for each gate string on its own. Texts glued
    # from gate strings make them overlap and start inside one another ("gatan", "gate", " @").
    folded: dict[str, set[int]] = {}
    cased: dict[str, set[int]] = {}
    for i, r in enumerate(DETECTOR.rules):
        for g in r.gate_folded:
            folded.setdefault(g, set()).add(i)
        for g in r.gate_cased:
            cased.setdefault(g, set()).add(i)
    rnd = random.Random(17)
    gates = [*folded, *cased]
    texts = [*gates, *(g.upper() for g in gates), *streams.mixed(300, seed=3)]
    texts += [
        "".join(rnd.choice([*gates, " ", "x", "1"]) for _ in range(rnd.randint(1, 8))) for _ in range(3000)
    ]
    scan_folded, scan_cased = patterns._GateScan(folded), patterns._GateScan(cased)
    for text in texts:
        lower = text.lower()
        expected = {i for g, ix in folded.items() if g in lower for i in ix}
        expected |= {i for g, ix in cased.items() if g in text for i in ix}
        assert scan_folded.woken(lower) | scan_cased.woken(text) == expected, text


def _grouped_by_runs(value: str) -> bool:
    """What _may_be_grouped_phone said before it was one pattern."""
    runs = re.findall(r"\d+", value)
    if not runs:
        return False
    if value.lstrip().startswith("+") or runs[0][0] == "0":
        return True
    sizes = [len(r) for r in runs[:4]]
    return sizes[:3] == [3, 3, 4] or sizes == [1, 3, 3, 4] or (sizes[:2] == [5, 5] and runs[0][0] in "6789")


def test_grouped_phone_shapes_read_as_runs_of_digits() -> None:
    rnd = random.Random(13)
    values = [
        "+",
        " +1 415",
        "(415) 555-0142",
        "1 415 555 0142 9",
        "98765 43210",
        "58765 43210",
        "٤١٥ 555 0142",
    ]
    for _ in range(20000):
        groups = [str(rnd.randint(0, 10 ** rnd.randint(1, 6))) for _ in range(rnd.randint(0, 5))]
        seps = [rnd.choice([" ", "-", ".", ") ", "/", " x", "\t"]) for _ in groups]
        values.append(
            rnd.choice(["", "+", " +", "(", "00"]) + "".join(g + s for g, s in zip(groups, seps, strict=True))
        )
    for value in values:
        assert phone._may_be_grouped_phone(value) == _grouped_by_runs(value), value


def test_the_message_context_says_which_address_ranges_are_found() -> None:
    text = "src=10.20.1.5 docs 203.0.113.9 from 81.2.69.160"

    def found(ctx: MessageContext) -> list[str]:
        return [text[f.start : f.end] for f in DETECTOR.detect(text, ctx) if f.entity == "IP_ADDRESS"]

    assert found(MessageContext()) == ["10.20.1.5", "203.0.113.9", "81.2.69.160"]
    private = IpPolicy(ip_networks(["private"]))
    assert found(MessageContext(ips=private)) == ["203.0.113.9", "81.2.69.160"]
    documentation = IpPolicy(ip_networks(["documentation", "81.2.69.0/24"]))
    assert found(MessageContext(ips=documentation)) == ["10.20.1.5"]


def test_phone_verdicts_stay_with_their_message() -> None:
    ctx = MessageContext()
    assert {f.entity for f in DETECTOR.detect("call me on (415) 555-0142", ctx)} == {"PHONE_NUMBER"}
    # Two rules judge the number; libphonenumber was asked once, and the answer is the message's.
    assert ctx.memo == {("(415) 555-0142", "US"): True}
    assert not MessageContext().memo
