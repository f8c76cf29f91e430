"""The operations every adapter offers: index, list, search, show a table.

CLI, HTTP and MCP are thin layers over one :class:`Workspace`; input checks live here
so every adapter refuses the same things with the same words.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Callable, Iterable, Sequence

from . import index as tantivy_index
from .candidates import candidates, table_detail
from .catalog import Catalog, Table, source_id
from .dense import DenseIndex, Embedder, build_dense, shared_embedder
from .documents import FIELDS, table_document
from .errors import InvalidInput, PayloadTooLarge, SourceError, TableNotFound
from .models import CatalogInfo, IndexResult, SearchResponse, TableDetail
from .search import CatalogSearcher, SearchConfig, field_coverage
from .settings import Settings
from .store import Generation, Store, check_name


# Wraps a sequence while it is worked through, e.g. in a progress bar: (items, label) -> items.
Progress = Callable[[Sequence[Table], str], Iterable[Table]]


class Workspace:
    """The catalogs under one data directory, with searchers cached per generation."""

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings or Settings()
        self.store = Store(self.settings.home)
        self._searchers: dict[str, CatalogSearcher] = {}
        self._lock = threading.Lock()

    # -- writing -------------------------------------------------------------------

    def index_source(
        self,
        source: str,
        *,
        catalog: str,
        dialect: str | None = None,
        db: str | None = None,
        progress: Progress | None = None,
    ) -> IndexResult:
        """Introspect ``source`` with the matching connector and index it as ``catalog``."""
        import connectors  # the connectors package imports drivers: load it only to index

        check_name(catalog)
        return self.index_catalog(connectors.introspect(source, catalog=catalog, dialect=dialect, db=db), progress)

    def index_catalog(self, catalog: Catalog, progress: Progress | None = None) -> IndexResult:
        """Index an introspected catalog as a new generation and swap it in.

        Args:
            catalog: the catalog; its name picks the folder.
            progress: wraps the tables while they are indexed (e.g. a progress bar).
        """
        check_name(catalog.name)
        if not catalog.tables:
            raise SourceError(
                f"Nothing to index for catalog {catalog.name!r}: the source has no tables.",
                hint="Check the source, the --db filter or the --dialect.",
            )
        started = time.perf_counter()

        def build(path: Path) -> dict:
            tables = progress(catalog.tables, "indexing") if progress else catalog.tables
            tantivy_index.build((table_document(t) for t in tables), path / "index")
            manifest = {"fields": list(FIELDS), "coverage": field_coverage(catalog)}
            if self.settings.dense:
                vectors, encoded = build_dense(catalog.tables, self.embedder(), self._previous_vectors(catalog.name))
                vectors.save(path)
                manifest["dense"] = {"model": vectors.model, "encoded": encoded, "floor": vectors.floor}
            return manifest

        generation = self.store.write(catalog, build)
        return IndexResult(catalog=self._info(generation, catalog), seconds=round(time.perf_counter() - started, 3))

    def _previous_vectors(self, catalog: str) -> DenseIndex | None:
        """The live generation's embeddings, so unchanged tables are not encoded again."""
        if catalog not in self.store.names():
            return None
        return DenseIndex.load(self.store.current(catalog).path)

    def embedder(self) -> Embedder:
        """The embedding model, loaded on first use and shared by the process."""
        return shared_embedder(self.settings.embedding_threads)

    def delete(self, catalog: str) -> None:
        self.store.delete(catalog)

    # -- reading -------------------------------------------------------------------

    def catalogs(self) -> list[CatalogInfo]:
        return [self.info(name) for name in self.store.names()]

    def info(self, catalog: str) -> CatalogInfo:
        searcher = self.searcher(catalog)
        return self._info(self.store.current(catalog), searcher.catalog)

    def searcher(self, catalog: str) -> CatalogSearcher:
        """The searcher of the live generation, reopened when a new one is swapped in."""
        generation = self.store.current(catalog)
        with self._lock:
            cached = self._searchers.get(catalog)
            if cached is None or cached.generation != generation.id:
                cached = CatalogSearcher.open(generation, self.embedder() if self.settings.dense else None)
                self._searchers[catalog] = cached
            return cached

    def search_config(self) -> SearchConfig:
        s = self.settings
        return SearchConfig(
            weights=s.weights(),
            rrf_k=s.rrf_k,
            depth=s.channel_depth,
            scale_by_coverage=s.scale_by_coverage,
            graph_boost=s.graph_boost,
            pin_identifiers=s.pin_identifiers,
            relevance_floor=s.relevance_floor,
            complete_joins=s.complete_joins,
        )

    def search(self, catalog: str, question: str, k: int | None = None) -> SearchResponse:
        question, k = self._check_request(question, k)
        searcher = self.searcher(catalog)
        result = searcher.search(question, k, self.search_config())
        return SearchResponse(
            catalog=catalog,
            question=question,
            off_topic=result.off_topic,
            candidates=candidates(searcher.catalog, result.ranked, question),
        )

    def table(self, catalog: str, table: str) -> TableDetail:
        """One table by id (``schema.table``), bare name when unique, or source ID."""
        searcher = self.searcher(catalog)
        found = _find_table(searcher.catalog, table)
        return table_detail(searcher.catalog, found)

    # -- helpers -------------------------------------------------------------------

    def _check_request(self, question: str, k: int | None) -> tuple[str, int]:
        s = self.settings
        question = (question or "").strip()
        if not question:
            raise InvalidInput("The question is empty.", hint="Ask something, e.g. 'which customers churned last month?'.")
        if len(question) > s.max_question_chars:
            raise PayloadTooLarge(
                f"The question is {len(question)} characters long; the limit is {s.max_question_chars}.",
                hint="Shorten it, or raise SCHEMA_SEARCH_MAX_QUESTION_CHARS.",
            )
        k = s.default_k if k is None else k
        if not 1 <= k <= s.max_k:
            raise InvalidInput(f"k={k} is out of range.", hint=f"Use 1 <= k <= {s.max_k}.")
        return question, k

    @staticmethod
    def _info(generation: Generation, catalog: Catalog) -> CatalogInfo:
        manifest = generation.manifest()
        views = sum(t.kind == "view" for t in catalog.tables)
        return CatalogInfo(
            name=catalog.name,
            tables=len(catalog.tables) - views,
            views=views,
            source=catalog.source,
            generation=generation.id,
            built_at=manifest["built_at"],
            warnings=list(catalog.warnings),
        )


def _find_table(catalog: Catalog, wanted: str) -> Table:
    wanted = wanted.strip()
    found = catalog.table(wanted)
    if found:
        return found
    lowered = wanted.lower()
    matches = [t for t in catalog.tables if source_id(catalog.name, t.id).lower() == lowered or t.name.lower() == lowered]
    if len(matches) == 1:
        return matches[0]
    if matches:
        options = ", ".join(t.id for t in matches[:10])
        raise TableNotFound(f"{wanted!r} is ambiguous in catalog {catalog.name!r}.", hint=f"Use one of: {options}.")
    raise TableNotFound(
        f"No table {wanted!r} in catalog {catalog.name!r}.",
        hint="Give a table id as `schema.table` (see search results) or a source ID like T3fa21c.",
    )
