"""The page channel: each document's title, headings and whole text as one BM25 field.

A chunk's own channels see a few hundred words of its page. A question about a long
single-topic page (a PEP asked in other words) matches that page as a whole better
than any one of its passages: BM25 over whole pages beat the chunk ranking on the
PEPs (0.958 against 0.917 at 5). The page ranking is not a ranking of chunks, so it
is fused as a lift: each chunk gains ``weight / (rrf_k + rank of its page)``, and the
passages of a page that is about the question rise together (``lift_by_page``).

Stored beside the chunk index as ``pages/`` in the generation; a generation built
before it has no page channel and searches as before.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from ..core import index
from ..core.question import content_words
from ..core.sealing import Sealer
from .corpus import Corpus
from .documents import index_text

PAGES_DIR = "pages"
FIELD = "page"
# The channel's name in a ranking's weights and a passage's channel ranks.
PAGE_CHANNEL = "pages"


def write_pages(folder: Path, corpus: Corpus, sealer: Sealer | None = None) -> None:
    """Index every document of ``corpus`` as one page into ``folder/pages`` (blind terms with a ``sealer``)."""
    index.build(page_documents(corpus), (FIELD,), folder / PAGES_DIR, sealer)


def page_documents(corpus: Corpus) -> Iterator[dict[str, str]]:
    """Each document of ``corpus`` as one page: its label and title, its headings, its whole text."""
    headings: dict[str, dict[str, None]] = {}
    for chunk in corpus.chunks:
        headings.setdefault(chunk.document, {}).update(dict.fromkeys(chunk.headings))
    for document in corpus.documents:
        yield {
            index.ID: document.id,
            FIELD: " ".join(
                [
                    index_text(" ".join(filter(None, (document.label, document.title)))),
                    index_text(" ".join(headings.get(document.id, ()))),
                    index_text(corpus.texts.get(document.id, "")),
                ]
            ),
        }


class PageRanker:
    """Documents of one generation ranked by BM25 over their whole pages."""

    def __init__(self, ranker: index.FieldRanker) -> None:
        self._ranker = ranker

    @classmethod
    def open(
        cls, folder: Path, sealer: Sealer | None = None, ids: Mapping[str, str] | None = None
    ) -> PageRanker | None:
        """The page channel of a generation folder; None for a generation built without one.

        A sealed one needs its ``sealer`` and ``ids`` (blind id -> document id).
        """
        path = folder / PAGES_DIR
        return cls(index.FieldRanker(index.open_index(path), sealer, ids)) if path.is_dir() else None

    def rank(self, question: str, limit: int) -> list[str]:
        """Document ids, best page first (matches only)."""
        return [document for document, _ in self._ranker.rank(FIELD, content_words(question), limit)]


def lift_by_page(
    scored: list[tuple[str, float]],
    page_of: Callable[[str], str],
    page_ranks: Mapping[str, int],
    weight: float,
    rrf_k: float,
) -> list[tuple[str, float]]:
    """Each item's score plus ``weight / (rrf_k + rank of its page)``, re-sorted, best first. Pure.

    Items of pages the page channel did not match keep their score; ties keep their order.

    >>> lifted = lift_by_page([("a1", 0.3), ("b1", 0.25), ("b2", 0.1)], lambda c: c[0], {"b": 1}, 1.0, 5.0)
    >>> [(item, round(score, 3)) for item, score in lifted]
    [('b1', 0.417), ('a1', 0.3), ('b2', 0.267)]
    """
    if weight <= 0 or not page_ranks:
        return scored
    lifted = [
        (item, score + (weight / (rrf_k + page_ranks[page_of(item)]) if page_of(item) in page_ranks else 0.0))
        for item, score in scored
    ]
    return sorted(lifted, key=lambda pair: -pair[1])
