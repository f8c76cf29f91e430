"""The tantivy index of one catalog: schema, build, open, and per-field ranking.

tantivy stays behind this module; everything above it sees table ids in rank order.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

import tantivy

from . import analyzer
from .documents import FIELDS, TableDocument

ID = "id"


def build_schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_text_field(ID, stored=True, tokenizer_name="raw")
    for field in FIELDS:
        builder.add_text_field(field, stored=False, tokenizer_name=analyzer.ANALYZER, index_option="freq")
    return builder.build()


def build(documents: Iterable[TableDocument], path: Path | None = None) -> tantivy.Index:
    """Write ``documents`` into a new index, in RAM or in the empty folder ``path``."""
    if path is not None:
        path.mkdir(parents=True)
    index = tantivy.Index(build_schema(), path=str(path) if path else None)
    analyzer.register(index)
    writer = index.writer(heap_size=50_000_000, num_threads=1)
    for doc in documents:
        writer.add_document(tantivy.Document(id=doc.id, names=doc.names, text=doc.text, body=doc.body))
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    return index


def open_index(path: Path) -> tantivy.Index:
    index = tantivy.Index.open(str(path))
    # Custom tokenizers are not persisted with the index: register on every open.
    analyzer.register(index)
    return index


class FieldRanker:
    """Ranks table ids by BM25 in one field at a time, for an opened index."""

    def __init__(self, index: tantivy.Index) -> None:
        self._index = index
        self._searcher = index.searcher()

    def rank(self, field: str, words: list[str], limit: int) -> list[tuple[str, float]]:
        """``(id, BM25 score)`` of documents matching any of ``words`` in ``field``, best first.

        Only matching documents are returned: there is no zero-score tail.
        """
        if not words:
            return []
        # Words are alphanumeric and lower-case (analyzer.words), so nothing in them
        # is query syntax: no quoting or escaping needed.
        query = self._index.parse_query(" ".join(words), [field])
        hits = self._searcher.search(query, limit).hits
        return [(self._searcher.doc(address)[ID][0], score) for score, address in hits]
