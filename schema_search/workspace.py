"""The operations every adapter offers, for catalogs (tables) and corpora (documents).

CLI, HTTP and MCP are thin layers over one :class:`Workspace`; input checks live here
so every adapter refuses the same things with the same words. Both kinds are stored
and searched by the same core (``core.store``, ``core.build``, ``core.channels``);
this class only picks the kind and turns results into wire models.
"""

from __future__ import annotations

import gc
import threading
import time
from pathlib import Path
from typing import Callable, Sequence, TypeVar

from .core.build import Progress, write_indexes
from .core.closeness import distance
from .core.explain import context
from .core.dense import DenseIndex
from .core.embedders import Embedder, shared_embedder
from .core.kind import ItemKind
from .core.store import Generation, Shelf, Store, check_name
from .docs import results
from .docs.chunker import Chunking
from .docs.corpus import Corpus, write_corpus
from .docs.documents import CHUNKS
from .docs.models import CorpusIndexResult, CorpusInfo, DocsSearchResponse, SourceDetail
from .docs.search import CorpusSearcher, DocsSearchConfig
from .docs.sources import read_corpus
from .errors import CatalogNotFound, CorpusNotFound, InvalidInput, PayloadTooLarge, SourceError
from .settings import Settings
from .structured.collection import STRUCTURED_FILE, Collection, load_collection, write_collection
from .structured.fields import Choices
from .structured.models import FieldsResponse, QueryRequest, QueryResponse
from .structured.overview import fields_response
from .structured.sandbox import shared_sandbox
from .structured.sources import catalog_collection, corpus_collection
from .tables.candidates import candidates, find_table, table_detail
from .tables.catalog import Catalog
from .tables.documents import TABLES
from .tables.models import CatalogInfo, IndexResult, SearchResponse, TableDetail
from .tables.search import CATALOG_FILE, CatalogSearcher, SearchConfig

CATALOGS = Shelf("catalogs", "catalog", CatalogNotFound, "schema-search index SOURCE --catalog {name}")
CORPORA = Shelf("corpora", "corpus", CorpusNotFound, "schema-search docs index FOLDER --corpus {name}")

Searcher = TypeVar("Searcher", CatalogSearcher, CorpusSearcher)
T = TypeVar("T")


class Workspace:
    """The catalogs and corpora under one data directory, with searchers cached per generation."""

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings or Settings()
        self.store = Store(self.settings.home, CATALOGS)
        self.corpus_store = Store(self.settings.home, CORPORA)
        self._searchers: dict[tuple[str, str], CatalogSearcher | CorpusSearcher] = {}
        self._collections: dict[tuple[str, str], tuple[str, Collection]] = {}
        self._catalogs: dict[tuple[str, str], tuple[str, Catalog]] = {}
        self._lock = threading.Lock()
        self._embedder_loaded = False

    def embedder(self) -> Embedder:
        """The embedding model, loaded on first use and shared by the process."""
        s = self.settings
        embedder = shared_embedder(s.embedding_backend, s.model_cache, s.embedding_threads)
        self._embedder_loaded = True
        return embedder

    def _loaded_embedder(self, progress: Progress | None) -> Embedder:
        """The model, its first load shown as a phase of its own: it takes seconds, and
        no other bar should seem to hang meanwhile."""
        if progress is None or self._embedder_loaded:
            return self.embedder()
        for _ in progress([self.settings.embedding_backend], "loading the model"):
            embedder = self.embedder()
        return embedder

    # -- catalogs: writing ---------------------------------------------------------

    def index_source(
        self,
        source: str,
        *,
        catalog: str,
        dialect: str | None = None,
        db: str | None = None,
        progress: Progress | None = None,
    ) -> IndexResult:
        """Introspect ``source`` with the matching connector and index it as ``catalog``.

        A live database lends a sample of its short text values too (``value_hints*`` settings).
        """
        import connectors  # the connectors package imports drivers: load it only to index

        check_name(catalog)
        s = self.settings
        hints = None
        if s.value_hints:
            hints = connectors.ValueHints(
                max_rows=s.value_hints_max_rows,
                max_values=s.value_hints_max_values,
                max_chars=s.value_hints_max_chars,
                timeout_s=s.value_hints_timeout_s,
                budget_s=s.value_hints_budget_s,
                allow_contacts=s.value_hints_allow_contacts,
            )
        read = connectors.introspect(
            source,
            catalog=catalog,
            dialect=dialect,
            db=db,
            progress=progress,
            max_ddl_bytes=s.max_ddl_bytes,
            value_hints=hints,
        )
        return self.index_catalog(read, progress)

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
            (path / CATALOG_FILE).write_text(catalog.to_json(), encoding="utf-8")
            manifest = {"tables": len(catalog.tables)}
            return manifest | self._write_indexes(path, self.store, catalog.name, TABLES, catalog.tables, progress)

        generation = self.store.write(catalog.name, build)
        return IndexResult(catalog=_catalog_info(generation, catalog), seconds=_since(started))

    def delete(self, catalog: str) -> None:
        """Remove ``catalog`` and forget its open searcher, so a later search says it is not found.

        Raises:
            CatalogNotFound: there is no such catalog.
        """
        self._delete(self.store, catalog)

    # -- catalogs: reading ---------------------------------------------------------

    def catalogs(self) -> list[CatalogInfo]:
        return [self.info(name) for name in self.store.names()]

    def info(self, catalog: str) -> CatalogInfo:
        searcher = self.searcher(catalog)
        return _catalog_info(self.store.current(catalog), searcher.catalog)

    def searcher(self, catalog: str) -> CatalogSearcher:
        """The searcher of the live generation, reopened when a new one is swapped in."""
        return self._open(self.store, catalog, CatalogSearcher.open)

    def catalog(self, catalog: str) -> Catalog:
        """The live generation's catalog: the open searcher's, else read from the generation alone.

        Checking or running SQL needs the tables, not the indexes: an MCP server's first
        ``validate_sql`` or ``execute_sql`` does not wait for the embedding model.
        """
        if self.is_open(catalog):
            return self.searcher(catalog).catalog
        return self._loaded(self._catalogs, self.store, catalog, _read_catalog)[1]

    def is_open(self, catalog: str) -> bool:
        """Whether the live generation's searcher is loaded (a search would not have to open it)."""
        return self._is_open(self.store, catalog)

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
            complete_entities=s.complete_entities,
        )

    def search(self, catalog: str, question: str, k: int | None = None) -> SearchResponse:
        question, k = self._check_request(question, k)
        searcher = self.searcher(catalog)
        result = searcher.search(question, k, self.search_config())
        closeness = searcher.channels.closeness(question, [r.id for r in result.ranked])
        return SearchResponse(
            catalog=catalog,
            question=question,
            off_topic=result.off_topic,
            candidates=candidates(searcher.catalog, result.ranked, question, closeness),
            **context(result, closeness),
        )

    def table(self, catalog: str, table: str) -> TableDetail:
        """One table by id (``schema.table``), bare name when unique, or source ID."""
        searcher = self.searcher(catalog)
        return table_detail(searcher.catalog, find_table(searcher.catalog, table))

    # -- corpora: writing ----------------------------------------------------------

    def index_corpus(
        self,
        folder: Path,
        *,
        corpus: str,
        url_template: str | None = None,
        progress: Progress | None = None,
        origin: str | None = None,
    ) -> CorpusIndexResult:
        """Read every supported file under ``folder``, chunk it, and index it as ``corpus``.

        Files that cannot be read become warnings; the corpus indexes without them.
        ``origin`` is recorded as the source instead of a folder that will not last (``upload``).

        Raises:
            SourceError: no file under ``folder`` could be read.
        """
        check_name(corpus, "corpus")
        started = time.perf_counter()
        if self.settings.dense:
            self._loaded_embedder(progress)  # chunk sizes are checked with its tokenizer
        chunking = self.chunking()
        read = read_corpus(Path(folder), corpus, chunking, url_template=url_template, progress=progress, origin=origin)

        choices = self._stored_choices(corpus)

        def build(path: Path) -> dict:
            write_corpus(path, read)
            write_collection(path, corpus_collection(read, choices))
            manifest = {
                "documents": len(read.documents),
                "chunks": len(read.chunks),
                "chunking": chunking.describe(),
                "structured": choices.to_dict(),
            }
            return manifest | self._write_indexes(path, self.corpus_store, corpus, CHUNKS, read.chunks, progress)

        generation = self.corpus_store.write(corpus, build)
        return CorpusIndexResult(corpus=_corpus_info(generation, read), seconds=_since(started))

    def delete_corpus(self, corpus: str) -> None:
        """Remove ``corpus`` and forget its open searcher and structured index.

        Raises:
            CorpusNotFound: there is no such corpus.
        """
        self._delete(self.corpus_store, corpus)

    # -- corpora: reading ----------------------------------------------------------

    def corpora(self) -> list[CorpusInfo]:
        return [self.corpus_info(name) for name in self.corpus_store.names()]

    def corpus_info(self, corpus: str) -> CorpusInfo:
        searcher = self.corpus_searcher(corpus)
        return _corpus_info(self.corpus_store.current(corpus), searcher.corpus)

    def corpus_searcher(self, corpus: str) -> CorpusSearcher:
        return self._open(self.corpus_store, corpus, CorpusSearcher.open)

    def corpus_is_open(self, corpus: str) -> bool:
        return self._is_open(self.corpus_store, corpus)

    def docs_config(self) -> DocsSearchConfig:
        s = self.settings
        return DocsSearchConfig(
            weights=s.docs_weights(),
            rrf_k=s.docs_rrf_k,
            depth=s.channel_depth,
            scale_by_coverage=s.scale_by_coverage,
            pin_identifiers=s.pin_identifiers and s.docs_pin_share > 0,
            pin_share=s.docs_pin_share,
            relevance_floor=s.relevance_floor,
        )

    def chunking(self) -> Chunking:
        """Chunk sizes from the settings; checked with the embedding model's tokenizer when it is on."""
        counter = self.embedder() if self.settings.dense else None
        cap = getattr(counter, "max_tokens", Chunking.max_tokens)
        return Chunking(
            min(self.settings.docs_chunk_tokens, cap), self.settings.docs_chunk_overlap, cap, counter
        )

    def search_docs(self, corpus: str, question: str, k: int | None = None) -> DocsSearchResponse:
        question, k = self._check_request(question, k)
        searcher = self.corpus_searcher(corpus)
        found = searcher.search(question, k, self.docs_config())
        return results.response(searcher, question, found)

    def source(self, corpus: str, source_id: str) -> SourceDetail:
        """A chunk, or a whole document, by its source ID (``S3fa21c``)."""
        return results.detail(self.corpus_searcher(corpus), source_id)

    # -- structured: count, filter, group -----------------------------------------

    def choices(self) -> Choices:
        """Which header fields are exact, as the settings say (beside the URL- and ID-shaped ones)."""
        return Choices.of(self.settings.exact_fields, self.settings.plain_fields)

    def _stored_choices(self, corpus: str) -> Choices:
        """The settings' choices, then those a rebuild of this corpus recorded (they outlive re-indexing)."""
        if corpus not in self.corpus_store.names():
            return self.choices()
        stored = self.corpus_store.current(corpus).manifest().get("structured") or {}
        return self.choices().then(Choices.of(stored.get("exact", ()), stored.get("plain", ())))

    def corpus_collection(self, corpus: str) -> Collection:
        """The ``documents`` table of the live generation (no table, only its report, without a shared header)."""
        return self._collection(self.corpus_store, corpus, self._load_corpus_collection)[1]

    def catalog_collection(self, catalog: str) -> Collection:
        """The catalog's ``tables`` and ``columns`` tables."""
        return self._collection(self.store, catalog, self._load_catalog_collection)[1]

    def corpus_fields(self, corpus: str) -> FieldsResponse:
        return fields_response(self.corpus_collection(corpus))

    def catalog_fields(self, catalog: str) -> FieldsResponse:
        return fields_response(self.catalog_collection(catalog))

    def rebuild_fields(self, corpus: str, exact: Sequence[str] = (), plain: Sequence[str] = ()) -> FieldsResponse:
        """Propose and validate the header fields again, as a new generation that shares the index files.

        Nothing is re-read from the folder or re-embedded; searches in flight keep the
        generation they opened.
        """
        choices = self._stored_choices(corpus).then(Choices.of(exact, plain))
        documents = self.corpus_searcher(corpus).corpus

        def build(path: Path, _live: Generation) -> dict:
            write_collection(path, corpus_collection(documents, choices))
            return {"structured": choices.to_dict()}

        self.corpus_store.derive(corpus, [STRUCTURED_FILE], build)
        return self.corpus_fields(corpus)

    def query_corpus(self, corpus: str, request: QueryRequest) -> QueryResponse:
        return self._query(self.corpus_store, corpus, self._load_corpus_collection, request)

    def query_catalog(self, catalog: str, request: QueryRequest) -> QueryResponse:
        return self._query(self.store, catalog, self._load_catalog_collection, request)

    def _query(
        self, store: Store, name: str, load: Callable[[Generation], Collection], request: QueryRequest
    ) -> QueryResponse:
        """Run in the sandbox's child process: untrusted SQL is never parsed or run in this one."""
        s = self.settings
        generation, collection = self._collection(store, name, load)
        return shared_sandbox(s.query_process_memory_mb * 2**20).query(
            (str(self.settings.home), store.shelf.folder, name, generation),
            collection,
            sql=request.sql,
            form=request.query,
            max_rows=min(request.max_rows or s.query_max_rows, s.query_max_rows),
            timeout_s=s.query_timeout_s,
            memory_limit=s.query_memory_limit,
            max_bytes=s.execute_max_bytes,
        )

    def _load_corpus_collection(self, generation: Generation) -> Collection:
        # Generations written before the structured index existed get one made from their corpus.
        stored = load_collection(generation.path)
        if stored is not None:
            return stored
        return corpus_collection(self.corpus_searcher(generation.name).corpus, self._stored_choices(generation.name))

    def _load_catalog_collection(self, generation: Generation) -> Collection:
        return catalog_collection(self.searcher(generation.name).catalog)

    def _collection(
        self, store: Store, name: str, load: Callable[[Generation], Collection]
    ) -> tuple[str, Collection]:
        """The live generation's id and its collection, loaded once per generation."""
        return self._loaded(self._collections, store, name, load)

    def _loaded(self, cache: dict, store: Store, name: str, load: Callable[[Generation], T]) -> tuple[str, T]:
        """The live generation's id and what ``load`` makes of it, loaded once per generation."""
        key = (store.shelf.folder, name)
        generation = store.current(name)
        with self._lock:
            cached = cache.get(key)
        if cached is None or cached[0] != generation.id:
            cached = (generation.id, store.open(name, load))
            with self._lock:
                cache[key] = cached
        return cached

    # -- helpers -------------------------------------------------------------------

    def _delete(self, store: Store, name: str) -> None:
        store.delete(name)
        # Another process may have deleted it too; either way nothing cached may outlive it.
        key = (store.shelf.folder, name)
        with self._lock:
            self._searchers.pop(key, None)
            self._collections.pop(key, None)
            self._catalogs.pop(key, None)

    def _is_open(self, store: Store, name: str) -> bool:
        with self._lock:
            cached = self._searchers.get((store.shelf.folder, name))
        return cached is not None and cached.generation == store.current(name).id

    def _open(self, store: Store, name: str, opener: Callable[[Generation, Embedder | None], Searcher]) -> Searcher:
        generation = store.current(name)
        key = (store.shelf.folder, name)
        with self._lock:
            cached = self._searchers.get(key)
            if cached is None or cached.generation != generation.id:
                embedder = self.embedder() if self.settings.dense else None
                cached, replaced = store.open(name, lambda live: opener(live, embedder)), cached
                self._searchers[key] = cached
                if replaced is not None and gc.get_freeze_count():
                    # A server froze what it loaded (http/readiness.py); frozen objects in
                    # reference cycles are never freed, so the old generation would stay.
                    gc.unfreeze()
            return cached

    def _write_indexes(
        self, path: Path, store: Store, name: str, kind: ItemKind, items: Sequence, progress: Progress | None
    ) -> dict:
        embedder = self._loaded_embedder(progress) if self.settings.dense else None
        previous = _previous_vectors(store, name) if embedder else None
        return write_indexes(path, kind, items, embedder, previous, progress)

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


def _previous_vectors(store: Store, name: str) -> DenseIndex | None:
    """The live generation's embeddings, so unchanged items are not encoded again."""
    if name not in store.names():
        return None
    try:
        return DenseIndex.load(store.current(name).path)
    except (OSError, ValueError, KeyError):  # unreadable: encode everything afresh
        return None


def _since(started: float) -> float:
    return round(time.perf_counter() - started, 3)


def _catalog_info(generation: Generation, catalog: Catalog) -> CatalogInfo:
    manifest = generation.manifest()
    views = sum(t.kind == "view" for t in catalog.tables)
    descriptions = [t.description for t in catalog.tables if t.description is not None]
    return CatalogInfo(
        name=catalog.name,
        tables=len(catalog.tables) - views,
        views=views,
        source=catalog.source,
        generation=generation.id,
        built_at=manifest["built_at"],
        warnings=list(catalog.warnings),
        **_dense_info(manifest),
        described=len(descriptions),
        described_at=max((d.generated_at for d in descriptions), default=None),
        description_models=sorted({d.model for d in descriptions}),
    )


def _dense_info(manifest: dict) -> dict:
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


def _corpus_info(generation: Generation, corpus: Corpus) -> CorpusInfo:
    manifest = generation.manifest()
    return CorpusInfo(
        name=corpus.name,
        documents=len(corpus.documents),
        chunks=len(corpus.chunks),
        source=corpus.source,
        generation=generation.id,
        built_at=manifest["built_at"],
        warnings=list(corpus.warnings),
        **_dense_info(manifest),
    )


def _read_catalog(generation: Generation) -> Catalog:
    return Catalog.from_json((generation.path / CATALOG_FILE).read_text(encoding="utf-8"))
