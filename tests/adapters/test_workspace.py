"""Search over a real (in tmp_path) index of the tiny catalog, through the Workspace."""

import pytest

from schema_search.errors import CatalogNotFound, InvalidInput, PayloadTooLarge, SourceError, TableNotFound
from schema_search.tables.catalog import Catalog, source_id

from ..conftest import tiny_catalog


def test_search_returns_matching_tables_with_ranks_columns_joins_and_ddl(tiny_workspace):
    response = tiny_workspace.catalogs.search("tiny", "Which contacts are on each contact list?", k=3)
    tables = [c.table for c in response.candidates]
    assert set(tables) >= {"crm.contacts", "crm.contact_lists"}
    first = response.candidates[0]
    assert first.channels.keys() == {"names", "text", "body", "descriptions", "values", "dense"}
    assert first.source_id == source_id("tiny", first.table)
    assert "contact" in first.matched_terms
    assert first.ddl.startswith(("CREATE TABLE", "--"))
    members = next(c for c in response.candidates if c.table == "crm.contact_list_members")
    assert {(j.from_table, j.to_table) for j in members.joins} >= {("crm.contact_list_members", "crm.contacts")}


def test_camel_case_identifiers_are_found_by_their_words(tiny_workspace):
    response = tiny_workspace.catalogs.search("tiny", "invoice lines amount", k=1)
    assert response.candidates[0].table == "billing.invoicelines"
    columns = {c.name: c for c in response.candidates[0].columns}
    assert columns["invoiceId"].primary_key and columns["lineNo"].primary_key


def test_no_zero_score_tail(tiny_workspace):
    response = tiny_workspace.catalogs.search("tiny", "industry", k=10)
    assert [c.table for c in response.candidates] == ["crm.accounts"]
    assert tiny_workspace.catalogs.search("tiny", "zebra giraffe", k=10).candidates == []


def test_table_lookup_by_id_name_and_source_id(tiny_workspace):
    by_id = tiny_workspace.catalogs.table("tiny", "crm.contacts")
    assert tiny_workspace.catalogs.table("tiny", "contacts") == by_id
    assert tiny_workspace.catalogs.table("tiny", by_id.source_id) == by_id
    assert [r.from_table for r in by_id.referenced_by] == ["crm.contact_list_members"]
    with pytest.raises(TableNotFound):
        tiny_workspace.catalogs.table("tiny", "crm.nope")


@pytest.mark.parametrize(
    ("question", "k", "error"),
    [
        ("", 5, InvalidInput),
        ("   ", 5, InvalidInput),
        ("x" * 5000, 5, PayloadTooLarge),
        ("ok", 0, InvalidInput),
        ("ok", 101, InvalidInput),
    ],
)
def test_bad_requests_are_refused(tiny_workspace, question, k, error):
    with pytest.raises(error):
        tiny_workspace.catalogs.search("tiny", question, k)


def test_unknown_catalog(tiny_workspace):
    with pytest.raises(CatalogNotFound):
        tiny_workspace.catalogs.search("nope", "contacts")


def test_reindex_swaps_in_new_generation_and_searchers_follow(tiny_workspace):
    before = tiny_workspace.catalogs.search("tiny", "industry").candidates
    assert before
    smaller = Catalog("tiny", tiny_catalog().tables[1:])
    tiny_workspace.catalogs.index_catalog(smaller)
    assert tiny_workspace.catalogs.search("tiny", "industry").candidates == []


def test_empty_catalog_is_refused_and_the_old_one_stays(tiny_workspace):
    with pytest.raises(SourceError):
        tiny_workspace.catalogs.index_catalog(Catalog("tiny", ()))
    assert tiny_workspace.catalogs.search("tiny", "industry").candidates


def test_catalogs_lists_counts(tiny_workspace):
    [info] = tiny_workspace.catalogs.infos()
    assert (info.name, info.tables, info.views) == ("tiny", 5, 0)
