"""tools: what an agent is handed (IDs to cite, trimmed DDL for wide tables, fenced schema text)."""

from __future__ import annotations

from pathlib import Path

from schema_search.settings import Settings
from schema_search.tables.catalog import Catalog, Column, ForeignKey, Table, source_id
from schema_search.tools.citations import Ledger
from schema_search.tools.fence import fence
from schema_search.tools.tables import WIDE_TABLE_COLUMNS, SchemaTools, SearchTablesResult, search_text, table_text
from schema_search.workspace import Workspace


def wide_tools(tmp_path: Path) -> SchemaTools:
    filler = tuple(Column(f"attribute_{i:02d}", "TEXT") for i in range(WIDE_TABLE_COLUMNS + 10))
    customers = Table("crm", "customers", columns=(Column("id", "INT"), Column("name", "TEXT")), primary_key=("id",))
    invoices = Table(
        "billing",
        "invoices",
        columns=(Column("id", "INT"), Column("customer_id", "INT"), Column("due_date", "DATE"), *filler),
        primary_key=("id",),
        foreign_keys=(ForeignKey(("customer_id",), "crm.customers", ("id",)),),
    )
    workspace = Workspace(Settings(home=tmp_path, dense=False))
    workspace.catalogs.index_catalog(Catalog("wide", (customers, invoices)))
    return SchemaTools(workspace, "wide")


def test_wide_tables_show_keys_and_the_columns_the_question_touches(tmp_path: Path) -> None:
    tools = wide_tools(tmp_path)
    result = tools.search_tables("invoices by due date", 5, Ledger())
    hit = next(h for h in result.tables if h.table == "billing.invoices")
    assert (hit.columns_shown, hit.columns_total) == (3, WIDE_TABLE_COLUMNS + 13)
    assert "due_date DATE" in hit.ddl and "customer_id INT" in hit.ddl and "attribute_00" not in hit.ddl
    assert f"showing 3 of {WIDE_TABLE_COLUMNS + 13} columns; get_table {hit.source_id} for all" in search_text(result)
    detail = tools.get_table(hit.source_id, Ledger()).detail
    assert "attribute_00 TEXT" in detail.ddl


def test_ids_are_recorded_only_when_handed_out(tmp_path: Path) -> None:
    tools = wide_tools(tmp_path)
    ledger = Ledger()
    customers = source_id("wide", "crm.customers")
    assert ledger.resolve(f"[{customers}]").fabricated == [customers]
    tools.get_table("crm.customers", ledger)
    assert ledger.resolve(f"[{customers}]").text == "[crm.customers]"


def test_every_piece_of_schema_text_is_inside_a_fence(tmp_path: Path) -> None:
    tools = wide_tools(tmp_path)
    text = table_text(tools.get_table("billing.invoices", Ledger()))
    assert text.index('<schema-data origin="database DDL and comments">') < text.index("CREATE TABLE billing.invoices")
    assert (
        fence("a <SCHEMA-DATA origin=x> b", "model")
        == '<schema-data origin="model">\na &lt;SCHEMA-DATA origin=x> b\n</schema-data>'
    )


def test_off_topic_questions_say_so() -> None:
    empty = SearchTablesResult(catalog="wide", question="zebra migration", off_topic=True, notice="", tables=[])
    assert search_text(empty) == "Nothing in catalog 'wide' relates to 'zebra migration'. Try other words, or say so."


def test_stored_values_the_question_names_are_shown_inside_the_fence(tmp_path: Path) -> None:
    filler = tuple(Column(f"attribute_{i:02d}", "TEXT") for i in range(WIDE_TABLE_COLUMNS + 10))
    tickets = Table(
        "support",
        "tickets",
        columns=(Column("id", "INT"), Column("priority", "TEXT", values=("normal", "urgent", "O'Neil")), *filler),
        primary_key=("id",),
    )
    workspace = Workspace(Settings(home=tmp_path, dense=False))
    workspace.catalogs.index_catalog(Catalog("desk", (tickets,)))
    result = SchemaTools(workspace, "desk").search_tables("urgent tickets for o'neil", 5, Ledger())
    hit = result.tables[0]
    assert [m.model_dump() for m in hit.matched_values] == [{"column": "priority", "values": ["urgent", "O'Neil"]}]
    assert "priority TEXT" in hit.ddl and "attribute_00" not in hit.ddl  # a wide table shows the matched column
    text = search_text(result)
    fenced = text[text.index("<schema-data") : text.index("</schema-data>")]
    assert "-- stored value: priority = 'urgent'\n-- stored value: priority = 'O''Neil'" in fenced
    assert "normal" not in text  # only the values the question names, never the whole sample
