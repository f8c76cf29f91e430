"""The tantivy index of one generation: schema from field names, build, open, per-field ranking.

tantivy stays behind this module; everything above it sees item ids in rank order.
Every item kind (tables, chunks) declares its own text fields; each becomes one
tantivy field with our analyzer, so each keeps its own term statistics.

A sealed index (built with a :class:`~.sealing.Sealer`) holds blind terms: the text is
analysed here, in Python, with the same analyzer tantivy would run, and each term
stored as its HMAC, through a tokenizer that only splits at spaces. Queries are
analysed and blinded the same way, so the term statistics, and every BM25 score, are
those of the plain index; item ids are stored blinded too (a table's id is its name).
A sealed index may also hold key fields: exact tokens (``docs.verbatim``), each blinded
whole, looked up by :meth:`FieldRanker.holding` and never ranked by BM25.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import tantivy

from . import analyzer
from .sealing import Sealer

ID = "id"
# The collection's IDF of each term, by field (``field -> analysed term -> idf``): given to
# one shard's index so that its scores are those of the whole collection (``core.shards``).
Idf = Mapping[str, Mapping[str, float]]
# The tokenizer of a sealed index's fields: its terms were analysed before they were blinded.
BLIND = "blind_terms"
_ANALYZER = analyzer.build_analyzer()


def build_schema(fields: Sequence[str], sealed: bool = False, keys: Sequence[str] = ()) -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_text_field(ID, stored=True, tokenizer_name="raw")
    for field in fields:
        tokenizer = BLIND if sealed else analyzer.ANALYZER
        builder.add_text_field(field, stored=False, tokenizer_name=tokenizer, index_option="freq")
    for field in keys:
        # Whether an item holds a key is all that is asked: no frequencies, no positions.
        builder.add_text_field(field, stored=False, tokenizer_name=BLIND, index_option="basic")
    return builder.build()


def build(
    documents: Iterable[Mapping[str, str]],
    fields: Sequence[str],
    path: Path | None = None,
    sealer: Sealer | None = None,
    keys: Sequence[str] = (),
) -> tantivy.Index:
    """Write ``documents`` (``{"id": ..., field: text}``) into a new index, in RAM or in the empty folder ``path``.

    With a ``sealer`` the index holds blind terms and blind ids (see the module's note),
    and the key fields ``keys``: each document's space-separated keys there, each blinded whole.
    Without one, ``keys`` are not written (a plain corpus reads its text instead).
    """
    if path is not None:
        path.mkdir(parents=True)
    keys = tuple(keys) if sealer is not None else ()
    index = tantivy.Index(build_schema(fields, sealer is not None, keys), path=str(path) if path else None)
    _register(index)
    writer = index.writer(heap_size=50_000_000, num_threads=1)
    for doc in documents:
        if sealer is not None:
            doc = {
                ID: sealer.blind_id(doc[ID]),
                **{field: blind_text(sealer, doc[field]) for field in fields},
                **{field: " ".join(sealer.blind(key) for key in doc[field].split()) for field in keys},
            }
        writer.add_document(tantivy.Document(**{ID: doc[ID], **{field: doc[field] for field in (*fields, *keys)}}))
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    return index


def bm25_idf(frequency: int, documents: int) -> float:
    """BM25's IDF as tantivy computes it: ``ln(1 + (N - n + 0.5) / (n + 0.5))``.

    >>> round(bm25_idf(1, 3), 4)
    0.9808
    """
    return math.log(1.0 + (documents - frequency + 0.5) / (frequency + 0.5))


def open_index(path: Path) -> tantivy.Index:
    index = tantivy.Index.open(str(path))
    # Custom tokenizers are not persisted with the index: register on every open.
    _register(index)
    return index


def _register(index: tantivy.Index) -> None:
    analyzer.register(index)
    index.register_tokenizer(BLIND, tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace()).build())


def terms(text: str) -> list[str]:
    """The terms tantivy's analyzer makes of ``text`` (lower-cased, stop words out, stemmed).

    >>> terms("The singers")
    ['singer']
    """
    return _ANALYZER.analyze(text)


def blind_text(sealer: Sealer, text: str) -> str:
    """``text`` as a sealed field stores it: its analysed terms, each blinded, space-separated."""
    return " ".join(sealer.blind(term) for term in terms(text))


class FieldRanker:
    """Ranks item ids by BM25 in one field at a time, for an opened index.

    A sealed index is opened with its ``sealer`` and ``ids`` (blind id -> item id, from
    the generation's decrypted items); questions are blinded as its text was.
    """

    def __init__(
        self, index: tantivy.Index, sealer: Sealer | None = None, ids: Mapping[str, str] | None = None
    ) -> None:
        self._index = index
        self._searcher = index.searcher()
        self._sealer = sealer
        self._ids = ids

    def rank(self, field: str, words: list[str], limit: int, idf: Idf | None = None) -> list[tuple[str, float]]:
        """``(id, BM25 score)`` of documents matching any of ``words`` in ``field``, best first.

        Only matching documents are returned: there is no zero-score tail. ``idf``: the
        collection's IDF of each term (``field -> term -> idf``) when this index holds one
        shard of it (``core.shards``); each term's score is scaled from this index's IDF to it.
        """
        # Words are alphanumeric and lower-case (analyzer.words), so nothing in them
        # is query syntax: no quoting or escaping needed.
        if self._sealer is not None or idf is not None:
            return self._run(self._built_query(field, words, tantivy.Occur.Should, idf), limit)
        return self._search(" ".join(words), field, limit) if words else []

    def containing_all(
        self, field: str | Sequence[str], words: list[str], limit: int, idf: Idf | None = None
    ) -> list[str]:
        """Ids of documents with every one of ``words`` (after analysis) in ``field``, best first.

        Several fields: each word in any of them (a title word and a body word both count).
        """
        return [doc for doc, _ in self.scored_containing_all(field, words, limit, idf)]

    def scored_containing_all(
        self, field: str | Sequence[str], words: list[str], limit: int, idf: Idf | None = None
    ) -> list[tuple[str, float]]:
        """:meth:`containing_all` with each document's score (shards' lists are merged by it)."""
        if self._sealer is not None or idf is not None:
            return self._run(self._built_query(field, words, tantivy.Occur.Must, idf), limit)
        if not words:
            return []
        return self._search(" ".join(f"+{w}" for w in words), field, limit)

    @property
    def documents(self) -> int:
        """Items in the index: the N of BM25's IDF."""
        return self._searcher.num_docs

    def frequencies(self, fields: Sequence[str], terms: Sequence[str]) -> dict[str, list[int]]:
        """Document frequency of each analysed term in each of ``fields``."""
        if self._sealer is not None:
            terms = [self._sealer.blind(term) for term in terms]
        return {field: [self._searcher.doc_freq(field, term) for term in terms] for field in fields}

    def holding(self, field: str, key: str) -> set[str] | None:
        """Ids of the items whose key field ``field`` holds ``key``, all of them; None when the index
        has no such field (a plain index, or a sealed one built before it had key fields)."""
        if self._sealer is None:
            return None
        try:
            query = tantivy.Query.term_query(self._index.schema, field, self._sealer.blind(key), index_option="basic")
        except ValueError:
            return None
        return {doc for doc, _ in self._run(query, max(self.documents, 1))}

    def _built_query(
        self, field: str | Sequence[str], words: list[str], occur: tantivy.Occur, idf: Idf | None = None
    ) -> tantivy.Query | None:
        """The query tantivy's parser makes of ``words`` on a plain index, built term by term:
        of blind terms on a sealed index, and with each term boosted to the collection's ``idf``.

        Built, not parsed: the parser keeps a repeated word once ("path ... path") yet two
        words that analyse alike ("file", "files") twice, and their blind terms would be
        one repeated word to it. A stop word drops out, as the parser drops it.
        """
        fields = [field] if isinstance(field, str) else list(field)
        schema = self._index.schema
        clauses = []
        for word in dict.fromkeys(words):
            for term in terms(word):
                stored = self._sealer.blind(term) if self._sealer is not None else term
                per_field = [self._term(schema, f, term, stored, idf) for f in fields]
                one = (
                    per_field[0]
                    if len(per_field) == 1
                    else tantivy.Query.boolean_query([(tantivy.Occur.Should, q) for q in per_field])
                )
                clauses.append((occur, one))
        return tantivy.Query.boolean_query(clauses) if clauses else None

    def _term(self, schema: tantivy.Schema, field: str, term: str, stored: str, idf: Idf | None) -> tantivy.Query:
        query = tantivy.Query.term_query(schema, field, stored, index_option="freq")
        wanted = idf.get(field, {}).get(term) if idf is not None else None
        frequency = self._searcher.doc_freq(field, stored) if wanted is not None else 0
        if not frequency:  # no document here holds it: nothing to scale
            return query
        # tantivy scores a term idf x tf-part, the idf from this index's counts: scaled to the collection's.
        return tantivy.Query.boost_query(query, wanted / bm25_idf(frequency, self.documents))

    def _run(self, query: tantivy.Query | None, limit: int) -> list[tuple[str, float]]:
        if query is None:
            return []
        hits = self._searcher.search(query, limit).hits
        return self._named([(self._searcher.doc(address)[ID][0], score) for score, address in hits])

    def _named(self, found: list[tuple[str, float]]) -> list[tuple[str, float]]:
        if self._ids is None:
            return found
        return [(self._ids[doc], score) for doc, score in found if doc in self._ids]

    def _search(self, query_text: str, field: str | Sequence[str], limit: int) -> list[tuple[str, float]]:
        query = self._index.parse_query(query_text, [field] if isinstance(field, str) else list(field))
        hits = self._searcher.search(query, limit).hits
        return self._named([(self._searcher.doc(address)[ID][0], score) for score, address in hits])
