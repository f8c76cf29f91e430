from dataclasses import replace

import pytest

from schema_search.tables.catalog import Catalog, Column, Description, Table, source_id

from ..conftest import tiny_catalog


def test_json_round_trip_keeps_everything():
    catalog = tiny_catalog()
    described = catalog.with_tables(
        replace(t, description=Description("Text", "fake", "v1", "2026-01-01T00:00:00Z", t.content_hash()))
        for t in catalog.tables
    )
    assert Catalog.from_json(described.to_json()) == described
    assert Catalog.from_json(described.to_json()).source == {"kind": "test"}


def test_table_ids_are_lower_case_and_lookup_is_case_insensitive():
    catalog = tiny_catalog()
    assert [t.id for t in catalog.tables][-1] == "billing.invoicelines"
    assert catalog.table("Billing.InvoiceLines").name == "InvoiceLines"
    assert catalog.table("crm.nope") is None


def test_referencing_lists_incoming_foreign_keys():
    incoming = tiny_catalog().referencing("crm.contacts")
    assert [(t.id, fk.columns) for t, fk in incoming] == [("crm.contact_list_members", ("contact_id",))]


def test_duplicate_table_ids_are_refused():
    with pytest.raises(ValueError, match="twice"):
        Catalog("x", (Table("a", "t"), Table("A", "T")))


def test_content_hash_ignores_the_generated_description():
    table = tiny_catalog().tables[0]
    described = replace(table, description=Description("x", "m", "v1", "now", "h"))
    assert described.content_hash() == table.content_hash()
    assert replace(table, comment="changed").content_hash() != table.content_hash()


def test_sampled_values_round_trip_and_are_written_only_when_there_are_some():
    plain = Table("crm", "accounts", columns=(Column("id", "INTEGER"), Column("name", "TEXT")))
    sampled = replace(plain, columns=(plain.columns[0], replace(plain.columns[1], values=("xmagnet", "Acme"))))
    assert "values" not in plain.to_dict()["columns"][1]  # catalogs without values keep their JSON
    assert sampled.to_dict()["columns"][1]["values"] == ["xmagnet", "Acme"]
    assert "values" not in sampled.to_dict()["columns"][0]
    catalog = Catalog("crm", (sampled,))
    assert Catalog.from_json(catalog.to_json()) == catalog
    # A catalog stored before values existed has no key: its columns read as having none.
    assert Column.from_dict({"name": "name", "type": "TEXT"}).values == ()


def test_content_hash_ignores_the_sampled_values():
    plain = Table("crm", "accounts", columns=(Column("name", "TEXT"),))
    sampled = replace(plain, columns=(Column("name", "TEXT", values=("xmagnet",)),))
    assert sampled.content_hash() == plain.content_hash()


def test_source_ids_are_short_stable_and_distinct():
    ids = {source_id("crm", t.id) for t in tiny_catalog().tables}
    assert len(ids) == 5 and all(len(i) == 7 and i.startswith("T") for i in ids)
    assert source_id("crm", "crm.contacts") != source_id("other", "crm.contacts")
