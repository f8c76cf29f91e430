"""Peer baselines, computed without our code: what other tools' retrieval would return.

They read the benchmark's own table records (not our catalog, documents or analyzer):

* ``peer-bm25``: ``rank_bm25.BM25Okapi`` over one merged field per table (table and
  column names, natural names, descriptions, value descriptions), tokenized with the
  plain regex ``\\w+`` on lower-cased text: no stemming, no stop words, no splitting of
  ``snake_case`` or ``camelCase`` identifiers, no database name.
* ``peer-dense``: vector-only search with all-MiniLM-L6-v2 (sentence-transformers),
  cosine over one LlamaIndex-style text per table (``Table 'x' has columns: a (TYPE):
  description, ...``), as LlamaIndex / WrenAI / Vanna-style retrieval does.

Both return the top ``k`` by score whether or not a table matched at all, as those
tools do.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..peers import tokenize

# (table id, the table's record from schemas.jsonl)
TableRecord = tuple[str, dict[str, Any]]


def bm25_text(record: dict[str, Any]) -> str:
    """Everything the schema file says about a table, in one field.

    >>> bm25_text({"name": "frpm", "natural_name": "free meals", "columns": [{"name": "CDSCode", "description": "school code"}]})
    'frpm free meals CDSCode school code'
    """
    parts = [record["name"], record.get("natural_name"), record.get("description")]
    for column in record["columns"]:
        parts += [
            column["name"],
            column.get("natural_name"),
            column.get("description"),
            column.get("value_description"),
        ]
    return " ".join(p for p in parts if p)


def dense_text(record: dict[str, Any]) -> str:
    """A LlamaIndex-style table text: name, columns with types and descriptions.

    >>> dense_text({"name": "frpm", "columns": [{"name": "CDSCode", "type": "text", "description": "school code"}, {"name": "year", "type": "int"}]})
    "Table 'frpm' has columns: CDSCode (text): school code, year (int)"
    """
    columns = ", ".join(_column_text(c) for c in record["columns"])
    text = f"Table '{record['name']}' has columns: {columns}"
    if record.get("description"):
        text += f". The table description is: {record['description']}"
    return text


def _column_text(column: dict[str, Any]) -> str:
    text = f"{column['name']} ({column.get('type') or ''})"
    notes = " ".join(n for n in (column.get("description"), column.get("value_description")) if n)
    return f"{text}: {notes}" if notes else text


class PeerBM25:
    """BM25Okapi (``rank_bm25``) over :func:`bm25_text`."""

    def __init__(self, tables: Sequence[TableRecord]) -> None:
        from rank_bm25 import BM25Okapi

        self.ids = [table for table, _ in tables]
        self._bm25 = BM25Okapi([tokenize(bm25_text(record)) for _, record in tables]) if tables else None

    def rank(self, question: str, k: int) -> list[str]:
        if self._bm25 is None:
            return []
        scores = self._bm25.get_scores(tokenize(question))
        return [self.ids[i] for i in np.argsort(-scores, kind="stable")[:k]]


class PeerDense:
    """Cosine similarity of MiniLM embeddings of the question and of :func:`dense_text`."""

    def __init__(self, tables: Sequence[TableRecord], model) -> None:
        self.ids = [table for table, _ in tables]
        self._model = model
        self._vectors = self._encode([dense_text(record) for _, record in tables]) if tables else None

    def _encode(self, texts: list[str]) -> np.ndarray:
        return self._model.encode(texts, batch_size=64, normalize_embeddings=True, show_progress_bar=False)

    def rank(self, question: str, k: int) -> list[str]:
        if self._vectors is None:
            return []
        scores = self._vectors @ self._encode([question])[0]
        return [self.ids[i] for i in np.argsort(-scores, kind="stable")[:k]]
