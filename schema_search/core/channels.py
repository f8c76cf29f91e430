"""An opened generation's retrieval channels: BM25 over each field, and the dense channel.

This is where the core meets tantivy and the embedding model at search time; the
rankings it returns go to the pure stages in :mod:`ranking`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache

from . import analyzer
from .closeness import Closeness
from .dense import DenseIndex
from .embedders import Embedder, family
from .floor import Relevance
from .index import FieldRanker, open_index
from .novelty import novelty
from .question import content_words, question_terms
from .sealing import Sealer
from .shards import Scatter, ShardedFieldRanker, ShardedVectors, sharded_rankers
from .store import Generation

# A channel ranker: (question, how many) -> item ids, best first, matches only.
Ranker = Callable[[str, int], list[str]]
_ANALYZER = analyzer.build_analyzer()


class Channels:
    """The channels of one generation. ``rankers``: channel name -> ranker (dense last, when built)."""

    def __init__(
        self,
        rankers: Mapping[str, Ranker],
        vectors: DenseIndex | None = None,
        embedder: Embedder | None = None,
        fields: FieldRanker | ShardedFieldRanker | None = None,
    ) -> None:
        self.rankers = dict(rankers)
        self.fields = fields
        self.vectors = vectors if embedder is not None else None
        self.embedder = embedder if self.vectors is not None else None
        if self.vectors is not None:
            # One encoding, and one pass over the vectors, per question: shared by the
            # dense channel, the floor and the cosines results show.
            # Question vectors are kept for 64 questions; the scores (one float per item:
            # 400 KB at 100,000 items) for the last eight: one search reads them for the
            # ranking, the floor and then the distances it shows (``closeness``), and other
            # searches of a threaded server may come in between.
            vectors = self.vectors
            self.encode = lru_cache(maxsize=64)(lambda question: embedder.encode([question])[0])
            # Through the attribute: channels of the same model may share one encoding (``share_encoding``).
            self._scores = lru_cache(maxsize=8)(lambda question: vectors.scores(self.encode(question)))
            self.rankers["dense"] = self._dense_rank
        self.readable = lru_cache(maxsize=64)(self._readable)

    @classmethod
    def open(
        cls,
        generation: Generation,
        fields: Sequence[str],
        embedder: Embedder | None = None,
        exclusive: Sequence[str] = (),
        sealer: Sealer | None = None,
        ids: Mapping[str, str] | None = None,
    ) -> Channels:
        """Open a stored generation; with an ``embedder``, add the dense channel if it was built with that model.

        ``exclusive``: fields searched only with the words no other field has (``bm25_rankers``).
        ``sealer`` and ``ids`` (blind id -> item id): for a sealed generation (``core.sealing``).

        Any backend of the same model will do (float vectors searched with int8 question
        vectors, say): they agree to a cosine of 0.99.
        """
        field_ranker = FieldRanker(open_index(generation.index_path), sealer, ids)
        vectors = DenseIndex.load(generation.path, ids) if embedder is not None else None
        if vectors is not None and family(vectors.model) != family(embedder.name):
            vectors = None
        return cls(bm25_rankers(field_ranker, fields, exclusive), vectors, embedder, field_ranker)

    @classmethod
    def from_shards(
        cls,
        scatter: Scatter,
        manifest: Mapping,
        fields: Sequence[str],
        embedder: Embedder | None = None,
        exclusive: Sequence[str] = (),
        order: Mapping[str, int] | None = None,
        anchors: bool = False,
        also: Sequence[tuple[ShardedFieldRanker, str]] = (),
    ) -> Channels:
        """The channels of a sharded generation (``core.shards``), its shards asked through ``scatter``.

        ``manifest``: the generation's, whose ``dense`` entry has the model and the collection's floors.
        ``order``: each item's position in the collection (ties go in it, as in one index).
        ``anchors``: the kind asks :meth:`matching_all` over these fields after the rankings
        (chunks do): its answer comes in the same round trip.
        ``also``: other indexes of the shards (ranker, field) the kind ranks the question's content
        words in, as deep as the channels (a corpus's pages): in the same round trip too.
        """
        dense = manifest.get("dense") or {}
        model = (
            dense.get("model")
            if embedder is not None and family(dense.get("model") or "") == family(embedder.name)
            else None
        )
        floors = {"floor": dense.get("floor", -1.0), "nearest_floor": dense.get("nearest_floor", -1.0)}
        field_ranker, vectors = sharded_rankers(scatter, floors, model, order)
        rankers = bm25_rankers(field_ranker, fields, exclusive)
        words = field_words(field_ranker, fields, exclusive)
        return ShardedChannels(rankers, vectors, embedder, field_ranker, scatter, words, anchors, also)

    def share_encoding(self, other: Channels) -> None:
        """Encode questions with ``other``'s cache (same model): one encoding per question for both."""
        if self.vectors is not None and other.vectors is not None:
            self.encode = other.encode

    def rankings(self, question: str, depth: int) -> dict[str, list[str]]:
        return {channel: ranker(question, depth) for channel, ranker in self.rankers.items()}

    def relevance(
        self, question: str, rankings: Mapping[str, list[str]], nearest_topic_floor: bool = False
    ) -> Relevance | None:
        """Cosines of the ranked items and of the nearest item anywhere, with the unrelated level.

        Args:
            nearest_topic_floor: judge off topic against how near unrelated text comes
                to its nearest item (``DenseIndex.nearest_floor``), not to a typical one.
        """
        if self.vectors is None:
            return None
        candidates = list(dict.fromkeys(item for ranking in rankings.values() for item in ranking))
        scores = self._scores(question)
        cosines = self.vectors.pick(scores, candidates)
        # The nearest item anywhere decides whether the question is about this collection.
        nearest = self.vectors.top(scores, 1)
        cosines.update(nearest)
        topic_floor = self.vectors.nearest_floor if nearest_topic_floor else None
        return Relevance(
            cosines, self.vectors.floor, self.readable(question), nearest[0][0] if nearest else None, topic_floor
        )

    def matching_all(self, question: str, fields: Sequence[str], limit: int) -> list[str]:
        """Items with every meaningful word of the question in ``fields`` (each word in any of them), best first.

        Only for questions of two or more such words (stop words and the words that only
        ask do not count): one shared word is what BM25 finds anywhere.
        """
        if self.fields is None or len(question_terms(question)) < 2:
            return []
        # Unanalysed words: the index analyses them itself (a stemmed word would be stemmed twice).
        return self.fields.containing_all(fields, content_words(question), limit)

    def novelty(self, question: str, channels: Sequence[str]) -> dict[str, float]:
        """For each of ``channels``: the share of the question only it matches (``novelty.novelty``)."""
        if self.fields is None or not channels:
            return {}
        terms = question_terms(question)
        keyword = [name for name in self.rankers if name != "dense"]
        frequencies = self.fields.frequencies(keyword, terms)
        return {
            channel: novelty(frequencies, channel, self.fields.documents)
            for channel in channels
            if channel in frequencies
        }

    def closeness(self, question: str, items: Sequence[str]) -> Closeness | None:
        """How near the question is to ``items``, with the collection's levels; None without the dense channel.

        Cheap after a search: the question's scores are cached.
        """
        if self.vectors is None:
            return None
        scores = self._scores(question)
        nearest = self.vectors.top(scores, 1)
        return Closeness(
            self.vectors.pick(scores, items),
            self.vectors.floor,
            self.vectors.nearest_floor,
            nearest[0][1] if nearest else None,
        )

    def _readable(self, question: str) -> float:
        """Share of the question the embedding model has word pieces for (1.0 without a tokenizer)."""
        unknown_share = getattr(self.embedder, "unknown_share", None)
        return 1.0 - unknown_share(question) if unknown_share else 1.0

    def _dense_rank(self, question: str, limit: int) -> list[str]:
        """Items nearer the question than unrelated text is to them (``DenseIndex.floor``)."""
        assert self.vectors is not None
        ranked = self.vectors.top(self._scores(question), limit)
        return [item for item, cosine in ranked if cosine > self.vectors.floor]


def bm25_rankers(field_ranker: FieldRanker, fields: Sequence[str], exclusive: Sequence[str] = ()) -> dict[str, Ranker]:
    """One BM25 ranker per document field, over the question's content words (``question``).

    A field in ``exclusive`` is searched only with the words no other field has: a
    value field's ``contact`` (an entity type stored in a log table) says nothing
    that the names do not say better, its ``xmagnet`` (a company name) does.
    """
    words = field_words(field_ranker, fields, exclusive)

    def ranker(field_name: str) -> Ranker:
        return lambda question, limit: [
            item for item, _ in field_ranker.rank(field_name, words(field_name, question), limit)
        ]

    return {name: ranker(name) for name in fields}


def field_words(
    field_ranker: FieldRanker | ShardedFieldRanker, fields: Sequence[str], exclusive: Sequence[str] = ()
) -> Callable[[str, str], list[str]]:
    """(field, question) -> the words a field is searched with (see :func:`bm25_rankers`)."""
    shared = [name for name in fields if name not in exclusive]

    def words(field_name: str, question: str) -> list[str]:
        if field_name in exclusive:
            return _own_words(field_ranker, shared, question)
        return content_words(question)

    return words


def _own_words(field_ranker: FieldRanker, others: Sequence[str], question: str) -> list[str]:
    """The question's content words that no field of ``others`` contains."""
    own = []
    for word in content_words(question):
        terms = _ANALYZER.analyze(word)
        frequencies = field_ranker.frequencies(others, terms)
        if terms and not any(any(counts) for counts in frequencies.values()):
            own.append(word)
    return own


class ShardedChannels(Channels):
    """The channels of a sharded generation, whose rankings take one round trip to the shards.

    Asked channel by channel, a search would cost a round trip per field, one for the dense
    channel, one for the cosines the floor reads and one for the anchors: ten on a docs
    search. Here the terms' counts come first (none once the terms were seen: they are
    cached), then every ranking, the anchors and the cosines of everything found in one
    ``many`` call per shard; the other methods then find their answers already known.
    """

    def __init__(
        self,
        rankers: Mapping[str, Ranker],
        vectors: ShardedVectors | None,
        embedder: Embedder | None,
        fields: ShardedFieldRanker,
        scatter: Scatter,
        words: Callable[[str, str], list[str]],
        anchors: bool = False,
        also: Sequence[tuple[ShardedFieldRanker, str]] = (),
    ) -> None:
        super().__init__(rankers, vectors, embedder, fields)
        self._scatter = scatter
        self._words = words
        self._anchors = anchors
        self._also = list(also)
        self._searched = [name for name in self.rankers if name != "dense"]

    def rankings(self, question: str, depth: int) -> dict[str, list[str]]:
        fields = self.fields
        assert isinstance(fields, ShardedFieldRanker)
        anchor_words = content_words(question)
        # Every count this question needs, in one round trip at most (exclusive fields ask for counts).
        terms = list(dict.fromkeys(t for word in anchor_words for t in _ANALYZER.analyze(word)))
        counting = [(fields, fields.counting(self._searched, terms))]
        counting += [(ranker, ranker.counting([field], terms)) for ranker, field in self._also]
        counting = [(ranker, call) for ranker, call in counting if call is not None]
        if counting:
            counts = self._scatter("many", [call for _, call in counting])
            for n, (ranker, call) in enumerate(counting):
                ranker.counted(call, [answer[n] for answer, _ in counts])
        words = {name: self._words(name, question) for name in self._searched}
        calls = [fields.ask(name, words[name], depth) for name in self._searched if words[name]]
        anchored = self._anchors and len(question_terms(question)) >= 2  # as matching_all asks
        ahead = [fields.asking_all(self._searched, anchor_words, depth)] if anchored else []
        ahead += [ranker.ask(field, anchor_words, depth) for ranker, field in self._also if anchor_words]
        calls += ahead
        scores = self._scores(question) if self.vectors is not None else None
        if scores is not None:
            calls.append(self.vectors.asking(scores, depth))
        if not calls:  # no word to search and no dense channel
            return {name: [] for name in self._searched}
        answers = self._scatter("many", calls, None if scores is None else scores.vector)
        found = iter(list(zip(*(answer for answer, _ in answers))))
        rankings = {
            name: [item for item, _ in fields.merge(next(found), depth)] if words[name] else []
            for name in self._searched
        }
        learners = ([fields] if anchored else []) + [ranker for ranker, _ in self._also if anchor_words]
        for learner, call in zip(learners, ahead):
            learner.remember(call, learner.merge(next(found), depth))
        if scores is not None:
            cosines = {item: cosine for _, known in answers for item, cosine in known.items()}
            self.vectors.learn(scores, next(found), depth, cosines)
            rankings["dense"] = self._dense_rank(question, depth)
        return rankings
