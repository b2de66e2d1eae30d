"""The traffic-shaped benchmark streams hold what load/README.md says they hold."""

from __future__ import annotations

import json
import statistics

from load import traffic


def test_dense_lines_are_half_values_and_about_190_bytes() -> None:
    samples = traffic.dense_samples(4000, seed=1)
    share = sum(1 for s in samples if s.values) / len(samples)
    mean = statistics.fmean(len(s.text.encode("utf-8")) for s in samples)
    assert 0.45 <= share <= 0.52
    assert 170 <= mean <= 210


def test_every_recorded_value_is_written_in_its_message() -> None:
    samples = traffic.dense_samples(2000, seed=2) + traffic.email_prose_samples(200, seed=3)
    for s in samples:
        for value in s.values:
            assert value in s.text, (value, s.text)


def test_dense_lines_mix_chat_json_and_key_value_logs() -> None:
    lines = traffic.dense_lines(2000, seed=4)
    json_lines = [t for t in lines if t.startswith("{")]
    for t in json_lines:
        json.loads(t)
    kv = [t for t in lines if " level=" in t]
    chat = [
        t for t in lines if t.split(":", 1)[0] in ("Customer", "Agent", "customer", "agent", "Bot", "User")
    ]
    assert len(json_lines) + len(kv) + len(chat) == len(lines)
    for part in (json_lines, kv, chat):
        assert 0.2 <= len(part) / len(lines) <= 0.55


def test_names_stand_in_ordinary_sentences() -> None:
    samples = traffic.dense_samples(3000, seed=5)
    named = [s for s in samples if s.text.startswith(("Customer:", "Agent:", "User:", "Bot:"))]
    sentence = [s for s in named if any(f"{v} says the parcel" in s.text for v in s.values)]
    assert sentence, "no name without an announcing phrase"


def test_mails_are_about_2_kb_with_a_signature_and_often_a_quote() -> None:
    samples = traffic.email_prose_samples(300, seed=6)
    sizes = [len(s.text.encode("utf-8")) for s in samples]
    assert 1800 <= statistics.fmean(sizes) <= 2200
    quoted = [s for s in samples if "wrote:\n> " in s.text or "-----Original Message-----" in s.text]
    assert 0.55 <= len(quoted) / len(samples) <= 0.85
    for s in samples:
        sender = s.values[0]
        assert f",\n{sender}\n" in s.text  # the closing, then the sender's name heads the signature


def test_streams_are_the_same_for_the_same_arguments() -> None:
    assert traffic.dense_lines(50, seed=9) == traffic.dense_lines(50, seed=9)
    assert traffic.email_prose(5, seed=9) != traffic.email_prose(5, seed=10)
    assert len(traffic.block(5000, seed=1)) == 5000
    mixed = traffic.dense_mixed(100, seed=1)
    assert len(mixed) == 100 and all(len(mixed[i]) > 1500 for i in range(9, 100, 10))
