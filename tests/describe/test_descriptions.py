"""Descriptions files (the resumable cache, the committed data file) and the prompt."""

from __future__ import annotations

import json
from dataclasses import replace

from schema_search.describe.descriptions import (
    DescriptionLog,
    apply_descriptions,
    read_descriptions,
    without_descriptions,
    write_descriptions,
)
from schema_search.describe.prompt import MAX_PROMPT_COLUMNS, prompt_messages
from schema_search.tables.catalog import Catalog, Column, Description, ForeignKey, Table
from schema_search.tables.documents import table_document

from ..conftest import tiny_catalog


def described(catalog: Catalog) -> Catalog:
    return catalog.with_tables(
        replace(t, description=Description(f"About {t.name}.", "m", "v1", "2025-01-01T00:00:00Z", t.content_hash()))
        for t in catalog.tables
    )


def test_write_read_apply_round_trip(tmp_path):
    catalog = described(tiny_catalog())
    path = tmp_path / "d.jsonl"
    assert write_descriptions(path, catalog) == 5
    first = json.loads(path.read_text().splitlines()[0])
    assert set(first) == {"table", "text", "model", "prompt_version", "generated_at", "content_hash"}
    assert apply_descriptions(without_descriptions(catalog), read_descriptions(path)) == catalog


def test_a_changed_table_does_not_get_a_stale_description(tmp_path):
    catalog = described(tiny_catalog())
    path = tmp_path / "d.jsonl"
    write_descriptions(path, catalog)
    bare = without_descriptions(catalog)
    accounts = bare.table("crm.accounts")
    changed = bare.with_tables(
        replace(t, columns=(*t.columns, Column("tier"))) if t is accounts else t for t in bare.tables
    )
    applied = apply_descriptions(changed, read_descriptions(path))
    assert applied.table("crm.accounts").description is None
    assert applied.table("crm.contacts").description.text == "About contacts."


def test_the_log_survives_a_torn_line_and_later_lines_win(tmp_path):
    table = tiny_catalog().table("crm.accounts")
    log = DescriptionLog(tmp_path / "cache.jsonl")
    log.append(table.id, Description("Old.", "m", "v1", "2025-01-01T00:00:00Z", table.content_hash()))
    log.append(table.id, Description("New.", "m", "v1", "2025-01-02T00:00:00Z", table.content_hash()))
    with log.path.open("a") as handle:
        handle.write('{"table": "crm.contacts", "te')  # a crash mid-write
    found = read_descriptions(log.path)
    assert [d.text for d in found.values()] == ["New."]
    log.compact(((table.id, found[(table.id, table.content_hash())]),))
    assert len(log.path.read_text().splitlines()) == 1
    assert read_descriptions(tmp_path / "missing.jsonl") == {}


def test_descriptions_go_to_their_own_field_only():
    table = described(tiny_catalog()).table("crm.contact_lists")
    document = table_document(table)
    # Text fields hold plain words (documents.py splits punctuation and identifiers).
    assert "about contact lists" in document.descriptions
    assert not any("about" in getattr(document, f) for f in ("names", "text", "body"))


def test_prompt_has_the_ddl_the_references_and_trims_wide_tables():
    wide = Table(
        "s",
        "wide",
        columns=tuple(Column(f"c{i}", "INT", comment="x" * 500) for i in range(100)) + (Column("ref_id", "INT"),),
        primary_key=("c0",),
        foreign_keys=(ForeignKey(("ref_id",), "s.other", ("id",)),),
        comment="A very wide table.",
    )
    system, user = prompt_messages(wide, "Referenced by: s.child (wide_id).")
    assert system["role"] == "system" and user["role"] == "user"
    text = user["content"]
    assert "CREATE TABLE s.wide" in text and "Referenced by: s.child (wide_id)." in text
    assert f"c{MAX_PROMPT_COLUMNS - 1} INT" in text and f"c{MAX_PROMPT_COLUMNS} INT" not in text
    assert "ref_id INT" in text  # keys stay even past the column limit
    assert len(text) < 8000 and "x" * 100 not in text
