"""Where catalogs live on disk, and the atomic swap of index generations.

Layout under the data directory::

    catalogs/<name>/CURRENT          name of the live generation (one line)
    catalogs/<name>/.lock            held while a writer builds a generation
    catalogs/<name>/gen-<stamp>/     catalog.json + index/ (+ later: embeddings)

A writer builds a complete new generation beside the live one, then replaces
``CURRENT`` with ``os.replace`` (atomic on POSIX). A crash mid-build leaves
``CURRENT`` pointing at the previous generation, which stays searchable; the
half-built folder is removed by the next writer.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from .catalog import Catalog
from .errors import Busy, CatalogNotFound, InvalidInput

NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
CURRENT = "CURRENT"
CATALOG_FILE = "catalog.json"
MANIFEST_FILE = "manifest.json"
KEEP_PREVIOUS = 1  # generations kept besides the live one, for readers still on it


def check_name(name: str) -> str:
    """Validate a catalog name (it becomes a folder name).

    >>> check_name("crm")
    'crm'
    """
    if not NAME_PATTERN.match(name or ""):
        raise InvalidInput(
            f"Invalid catalog name {name!r}.",
            hint="Use 1-64 characters: lower-case letters, digits, '_' or '-', starting with a letter or digit.",
        )
    return name


@dataclass(frozen=True)
class Generation:
    """One complete, immutable build of a catalog."""

    catalog: str
    path: Path

    @property
    def id(self) -> str:
        return self.path.name

    @property
    def index_path(self) -> Path:
        return self.path / "index"

    def load_catalog(self) -> Catalog:
        return Catalog.from_json((self.path / CATALOG_FILE).read_text(encoding="utf-8"))

    def manifest(self) -> dict:
        return json.loads((self.path / MANIFEST_FILE).read_text(encoding="utf-8"))


class Store:
    """The catalogs under one data directory."""

    def __init__(self, home: Path) -> None:
        self.home = Path(home)
        self.root = self.home / "catalogs"

    def names(self) -> list[str]:
        if not self.root.is_dir():
            return []
        return sorted(p.name for p in self.root.iterdir() if (p / CURRENT).is_file())

    def current(self, name: str) -> Generation:
        """The live generation of catalog ``name``."""
        check_name(name)
        pointer = self.root / name / CURRENT
        try:
            generation = pointer.read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            known = ", ".join(self.names()) or "none yet"
            raise CatalogNotFound(
                f"No catalog named {name!r}.",
                hint=f"Known catalogs: {known}. Create one with `schema-search index SOURCE --catalog {name}`.",
            ) from None
        return Generation(name, self.root / name / generation)

    def write(self, catalog: Catalog, build: Callable[[Path], dict]) -> Generation:
        """Build a new generation of ``catalog`` and make it live atomically.

        Args:
            catalog: what to store (its ``name`` picks the folder).
            build: called with the new generation's folder (``catalog.json`` is already
                written there); writes the index files and returns manifest entries.

        Raises:
            Busy: another writer holds this catalog.
        """
        folder = self.root / check_name(catalog.name)
        folder.mkdir(parents=True, exist_ok=True)
        with _exclusive(folder / ".lock", catalog.name):
            _remove_half_built(folder)
            path = folder / f"gen-{time.strftime('%Y%m%dT%H%M%S')}-{time.time_ns() % 1_000_000_000:09d}"
            path.mkdir()
            (path / CATALOG_FILE).write_text(catalog.to_json(), encoding="utf-8")
            manifest = {"catalog": catalog.name, "tables": len(catalog.tables), "built_at": time.time()}
            manifest.update(build(path))
            (path / MANIFEST_FILE).write_text(json.dumps(manifest, indent=2), encoding="utf-8")
            _fsync_tree(path)
            pointer_tmp = folder / f"{CURRENT}.tmp"
            pointer_tmp.write_text(path.name + "\n", encoding="utf-8")
            _fsync_file(pointer_tmp)
            os.replace(pointer_tmp, folder / CURRENT)
            _fsync_file(folder)
            _remove_old(folder, keep=KEEP_PREVIOUS)
            return Generation(catalog.name, path)

    def delete(self, name: str) -> None:
        generation = self.current(name)  # raises CatalogNotFound
        folder = generation.path.parent
        with _exclusive(folder / ".lock", name):
            (folder / CURRENT).unlink()
            shutil.rmtree(folder)


def _remove_half_built(folder: Path) -> None:
    """Remove generations a crashed writer left: the manifest is written last."""
    for path in folder.glob("gen-*"):
        if not (path / MANIFEST_FILE).exists():
            shutil.rmtree(path, ignore_errors=True)


def _remove_old(folder: Path, keep: int) -> None:
    """Remove generations other than the live one, except the newest ``keep``."""
    live = (folder / CURRENT).read_text(encoding="utf-8").strip()
    others = sorted((p for p in folder.glob("gen-*") if p.name != live), reverse=True)
    for old in others[keep:]:
        shutil.rmtree(old, ignore_errors=True)


@contextmanager
def _exclusive(lock_path: Path, name: str) -> Iterator[None]:
    with open(lock_path, "a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise Busy(
                f"Catalog {name!r} is being indexed by another process.",
                hint="Wait for it to finish, then retry; searches keep using the previous generation meanwhile.",
            ) from None
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_tree(path: Path) -> None:
    for file in path.rglob("*"):
        if file.is_file():
            _fsync_file(file)
    _fsync_file(path)
