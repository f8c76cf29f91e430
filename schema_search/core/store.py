"""Where indexed collections live on disk, and the atomic swap of their index generations.

A collection is a catalog (tables) or a corpus (document chunks); each kind has its
own folder under the data directory, and the same layout inside::

    catalogs/<name>/CURRENT          name of the live generation (one line)
    catalogs/<name>/.lock            held while a writer builds a generation
    catalogs/<name>/gen-<stamp>/     the kind's item file(s) + index/ + embeddings + manifest.json
    corpora/<name>/...               the same, for corpora

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
from typing import Callable, Iterator, Sequence, TypeVar

from ..errors import Busy, IndexUnreadable, InvalidInput, SchemaSearchError

NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
CURRENT = "CURRENT"
MANIFEST_FILE = "manifest.json"
KEEP_PREVIOUS = 1  # generations kept besides the live one, for readers still on it
# Version of the generation layout. Generations without one come from release 0.1,
# whose layout is the same as format 2's for catalogs.
FORMAT = 2

T = TypeVar("T")


@dataclass(frozen=True)
class Shelf:
    """One kind of collection: its folder and how to talk about it.

    Attributes:
        folder: the folder under the data directory (``catalogs``, ``corpora``).
        noun: what one is called in messages (``catalog``, ``corpus``).
        not_found: the error raised for an unknown name.
        create: the command that creates one, with ``{name}`` for its name.
    """

    folder: str
    noun: str
    not_found: type[SchemaSearchError]
    create: str


def check_name(name: str, noun: str = "catalog") -> str:
    """Validate a collection name (it becomes a folder name).

    >>> check_name("crm")
    'crm'
    """
    if not NAME_PATTERN.match(name or ""):
        raise InvalidInput(
            f"Invalid {noun} name {name!r}.",
            hint="Use 1-64 characters: lower-case letters, digits, '_' or '-', starting with a letter or digit.",
        )
    return name


@dataclass(frozen=True)
class Generation:
    """One complete, immutable build of a collection."""

    name: str
    path: Path

    @property
    def id(self) -> str:
        return self.path.name

    @property
    def index_path(self) -> Path:
        return self.path / "index"

    def manifest(self) -> dict:
        return json.loads((self.path / MANIFEST_FILE).read_text(encoding="utf-8"))


class Store:
    """The collections of one kind under one data directory."""

    def __init__(self, home: Path, shelf: Shelf) -> None:
        self.home = Path(home)
        self.shelf = shelf
        self.root = self.home / shelf.folder

    def names(self) -> list[str]:
        if not self.root.is_dir():
            return []
        return sorted(p.name for p in self.root.iterdir() if (p / CURRENT).is_file())

    def current(self, name: str) -> Generation:
        """The live generation of collection ``name``."""
        check_name(name, self.shelf.noun)
        pointer = self.root / name / CURRENT
        try:
            generation = pointer.read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            known = ", ".join(self.names()) or "none yet"
            raise self.shelf.not_found(
                f"No {self.shelf.noun} named {name!r}.",
                hint=f"Known: {known}. Create one with `{self.shelf.create.format(name=name)}`.",
            ) from None
        return Generation(name, self.root / name / generation)

    def open(self, name: str, opener: Callable[[Generation], T]) -> T:
        """Open the live generation with ``opener``; a generation it cannot read is a clear error.

        Raises:
            IndexUnreadable: the files are missing, damaged or from a newer release;
                the message names the command that rebuilds them.
        """
        generation = self.current(name)
        try:
            found = generation.manifest().get("format", 1)
            if found > FORMAT:
                raise ValueError(f"it was written by a newer release (format {found}; this one reads {FORMAT})")
            return opener(generation)
        except SchemaSearchError:
            raise
        except Exception as error:  # tantivy, numpy and json each raise their own kinds
            raise IndexUnreadable(
                f"The {self.shelf.noun} {name!r} cannot be opened ({generation.id}: {error}).",
                hint=f"Re-index it: `{self.shelf.create.format(name=name)}`.",
            ) from error

    def write(self, name: str, build: Callable[[Path], dict]) -> Generation:
        """Build a new generation of collection ``name`` and make it live atomically.

        Args:
            name: the collection; it picks the folder.
            build: called with the new generation's (empty) folder; writes the item
                files and indexes there and returns manifest entries.

        Raises:
            Busy: another writer holds this collection.
        """
        folder = self.root / check_name(name, self.shelf.noun)
        folder.mkdir(parents=True, exist_ok=True)
        with _exclusive(folder / ".lock", name, self.shelf.noun):
            _remove_half_built(folder)
            path = folder / f"gen-{time.strftime('%Y%m%dT%H%M%S')}-{time.time_ns() % 1_000_000_000:09d}"
            path.mkdir()
            manifest = {"format": FORMAT, "kind": self.shelf.noun, self.shelf.noun: name, "built_at": time.time()}
            manifest.update(build(path))
            (path / MANIFEST_FILE).write_text(json.dumps(manifest, indent=2), encoding="utf-8")
            _fsync_tree(path)
            pointer_tmp = folder / f"{CURRENT}.tmp"
            pointer_tmp.write_text(path.name + "\n", encoding="utf-8")
            _fsync_file(pointer_tmp)
            os.replace(pointer_tmp, folder / CURRENT)
            _fsync_file(folder)
            _remove_old(folder, keep=KEEP_PREVIOUS)
            return Generation(name, path)

    def derive(self, name: str, replaced: Sequence[str], build: Callable[[Path, Generation], dict]) -> Generation:
        """A new generation that shares the live one's files except ``replaced``, swapped in atomically.

        Unchanged files (index, embeddings) are hard links, so nothing is rebuilt or
        re-embedded and searches on the live generation are undisturbed. ``build`` gets
        the new folder and the generation it derives from, writes the ``replaced``
        files, and returns manifest entries to change.
        """
        live = self.current(name)

        def derived(path: Path) -> dict:
            for source in live.path.rglob("*"):
                relative = source.relative_to(live.path)
                if relative.parts[0] in replaced or relative.name == MANIFEST_FILE:
                    continue
                target = path / relative
                if source.is_dir():
                    target.mkdir(parents=True, exist_ok=True)
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                try:
                    os.link(source, target)
                except OSError:  # another file system, or no hard links there
                    shutil.copy2(source, target)
            manifest = {k: v for k, v in live.manifest().items() if k not in ("format", "kind", "built_at")}
            return manifest | build(path, live) | {"derived_from": live.id}

        return self.write(name, derived)

    def delete(self, name: str) -> None:
        generation = self.current(name)  # raises not_found
        folder = generation.path.parent
        with _exclusive(folder / ".lock", name, self.shelf.noun):
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
def _exclusive(lock_path: Path, name: str, noun: str = "catalog") -> Iterator[None]:
    with open(lock_path, "a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise Busy(
                f"The {noun} {name!r} is being indexed by another process.",
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
