"""grammar/names.yaml is all the name detector reads: a phrase, a word or another language's
"wrote:" line added there is honoured with no change to the code, and so are the order and the
kinds of the contexts; a bad contexts table names its file, line and reason."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from scrubber import rulefile
from scrubber.detectors import MessageContext
from scrubber.detectors.names import NameDetector, load_names
from scrubber.rulefile import RuleError

SHIPPED = NameDetector(load_names(rulefile.grammar_dir() / "names.yaml"))

# (list, what is added to it, a text, the names found in it once it is there)
ADDED = [
    ("greetings", "moin", "Moin Jannik, the parcel is here.", ["Jannik"]),
    ("closings", "tot ziens", "Ik bel morgen.\n\nTot ziens,\nMarieke Jansen", ["Marieke Jansen"]),
    # Another language's attribution line: the name before the verb (Portuguese) or after it
    # (Dutch).
    (
        "wrote_before",
        "escreveu",
        "Obrigado!\n\nEm 3 de mar. de 2025, Ana Beatriz Souza escreveu:\n> o pedido chegou",
        ["Ana Beatriz Souza"],
    ),
    (
        "wrote_after",
        "schreef",
        "Dank je.\n\nOp 3 maart 2025 schreef Jan de Vries:\n> de doos is er",
        ["Jan de Vries"],
    ),
    (
        "people_keys",
        "jury",
        "Jury: Anya Petrova, Kenji Watanabe and Olu Bakare",
        ["Anya Petrova", "Kenji Watanabe", "Olu Bakare"],
    ),
    ("kin_adjectives", "adoptive", "my adoptive mother, Grace Obi, called twice", ["Grace Obi"]),
    ("born_cues", "geboren", "The holder is Anna Keller (geboren 1961).", ["Anna Keller"]),
]


def _grammar() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((rulefile.grammar_dir() / "names.yaml").read_text(encoding="utf-8"))
    return data


def _detector(tmp_path: Path, data: dict[str, Any]) -> NameDetector:
    path = tmp_path / "names.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return NameDetector(load_names(path))


def _found(detector: NameDetector, text: str) -> list[tuple[str, str]]:
    found = sorted(detector.detect(text, MessageContext()), key=lambda f: f.start)
    return [(text[f.start : f.end], f.detector) for f in found]


def _names(detector: NameDetector, text: str) -> list[str]:
    return [name for name, how in _found(detector, text) if how != "names:recurring"]


@pytest.fixture(scope="module")
def added(tmp_path_factory: pytest.TempPathFactory) -> NameDetector:
    data = _grammar()
    for key, word, _text, _names in ADDED:
        assert word not in data[key]
        data[key] = [*data[key], word]
    return _detector(tmp_path_factory.mktemp("added"), data)


@pytest.mark.parametrize(("key", "word", "text", "names"), ADDED, ids=[a[1] for a in ADDED])
def test_a_word_added_only_in_names_yaml_is_honoured(
    added: NameDetector, key: str, word: str, text: str, names: list[str]
) -> None:
    assert _names(SHIPPED, text) == []
    assert _names(added, text) == names


def test_the_contexts_order_and_kinds_come_from_names_yaml(tmp_path: Path) -> None:
    # "Thanks, Ana" is a greeting and a closing on the same line: the later context names it.
    assert _found(SHIPPED, "Thanks, Ana") == [("Ana", "names:sign_same_line")]
    # A greeting is not open-ended: a word that is never a name after its name cancels it.
    assert _found(SHIPPED, "Hi Jane Please,") == []
    data = _grammar()
    contexts = data["contexts"]
    greeting = contexts.pop("greeting")
    data["contexts"] = {**contexts, "greeting": {**greeting, "open": True}}
    detector = _detector(tmp_path, data)
    assert _found(detector, "Thanks, Ana") == [("Ana", "names:greeting")]
    assert _found(detector, "Hi Jane Please,") == [("Jane", "names:greeting")]


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda c: c.update(salutation={"phrases": ["greetings"]}), "unknown key salutation"),
        (lambda c: c.pop("title"), "missing key title"),
        (
            lambda c: c["greeting"].update(phrases=["greetingz"]),
            "context 'greeting': unknown list 'greetingz'",
        ),
        (lambda c: c.update(kin={"phrases": ["relations"]}), "context 'kin' has no phrases of its own"),
        (lambda c: c["intro"].update(open="yes"), "context 'intro': open must be true or false"),
    ],
)
def test_a_bad_contexts_table_names_file_line_and_reason(tmp_path: Path, change: Any, reason: str) -> None:
    data = _grammar()
    change(data["contexts"])
    with pytest.raises(RuleError) as err:
        _detector(tmp_path, data)
    assert err.value.path == str(tmp_path / "names.yaml") and err.value.line and reason in err.value.reason
