"""Past queries kept with a catalog: added, checked, searched next to the tables, carried across a re-index."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from schema_search.cli import main
from schema_search.errors import InvalidInput
from schema_search.http import create_app
from schema_search.settings import Settings
from schema_search.tables.models import ExampleInput
from schema_search.tools.citations import Ledger
from schema_search.tools.tables import SchemaTools, search_text
from schema_search.workspace import Workspace

from ..conftest import tiny_catalog

NEWSLETTER = ExampleInput(
    question="who is on the spring newsletter?",
    sql=(
        "SELECT c.email FROM crm.contacts c JOIN crm.contact_list_members m ON m.contact_id = c.id "
        "JOIN crm.contact_lists l ON l.id = m.list_id WHERE l.title = 'spring'"
    ),
)


@pytest.fixture
def crm(tmp_path) -> Workspace:
    workspace = Workspace(Settings(home=tmp_path / "home", embedding_threads=1))
    workspace.catalogs.index_catalog(tiny_catalog())
    return workspace


def test_the_tables_of_a_past_query_rank_for_a_question_in_other_words(crm):
    before = crm.catalogs.search("tiny", "which people get the autumn mailing?", 3)
    added = crm.catalogs.add_examples("tiny", [NEWSLETTER])
    assert added.added == 1
    assert added.examples[0].tables == ["crm.contact_list_members", "crm.contact_lists", "crm.contacts"]
    after = crm.catalogs.search("tiny", "which people get the autumn mailing?", 3)
    assert [e.id for e in after.examples] == [added.examples[0].id]
    assert {c.table for c in after.candidates} == set(added.examples[0].tables)
    assert {c.table for c in before.candidates} != set(added.examples[0].tables)
    assert all(c.channels["examples"] is not None for c in after.candidates)


def test_an_unrelated_question_gets_no_past_query(crm):
    crm.catalogs.add_examples("tiny", [NEWSLETTER])
    assert crm.catalogs.search("tiny", "invoice line amounts", 3).examples == []


def test_a_pair_is_kept_once_and_survives_a_reindex_while_its_tables_do(crm):
    crm.catalogs.add_examples("tiny", [NEWSLETTER])
    assert crm.catalogs.add_examples("tiny", [NEWSLETTER]).added == 0
    crm.catalogs.index_catalog(tiny_catalog())
    assert len(crm.catalogs.examples("tiny")) == 1
    smaller = tiny_catalog()
    crm.catalogs.index_catalog(type(smaller)("tiny", smaller.tables[:2], source=smaller.source))
    assert crm.catalogs.examples("tiny") == []  # its list tables are gone


def test_a_bad_pair_is_refused_naming_it_and_nothing_is_kept(crm):
    good = ExampleInput(question="emails", sql="SELECT email FROM crm.contacts")
    with pytest.raises(InvalidInput, match=r"Example 2 .*nope"):
        crm.catalogs.add_examples("tiny", [good, ExampleInput(question="x", sql="SELECT * FROM nope")])
    with pytest.raises(InvalidInput, match="Example 1 .*not_a_table"):
        crm.catalogs.add_examples("tiny", [ExampleInput(question="x", sql="SELECT 1", tables=["not_a_table"])])
    with pytest.raises(InvalidInput, match="Only one statement"):
        crm.catalogs.add_examples("tiny", [ExampleInput(question="x", sql="SELECT 1; DELETE FROM crm.contacts")])
    assert crm.catalogs.examples("tiny") == []


def test_http_adds_lists_and_refuses_with_a_problem(crm):
    client = TestClient(create_app(workspace=crm))
    body = {"examples": [NEWSLETTER.model_dump(exclude_none=True)]}
    assert client.post("/v1/catalogs/tiny/examples", json=body).json()["added"] == 1
    assert len(client.get("/v1/catalogs/tiny/examples").json()["examples"]) == 1
    refused = client.post("/v1/catalogs/tiny/examples", json={"examples": [{"question": "x", "sql": "SELEC"}]})
    assert refused.status_code == 422 and refused.headers["content-type"] == "application/problem+json"
    assert "Example 1" in refused.json()["detail"]


def test_http_needs_the_admin_key_where_the_server_sets_one(crm):
    settings = Settings(home=crm.settings.home, admin_key="k3y", embedding_threads=1)
    client = TestClient(create_app(workspace=Workspace(settings)))
    body = {"examples": [NEWSLETTER.model_dump(exclude_none=True)]}
    assert client.post("/v1/catalogs/tiny/examples", json=body).status_code == 403
    assert client.post("/v1/catalogs/tiny/examples", json=body, headers={"X-Admin-Key": "k3y"}).status_code == 200


def test_cli_adds_from_json_lines_and_names_a_bad_line(crm, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SCHEMA_SEARCH_HOME", str(crm.settings.home))
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(json.dumps(NEWSLETTER.model_dump(exclude_none=True)) + "\n")
    assert main(["examples", "add", str(pairs), "--catalog", "tiny"]) == 0
    assert "1 new past queries" in capsys.readouterr().out
    assert main(["examples", "list", "--catalog", "tiny"]) == 0
    assert "spring newsletter" in capsys.readouterr().out
    pairs.write_text('{"question": "x", "sql": "SELECT 1"}\n{"question": oops}\n')
    assert main(["examples", "add", str(pairs), "--catalog", "tiny"]) == 1
    assert "line 2" in capsys.readouterr().err


def test_agents_see_past_queries_fenced_as_data(crm):
    crm.catalogs.add_examples("tiny", [NEWSLETTER])
    result = SchemaTools(crm, "tiny").search_tables("which people get the autumn mailing?", 3, Ledger())
    text = search_text(result)
    assert "Past queries" in text and '<schema-data origin="past query E' in text and "spring newsletter" in text
