from scrubber.findings import Finding, resolve


def f(start: int, end: int, entity: str = "US_SSN", score: float = 0.9, det: str = "t") -> Finding:
    return Finding(start, end, entity, score, det)


def test_disjoint_findings_are_kept_in_order() -> None:
    assert resolve([f(10, 12), f(0, 4)]) == [f(0, 4), f(10, 12)]


def test_overlap_takes_union_and_best_entity() -> None:
    out = resolve([f(0, 11, "US_SSN", 0.9), f(4, 20, "PHONE_NUMBER", 0.7)])
    assert out == [Finding(0, 20, "US_SSN", 0.9, "t")]


def test_equal_scores_prefer_wider_then_more_sensitive() -> None:
    assert resolve([f(0, 4, "ZIP_CODE"), f(0, 9, "PHONE_NUMBER")])[0].entity == "PHONE_NUMBER"
    assert resolve([f(0, 9, "PHONE_NUMBER"), f(0, 9, "US_SSN")])[0].entity == "US_SSN"


def test_resolution_does_not_depend_on_input_order() -> None:
    items = [f(0, 5, "ZIP_CODE", 0.6), f(3, 9, "PHONE_NUMBER", 0.6), f(8, 12, "US_SSN", 0.95)]
    assert resolve(items) == resolve(list(reversed(items)))


def test_empty_spans_are_dropped() -> None:
    assert resolve([f(3, 3)]) == []
