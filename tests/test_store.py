import os

import pytest

from schema_search.errors import Busy, CatalogNotFound, InvalidInput
from schema_search.store import Store, _exclusive

from .conftest import tiny_catalog


def _build(path):
    (path / "index").mkdir()
    return {}


def test_write_swaps_generations_and_keeps_one_previous(tmp_path):
    store = Store(tmp_path)
    first = store.write(tiny_catalog("crm"), _build)
    second = store.write(tiny_catalog("crm"), _build)
    third = store.write(tiny_catalog("crm"), _build)
    assert store.current("crm").id == third.id
    remaining = sorted(p.name for p in (tmp_path / "catalogs" / "crm").glob("gen-*"))
    assert remaining == sorted([second.id, third.id])
    assert not first.path.exists()


def test_crash_mid_build_leaves_previous_generation_live(tmp_path):
    store = Store(tmp_path)
    live = store.write(tiny_catalog("crm"), _build)

    def crash(path):
        (path / "index").mkdir()
        raise RuntimeError("power cut")

    with pytest.raises(RuntimeError):
        store.write(tiny_catalog("crm"), crash)
    assert store.current("crm").id == live.id
    assert store.current("crm").load_catalog() == tiny_catalog("crm")
    # The next writer clears the half-built generation.
    newest = store.write(tiny_catalog("crm"), _build)
    assert {p.name for p in (tmp_path / "catalogs" / "crm").glob("gen-*")} == {live.id, newest.id}


def test_second_writer_is_refused_while_one_holds_the_lock(tmp_path):
    store = Store(tmp_path)
    store.write(tiny_catalog("crm"), _build)
    with _exclusive(tmp_path / "catalogs" / "crm" / ".lock", "crm"):
        with pytest.raises(Busy):
            store.write(tiny_catalog("crm"), _build)


def test_unknown_catalog_names_the_known_ones(tmp_path):
    store = Store(tmp_path)
    store.write(tiny_catalog("crm"), _build)
    with pytest.raises(CatalogNotFound, match="nope") as error:
        store.current("nope")
    assert "crm" in error.value.hint


@pytest.mark.parametrize("name", ["", "../etc", "UPPER", "a/b", "x" * 65, ".hidden"])
def test_bad_catalog_names_are_refused(tmp_path, name):
    with pytest.raises(InvalidInput):
        Store(tmp_path).current(name)
    assert not (tmp_path / "catalogs").exists() or os.listdir(tmp_path / "catalogs") == []
