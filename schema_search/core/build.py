"""Items of one kind -> the index files of a generation: tantivy fields, and embeddings."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TypeVar

import numpy as np

from . import index
from .checkpoint import Checkpoint, Interrupted
from .dense import DenseIndex, Plan, closed_after, dense_index, encode_in_turn, encode_missing, plan_dense
from .embedders import BATCH, Embedder
from .kind import ItemKind
from .sealing import Sealer, manifest_entries

Item = TypeVar("Item")
# Wraps a sequence while it is worked through, e.g. in a progress bar: (items, label) -> items.
# A wrapper may also have ``note(text)``, for a line said once (an estimate), above any bar.
Progress = Callable[[Sequence, str], Iterable]
# Texts the pace for the estimate is taken on, after the first batch (which is not timed:
# ONNX Runtime sets itself up in its first calls, 4.5 s for a batch that took 2 s again).
# On a busy 2-core machine one batch took 2 to 7 s, so one says little; three (~5 s of the
# 55 s that 80 PEPs took) put it within 10% on a quiet one (eval/speed/big_corpus.py).
ESTIMATE_AFTER = 3 * BATCH


def write_indexes(
    path: Path,
    kind: ItemKind[Item],
    items: Sequence[Item],
    embedder: Embedder | None = None,
    previous: DenseIndex | None = None,
    progress: Progress | None = None,
    checkpoint: Path | None = None,
    sealer: Sealer | None = None,
) -> dict:
    """Write ``index/`` (and the embeddings, with an ``embedder``) into generation folder ``path``.

    Each phase (``indexing``, ``writing the index``, ``embedding``) goes through
    ``progress`` under its own label and reaches its end only when its work is done:
    the index committed, the last batch encoded.

    Args:
        previous: the live generation's vectors; unchanged items are not encoded again.
        checkpoint: a file where vectors are saved as they are encoded, and read back
            by the next build when this one does not finish (see :mod:`checkpoint`).
        sealer: seal the generation (``core.sealing``): blind terms and ids in the index,
            blind ids and keyed content keys beside the vectors.

    Returns:
        Manifest entries: fields, their coverage, and what the dense channel did.

    Raises:
        Interrupted: Ctrl-C while embedding with a ``checkpoint``; it says what was kept.
    """
    documents = [
        {index.ID: kind.id_of(item), **kind.document(item)}
        for item in (progress(items, "indexing") if progress else items)
    ]
    writing = Phase(progress, documents, "writing the index")
    written: Iterable[Mapping[str, str]] = writing.items()
    if sealer is not None and kind.keys is not None:
        # Made as each item is written, not kept for all: a chunk has hundreds of keys.
        keys = kind.keys
        written = ({**document, **keys(item)} for document, item in zip(written, items))
    index.build(written, kind.fields, path / "index", sealer, kind.key_fields)
    writing.done()
    manifest: dict = {"fields": list(kind.fields), "coverage": coverage(documents, kind.fields)}
    manifest |= manifest_entries(sealer)
    if embedder is not None:
        ids = [d[index.ID] if sealer is None else sealer.blind_id(d[index.ID]) for d in documents]
        key = sealer.digest if sealer is not None else None
        manifest["dense"] = write_dense(path, kind, items, ids, embedder, previous, progress, checkpoint, key)
    return manifest


def write_dense(
    path: Path,
    kind: ItemKind[Item],
    items: Sequence[Item],
    ids: Sequence[str],
    embedder: Embedder,
    previous: DenseIndex | None,
    progress: Progress | None,
    checkpoint: Path | None,
    key: Callable[[str], str] | None = None,
) -> dict:
    """Embed ``items`` into ``path``, saying first what it will take; returns the manifest's ``dense`` entry.

    ``key``: the texts' content key (default: a plain hash; a sealed generation's is keyed).
    """
    texts = [kind.embedding_text(item) for item in items]
    saved = Checkpoint(checkpoint, embedder.name) if checkpoint else None
    keyed = {"key": key} if key is not None else {}
    plan = plan_dense(texts, embedder.name, previous, saved.load() if saved else None, **keyed)
    if plan.resumed:
        note(progress, f"resuming: {plan.resumed:,} {kind.noun}s already embedded")
    # Time goes with the length of the texts (a passage at the model's cap costs 8x a
    # heading's), so the time left is the characters left at the pace measured so far.
    todo_chars = sum(len(texts[i]) for i in plan.missing)
    counted = EncodeProgress(
        embedder, progress, lambda pace: note(progress, estimate(plan, todo_chars / pace, kind.noun))
    )
    try:
        encode_missing(plan, texts, counted, counted.start, saved)
    except KeyboardInterrupt:
        counted.stop()
        if saved is None:
            raise
        raise Interrupted(plan.embedded(), len(texts), kind.noun) from None
    vectors = dense_index(ids, texts, plan, counted)
    counted.done()
    vectors.save(path)
    return {
        "model": vectors.model,
        "encoded": len(plan.missing),
        "reused": plan.reused,
        "resumed": plan.resumed,
        "seconds": round(counted.seconds, 2),
        "rate": round(counted.rate, 1) if counted.rate else None,
        "floor": vectors.floor,
        "nearest_floor": vectors.nearest_floor,
    }


def note(progress: Progress | None, text: str) -> None:
    """Say ``text`` once through ``progress``, if it can say lines (``progress.note``)."""
    say = getattr(progress, "note", None)
    if say is not None:
        say(text)


def estimate(plan: Plan, seconds: float, noun: str) -> str:
    """The line that says what an embedding will take: ``seconds`` in all.

    >>> class Planned:
    ...     keys, missing, reused, resumed, shared = range(29_040), range(28_512), 528, 0, 0
    >>> estimate(Planned(), 360, "chunk")
    'embedding 28,512 of 29,040 chunks (528 reused): about 6 min at 79/s'
    """
    kept = [(plan.reused, "reused"), (plan.resumed, "already embedded"), (plan.shared, "share a text")]
    why = ", ".join(f"{n:,} {what}" for n, what in kept if n)
    todo = len(plan.missing)
    rate = todo / max(seconds, 1e-9)
    return (
        f"embedding {todo:,} of {len(plan.keys):,} {noun}s{f' ({why})' if why else ''}: "
        f"about {duration(seconds)} at {rate:.{0 if rate >= 10 else 1}f}/s"
    )


def duration(seconds: float) -> str:
    """A rough time, as a person would say it.

    >>> duration(42), duration(354), duration(7_290), duration(7_190)
    ('42 s', '6 min', '2 h 2 min', '2 h 0 min')
    """
    if seconds < 90:
        return f"{seconds:.0f} s"
    minutes = round(seconds / 60)
    return f"{minutes} min" if minutes < 90 else f"{minutes // 60} h {minutes % 60} min"


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
    """An embedder that moves the ``embedding`` phase by the texts it has encoded, and times them.

    :func:`encode_missing` hands out the texts to encode in batches; a wrapper around
    that hand-out would count a batch as done before the model has read it. This one
    is given to it as its embedder (and, as ``start``, as its progress, to learn how
    many texts there are) and counts each batch as it comes back: from ``encode``, or
    from ``encode_batches``, which it always offers (the model's own, a cluster's, else
    ``encode`` in turn), since its ``__getattr__`` would pass the model's by uncounted. Once
    :data:`ESTIMATE_AFTER` texts after the first batch are encoded (times the model's
    ``concurrency``, for one that encodes several batches at once), and more are left,
    ``on_pace`` gets the pace of those, in characters a second: the estimate's measure.
    """

    def __init__(
        self,
        embedder: Embedder,
        progress: Progress | None,
        on_pace: Callable[[float], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._embedder = embedder
        self._progress = progress
        self._on_pace = on_pace
        self._clock = clock
        self._bar: Iterator | None = None
        self._total = self._encoded = self._pulled = 0
        self._started = self._finished = self._paced_from = clock()
        self._paced = self._paced_chars = 0  # texts and characters encoded after the first batches
        # Batches encoded at once (a cluster's actors): the first of each sets itself up, and
        # they come back together, so the pace is taken from the end of that first round.
        self._untimed = max(1, int(getattr(embedder, "concurrency", 1)))
        self._batches = 0
        self.name = embedder.name

    @property
    def seconds(self) -> float:
        """How long the texts to encode took (the floor's calibration aside)."""
        return self._finished - self._started

    @property
    def rate(self) -> float | None:
        """Texts encoded a second; None when there were none."""
        counted = min(self._encoded, self._total)
        return counted / self.seconds if counted and self.seconds > 0 else None

    def start(self, positions: Sequence[int], label: str) -> Sequence[int]:
        self._total = len(positions)
        self._started = self._finished = self._clock()
        if self._progress is not None:
            self._bar = iter(self._progress(range(self._total), label))
            if self._total:  # started now, so a wrapper times the first batch too
                next(self._bar, None)
                self._pulled = 1
        return positions

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        vectors = self._embedder.encode(texts)
        self._count(texts, vectors)
        return vectors

    def encode_batches(self, batches: Sequence[Sequence[str]]) -> Iterator[tuple[int, np.ndarray]]:
        """The model's ``encode_batches`` (a cluster's), else its ``encode`` in turn: each batch counted as it comes back."""
        encode_batches = getattr(self._embedder, "encode_batches", None)
        with closed_after(
            encode_batches(batches) if encode_batches else encode_in_turn(self._embedder, batches)
        ) as results:
            for n, vectors in results:
                self._count(batches[n], vectors)
                yield n, vectors

    def _count(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        before, self._encoded = self._encoded, self._encoded + len(vectors)
        if before < self._total:
            self._finished = self._clock()
            self._batches += 1
            if self._batches <= self._untimed:
                self._paced_from = self._finished
            else:
                self._paced, self._paced_chars = self._paced + len(texts), self._paced_chars + sum(map(len, texts))
                after = ESTIMATE_AFTER * self._untimed
                if self._paced - len(texts) < after <= self._paced and self._encoded < self._total:
                    if self._on_pace is not None:
                        self._on_pace(self._paced_chars / max(self._finished - self._paced_from, 1e-9))
        # Pulling item n+1 tells a wrapper that n are done; the very last waits for done().
        while self._bar is not None and self._pulled < min(self._encoded, self._total - 1) + 1:
            next(self._bar, None)
            self._pulled += 1

    def done(self) -> None:
        """The phase's end, once the floor is calibrated too (the last encode)."""
        if self._bar is not None:
            for _ in self._bar:  # whatever is left, then the wrapper's own end
                pass
            self._bar = None

    def stop(self) -> None:
        """The phase cut short: a bar is closed where it stands (not at 100%), before the line that says why.

        Left open, the bar is closed when the interpreter exits, and drawn again below that line.
        """
        close = getattr(self._bar, "close", None)
        if close is not None:
            close()
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
