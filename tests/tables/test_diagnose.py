"""IDF-collapse diagnostic: a verbose description pass spreads words over every table."""

import json
from dataclasses import replace

import pytest

from schema_search.cli import main
from schema_search.settings import Settings
from schema_search.tables import diagnose
from schema_search.tables.catalog import Description
from schema_search.workspace import Workspace

from ..conftest import tiny_catalog


def described(catalog, template="This table stores information about {}."):
    """Every table gets the kind of description a small model writes: the same words everywhere."""
    return catalog.with_tables(
        replace(t, description=Description(template.format(t.name), "fake", "v1", "2024-01-01", t.content_hash()))
        for t in catalog.tables
    )


def test_words_spread_by_descriptions_are_flagged_after_not_before():
    result = diagnose.diagnose(described(tiny_catalog()), ["stores", "information", "amount"])
    rows = {(r.term, r.field): r for r in result.rows}
    n = len(tiny_catalog().tables)
    store = rows[("store", "descriptions")]
    assert (store.before, store.after, store.documents) == (0, n, n)
    # Descriptions have a field of their own: the other fields keep their statistics.
    assert store.collapsed and not any(rows[("store", f)].collapsed for f in ("names", "text", "body"))
    assert store.idf_after == pytest.approx(diagnose.idf(n, n)) and store.idf_after < store.idf_before
    warnings = result.warnings()
    assert any(
        "'stores' (term 'store')" in w and "descriptions documents after enrichment (before: 0)" in w for w in warnings
    )
    assert not any("'amount'" in w for w in warnings)  # in 1 of 5 documents: still telling


def test_idf_is_bm25s():
    # tantivy / Lucene: ln(1 + (N - df + 0.5) / (df + 0.5))
    import math

    assert diagnose.idf(3, 10) == pytest.approx(math.log(1 + (10 - 3 + 0.5) / (3 + 0.5)))


def test_stop_words_are_reported_as_not_indexed():
    result = diagnose.diagnose(tiny_catalog(), ["the", "email"])
    assert result.unindexed == ("the",) and {r.term for r in result.rows} == {"email"}


def test_question_words_and_question_files(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text('{"question": "Which contacts opened an email?"}\nWhich contacts bought?\n\n')
    questions = diagnose.read_questions(path)
    assert questions == ["Which contacts opened an email?", "Which contacts bought?"]
    assert diagnose.question_words(questions, top=1) == ["contacts"]


def test_widespread_words_find_what_the_descriptions_repeat():
    catalog = described(tiny_catalog(), "Each row represents information stored about {}.")
    spread = diagnose.widespread_words(catalog, top=8)
    assert {"store", "inform", "repres"} <= set(spread)
    rows = diagnose.diagnose(catalog, spread, analysed=True).rows
    assert {r.term: r.after for r in rows if r.field == "descriptions"}["repres"] == len(catalog.tables)


def test_cli_diagnose_without_words_checks_the_widespread_ones(home, capsys):
    assert main(["diagnose", "--catalog", "crm", "--top", "4"]) == 0
    out = capsys.readouterr().out
    assert "Checking the 4 terms in the most table documents" in out and "warning: 'store'" in out


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("SCHEMA_SEARCH_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("SCHEMA_SEARCH_DENSE", "false")
    Workspace(Settings()).catalogs.index_catalog(described(tiny_catalog("crm")))
    return tmp_path


def test_cli_diagnose_warns(home, capsys):
    assert main(["diagnose", "--catalog", "crm", "--words", "store,information,email"]) == 0
    out = capsys.readouterr().out
    assert "5 with a generated description" in out and "COLLAPSED" in out
    assert "warning: 'store' (term 'store') is in 5 of 5 descriptions documents after enrichment" in out


def test_cli_diagnose_json_from_questions(home, capsys):
    questions = home / "q.jsonl"
    questions.write_text('{"question": "Which table stores contact information?"}\n')
    assert main(["diagnose", "--catalog", "crm", "--questions", str(questions), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert {r["term"] for r in report["rows"]} >= {"store", "inform", "contact"}
    assert report["warnings"]


def test_cli_diagnose_unknown_catalog(home, capsys):
    assert main(["diagnose", "--catalog", "nope"]) == 1
    assert "No catalog named 'nope'" in capsys.readouterr().err
