"""tests/data/corpora/validate.py accepts inhouse-d and rejects gold that breaks its rules."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

CORPORA = Path(__file__).resolve().parents[1] / "data" / "corpora"


def validator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("corpus_validate", CORPORA / "validate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_inhouse_d_is_valid(capsys: pytest.CaptureFixture[str]) -> None:
    assert validator().main([str(CORPORA / "inhouse-d.jsonl")]) == 0, capsys.readouterr().out


def record(text: str, value: str, entity: str, partial: bool = False) -> dict[str, object]:
    start = text.index(value)
    span = {"start": start, "end": start + len(value), "entity": entity, "partial": partial}
    return {"id": "t-chat-0001", "channel": "chat", "text": text, "spans": [span]}


@pytest.mark.parametrize(
    ("rec", "problem"),
    [
        (record("card 4111 1111 1111 1112 on file", "4111 1111 1111 1112", "CREDIT_CARD"), "Luhn"),
        (record("IBAN DE89 3704 0044 0532 0130 02", "DE89 3704 0044 0532 0130 02", "IBAN"), "mod-97"),
        (record("ssn 666-12-3456", "666-12-3456", "US_SSN"), "SSA"),
        (record("routing 123456789", "123456789", "BANK_ACCOUNT"), "ABA"),
        (record("call +44 20 7946 11", "+44 20 7946 11", "PHONE_NUMBER"), "libphonenumber"),
        (record("from 127.0.0.1", "127.0.0.1", "IP_ADDRESS"), "loopback"),
        (record("token ${API_KEY} here", "${API_KEY}", "SECRET"), "placeholder"),
        (record("thanks Mr. Okoro", "Mr. Okoro", "PERSON"), "title"),
        (record("mail ana@example.org or bo@example.org", "ana@example.org", "EMAIL_ADDRESS"), "unlabelled"),
        (record("user Kwame logged in", "Kwam", "PERSON"), "cuts a word"),
    ],
)
def test_rule_breaks_are_reported(rec: dict[str, object], problem: str, tmp_path: Path) -> None:
    assert any(problem in p for p in validator().record_problems(rec))
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(rec) + "\n", encoding="utf-8")
    assert validator().main([str(path)]) == 1
