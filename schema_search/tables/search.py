"""Question -> ranked tables: the core's channels and stages, with the tables' join graph.

The shared stages (``core.ranking``) run with table-specific ones plugged in:
``expand.graph_boost`` (tables joined by foreign key to other strong candidates
rise), then at the cut ``expand.complete_entities`` (tables the leaders reference
that the question asks about too) and ``expand.complete_joins`` (bridge tables
between the leading candidates), both marked ``added``. Table and column names the
question writes verbatim are pinned; a keyword match on names, body or values keeps a
table above the relevance floor; generated descriptions weigh what only they match.

The only I/O is inside :class:`CatalogSearcher` (tantivy, the embedding model).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

from ..core import pin, sealing
from ..core.channels import Channels, Ranker
from ..core.embedders import Embedder
from ..core.floor import Relevance
from ..core.ranking import Fusion, Ranking, rank
from ..core.sealing import Sealer
from ..core.shards import Scatter
from ..core.store import Generation
from . import examples, expand
from .catalog import Catalog
from .documents import FIELDS
from .identifiers import identifier_map

CATALOG_FILE = "catalog.json"
# Channels whose match counts as evidence of relevance on its own (see the floor).
KEYWORD_EVIDENCE = ("names", "body", "values")
# Channels weighed per question by what only they match (``core.novelty``): generated
# descriptions paraphrase the names, so most questions get nothing new from them.
NOVELTY_WEIGHTED = ("descriptions",)
# Channels searched only with the question words no other field has (``core.channels``):
# stored values such as the entity type ``contact`` repeat schema words.
EXCLUSIVE = ("values",)


@dataclass(frozen=True)
class SearchConfig:
    """How to rank tables. The eval suite varies it; Settings gives the shipped default."""

    weights: Mapping[str, float] = field(
        default_factory=lambda: {
            "names": 0.5,
            "text": 1.0,
            "body": 1.0,
            "descriptions": 1.0,
            "values": 1.0,
            "dense": 1.5,
            "examples": 1.0,
        }
    )
    rrf_k: float = 5.0
    depth: int = 100
    scale_by_coverage: bool = True
    graph_boost: float = 0.2
    pin_identifiers: bool = True
    relevance_floor: bool = True
    complete_joins: bool = True
    complete_entities: bool = True
    entity_window: int = 25
    entity_most: int = 2
    weigh_novelty: bool = True
    # Past queries whose tables form the ``examples`` channel (``tables.examples``).
    examples_k: int = 3


def write_catalog(folder: Path, catalog: Catalog, sealer: Sealer | None = None) -> None:
    """Store a generation's catalog, sealed as a whole with a ``sealer``."""
    sealing.write_file(folder / CATALOG_FILE, catalog.to_json(), sealer, f"catalog\0{catalog.name}")


def read_catalog(folder: Path, sealer: Sealer | None = None) -> Catalog:
    """The catalog of a generation folder, opened with ``sealer`` when it is sealed."""
    text = sealing.read_file(
        folder / CATALOG_FILE, sealer, f"catalog\0{folder.parent.name}", required=sealer is not None
    )
    return Catalog.from_json(text)


def rank_tables(
    rankings: Mapping[str, list[str]],
    config: SearchConfig,
    k: int,
    *,
    coverage: Mapping[str, float] | None = None,
    graph: expand.Adjacency | None = None,
    references: expand.Adjacency | None = None,
    pins: Sequence[str] = (),
    relevance: Relevance | None = None,
    scales: Mapping[str, float] | None = None,
) -> Ranking:
    """Run the ranking stages over channel rankings; keep the top ``k`` tables.

    >>> rank_tables({"names": ["a.x"], "body": ["a.y", "a.x"]}, SearchConfig({"body": 1.0}), k=5).ranked[0].id
    'a.y'
    """
    boost = complete = None
    if graph and config.graph_boost > 0:
        boost = partial(expand.graph_boost, graph=graph, weight=config.graph_boost)
    entities = bool(references) and config.complete_entities
    joins = bool(graph) and config.complete_joins
    if entities or joins:

        def complete(order: list[str], k: int) -> list[tuple[str, bool]]:
            added: set[str] = set()
            if entities:
                flagged = expand.complete_entities(
                    order, references, window=config.entity_window, most=config.entity_most
                )
                added = {table for table, was_added in flagged if was_added}
                order = [table for table, _ in flagged]
            flagged = expand.complete_joins(order, graph) if joins else [(table, False) for table in order]
            # Added tables take places within k: the caller asked for at most k tables.
            return [(table, was_added or table in added) for table, was_added in flagged[:k]]

    return rank(
        rankings,
        Fusion(config.weights, config.rrf_k, config.scale_by_coverage),
        k,
        coverage=coverage,
        readable=relevance.readable if relevance else 1.0,
        scales=scales,
        boost=boost,
        pins=pins if config.pin_identifiers else (),
        relevance=relevance if config.relevance_floor else None,
        evidence=KEYWORD_EVIDENCE,
        # A past query passed its own floor: the tables its SQL reads stay, and keep the question on topic.
        anchors=rankings.get(examples.CHANNEL, ()),
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
        past: Channels | None = None,
        past_examples: Sequence[examples.Example] = (),
    ) -> None:
        self.catalog = catalog
        self.channels = channels
        # The catalog's past queries and their channels (None: it has none). Tables a stored
        # example names that the catalog lacks are left out: they would rank as ids of nothing.
        self.past = past if past_examples else None
        self.examples = {e.id: replace(e, tables=tuple(t for t in e.tables if catalog.table(t))) for e in past_examples}
        if self.past is not None:
            self.past.share_encoding(channels)
        self.coverage = dict(coverage)
        self.generation = generation
        edges = [(t.id, fk.ref_table) for t in catalog.tables for fk in t.foreign_keys if catalog.table(fk.ref_table)]
        self.graph = expand.adjacency(edges)
        self.references = expand.references(edges)
        self.identifiers = identifier_map(catalog)
        # A field no table has text in matches nothing, and its novelty is 0 for every
        # question: not worth the term look-ups on each search (most catalogs are undescribed).
        self._novelty_weighted = [c for c in NOVELTY_WEIGHTED if self.coverage.get(c, 0.0) > 0]

    @classmethod
    def open(
        cls, generation: Generation, embedder: Embedder | None = None, sealer: Sealer | None = None
    ) -> CatalogSearcher:
        """Open a stored generation; with an ``embedder``, add the dense channel if it was built.

        A sealed generation needs its ``sealer``. Its whole catalog is decrypted into memory
        here, once: the foreign-key boost, pins and join completion read every table's name.
        """
        manifest = generation.manifest()
        # A generation built before a field existed (``values``) is searched without it.
        fields = [f for f in FIELDS if f in manifest.get("fields", FIELDS)]
        catalog = read_catalog(generation.path, sealer)
        ids = {sealer.blind_id(t.id): t.id for t in catalog.tables} if sealer is not None else None
        channels = Channels.open(generation, fields, embedder, [f for f in EXCLUSIVE if f in fields], sealer, ids)
        folder = generation.path / examples.EXAMPLES_DIR
        past_examples = examples.load_examples(folder, catalog.name, sealer) if folder.is_dir() else []
        past = None
        if folder.is_dir():
            past_ids = {sealer.blind_id(e.id): e.id for e in past_examples} if sealer is not None else None
            past = Channels.open(
                Generation(examples.EXAMPLES_DIR, folder), examples.FIELDS, embedder, sealer=sealer, ids=past_ids
            )
        # Every generation's manifest has the coverage its build measured (release 0.1's too).
        return cls(catalog, channels, manifest["coverage"], generation.id, past, past_examples)

    @classmethod
    def open_sharded(
        cls, generation: Generation, scatter: Scatter, embedder: Embedder | None = None
    ) -> CatalogSearcher:
        """Open a sharded generation (``core.shards``): the catalog and its past queries from its top level,
        the tables' indexes in the shards that ``scatter`` asks (in this process, or Ray Serve's replicas)."""
        manifest = generation.manifest()
        fields = [f for f in FIELDS if f in manifest["fields"]]
        catalog = read_catalog(generation.path)
        order = {table.id: n for n, table in enumerate(catalog.tables)}
        channels = Channels.from_shards(
            scatter, manifest, fields, embedder, [f for f in EXCLUSIVE if f in fields], order
        )
        folder = generation.path / examples.EXAMPLES_DIR
        past_examples = examples.load_examples(folder, catalog.name) if folder.is_dir() else []
        past = (
            Channels.open(Generation(examples.EXAMPLES_DIR, folder), examples.FIELDS, embedder)
            if folder.is_dir()
            else None
        )
        return cls(catalog, channels, manifest["coverage"], generation.id, past, past_examples)

    @property
    def rankers(self) -> dict[str, Ranker]:
        return self.channels.rankers

    def rankings(self, question: str, depth: int) -> dict[str, list[str]]:
        return self.channels.rankings(question, depth)

    def _relevance(self, question: str, rankings: Mapping[str, list[str]]) -> Relevance | None:
        """The dense model's view, with the stricter topic level unless a keyword match is backed.

        The dense channel finds *something* near anything ("how do I bake bread" ->
        user preferences, 0.158 against a typical unrelated level of 0.146), and BM25
        matches words out of their sense ("capital of Mongolia" -> ``capitation``,
        "who won the World Cup" -> the stage "closed won"). So a question is on topic
        when a table it matches by keyword is also nearer than unrelated text, or else
        when its nearest table is nearer than unrelated text comes to *its* nearest.
        """
        relevance = self.channels.relevance(question, rankings)
        if relevance is None:
            return None
        matched = {item for channel in KEYWORD_EVIDENCE for item in rankings.get(channel, ())}
        if any(relevance.cosines.get(item, -1.0) > relevance.floor for item in matched):
            return relevance
        return self.channels.relevance(question, rankings, nearest_topic_floor=True)

    def matching_examples(self, question: str, config: SearchConfig) -> list[examples.Example]:
        """The past queries nearest the question: above their own unrelated level, or matching every word."""
        if self.past is None or config.examples_k <= 0 or config.weights.get(examples.CHANNEL, 0.0) <= 0:
            return []
        rankings = self.past.rankings(question, config.depth)
        anchors = self.past.matching_all(question, examples.FIELDS, config.depth)
        relevance = self.past.relevance(question, rankings) if config.relevance_floor else None
        if relevance is None and config.relevance_floor:
            # No dense channel, so no level to clear: only a match of every meaningful word counts.
            complete = set(anchors)
            rankings = {"question": [e for e in rankings.get("question", []) if e in complete]}
        ranking = rank(
            rankings,
            Fusion({"question": 1.0, "dense": config.weights.get("dense", 1.5)}, config.rrf_k),
            config.examples_k,
            relevance=relevance,
            anchors=anchors,
        )
        return [self.examples[r.id] for r in ranking.ranked if r.id in self.examples]

    def search(
        self, question: str, k: int, config: SearchConfig, past: Sequence[examples.Example] | None = None
    ) -> Ranking:
        """Rank the tables; ``past``: the examples found for the question (default: looked up here)."""
        rankings = self.rankings(question, config.depth)
        past = self.matching_examples(question, config) if past is None else past
        if past:
            rankings[examples.CHANNEL] = examples.tables_channel([e.id for e in past], self.examples)
        return rank_tables(
            rankings,
            config,
            k,
            coverage=self.coverage,
            graph=self.graph,
            references=self.references,
            pins=pin.pinned(question, self.identifiers),
            relevance=self._relevance(question, rankings),
            scales=self.channels.novelty(question, self._novelty_weighted) if config.weigh_novelty else None,
        )
