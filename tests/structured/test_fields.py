"""fields: column names, type detection, coverage, exact guesses; on inline notes and on real PEPs."""

from __future__ import annotations

import datetime
import email.parser

from schema_search.structured.collection import Collection
from schema_search.structured.fields import Choices, column_name, detect_type, propose_and_validate

from .conftest import PEP_NUMBERS, PEPS


def test_column_names_lower_case_and_collapse_separators() -> None:
    assert column_name("Python-Version") == "python_version"
    assert column_name("BDFL--Delegate ") == "bdfl_delegate"
    assert column_name("2nd-Author") == "f_2nd_author"


def test_types_need_95_percent_of_present_values() -> None:
    assert detect_type("n", [str(i) for i in range(19)] + ["many"]) == "integer"  # 19 of 20 = 95%
    assert detect_type("n", [str(i) for i in range(18)] + ["many", "few"]) == "text"  # 90%
    assert detect_type("created", ["28-Feb-2018", "2020-01-31", " ", ""]) == "date"  # blanks are not present


def test_versions_are_never_numbers() -> None:
    assert detect_type("python_version", ["3.8", "3.10", "2.4"]) == "text"
    assert detect_type("requires", ["2.4", "2.7.1"]) == "text"
    assert detect_type("weight", ["2.4", "3.10"]) == "text"  # 3.10 beside 2.4: a version, whatever the name
    assert detect_type("weight", ["2.4", "3.25", "12"]) == "decimal"


def test_a_repeated_key_is_a_list_column_and_rare_fields_are_dropped_with_their_coverage() -> None:
    headers = [{"Tag": ["a", "b"], "Id": ["1"]}] + [{"Tag": ["c"], "Id": [str(n)]} for n in range(2, 10)]
    headers += [{"Id": ["10"], "Note": ["only one"]}]
    report = propose_and_validate(headers)
    tag = report.field("tag")
    assert tag is not None and tag.list and tag.coverage == 0.9
    assert [(d.name, d.coverage, d.documents) for d in report.dropped] == [("note", 0.1, 1)]
    assert "exclude the rest" in report.dropped[0].reason


def test_choices_override_the_exact_guess() -> None:
    headers = [{"Homepage": ["https://x.dev/"], "Code": ["A1"], "Owner": ["ann"]}] * 5
    report = propose_and_validate(headers, choices=Choices.of(exact=["Owner"], plain=["code"]))
    assert {f.name: f.exact for f in report.fields} == {"code": False, "homepage": True, "owner": True}


def test_front_matter_fields_are_typed_and_lists_kept(notes_collection: Collection) -> None:
    table = notes_collection.table("documents")
    types = {c.name: c.sql_type for c in table.columns}
    assert types["price"] == "DOUBLE" and types["draft"] == "BOOLEAN" and types["created"] == "DATE"
    assert types["version"] == "VARCHAR" and types["tags"] == "VARCHAR[]"
    assert table.column("homepage").exact and table.column("url").exact and not table.column("title").exact
    rows = dict(zip(table.values[2], zip(*table.values)))  # title -> row
    alpha = rows["Alpha"]
    names = [c.name for c in table.columns]
    assert alpha[names.index("version")] == "3.10"  # as written: YAML would have read 3.1
    assert alpha[names.index("created")] == datetime.date(2024, 1, 31)
    assert alpha[names.index("tags")] == ["x", "y"]
    assert [d.name for d in notes_collection.report.dropped] == ["title", "rare"]


def test_pep_fields_agree_with_pythons_own_header_parser(peps_collection: Collection) -> None:
    """Every kept field's values equal what email.parser reads from the same files."""
    table = peps_collection.table("documents")
    names = [c.name for c in table.columns]
    by_pep = {row[names.index("pep")]: row for row in zip(*table.values)}
    assert sorted(by_pep) == list(PEP_NUMBERS)
    kept = [f for f in peps_collection.report.fields if f.type == "text" and not f.list]
    assert {"author", "status", "type", "python_version"} <= {f.name for f in kept}
    for number in PEP_NUMBERS:
        header = (PEPS / "pages" / f"pep-{number:04d}.rst").read_text(encoding="utf-8").split("\n\n", 1)[0]
        parsed = email.parser.HeaderParser().parsestr(header)
        for field in kept:
            expected = parsed.get(field.keys[0])
            expected = " ".join(expected.split()) or None if expected is not None else None  # empty is NULL
            assert by_pep[number][names.index(field.name)] == expected, (number, field.name)
        created = datetime.datetime.strptime(parsed["Created"].strip(), "%d-%b-%Y").date()
        assert by_pep[number][names.index("created")] == created


def test_html_meta_and_toml_front_matter_are_fields_too(tmp_path) -> None:
    from schema_search.structured.sources import corpus_collection

    from .conftest import read

    for n, category in enumerate(["guide", "guide", "reference"]):
        (tmp_path / f"p{n}.html").write_text(
            f'<html><head><title>Page {n}</title><meta name="category" content="{category}">'
            f'<meta name="product-id" content="SKU-{n}"></head><body><h1>Page {n}</h1><p>Text.</p></body></html>'
        )
    (tmp_path / "t.md").write_text('+++\ncategory = "guide"\nweight = 3\n+++\n# Toml\n\nBody.\n')
    collection = corpus_collection(read(tmp_path, "site"))
    table = collection.table("documents")
    names = [c.name for c in table.columns]
    assert "category" in names and table.column("product_id").exact  # an ID: placeholders only
    categories = sorted(table.values[names.index("category")])
    assert categories == ["guide", "guide", "guide", "reference"]


def test_out_of_range_integers_stay_text_and_empty_values_are_absent() -> None:
    assert detect_type("order", ["12345678901234567890", "1"] * 10) == "text"  # beyond BIGINT
    headers = [{"Post-History": [""], "Id": ["1"]}, {"Post-History": ["01-Jan-2020"], "Id": ["2"]}] * 5
    history = propose_and_validate(headers).field("post_history")
    assert history.coverage == 0.5 and history.documents == 5


def test_non_ascii_keys_keep_their_letters() -> None:
    report = propose_and_validate([{"作者": ["张"], "日期": ["2024-01-01"]}] * 3)
    assert {f.name: f.type for f in report.fields} == {"作者": "text", "日期": "date"}
