"""The review queue of one data directory: ``<home>/review.sqlite3``, one row per recorded answer.

Each space has its own data directory, so its own queue. Rows are never deleted: a rejected
entry stays, and its URLs with it, so the fallback does not offer the same page again.

With a key-encryption key configured, an entry's ``data`` (question, answer, page snapshots,
rewrite) is sealed with the data directory's key and bound to its row id; the id, status,
times and corpus stay plain, for listing and ordering. Rows stored before stay readable.
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path

from ..core import sealing
from ..core.sealing import Vault
from ..errors import EntryDecided, EntryNotFound, InvalidInput
from .models import EntrySummary, NewEntry, ReviewEntry, Rewrite, Status

QUEUE_FILE = "review.sqlite3"
STATUSES = ("pending", "approved", "rejected")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    status TEXT NOT NULL DEFAULT 'pending',
    created_at TEXT NOT NULL,
    decided_at TEXT,
    corpus TEXT,
    path TEXT,
    data TEXT NOT NULL
)
"""


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class ReviewQueue:
    """The entries of one data directory. Each call opens its own connection: safe across threads and workers."""

    def __init__(self, home: Path, vault: Vault | None = None) -> None:
        """``vault``: the data directory's key (``workspace.configs.vault``); None stores entries in plain text."""
        self.path = Path(home) / QUEUE_FILE
        self.vault = vault

    @property
    def sealed(self) -> bool:
        """Whether new entries are sealed (a key-encryption key is configured)."""
        return self.vault is not None and self.vault.on

    def _seal(self, entry_id: int, data: str) -> str:
        return sealing.seal_value(data, self.vault.writer() if self.vault else None, _aad(entry_id))

    def _open(self, entry_id: int, data: str) -> dict:
        """An entry's data, opened when sealed.

        Raises:
            KeyUnavailable: it is sealed and the key that opens it is not configured.
        """
        if sealing.is_sealed_value(data):
            data = sealing.open_value(data, self.vault or Vault(self.path.parent, None), _aad(entry_id), "review queue")
        return json.loads(data)

    def _connect(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(self.path, timeout=30)
        connection.execute(_SCHEMA)
        return connection

    def record(self, entry: NewEntry) -> int:
        with closing(self._connect()) as db, db:
            # The sealed data is bound to the row's id, known once the row is in: one transaction, so
            # no reader sees the placeholder.
            cursor = db.execute("INSERT INTO entries (created_at, data) VALUES (?, '{}')", (now(),))
            entry_id = int(cursor.lastrowid)
            db.execute(
                "UPDATE entries SET data = ? WHERE id = ?", (self._seal(entry_id, entry.model_dump_json()), entry_id)
            )
            return entry_id

    def get(self, entry_id: int) -> ReviewEntry:
        with closing(self._connect()) as db:
            row = db.execute(
                "SELECT id, status, created_at, decided_at, corpus, path, data FROM entries WHERE id = ?",
                (entry_id,),
            ).fetchone()
        if row is None:
            raise EntryNotFound(f"No review entry {entry_id}.", hint="List the entries with `schemasift review list`.")
        return self._entry(row)

    def entries(self, status: Status | None = None) -> list[EntrySummary]:
        if status is not None and status not in STATUSES:
            raise InvalidInput(f"Unknown status {status!r}.", hint=f"Use one of {', '.join(STATUSES)}.")
        query = "SELECT id, status, created_at, decided_at, corpus, path, data FROM entries"
        with closing(self._connect()) as db:
            rows = db.execute(
                query + (" WHERE status = ?" if status else "") + " ORDER BY id", (status,) if status else ()
            )
            found = [self._entry(row) for row in rows.fetchall()]
        return [
            EntrySummary(
                id=e.id,
                status=e.status,
                question=e.question,
                title=e.rewrite.title,
                read=e.read,
                created_at=e.created_at,
            )
            for e in found
        ]

    def edit(self, entry_id: int, title: str | None, body: str | None) -> ReviewEntry:
        entry = self.pending(entry_id, "edited")
        rewrite = Rewrite(
            title=entry.rewrite.title if title is None else title,
            body=entry.rewrite.body if body is None else body,
            by="reviewer" if (title or body) else entry.rewrite.by,
        )
        self._update_pending(
            entry_id, "edited", data=self._seal(entry_id, _data(entry.model_copy(update={"rewrite": rewrite})))
        )
        return self.get(entry_id)

    def decide(self, entry_id: int, status: Status, corpus: str | None = None, path: str | None = None) -> ReviewEntry:
        """Approve or reject a pending entry: one conditional update, so of two decisions at once only one lands.

        Raises:
            EntryNotFound, EntryDecided: no such entry, or it was decided already (now or just before).
        """
        self.pending(entry_id, status)
        self._update_pending(entry_id, status, status=status, decided_at=now(), corpus=corpus, path=path)
        return self.get(entry_id)

    def undecide(self, entry_id: int, status: Status) -> None:
        """Put an entry decided ``status`` back to pending (an approval whose indexing failed)."""
        with closing(self._connect()) as db, db:
            db.execute(
                "UPDATE entries SET status = 'pending', decided_at = NULL, corpus = NULL, path = NULL"
                " WHERE id = ? AND status = ?",
                (entry_id, status),
            )

    def pending(self, entry_id: int, doing: str) -> ReviewEntry:
        """The entry, when it is still pending.

        Raises:
            EntryNotFound: no such entry.
            EntryDecided: it was approved or rejected already.
        """
        entry = self.get(entry_id)
        if entry.status != "pending":
            raise EntryDecided(
                f"Review entry {entry_id} was {entry.status} on {entry.decided_at}; it cannot be {doing} now.",
                hint="Decisions are kept; a new answer from the same page is a new entry (unless the page was rejected).",
            )
        return entry

    def _update_pending(self, entry_id: int, doing: str, **columns: str | None) -> None:
        """Update an entry only while it is pending, in one statement.

        Raises:
            EntryDecided: it was decided between the caller's check and this update.
        """
        names = ", ".join(f"{name} = ?" for name in columns)
        with closing(self._connect()) as db, db:
            cursor = db.execute(
                f"UPDATE entries SET {names} WHERE id = ? AND status = 'pending'", (*columns.values(), entry_id)
            )
            changed = cursor.rowcount
        if changed != 1:
            self.pending(entry_id, doing)  # raises EntryNotFound or EntryDecided, naming what happened
            raise EntryDecided(f"Review entry {entry_id} was decided meanwhile; it cannot be {doing} now.")

    def rejected_urls(self) -> set[str]:
        """The pages of every rejected entry: the fallback offers none of them again."""
        with closing(self._connect()) as db:
            rows = db.execute("SELECT id, data FROM entries WHERE status = 'rejected'").fetchall()
        return {url for (entry_id, data) in rows for url in self._open(entry_id, data).get("read", [])}

    def approved(self) -> list[ReviewEntry]:
        """Every approved entry, in id order: what the corpus ``reviewed`` is indexed from when sealed."""
        query = "SELECT id, status, created_at, decided_at, corpus, path, data FROM entries WHERE status = 'approved'"
        with closing(self._connect()) as db:
            rows = db.execute(query + " ORDER BY id").fetchall()
        return [self._entry(row) for row in rows]

    def _entry(self, row: tuple) -> ReviewEntry:
        entry_id, status, created_at, decided_at, corpus, path, data = row
        return ReviewEntry.model_validate(
            self._open(entry_id, data)
            | {"id": entry_id, "status": status, "created_at": created_at, "decided_at": decided_at}
            | {"corpus": corpus, "path": path}
        )


def _data(entry: ReviewEntry) -> str:
    return NewEntry.model_validate(entry.model_dump()).model_dump_json()


def _aad(entry_id: int) -> str:
    """What an entry's sealed data is bound to: its row, so no entry's data opens as another's."""
    return f"review entry\0{entry_id}"
