"""Generated descriptions have a field of their own and weigh only what they add to a question."""

from dataclasses import replace

from schema_search.settings import Settings
from schema_search.tables.catalog import Catalog, Description
from schema_search.tables.documents import embedding_text, table_document
from schema_search.workspace import Workspace

from ..conftest import tiny_catalog

GENERIC = "This table contains information about the {name} and stores records with columns and ids."


def _described(catalog: Catalog, text: str | None = None) -> Catalog:
    tables = tuple(
        replace(
            t,
            description=Description(text or GENERIC.format(name=t.name), "fake", "v1", "2026-12-01", t.content_hash()),
        )
        for t in catalog.tables
    )
    return replace(catalog, tables=tables)


def _ranked(workspace: Workspace, catalog: str, question: str) -> list[tuple[str, float]]:
    return [(c.table, c.score) for c in workspace.catalogs.search(catalog, question, 5).candidates]


def test_descriptions_stay_out_of_the_other_fields_and_the_embedding_text():
    table = _described(tiny_catalog()).tables[0]
    document = table_document(table)
    assert "information" in document.descriptions
    assert "information" not in document.text + document.body + document.names
    assert "information" not in embedding_text(table)


def test_a_description_that_only_repeats_the_names_changes_nothing(tmp_path):
    workspace = Workspace(Settings(home=tmp_path, dense=False))
    workspace.catalogs.index_catalog(tiny_catalog("plain"))
    workspace.catalogs.index_catalog(_described(tiny_catalog("rich")))
    for question in ("contacts of each account", "contact list members", "invoice lines amount"):
        assert _ranked(workspace, "rich", question) == _ranked(workspace, "plain", question), question
    searcher = workspace.catalogs.searcher("rich")
    assert searcher.channels.novelty("contacts of each account", ["descriptions"]) == {"descriptions": 0.0}


def test_a_description_that_says_something_new_is_heard(tmp_path):
    workspace = Workspace(Settings(home=tmp_path, dense=False))
    catalog = tiny_catalog("rich")
    lists = next(t for t in catalog.tables if t.name == "contact_lists")
    saved = replace(lists, description=Description("Saved audiences for newsletter mailings.", "fake", "v1", "", ""))
    workspace.catalogs.index_catalog(replace(catalog, tables=tuple(saved if t is lists else t for t in catalog.tables)))
    assert (
        workspace.catalogs.searcher("rich").channels.novelty("newsletter audiences", ["descriptions"])["descriptions"]
        > 0.5
    )
    assert _ranked(workspace, "rich", "newsletter audiences")[0][0] == "crm.contact_lists"
