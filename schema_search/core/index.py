"""The tantivy index of one generation: schema from field names, build, open, per-field ranking.

tantivy stays behind this module; everything above it sees item ids in rank order.
Every item kind (tables, chunks) declares its own text fields; each becomes one
tantivy field with our analyzer, so each keeps its own term statistics.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import tantivy

from . import analyzer

ID = "id"


def build_schema(fields: Sequence[str]) -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_text_field(ID, stored=True, tokenizer_name="raw")
    for field in fields:
        builder.add_text_field(field, stored=False, tokenizer_name=analyzer.ANALYZER, index_option="freq")
    return builder.build()


def build(documents: Iterable[Mapping[str, str]], fields: Sequence[str], path: Path | None = None) -> tantivy.Index:
    """Write ``documents`` (``{"id": ..., field: text}``) into a new index, in RAM or in the empty folder ``path``."""
    if path is not None:
        path.mkdir(parents=True)
    index = tantivy.Index(build_schema(fields), path=str(path) if path else None)
    analyzer.register(index)
    writer = index.writer(heap_size=50_000_000, num_threads=1)
    for doc in documents:
        writer.add_document(tantivy.Document(**{ID: doc[ID], **{field: doc[field] for field in fields}}))
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
    """Ranks item ids by BM25 in one field at a time, for an opened index."""

    def __init__(self, index: tantivy.Index) -> None:
        self._index = index
        self._searcher = index.searcher()

    def rank(self, field: str, words: list[str], limit: int) -> list[tuple[str, float]]:
        """``(id, BM25 score)`` of documents matching any of ``words`` in ``field``, best first.

        Only matching documents are returned: there is no zero-score tail.
        """
        # Words are alphanumeric and lower-case (analyzer.words), so nothing in them
        # is query syntax: no quoting or escaping needed.
        return self._search(" ".join(words), field, limit) if words else []

    def containing_all(self, field: str | Sequence[str], words: list[str], limit: int) -> list[str]:
        """Ids of documents with every one of ``words`` (after analysis) in ``field``, best first.

        Several fields: each word in any of them (a title word and a body word both count).
        """
        if not words:
            return []
        return [doc for doc, _ in self._search(" ".join(f"+{w}" for w in words), field, limit)]

    @property
    def documents(self) -> int:
        """Items in the index: the N of BM25's IDF."""
        return self._searcher.num_docs

    def frequencies(self, fields: Sequence[str], terms: Sequence[str]) -> dict[str, list[int]]:
        """Document frequency of each analysed term in each of ``fields``."""
        return {field: [self._searcher.doc_freq(field, term) for term in terms] for field in fields}

    def _search(self, query_text: str, field: str | Sequence[str], limit: int) -> list[tuple[str, float]]:
        query = self._index.parse_query(query_text, [field] if isinstance(field, str) else list(field))
        hits = self._searcher.search(query, limit).hits
        return [(self._searcher.doc(address)[ID][0], score) for score, address in hits]
