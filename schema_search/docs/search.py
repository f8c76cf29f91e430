"""Question -> ranked chunks: the core's channels and stages, with verbatim pins and the nearest chunk kept.

The shared stages (``core.ranking``) run with the chunks' pins: chunks that contain
a reference the question writes verbatim go first, those whose context header has
it before those whose text merely mentions it, each group in the fused (semantic)
order. Pins never push out the chunk the embedding model finds nearest: if they
did, it is added after them (``added``), so a result can hold k + 1 chunks.

The only I/O is inside :class:`CorpusSearcher` (tantivy, the embedding model).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..core.channels import Channels, Ranker
from ..core.closeness import Closeness
from ..core.embedders import Embedder
from ..core.ranking import Fusion, Ranking, rank
from ..core.store import Generation
from .corpus import Chunk, Corpus, Document, load_corpus, load_text
from .documents import FIELDS
from .references import pinned_chunks


@dataclass(frozen=True)
class DocsSearchConfig:
    """How to rank chunks. The docs eval varies it; Settings gives the shipped default."""

    weights: Mapping[str, float] = field(default_factory=lambda: {"headings": 0.5, "body": 1.0, "dense": 1.5})
    rrf_k: float = 5.0
    depth: int = 100
    scale_by_coverage: bool = True
    pin_identifiers: bool = True
    pin_share: float = 0.05
    relevance_floor: bool = True


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
    ) -> None:
        self.corpus = corpus
        self.channels = channels
        self.coverage = dict(coverage)
        self.generation = generation
        self.path = path
        self._chunks = {c.id.lower(): c for c in corpus.chunks}
        self._documents = {d.id.lower(): d for d in corpus.documents}
        # The labels documents are known by ("pep" for "PEP 572"): cited in any case.
        self.labels = frozenset(d.label.split()[0].lower() for d in corpus.documents if d.label)

    @classmethod
    def open(cls, generation: Generation, embedder: Embedder | None = None) -> CorpusSearcher:
        channels = Channels.open(generation, FIELDS, embedder)
        corpus = load_corpus(generation.path)
        return cls(corpus, channels, generation.manifest()["coverage"], generation.id, generation.path)

    @property
    def rankers(self) -> dict[str, Ranker]:
        return self.channels.rankers

    def chunk(self, source_id: str) -> Chunk | None:
        return self._chunks.get(source_id.strip().strip("[]").lower())

    def document(self, source_id: str) -> Document | None:
        return self._documents.get(source_id.strip().strip("[]").lower())

    def text(self, document: Document) -> str:
        found = load_text(self.path, document.id) if self.path else None
        return (
            found if found is not None else "\n\n".join(c.text for c in self.corpus.chunks if c.document == document.id)
        )

    def search(self, question: str, k: int, config: DocsSearchConfig) -> ChunkHits:
        rankings = self.channels.rankings(question, config.depth)
        # A corpus has thousands of chunks: some chunk is always a little near any text,
        # so off topic is judged against how near unrelated text gets to its nearest chunk.
        relevance = self.channels.relevance(question, rankings, nearest_topic_floor=True)
        found = self._pins(question, config) if config.pin_identifiers else []
        about = {chunk for chunk, in_header in found if in_header}
        pins = [chunk for chunk, _ in found]
        nearest = relevance.nearest if relevance is not None and relevance.judges and pins else None
        ranking = rank(
            rankings,
            Fusion(config.weights, config.rrf_k, config.scale_by_coverage),
            k,
            coverage=self.coverage,
            readable=relevance.readable if relevance else 1.0,
            pins=pins,
            # Chunks about the reference before chunks that mention it, each in the fused order.
            pin_order=lambda chunk, score: (chunk not in about, -score),
            relevance=relevance if config.relevance_floor else None,
            complete=lambda order, k: keep_nearest(order, k, nearest),
        )
        return ChunkHits(ranking, self.channels.closeness(question, [r.id for r in ranking.ranked]))

    def _pins(self, question: str, config: DocsSearchConfig) -> list[tuple[str, bool]]:
        """``(chunk, its header has the reference)`` for the chunks the question's references point at."""
        if self.channels.fields is None:
            return []
        return pinned_chunks(
            question, self.channels.fields, self.chunk, len(self.corpus.documents), config.pin_share, self.labels
        )
