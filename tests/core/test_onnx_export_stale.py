"""Work folders that killed ONNX exports leave in the model cache, and which of them go.

No real export runs here: ``_export`` is replaced by one that writes a few bytes.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from schema_search.core import onnx_export

HOUR = 60 * 60


def _dead_pid() -> int:
    """The id of a process of this host that has exited."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _plant(cache: Path, name: str, age_s: float = 0.0) -> Path:
    """A work folder holding half an export, last touched ``age_s`` ago."""
    folder = cache / name
    folder.mkdir(parents=True)
    (folder / "fp32.onnx").write_bytes(b"half a graph")
    then = time.time() - age_s
    for path in (folder / "fp32.onnx", folder):
        os.utime(path, (then, then))
    return folder


def _fake_export(source: Path, target: Path) -> None:
    target.write_bytes(b"a graph")


def test_only_exports_that_cannot_still_be_running_are_removed(tmp_path):
    host = onnx_export._host()
    dead = _plant(tmp_path, f".export-{_dead_pid()}-{host}-abc123")  # killed a moment ago
    mine = _plant(tmp_path, f".export-{os.getpid()}-{host}-def456")  # running: this very process
    elsewhere = _plant(tmp_path, ".export-12345-otherhost-ghi789")  # another host sharing the cache
    abandoned = _plant(tmp_path, ".export-12345-otherhost-jkl012", age_s=2 * HOUR)
    old_release = _plant(tmp_path, ".export-mno345", age_s=2 * HOUR)  # no owner in its name
    recent_release = _plant(tmp_path, ".export-pqr678")
    (tmp_path / "model.onnx").write_bytes(b"a graph")

    removed = onnx_export.remove_stale_exports(tmp_path)

    assert sorted(removed) == sorted([dead, abandoned, old_release])
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [mine.name, elsewhere.name, recent_release.name, "model.onnx"]
    )


def test_a_folder_still_being_written_is_not_old(tmp_path):
    folder = _plant(tmp_path, ".export-12345-otherhost-abc123", age_s=2 * HOUR)
    (folder / "int8.onnx").write_bytes(b"quantising")  # the export is at its second step now
    assert onnx_export.remove_stale_exports(tmp_path) == [] and folder.exists()


def test_the_next_export_sweeps_a_killed_one_and_names_its_own_owner(tmp_path, monkeypatch):
    dead = _plant(tmp_path, f".export-{_dead_pid()}-{onnx_export._host()}-abc123")
    seen = {}

    def export(source: Path, target: Path) -> None:
        seen["work"] = target.parent
        # Another process sweeping now must leave this export alone.
        seen["swept"] = onnx_export.remove_stale_exports(tmp_path)
        _fake_export(source, target)

    monkeypatch.setattr(onnx_export, "_export", export)
    path = onnx_export.cached_model(tmp_path, "fp32")

    assert seen["work"].name.startswith(f".export-{os.getpid()}-{onnx_export._host()}-")
    assert seen["swept"] == []
    assert not dead.exists() and [p.name for p in tmp_path.iterdir()] == [path.name]


def test_a_cache_with_the_model_is_swept_too(tmp_path, monkeypatch):
    # Two workers exported at once; one was killed, the other finished: no export runs again.
    monkeypatch.setattr(onnx_export, "_export", _fake_export)
    path = onnx_export.cached_model(tmp_path, "fp32")
    dead = _plant(tmp_path, f".export-{_dead_pid()}-{onnx_export._host()}-abc123")

    def no_export(source, target):
        raise AssertionError("the model was there: nothing to export")

    monkeypatch.setattr(onnx_export, "_export", no_export)
    assert onnx_export.cached_model(tmp_path, "fp32") == path
    assert not dead.exists()


def test_a_missing_cache_folder_has_nothing_to_sweep(tmp_path):
    assert onnx_export.remove_stale_exports(tmp_path / "none") == []
