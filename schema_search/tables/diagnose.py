"""IDF collapse: words that enrichment spread over most tables stop telling them apart.

A description pass that writes "This table stores information about ..." on every
table puts ``store`` and ``information`` into nearly every document of the field it
fills (since descriptions have a field of their own, *descriptions*; before, *text*
and *body*). BM25 then gives those words an IDF near zero: a question that uses them
matches everything and nothing. This module counts, per field, how many table
documents contain each word before enrichment (tables without their generated
``description``) and after (as indexed), with the IDF tantivy's BM25 gives it, and
flags every word found in more than half of a field's documents.

Terms are counted after our analyzer (identifier splitting, lower-casing, stop
words, stemming), exactly as the index sees them. A field's documents are one per
table, empty or not, as in BM25's document count.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from ..core import analyzer
from ..core.novelty import idf
from .catalog import Catalog
from .documents import FIELDS, table_document

SHARE_LIMIT = 0.5  # a word in more than this share of a field's documents is flagged
# Words of how questions are asked, not of what they are about: never chosen from a
# questions file (the index's own stop list, Lucene's 33 words, keeps most of them).
QUESTION_WORDS = frozenset(
    """what which who whom whose when where why how many much me all each every did does do done is are was
    were be been has have had their there than that this those these from with for of by in on at to the a an
    and or not no any some please show give find tell us our we you i""".split()
)

_ANALYZER = analyzer.build_analyzer()


def terms(text: str) -> list[str]:
    """``text`` as the index stores it: split, lower-cased, stop words out, stemmed.

    >>> terms("Which contact_lists were stored?")
    ['which', 'contact', 'list', 'were', 'store']
    """
    return _ANALYZER.analyze(" ".join(analyzer.words(text)))


@dataclass(frozen=True)
class WordFrequency:
    """One term in one field: documents containing it before and after enrichment."""

    word: str
    term: str
    field: str
    before: int
    after: int
    documents: int

    @property
    def idf_before(self) -> float:
        return idf(self.before, self.documents)

    @property
    def idf_after(self) -> float:
        return idf(self.after, self.documents)

    @property
    def collapsed(self) -> bool:
        return self.after > self.documents * SHARE_LIMIT


@dataclass(frozen=True)
class Diagnosis:
    catalog: str
    tables: int
    described: int
    rows: tuple[WordFrequency, ...]
    unindexed: tuple[str, ...]  # words that are only stop words or punctuation

    def warnings(self) -> list[str]:
        """One line per word and field over the limit, saying whether enrichment did it."""
        lines = []
        for row in self.rows:
            if not row.collapsed:
                continue
            spread_by = (
                f"after enrichment (before: {row.before})"
                if row.before <= row.documents * SHARE_LIMIT
                else "(already before enrichment)"
            )
            lines.append(
                f"{row.word!r} (term {row.term!r}) is in {row.after} of {row.documents} {row.field} documents "
                f"{spread_by}: IDF {row.idf_after:.2f}, it no longer tells tables apart."
            )
        return lines

    def to_dict(self) -> dict:
        return {
            "catalog": self.catalog,
            "tables": self.tables,
            "described": self.described,
            "share_limit": SHARE_LIMIT,
            "unindexed": list(self.unindexed),
            "rows": [
                {
                    "word": r.word,
                    "term": r.term,
                    "field": r.field,
                    "documents": r.documents,
                    "before": r.before,
                    "after": r.after,
                    "idf_before": round(r.idf_before, 4),
                    "idf_after": round(r.idf_after, 4),
                    "collapsed": r.collapsed,
                }
                for r in self.rows
            ],
            "warnings": self.warnings(),
        }


def diagnose(
    catalog: Catalog, words: Sequence[str], fields: Sequence[str] = FIELDS, analysed: bool = False
) -> Diagnosis:
    """Document frequency of each of ``words`` per field, before and after enrichment.

    Args:
        analysed: ``words`` are index terms already (from :func:`widespread_words`);
            stemming a stem again can change it (``repres`` -> ``repr``).
    """
    before = _field_terms(replace(t, description=None) for t in catalog.tables)
    after = _field_terms(catalog.tables)
    n = len(catalog.tables)
    rows, unindexed, seen = [], [], set()
    for word in words:
        word_terms = [word] if analysed else terms(word)
        if not word_terms:
            unindexed.append(word)
        for term in word_terms:
            if term in seen:
                continue
            seen.add(term)
            rows += [WordFrequency(word, term, f, _count(before[f], term), _count(after[f], term), n) for f in fields]
    described = sum(t.description is not None for t in catalog.tables)
    return Diagnosis(catalog.name, n, described, tuple(rows), tuple(unindexed))


def question_words(questions: Iterable[str], top: int = 20) -> list[str]:
    """The most frequent content words of ``questions``, most frequent first, as first spelled.

    >>> question_words(["How many singers?", "Which singer is oldest?", "List the stadiums"], top=2)
    ['singers', 'oldest']
    """
    counts: Counter[str] = Counter()
    spelling: dict[str, str] = {}
    for question in questions:
        for word in analyzer.words(question):
            if word in QUESTION_WORDS:
                continue
            for term in terms(word):
                counts[term] += 1
                spelling.setdefault(term, word)
    return [spelling[term] for term, _ in counts.most_common(top)]


def widespread_words(catalog: Catalog, top: int = 20) -> list[str]:
    """The index terms in the most documents of any field, after enrichment (when no words are given).

    Pass them to :func:`diagnose` with ``analysed=True``.
    """
    after = _field_terms(catalog.tables)
    counts: Counter[str] = Counter()
    for documents in after.values():
        for document in documents:
            counts.update(document)
    spread = {term: max(_count(after[f], term) for f in after) for term in counts}
    return sorted(spread, key=lambda term: (-spread[term], term))[:top]


def read_questions(path: Path) -> list[str]:
    """Questions from a file: JSON lines with ``question`` (benchmark or cases format), or plain lines."""
    questions = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            questions.append(line)
            continue
        if isinstance(record, dict) and isinstance(record.get("question"), str):
            questions.append(record["question"])
    return questions


def _field_terms(tables) -> dict[str, list[set[str]]]:
    documents = [table_document(t) for t in tables]
    return {f: [set(_ANALYZER.analyze(getattr(d, f))) for d in documents] for f in FIELDS}


def _count(documents: list[set[str]], term: str) -> int:
    return sum(term in d for d in documents)
