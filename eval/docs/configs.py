"""Named configurations over one corpus: each turns a question into pages, best first, and an off-topic verdict.

* ``default``: exactly what ``Workspace.corpora.search`` ships (fusion, page channel,
  pins, floor, cap per page).
* one per channel (``headings``, ``body``, ``dense``): that channel's chunk ranking alone.
* ``default-no-<stage>``: the default with one stage off (pins, the pins' gap rule, floor, keyword anchors,
  cap per page, page channel, dense channel, headings channel), the ablation of each;
  ``default-no-page-stages`` turns the page channel, the cap and the anchors off at once,
  ``default-grouped`` lists each page's passages together.
* ``peer-bm25-pages``, ``peer-dense-chunks``: see :mod:`eval.docs.peers`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from schema_search.docs.documents import embedding_text
from schema_search.docs.search import CorpusSearcher, DocsSearchConfig
from schema_search.errors import InvalidInput
from schema_search.workspace import Workspace

from ..peers import load_model
from .peers import PeerBM25Pages, PeerDenseChunks
from .questions import page

# (question, how many pages) -> (pages best first, off topic?)
Rank = Callable[[str, int], tuple[list[str], bool]]
# (question, k) -> the k passages a search returns, as (page, tokens), in the order returned.
Passages = Callable[[str, int], list[tuple[str, int]]]

DEFAULT = "default"
PEER_BM25 = "peer-bm25-pages"
PEER_DENSE = "peer-dense-chunks"
ABLATIONS = {
    "default-no-pins": {"pin_identifiers": False},
    # A reference in many documents pins nothing at all, as before the gap rule.
    "default-no-pin-gap": {"pin_gap": False},
    "default-no-floor": {"relevance_floor": False},
    "default-no-anchors": {"keyword_anchors": False},
    "default-no-spread": {"per_page": 0},
    "default-grouped": {"group_pages": True},
    "default-no-pages": {"page_weight": 0.0},
    # The three stages of the third pass off at once: the ranking as it was, on today's index.
    "default-no-page-stages": {"page_weight": 0.0, "per_page": 0, "keyword_anchors": False},
    "default-no-dense": {"drop": "dense"},
    "default-no-headings": {"drop": "headings"},
}
# Chunks asked for to find the first pages: enough for ten distinct pages.
CHUNK_DEPTH = 100


@dataclass(frozen=True)
class DocsConfig:
    """``passages``: what the search hands an agent at k, for configurations that return passages."""

    name: str
    rank: Rank
    passages: Passages | None = None


def available(channels: Sequence[str]) -> list[str]:
    """Configuration names for a corpus searcher with these channels, in report order.

    >>> available(["headings", "body"])  # doctest: +NORMALIZE_WHITESPACE
    ['default', 'headings', 'body', 'default-no-pins', 'default-no-anchors', 'default-no-spread',
     'default-grouped', 'default-no-pages', 'default-no-page-stages', 'default-no-headings', 'peer-bm25-pages', 'peer-dense-chunks']
    """
    # The floor and the dense ablation need the dense channel; dropping a channel needs that channel.
    dense_only = ("default-no-floor", "default-no-pin-gap")
    needs = {name: change.get("drop", "dense" if name in dense_only else None) for name, change in ABLATIONS.items()}
    ablations = [name for name, need in needs.items() if need is None or need in channels]
    return [DEFAULT, *channels, *ablations, PEER_BM25, PEER_DENSE]


def build(
    workspace: Workspace, corpus: str, wanted: Sequence[str] | None = None, cache: Path | None = None
) -> dict[str, DocsConfig]:
    """The wanted configurations over an indexed corpus (default: all available)."""
    searcher = workspace.corpora.searcher(corpus)
    names = available(list(searcher.rankers))
    unknown = [n for n in wanted or () if n not in names]
    if unknown:
        raise InvalidInput(
            f"Unknown configuration {', '.join(map(repr, unknown))}.", hint=f"Available: {', '.join(names)}."
        )
    shipped = workspace.corpora.config()
    counter = workspace.corpora.chunking().counter
    pages = None
    configs = {}
    for name in wanted or names:
        passages = None
        if name == DEFAULT or name in ABLATIONS:
            config = shipped if name == DEFAULT else _ablated(shipped, ABLATIONS[name])
            rank, passages = _ours(searcher, config), _passages(searcher, config, counter)
        elif name in searcher.rankers:
            rank = _channel(searcher, name, shipped.depth)
        else:
            pages = pages or _pages(searcher)
            if name == PEER_BM25:
                rank = _peer(PeerBM25Pages(pages))
            else:
                rank = _peer(PeerDenseChunks(pages, load_model(workspace.settings.embedding_threads), cache))
        configs[name] = DocsConfig(name, rank, passages)
    return configs


def _ablated(shipped: DocsSearchConfig, change: dict) -> DocsSearchConfig:
    if "drop" in change:
        return replace(shipped, weights={c: w for c, w in shipped.weights.items() if c != change["drop"]})
    return replace(shipped, **change)


def _ours(searcher: CorpusSearcher, config: DocsSearchConfig) -> Rank:
    def rank(question: str, k: int) -> tuple[list[str], bool]:
        hits = searcher.search(question, CHUNK_DEPTH, config)
        return _distinct_pages(searcher, [r.id for r in hits.ranking.ranked], k), hits.ranking.off_topic

    return rank


def _passages(searcher: CorpusSearcher, config: DocsSearchConfig, counter) -> Passages:
    tokens: dict[str, int] = {}

    def count(chunk) -> int:
        # What an agent reads of a passage: its context header and its text.
        if chunk.id not in tokens:
            text = embedding_text(chunk)
            tokens[chunk.id] = counter.count_tokens(text) if counter is not None else len(text.split())
        return tokens[chunk.id]

    def passages(question: str, k: int) -> list[tuple[str, int]]:
        chunks = [searcher.chunk(r.id) for r in searcher.search(question, k, config).ranking.ranked]
        return [(page(chunk.url), count(chunk)) for chunk in chunks]

    return passages


def _channel(searcher: CorpusSearcher, channel: str, depth: int) -> Rank:
    return lambda question, k: (_distinct_pages(searcher, searcher.rankers[channel](question, depth), k), False)


def _peer(peer) -> Rank:
    return lambda question, k: (peer.rank(question, k), False)


def _distinct_pages(searcher: CorpusSearcher, chunk_ids: Sequence[str], k: int) -> list[str]:
    pages: list[str] = []
    for chunk_id in chunk_ids:
        url = page(searcher.chunk(chunk_id).url)
        if url not in pages:
            pages.append(url)
            if len(pages) == k:
                break
    return pages


def _pages(searcher: CorpusSearcher) -> list[tuple[str, str]]:
    """Every document's URL with its raw file text, read afresh from the corpus folder."""
    folder = Path(searcher.corpus.source["path"])
    return [
        (page(d.url), (folder / d.path).read_text(encoding="utf-8", errors="replace"))
        for d in searcher.corpus.documents
        if d.format not in ("pdf", "docx")
    ]
