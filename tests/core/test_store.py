import json
import os

import pytest

from schema_search.core.store import FORMAT, Shelf, Store, _exclusive
from schema_search.errors import Busy, CatalogNotFound, IndexUnreadable, InvalidInput

SHELF = Shelf("catalogs", "catalog", CatalogNotFound, "schemasift index SOURCE --catalog {name}")


def _build(path):
    (path / "index").mkdir()
    return {}


def test_write_swaps_generations_and_keeps_one_previous(tmp_path):
    store = Store(tmp_path, SHELF)
    first = store.write("crm", _build)
    second = store.write("crm", _build)
    third = store.write("crm", _build)
    assert store.current("crm").id == third.id
    remaining = sorted(p.name for p in (tmp_path / "catalogs" / "crm").glob("gen-*"))
    assert remaining == sorted([second.id, third.id])
    assert not first.path.exists()
    assert third.manifest()["format"] == FORMAT and third.manifest()["catalog"] == "crm"


def test_crash_mid_build_leaves_previous_generation_live(tmp_path):
    store = Store(tmp_path, SHELF)
    live = store.write("crm", lambda path: (path / "items.json").write_text("[1]") and {})

    def crash(path):
        (path / "index").mkdir()
        raise RuntimeError("power cut")

    with pytest.raises(RuntimeError):
        store.write("crm", crash)
    assert store.current("crm").id == live.id
    assert (store.current("crm").path / "items.json").read_text() == "[1]"
    # The next writer clears the half-built generation.
    newest = store.write("crm", _build)
    assert {p.name for p in (tmp_path / "catalogs" / "crm").glob("gen-*")} == {live.id, newest.id}


def test_second_writer_is_refused_while_one_holds_the_lock(tmp_path):
    store = Store(tmp_path, SHELF)
    store.write("crm", _build)
    with _exclusive(tmp_path / "catalogs" / "crm" / ".lock", "crm"):
        with pytest.raises(Busy, match="being indexed"):
            store.write("crm", _build)


def test_unknown_name_lists_the_known_ones_and_the_command_that_creates_one(tmp_path):
    store = Store(tmp_path, SHELF)
    store.write("crm", _build)
    with pytest.raises(CatalogNotFound, match="nope") as error:
        store.current("nope")
    assert "crm" in error.value.hint and "schemasift index SOURCE --catalog nope" in error.value.hint


@pytest.mark.parametrize("name", ["", "../etc", "UPPER", "a/b", "x" * 65, ".hidden"])
def test_bad_names_are_refused(tmp_path, name):
    with pytest.raises(InvalidInput):
        Store(tmp_path, SHELF).current(name)
    assert not (tmp_path / "catalogs").exists() or os.listdir(tmp_path / "catalogs") == []


def test_an_unreadable_generation_names_the_command_that_rebuilds_it(tmp_path):
    store = Store(tmp_path, SHELF)
    store.write("crm", _build)

    def opener(generation):
        raise ValueError("Failed to open index")

    with pytest.raises(IndexUnreadable, match="cannot be opened") as error:
        store.open("crm", opener)
    assert "schemasift index SOURCE --catalog crm" in error.value.hint


def test_a_generation_from_a_newer_release_is_refused_clearly(tmp_path):
    store = Store(tmp_path, SHELF)
    live = store.write("crm", _build)
    manifest = live.manifest() | {"format": FORMAT + 1}
    (live.path / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(IndexUnreadable, match="newer release"):
        store.open("crm", lambda generation: generation)
