"""The dense channel: sentence embeddings of items, cosine-ranked against the question.

The model (all-MiniLM-L6-v2, see :mod:`embedders`) ships inside the install. Each item
kind says what the model reads for one item (its embedding text); vectors are stored
with each index generation and carried over for items whose embedding text did not
change, so a re-index only encodes what is new. The vectors of a build cut short are
kept as they come (:mod:`checkpoint`), so its next run only encodes what is left.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, TypeVar

import numpy as np

from .checkpoint import Checkpoint
from .embedders import BATCH, Embedder

EMBEDDINGS_FILE = "embeddings.npy"
KEYS_FILE = "embeddings.json"
_WORD = re.compile(r"\w+")
T = TypeVar("T")


def _key(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()[:16]


# Everyday text that no database schema or technical document is about. Its similarity
# to a collection's items is the model's "unrelated" level for it (see calibrate_floor).
# Many sentences, so that no single one sets the level: a corpus may quote one
# (Tailwind's examples print "The quick brown fox..." on 18 pages), and a sentence a
# collection contains verbatim is left out of its calibration. The added ones are talk
# about nothing in particular: a sentence about dogs, concerts or flights is about
# something a database holds (Spider has a dog kennel, a concert and a flight database).
UNRELATED = (
    "What a lovely morning, the sun is finally out.",
    "Can you recommend a good novel to read on holiday?",
    "My cat keeps knocking things off the kitchen table.",
    "Tell me a joke about penguins.",
    "How do I fold a paper airplane that flies far?",
    "The concert last night was too loud for me.",
    "Remind me to water the plants tomorrow.",
    "Is it going to rain this weekend?",
    "I think I left my umbrella on the train.",
    "Write a short poem about autumn leaves.",
    "Why is the sky blue?",
    "What is the meaning of life?",
    "Please translate 'good night' into Italian.",
    "How long should I boil an egg?",
    "She hummed a tune while painting the fence.",
    "Do you prefer mountains or the seaside?",
    "The quick brown fox jumps over the lazy dog.",
    "I can't decide what to wear to the party.",
    "How many hours of sleep does a toddler need?",
    "Let's meet at the corner cafe at noon.",
    "hello there",
    "thanks, that's all for now",
    "asdf qwerty zxcv",
    "Who would win in a race, a tortoise or a hare?",
    "Lorem ipsum dolor sit amet, consectetur adipiscing elit.",
    "I'm not sure what you mean.",
    "That sounds wonderful, thank you so much!",
    "Could you say that again, a little more slowly?",
    "I have a good feeling about today.",
    "Let me think about it and get back to you.",
    "Sorry, wrong window.",
    "Never mind, it's not important.",
    "What a strange dream I had last night.",
    "Okay, sounds good to me.",
    "See you later, alligator.",
    "Good morning! How are you feeling today?",
    "Happy birthday, I hope you have a wonderful day!",
    "Once upon a time there lived a kind old woman.",
    "Please be patient with me today.",
    "I can't stop laughing at that.",
    "Knock knock, who's there?",
    "Whatever will be, will be.",
    "All that glitters is not gold.",
    "Early to bed and early to rise.",
    "ok thanks",
    "lol that's funny",
    "test test one two three",
    "blah blah blah",
    "no way, really?",
    "Tell me something interesting.",
    "I don't feel like talking right now.",
    "You're the best, have a great weekend.",
    "Can we start over?",
    "It is what it is.",
    "Life is full of little surprises.",
    "Are you a robot?",
    "I was just wondering, that's all.",
    "This is a sentence with no particular meaning.",
    "Wish me luck!",
    "Nice to meet you.",
    "Hmm, let me see.",
    "Why do I always forget things?",
    "Keep calm and carry on.",
    "Do you ever get bored?",
)
FLOOR_QUANTILE = 0.99
# How many deviations above the typical unrelated sentence a question's nearest item
# must come to be on topic, at most (calibrate_nearest_floor). Chosen on the FastAPI dev
# questions and the off-topic set: 5 flags as many off-topic questions there as the old
# level (the maximum over the sentences) did, and no one sentence can move it far.
NEAREST_SPREAD = 5.0


@dataclass
class DenseIndex:
    """Item vectors, row ``i`` for ``ids[i]``.

    ``floor``: the cosine that unrelated text reaches against these items; an item
    must beat it to count as a dense match. ``nearest_floor``: how near unrelated
    sentences come to their *nearest* item (a robust upper level of those cosines,
    never below ``floor``; see ``calibrate_nearest_floor``). In a large collection some
    item is always a little nearer than the typical pair, so this is the level a
    question's nearest item must beat for the question to be about the collection at all.
    """

    ids: list[str]
    keys: list[str]
    vectors: np.ndarray
    model: str
    floor: float = -1.0
    nearest_floor: float = -1.0

    def rank(self, query: np.ndarray, limit: int) -> list[tuple[str, float]]:
        """``(id, cosine)`` of the ``limit`` nearest items, best first."""
        return self.top(self.scores(query), limit)

    def cosines(self, query: np.ndarray, ids: Sequence[str]) -> dict[str, float]:
        """Cosine of ``query`` with each of ``ids`` (ids not in the index are left out)."""
        return self.pick(self.scores(query), ids)

    def scores(self, query: np.ndarray) -> np.ndarray:
        """Cosine of ``query`` with every item, row order. One pass over the vectors
        (15 MB at 10,000 items): a search computes it once and reads it three ways."""
        return self.vectors @ query if self.ids else np.zeros(0, np.float32)

    def top(self, scores: np.ndarray, limit: int) -> list[tuple[str, float]]:
        """``(id, cosine)`` of the ``limit`` best of ``scores``, best first."""
        if not self.ids:
            return []
        limit = min(limit, len(self.ids))
        top = np.argpartition(-scores, limit - 1)[:limit]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(self.ids[i], float(scores[i])) for i in top]

    def pick(self, scores: np.ndarray, ids: Sequence[str]) -> dict[str, float]:
        """The cosines in ``scores`` of ``ids`` (ids not in the index are left out)."""
        rows = self._rows()
        return {i: float(scores[rows[i]]) for i in ids if i in rows}

    def _rows(self) -> dict[str, int]:
        if not hasattr(self, "_row_cache"):
            self._row_cache = {item: row for row, item in enumerate(self.ids)}
        return self._row_cache

    def save(self, folder: Path) -> None:
        np.save(folder / EMBEDDINGS_FILE, self.vectors)
        meta = {
            "model": self.model,
            "floor": self.floor,
            "nearest_floor": self.nearest_floor,
            "ids": self.ids,
            "keys": self.keys,
        }
        (folder / KEYS_FILE).write_text(json.dumps(meta))

    @classmethod
    def load(cls, folder: Path, ids: Mapping[str, str] | None = None) -> DenseIndex | None:
        """The vectors stored in ``folder``; ``ids`` maps the blind ids of a sealed generation back (``core.sealing``)."""
        if not (folder / KEYS_FILE).exists():
            return None
        meta = json.loads((folder / KEYS_FILE).read_text())
        if ids is not None:
            meta["ids"] = [ids.get(item, item) for item in meta["ids"]]
        # Memory-mapped: server workers share one copy in the page cache (150 MB at 100,000 tables).
        vectors = np.load(folder / EMBEDDINGS_FILE, mmap_mode="r")
        floor = meta.get("floor", -1.0)
        return cls(meta["ids"], meta["keys"], vectors, meta["model"], floor, meta.get("nearest_floor", floor))


@dataclass
class Plan:
    """Which vectors an embedding has, and which texts it must encode.

    ``known`` (key -> vector) grows as :func:`encode_missing` works; ``missing`` holds
    the position of one text per key still to encode, in the order they are encoded.
    Each item counts once: reused from the live generation, resumed from a checkpoint,
    encoded, or sharing the text of an item that is (tenants' copies of one table).
    """

    keys: list[str]
    known: dict[str, np.ndarray]
    missing: list[int]
    reused: int = 0
    resumed: int = 0

    @property
    def shared(self) -> int:
        return len(self.keys) - self.reused - self.resumed - len(self.missing)

    def embedded(self) -> int:
        """Items whose vector is known by now."""
        return sum(key in self.known for key in self.keys)


def plan_dense(
    texts: Sequence[str],
    model: str,
    previous: DenseIndex | None = None,
    saved: Mapping[str, np.ndarray] | None = None,
    key: Callable[[str], str] = _key,
) -> Plan:
    """What embedding ``texts`` with ``model`` takes, given the live generation's vectors and a checkpoint's.

    The texts to encode come in batches of similar length (padding is work the model
    does for nothing), and the batches in :func:`spread` order: any first few are a
    sample of all lengths, so a rate timed on them (the estimate, a progress bar's time
    left) holds for the rest.

    >>> class Stored:
    ...     model, keys, vectors = "m", [_key("a")], np.ones((1, 2), np.float32)
    >>> plan = plan_dense(["a", "b", "b", "c"], "m", Stored(), {_key("c"): np.zeros(2)})
    >>> plan.missing, plan.reused, plan.resumed, plan.shared
    ([1], 1, 1, 1)
    >>> plan_dense(["a"], "other model", Stored()).missing  # another model's vectors are not reused
    [0]

    ``key``: the content key of a text; a sealed generation's is keyed (``Sealer.digest``),
    so its vectors file confirms no guessed text.
    """
    keys = [key(t) for t in texts]
    reusable: dict[str, np.ndarray] = {}
    if previous is not None and previous.model == model:
        stored = np.asarray(previous.vectors)  # a plain array view: rows without a memmap object each
        reusable = {key: stored[i] for i, key in enumerate(previous.keys)}
    saved = saved or {}
    known = {**saved, **reusable}
    first: dict[str, int] = {}
    for i, key in enumerate(keys):
        if key not in known:
            first.setdefault(key, i)
    by_length = sorted(first.values(), key=lambda i: len(texts[i]))
    batches = [by_length[at : at + BATCH] for at in range(0, len(by_length), BATCH)]
    missing = [i for b in spread(len(batches)) for i in batches[b]]
    reused = sum(key in reusable for key in keys)
    resumed = sum(key in saved and key not in reusable for key in keys)
    return Plan(keys, known, missing, reused, resumed)


def spread(n: int) -> list[int]:
    """``0 .. n-1`` in an order whose every start is spread over the whole range: the middle, the quarters, ...

    >>> spread(8)
    [4, 2, 6, 1, 3, 5, 7, 0]
    >>> sorted(spread(5)) == list(range(5))
    True
    """
    order: list[int] = []
    seen: set[int] = set()
    parts = 1
    while len(order) < n:
        for odd in range(1, 2 * parts, 2):
            k = odd * n // (2 * parts)
            if k not in seen:
                seen.add(k)
                order.append(k)
        parts *= 2
    return order


class BatchEncoder(Protocol):
    """An embedder that encodes many batches at once (a cluster's actor pool, ``cluster.embedding``)."""

    def encode_batches(self, batches: Sequence[Sequence[str]]) -> Iterator[tuple[int, np.ndarray]]:
        """``(n, vectors of batches[n])`` for every batch, in any order, each as soon as it is encoded."""


def encode_in_turn(embedder: Embedder, batches: Sequence[Sequence[str]]) -> Iterator[tuple[int, np.ndarray]]:
    """``encode_batches`` for an embedder that encodes one batch at a time: in order, each when asked for.

    >>> class Lengths:
    ...     def encode(self, texts):
    ...         return np.array([[len(t)] for t in texts], np.float32)
    >>> [(n, v.ravel().tolist()) for n, v in encode_in_turn(Lengths(), [["a", "bb"], ["ccc"]])]
    [(0, [1.0, 2.0]), (1, [3.0])]
    """
    for n, texts in enumerate(batches):
        yield n, embedder.encode(texts)


@contextmanager
def closed_after(results: Iterator[T]) -> Iterator[Iterator[T]]:
    """``results``, closed however it is left (if it can be: a generator).

    A cluster's pipeline then stops at Ctrl-C, not when its generator is collected, which
    an exception's traceback can put off until after the cluster is gone.

    >>> def counting():
    ...     try:
    ...         yield from range(3)
    ...     finally:
    ...         print("stopped")
    >>> with closed_after(counting()) as numbers:
    ...     next(numbers)
    0
    stopped
    """
    try:
        yield results
    finally:
        close = getattr(results, "close", None)
        if close is not None:
            close()


def encode_missing(
    plan: Plan,
    texts: Sequence[str],
    embedder: Embedder,
    progress: Callable[[Sequence[int], str], Iterable[int]] | None = None,
    checkpoint: Checkpoint | None = None,
) -> None:
    """Encode the texts ``plan`` misses into ``plan.known``, a model batch at a time, each saved to ``checkpoint``.

    The texts go in :data:`BATCH`-sized batches in ``plan.missing`` order, whoever encodes
    them: an embedder with ``encode_batches`` (:class:`BatchEncoder`, a cluster) gets all
    of them at once and hands each back as it is done, in any order; any other encodes
    them in turn. The same batches make the same vectors (a model pads a batch to its
    longest text), so a build on a cluster stores what one on this machine would.

    Each batch is kept as it comes back, so Ctrl-C loses only the batches in flight, and
    ``progress`` (given ``plan.missing``) is moved past a batch's positions once its
    vectors are in, not when it is handed out.
    """
    missing = plan.missing
    batches = [missing[at : at + BATCH] for at in range(0, len(missing), BATCH)]
    bar = iter(progress(missing, "embedding")) if progress else None
    encode_batches = getattr(embedder, "encode_batches", None)
    wanted = [[texts[j] for j in batch] for batch in batches]
    with closed_after(encode_batches(wanted) if encode_batches else encode_in_turn(embedder, wanted)) as results:
        for n, vectors in results:
            keys = [plan.keys[j] for j in batches[n]]
            if checkpoint is not None:
                checkpoint.append(keys, vectors)
            plan.known.update(zip(keys, vectors))
            if bar is not None:
                for _ in batches[n]:
                    next(bar, None)
    if bar is not None:
        for _ in bar:  # the wrapper's own end
            pass


def dense_index(ids: Sequence[str], texts: Sequence[str], plan: Plan, embedder: Embedder) -> DenseIndex:
    """The index of an embedding whose ``plan`` is complete, its floors calibrated with ``embedder``."""
    vectors = np.stack([plan.known[key] for key in plan.keys]) if plan.keys else np.zeros((0, 1), np.float32)
    index = DenseIndex(list(ids), plan.keys, vectors.astype(np.float32), embedder.name)
    unrelated = embedder.encode(unrelated_sentences(texts))
    index.floor = calibrate_floor(index.vectors, unrelated)
    # Never below the floor: a question whose nearest item is kept is on topic.
    index.nearest_floor = max(calibrate_nearest_floor(index.vectors, unrelated), index.floor)
    return index


def build_dense(
    ids: Sequence[str],
    texts: Sequence[str],
    embedder: Embedder,
    previous: DenseIndex | None = None,
    progress: Callable[[Sequence[int], str], Iterable[int]] | None = None,
    checkpoint: Checkpoint | None = None,
) -> tuple[DenseIndex, int]:
    """Embed ``texts`` (the embedding text of item ``ids[i]``), reusing ``previous`` vectors of unchanged texts.

    Args:
        progress: wraps the positions of the texts to encode while they are encoded (a progress bar).
        checkpoint: vectors of an interrupted run, reused; the new ones are saved there as they come.

    Returns:
        The index, and how many texts were encoded afresh (items with the same text share one).
    """
    plan = plan_dense(texts, embedder.name, previous, checkpoint.load() if checkpoint else {})
    encode_missing(plan, texts, embedder, progress, checkpoint)
    return dense_index(ids, texts, plan, embedder), len(plan.missing)


def _plain(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


def unrelated_sentences(texts: Sequence[str]) -> list[str]:
    """``UNRELATED`` without the sentences that ``texts`` quote (compared as lower-case words).

    A quoted sentence is as near to its passage as the question that quotes it: it
    would raise the level to where real questions fail it.

    >>> len(UNRELATED) - len(unrelated_sentences(["<p>The quick brown fox jumps over the LAZY dog</p>"]))
    1
    """
    # Padded: whole words only ("hello there" is not in "othello there").
    plain = "\n".join(f" {_plain(text)} " for text in texts)
    kept = [sentence for sentence in UNRELATED if f" {_plain(sentence)} " not in plain]
    return kept or list(UNRELATED)  # a collection of these very sentences still gets a level


def calibrate_floor(items: np.ndarray, unrelated: np.ndarray, quantile: float = FLOOR_QUANTILE) -> float:
    """The cosine that unrelated text reaches against these items, at ``quantile``.

    Cosines are not comparable across models or collections (MiniLM puts most pairs of
    unrelated sentences between 0 and 0.2; other models elsewhere), so the floor is
    measured, not fixed: everyday sentences against this collection's own items.

    >>> t = np.eye(3, dtype=np.float32)
    >>> round(calibrate_floor(t, np.array([[0.1, 0.2, 0.3]], np.float32), quantile=1.0), 2)
    0.3
    """
    if items.size == 0:
        return -1.0
    return float(np.quantile(unrelated @ items.T, quantile))


def calibrate_nearest_floor(items: np.ndarray, unrelated: np.ndarray, spread: float = NEAREST_SPREAD) -> float:
    """How near unrelated sentences come to their nearest item: a robust upper level of those cosines.

    The median of the sentences' nearest cosines plus ``spread`` times their median
    absolute deviation (scaled to a standard deviation), and never above the highest of
    them: one sentence that comes near cannot lift the level far (half of them would have
    to), and the level is never stricter than what unrelated text actually reaches (a
    short question such as "who is on call?" comes no nearer than that to a small handbook).

    >>> t = np.eye(3, dtype=np.float32)
    >>> near = np.array([[0.1, 0, 0], [0.2, 0, 0], [0.3, 0, 0], [0.95, 0, 0]], np.float32)
    >>> round(calibrate_nearest_floor(t, near, 1.0), 3)  # median 0.25, deviation 0.148: 0.95 counts as any high one
    0.398
    >>> round(calibrate_nearest_floor(t, near[:3], 5.0), 3)  # 0.2 + 5 x 0.148, capped at the highest, 0.3
    0.3
    """
    if items.size == 0:
        return -1.0
    nearest = (unrelated @ items.T).max(axis=1)
    median = float(np.median(nearest))
    deviation = 1.4826 * float(np.median(np.abs(nearest - median)))
    return min(median + spread * deviation, float(nearest.max()))
