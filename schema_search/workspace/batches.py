"""The next batch: a repeat search in the same conversation turn gets the rest of the first one's ranking.

An agent that searches again in the same turn has read what it was given; the same passages
again tell it nothing, and it digs forever. The first search of a turn (a request that names
its ``session`` and ``turn``) ranks a wider pool, ``POOL`` times k, once: it shows the first k
and keeps the rest here. A repeat in that turn (the same question, or nearly: ``NEAR`` of its
words shared) gets the next k of that same ranking, marked ``batch: 2``, with no second
ranking and no second relevance pass. Once per turn: a search after that is a search as
usual, since "the same results again" is itself a signal.

The turns live in one SQLite file of the data directory, not in a process's memory: ``serve``
runs several worker processes on one port, and a repeat is as likely to reach another worker
as the one that ranked the first search. Marking a turn given is one transaction, so two
workers never both give it. The least recently kept turns past ``limit`` are deleted, and a
data directory that cannot be written keeps them in memory instead.
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

TURNS_FILE = "turns.sqlite3"
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS turns (source TEXT, session TEXT, turn TEXT, words TEXT, kept TEXT, "
    "served INTEGER, PRIMARY KEY (source, session, turn))"
)
# How many times k the first search of a turn ranks, to have a next batch to give.
POOL = 3
# Two questions are one when they share this share of their words (Jaccard).
NEAR = 0.8
_WORD = re.compile(r"\w+")


def words(question: str) -> frozenset[str]:
    """A question's words, lower-cased: what two asks of one question share.

    >>> sorted(words("How do I test it?"))
    ['do', 'how', 'i', 'it', 'test']
    """
    return frozenset(_WORD.findall(question.lower()))


def same_question(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether two questions are one asked again (``NEAR`` of their words shared).

    >>> same_question(words("how do I declare query parameters?"), words("How do I declare query parameters"))
    True
    >>> same_question(words("how do I declare query parameters?"), words("how do I declare cookies?"))
    False
    """
    if not a or not b:
        return a == b
    return len(a & b) / len(a | b) >= NEAR


class Batches:
    """The turns of the conversations searched, by ``(source, session, turn)``.

    ``path``: the SQLite file shared by every process of one data directory; ``None`` keeps
    them in this process's memory.
    """

    def __init__(self, path: Path | None = None, limit: int = 1000) -> None:
        self._limit = limit
        self._lock = threading.Lock()
        self._memory: sqlite3.Connection | None = None
        self._path = path
        self._ready = False  # the file and its table are made on the first use, not when a workspace opens

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction on the turns, committed when the block ends (rolled back on an error)."""
        with self._lock:
            db = self._connect()
            try:
                db.execute("BEGIN IMMEDIATE")
                try:
                    yield db
                except BaseException:
                    db.execute("ROLLBACK")
                    raise
                db.execute("COMMIT")
            finally:
                if db is not self._memory:
                    db.close()

    def _connect(self) -> sqlite3.Connection:
        """The shared file's connection, or this process's memory when the data directory cannot be written."""
        if self._path is not None and not self._ready:
            try:
                self._path.parent.mkdir(parents=True, exist_ok=True)
                with closing(sqlite3.connect(self._path, timeout=10)) as db:
                    db.execute(_SCHEMA)
                self._ready = True
            except (sqlite3.Error, OSError):
                self._path = None
        if self._path is not None:
            return sqlite3.connect(self._path, timeout=10, isolation_level=None)
        if self._memory is None:
            self._memory = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
            self._memory.execute(_SCHEMA)
        return self._memory

    def repeat(self, key: tuple[str, str, str], question: frozenset[str]) -> str | None:
        """What the turn ``question`` repeats kept (then marked given), else None: not a repeat, or given."""
        with self._transaction() as db:
            row = db.execute(
                "SELECT words, kept FROM turns WHERE source = ? AND session = ? AND turn = ? AND served = 0", key
            ).fetchone()
            if row is None or not same_question(frozenset(json.loads(row[0])), question):
                return None
            db.execute("UPDATE turns SET served = 1 WHERE source = ? AND session = ? AND turn = ?", key)
            return row[1]

    def keep(self, key: tuple[str, str, str], question: frozenset[str], kept: str) -> None:
        """Keep a turn's first search: ``kept``, as the caller will read it back from :meth:`repeat`."""
        with self._transaction() as db:
            db.execute("DELETE FROM turns WHERE source = ? AND session = ? AND turn = ?", key)
            db.execute("INSERT INTO turns VALUES (?, ?, ?, ?, ?, 0)", (*key, json.dumps(sorted(question)), kept))
            # The newest rows have the highest rowids: drop what lies past the limit.
            db.execute(
                "DELETE FROM turns WHERE rowid IN (SELECT rowid FROM turns ORDER BY rowid DESC LIMIT -1 OFFSET ?)",
                (self._limit,),
            )
