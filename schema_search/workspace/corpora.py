"""Corpora: folders of documents cut into passages, searched, and counted by their header fields."""

from __future__ import annotations

import time
from collections.abc import Sequence
from operator import attrgetter
from pathlib import Path

from ..core import sealing
from ..core.build import Progress
from ..core.embedders import Embedder
from ..core.sealing import Sealer
from ..core.store import Generation, Shelf, check_name
from ..docs import coverage, results
from ..docs.chunker import Chunking
from ..docs.corpus import Corpus, opened, write_corpus
from ..docs.crawl.config import CrawlConfig
from ..docs.crawl.mirror import Mirror, stamped
from ..docs.crawl.site import crawl_site
from ..docs.documents import CHUNKS
from ..docs.models import CorpusIndexResult, CorpusInfo, Coverage, CrawlCounts, DocsSearchResponse, SourceDetail
from ..docs.pages import FIELD as PAGE_FIELD
from ..docs.pages import PAGES_DIR, page_documents, write_pages
from ..docs.search import CorpusSearcher, DocsSearchConfig
from ..docs.sources import Personal, check_source, read_corpus
from ..docs.visual.options import Visual
from ..errors import CorpusNotFound
from ..structured.collection import STRUCTURED_FILE, Collection, collection_from_json, collection_json
from ..structured.fields import Choices
from ..structured.models import FieldsResponse
from ..structured.sources import corpus_collection
from . import batches, configs
from .shards import Part, check_shards
from .sources import Sources, dense_info, since

CORPORA = Shelf("corpora", "corpus", CorpusNotFound, "schemasift docs index FOLDER --corpus {name}")


class Corpora(Sources[CorpusSearcher, CorpusInfo]):
    """The corpora of one data directory: indexed from a folder, searched for passages."""

    shelf = CORPORA

    # -- writing ---------------------------------------------------------------------

    def index(
        self,
        folder: Path,
        *,
        corpus: str,
        url_template: str | None = None,
        progress: Progress | None = None,
        origin: str | None = None,
        site: str = "auto",
        shards: int = 1,
    ) -> CorpusIndexResult:
        """Read every supported file under ``folder``, chunk it, and index it as ``corpus``.

        Files that cannot be read become warnings; the corpus indexes without them.
        ``origin`` is recorded as the source instead of a folder that will not last (``upload``).
        ``site``: the generator that builds the folder (``mkdocs``, ``vitepress``,
        ``docusaurus``), ``plain`` for none, ``auto`` to detect it from its config file.
        ``shards``: split by document into that many shards (``core.shards``), each a complete index.

        Raises:
            SourceError: ``folder`` is not a folder, or no file under it could be read.
            InvalidInput: a bad URL template or site kind.
        """
        check_name(corpus, "corpus")
        check_source(Path(folder), url_template, site)  # before the model loads: a wrong path fails at once
        check_shards(shards, self.writer() is not None)
        started = time.perf_counter()
        if self.settings.dense:
            self.workspace.loaded_embedder(progress)  # chunk sizes are checked with its tokenizer
        chunking = self.chunking()
        read = read_corpus(
            Path(folder),
            corpus,
            chunking,
            url_template=url_template,
            progress=progress,
            origin=origin,
            site=site,
            **self._reading(),
        )
        return self._store_corpus(corpus, read, chunking, started, progress, shards=shards)

    def index_url(
        self,
        url: str,
        *,
        corpus: str,
        crawl: CrawlConfig | None = None,
        progress: Progress | None = None,
        shards: int = 1,
    ) -> CorpusIndexResult:
        """Fetch the pages of the site at ``url`` into the corpus's mirror folder, then index them as ``corpus``.

        Run again, it refreshes: pages the site says are unchanged (304) are kept without
        downloading and their vectors reused; pages gone are dropped. The mirror
        (``<home>/crawls/<corpus>/``) and the live corpus change only once the new
        generation is stored.

        Raises:
            SourceError: the site cannot be reached, robots.txt closes it, the start page is
                not a page, no page was found, or none could be fetched.
        """
        check_name(corpus, "corpus")
        check_shards(shards, self.writer() is not None)
        started = time.perf_counter()
        # Sealed with the data key once a KEK is configured, as the generation is (see ``Mirror``).
        mirror = Mirror.of(self.settings.home, corpus, self.writer())
        with mirror.locked():
            crawled = crawl_site(url, mirror, crawl, progress)
            try:
                if self.settings.dense:
                    self.workspace.loaded_embedder(progress)
                chunking = self.chunking()
                # plain: the pages are as the site serves them, and no mkdocs.yml above the data directory applies.
                with mirror.opened(crawled.folder) as pages:
                    read = read_corpus(pages, corpus, chunking, progress=progress, site="plain", **self._reading())
                read = stamped(read, crawled.records, crawled.source(mirror.folder), crawled.warnings)
                result = self._store_corpus(corpus, read, chunking, started, progress, crawled.counts, shards)
            except BaseException:
                mirror.discard()  # the last crawl's pages stay, as the live corpus does
                raise
            mirror.commit()
        return result

    def _store_corpus(
        self,
        corpus: str,
        read: Corpus,
        chunking: Chunking,
        started: float,
        progress: Progress | None,
        crawl: CrawlCounts | None = None,
        shards: int = 1,
    ) -> CorpusIndexResult:
        """Index ``read`` and swap it in as the live generation of ``corpus`` (in ``shards`` shards, when more than one)."""
        choices = self._stored_choices(corpus)
        sealer = self.writer()

        def build(path: Path) -> dict:
            write_corpus(path, read, sealer)
            _write_collection(path, corpus_collection(read, choices), sealer)
            manifest = {
                "documents": len(read.documents),
                "chunks": len(read.chunks),
                "chunking": chunking.describe(),
                "structured": choices.to_dict(),
            }
            if shards > 1:
                # Each shard holds its documents' pages too.
                pages = Part(PAGES_DIR, (PAGE_FIELD,), list(page_documents(read)), [d.id for d in read.documents])
                document = attrgetter("document")
                return manifest | self._write_shards(
                    path, corpus, CHUNKS, read.chunks, shards, document, progress, [pages]
                )
            write_pages(path, read, sealer)
            return manifest | self._write_indexes(path, corpus, CHUNKS, read.chunks, progress, sealer)

        generation = self.store.write(corpus, build)
        return CorpusIndexResult(corpus=_corpus_info(generation, read), seconds=since(started), crawl=crawl)

    def rebuild_fields(self, name: str, exact: Sequence[str] = (), plain: Sequence[str] = ()) -> FieldsResponse:
        """Propose and validate the header fields again, as a new generation that shares the index files.

        Nothing is re-read from the folder or re-embedded; searches in flight keep the
        generation they opened.
        """
        choices = self._stored_choices(name).then(Choices.of(exact, plain))
        searcher = self.searcher(name)
        # Proposing fields reads every chunk's headings and opening: a sealed corpus's are decrypted for it.
        documents = opened(searcher.corpus, searcher.sealer)

        def build(path: Path, live: Generation) -> dict:
            _write_collection(path, corpus_collection(documents, choices), self.reader(live))
            return {"structured": choices.to_dict()}

        self.store.derive(name, [STRUCTURED_FILE], build)
        return self.fields(name)

    def _forget(self, name: str) -> None:
        Mirror.of(self.settings.home, name).remove()  # a crawled corpus's pages go with it

    # -- reading ---------------------------------------------------------------------

    def _reading(self) -> dict[str, Visual | Personal | None]:
        """How documents are read, as the settings say: beyond their text layer (scans, figures),
        and with or without their e-mail addresses and phone numbers masked."""
        personal = Personal(self.settings.phone_region) if self.settings.docs_mask_personal else None
        return {"visual": Visual.from_settings(self.settings), "personal": personal}

    def config(self) -> DocsSearchConfig:
        return configs.docs_config(self.settings)

    def chunking(self) -> Chunking:
        """Chunk sizes from the settings; checked with the embedding model's tokenizer when it is on."""
        return configs.chunking(self.settings, self.workspace.embedder() if self.settings.dense else None)

    def search(
        self,
        name: str,
        question: str,
        k: int | None = None,
        history: Sequence[str] | None = None,
        session: str | None = None,
        turn: str | None = None,
    ) -> DocsSearchResponse:
        """Passages for ``question``; a follow-up is written out with ``history`` (earlier user messages) first.

        With a ``session`` and a ``turn``, a repeat of the turn's question gets the next batch of
        its ranking, once (:mod:`.batches`).
        """
        question, k = self.workspace.check_request(question, k)
        searched, rewrite = self.workspace.retrieval(question, history)
        asked = {"question": question, "retrieval_question": searched, "rewrite": rewrite}
        key = (name, session, str(turn)) if session and turn is not None and self.settings.next_batch else None
        said = batches.words(searched) if key is not None else frozenset()  # a turn's question, read once
        if key is not None:
            repeated = self.workspace.batches.repeat(key, said)
            if repeated is not None:  # the first search's response, holding the results it kept back
                kept = DocsSearchResponse.model_validate_json(repeated)
                return kept.model_copy(update={**asked, "results": kept.results[:k], "batch": 2})
        searcher = self.searcher(name)
        found = searcher.search(searched, k * batches.POOL if key is not None else k, self.config())
        response = results.response(searcher, searched, found).model_copy(update=asked)
        if self.settings.docs_coverage_pass:
            response = self._cover(searcher, searched, response, k)
        if key is None:
            return response.model_copy(update={"results": response.results[:k]})
        first = response.model_copy(update={"results": response.results[:k], "batch": 1})
        kept = first.model_copy(update={"results": response.results[k:]})
        self.workspace.batches.keep(key, said, kept.model_dump_json())
        return first

    def _cover(
        self, searcher: CorpusSearcher, question: str, response: DocsSearchResponse, k: int
    ) -> DocsSearchResponse:
        """The coverage second pass: when the first ``k`` passages lack the question's subject or
        aspect (:mod:`~schema_search.docs.coverage`), one more search for it, and the passages of it
        that hold what was missing put in the place of the last ones. Once, never in a loop."""
        shown = response.results[:k]
        if response.off_topic or not shown:
            return response
        lacking = coverage.missing(question, [_readable(r) for r in shown], searcher.vocabulary)
        if not lacking:
            return response
        query = coverage.follow_up_query(question, lacking)
        again = results.response(searcher, query, searcher.search(query, k, self.config()))
        ids = {r.source_id for r in response.results}
        fixes = [
            r
            for r in again.results
            if r.source_id not in ids and coverage.fixes(question, _readable(r), lacking, searcher.vocabulary)
        ][: coverage.MOST_ADDED]
        kept = shown[: max(k - len(fixes), 0)]
        # The passages the fixes displaced lead what is kept back, for a next batch to show.
        merged = kept + fixes + shown[len(kept) :] + response.results[k:]
        report = Coverage(looked_for=lacking.described(), searched=query, added=[r.source_id for r in fixes])
        return response.model_copy(update={"results": merged, "coverage": report})

    def source(self, name: str, source_id: str) -> SourceDetail:
        """A chunk, or a whole document, by its source ID (``S3fa21c``)."""
        return results.detail(self.searcher(name), source_id)

    def choices(self) -> Choices:
        """Which header fields are exact, as the settings say (beside the URL- and ID-shaped ones)."""
        return Choices.of(self.settings.exact_fields, self.settings.plain_fields)

    def _stored_choices(self, name: str) -> Choices:
        """The settings' choices, then those a rebuild of this corpus recorded (they outlive re-indexing)."""
        if name not in self.store.names():
            return self.choices()
        stored = self.store.current(name).manifest().get("structured") or {}
        return self.choices().then(Choices.of(stored.get("exact", ()), stored.get("plain", ())))

    # -- what documents are ----------------------------------------------------------

    def _open_searcher(self, generation: Generation, embedder: Embedder | None) -> CorpusSearcher:
        scatter = self._shards(generation)
        if scatter is not None:
            return CorpusSearcher.open_sharded(generation, scatter, embedder)
        return CorpusSearcher.open(generation, embedder, self.reader(generation))

    def _info(self, generation: Generation, searcher: CorpusSearcher) -> CorpusInfo:
        return _corpus_info(generation, searcher.corpus)

    def _load_collection(self, generation: Generation) -> Collection:
        # Generations written before the structured index existed get one made from their corpus,
        # and so do those stored without a documents table (before every corpus had one).
        stored = _load_collection(generation.path, self.reader(generation))
        if stored is not None and stored.tables:
            return stored
        return corpus_collection(self.searcher(generation.name).corpus, self._stored_choices(generation.name))


def _write_collection(folder: Path, collection: Collection, sealer: Sealer | None) -> None:
    """``structured.json``, sealed as a whole with a ``sealer``: its rows are the documents' header fields."""
    sealing.write_file(folder / STRUCTURED_FILE, collection_json(collection), sealer, f"structured\0{collection.name}")


def _load_collection(folder: Path, sealer: Sealer | None) -> Collection | None:
    """The collection a generation stored (None before there was one), opened when it is sealed."""
    path = folder / STRUCTURED_FILE
    if not path.is_file():
        return None
    text = sealing.read_file(path, sealer, f"structured\0{folder.parent.name}", required=sealer is not None)
    return collection_from_json(text)


def _readable(result) -> str:
    """What a reader of a passage sees: its title, headings and text."""
    return "\n".join([result.title, *result.heading_path, result.text])


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
        visual={d.path: d.visual for d in corpus.documents if d.visual},
        **dense_info(manifest),
    )
