"""Floors on the in-house corpora (tests/data/corpora/README.md): recall, precision, hard
negatives left alone and leaks, scored by ../shared/tools/score.py's rules at level 7."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from marks import scored

CORPORA = Path(__file__).resolve().parents[1] / "data" / "corpora"

# name: (recall, precision, hard-negative records flagged, leak rate): floors and ceilings a
# little below what was reached. On 2026-11-25: a 0.936 / 0.998 / 0 / 0.061; b 0.936 / 0.994 /
# 0 / 0.055; c 0.854 / 0.982 / 1 / 0.123 (c scored 0.830 / 0.970 / 5 / 0.146 when it was first
# run, before anything was changed for it). On 2026-11-27, with the name model (names without a
# cue; it trades a little precision for recall): a 0.964 / 0.984 / 7 / 0.027; b 0.964 / 0.983 /
# 1 / 0.027; c 0.937 / 0.966 / 4 / 0.050; d 0.856 / 0.960 / 13 / 0.140 (d: 0.725 / 0.984 / 4 /
# 0.266 before); informal-names-test, PERSON only, 0.526 / 0.959 / 7 / 0.471 (0.010 before).
# Later that day, with phones of any grouping after a label, IP addresses of every range, vendor
# tokens, cards only Luhn vouches for, passports and licences of other countries and secrets
# after key words: a 0.979 / 0.986 / 7 / 0.012; b 0.966 / 0.983 / 1 / 0.025; c 0.945 / 0.961 /
# 5 / 0.044 (private server addresses of its logs are unlabelled: IP precision 0.90); d 0.937 /
# 0.965 / 13 / 0.057.
# inhouse-e was sealed when written and scored once, at the end of 2026-11-27, before anyone
# looked at its misses: 0.909 / 0.936 / 14 / 0.081. Its misses were then read to choose four
# mechanisms (streets whose type ends the word or follows the name, SQL inserts as tables, month
# names of six languages, e-mail addresses written out), each tested on text written for it:
# a 0.981 / 0.986 / 7 / 0.010; b 0.966 / 0.983 / 1 / 0.025; c 0.953 / 0.962 / 5 / 0.036; d 0.940
# / 0.965 / 13 / 0.054; e 0.927 / 0.937 / 14 / 0.063 (no longer an unseen score).
# With the name model's neighbour word classes, lone unknown words supported by them and the
# threshold at 0.55 (more names, a little precision given for them, c most): a 0.981 / 0.987 /
# 6 / 0.010; b 0.966 / 0.979 / 2 / 0.025; c 0.958 / 0.955 / 5 / 0.031; d 0.955 / 0.959 / 15 /
# 0.037; e 0.931 / 0.937 / 13 / 0.059; informal-names-test 0.675 / 0.956 / 9 / 0.299.
# With famous people's names, place names, the marks of a name spoken to and the weights fitted
# on social-names too: a 0.981 / 0.985 / 7; b 0.968 / 0.977 / 2; c 0.961 / 0.957 / 6; d 0.963 /
# 0.965 / 11; e 0.939 / 0.936 / 14; informal-names-test 0.711 / 0.950 / 11; social-names-test
# (PERSON only; written with social-names, which the weights are fitted on, sharing no name word
# with it) 0.701 / 0.969 / 4.
# With the weights fitted on social-casual too, every second chat record also fitted in lower
# case, short unknown words in capitals read as acronyms, camel-case words of ordinary parts
# as ordinary, a lone lower-case word by a digit needing support, and the secrets, IP and
# camel-case cue changes of 2026-11-28: a 0.982 / 0.985 / 7; b 0.970 / 0.977 / 2; c 0.969 /
# 0.960 / 4; d 0.975 / 0.971 / 9; e 0.962 / 0.955 / 8; informal-names-test 0.766 / 0.949 /
# 12; social-names-test 0.730 / 0.949 / 7; social-casual-test (PERSON only, written with
# social-casual, no name word shared) 0.719 / 0.935 / 8 (0.600 / 0.914 / 9 before).
# On 2026-11-29, with a lone unknown word's bar at 0.2 (lone_word_context, 0.5 before) and the
# warmer closings of other languages: informal-names-test 0.792 / 0.951 / 12; social-names-test
# 0.747 / 0.950 / 7; social-casual-test 0.762 / 0.938 / 8; b 0.977 / 0.974 / 3; e 0.964 /
# 0.961 / 8. social-public and social-public-test (PERSON only; public figures and characters
# beside brands, teams and titles named after people; neither is fitted on) 0.725 / 0.848 / 44
# and 0.643 / 0.760 / 21 (0.716 / 0.846 / 44 and 0.600 / 0.747 / 21 before).
# Later that day, with a capitalised word inside a sentence needing no neighbour to vouch for
# it (lone_word_inside: 0.0; not after a place's preposition, a German article or a postcode):
# informal-names-test 0.802 / 0.951 / 12; social-names-test 0.770 / 0.951 / 7;
# social-casual-test 0.787 / 0.940 / 8; social-public-test 0.670 / 0.769 / 21; social-public
# 0.734 / 0.850 / 44; b 0.977 / 0.972 / 3; c 0.974 / 0.960 / 5; in-house a, d, e unchanged.
# On 2026-11-29 (second session), with a one-word sign-off after a long line, the threshold at
# 0.5 inside a sentence (0.55 at its start, where a capital says nothing), no typing slip read
# into a capital inside a sentence, and fewer look-alikes (an acronym after a capital,
# "OpenBSD"; a type ending in an ordinary word, "KafkaConsumer"; three capitals; places after
# "into" and "en"; companies in the possessive): a 0.984 / 0.985 / 7; b 0.977 / 0.972 / 3;
# c 0.974 / 0.963 / 4; d 0.978 / 0.970 / 10; e 0.972 / 0.961 / 7; informal-names-test 0.828 /
# 0.946 / 14; social-names-test 0.770 / 0.958 / 6; social-casual-test 0.800 / 0.941 / 7;
# social-public 0.736 / 0.847 / 45; social-public-test 0.713 / 0.780 / 21.
# Later that session, with words drawn out ("YASSSS") no names, and a capitalised word inside
# a sentence standing alone though its neighbours count a little against it (lone_word_inside
# -0.25) unless a capitalised ordinary word beside it makes it a thing's ("Larkspur Home"):
# informal-names-test 0.831 / 0.946 / 14; social-names-test 0.787 / 0.959 / 6;
# social-casual-test 0.850 / 0.944 / 7; social-public 0.742 / 0.847 / 46; social-public-test
# 0.739 / 0.793 / 20; c 0.974 / 0.967 / 4; e 0.974 / 0.960 / 7; a, b, d unchanged.
# inhouse-f (template-generated business text with Faker's values in 13 locales, written blind
# on 2026-11-29, third session) scored once, sealed: 0.925 / 0.878 / 17 / 0.051 (PERSON 0.936 /
# 0.779: firms named after people, German nouns; STREET_ADDRESS 0.32). Then, with firms known
# by their legal form or partners ("Nilsson & Strandberg AB", "Mendoza and Sons") and lines in
# other languages needing a listed name or a title: f 0.925 / 0.929 / 12 / 0.053; b 0.977 /
# 0.976 / 3; c 0.974 / 0.970 / 3; d 0.978 / 0.971 / 10; a, e and the name sets unchanged. With
# US streets confirmed by a person's name before the suffix, flats and studios for a house
# number, and "reach us at" in several languages: f 0.947 / 0.930 / 12 / 0.038. With Dutch
# "-dreef", "-boulevard" and "-baan", and a street before "?" or "!": f 0.957 / 0.934 / 12 /
# 0.028 (with streets found before names as well; that order was taken back, see registry.py).
# With a reply that holds a qualifier by its number allowed twice the length: f 0.961 / 0.934 /
# 12 / 0.024. With names in the value of a field that names a thing ("Company:",
# 'location="..."') no persons, and long words in capitals with one vowel at most no names
# ("DHCPACK"): f 0.961 / 0.948 / 11 / 0.024. With a given name in lower case after a greeting
# ("Hi alex,"): f 0.962 / 0.948 / 11 / 0.023; with the streets after names again: f 0.962 /
# 0.944 / 11 / 0.023; with streets before names once more (the address grammar's cost now
# grows with the line, and it looks at the deadline inside): f 0.962 / 0.948 / 11 / 0.023,
# a 0.984 / 0.987 / 7, d 0.978 / 0.973 / 10.
FLOORS = {
    "inhouse-a": (0.97, 0.975, 8, 0.02),
    "inhouse-b": (0.95, 0.97, 3, 0.035),
    "inhouse-c": (0.95, 0.945, 6, 0.04),
    "inhouse-d": (0.945, 0.95, 16, 0.045),
    "inhouse-e": (0.925, 0.925, 15, 0.065),
    "inhouse-f": (0.95, 0.945, 9, 0.035),
    # inhouse-g, sealed, first scored at 904081f: 0.920 / 0.899 / 27 / 0.064 (PERSON 0.907 /
    # 0.843); with trades' and sites' words after names, street types written first, holidays
    # and a program's words: 0.920 / 0.937 / 12 / 0.065 (PERSON 0.907 / 0.916).
    # On 2026-11-29, fifth session, with values read out in parts over replies, dates of birth
    # given in parts, a qualifier's "one" and comma, streets with flats and floors of other
    # countries and Polish "ul.": 0.951 / 0.938 / 12 / 0.037, partial recall 0.771 -> 1.000.
    "inhouse-g": (0.94, 0.93, 13, 0.045),
    # inhouse-h (values in conversation), sealed, first scored at ed2e47b: 0.782 / 0.979 / 1 /
    # 0.200, partial recall 0.519; with the parts, read-backs, dates of birth in parts, numbers
    # typed over two messages, "double", Kubernetes variables: 0.891 / 0.982 / 1 / 0.097,
    # partial recall 0.808.
    "inhouse-h": (0.88, 0.97, 3, 0.11),
    # inhouse-i (business and support text, names without a cue), sealed, first scored at
    # c449da6: 0.952 / 0.959 / 12 / 0.023 (PERSON 0.914 / 0.926); with "our <Name>" a thing one
    # has, "Name, Team" last lines and keys' values that name a role: 0.958 / 0.979 / 8 / 0.016.
    "inhouse-i": (0.945, 0.965, 10, 0.025),
    # inhouse-j (refunds, couriers, tenants, fraud claims, helpdesk, payment gateways), sealed,
    # first scored at 2983233: 0.932 / 0.953 / 18 / 0.051 (PERSON 0.953 / 0.932); with a run
    # between a determiner and a noun, servers' words, passwords later in a sentence, Basic
    # credentials, tokens in prose, a key's own value spending its cue, places travelled to,
    # shops paid at: 0.954 / 0.965 / 10 / 0.031.
    "inhouse-j": (0.945, 0.955, 12, 0.04),
    "informal-names-test": (0.81, 0.935, 15, 0.17),
    "social-names-test": (0.77, 0.945, 7, 0.21),
    "social-casual-test": (0.83, 0.93, 8, 0.17),
    "social-public": (0.72, 0.835, 47, 0.26),
    "social-public-test": (0.72, 0.775, 22, 0.25),
}


def result(name: str) -> dict[str, Any]:
    return scored(CORPORA / f"{name}.jsonl")


@pytest.mark.parametrize("name", sorted(FLOORS))
def test_floors(name: str) -> None:
    recall, precision, flagged, leak = FLOORS[name]
    got = result(name)
    micro, over = got["micro"], got["over_masking"]
    assert micro["recall"] >= recall, (micro["recall"], got["missed"][:15])
    assert micro["precision"] >= precision, micro["precision"]
    assert over["negative_records"] > 80
    assert over["negative_records_flagged"] <= flagged, over
    assert got["leak"]["leak_rate"] <= leak, got["leak"]["leaked_ids"][:15]


def test_dialogue_partials() -> None:
    """Partial values in dialogue (tests/data/corpora/README.md): 0.516 partial recall and 0.514
    recall before the turn model and the spoken-digit view; 0.968 and 0.973 with them. One hard
    negative is flagged ("The visa renewal form is due. The one ending in 2027 ...")."""
    got = result("dialogue-partials")
    micro, over = got["micro"], got["over_masking"]
    assert micro["partial_recall"] >= 0.9, got["missed"][:15]
    assert micro["recall"] >= 0.9, got["missed"][:15]
    assert over["negative_records"] >= 20
    assert over["negative_records_flagged"] <= 2, over


# values-probe (tests/data/corpora/README.md): Faker's values of 40 locales in sentences written
# here. On 2026-11-28, before the confirmed street suffixes, house numbers that start with 0,
# ZIP codes after a street, and the 'dial' and card-word cues: PHONE_NUMBER 0.963, CREDIT_CARD
# 0.900, STREET_ADDRESS 0.242, ZIP_CODE 0.846, micro 0.920 / 0.988, leak 0.061; after: 1.000,
# 1.000, 0.667, 0.923, micro 0.969 / 0.988, leak 0.016 (PERSON 0.986 / 0.961 both times: city
# names after a foreign postcode read as names; a few unlabelled city names vary between writes).
VALUES_PROBE = {
    "PHONE_NUMBER": 0.98,
    "CREDIT_CARD": 0.97,
    "PERSON": 0.95,
    "STREET_ADDRESS": 0.6,
    "ZIP_CODE": 0.9,
    "PASSPORT": 0.95,
    "IP_ADDRESS": 1.0,
    "US_SSN": 1.0,
    "EMAIL_ADDRESS": 1.0,
    "DATE_OF_BIRTH": 1.0,
}


def test_values_probe() -> None:
    got = result("values-probe")
    missed = got["missed"][:15]
    for entity, floor in VALUES_PROBE.items():
        assert got["entities"][entity]["recall"] >= floor, (entity, got["entities"][entity], missed)
    assert got["micro"]["recall"] >= 0.95, missed
    assert got["micro"]["precision"] >= 0.975, got["micro"]
