"""Catalogs: schema sources indexed as tables, searched, and the SQL run on their databases behind the gate."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ValidationError

from ..core.build import Progress, write_indexes
from ..core.dense import DenseIndex
from ..core.embedders import Embedder
from ..core.explain import context
from ..core.sealing import Sealer
from ..core.store import Generation, Shelf, check_name
from ..errors import CatalogNotFound, InvalidInput, SchemaSearchError, SourceError, TableAmbiguous, TableNotFound
from ..sql.validate import validate_sql
from ..structured.collection import Collection
from ..structured.sources import catalog_collection
from ..tables.candidates import candidates, find_table, table_detail
from ..tables.catalog import Catalog
from ..tables.documents import TABLES
from ..tables.examples import EXAMPLES, EXAMPLES_DIR, Example, Origin, load_examples, merged, write_examples
from ..tables.models import (
    CatalogInfo,
    ExampleInfo,
    ExampleInput,
    ExamplesResponse,
    IndexResult,
    SearchResponse,
    TableDetail,
)
from ..tables.search import CatalogSearcher, SearchConfig, read_catalog, write_catalog
from . import configs
from .shards import check_shards
from .sources import Host, Sources, dense_info, previous_vectors, since

if TYPE_CHECKING:
    from ..preflight.gate import ExecuteResult, Gate

log = logging.getLogger(__name__)
CATALOGS = Shelf("catalogs", "catalog", CatalogNotFound, "schemasift index SOURCE --catalog {name}")


class Catalogs(Sources[CatalogSearcher, CatalogInfo]):
    """The catalogs of one data directory: indexed from a schema source, searched for tables."""

    shelf = CATALOGS

    def __init__(self, workspace: Host) -> None:
        super().__init__(workspace)
        self._catalogs: dict[str, tuple[str, Catalog]] = {}
        self._keeping: list[threading.Thread] = []

    # -- writing ---------------------------------------------------------------------

    def index(
        self,
        source: str,
        *,
        catalog: str,
        dialect: str | None = None,
        db: str | None = None,
        progress: Progress | None = None,
        shards: int = 1,
    ) -> IndexResult:
        """Introspect ``source`` with the matching connector and index it as ``catalog``.

        A live database lends a sample of its short text values too (``value_hints*`` settings).
        ``shards``: split by table into that many shards (``core.shards``), each a complete index.
        """
        from .. import connectors  # the connectors import database drivers: only to index

        check_name(catalog)
        check_shards(shards, self.writer() is not None)
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
        return self.index_catalog(read, progress, shards)

    def index_catalog(self, catalog: Catalog, progress: Progress | None = None, shards: int = 1) -> IndexResult:
        """Index an introspected catalog as a new generation and swap it in.

        Args:
            catalog: the catalog; its name picks the folder.
            progress: wraps the tables while they are indexed (e.g. a progress bar).
            shards: split by table into that many shards, each a complete index (``core.shards``).
        """
        check_name(catalog.name)
        check_shards(shards, self.writer() is not None)
        if not catalog.tables:
            raise SourceError(
                f"Nothing to index for catalog {catalog.name!r}: the source has no tables.",
                hint="Check the source, the --db filter or the --dialect.",
            )
        started = time.perf_counter()

        sealer = self.writer()

        def build(path: Path) -> dict:
            write_catalog(path, catalog, sealer)
            manifest = {"tables": len(catalog.tables)}
            if shards > 1:
                # The catalog stays whole at the top level: the foreign-key boost and join completion read every table.
                tables = catalog.tables
                manifest |= self._write_shards(path, catalog.name, TABLES, tables, shards, TABLES.id_of, progress)
            else:
                manifest |= self._write_indexes(path, catalog.name, TABLES, catalog.tables, progress, sealer)
            # Past queries go with the catalog, but only those whose tables are all still there.
            kept = [e for e in self.examples(catalog.name, missing_ok=True) if all(map(catalog.table, e.tables))]
            previous = self._previous_vectors(catalog.name, EXAMPLES_DIR)
            return manifest | self._write_examples(path, catalog.name, kept, previous, sealer)

        generation = self.store.write(catalog.name, build)
        return IndexResult(catalog=_catalog_info(generation, catalog), seconds=since(started))

    def add_examples(self, name: str, pairs: Sequence[ExampleInput], origin: Origin = "added") -> ExamplesResponse:
        """Keep question -> SQL pairs with catalog ``name``: a new generation sharing the tables' index files.

        The pairs are merged with those of the generation live under the writer's lock, so
        two adds at once both land and a re-index in between is seen.

        Raises:
            InvalidInput: a pair's SQL is not one read-only query over the catalog's tables, or
                names a table the catalog lacks or has twice (the message says which pair).
        """
        catalog = self.catalog(name)
        new = [_example(catalog, pair, origin, number) for number, pair in enumerate(pairs, 1)]
        kept = self.examples(name)
        if {e.id for e in new} <= {e.id for e in kept}:  # nothing new: no generation to write
            return ExamplesResponse(catalog=name, examples=[_info(e) for e in kept])
        merged_now: list[list[Example]] = []

        def build(path: Path, live: Generation) -> dict:
            # Sealed as the generation it derives from is: its other files are that one's.
            sealer = self.reader(live)
            tables = read_catalog(live.path, sealer)
            before = load_examples(live.path / EXAMPLES_DIR, name, sealer)
            gone = sorted({t for e in new for t in e.tables if not tables.table(t)})
            if gone:
                raise InvalidInput(
                    f"Catalog {name!r} was re-indexed meanwhile and lacks {', '.join(gone)}.",
                    hint="Check the pairs against the catalog as it is now, and add them again.",
                )
            after = merged(before, new)
            merged_now[:] = [before, after]
            return self._write_examples(path, name, after, previous_vectors(live.path / EXAMPLES_DIR), sealer)

        self.store.derive(name, [EXAMPLES_DIR], build)
        before, after = merged_now
        return ExamplesResponse(catalog=name, added=len(after) - len(before), examples=[_info(e) for e in after])

    def list_examples(self, name: str) -> ExamplesResponse:
        return ExamplesResponse(catalog=name, examples=[_info(e) for e in self.examples(name)])

    def examples(self, name: str, missing_ok: bool = False) -> list[Example]:
        """The past queries kept with catalog ``name``."""
        if missing_ok and name not in self.store.names():
            return []
        live = self.store.current(name)
        return load_examples(live.path / EXAMPLES_DIR, name, self.reader(live))

    def _write_examples(
        self, path: Path, name: str, kept: Sequence[Example], previous: DenseIndex | None, sealer: Sealer | None = None
    ) -> dict:
        """The examples folder of a generation: the pairs, their question field and their vectors."""
        if not kept:
            return {"examples": 0}
        folder = path / EXAMPLES_DIR
        write_examples(folder, kept, name, sealer)
        embedder = self.workspace.loaded_embedder(None) if self.settings.dense else None
        write_indexes(folder, EXAMPLES, kept, embedder, previous, sealer=sealer)
        return {"examples": len(kept)}

    # -- reading ---------------------------------------------------------------------

    def catalog(self, name: str) -> Catalog:
        """The live generation's catalog: the open searcher's, else read from the generation alone.

        Checking or running SQL needs the tables, not the indexes: an MCP server's first
        ``validate_sql`` or ``execute_sql`` does not wait for the embedding model.
        """
        if self.is_open(name):
            return self.searcher(name).catalog
        return self._loaded(self._catalogs, name, lambda live: read_catalog(live.path, self.reader(live)))[1]

    def config(self) -> SearchConfig:
        return configs.search_config(self.settings)

    def search(
        self, name: str, question: str, k: int | None = None, history: Sequence[str] | None = None
    ) -> SearchResponse:
        """Tables for ``question``; a follow-up is written out with ``history`` (earlier user messages) first."""
        question, k = self.workspace.check_request(question, k)
        searched, rewrite = self.workspace.retrieval(question, history)
        searcher = self.searcher(name)
        config = self.config()
        past = searcher.matching_examples(searched, config)
        result = searcher.search(searched, k, config, past)
        closeness = searcher.channels.closeness(searched, [r.id for r in result.ranked])
        return SearchResponse(
            catalog=name,
            question=question,
            retrieval_question=searched,
            rewrite=rewrite,
            off_topic=result.off_topic,
            candidates=candidates(searcher.catalog, result.ranked, searched, closeness),
            examples=[] if result.off_topic else [_info(e) for e in past],
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
        result = gate.execute_sql(sql, question, approval=approval, answers=answers, conversation=conversation)
        if result.status == "executed" and self.settings.examples_from_approved:
            # After the rows, not before: keeping it writes a generation (and may wait for a
            # re-index's lock). Not a daemon: a process that exits first still finishes it.
            keeping = threading.Thread(
                target=self._keep_approved,
                args=(name, sql, question, list(result.checklist.tables)),
                name="keep-approved",
            )
            keeping.start()
            self._keeping = [*(t for t in self._keeping if t.is_alive()), keeping]
        return result

    def wait_for_kept(self) -> None:
        """Wait until the approved queries handed to the background are kept (tests, and a clean shutdown)."""
        while self._keeping:
            self._keeping.pop().join()

    def _keep_approved(self, name: str, sql: str, question: str, tables: list[str]) -> None:
        """Keep an approved, executed query as a past query; the rows are the answer, so a failure here is only logged."""
        try:
            self.add_examples(name, [ExampleInput(question=question, sql=sql, tables=tables)], origin="approved")
        except (SchemaSearchError, ValidationError) as error:
            log.warning("approved query not kept as an example of %s: %s", name, error)

    # -- what tables are -------------------------------------------------------------

    def _open_searcher(self, generation: Generation, embedder: Embedder | None) -> CatalogSearcher:
        scatter = self._shards(generation)
        if scatter is not None:
            return CatalogSearcher.open_sharded(generation, scatter, embedder)
        return CatalogSearcher.open(generation, embedder, self.reader(generation))

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


def _example(catalog: Catalog, pair: ExampleInput, origin: Origin, number: int) -> Example:
    """A pair as an example of ``catalog``, its tables checked (given) or read from its SQL."""
    where = f"Example {number} ({pair.question[:60]!r})"
    if pair.tables is not None:
        try:
            tables = tuple(dict.fromkeys(find_table(catalog, table).id for table in pair.tables))
        except (TableNotFound, TableAmbiguous) as error:
            raise InvalidInput(f"{where}: {error.detail}", hint=error.hint) from None
    else:
        checked = validate_sql(pair.sql, None, catalog)
        if not checked.ok:
            raise InvalidInput(
                f"{where}: {checked.problems()}",
                hint="Give one read-only query over the catalog's tables, or list them in `tables` (schema.table).",
            )
        tables = tuple(checked.tables)
    if not tables:
        raise InvalidInput(
            f"{where} reads no table of catalog {catalog.name!r}.", hint="An example is evidence for tables."
        )
    return Example(" ".join(pair.question.split()), pair.sql.strip(), tables, origin)


def _info(example: Example) -> ExampleInfo:
    return ExampleInfo(
        id=example.id, question=example.question, sql=example.sql, tables=list(example.tables), origin=example.origin
    )
