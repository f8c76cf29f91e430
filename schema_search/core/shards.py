"""A collection split into shards: each shard a complete index of its own, searched as one collection.

A sharded generation keeps what the router needs at its top level (the items, the
vectors of all of them for the next build to reuse) and, in ``shards/<i>/``, one
complete generation per shard: its tantivy indexes, its vectors (memory-mapped), its
manifest. Items go to shards by a hash of what they belong to (a passage by its
document), so a document's passages and its page are in one shard.

Searching runs the same :class:`~.channels.Channels` and the same stages as one machine:
:class:`ShardedFieldRanker` and :class:`ShardedVectors` have the interfaces of
:class:`~.index.FieldRanker` and :class:`~.dense.DenseIndex` that they use, and ask every
shard through a :class:`Scatter` (a loop in this process, or Ray Serve's handles).

Scores stay comparable across shards:

- **BM25's IDF.** A shard's IDF comes from its own counts, so the same term would score
  differently in each. The router first asks every shard how many of its items hold
  each term of the question (cached: a generation's counts never change), adds them up,
  and sends the collection's IDF with the query; each shard boosts every term by the
  ratio of that IDF to its own (``FieldRanker.rank``), as Elasticsearch's
  ``dfs_query_then_fetch`` does.
- **BM25's average field length** cannot be handed to tantivy at query time (its
  statistics provider is not in the Python binding), and it differs by shard: 8% on
  FastAPI's docs in 3 shards, enough to reorder 93% of the top tens. So each shard is
  written with *ballast*: items that hold only a token no question has, as many
  tokens per field as bring the shard's average length to the collection's, exactly
  (:func:`ballast`). They never match, and every score is the one-index score, to
  float rounding; they are not counted as items (``Shard.frequencies``).
- **Dense.** Cosines do not depend on the shard. The floors (how near unrelated text
  comes) are calibrated once on all the vectors and written into every shard.
"""

from __future__ import annotations

import json
import math
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np

from .dense import DenseIndex
from .index import ID, FieldRanker, Idf, bm25_idf, open_index, terms

SHARDS_DIR = "shards"
# The only token a ballast item holds: never a word of a question (and dropped if one asked it).
BALLAST = "qzxballastxzq"
BALLAST_ID = ""
# Ballast items a shard always may take to match the averages exactly (they cost a few bytes each).
EXACT_PADDING = 100_000
MANIFEST = "manifest.json"
# The sub-indexes a shard may hold (folders of its own), by the name the router asks for them by.
INDEXES = ("index", "pages")
# What a router may ask a shard in one ``many`` round trip.
CALLS = frozenset({"frequencies", "rank", "containing_all", "holding", "dense_top", "dense_pick"})
# Rankings learnt ahead of their question and not asked for yet, kept at most (the oldest go first).
LEARNT = 16


def shard_of(key: str, shards: int) -> int:
    """The shard of an item that belongs to ``key`` (a passage: its document). Stable across runs and machines.

    >>> shard_of("PEP 8", 3), shard_of("PEP 8", 3) == shard_of("PEP 8", 3), shard_of("x", 1)
    (2, True, 0)
    """
    return zlib.crc32(key.encode("utf-8")) % shards


def ballast(lengths: Sequence[Sequence[int]], totals: Sequence[int], count: int) -> list[list[int]]:
    """Tokens per field of the ballast items that bring one shard's average field lengths to the collection's, exactly.

    Args:
        lengths: the shard's items, each its token count in every field.
        totals: the collection's tokens in every field; ``count``: its items.

    The shard with its ballast holds ``size`` items and ``totals[f] * size / count`` tokens
    in field ``f``: the collection's averages to the last digit, since tantivy divides
    tokens by items in floating point and a token rounded away would leave scores a few
    thousandths apart, enough to reorder near ties. So ``size`` is a multiple of every
    ``count / gcd(totals[f], count)`` (``count`` itself always is: the padding never
    exceeds the collection), and large enough to lower a field the shard has more of than
    average: ``size >= own tokens * count / totals[f]``. Exactness may ask for as many
    ballast items as the collection has; past the shard's own number of items (and
    :data:`EXACT_PADDING`), the lengths are matched to the nearest token instead.

    >>> ballast([[10, 1], [30, 1]], totals=[60, 6], count=6)  # averages 10 and 1; the shard's 20 and 1
    [[0, 1], [0, 1]]
    >>> ballast([[5, 2]], totals=[20, 2], count=2)  # averages 10 and 1: +15 body, and one item of 0
    [[15, 0]]
    >>> ballast([[3, 1]], totals=[7, 2], count=3)  # averages 7/3 and 2/3: only 3 items hold them exactly
    [[2, 1], [2, 0]]
    """
    items = len(lengths)
    own = [sum(item[f] for item in lengths) for f in range(len(totals))]
    unit = math.lcm(*(count // math.gcd(total, count) for total in totals if total)) if count else 1
    needed = max([items, *(-(-own[f] * count // total) for f, total in enumerate(totals) if total)])
    size = -(-needed // unit) * unit
    if size == items and any(total * size // count != own[f] for f, total in enumerate(totals)):
        size += unit  # tokens to add and no item to hold them
    if size - items > max(items, EXACT_PADDING):
        # Exact would take more ballast than the shard has items: the nearest whole token instead,
        # off by at most half a token in the shard's total (5e-6 of a 100,000-item shard's, or less).
        size = max(needed, items + 1)
        missing = [round(total * size / count) - own[f] for f, total in enumerate(totals)]
    else:
        missing = [total * size // count - own[f] for f, total in enumerate(totals)]
    added = size - items
    if not added:
        return []
    return [[n // added + (1 if j < n % added else 0) for n in missing] for j in range(added)]


def ballast_documents(fields: Sequence[str], tokens: list[list[int]]) -> list[dict[str, str]]:
    """The ballast items as index documents (``index.build``)."""
    return [{ID: BALLAST_ID, **{f: " ".join([BALLAST] * n) for f, n in zip(fields, item)}} for item in tokens]


def shard_folders(generation: Path) -> list[Path]:
    """The shard folders of a sharded generation, in shard order."""
    folder = generation / SHARDS_DIR
    return sorted((p for p in folder.iterdir() if p.is_dir()), key=lambda p: int(p.name))


def shard_vectors(everything: DenseIndex, ids: Sequence[str]) -> DenseIndex:
    """The rows of ``ids`` from the vectors of the whole collection, with its floors.

    The floors are not calibrated again on the shard: a shard's would differ from the
    collection's (fewer items, fewer near misses), and the floor must be one level everywhere.
    """
    rows = {item: row for row, item in enumerate(everything.ids)}
    picked = [rows[item] for item in ids]
    vectors = np.asarray(everything.vectors)[picked] if picked else np.zeros((0, everything.vectors.shape[1]))
    return DenseIndex(
        list(ids),
        [everything.keys[row] for row in picked],
        vectors.astype(np.float32),
        everything.model,
        everything.floor,
        everything.nearest_floor,
    )


class Shard:
    """One shard's indexes, answering the router's questions. What a replica holds.

    Every method takes and returns plain values (lists, dicts, floats), which pickle
    cheaply across processes and machines.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self._rankers = {
            name: FieldRanker(open_index(self.folder / name)) for name in INDEXES if (self.folder / name).is_dir()
        }
        self._vectors = DenseIndex.load(self.folder)
        manifest = self.folder / MANIFEST
        self._ballast = json.loads(manifest.read_text()).get("ballast", {}) if manifest.is_file() else {}

    def frequencies(self, index: str, fields: Sequence[str], terms: Sequence[str]) -> dict:
        """How many items hold each analysed term in each field, and how many items there are (ballast aside)."""
        ranker = self._rankers[index]
        return {
            "documents": ranker.documents - self._ballast.get(index, 0),
            "fields": ranker.frequencies(fields, terms),
        }

    def rank(self, index: str, field: str, words: list[str], limit: int, idf: Idf) -> list[tuple[str, float]]:
        return _real(self._rankers[index].rank(field, words, limit, idf))

    def containing_all(
        self, index: str, fields: str | Sequence[str], words: list[str], limit: int, idf: Idf
    ) -> list[tuple[str, float]]:
        return _real(self._rankers[index].scored_containing_all(fields, words, limit, idf))

    def holding(self, index: str, field: str, key: str) -> list[str] | None:
        found = self._rankers[index].holding(field, key)
        return None if found is None else sorted(found)

    def dense_top(self, vector: np.ndarray, limit: int) -> list[tuple[str, float]]:
        if self._vectors is None:
            return []
        return self._vectors.top(self._vectors.scores(np.asarray(vector, np.float32)), limit)

    def dense_pick(self, vector: np.ndarray, ids: Sequence[str]) -> dict[str, float]:
        if self._vectors is None:
            return {}
        return self._vectors.cosines(np.asarray(vector, np.float32), ids)

    def many(self, calls: Sequence[tuple[str, tuple]], vector: np.ndarray | None = None) -> tuple[list, dict]:
        """Several calls in one round trip, and, given the question's ``vector``, the cosine of every
        item they found: what the router would otherwise ask for in more round trips."""
        unknown = sorted({method for method, _ in calls} - CALLS)
        if unknown:
            raise ValueError(f"a shard answers {', '.join(sorted(CALLS))}, not {', '.join(unknown)}")
        answers = [getattr(self, method)(*args) for method, args in calls]
        if vector is None or self._vectors is None:
            return answers, {}
        # Rankings are lists of (item, score); counts are dicts and held keys bare ids.
        found = {
            pair[0] for answer in answers if isinstance(answer, list) for pair in answer if isinstance(pair, tuple)
        }
        return answers, self._vectors.cosines(np.asarray(vector, np.float32), sorted(found))


def _real(found: list[tuple[str, float]]) -> list[tuple[str, float]]:
    return [(item, score) for item, score in found if item != BALLAST_ID]


class Scatter(Protocol):
    """Asks every shard the same question: ``method`` of :class:`Shard` with ``args``; one answer per shard."""

    def __call__(self, method: str, *args) -> list: ...


class LocalShards:
    """Every shard opened in this process: a sharded generation served without a cluster."""

    def __init__(self, folders: Iterable[Path]) -> None:
        self.shards = [Shard(folder) for folder in folders]

    def __call__(self, method: str, *args) -> list:
        return [getattr(shard, method)(*args) for shard in self.shards]


# Scores within this share of each other are a tie. One index gives tied items exactly equal
# scores and orders them by when they were added; across shards, each term's score scaled to
# the collection's IDF in tantivy's 32-bit floats differs from one index's by a few units in
# the last place (21.252384 against 21.252388: 2e-7), which would order them by shard.
# Scores that really differ may be as close as 1.4e-6 (21.252354 among those two on PEPs),
# so the window is a few units in the last place wide, no more.
TIE = 5e-7
# The same for cosines, which take any value: only a duplicate's equal vector is a tie
# (the shards' products may differ from one index's by a unit or two in the last place).
DENSE_TIE = 3e-7


def merged(
    answers: Iterable[Sequence[tuple[str, float]]],
    limit: int,
    order: Mapping[str, int] | None = None,
    tie: float = TIE,
) -> list[tuple[str, float]]:
    """The best ``limit`` of the shards' ``(id, score)`` lists, best first.

    Ties (scores within ``tie`` of each other, relatively) go in the collection's
    ``order`` (item -> its position when it was indexed), as in one index; without it, in shard order.

    >>> merged([[("a", 3.0), ("b", 1.0)], [("c", 2.0)]], 2)
    [('a', 3.0), ('c', 2.0)]
    >>> merged([[("late", 2.0000004)], [("early", 2.0)]], 2, order={"early": 0, "late": 1})
    [('early', 2.0), ('late', 2.0000004)]
    """
    everything = sorted((pair for answer in answers for pair in answer), key=lambda pair: -pair[1])
    if order is not None:
        tied: list[list[tuple[str, float]]] = []
        for pair in everything:
            if tied and tied[-1][0][1] - pair[1] <= tie * abs(tied[-1][0][1]):
                tied[-1].append(pair)
            else:
                tied.append([pair])
        last = len(order)
        everything = [pair for group in tied for pair in sorted(group, key=lambda pair: order.get(pair[0], last))]
    return everything[:limit]


class ShardedFieldRanker:
    """BM25 over the shards' copies of one index, scored with the collection's IDF (see the module's note).

    Has the methods of :class:`~.index.FieldRanker` that channels, pins and pages use.
    """

    def __init__(self, scatter: Scatter, index: str = "index", order: Mapping[str, int] | None = None) -> None:
        self._scatter = scatter
        self._index = index
        self._order = order
        # (field, term) -> items holding it, over all shards; the counts of a generation never change.
        self._counts: dict[tuple[str, str], int] = {}
        self._documents: int | None = None
        # Answers learnt ahead, for the last few questions (``ShardedChannels``).
        self._learnt: dict[tuple, list[tuple[str, float]]] = {}

    @property
    def documents(self) -> int:
        if self._documents is None:
            self._documents = sum(answer["documents"] for answer in self._scatter("frequencies", self._index, [], []))
        return self._documents

    def frequencies(self, fields: Sequence[str], terms: Sequence[str]) -> dict[str, list[int]]:
        call = self.counting(fields, terms)
        if call is not None:
            self.counted(call, self._scatter(*call[:1], *call[1]))
        return {f: [self._counts[(f, t)] for t in terms] for f in fields}

    def counting(self, fields: Sequence[str], terms: Sequence[str]) -> tuple[str, tuple] | None:
        """The call that asks the shards for the counts of these terms not known yet; None when all are."""
        missing = {(f, t) for f in fields for t in terms} - self._counts.keys()
        if not missing:
            return None
        return "frequencies", (self._index, sorted({f for f, _ in missing}), sorted({t for _, t in missing}))

    def counted(self, call: tuple[str, tuple], answers: Sequence[dict]) -> None:
        """The shards' answers to :meth:`counting`'s call, added up and kept."""
        _, (_, fields, terms) = call
        for f in fields:
            for n, t in enumerate(terms):
                self._counts[(f, t)] = sum(answer["fields"][f][n] for answer in answers)
        if self._documents is None:
            self._documents = sum(answer["documents"] for answer in answers)

    def ask(self, field: str, words: list[str], limit: int) -> tuple[str, tuple]:
        """The call of :meth:`rank` as one of a ``many`` round trip's, its IDF known (``frequencies`` cached)."""
        return "rank", (self._index, field, words, limit, self.idf([field], words))

    def asking_all(self, fields: Sequence[str], words: list[str], limit: int) -> tuple[str, tuple]:
        """The call of :meth:`containing_all` as one of a ``many`` round trip's."""
        return "containing_all", (self._index, list(fields), words, limit, self.idf(fields, words))

    def merge(self, answers: Iterable[Sequence[tuple[str, float]]], limit: int) -> list[tuple[str, float]]:
        """The shards' answers to one ranking call, as one index's."""
        return merged(answers, limit, self._order)

    def remember(self, call: tuple[str, tuple], found: list[tuple[str, float]]) -> None:
        """What the call (of :meth:`ask` or :meth:`asking_all`) answers, learnt in a ``many`` round trip:
        :meth:`rank` or :meth:`containing_all` with its arguments will not ask the shards again."""
        method, (_, field, words, limit, _) = call
        self._learnt[_key(method, field, words, limit)] = found
        while len(self._learnt) > LEARNT:  # a question that never asked for it
            self._learnt.pop(next(iter(self._learnt)))

    def idf(self, fields: Sequence[str], words: Sequence[str]) -> dict[str, dict[str, float]]:
        """The collection's IDF of each analysed term of ``words`` in each of ``fields``."""
        analysed = list(dict.fromkeys(t for word in words for t in terms(word)))
        counts = self.frequencies(fields, analysed)
        total = self.documents
        return {
            f: {t: bm25_idf(n, total) for t, n in zip(analysed, counts[f]) if n} for f in fields
        }  # a term no shard holds matches nothing

    def rank(self, field: str, words: list[str], limit: int) -> list[tuple[str, float]]:
        if not words:
            return []
        known = self._learnt.pop(_key("rank", field, words, limit), None)
        if known is not None:
            return known
        answers = self._scatter("rank", self._index, field, words, limit, self.idf([field], words))
        return merged(answers, limit, self._order)

    def containing_all(self, field: str | Sequence[str], words: list[str], limit: int) -> list[str]:
        if not words:
            return []
        fields = [field] if isinstance(field, str) else list(field)
        known = self._learnt.pop(_key("containing_all", fields, words, limit), None)
        if known is not None:
            return [item for item, _ in known]
        answers = self._scatter("containing_all", self._index, field, words, limit, self.idf(fields, words))
        return [item for item, _ in merged(answers, limit, self._order)]

    def holding(self, field: str, key: str) -> set[str] | None:
        answers = self._scatter("holding", self._index, field, key)
        if any(answer is None for answer in answers):
            return None
        return {item for answer in answers for item in answer}


def _key(method: str, field: str | Sequence[str], words: Sequence[str], limit: int) -> tuple:
    return method, (field,) if isinstance(field, str) else tuple(field), tuple(words), limit


@dataclass
class _Question:
    """A question's vector, and what the shards have said of it so far (the ``scores`` of :class:`ShardedVectors`)."""

    vector: np.ndarray
    best: list[tuple[str, float]] = field(default_factory=list)  # the best len(best) items, best first
    asked: int = 0  # how many were asked for: fewer came when the collection has fewer
    cosines: dict[str, float] = field(default_factory=dict)


class ShardedVectors:
    """The shards' vectors, with the interface of :class:`~.dense.DenseIndex` that channels use.

    ``scores`` returns the question itself, not a score per item; ``top`` and ``pick`` ask
    the shards, and remember their answers: a search asks for the best 100 and then the
    nearest one, which is the first of them.
    """

    def __init__(
        self, scatter: Scatter, model: str, floor: float, nearest_floor: float, order: Mapping[str, int] | None = None
    ) -> None:
        self._scatter = scatter
        self._order = order
        self.model = model
        self.floor = floor
        self.nearest_floor = nearest_floor

    def scores(self, query: np.ndarray) -> _Question:
        return _Question(np.asarray(query, np.float32))

    def top(self, scores: _Question, limit: int) -> list[tuple[str, float]]:
        if limit > scores.asked:
            scores.best = merged(self._scatter("dense_top", scores.vector, limit), limit, self._order, DENSE_TIE)
            scores.asked = limit
            scores.cosines.update(scores.best)
        return scores.best[:limit]

    def asking(self, scores: _Question, limit: int) -> tuple[str, tuple]:
        """The call of :meth:`top` as one of a ``many`` round trip's."""
        return "dense_top", (scores.vector, limit)

    def learn(
        self, scores: _Question, answers: Iterable[list[tuple[str, float]]], limit: int, cosines: Mapping
    ) -> None:
        """What the shards said of the question in a ``many`` round trip: its best ``limit``, and more cosines."""
        scores.best = merged(answers, limit, self._order, DENSE_TIE)
        scores.asked = limit
        scores.cosines.update(scores.best)
        scores.cosines.update(cosines)

    def pick(self, scores: _Question, ids: Sequence[str]) -> dict[str, float]:
        unknown = [item for item in dict.fromkeys(ids) if item not in scores.cosines]
        if unknown:
            for answer in self._scatter("dense_pick", scores.vector, unknown):
                scores.cosines.update(answer)
        return {item: scores.cosines[item] for item in ids if item in scores.cosines}


def sharded_rankers(
    scatter: Scatter, floors: Mapping[str, float] | None, model: str | None, order: Mapping[str, int] | None = None
) -> tuple[ShardedFieldRanker, ShardedVectors | None]:
    """The field ranker of the shards' main index, and their vectors when they were embedded (``floors``).

    ``order``: each item's position in the collection, which orders ties as one index does.
    """
    fields = ShardedFieldRanker(scatter, "index", order)
    if floors is None or model is None:
        return fields, None
    return fields, ShardedVectors(scatter, model, floors["floor"], floors["nearest_floor"], order)


# A way to reach a sharded generation's shards: (the generation's folder, its shard folders) -> a Scatter.
Reach = Callable[[Path, Sequence[Path]], Scatter]


def local_reach(generation: Path, folders: Sequence[Path]) -> Scatter:
    """Every shard in this process."""
    return LocalShards(folders)
