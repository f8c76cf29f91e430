"""Question -> ranked tables: the core's channels and stages, with the tables' join graph.

The shared stages (``core.ranking``) run with two table-specific ones plugged in:
``expand.graph_boost`` (tables joined by foreign key to other strong candidates
rise) and ``expand.complete_joins`` (bridge tables between the leading candidates,
marked ``added``). Table and column names the question writes verbatim are pinned;
a keyword match on names or body keeps a table above the relevance floor.

The only I/O is inside :class:`CatalogSearcher` (tantivy, the embedding model).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Mapping, Sequence

from ..core import pin
from ..core.channels import Channels, Ranker
from ..core.embedders import Embedder
from ..core.floor import Relevance
from ..core.ranking import Fusion, Ranking, rank
from ..core.store import Generation
from . import expand
from .catalog import Catalog
from .documents import FIELDS
from .identifiers import identifier_map

CATALOG_FILE = "catalog.json"
# Channels whose match counts as evidence of relevance on its own (see the floor).
KEYWORD_EVIDENCE = ("names", "body")


@dataclass(frozen=True)
class SearchConfig:
    """How to rank tables. The eval suite varies it; Settings gives the shipped default."""

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


def rank_tables(
    rankings: Mapping[str, list[str]],
    config: SearchConfig,
    k: int,
    *,
    coverage: Mapping[str, float] | None = None,
    graph: expand.Adjacency | None = None,
    pins: Sequence[str] = (),
    relevance: Relevance | None = None,
) -> Ranking:
    """Run the ranking stages over channel rankings; keep the top ``k`` tables.

    >>> rank_tables({"names": ["a.x"], "body": ["a.y", "a.x"]}, SearchConfig({"body": 1.0}), k=5).ranked[0].id
    'a.y'
    """
    boost = complete = None
    if graph and config.graph_boost > 0:
        boost = partial(expand.graph_boost, graph=graph, weight=config.graph_boost)
    if graph and config.complete_joins:

        def complete(order: list[str], k: int) -> list[tuple[str, bool]]:
            # Bridges take places within k: the caller asked for at most k tables.
            return expand.complete_joins(order, graph)[:k]
    return rank(
        rankings,
        Fusion(config.weights, config.rrf_k, config.scale_by_coverage),
        k,
        coverage=coverage,
        readable=relevance.readable if relevance else 1.0,
        boost=boost,
        pins=pins if config.pin_identifiers else (),
        relevance=relevance if config.relevance_floor else None,
        evidence=KEYWORD_EVIDENCE,
        complete=complete,
    )


class CatalogSearcher:
    """An opened catalog generation, ready to answer questions."""

    def __init__(
        self,
        catalog: Catalog,
        channels: Channels,
        coverage: Mapping[str, float],
        generation: str = "",
    ) -> None:
        self.catalog = catalog
        self.channels = channels
        self.coverage = dict(coverage)
        self.generation = generation
        self.graph = expand.adjacency(
            (t.id, fk.ref_table) for t in catalog.tables for fk in t.foreign_keys if catalog.table(fk.ref_table)
        )
        self.identifiers = identifier_map(catalog)

    @classmethod
    def open(cls, generation: Generation, embedder: Embedder | None = None) -> CatalogSearcher:
        """Open a stored generation; with an ``embedder``, add the dense channel if it was built."""
        channels = Channels.open(generation, FIELDS, embedder)
        catalog = Catalog.from_json((generation.path / CATALOG_FILE).read_text(encoding="utf-8"))
        # Every generation's manifest has the coverage its build measured (release 0.1's too).
        return cls(catalog, channels, generation.manifest()["coverage"], generation.id)

    @property
    def rankers(self) -> dict[str, Ranker]:
        return self.channels.rankers

    def rankings(self, question: str, depth: int) -> dict[str, list[str]]:
        return self.channels.rankings(question, depth)

    def search(self, question: str, k: int, config: SearchConfig) -> Ranking:
        rankings = self.rankings(question, config.depth)
        return rank_tables(
            rankings,
            config,
            k,
            coverage=self.coverage,
            graph=self.graph,
            pins=pin.pinned(question, self.identifiers),
            relevance=self.channels.relevance(question, rankings),
        )
