"""Corpora: folders of documents cut into passages, searched, and counted by their header fields."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

from ..core.build import Progress
from ..core.embedders import Embedder
from ..core.store import Generation, Shelf, check_name
from ..docs import results
from ..docs.chunker import Chunking
from ..docs.corpus import Corpus, write_corpus
from ..docs.documents import CHUNKS
from ..docs.models import CorpusIndexResult, CorpusInfo, DocsSearchResponse, SourceDetail
from ..docs.pages import write_pages
from ..docs.search import CorpusSearcher, DocsSearchConfig
from ..docs.sources import read_corpus
from ..errors import CorpusNotFound
from ..structured.collection import STRUCTURED_FILE, Collection, load_collection, write_collection
from ..structured.fields import Choices
from ..structured.models import FieldsResponse
from ..structured.sources import corpus_collection
from . import configs
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
            self.workspace.loaded_embedder(progress)  # chunk sizes are checked with its tokenizer
        chunking = self.chunking()
        read = read_corpus(Path(folder), corpus, chunking, url_template=url_template, progress=progress, origin=origin)

        choices = self._stored_choices(corpus)

        def build(path: Path) -> dict:
            write_corpus(path, read)
            write_pages(path, read)
            write_collection(path, corpus_collection(read, choices))
            manifest = {
                "documents": len(read.documents),
                "chunks": len(read.chunks),
                "chunking": chunking.describe(),
                "structured": choices.to_dict(),
            }
            return manifest | self._write_indexes(path, corpus, CHUNKS, read.chunks, progress)

        generation = self.store.write(corpus, build)
        return CorpusIndexResult(corpus=_corpus_info(generation, read), seconds=since(started))

    def rebuild_fields(self, name: str, exact: Sequence[str] = (), plain: Sequence[str] = ()) -> FieldsResponse:
        """Propose and validate the header fields again, as a new generation that shares the index files.

        Nothing is re-read from the folder or re-embedded; searches in flight keep the
        generation they opened.
        """
        choices = self._stored_choices(name).then(Choices.of(exact, plain))
        documents = self.searcher(name).corpus

        def build(path: Path, _live: Generation) -> dict:
            write_collection(path, corpus_collection(documents, choices))
            return {"structured": choices.to_dict()}

        self.store.derive(name, [STRUCTURED_FILE], build)
        return self.fields(name)

    # -- reading ---------------------------------------------------------------------

    def config(self) -> DocsSearchConfig:
        return configs.docs_config(self.settings)

    def chunking(self) -> Chunking:
        """Chunk sizes from the settings; checked with the embedding model's tokenizer when it is on."""
        return configs.chunking(self.settings, self.workspace.embedder() if self.settings.dense else None)

    def search(self, name: str, question: str, k: int | None = None) -> DocsSearchResponse:
        question, k = self.workspace.check_request(question, k)
        searcher = self.searcher(name)
        found = searcher.search(question, k, self.config())
        return results.response(searcher, question, found)

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
        return CorpusSearcher.open(generation, embedder)

    def _info(self, generation: Generation, searcher: CorpusSearcher) -> CorpusInfo:
        return _corpus_info(generation, searcher.corpus)

    def _load_collection(self, generation: Generation) -> Collection:
        # Generations written before the structured index existed get one made from their corpus.
        stored = load_collection(generation.path)
        if stored is not None:
            return stored
        return corpus_collection(self.searcher(generation.name).corpus, self._stored_choices(generation.name))


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
        **dense_info(manifest),
    )
