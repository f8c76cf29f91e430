"""Question -> ranked tables: run each channel, then fuse.

The stages are plain functions over ranked lists; the only I/O is inside the
channel rankers (tantivy), which :class:`CatalogSearcher` holds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping

from . import analyzer
from .catalog import Catalog
from .documents import FIELDS, table_document
from .fusion import ranks_of, rrf
from .index import FieldRanker, open_index
from .store import Generation

# A channel ranker: (question words, how many) -> table ids, best first, matches only.
Ranker = Callable[[list[str], int], list[str]]


@dataclass(frozen=True)
class SearchConfig:
    """How to combine channels. The eval suite varies it; Settings gives the default."""

    weights: Mapping[str, float] = field(default_factory=lambda: {"names": 1.0, "text": 1.0, "body": 1.0})
    rrf_k: float = 60.0
    depth: int = 100
    scale_by_coverage: bool = True


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


@dataclass(frozen=True)
class Ranked:
    """One table in a fused ranking, with its rank in every channel."""

    table: str
    score: float
    channels: dict[str, int | None]


def fuse(
    rankings: Mapping[str, list[str]], config: SearchConfig, k: int, coverage: Mapping[str, float] | None = None
) -> list[Ranked]:
    """Fuse channel rankings into the top ``k`` tables.

    >>> fuse({"names": ["a.x"], "body": ["a.y", "a.x"]}, SearchConfig({"body": 1.0}), k=5)[0].table
    'a.y'
    """
    weights = config.weights
    if config.scale_by_coverage and coverage:
        weights = effective_weights(weights, coverage)
    fused = rrf(rankings, weights, k=config.rrf_k)[:k]
    ranks = ranks_of(rankings, [table for table, _ in fused])
    return [Ranked(table, score, ranks[table]) for table, score in fused]


class CatalogSearcher:
    """An opened catalog generation, ready to answer questions."""

    def __init__(
        self,
        catalog: Catalog,
        rankers: Mapping[str, Ranker],
        coverage: Mapping[str, float] | None = None,
        generation: str = "",
    ) -> None:
        self.catalog = catalog
        self.rankers = dict(rankers)
        self.coverage = dict(coverage) if coverage is not None else field_coverage(catalog)
        self.generation = generation

    @classmethod
    def open(cls, generation: Generation) -> CatalogSearcher:
        field_ranker = FieldRanker(open_index(generation.index_path))
        coverage = generation.manifest().get("coverage")
        return cls(generation.load_catalog(), bm25_rankers(field_ranker), coverage, generation.id)

    def rankings(self, question: str, depth: int) -> dict[str, list[str]]:
        words = analyzer.words(question)
        return {channel: ranker(words, depth) for channel, ranker in self.rankers.items()}

    def search(self, question: str, k: int, config: SearchConfig) -> list[Ranked]:
        return fuse(self.rankings(question, config.depth), config, k, self.coverage)


def field_coverage(catalog: Catalog) -> dict[str, float]:
    """Share of tables with any text in each document field."""
    documents = [table_document(t) for t in catalog.tables]
    total = max(len(documents), 1)
    return {name: sum(bool(getattr(d, name).strip()) for d in documents) / total for name in FIELDS}


def bm25_rankers(field_ranker: FieldRanker) -> dict[str, Ranker]:
    """One BM25 ranker per document field (names, text, body)."""

    def ranker(field_name: str) -> Ranker:
        return lambda words, limit: [table for table, _ in field_ranker.rank(field_name, words, limit)]

    return {name: ranker(name) for name in FIELDS}
