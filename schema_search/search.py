"""Question -> ranked tables: run each channel, fuse, then the join-graph stages.

Stages, in order (each a pure function over ranked lists, see :func:`rank_tables`):

1. weighted RRF of the channel rankings (``fusion.rrf``), weights scaled by coverage;
2. ``expand.graph_boost``: tables joined by foreign key to other strong candidates rise;
3. ``pin.pin_first``: tables the question names verbatim go first;
4. relevance floor: tables the dense model finds no nearer than unrelated text, and
   that no keyword channel matched on names or body, are dropped; a question nothing
   in the catalog relates to gets no candidates and ``off_topic``;
5. ``expand.complete_joins``: bridge tables between the leading candidates, marked.

The only I/O is inside :class:`CatalogSearcher` (tantivy, the embedding model).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable, Mapping, Sequence

from . import analyzer, expand, pin
from .catalog import Catalog
from .dense import DenseIndex, Embedder
from .documents import FIELDS, table_document
from .fusion import ranks_of, rrf
from .index import FieldRanker, open_index
from .store import Generation

# A channel ranker: (question, how many) -> table ids, best first, matches only.
Ranker = Callable[[str, int], list[str]]
# Channels whose match counts as evidence of relevance on its own (see the floor).
KEYWORD_EVIDENCE = ("names", "body")


@dataclass(frozen=True)
class SearchConfig:
    """How to rank. The eval suite varies it; Settings gives the shipped default."""

    weights: Mapping[str, float] = field(
        default_factory=lambda: {"names": 0.5, "text": 1.0, "body": 1.0, "dense": 1.5}
    )
    rrf_k: float = 5.0
    depth: int = 100
    scale_by_coverage: bool = True
    graph_boost: float = 0.2
    pin_identifiers: bool = True
    relevance_floor: bool = True
    complete_joins: bool = True


@dataclass(frozen=True)
class Ranked:
    """One table in the final ranking, with its rank in every channel."""

    table: str
    score: float
    channels: dict[str, int | None]
    pinned: bool = False
    added_for_join: bool = False


@dataclass(frozen=True)
class SearchResult:
    ranked: list[Ranked]
    off_topic: bool = False
    dropped: int = 0


@dataclass(frozen=True)
class Relevance:
    """What the dense model says about the candidates: cosines and the unrelated level."""

    cosines: Mapping[str, float]
    floor: float


def effective_weights(weights: Mapping[str, float], coverage: Mapping[str, float]) -> dict[str, float]:
    """Scale each channel's weight by the share of tables it has any text for.

    A channel that sees only a few tables (comments on 16% of a catalog) ranks those
    few first for any question that grazes them; RRF would then lift them above the
    tables that really match. Scaling by coverage lets a sparse channel speak in
    proportion to what it can see. Channels without a coverage figure keep their weight.

    >>> effective_weights({"text": 1.0, "body": 1.0}, {"text": 0.25, "body": 1.0})
    {'text': 0.25, 'body': 1.0}
    """
    return {channel: w * coverage.get(channel, 1.0) for channel, w in weights.items()}


def rank_tables(
    rankings: Mapping[str, list[str]],
    config: SearchConfig,
    k: int,
    *,
    coverage: Mapping[str, float] | None = None,
    graph: expand.Adjacency | None = None,
    pins: Sequence[str] = (),
    relevance: Relevance | None = None,
) -> SearchResult:
    """Run the ranking stages over channel rankings; keep the top ``k``.

    >>> rank_tables({"names": ["a.x"], "body": ["a.y", "a.x"]}, SearchConfig({"body": 1.0}), k=5).ranked[0].table
    'a.y'
    """
    weights = config.weights
    if config.scale_by_coverage and coverage:
        weights = effective_weights(weights, coverage)
    scored = rrf(rankings, weights, k=config.rrf_k)
    if graph and config.graph_boost > 0:
        scored = expand.graph_boost(scored, graph, config.graph_boost)
    score_of = dict(scored)
    order = [table for table, _ in scored]
    pins = list(pins) if config.pin_identifiers else []
    pinned = set(pins)
    if pins:
        order = pin.pin_first(order, pins)
    dropped = 0
    if config.relevance_floor and relevance is not None:
        if not pinned and max(relevance.cosines.values(), default=-1.0) <= relevance.floor:
            return SearchResult([], off_topic=True, dropped=len(order))
        evidence = {t for channel in KEYWORD_EVIDENCE for t in rankings.get(channel, ())}
        kept = [t for t in order if t in pinned or t in evidence or relevance.cosines.get(t, -1.0) > relevance.floor]
        dropped, order = len(order) - len(kept), kept
    if graph and config.complete_joins:
        # Bridges take places within k: the caller asked for at most k tables.
        with_bridges = expand.complete_joins(order, graph)[:k]
    else:
        with_bridges = [(t, False) for t in order[:k]]
    ranks = ranks_of(rankings, [t for t, _ in with_bridges])
    ranked = [
        Ranked(t, score_of.get(t, 0.0), ranks[t], pinned=t in pinned, added_for_join=added)
        for t, added in with_bridges
    ]
    return SearchResult(ranked, dropped=dropped)


class CatalogSearcher:
    """An opened catalog generation, ready to answer questions."""

    def __init__(
        self,
        catalog: Catalog,
        rankers: Mapping[str, Ranker],
        coverage: Mapping[str, float] | None = None,
        generation: str = "",
        vectors: DenseIndex | None = None,
        embedder: Embedder | None = None,
    ) -> None:
        self.catalog = catalog
        self.rankers = dict(rankers)
        self.coverage = dict(coverage) if coverage is not None else field_coverage(catalog)
        self.generation = generation
        self.graph = expand.adjacency(
            (t.id, fk.ref_table) for t in catalog.tables for fk in t.foreign_keys if catalog.table(fk.ref_table)
        )
        self.identifiers = pin.identifier_map(catalog)
        self.vectors = vectors if embedder is not None else None
        if self.vectors is not None:
            # One encoding per question, shared by the dense channel and the floor.
            self._encode = lru_cache(maxsize=64)(lambda question: embedder.encode([question])[0])
            self.rankers["dense"] = self._dense_rank

    @classmethod
    def open(cls, generation: Generation, embedder: Embedder | None = None) -> CatalogSearcher:
        """Open a stored generation; with an ``embedder``, add the dense channel if it was built."""
        rankers = bm25_rankers(FieldRanker(open_index(generation.index_path)))
        vectors = DenseIndex.load(generation.path) if embedder is not None else None
        if vectors is not None and vectors.model != embedder.name:
            vectors = None
        coverage = generation.manifest().get("coverage")
        return cls(generation.load_catalog(), rankers, coverage, generation.id, vectors, embedder)

    def rankings(self, question: str, depth: int) -> dict[str, list[str]]:
        return {channel: ranker(question, depth) for channel, ranker in self.rankers.items()}

    def search(self, question: str, k: int, config: SearchConfig) -> SearchResult:
        rankings = self.rankings(question, config.depth)
        return rank_tables(
            rankings,
            config,
            k,
            coverage=self.coverage,
            graph=self.graph,
            pins=pin.pinned(question, self.identifiers),
            relevance=self._relevance(question, rankings) if config.relevance_floor else None,
        )

    def _dense_rank(self, question: str, limit: int) -> list[str]:
        """Tables nearer the question than unrelated text is to them (``DenseIndex.floor``)."""
        assert self.vectors is not None
        ranked = self.vectors.rank(self._encode(question), limit)
        return [table for table, cosine in ranked if cosine > self.vectors.floor]

    def _relevance(self, question: str, rankings: Mapping[str, list[str]]) -> Relevance | None:
        if self.vectors is None:
            return None
        candidates = list(dict.fromkeys(t for ranking in rankings.values() for t in ranking))
        query = self._encode(question)
        cosines = self.vectors.cosines(query, candidates)
        # The nearest table anywhere decides whether the question is about this catalog.
        cosines.update(self.vectors.rank(query, 1))
        return Relevance(cosines, self.vectors.floor)


def bm25_rankers(field_ranker: FieldRanker) -> dict[str, Ranker]:
    """One BM25 ranker per document field (names, text, body)."""

    def ranker(field_name: str) -> Ranker:
        return lambda question, limit: [
            table for table, _ in field_ranker.rank(field_name, analyzer.words(question), limit)
        ]

    return {name: ranker(name) for name in FIELDS}


def field_coverage(catalog: Catalog) -> dict[str, float]:
    """Share of tables with any text in each document field."""
    documents = [table_document(t) for t in catalog.tables]
    total = max(len(documents), 1)
    return {name: sum(bool(getattr(d, name).strip()) for d in documents) / total for name in FIELDS}
