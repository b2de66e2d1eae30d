"""The engine: dial levels, overrides, allow-list, consistency within a message, errors."""

from __future__ import annotations

import time
from functools import cache
from itertools import pairwise
from pathlib import Path

import pytest

from scrubber import engine
from scrubber.detectors import MessageContext, TimeBudgetExceeded
from scrubber.detectors.cues import load_cues
from scrubber.detectors.pattern_rules import load_patterns
from scrubber.detectors.patterns import PatternDetector
from scrubber.dial import ENTITY_LEVELS, OperatorSpec, Policy, PolicyError
from scrubber.engine import Scrubber, ScrubError
from scrubber.rulefile import grammar_dir

TEXT = (
    "card 4539 1488 0343 6467, ssn 536-22-8173, mail jane.doe@example.com, "
    "call (415) 555-2671, zip code 94105, DOB: 04/12/1986, from 81.2.69.160"
)
ALL = {"CREDIT_CARD", "US_SSN", "EMAIL_ADDRESS", "PHONE_NUMBER", "ZIP_CODE", "DATE_OF_BIRTH", "IP_ADDRESS"}


@cache
def at_level(level: int) -> Scrubber:
    return Scrubber(Policy(level=level))


def entities(result_findings: object) -> set[str]:
    return {f.entity for f in result_findings}  # type: ignore[attr-defined]


@pytest.mark.parametrize("level", range(1, 8))
def test_level_masks_exactly_the_entities_at_or_below_it(level: int) -> None:
    result = at_level(level).scrub(TEXT)
    assert entities(result.findings) == {e for e in ALL if ENTITY_LEVELS[e] <= level}
    for f in result.findings:
        assert f"[{f.entity}]" in result.text


def test_level_0_observes_and_changes_nothing() -> None:
    result = at_level(0).scrub(TEXT)
    assert result.text == TEXT
    assert result.findings == ()
    assert entities(result.observed) == ALL
    assert result.counts()["US_SSN"] == 1


def test_always_and_never_override_the_dial() -> None:
    policy = Policy(level=2, always=frozenset({"IP_ADDRESS"}), never=frozenset({"US_SSN"}))
    result = Scrubber(policy).scrub(TEXT)
    assert entities(result.findings) == {"CREDIT_CARD", "IP_ADDRESS"}
    assert "536-22-8173" in result.text


def test_findings_are_sorted_disjoint_and_inside_the_text() -> None:
    result = at_level(7).scrub(TEXT)
    spans = [(f.start, f.end) for f in result.findings]
    assert spans == sorted(spans)
    assert all(0 <= a < b <= len(TEXT) for a, b in spans)
    assert all(b1 <= a2 for (_, b1), (a2, _) in pairwise(spans))


def test_a_value_found_once_is_masked_everywhere_in_the_message() -> None:
    text = "ssn 536-22-8173; to confirm: 536-22-8173 (copy 536-22-8173)"
    result = at_level(7).scrub(text)
    assert "536-22-8173" not in result.text
    assert result.text.count("[US_SSN]") == 3


def test_a_repeat_inside_a_longer_token_is_another_value() -> None:
    result = at_level(7).scrub("zip code 94105; order 941056 shipped")
    assert result.text == "zip code [ZIP_CODE]; order 941056 shipped"


def test_a_value_read_back_in_part_on_a_later_line_is_masked_too() -> None:
    text = (
        "Customer: best number is 312 555 0186\n"
        "Agent: so that's three one two, five five five, and it ends 0186?\nCustomer: yes"
    )
    result = at_level(7).scrub(text)
    assert [text[f.start : f.end] for f in result.findings] == [
        "312 555 0186",
        "three one two, five five five",
        "0186",
    ]
    assert {f.entity for f in result.findings} == {"PHONE_NUMBER"}


def test_four_digits_alone_or_a_year_are_no_read_back() -> None:
    # The last four of a number again by chance, with no word that says "the end of it".
    text = "Customer: best number is 312 555 2020\nAgent: your order 2020 and ticket 0186 are open"
    assert at_level(7).scrub(text).text.count("[PHONE_NUMBER]") == 1
    # Four digits that read as a year are none, even after "ending" (the grammar, which reads
    # the sentence, may still take them: "the one ending 2020?" points back at the phone).
    text = "Customer: best number is 312 555 2020\nAgent: noted, in 2020 I think"
    assert at_level(7).scrub(text).text.count("[PHONE_NUMBER]") == 1


@pytest.mark.parametrize("op", ["label", "mask", "hash", "remove"])
def test_same_value_gets_the_same_replacement_under_every_operator(op: str) -> None:
    text = "ssn 536-22-8173 and again 536-22-8173"
    policy = Policy(default_operator=OperatorSpec(op), hmac_key=b"k")
    result = Scrubber(policy).scrub(text)
    assert [text[f.start : f.end] for f in result.findings] == ["536-22-8173"] * 2
    first, second = result.text.removeprefix("ssn ").split(" and again ")
    assert first == second
    assert "536-22" not in result.text


def test_one_value_found_as_two_entities_gets_one_entity() -> None:
    text = "passport 021000021, and the routing number is 021000021"
    result = at_level(7).scrub(text)
    assert [f.entity for f in result.findings] == ["BANK_ACCOUNT", "BANK_ACCOUNT"]
    assert result.text.count("[BANK_ACCOUNT]") == 2


def test_allow_list_literals_and_patterns_are_never_masked() -> None:
    policy = Policy(allow=frozenset({"Support@Shop.example", r"re:.*@corp\.example"}))
    text = "write support@shop.example or it@corp.example, not jane@example.com"
    result = Scrubber(policy).scrub(text)
    assert result.text == "write support@shop.example or it@corp.example, not [EMAIL_ADDRESS]"


def test_an_invalid_allow_pattern_is_refused_when_the_policy_is_built() -> None:
    with pytest.raises(PolicyError, match="allow"):
        Policy(allow=frozenset({"re:(unclosed"}))


def test_scrub_many_equals_scrub_one_by_one() -> None:
    texts = [TEXT, "", "nothing here", "ssn 536-22-8173", TEXT.upper()]
    scrubber = at_level(7)
    assert scrubber.scrub_many(texts) == [scrubber.scrub(t) for t in texts]


def test_too_large_and_not_text_are_errors_with_a_reason() -> None:
    scrubber = Scrubber(max_chars=100)
    with pytest.raises(ScrubError) as exc:
        scrubber.scrub("x" * 101)
    assert exc.value.reason == "too_large"
    with pytest.raises(ScrubError) as exc:
        scrubber.scrub(b"bytes")  # type: ignore[arg-type]
    assert exc.value.reason == "not_text"


def test_a_pattern_past_its_time_budget_is_a_regex_timeout(tmp_path: Path) -> None:
    (tmp_path / "patterns.yaml").write_text(
        "patterns:\n  - {name: slow, entity: SECRET, regex: '(a|aa)+$', score: 0.9}\n"
    )
    rules = load_patterns(tmp_path / "patterns.yaml", load_cues(grammar_dir() / "cues.yaml"))
    scrubber = Scrubber(detectors=[PatternDetector(rules, timeout=0.01)])
    with pytest.raises(ScrubError) as exc:
        scrubber.scrub("a" * 64 + "b")
    assert exc.value.reason == "regex_timeout"
    assert "a" * 10 not in str(exc.value)  # the reason and rule name, never the text


class Broken:
    name = "broken"
    entities = frozenset({"PERSON"})

    def detect(self, text: str, ctx: MessageContext) -> list[object]:
        raise KeyError(text)


def test_a_failing_detector_holds_the_message_back_without_quoting_it() -> None:
    scrubber = Scrubber(detectors=[Broken()])  # type: ignore[list-item]
    for call in (scrubber.scrub, lambda t: scrubber.scrub_many([t])):
        with pytest.raises(ScrubError) as exc:
            call("ssn 536-22-8173")
        assert exc.value.reason == "detector_error"
        assert exc.value.detail == "broken: KeyError"


def test_repeats_in_long_texts_are_found_through_the_word_index(monkeypatch: pytest.MonkeyPatch) -> None:
    text = " ".join(
        f"note {i}: ssn {536 + i % 50:03d}-22-{8000 + i:04d}, again {536 + i % 50:03d}-22-{8000 + i:04d}x"
        f" and ({536 + i % 50:03d}-22-{8000 + i:04d})"
        for i in range(300)
    )
    scrubber = at_level(2)
    monkeypatch.setattr(engine, "FIND_BUDGET", 10**12)
    by_find = scrubber.scrub(text)
    monkeypatch.setattr(engine, "FIND_BUDGET", 0)
    by_index = scrubber.scrub(text)
    assert by_find == by_index
    assert len(by_index.findings) == 600  # the "...x" copies touch a letter: another token


def test_every_address_is_masked_but_loopback_and_unspecified() -> None:
    text = (
        "client 203.0.113.9 and 2001:db8::42:1, src=10.20.1.5 from 172.16.4.2 and 192.168.1.1, "
        "ula fd12:3456::9, link 169.254.7.1 and fe80::1, small 5.6.7.8, lo 127.0.0.1 ::1 0.0.0.0"
    )
    assert at_level(7).scrub(text).text == (
        "client [IP_ADDRESS] and [IP_ADDRESS], src=[IP_ADDRESS] from [IP_ADDRESS] and [IP_ADDRESS], "
        "ula [IP_ADDRESS], link [IP_ADDRESS] and [IP_ADDRESS], small [IP_ADDRESS], lo 127.0.0.1 ::1 0.0.0.0"
    )


def test_the_policy_spares_the_ranges_it_names() -> None:
    text = "client 203.0.113.9 and 2001:db8::42:1, src=10.20.1.5 and fd12:3456::9, 81.2.69.160, 10.99.3.4"
    policy = Policy(spare_ips=("documentation", "private"))
    assert Scrubber(policy).scrub(text).text == (
        "client 203.0.113.9 and 2001:db8::42:1, src=10.20.1.5 and fd12:3456::9, [IP_ADDRESS], 10.99.3.4"
    )
    narrow = Policy(spare_ips=("10.20.0.0/16", "81.2.69.160"))
    assert Scrubber(narrow).scrub(text).text == (
        "client [IP_ADDRESS] and [IP_ADDRESS], src=10.20.1.5 and [IP_ADDRESS], 81.2.69.160, [IP_ADDRESS]"
    )
    assert policy.with_level(3).spare_ips == ("documentation", "private")
    with pytest.raises(PolicyError, match="spare_ips"):
        Policy(spare_ips=("lan",))


def test_an_ipv4_address_written_as_ipv6_is_one_address() -> None:
    text = "peer ::ffff:203.0.113.77 nat64 64:ff9b::198.51.100.7 probe ::ffff:127.0.0.1 src=::ffff:10.20.1.5"
    assert at_level(7).scrub(text).text == (
        "peer [IP_ADDRESS] nat64 [IP_ADDRESS] probe ::ffff:127.0.0.1 src=[IP_ADDRESS]"
    )
    # Spared by its IPv4 range.
    assert Scrubber(Policy(spare_ips=("private",))).scrub(text).text == (
        "peer [IP_ADDRESS] nat64 [IP_ADDRESS] probe ::ffff:127.0.0.1 src=::ffff:10.20.1.5"
    )


@pytest.mark.parametrize("value", ["078-05-1120", "219-09-9999", "457-55-5462", "536-22-8726", "912-70-1234"])
def test_a_dashed_ssn_is_an_ssn_even_when_it_was_printed_in_an_advertisement(value: str) -> None:
    # stdnum refuses a few published numbers; they are still masked, and as SSNs (not phones),
    # so that level 2 masks them. An ITIN (912-70-1234) is masked as an SSN.
    assert at_level(2).scrub(f"SSN {value} on file").text == "SSN [US_SSN] on file"
    assert at_level(2).scrub(f"{value}").text == "[US_SSN]"


@pytest.mark.parametrize("value", ["000-12-3456", "666-12-3456", "912-34-5678", "123-00-4567", "123-45-0000"])
def test_numbers_the_ssa_never_issues_are_no_ssn(value: str) -> None:
    # 912-34-5678 is no ITIN either: the IRS's groups are 50-65, 70-88, 90-92 and 94-99.
    assert "[US_SSN]" not in at_level(2).scrub(f"ref {value} on file").text


@pytest.mark.parametrize("op", ["label", "hash"])
@pytest.mark.parametrize(
    "text",
    [
        TEXT,
        "My passport number is 650305101 and it expires on 20230627.",
        "driver license numer: D1234567 I'm in room 267 at the Hilton",
        "call my phone 415-555-2671 about order 88213 please",
        "Dear Maya Okafor, your card ending in 4242 ships to 12 Alder Way, Tulsa, OK 74103",
    ],
)
def test_scrubbing_scrubbed_text_again_changes_nothing(op: str, text: str) -> None:
    # A label ("[PASSPORT]", "<PHONE_NUMBER:1a2b3c4d>") holds cue words; they must not make the
    # next number a value the second time round, and the label itself is no value.
    scrubber = Scrubber(Policy(level=7, default_operator=OperatorSpec(op), hmac_key=b"k"))
    once = scrubber.scrub(text)
    assert once.findings
    twice = scrubber.scrub(once.text)
    assert twice.text == once.text
    assert twice.findings == ()


@pytest.mark.parametrize(
    "value",
    [
        "5019 6490 9590 8812",  # Dankort
        "6762 4627 1653 9199",  # Maestro
        "5893 7680 7438 5950 159",  # Maestro, 19 digits
        "2203 1170 1617 5088",  # Mir
        "6521 3306 4929 9177",  # RuPay
        "5081 2869 6314 1342",  # RuPay
        "6385 1655 5197 6098",  # InstaPayment
        "1800 9447 3622 319",  # JCB, 15 digits
        "1339 8259 7919 074",  # UATP
    ],
)
def test_cards_of_every_scheme_need_no_cue(value: str) -> None:
    assert at_level(1).scrub(f"paid with {value} yesterday").text == "paid with [CREDIT_CARD] yesterday"
    # The same digits with the check digit changed are no card.
    wrong = value[:-1] + str((int(value[-1]) + 1) % 10)
    assert at_level(1).scrub(f"paid with {wrong} yesterday").text == f"paid with {wrong} yesterday"


@pytest.mark.parametrize(
    ("detector", "text"),
    [
        # A long line of streets: the address grammar looks at the deadline every few hundred.
        ("address", "1 Main St, " * 600),
        # Names on many lines, and on one long line.
        ("name_model", "call Maya Okafor today\n" * 20),
        ("name_model", "Maya Okafor and Tomas Lindqvist, " * 600),
        # Sentences with a cue and a number, hundreds of them on one line.
        ("grammar", "The last four of my SSN are 6789. " * 300),
    ],
)
def test_a_detector_stops_inside_a_long_message_once_past_its_deadline(detector: str, text: str) -> None:
    (det,) = [d for d in at_level(7).detectors if d.name == detector]
    assert det.detect(text, MessageContext())  # finds something with time to spare
    with pytest.raises(TimeBudgetExceeded):
        det.detect(text, MessageContext(deadline=time.monotonic() - 1))
