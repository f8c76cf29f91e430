"""What a crashed writer leaves, and who clears it: the store's sweep, and real SIGKILLs of `schemasift index`."""

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from schema_search.core.store import CURRENT, Shelf, Store, _exclusive
from schema_search.errors import CatalogNotFound

SHELF = Shelf("catalogs", "catalog", CatalogNotFound, "schemasift index SOURCE --catalog {name}")
# Sorts after any generation the store names now: the newest folder, as the old sweep saw it.
LATE = "gen-99991231T235959-999999999"


def _build(path):
    (path / "index").mkdir()
    (path / "index" / "segment").write_bytes(b"x" * 100)
    return {}


def _generations(store, name="crm"):
    return {p.name for p in (store.root / name).glob("gen-*")}


def _built_but_never_live(folder: Path, name: str = LATE) -> Path:
    """A complete generation whose writer died between its manifest and the swap."""
    path = folder / name
    (path / "index").mkdir(parents=True)
    (path / "manifest.json").write_text(json.dumps({"format": 2, "catalog": "crm"}))
    return path


def test_a_generation_that_never_went_live_is_not_kept_as_the_previous_one(tmp_path):
    store = Store(tmp_path, SHELF)
    store.write("crm", _build)
    previous = store.write("crm", _build)
    _built_but_never_live(store.root / "crm")
    live = store.write("crm", _build)
    # Readers may still be on `previous`; nobody ever read the never-live one.
    assert _generations(store) == {previous.id, live.id}
    assert live.manifest()["previous"] == previous.id


def test_a_killed_first_build_is_not_listed_and_the_next_build_clears_it(tmp_path):
    store = Store(tmp_path, SHELF)
    folder = store.root / "crm"
    _built_but_never_live(folder)
    (folder / "gen-20250101T000000-000000001").mkdir()  # half-built: no manifest
    (folder / f"{CURRENT}.tmp").write_text(LATE + "\n")
    assert store.names() == []
    live = store.write("crm", _build)
    assert store.names() == ["crm"]
    assert {p.name for p in folder.iterdir()} == {CURRENT, ".lock", live.id}


def test_a_pointer_to_a_missing_generation_is_not_listed(tmp_path):
    store = Store(tmp_path, SHELF)
    store.write("crm", _build)
    (store.root / "broken").mkdir()
    (store.root / "broken" / CURRENT).write_text("gen-gone\n")
    assert store.names() == ["crm"]


def test_tidy_clears_what_crashes_left_unless_a_writer_holds_the_collection(tmp_path):
    store = Store(tmp_path, SHELF)
    previous = store.write("crm", _build)
    live = store.write("crm", _build)
    folder = store.root / "crm"
    half = folder / "gen-20250101T000000-000000001"
    (half / "index").mkdir(parents=True)
    (half / "index" / "segment").write_bytes(b"y" * 1000)
    (half / "manifest.json.tmp").write_text("{")  # killed while writing the manifest
    (folder / f"{CURRENT}.tmp").write_text("x\n")
    with _exclusive(folder / ".lock", "crm"):
        assert store.tidy() == 0  # a writer is busy there: not touched
    assert half.exists()
    assert store.tidy() == 1000 + 1 + 2
    assert {p.name for p in folder.iterdir()} == {CURRENT, ".lock", previous.id, live.id}


def test_a_delete_cut_short_leaves_the_collection_gone_and_its_files_swept(tmp_path):
    store = Store(tmp_path, SHELF)
    store.write("crm", _build)
    # What a delete killed after its rename leaves: a renamed-away folder.
    os.replace(store.root / "crm", store.root / ".deleted-crm-1")
    assert store.names() == []
    store.write("shop", _build)
    assert sorted(p.name for p in store.root.iterdir()) == ["shop"]


def test_a_writer_waits_for_a_brief_holder_instead_of_reporting_busy(tmp_path):
    store = Store(tmp_path, SHELF)
    store.write("crm", _build)
    held = threading.Event()

    def tidy_like():
        with _exclusive(store.root / "crm" / ".lock", "crm"):
            held.set()
            time.sleep(0.2)

    holder = threading.Thread(target=tidy_like)
    holder.start()
    held.wait()
    store.write("crm", _build)
    holder.join()


WRITER = """
import sys, time
from pathlib import Path
from schema_search.core.store import Shelf, Store
from schema_search.errors import CatalogNotFound

def build(path):
    (path / "index").mkdir()
    (path / "index" / "segment").write_bytes(b"z" * 10_000)
    print("building", flush=True)
    time.sleep(30)
    return {}

Store(Path(sys.argv[1]), Shelf("catalogs", "catalog", CatalogNotFound, "")).write("crm", build)
"""


def test_a_writer_killed_mid_build_blocks_nothing_and_leaves_nothing_after_the_next_build(tmp_path):
    store = Store(tmp_path, SHELF)
    previous = store.write("crm", _build)
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path)], stdout=subprocess.PIPE)
    assert writer.stdout.readline() == b"building\n"
    os.kill(writer.pid, signal.SIGKILL)
    writer.wait()
    assert store.current("crm").id == previous.id
    live = store.write("crm", _build)  # not Busy: the kernel dropped the dead writer's flock
    assert {p.name for p in (tmp_path / "catalogs" / "crm").iterdir()} == {CURRENT, ".lock", previous.id, live.id}


def test_sigkills_of_the_real_index_command_at_random_moments():
    from eval.reliability import crash

    # BM25 only (dense_share=0) and a tenth of the sizes: a few seconds.
    part = crash.run(kills=4, kinds=("tables", "corpora"), dense_share=0, scale=0.1, seed=5)
    assert part.at_target, part.details
    assert part.counts["kills"] == 4
    assert part.counts["builds after a kill"] >= 2


def test_delete_removes_the_whole_collection_and_a_new_one_can_take_its_name(tmp_path):
    store = Store(tmp_path, SHELF)
    store.write("crm", _build)
    store.delete("crm")
    assert store.names() == [] and list(store.root.iterdir()) == []
    store.write("crm", _build)
    assert store.names() == ["crm"]
