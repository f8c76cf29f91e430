"""A sealed catalog: its names, comments and values unreadable in its files, the same tables found as in plain text."""

from __future__ import annotations

import json
import os
import re
import shutil

import pytest

from schema_search.errors import IndexUnreadable, KeyUnavailable
from schema_search.settings import Settings
from schema_search.tables.documents import FIELDS
from schema_search.tables.models import ExampleInput
from schema_search.tables.search import CATALOG_FILE
from schema_search.workspace import Workspace

from ..conftest import REPO
from ..shop_db import make_shop_db

CASES = REPO / "sample_schemas" / "shop_cases.jsonl"
PAIR = ExampleInput(question="which parcels went out with DHL", sql="SELECT * FROM shipments WHERE carrier = 'DHL'")


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    """The shop database indexed twice in one run: in plain text, and sealed; a past query kept with each."""
    root = tmp_path_factory.mktemp("sealed-catalog")
    database = make_shop_db(root / "shop.db")
    kek = root / "kek.bin"
    kek.write_bytes(os.urandom(32))
    plain = Workspace(Settings(home=root / "plain", embedding_threads=1))
    sealed = Workspace(Settings(home=root / "sealed", embedding_threads=1, kek_file=kek))
    for workspace in (plain, sealed):
        workspace.catalogs.index(f"sqlite:///{database}", catalog="shop")
        workspace.catalogs.add_examples("shop", [PAIR])
    return plain, sealed, root


def questions() -> list[str]:
    return [json.loads(line)["question"] for line in CASES.read_text().splitlines() if line.strip()]


def test_top_tables_are_identical_to_the_plain_catalog(pair):
    plain, sealed, _ = pair
    for question in [*questions(), "which parcels went out with DHL", "how do I bake bread"]:
        expected = plain.catalogs.search("shop", question, 10)
        got = sealed.catalogs.search("shop", question, 10)
        assert [c.model_dump() for c in got.candidates] == [c.model_dump() for c in expected.candidates], question
        assert [e.id for e in got.examples] == [e.id for e in expected.examples]


def test_no_table_column_or_sampled_value_is_readable_in_the_sealed_files(pair):
    plain, _, root = pair
    catalog = plain.catalogs.catalog("shop")
    names = {t.name for t in catalog.tables} | {c.name for t in catalog.tables for c in t.columns}
    # Distinctive ones: not a key column, nor a word of the index's own field names (``descriptions``).
    names = {n for n in names if len(n) >= 5 and not re.fullmatch(r"[a-z]+_id", n) and not any(n in f for f in FIELDS)}
    blobs = b"".join(p.read_bytes() for p in (root / "sealed").rglob("*") if p.is_file())
    plain_blobs = b"".join(p.read_bytes() for p in (root / "plain").rglob("*") if p.is_file())
    assert len(names) >= 10
    assert [n for n in names if n.encode() in blobs] == []
    assert all(n.encode() in plain_blobs for n in names)  # the reference: the check can find them
    assert b"DHL" not in blobs and b"DHL" in plain_blobs  # the past query's SQL


def test_sql_checks_and_tables_read_the_decrypted_catalog(pair):
    plain, sealed, _ = pair
    assert sealed.catalogs.catalog("shop") == plain.catalogs.catalog("shop")
    assert sealed.catalogs.table("shop", "shipments") == plain.catalogs.table("shop", "shipments")
    assert sealed.catalogs.fields("shop") == plain.catalogs.fields("shop")


def test_a_sealed_catalog_without_its_key_is_a_clear_error(pair):
    _, _, root = pair
    with pytest.raises(KeyUnavailable, match="catalog 'shop' is stored encrypted"):
        Workspace(Settings(home=root / "sealed", dense=False)).catalogs.search("shop", "parcels")


def _sealed_copy(pair, tmp_path):
    plain, sealed, root = pair
    copy = tmp_path / "home"
    shutil.copytree(root / "sealed", copy)
    folder = copy / sealed.catalogs.store.current("shop").path.relative_to(root / "sealed")
    keyed = Workspace(Settings(home=copy, dense=False, kek_file=sealed.settings.kek_file))
    return plain, folder, keyed


def test_a_plain_catalog_swapped_into_a_sealed_generation_is_refused(pair, tmp_path):
    plain, folder, keyed = _sealed_copy(pair, tmp_path)
    shutil.copyfile(plain.catalogs.store.current("shop").path / CATALOG_FILE, folder / CATALOG_FILE)
    with pytest.raises(IndexUnreadable, match="plain text in a sealed generation") as error:
        keyed.catalogs.catalog("shop")
    assert "damaged or was tampered with" in str(error.value) and "Re-index" in error.value.hint


def test_a_changed_byte_in_a_sealed_catalog_is_a_clear_error(pair, tmp_path):
    _, folder, keyed = _sealed_copy(pair, tmp_path)
    data = bytearray((folder / CATALOG_FILE).read_bytes())
    data[len(data) // 2] ^= 0x01
    (folder / CATALOG_FILE).write_bytes(bytes(data))
    with pytest.raises(IndexUnreadable, match="does not open .*damaged or was tampered with"):
        keyed.catalogs.search("shop", "parcels")
