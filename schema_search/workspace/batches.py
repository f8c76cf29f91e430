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

With a key-encryption key configured, a turn's question and kept response (passage text) are
sealed with the data directory's key, bound to their row and column, and the session and turn
ids are stored blinded: a copied ``turns.sqlite3`` reveals neither what was asked nor found.
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from pathlib import Path

from cryptography.exceptions import InvalidTag

from ..core import sealing
from ..core.sealing import Vault
from ..errors import IndexUnreadable, KeyUnavailable

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
    them in this process's memory. ``vault``: the data directory's key (called on first use,
    so a workspace opens without reading the key file); None stores turns in plain text.
    """

    def __init__(self, path: Path | None = None, limit: int = 1000, vault: Callable[[], Vault] | None = None) -> None:
        self._limit = limit
        self._vault = vault
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

    def _stored(self, key: tuple[str, str, str]) -> tuple[tuple[str, str, str], sealing.Sealer | None]:
        """The row's key as stored (session and turn blinded when sealing) and the sealer, None when off."""
        sealer = self._vault().writer() if self._vault is not None else None
        if sealer is None:
            return key, None
        source, session, turn = key
        return (source, sealer.blind_id(session), sealer.blind_id(turn)), sealer

    def _open(self, value: str, aad: str) -> str | None:
        """A column's text; None when it is sealed with a key not at hand: a turn is only a
        shortcut, so one that cannot be opened is no repeat, and the search runs as usual."""
        if not sealing.is_sealed_value(value):
            return value
        if self._vault is None:
            return None
        try:
            return sealing.open_value(value, self._vault(), aad, "kept turn")
        except (KeyUnavailable, IndexUnreadable, InvalidTag, ValueError):  # IndexUnreadable: changed
            return None

    def repeat(self, key: tuple[str, str, str], question: frozenset[str]) -> str | None:
        """What the turn ``question`` repeats kept (then marked given), else None: not a repeat, or given."""
        stored, _ = self._stored(key)
        with self._transaction() as db:
            row = db.execute(
                "SELECT words, kept FROM turns WHERE source = ? AND session = ? AND turn = ? AND served = 0", stored
            ).fetchone()
            if row is None:
                return None
            said, kept = self._open(row[0], _aad(stored, "words")), self._open(row[1], _aad(stored, "kept"))
            if said is None or kept is None or not same_question(frozenset(json.loads(said)), question):
                return None
            db.execute("UPDATE turns SET served = 1 WHERE source = ? AND session = ? AND turn = ?", stored)
            return kept

    def keep(self, key: tuple[str, str, str], question: frozenset[str], kept: str) -> None:
        """Keep a turn's first search: ``kept``, as the caller will read it back from :meth:`repeat`."""
        stored, sealer = self._stored(key)
        said = sealing.seal_value(json.dumps(sorted(question)), sealer, _aad(stored, "words"))
        kept = sealing.seal_value(kept, sealer, _aad(stored, "kept"))
        with self._transaction() as db:
            db.execute("DELETE FROM turns WHERE source = ? AND session = ? AND turn = ?", stored)
            db.execute("INSERT INTO turns VALUES (?, ?, ?, ?, ?, 0)", (*stored, said, kept))
            # The newest rows have the highest rowids: drop what lies past the limit.
            db.execute(
                "DELETE FROM turns WHERE rowid IN (SELECT rowid FROM turns ORDER BY rowid DESC LIMIT -1 OFFSET ?)",
                (self._limit,),
            )


def _aad(key: tuple[str, str, str], column: str) -> str:
    """What a sealed value is bound to: its row and column, so none opens in another turn's place."""
    return "\0".join(("turn", *key, column))
