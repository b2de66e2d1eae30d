import json

import pytest

from scrubber import playground


def ask(**req: object) -> dict[str, object]:
    return playground.handle(json.dumps(req).encode())


def test_masks_what_the_level_says_and_reports_offsets() -> None:
    text = "ssn 524-59-3318, mail jane@example.com"
    res = ask(text=text, level=2)
    assert res["text"] == "ssn [US_SSN], mail jane@example.com"
    findings = res["findings"]
    assert isinstance(findings, list) and len(findings) == 1
    assert text[findings[0]["start"] : findings[0]["end"]] == "524-59-3318"
    assert "EMAIL_ADDRESS" not in res["masked_entities"]


def test_level_zero_observes_without_masking() -> None:
    res = ask(text="ssn 524-59-3318", level=0)
    assert res["text"] == "ssn 524-59-3318"
    assert res["observe_only"] is True
    assert [f["entity"] for f in res["findings"]] == ["US_SSN"]  # type: ignore[union-attr]


def test_operators_change_the_replacement() -> None:
    assert ask(text="ssn 524-59-3318", level=2, operator="mask")["text"] == "ssn ***-**-3318"
    hashed = ask(text="ssn 524-59-3318", level=2, operator="hash")["text"]
    assert isinstance(hashed, str) and hashed.startswith("ssn <US_SSN:") and "3318" not in hashed


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"not json", "not JSON"),
        (b"[1]", "JSON object"),
        (json.dumps({"text": 5}).encode(), '"text"'),
        (json.dumps({"text": "x", "level": 9}).encode(), '"level"'),
        (json.dumps({"text": "x", "operator": "shout"}).encode(), '"operator"'),
        (json.dumps({"text": "x" * (playground.MAX_CHARS + 1)}).encode(), "longer"),
    ],
)
def test_bad_requests_get_a_clear_error(body: bytes, message: str) -> None:
    with pytest.raises(playground.PlaygroundError, match=message):
        playground.handle(body)


def test_page_is_served_from_the_package() -> None:
    page = playground.page().decode()
    assert "<title>scrubber playground</title>" in page
    assert 'id="level"' in page
