"""Items of one kind -> the index files of a generation: tantivy fields, and embeddings."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence, TypeVar

from . import index
from .dense import DenseIndex, build_dense
from .embedders import Embedder
from .kind import ItemKind

Item = TypeVar("Item")
# Wraps a sequence while it is worked through, e.g. in a progress bar: (items, label) -> items.
Progress = Callable[[Sequence, str], Iterable]


def write_indexes(
    path: Path,
    kind: ItemKind[Item],
    items: Sequence[Item],
    embedder: Embedder | None = None,
    previous: DenseIndex | None = None,
    progress: Progress | None = None,
) -> dict:
    """Write ``index/`` (and the embeddings, with an ``embedder``) into generation folder ``path``.

    Args:
        previous: the live generation's vectors; unchanged items are not encoded again.

    Returns:
        Manifest entries: fields, their coverage, and what the dense channel did.
    """
    documents = [
        {index.ID: kind.id_of(item), **kind.document(item)}
        for item in (progress(items, "indexing") if progress else items)
    ]
    index.build(progress(documents, "writing the index") if progress else documents, kind.fields, path / "index")
    manifest: dict = {"fields": list(kind.fields), "coverage": coverage(documents, kind.fields)}
    if embedder is not None:
        texts = [kind.embedding_text(item) for item in items]
        vectors, encoded = build_dense([d[index.ID] for d in documents], texts, embedder, previous, progress)
        vectors.save(path)
        manifest["dense"] = {
            "model": vectors.model, "encoded": encoded, "floor": vectors.floor, "nearest_floor": vectors.nearest_floor
        }
    return manifest


def coverage(documents: Sequence[Mapping[str, str]], fields: Sequence[str]) -> dict[str, float]:
    """Share of documents with any text in each field.

    >>> coverage([{"a": "x", "b": ""}, {"a": "y", "b": " "}], ["a", "b"])
    {'a': 1.0, 'b': 0.0}
    """
    total = max(len(documents), 1)
    return {field: sum(bool(d[field].strip()) for d in documents) / total for field in fields}
