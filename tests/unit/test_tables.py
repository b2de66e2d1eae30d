"""Tables: a CSV/TSV/markdown table's column names act as cues for its cells."""

from __future__ import annotations

import time

import pytest

from scrubber import Scrubber
from scrubber.detectors.tables import ColumnView, find_sql_tables, find_tables, split_row
from scrubber.dial import Policy
from scrubber.findings import Finding


@pytest.fixture(scope="module")
def engine() -> Scrubber:
    return Scrubber(Policy(level=7))


def cells(text: str) -> list[tuple[tuple[str, ...], list[list[str | None]]]]:
    return [
        (t.columns, [[text[c[0] : c[1]] if c else None for c in row] for row in t.rows])
        for t in find_tables(text)
    ]


def test_split_row_strips_blanks_and_quotes() -> None:
    line = 'a, "Guo, Xiaoling" ,"say ""hi""",,x '
    spans = split_row(line, 10, ",")
    assert spans is not None
    assert [line[s - 10 : e - 10] for s, e in spans] == ["a", "Guo, Xiaoling", 'say ""hi""', "", "x"]
    assert split_row('a,"open', 0, ",") is None
    assert split_row('a,"x"y,b', 0, ",") is None


def test_csv_tsv_semicolon_and_markdown_tables() -> None:
    text = 'export:\nid,full_name,zip\n1,"Guo, Xiaoling",94105\n2,Ana Lima,\n\nnot a table'
    rows = [["1", "Guo, Xiaoling", "94105"], ["2", "Ana Lima", None]]
    assert cells(text) == [(("id", "full_name", "zip"), rows)]
    assert cells("name\tdob\tcity\nAna\t1990-01-02\tPorto") == [
        (("name", "dob", "city"), [["Ana", "1990-01-02", "Porto"]])
    ]
    assert cells("Name;Phone;Note\nLi Wei;+44 20 7946 0018;ok\n") == [
        (("Name", "Phone", "Note"), [["Li Wei", "+44 20 7946 0018", "ok"]])
    ]
    md = "| name | dob | city |\n|------|:---:|------|\n| Ana Lima | 1990-01-02 | Porto |\n"
    assert cells(md) == [(("name", "dob", "city"), [["Ana Lima", "1990-01-02", "Porto"]])]


def test_what_is_not_a_table() -> None:
    assert cells("one line, with, commas") == []
    assert cells("a,b,c\n") == []  # a header and no row
    assert cells("id,name\n1,Ana") == []  # two columns: too few to tell from prose
    assert cells("10,20,30\n1,2,3") == []  # no column names
    # prose with commas: words of a sentence are not column names
    assert cells("Hi Anna, thanks for the call yesterday, see you\nSure, no problem, bye") == []
    assert cells("a,b,c\n1,2") == []  # the row does not fit the header


def test_a_second_header_starts_a_second_table() -> None:
    text = "txn_id,card_last4,zip\nx1,8168,47630\ncustomer_id,full_name,phone\n7,Ana Lima,555\n"
    tables = cells(text)
    assert [t[0] for t in tables] == [("txn_id", "card_last4", "zip"), ("customer_id", "full_name", "phone")]
    assert tables[1][1] == [["7", "Ana Lima", "555"]]


def test_column_view_maps_findings_back_to_cells() -> None:
    text = "id,zip,name\n1,94105,Ana Lima\n"
    view = ColumnView(text, find_tables(text))
    assert view.text == "id: 1\nzip: 94105\nname: Ana Lima\n\n"
    zip_at = view.text.index("94105")
    name_at = view.text.index("Ana")
    found = [
        Finding(zip_at, zip_at + 5, "ZIP_CODE", 0.9, "p"),
        Finding(name_at - 6, name_at + 8, "PERSON", 0.9, "n"),  # reaches into the column name
        Finding(0, 2, "PERSON", 0.9, "n"),  # only in a column name: dropped
    ]
    back = view.back(found)
    assert [(text[f.start : f.end], f.entity, f.detector) for f in back] == [
        ("94105", "ZIP_CODE", "table:p"),
        ("Ana Lima", "PERSON", "table:n"),
    ]


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        (
            "txn_id,amount,currency,card_last4,billing_zip\nab12-cd,443.09,USD,8168,47630\n",
            "txn_id,amount,currency,card_last4,billing_zip\nab12-cd,443.09,USD,[CREDIT_CARD],[ZIP_CODE]\n",
        ),
        (
            "emp_no,last_name,first_name,dob,hire_date\nE95108,Quintero,Esteban,1942-11-10,2018-09-20",
            "emp_no,last_name,first_name,dob,hire_date\nE95108,[PERSON],[PERSON],[DATE_OF_BIRTH],2018-09-20",
        ),
        (
            'id,full_name,zip\n7,"Guo, Xiaoling",742745138\n',
            'id,full_name,zip\n7,"[PERSON]",[ZIP_CODE]\n',
        ),
    ],
)
def test_engine_masks_cells_by_their_column(engine: Scrubber, text: str, masked: str) -> None:
    assert engine.scrub(text).text == masked


def test_a_name_cell_that_goes_on_in_lower_case_names_a_thing(engine: Scrubber) -> None:
    text = (
        "sku,name,price,stock\n"
        "PW-01,Thornbury cling film,12.40,8\n"
        "TT-07,Chelsea oven glove (large),6.99,30\n"
        "ZZ-11,Ludwig van Beethoven,0.00,1\n"
        "ZZ-12,Marta Kowalska,0.00,1\n"
    )
    masked = engine.scrub(text).text
    assert "Thornbury cling film" in masked and "Chelsea oven glove (large)" in masked
    assert "Beethoven" not in masked and "Kowalska" not in masked


def test_tables_without_pii_columns_are_left_alone(engine: Scrubber) -> None:
    text = (
        "order_id,sku,qty,price,shipped\n"
        "9400918441,SKU-1234,2,19.99,2024-10-16\nA151535,X-9,1,5.00,2024-10-17\n"
    )
    assert engine.scrub(text).findings == ()


def test_a_long_table_is_read_again_only_in_the_columns_whose_names_matter(
    engine: Scrubber, monkeypatch: pytest.MonkeyPatch
) -> None:
    from scrubber.detectors import tables

    rows = ["id,status,full_name,email,phone,billing_zip,amount"]
    for i in range(12):
        rows.append(f"{i},ok,Ana Lima,ana{i}@example.com,415-555-01{i:02d},9410{i % 10},{i}.50")
    text = "\n".join(rows)
    table = engine.detectors[-1]
    assert isinstance(table, tables.TableDetector)
    # The view of the rows after the first ones holds the name, phone (its score) and ZIP columns.
    seen: list[str] = []
    run = table._run
    monkeypatch.setattr(table, "_run", lambda view, ctx: seen.append(view.text) or run(view, ctx))
    sampled = engine.scrub(text)
    assert "billing_zip: 94107" in seen[-1] and "email:" not in seen[-1] and "status:" not in seen[-1]
    monkeypatch.setattr(tables, "SAMPLE_ROWS", 1000)
    assert engine.scrub(text) == sampled
    assert sampled.text.count("[ZIP_CODE]") == 12 and sampled.text.count("[PERSON]") == 12


def test_the_inner_detectors_get_the_message_deadline(engine: Scrubber) -> None:
    from scrubber.detectors import MessageContext, TimeBudgetExceeded
    from scrubber.detectors.tables import TableDetector

    table = engine.detectors[-1]
    assert isinstance(table, TableDetector)
    text = "id,full_name,phone\n1,Ana Lima,415-555-0142\n2,Guo Xiaoling,415-555-0199"
    assert table.detect(text, MessageContext())
    with pytest.raises(TimeBudgetExceeded):
        table.detect(text, MessageContext(deadline=time.monotonic() - 1))


def test_an_sql_insert_is_a_table_of_its_columns_and_tuples() -> None:
    text = (
        "db: INSERT INTO members (id, full_name, dob, notes) VALUES "
        "(7, 'Ines Ferreira', '1969-03-21', NULL), (8, 'O''Hara, Tom', '', 'ok');"
    )
    (table,) = find_sql_tables(text)
    assert table.columns == ("id", "full_name", "dob", "notes")
    rows = [[text[c[0] : c[1]] if c else None for c in row] for row in table.rows]
    assert rows == [["7", "Ines Ferreira", "1969-03-21", None], ["8", "O''Hara, Tom", None, "ok"]]


@pytest.mark.parametrize(
    "text",
    [
        "insert into t (a, b) values (1, 2",  # not closed
        "INSERT INTO t (a, b) VALUES (1, 2, 3)",  # a tuple of the wrong width
        "INSERT INTO t VALUES (1, 'x')",  # no column list: nothing names the values
        "please insert into the form (name, date) the values you have",
    ],
)
def test_what_is_not_an_sql_table(text: str) -> None:
    assert find_sql_tables(text) == []


def test_engine_masks_sql_values_by_their_column(engine: Scrubber) -> None:
    text = (
        "INSERT INTO patients (full_name, dob, phone, billing_zip) VALUES "
        "('Makana Kealoha', '1954-07-18', '+64 22 418 3307', '96813'), "
        "('Tang Xiaoyu', '2003-12-01', '+971 52 887 1402', '10115');"
    )
    assert engine.scrub(text).text == (
        "INSERT INTO patients (full_name, dob, phone, billing_zip) VALUES "
        "('[PERSON]', '[DATE_OF_BIRTH]', '[PHONE_NUMBER]', '[ZIP_CODE]'), "
        "('[PERSON]', '[DATE_OF_BIRTH]', '[PHONE_NUMBER]', '[ZIP_CODE]');"
    )
