"""Catalogs: schema sources indexed as tables, searched, and the SQL run on their databases behind the gate."""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.build import Progress
from ..core.embedders import Embedder
from ..core.explain import context
from ..core.store import Generation, Shelf, check_name
from ..errors import CatalogNotFound, SourceError
from ..structured.collection import Collection
from ..structured.sources import catalog_collection
from ..tables.candidates import candidates, find_table, table_detail
from ..tables.catalog import Catalog
from ..tables.documents import TABLES
from ..tables.models import CatalogInfo, IndexResult, SearchResponse, TableDetail
from ..tables.search import CATALOG_FILE, CatalogSearcher, SearchConfig
from . import configs
from .sources import Host, Sources, dense_info, since

if TYPE_CHECKING:
    from ..preflight.gate import ExecuteResult, Gate

CATALOGS = Shelf("catalogs", "catalog", CatalogNotFound, "schema-search index SOURCE --catalog {name}")


class Catalogs(Sources[CatalogSearcher, CatalogInfo]):
    """The catalogs of one data directory: indexed from a schema source, searched for tables."""

    shelf = CATALOGS

    def __init__(self, workspace: Host) -> None:
        super().__init__(workspace)
        self._catalogs: dict[str, tuple[str, Catalog]] = {}

    # -- writing ---------------------------------------------------------------------

    def index(
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
        from .. import connectors  # the connectors import database drivers: only to index

        check_name(catalog)
        read = connectors.introspect(
            source,
            catalog=catalog,
            dialect=dialect,
            db=db,
            progress=progress,
            max_ddl_bytes=self.settings.max_ddl_bytes,
            value_hints=configs.value_hints(self.settings),
            trusted_objects=tuple(self.settings.execute_trusted_objects),
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
            return manifest | self._write_indexes(path, catalog.name, TABLES, catalog.tables, progress)

        generation = self.store.write(catalog.name, build)
        return IndexResult(catalog=_catalog_info(generation, catalog), seconds=since(started))

    # -- reading ---------------------------------------------------------------------

    def catalog(self, name: str) -> Catalog:
        """The live generation's catalog: the open searcher's, else read from the generation alone.

        Checking or running SQL needs the tables, not the indexes: an MCP server's first
        ``validate_sql`` or ``execute_sql`` does not wait for the embedding model.
        """
        if self.is_open(name):
            return self.searcher(name).catalog
        return self._loaded(self._catalogs, name, _read_catalog)[1]

    def config(self) -> SearchConfig:
        return configs.search_config(self.settings)

    def search(self, name: str, question: str, k: int | None = None) -> SearchResponse:
        question, k = self.workspace.check_request(question, k)
        searcher = self.searcher(name)
        result = searcher.search(question, k, self.config())
        closeness = searcher.channels.closeness(question, [r.id for r in result.ranked])
        return SearchResponse(
            catalog=name,
            question=question,
            off_topic=result.off_topic,
            candidates=candidates(searcher.catalog, result.ranked, question, closeness),
            **context(result, closeness),
        )

    def table(self, name: str, table: str) -> TableDetail:
        """One table by id (``schema.table``), bare name when unique, or source ID."""
        searcher = self.searcher(name)
        return table_detail(searcher.catalog, find_table(searcher.catalog, table))

    # -- running SQL -----------------------------------------------------------------

    def gate(self, name: str, url: str | None = None) -> Gate:
        """The ``execute_sql`` gate of catalog ``name``, as the operator configured it (or on ``url``).

        Raises:
            ExecutionOff: no database is configured for it: running queries on it is off.
            SecretUnavailable: its password's environment variable is unset or its file unreadable.
        """
        from ..preflight.gate import Gate

        return Gate(self.catalog(name), configs.gate_config(self.settings, name, url))

    def execute_sql(
        self,
        name: str,
        sql: str,
        question: str,
        *,
        approval: str | None = None,
        answers: Mapping[str, str] | None = None,
        conversation: Mapping[str, str] | None = None,
    ) -> ExecuteResult:
        """The checklist of ``sql`` on catalog ``name``'s database, or its rows once ``approval`` binds
        (:meth:`~schema_search.preflight.gate.Gate.execute_sql`)."""
        gate = self.gate(name)
        return gate.execute_sql(sql, question, approval=approval, answers=answers, conversation=conversation)

    # -- what tables are -------------------------------------------------------------

    def _open_searcher(self, generation: Generation, embedder: Embedder | None) -> CatalogSearcher:
        return CatalogSearcher.open(generation, embedder)

    def _info(self, generation: Generation, searcher: CatalogSearcher) -> CatalogInfo:
        return _catalog_info(generation, searcher.catalog)

    def _load_collection(self, generation: Generation) -> Collection:
        return catalog_collection(self.searcher(generation.name).catalog)

    def _forget(self, name: str) -> None:
        with self._lock:
            self._catalogs.pop(name, None)


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
        **dense_info(manifest),
        described=len(descriptions),
        described_at=max((d.generated_at for d in descriptions), default=None),
        description_models=sorted({d.model for d in descriptions}),
    )


def _read_catalog(generation: Generation) -> Catalog:
    return Catalog.from_json((generation.path / CATALOG_FILE).read_text(encoding="utf-8"))
