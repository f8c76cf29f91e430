"""Items of one kind -> the index files of a generation: tantivy fields, and embeddings."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TypeVar

import numpy as np

from . import index
from .dense import DenseIndex, build_dense
from .embedders import BATCH, Embedder
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

    Each phase (``indexing``, ``writing the index``, ``embedding``) goes through
    ``progress`` under its own label and reaches its end only when its work is done:
    the index committed, the last batch encoded.

    Args:
        previous: the live generation's vectors; unchanged items are not encoded again.

    Returns:
        Manifest entries: fields, their coverage, and what the dense channel did.
    """
    documents = [
        {index.ID: kind.id_of(item), **kind.document(item)}
        for item in (progress(items, "indexing") if progress else items)
    ]
    writing = Phase(progress, documents, "writing the index")
    index.build(writing.items(), kind.fields, path / "index")
    writing.done()
    manifest: dict = {"fields": list(kind.fields), "coverage": coverage(documents, kind.fields)}
    if embedder is not None:
        texts = [kind.embedding_text(item) for item in items]
        counted = EncodeProgress(embedder, progress)
        vectors, encoded = build_dense([d[index.ID] for d in documents], texts, counted, previous, counted.start)
        counted.done()
        vectors.save(path)
        manifest["dense"] = {
            "model": vectors.model,
            "encoded": encoded,
            "floor": vectors.floor,
            "nearest_floor": vectors.nearest_floor,
        }
    return manifest


class Phase:
    """One labelled phase of ``progress`` whose last step is marked by the caller, not by the last item.

    A wrapper counts an item as done when the next one is asked for, so a consumer that
    works after its loop (a commit) would show 100% while it still works. Here the
    wrapper is never asked past the last item until :meth:`done`.

    >>> seen = []
    >>> def record(items, label):
    ...     for n, item in enumerate(items):
    ...         yield item
    ...         seen.append(n + 1)
    >>> phase = Phase(record, [1, 2], "writing")
    >>> list(phase.items()), seen
    ([1, 2], [1])
    >>> phase.done(); seen
    [1, 2]
    """

    def __init__(self, progress: Progress | None, items: Sequence, label: str) -> None:
        self._items = items
        self._bar: Iterator | None = iter(progress(items, label)) if progress else None

    def items(self) -> Iterator:
        if self._bar is None:
            yield from self._items
            return
        for _ in range(len(self._items)):
            yield next(self._bar)

    def done(self) -> None:
        if self._bar is not None:
            next(self._bar, None)  # the wrapper's end: 100%, and its closing line
            self._bar = None


class EncodeProgress:
    """An embedder that moves the ``embedding`` phase by the texts it has encoded.

    :func:`build_dense` hands out the texts to encode a batch at a time; a wrapper
    around that hand-out would count a batch as done before the model has read it.
    This one is given to ``build_dense`` as its embedder (and, as ``start``, as its
    progress, to learn how many texts there are) and counts after each ``encode``.
    """

    def __init__(self, embedder: Embedder, progress: Progress | None) -> None:
        self._embedder = embedder
        self._progress = progress
        self._bar: Iterator | None = None
        self._total = self._encoded = self._pulled = 0
        self.name = embedder.name

    def start(self, positions: Sequence[int], label: str) -> Sequence[int]:
        if self._progress is not None:
            self._total = len(positions)
            self._bar = iter(self._progress(range(self._total), label))
            if self._total:  # started now, so a wrapper times the first batch too
                next(self._bar, None)
                self._pulled = 1
        return positions

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        if self._bar is None or len(texts) <= BATCH:
            return self._count(self._embedder.encode(texts))
        # A model batch at a time, so a bar moves while a large hand-out is encoded. The texts
        # come sorted by length, so these slices are the batches the model would make itself.
        return np.concatenate(
            [self._count(self._embedder.encode(texts[i : i + BATCH])) for i in range(0, len(texts), BATCH)]
        )

    def _count(self, vectors: np.ndarray) -> np.ndarray:
        self._encoded += len(vectors)
        # Pulling item n+1 tells a wrapper that n are done; the very last waits for done().
        while self._bar is not None and self._pulled < min(self._encoded, self._total - 1) + 1:
            next(self._bar, None)
            self._pulled += 1
        return vectors

    def done(self) -> None:
        """The phase's end, once the floor is calibrated too (the last encode)."""
        if self._bar is not None:
            for _ in self._bar:  # whatever is left, then the wrapper's own end
                pass
            self._bar = None

    def __getattr__(self, name: str):  # max_tokens, count_tokens, ...: as the model says
        return getattr(self._embedder, name)


def coverage(documents: Sequence[Mapping[str, str]], fields: Sequence[str]) -> dict[str, float]:
    """Share of documents with any text in each field.

    >>> coverage([{"a": "x", "b": ""}, {"a": "y", "b": " "}], ["a", "b"])
    {'a': 1.0, 'b': 0.0}
    """
    total = max(len(documents), 1)
    return {field: sum(bool(d[field].strip()) for d in documents) / total for field in fields}
