"""Benchmark folders -> questions with gold table ids, and the catalogs they are asked of.

A benchmark folder holds ``schemas.jsonl`` (one database a line, the format of
``../shared/benchmarks/``) and ``questions.jsonl`` (``id``, ``db_id``, ``question``,
optional ``evidence``, ``gold_tables``). Tables become schema ``db_id`` in our catalog,
so a gold table ``singer`` of ``concert_singer`` is ``concert_singer.singer``.

Two conditions:

* **pooled**: every database of the benchmark, plus distractor schemas, in one catalog;
  the question does not say which database it is about.
* **per-db**: each question searches only its own database.

The raw table records are kept next to our :class:`~schema_search.tables.catalog.Table`s so
that peer baselines can read the files the way an independent tool would.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from schema_search.connectors.benchmark import FILENAME as SCHEMAS_FILE
from schema_search.connectors.benchmark import database_tables, records
from schema_search.errors import SourceError
from schema_search.settings import Settings
from schema_search.tables.catalog import Catalog, Table, table_id
from schema_search.workspace import Workspace

QUESTIONS_FILE = "questions.jsonl"
POOLED, PER_DB = "pooled", "per-db"


@dataclass(frozen=True)
class Database:
    """One benchmark database: its tables in our model, and the records they came from."""

    db_id: str
    tables: tuple[Table, ...]
    records: tuple[dict[str, Any], ...]


@dataclass(frozen=True)
class Question:
    """One question; ``text`` is what is searched (BIRD's evidence appended)."""

    id: str
    db_id: str
    text: str
    gold: tuple[str, ...]
    has_evidence: bool = False


@dataclass(frozen=True)
class Benchmark:
    name: str
    databases: tuple[Database, ...]
    questions: tuple[Question, ...]

    @property
    def tables(self) -> int:
        return sum(len(d.tables) for d in self.databases)


def question_text(question: str, evidence: str | None) -> str:
    """The searched text: BIRD's evidence is appended, as BIRD's own evaluation does.

    >>> question_text("Highest free rate in Alameda?", "free rate = free / enrollment")
    'Highest free rate in Alameda? free rate = free / enrollment'
    >>> question_text("How many singers?", None)
    'How many singers?'
    """
    evidence = (evidence or "").strip()
    return f"{question.strip()} {evidence}" if evidence else question.strip()


def evenly_spaced(items: Sequence, limit: int | None) -> list:
    """``limit`` items spread evenly over ``items``, in order (all when ``limit`` is None).

    Deterministic, and unlike the first ``limit`` it reaches every database of a
    benchmark whose questions are grouped by database.

    >>> evenly_spaced(list(range(10)), 3)
    [0, 3, 6]
    >>> evenly_spaced([1, 2], 5)
    [1, 2]
    """
    if limit is None or limit >= len(items):
        return list(items)
    return [items[i * len(items) // limit] for i in range(limit)]


def load_databases(folder: Path) -> tuple[Database, ...]:
    """The databases of ``folder/schemas.jsonl`` (or of that file itself)."""
    path = folder / SCHEMAS_FILE if folder.is_dir() else folder
    return tuple(
        Database(record["db_id"], tuple(database_tables(record)), tuple(record["tables"]))
        for record in _jsonl(path, ("db_id", "tables"))
    )


def load_benchmark(folder: Path, limit: int | None = None) -> Benchmark:
    """Read a benchmark folder; ``limit`` keeps that many questions, evenly spaced.

    Questions without gold tables are left out: any ranking would count as finding them.

    Raises:
        SourceError: a file is missing or malformed, or a gold table is not in its database.
    """
    folder = Path(folder)
    databases = load_databases(folder)
    known = {t.id for d in databases for t in d.tables}
    questions = []
    for record in _jsonl(folder / QUESTIONS_FILE, ("db_id", "question", "gold_tables")):
        gold = tuple(table_id(record["db_id"], name) for name in record["gold_tables"])
        missing = [g for g in gold if g not in known]
        if not gold:
            continue  # nothing to find: every ranking would count as a hit
        if missing:
            raise SourceError(
                f"Question {record.get('id')!r} in {folder / QUESTIONS_FILE} names gold tables not in "
                f"{SCHEMAS_FILE}: {', '.join(missing)}.",
                hint="gold_tables are table names of the question's own db_id, as in schemas.jsonl.",
            )
        questions.append(
            Question(
                id=str(record.get("id", len(questions))),
                db_id=record["db_id"],
                text=question_text(record["question"], record.get("evidence")),
                gold=gold,
                has_evidence=bool((record.get("evidence") or "").strip()),
            )
        )
    return Benchmark(folder.name, databases, tuple(evenly_spaced(questions, limit)))


def pooled(benchmark: Benchmark, distractors: Sequence[Database] = ()) -> tuple[Database, ...]:
    """The benchmark's databases followed by distractors whose ``db_id`` is new.

    A distractor database with a ``db_id`` already pooled is the same database twice
    (e.g. a benchmark passed as its own distractor): it is left out, not an error.
    """
    seen = {d.db_id.lower() for d in benchmark.databases}
    extra = []
    for database in distractors:
        if database.db_id.lower() not in seen:
            seen.add(database.db_id.lower())
            extra.append(database)
    return benchmark.databases + tuple(extra)


@contextmanager
def pooled_workspace(
    benchmark: Benchmark, distractors: Path | None, settings: Settings
) -> Iterator[tuple[Workspace, int]]:
    """A scratch workspace with the benchmark (and the ``distractors`` folder's schemas) indexed as catalog ``pooled``;
    yields it and the number of tables."""
    databases = pooled(benchmark, load_databases(distractors) if distractors else ())
    with tempfile.TemporaryDirectory(prefix="schema-search-pooled-") as home:
        workspace = Workspace(settings.model_copy(update={"home": Path(home)}))
        workspace.catalogs.index_catalog(catalog_of("pooled", databases))
        yield workspace, sum(len(d.tables) for d in databases)


def catalog_of(name: str, databases: Sequence[Database]) -> Catalog:
    return Catalog(name, tuple(t for d in databases for t in d.tables), source={"kind": "benchmark"})


def _jsonl(path: Path, required: tuple[str, ...]) -> Iterator[dict[str, Any]]:
    if not path.is_file():
        raise SourceError(
            f"{path} does not exist.",
            hint=f"A benchmark folder holds {SCHEMAS_FILE} and {QUESTIONS_FILE} (see ../shared/benchmarks/).",
        )
    yield from records(path, required)
