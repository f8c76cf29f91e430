"""Named configurations: each turns a catalog into a ranking function ``(question, k) -> table ids``.

* ``default``: exactly what ``Workspace.search`` ships (the settings' fusion weights,
  coverage scaling and every later stage), called through ``Workspace.search``.
* one per channel the searcher has (``names``, ``text``, ``body``, ``dense`` once it is
  built): that channel's ranking alone.
* ``merged``: descriptions folded into one field, the way most tools index:
  identifiers, comments and generated descriptions together with our analyzer, from
  its own in-memory index, searched with every word of the question. Without
  descriptions it is the ``body`` field as the release before searched it (question
  words included).
* ``rrf-equal``: plain RRF (k=60) of names + text + body, equal weights, no coverage
  scaling and no later stages (the issue's "equal-weight RRF" column).
* ``rrf-body+dense``: plain RRF (k=60) of body + dense (when there is a dense channel).
* ``default-no-<stage>``: the shipped default with one stage switched off (the
  ablation of every component: coverage scaling, dense channel, FK boost, pinning,
  relevance floor, join completion, entity completion, the descriptions channel's
  novelty weighting: ``default-no-novelty`` weighs it by coverage alone).
* ``peer-bm25``, ``peer-dense``: see :mod:`eval.tables.peers`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from schema_search.core import analyzer, index
from schema_search.core.fusion import rrf
from schema_search.errors import InvalidInput
from schema_search.settings import Settings
from schema_search.tables.catalog import Catalog, Table
from schema_search.tables.documents import table_document
from schema_search.tables.search import CatalogSearcher, Ranker
from schema_search.workspace import Workspace

from ..peers import load_model
from . import peers
from .benchmarks import Database, catalog_of

Rank = Callable[[str, int], list[str]]

DEFAULT = "default"
MERGED = "merged"
RRF_EQUAL = "rrf-equal"
RRF_BODY_DENSE = "rrf-body+dense"
PEER_BM25 = "peer-bm25"
PEER_DENSE = "peer-dense"
NO_NOVELTY = "default-no-novelty"
# Channels fused by rrf-equal and rrf-body+dense. They are fixed reference points, so
# they use the RRF paper's k, not the tunable setting.
FUSIONS = {RRF_EQUAL: ("names", "text", "body"), RRF_BODY_DENSE: ("body", "dense")}
REFERENCE_RRF_K = 60.0
OPTIONAL_FIELDS = ("descriptions", "values")
# The default with one stage off: name -> SearchConfig fields to change.
ABLATIONS: dict[str, dict] = {
    "default-no-coverage": {"scale_by_coverage": False},
    "default-no-dense": {"weights": "no-dense"},
    "default-no-graph-boost": {"graph_boost": 0.0},
    "default-no-pins": {"pin_identifiers": False},
    "default-no-floor": {"relevance_floor": False},
    "default-no-joins": {"complete_joins": False},
    "default-no-entities": {"complete_entities": False},
    NO_NOVELTY: {"weigh_novelty": False},
}


@dataclass(frozen=True)
class Config:
    """A named ranking function.

    ``prefix``: its top k is the first k of its top n (one call at the largest k
    serves every k). ``default`` is not: later stages (join completion) depend on k.
    """

    name: str
    rank: Rank
    prefix: bool = True


def merged_document(table: Table) -> dict[str, str]:
    """One field with everything, the way most tools index: names, comments, descriptions."""
    document = table_document(table)
    return {"id": table.id, MERGED: f"{document.body}\n{document.descriptions}"}


def available(channels: Sequence[str]) -> list[str]:
    """Configuration names for a searcher with these channels, in report order.

    >>> available(["names", "text", "body"])[:6]
    ['default', 'names', 'text', 'body', 'merged', 'rrf-equal']
    """
    fusions = [name for name, used in FUSIONS.items() if set(used) <= set(channels)]
    ablations = [name for name in ABLATIONS if name != "default-no-dense" or "dense" in channels]
    return [DEFAULT, *channels, MERGED, *fusions, *ablations, PEER_BM25, PEER_DENSE]


class ConfigBuilder:
    """Builds the configurations of one run, catalog by catalog, in a scratch data directory.

    Our catalogs are indexed through :class:`Workspace`, so whatever indexing ships
    (the dense channel included) is what gets measured.
    """

    def __init__(self, settings: Settings, home: Path, wanted: Sequence[str] | None = None) -> None:
        self.workspace = Workspace(settings.model_copy(update={"home": home}))
        self.wanted = list(wanted) if wanted else None
        self._peer_model = None

    def build(self, name: str, databases: Sequence[Database]) -> dict[str, Config]:
        """The wanted configurations over ``databases`` pooled into catalog ``name``."""
        catalog = catalog_of(name, databases)
        self.workspace.catalogs.index_catalog(catalog)
        searcher = self.workspace.catalogs.searcher(name)
        # The fields only `describe` and live sources fill rank nothing in a benchmark
        # catalog: no row of their own, and no ablation of their weighting. (Other
        # channels always get a row, so every per-db catalog has the same list.)
        empty = {c for c in OPTIONAL_FIELDS if searcher.coverage.get(c, 0.0) == 0}
        names = [
            n
            for n in available([c for c in searcher.rankers if c not in empty])
            if not (n == NO_NOVELTY and "descriptions" in empty)
        ]
        unknown = [n for n in self.wanted or () if n not in names]
        if unknown:
            raise InvalidInput(
                f"Unknown configuration {', '.join(map(repr, unknown))}.",
                hint=f"Available here: {', '.join(names)}"
                + ("" if "dense" in names else " (dense needs SCHEMA_SEARCH_DENSE=true)")
                + ".",
            )
        records = [(t.id, record) for d in databases for t, record in zip(d.tables, d.records)]
        configs = {}
        for config in self.wanted or names:
            configs[config] = self._config(config, name, searcher, catalog, records)
        return configs

    def _config(
        self, config: str, name: str, searcher: CatalogSearcher, catalog: Catalog, records: list[peers.TableRecord]
    ) -> Config:
        if config == DEFAULT:
            return Config(
                config, lambda q, k: [c.table for c in self.workspace.catalogs.search(name, q, k).candidates], False
            )
        if config in ABLATIONS:
            return Config(config, self._ablation(searcher, ABLATIONS[config]), False)
        if config in searcher.rankers:
            return Config(config, searcher.rankers[config])
        if config == MERGED:
            field_ranker = index.FieldRanker(index.build(map(merged_document, catalog.tables), [MERGED]))
            return Config(config, lambda q, k: [t for t, _ in field_ranker.rank(MERGED, analyzer.words(q), k)])
        if config in FUSIONS:
            return Config(config, self._plain_rrf(searcher.rankers, FUSIONS[config]))
        if config == PEER_BM25:
            return Config(config, peers.PeerBM25(records).rank)
        if config == PEER_DENSE:
            if self._peer_model is None:
                self._peer_model = load_model(self.workspace.settings.embedding_threads)
            return Config(config, peers.PeerDense(records, self._peer_model).rank)
        raise AssertionError(config)  # available() lists only the names handled above

    def _ablation(self, searcher: CatalogSearcher, change: dict) -> Rank:
        shipped = self.workspace.catalogs.config()
        if change.get("weights") == "no-dense":
            change = {"weights": {c: w for c, w in shipped.weights.items() if c != "dense"}}
        config = replace(shipped, **change)
        return lambda q, k: [r.id for r in searcher.search(q, k, config).ranked]

    def _plain_rrf(self, rankers: Mapping[str, Ranker], channels: Sequence[str]) -> Rank:
        settings = self.workspace.settings

        def rank(question: str, k: int) -> list[str]:
            rankings = {c: rankers[c](question, settings.channel_depth) for c in channels}
            return [table for table, _ in rrf(rankings, k=REFERENCE_RRF_K)[:k]]

        return rank
