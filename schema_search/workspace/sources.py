"""What catalogs and corpora share: a store of generations, the searcher and the collection of the live one.

:class:`Sources` is written once for both kinds of item; :class:`~.catalogs.Catalogs` and
:class:`~.corpora.Corpora` add what only tables or only documents have (how a source is
read, how a search is answered). Each opened thing is cached per generation and opened
anew when a re-index swaps a new one in.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from ..core.build import Progress, write_indexes
from ..core.closeness import distance
from ..core.dense import DenseIndex
from ..core.embedders import Embedder
from ..core.followup import Rewrite
from ..core.kind import ItemKind
from ..core.sealing import Sealer, Vault
from ..core.shards import Scatter, shard_folders
from ..core.store import Generation, Shelf, Store
from ..settings import Settings
from ..structured.collection import Collection
from ..structured.models import FieldsResponse, QueryRequest, QueryResponse
from ..structured.overview import fields_response
from ..structured.sandbox import shared_sandbox
from . import configs
from .shards import Part, reach, write_shards

Searcher = TypeVar("Searcher")
Info = TypeVar("Info")
T = TypeVar("T")


class Host(Protocol):
    """What the catalogs and corpora take from the workspace that holds them: its settings, the
    embedding model they share, and the input checks every kind applies."""

    settings: Settings

    def embedder(self) -> Embedder: ...

    def loaded_embedder(self, progress: Progress | None) -> Embedder: ...

    def check_request(self, question: str, k: int | None) -> tuple[str, int]: ...

    def retrieval(self, question: str, history: Sequence[str] | None) -> tuple[str, Rewrite]: ...


class Sources(Generic[Searcher, Info]):
    """The catalogs, or the corpora, of one data directory."""

    shelf: Shelf  # where the kind lives under the data directory, and its errors

    def __init__(self, workspace: Host) -> None:
        self.workspace = workspace
        self.store = Store(workspace.settings.home, self.shelf)
        self._searchers: dict[str, Searcher] = {}
        self._collections: dict[str, tuple[str, Collection]] = {}
        self._lock = threading.Lock()
        self._vault: Vault | None = None

    @property
    def settings(self) -> Settings:
        return self.workspace.settings

    @property
    def vault(self) -> Vault:
        """The data key of this data directory, under the configured key-encryption key (``core.sealing``).

        Raises:
            InvalidInput: the configured key file is missing, unreadable or not 32 bytes.
        """
        if self._vault is None:
            self._vault = configs.vault(self.settings)
        return self._vault

    def writer(self) -> Sealer | None:
        """What a new generation is sealed with: every one is, once a key-encryption key is configured."""
        return self.vault.writer()

    def reader(self, generation: Generation) -> Sealer | None:
        """What ``generation`` is opened with (None: written in plain text).

        Raises:
            KeyUnavailable: it is sealed and the key that opens it is not configured.
        """
        return self.vault.reader(generation.manifest(), f"{self.shelf.noun} {generation.name!r}")

    # -- what each kind says for itself --------------------------------------------

    def _open_searcher(self, generation: Generation, embedder: Embedder | None) -> Searcher:
        raise NotImplementedError

    def _info(self, generation: Generation, searcher: Searcher) -> Info:
        raise NotImplementedError

    def _load_collection(self, generation: Generation) -> Collection:
        raise NotImplementedError

    # -- shared ------------------------------------------------------------------------

    def names(self) -> list[str]:
        return self.store.names()

    def infos(self) -> list[Info]:
        """What :meth:`info` says of each, in name order."""
        return [self.info(name) for name in self.names()]

    def info(self, name: str) -> Info:
        searcher = self.searcher(name)
        return self._info(self.store.current(name), searcher)

    def searcher(self, name: str) -> Searcher:
        """The searcher of the live generation, reopened when a new one is swapped in."""
        generation = self.store.current(name)
        with self._lock:
            cached = self._searchers.get(name)
            if cached is None or cached.generation != generation.id:
                embedder = self.workspace.embedder() if self.settings.dense else None
                cached, replaced = self.store.open(name, lambda live: self._open_searcher(live, embedder)), cached
                self._searchers[name] = cached
                if replaced is not None and gc.get_freeze_count():
                    # A server froze what it loaded (http/readiness.py); frozen objects in
                    # reference cycles are never freed, so the old generation would stay.
                    gc.unfreeze()
            return cached

    def is_open(self, name: str) -> bool:
        """Whether the live generation's searcher is loaded (a search would not have to open it)."""
        with self._lock:
            cached = self._searchers.get(name)
        return cached is not None and cached.generation == self.store.current(name).id

    def delete(self, name: str) -> None:
        """Remove ``name`` and forget what was opened of it, so a later search says it is not found.

        Raises:
            CatalogNotFound, CorpusNotFound: there is no such catalog or corpus.
        """
        self.store.delete(name)
        # Another process may have deleted it too; either way nothing cached may outlive it.
        with self._lock:
            self._searchers.pop(name, None)
            self._collections.pop(name, None)
        self._forget(name)

    def _forget(self, name: str) -> None:
        """Drop what a kind caches of its own about ``name`` (see :meth:`delete`)."""

    # -- count, filter, group --------------------------------------------------------

    def collection(self, name: str) -> Collection:
        """The structured tables of the live generation."""
        return self._collection(name)[1]

    def fields(self, name: str) -> FieldsResponse:
        return fields_response(self.collection(name))

    def query(self, name: str, request: QueryRequest) -> QueryResponse:
        """Run in the sandbox's child process: untrusted SQL is never parsed or run in this one."""
        limits = configs.query_limits(self.settings, request)
        generation, collection = self._collection(name)
        return shared_sandbox(limits.memory_bytes).query(
            (str(self.settings.home), self.shelf.folder, name, generation),
            collection,
            sql=request.sql,
            form=request.query,
            max_rows=limits.max_rows,
            timeout_s=limits.timeout_s,
            memory_limit=limits.memory_limit,
            max_bytes=limits.max_bytes,
        )

    def _collection(self, name: str) -> tuple[str, Collection]:
        """The live generation's id and its collection, loaded once per generation."""
        return self._loaded(self._collections, name, self._load_collection)

    def _loaded(self, cache: dict, name: str, load: Callable[[Generation], T]) -> tuple[str, T]:
        """The live generation's id and what ``load`` makes of it, loaded once per generation."""
        generation = self.store.current(name)
        with self._lock:
            cached = cache.get(name)
        if cached is None or cached[0] != generation.id:
            cached = (generation.id, self.store.open(name, load))
            with self._lock:
                cache[name] = cached
        return cached

    # -- writing ---------------------------------------------------------------------

    def _write_indexes(
        self,
        path: Path,
        name: str,
        kind: ItemKind,
        items: Sequence,
        progress: Progress | None,
        sealer: Sealer | None = None,
    ) -> dict:
        embedder = self._build_embedder(progress)
        previous = self._previous_vectors(name) if embedder else None
        # Vectors are saved as they come, so a build cut short resumes (core/checkpoint.py).
        return write_indexes(path, kind, items, embedder, previous, progress, self.store.checkpoint(name), sealer)

    def _build_embedder(self, progress: Progress | None) -> Embedder | None:
        """What a build embeds with: the model (None with the dense channel off), its batches
        encoded by an actor pool on the Ray cluster at ``ray_address`` when one is set."""
        if not self.settings.dense:
            return None
        embedder = self.workspace.loaded_embedder(progress)
        if self.settings.ray_address is None:
            return embedder
        from ..cluster.embedding import ray_embedder  # Ray only when asked for: an extra

        return ray_embedder(embedder, self.settings)

    def _write_shards(
        self,
        path: Path,
        name: str,
        kind: ItemKind,
        items: Sequence,
        shards: int,
        owner: Callable[[Any], str],
        progress: Progress | None,
        parts: Sequence[Part] = (),
    ) -> dict:
        """:meth:`_write_indexes` for a generation written as ``shards`` shards (``workspace.shards``), its
        items split by ``owner``; ``parts``: the other indexes each shard holds."""
        embedder = self._build_embedder(progress)
        previous = self._previous_vectors(name) if embedder else None
        checkpoint = self.store.checkpoint(name)
        return write_shards(path, kind, items, shards, owner, parts, embedder, previous, progress, checkpoint)

    def _shards(self, generation: Generation) -> Scatter | None:
        """How to ask the shards of ``generation`` (in this process, or on Ray); None when it is not sharded."""
        if not generation.manifest().get("shards"):
            return None
        return reach(self.settings)(generation.path, shard_folders(generation.path))

    def _previous_vectors(self, name: str, folder: str = "") -> DenseIndex | None:
        """The live generation's embeddings (of its subfolder ``folder``), so unchanged items are not encoded again."""
        if name not in self.store.names():
            return None
        return previous_vectors(self.store.current(name).path / folder)


def previous_vectors(folder: Path) -> DenseIndex | None:
    """The embeddings stored in ``folder``; None when there are none or they cannot be read (encode afresh)."""
    try:
        return DenseIndex.load(folder)
    except (OSError, ValueError, KeyError):
        return None


def since(started: float) -> float:
    return round(time.perf_counter() - started, 3)


def dense_info(manifest: dict) -> dict:
    """What a generation's manifest says of its dense channel, for the info models."""
    dense = manifest.get("dense")
    if not dense:
        return {"dense": False}
    return {
        "dense": True,
        "embedding_model": dense.get("model"),
        "unrelated_distance": distance(dense.get("nearest_floor")),
        "floor_distance": distance(dense.get("floor")),
    }
