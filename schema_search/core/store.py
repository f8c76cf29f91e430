"""Where indexed collections live on disk, and the atomic swap of their index generations.

A collection is a catalog (tables) or a corpus (document chunks); each kind has its
own folder under the data directory, and the same layout inside::

    catalogs/<name>/CURRENT          name of the live generation (one line)
    catalogs/<name>/.lock            held while a writer builds a generation
    catalogs/<name>/gen-<stamp>/     the kind's item file(s) + index/ + embeddings + manifest.json
    catalogs/<name>/embeddings.partial   vectors of a build that did not finish (core.checkpoint)
    corpora/<name>/...               the same, for corpora

A writer builds a complete new generation beside the live one, writes its manifest
last, then replaces ``CURRENT`` with ``os.replace`` (atomic on POSIX). A crash
(SIGKILL, power cut) at any moment leaves ``CURRENT`` naming a complete generation,
which stays searchable.

What a crash leaves behind (a generation without a manifest, one with a manifest
that never became live, ``CURRENT.tmp``, a half-deleted collection) is swept by the
next writer, before it builds and again after its swap, and by :meth:`Store.tidy`,
which a process that only searches may call when it starts. The sweep keeps the
live generation and the ones that were live before it (each manifest names its
predecessor), never "the newest other folder", which a crash can make a generation
that no reader ever saw.

A build that fails or is interrupted (Ctrl-C) removes its own half-built generation
at once. The vectors it had computed stay in ``embeddings.partial``, which no sweep
removes: the next build reads them back instead of encoding them again, and the file
goes once a build of the collection is live.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from ..errors import Busy, IndexUnreadable, InvalidInput, SchemaSearchError

NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
CURRENT = "CURRENT"
MANIFEST_FILE = "manifest.json"
LOCK_FILE = ".lock"
CHECKPOINT_FILE = "embeddings.partial"
TMP_SUFFIX = ".tmp"
DELETED_PREFIX = ".deleted-"  # a collection being deleted is renamed to this first, so a crash leaves no half
PREVIOUS = "previous"  # manifest key: the generation that was live when this one was swapped in
KEEP_PREVIOUS = 1  # generations kept besides the live one, for readers still on it
# A writer waits this long for the lock before it reports Busy: a tidy holds it for a
# quick sweep only, and an index that started a moment earlier should not look "busy".
LOCK_WAIT_S = 1.0
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
        """The collections with a live generation; a first build that never finished is not one."""
        if not self.root.is_dir():
            return []
        return sorted(p.name for p in self.root.iterdir() if NAME_PATTERN.match(p.name) and _live(p))

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

    def checkpoint(self, name: str) -> Path:
        """Where a build of collection ``name`` keeps its vectors until it goes live (see :mod:`checkpoint`)."""
        return self.root / check_name(name, self.shelf.noun) / CHECKPOINT_FILE

    def write(self, name: str, build: Callable[[Path], dict]) -> Generation:
        """Build a new generation of collection ``name`` and make it live atomically.

        What earlier crashed writers left in the collection is removed first, and the
        generations neither live nor kept are removed after the swap, with the
        checkpoint of vectors (this build's, or an earlier one's that it used). A
        build that raises (Ctrl-C included) takes its half-built folder with it.

        Args:
            name: the collection; it picks the folder.
            build: called with the new generation's (empty) folder; writes the item
                files and indexes there and returns manifest entries.

        Raises:
            Busy: another writer holds this collection.
        """
        return self._write(name, build, settles_checkpoint=True)

    def _write(self, name: str, build: Callable[[Path], dict], settles_checkpoint: bool) -> Generation:
        folder = self.root / check_name(name, self.shelf.noun)
        with _exclusive(folder / LOCK_FILE, name, self.shelf.noun, wait=LOCK_WAIT_S, create=True):
            _sweep_deleted(self.root)
            _sweep(folder)
            previous = _live(folder)
            path = folder / f"gen-{time.strftime('%Y%m%dT%H%M%S')}-{time.time_ns() % 1_000_000_000:09d}"
            path.mkdir()
            try:
                manifest = {"format": FORMAT, "kind": self.shelf.noun, self.shelf.noun: name, "built_at": time.time()}
                manifest.update(build(path))
                manifest[PREVIOUS] = previous  # None for a first build: then nothing older is kept
                # Data first, manifest last: a folder with a manifest is complete, even after a power cut.
                _fsync_tree(path)
                _write_synced(path / MANIFEST_FILE, json.dumps(manifest, indent=2))
                _fsync_file(path)
                _write_synced(folder / CURRENT, path.name + "\n")
            except BaseException:
                # Now, not at the next write: a 29,000-passage corpus stopped by Ctrl-C
                # left 38 MB that nobody would read. Unless the swap went through first.
                if _live(folder) != path.name:
                    _remove(path)
                raise
            _fsync_file(folder)
            if settles_checkpoint:
                (folder / CHECKPOINT_FILE).unlink(missing_ok=True)
            _sweep(folder)
            return Generation(name, path)

    def derive(self, name: str, replaced: Sequence[str], build: Callable[[Path, Generation], dict]) -> Generation:
        """A new generation that shares the live one's files except ``replaced``, swapped in atomically.

        Unchanged files (index, embeddings) are hard links, so nothing is rebuilt or
        re-embedded and searches on the live generation are undisturbed. ``build`` gets
        the new folder and the generation it derives from, writes the ``replaced``
        files, and returns manifest entries to change.
        """
        self.current(name)  # an unknown name is refused before the lock is taken

        def derived(path: Path) -> dict:
            live = self.current(name)  # read under the lock: a writer may have swapped meanwhile
            for source in live.path.rglob("*"):
                relative = source.relative_to(live.path)
                if relative.parts[0] in replaced or relative == Path(MANIFEST_FILE):  # a shard's own is kept
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
            kept = {k: v for k, v in live.manifest().items() if k not in ("format", "kind", "built_at", PREVIOUS)}
            return kept | build(path, live) | {"derived_from": live.id}

        # Nothing is embedded here: the vectors an interrupted index kept wait for its next run.
        return self._write(name, derived, settles_checkpoint=False)

    def delete(self, name: str) -> None:
        """Remove collection ``name``; a crash part-way leaves it either whole or gone, never half."""
        generation = self.current(name)  # raises not_found
        folder = generation.path.parent
        with _exclusive(folder / LOCK_FILE, name, self.shelf.noun, wait=LOCK_WAIT_S):
            trash = self.root / f"{DELETED_PREFIX}{name}-{time.time_ns()}"
            os.replace(folder, trash)
            shutil.rmtree(trash, ignore_errors=True)

    def tidy(self, name: str | None = None) -> int:
        """Remove what crashed writers left, in collection ``name`` (default: all of them).

        Collections a writer holds are skipped, and so is a data directory this process
        may not write to: tidying is never a reason for a search to fail.

        Returns:
            The bytes removed.
        """
        if not self.root.is_dir():
            return 0
        removed = _sweep_deleted(self.root)
        folders = [self.root / check_name(name, self.shelf.noun)] if name else sorted(self.root.iterdir())
        for folder in folders:
            if not (NAME_PATTERN.match(folder.name) and folder.is_dir()):
                continue
            try:
                with _exclusive(folder / LOCK_FILE, folder.name, self.shelf.noun):
                    removed += _sweep(folder)
            except (Busy, OSError):
                continue
        return removed


def _live(folder: Path) -> str | None:
    """The id of the live generation in collection ``folder``, if ``CURRENT`` names a complete one."""
    try:
        live = (folder / CURRENT).read_text(encoding="utf-8").strip()
    except (FileNotFoundError, NotADirectoryError):
        return None
    return live if live.startswith("gen-") and (folder / live / MANIFEST_FILE).is_file() else None


def _kept(folder: Path, keep: int = KEEP_PREVIOUS) -> set[str] | None:
    """The live generation and the ``keep`` that were live before it; None when nothing is live."""
    live = _live(folder)
    if live is None:
        return None
    kept = [live]
    while len(kept) <= keep:
        manifest = _read_manifest(folder / kept[-1])
        if PREVIOUS not in manifest:  # written before manifests named their predecessor: the newest others
            others = sorted((p.name for p in folder.glob("gen-*") if _complete(p) and p.name not in kept), reverse=True)
            kept += others[: keep + 1 - len(kept)]
            break
        previous = manifest[PREVIOUS]
        if previous is None or previous in kept or not _complete(folder / previous):
            break
        kept.append(previous)
    return set(kept)


def _sweep(folder: Path) -> int:
    """Remove, in a collection its caller holds the lock of, what no reader can be using; returns bytes removed.

    Half-built generations and ``CURRENT.tmp`` always go. Complete generations go
    unless live or kept; when nothing is live (a first build that crashed, a damaged
    pointer) complete ones stay, as the only copies, until a build replaces them.
    """
    kept = _kept(folder)
    removed = 0
    for path in folder.iterdir():
        if path.name.startswith("gen-") and path.is_dir():
            stray = not _complete(path) if kept is None else path.name not in kept
        else:
            stray = path.name == CURRENT + TMP_SUFFIX
        if stray:
            removed += _remove(path)
    return removed


def _sweep_deleted(root: Path) -> int:
    """Finish deletes a crash interrupted (no lock: nothing reads a renamed-away collection)."""
    return sum(_remove(path) for path in root.glob(f"{DELETED_PREFIX}*"))


def _complete(path: Path) -> bool:
    return (path / MANIFEST_FILE).is_file()


def _read_manifest(path: Path) -> dict:
    try:
        return json.loads((path / MANIFEST_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _remove(path: Path) -> int:
    """Delete a file or folder; returns the bytes it held (best effort: a vanished file counts 0)."""
    size = 0
    files = [path] if not path.is_dir() else [p for p in path.rglob("*") if not p.is_dir()]
    for file in files:
        try:
            size += file.lstat().st_size
        except OSError:
            pass
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)
    return size


@contextmanager
def _exclusive(
    lock_path: Path, name: str, noun: str = "catalog", wait: float = 0.0, create: bool = False
) -> Iterator[None]:
    """Hold the collection's writer lock, waiting up to ``wait`` seconds for it.

    ``flock`` belongs to the kernel, so a killed holder never leaves it stale. A lock
    won on a file that a delete renamed away meanwhile is dropped and taken again on
    the collection's new folder (``create``) or given up (OSError).
    """
    deadline = time.monotonic() + wait
    while True:
        if create:
            lock_path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(lock_path, "a+")
        try:
            _flock(handle, deadline, name, noun)
            if _same_file(handle, lock_path):
                break
        except BaseException:
            handle.close()
            raise
        handle.close()
    try:
        yield
    finally:
        fcntl.flock(handle, fcntl.LOCK_UN)
        handle.close()


def _flock(handle, deadline: float, name: str, noun: str) -> None:
    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise Busy(
                    f"The {noun} {name!r} is being indexed by another process.",
                    hint="Wait for it to finish, then retry; searches keep using the previous generation meanwhile.",
                ) from None
            time.sleep(0.02)


def _same_file(handle, path: Path) -> bool:
    try:
        return os.path.samestat(os.fstat(handle.fileno()), os.stat(path))
    except FileNotFoundError:
        return False


def _write_synced(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` atomically and durably: a reader sees the old file or the whole new one."""
    tmp = path.with_name(path.name + TMP_SUFFIX)
    tmp.write_text(text, encoding="utf-8")
    _fsync_file(tmp)
    os.replace(tmp, path)


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
