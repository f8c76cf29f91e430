"""Question -> ranked chunks: the core's channels and stages, with the page channel, pins and a cap per page.

The shared stages (``core.ranking``) run with what chunks add: the page channel
(``docs.pages``) lifts the passages of pages that are about the question as a whole;
chunks that contain a reference the question writes verbatim go first, those whose
context header has it before those whose text merely mentions it, each group in the
fused (semantic) order; chunks with every meaningful word of the question stay above
the floor. Then a page gives at most ``per_page`` unpinned passages to the first k
(``core.diversity.spread``). Pins never push out the chunk the embedding model finds
nearest: if they did, it is added after them (``added``), so a result can hold k + 1 chunks.

The only I/O is inside :class:`CorpusSearcher` (tantivy, the embedding model).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..core.channels import Channels, Ranker
from ..core.closeness import Closeness
from ..core.diversity import grouped, spread
from ..core.embedders import Embedder
from ..core.ranking import Fusion, Ranking, rank
from ..core.sealing import Sealer
from ..core.shards import Scatter, ShardedFieldRanker
from ..core.store import Generation
from . import verbatim
from .corpus import Chunk, Corpus, Document, SealedChunk, load_corpus, load_text, opened
from .coverage import title_words
from .documents import FIELDS
from .pages import FIELD as PAGE_FIELD
from .pages import PAGE_CHANNEL, PAGES_DIR, PageRanker, lift_by_page
from .references import Reference, pinned_chunks


@dataclass(frozen=True)
class DocsSearchConfig:
    """How to rank chunks. The docs eval varies it; Settings gives the shipped default."""

    weights: Mapping[str, float] = field(default_factory=lambda: {"headings": 0.5, "body": 1.0, "dense": 1.5})
    rrf_k: float = 5.0
    depth: int = 100
    scale_by_coverage: bool = True
    pin_identifiers: bool = True
    pin_share: float = 0.05
    # A reference past ``pin_share`` pins the chunks before the gap in their distances (``core.pin.before_gap``),
    # a gap within the first ``gap_within``: what an answer holds, however deep a caller asks.
    pin_gap: bool = True
    gap_within: int = 10
    relevance_floor: bool = True
    # Chunks with every meaningful word of the question in their headings or body stay
    # above the floor, and keep the question on topic (``floor.apply_floor``).
    keyword_anchors: bool = True
    # Passages of one page in the first k, at most (0: no cap); further ones follow the
    # other pages' (``core.diversity.spread``). The kept passages of a page are then
    # listed together, behind its best one, when ``group_pages``.
    per_page: int = 2
    group_pages: bool = False
    # Fusion weight of the page channel (``docs.pages``): BM25 over whole pages lifts
    # their passages. 0: off.
    page_weight: float = 1.0


@dataclass(frozen=True)
class ChunkHits:
    """The ranking, with how near the question is to each ranked chunk (None without dense)."""

    ranking: Ranking
    closeness: Closeness | None


def keep_nearest(order: list[str], k: int, nearest: str | None) -> list[tuple[str, bool]]:
    """The first ``k`` of ``order``, and ``nearest`` after them (added) when it is further down.

    >>> keep_nearest(["p1", "p2", "x", "n"], 2, "n")
    [('p1', False), ('p2', False), ('n', True)]
    >>> keep_nearest(["p1", "n"], 2, "n")
    [('p1', False), ('n', False)]
    """
    head = [(item, False) for item in order[:k]]
    if nearest is not None and nearest in order[k:]:
        head.append((nearest, True))
    return head


class CorpusSearcher:
    """An opened corpus generation, ready to answer questions."""

    def __init__(
        self,
        corpus: Corpus,
        channels: Channels,
        coverage: Mapping[str, float],
        generation: str = "",
        path: Path | None = None,
        pages: PageRanker | None = None,
        sealer: Sealer | None = None,
    ) -> None:
        self.corpus = corpus
        self.sealer = sealer
        # Chunks decrypted so far (a sealed corpus): those returned, and those a pin had to read
        # (for a reference whose shape no verbatim key covers: docs.verbatim).
        # Read it before and after a search to count that search's; nothing else is decrypted.
        self.decrypted = 0
        self.pages = pages
        self.channels = channels
        self.coverage = dict(coverage)
        self.generation = generation
        self.path = path
        self._chunks = {c.id.lower(): c for c in corpus.chunks}
        self._document_of = {c.id: c.document for c in corpus.chunks}  # no decryption to know a chunk's page
        self._documents = {d.id.lower(): d for d in corpus.documents}
        # The labels documents are known by ("pep" for "PEP 572"): cited in any case.
        self.labels = frozenset(d.label.split()[0].lower() for d in corpus.documents if d.label)
        # The corpus's own words, for the coverage check's subject (docs.coverage).
        self.vocabulary = title_words(d.title for d in corpus.documents)

    @classmethod
    def open(
        cls, generation: Generation, embedder: Embedder | None = None, sealer: Sealer | None = None
    ) -> CorpusSearcher:
        """Open a stored generation; a sealed one needs its ``sealer``, and its chunks stay sealed in memory."""
        corpus = load_corpus(generation.path, sealer)
        chunk_ids = page_ids = None
        if sealer is not None:
            chunk_ids = {sealer.blind_id(c.id): c.id for c in corpus.chunks}
            page_ids = {sealer.blind_id(d.id): d.id for d in corpus.documents}
        channels = Channels.open(generation, FIELDS, embedder, sealer=sealer, ids=chunk_ids)
        manifest = generation.manifest()
        pages = PageRanker.open(generation.path, sealer, page_ids)
        return cls(corpus, channels, manifest["coverage"], generation.id, generation.path, pages, sealer)

    @classmethod
    def open_sharded(cls, generation: Generation, scatter: Scatter, embedder: Embedder | None = None) -> CorpusSearcher:
        """Open a sharded generation (``core.shards``): its passages from its top level, its indexes in
        the shards that ``scatter`` asks (in this process, or Ray Serve's replicas)."""
        manifest = generation.manifest()
        corpus = load_corpus(generation.path)
        order = {chunk.id: n for n, chunk in enumerate(corpus.chunks)}
        page_ranker = ShardedFieldRanker(scatter, PAGES_DIR, {d.id: n for n, d in enumerate(corpus.documents)})
        also = [(page_ranker, PAGE_FIELD)]  # the page channel's ranking comes with the others'
        channels = Channels.from_shards(scatter, manifest, FIELDS, embedder, order=order, anchors=True, also=also)
        pages = PageRanker(page_ranker)
        return cls(corpus, channels, manifest["coverage"], generation.id, generation.path, pages)

    @property
    def rankers(self) -> dict[str, Ranker]:
        return self.channels.rankers

    def chunk(self, source_id: str) -> Chunk | None:
        """The chunk, decrypted now when the corpus is sealed (and counted in :attr:`decrypted`)."""
        found = self._chunks.get(source_id.strip().strip("[]").lower())
        if isinstance(found, SealedChunk):
            assert self.sealer is not None  # a sealed corpus is only loaded with its sealer
            self.decrypted += 1
            return found.open(self.sealer)
        return found

    def document(self, source_id: str) -> Document | None:
        return self._documents.get(source_id.strip().strip("[]").lower())

    def text(self, document: Document) -> str:
        found = load_text(self.path, document.id, self.sealer) if self.path else None
        return (
            found
            if found is not None
            else "\n\n".join(c.text for c in opened(self.corpus, self.sealer).chunks if c.document == document.id)
        )

    def search(self, question: str, k: int, config: DocsSearchConfig) -> ChunkHits:
        rankings = self.channels.rankings(question, config.depth)
        # A corpus has thousands of chunks: some chunk is always a little near any text,
        # so off topic is judged against how near unrelated text gets to its nearest chunk.
        relevance = self.channels.relevance(question, rankings, nearest_topic_floor=True)
        found, kept = self._pins(question, k, config) if config.pin_identifiers else ([], [])
        about = {chunk for chunk, in_header in found if in_header}
        pins = [chunk for chunk, _ in found]
        nearest = relevance.nearest if relevance is not None and relevance.judges and pins else None
        anchors = self.channels.matching_all(question, FIELDS, config.depth) if config.keyword_anchors else []
        anchors += kept  # a crowded reference's passages before its gap: kept above the floor, not moved first
        page_ranks = (
            {page: position for position, page in enumerate(self.pages.rank(question, config.depth), 1)}
            if self.pages is not None and config.page_weight > 0
            else {}
        )
        ranking = rank(
            rankings,
            Fusion(config.weights, config.rrf_k, config.scale_by_coverage),
            k,
            coverage=self.coverage,
            readable=relevance.readable if relevance else 1.0,
            boost=lambda scored: lift_by_page(scored, self._page_of, page_ranks, config.page_weight, config.rrf_k),
            pins=pins,
            # Chunks about the reference before chunks that mention it, each in the fused order.
            pin_order=lambda chunk, score: (chunk not in about, -score),
            relevance=relevance if config.relevance_floor else None,
            anchors=anchors,
            complete=lambda order, k: self._complete(order, k, nearest, set(pins), config),
        )
        if page_ranks:
            # Shown as a channel: a passage's rank in it is its page's, so its score still
            # reads as the sum of its channels' contributions.
            for ranked in ranking.ranked:
                ranked.channels[PAGE_CHANNEL] = page_ranks.get(self._page_of(ranked.id))
            ranking = replace(ranking, weights={**ranking.weights, PAGE_CHANNEL: config.page_weight})
        return ChunkHits(ranking, self.channels.closeness(question, [r.id for r in ranking.ranked]))

    def _complete(
        self, order: list[str], k: int, nearest: str | None, pinned: set[str], config: DocsSearchConfig
    ) -> list[tuple[str, bool]]:
        """The first ``k`` passages spread over pages (pinned ones first, uncapped), the nearest one kept,
        and each page's passages together when ``group_pages``."""
        head = keep_nearest(spread(order, self._page_of, config.per_page, pinned), k, nearest)
        if not config.group_pages:
            return head
        added = dict(head)
        return [(chunk, added[chunk]) for chunk in grouped([chunk for chunk, _ in head], self._page_of)]

    def _page_of(self, chunk_id: str) -> str:
        return self._document_of.get(chunk_id, chunk_id)

    def _pins(self, question: str, k: int, config: DocsSearchConfig) -> tuple[list[tuple[str, bool]], list[str]]:
        """``(chunk, its header has the reference)`` for the chunks the question's references point at,
        and those a reference in too many documents keeps by the gap in their distances."""
        if self.channels.fields is None:
            return [], []

        def distances(ids: list[str]) -> dict[str, float]:
            closeness = self.channels.closeness(question, ids)  # the question's scores are cached
            if closeness is None:
                return {}
            return {i: d for i in ids if (d := closeness.distance(i)) is not None}

        return pinned_chunks(
            question,
            self.channels.fields,
            self.chunk,
            len(self.corpus.documents),
            config.pin_share,
            self.labels,
            distances=distances if config.pin_gap and self.channels.vectors is not None else None,
            most=min(k, config.gap_within),
            # Reading a sealed chunk decrypts it, and only the passages returned may be: its keys tell instead.
            holders=self._holders if self.sealer is not None else None,
        )

    def _holders(self, reference: Reference) -> tuple[dict[str, str], dict[str, str]] | None:
        """(chunk -> its page) for the chunks with ``reference`` in their header, and in their text, from
        the sealed index's verbatim keys; None for a reference without a key, or an index without them."""
        fields = self.channels.fields
        if reference.key is None or fields is None:
            return None
        header, text = (fields.holding(field, reference.key) for field in verbatim.FIELDS)
        if header is None or text is None:
            return None
        return {c: self._page_of(c) for c in header}, {c: self._page_of(c) for c in text}
