"""API keys: issued per space with a role, stored hashed, revocable, listed without their secret.

A key reads ``ssk_<id>_<secret>``: the id is public (it names the key in lists, logs and
``keys revoke``), the secret is 32 random bytes, shown once when the key is made. The
store is one SQLite file at the data directory's root (``keys.sqlite3``), shared by every
server worker and the CLI.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import sqlite3
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from ..errors import InvalidInput, KeyNotFound

KEYS_FILE = "keys.sqlite3"
PREFIX = "ssk"
Role = Literal["read", "write", "admin"]
ROLES: tuple[Role, ...] = ("read", "write", "admin")  # each allows what the ones before it do
# last_used_at is written at most this often per key: a search must not wait on a write lock.
TOUCH_EVERY_S = 60.0
ID_DRAWS = 8

_SCHEMA = """
CREATE TABLE IF NOT EXISTS keys (
    id TEXT PRIMARY KEY,
    space TEXT NOT NULL,
    role TEXT NOT NULL,
    label TEXT NOT NULL DEFAULT '',
    digest TEXT NOT NULL,
    created_at REAL NOT NULL,
    revoked_at REAL,
    last_used_at REAL
)
"""


class KeyInfo(BaseModel):
    """A key as lists show it: never its secret, nor the secret's hash."""

    id: str = Field(description="The key's public id (the part after `ssk_`); names it to `keys revoke`.")
    space: str
    role: Role
    label: str = ""
    created_at: datetime
    revoked_at: datetime | None = None
    last_used_at: datetime | None = None


class IssuedKey(KeyInfo):
    """A key just made: the only time its secret is shown."""

    secret: str = Field(description="The whole key (`ssk_<id>_<secret>`). Shown once; only its hash is kept.")


def allows(role: str, needed: Role) -> bool:
    """Whether a key of ``role`` may do what ``needed`` is required for.

    >>> allows("admin", "write"), allows("read", "write"), allows("write", "read")
    (True, False, True)
    """
    return role in ROLES and ROLES.index(role) >= ROLES.index(needed)


def check_role(role: str) -> Role:
    if role not in ROLES:
        raise InvalidInput(f"Unknown role {role!r}.", hint=f"Use one of {', '.join(ROLES)}.")
    return role  # type: ignore[return-value]


def digest(token: str) -> str:
    """The hash a key is stored as.

    SHA-256, not a slow password hash: the token is 256 random bits, so no guess list or
    brute force gets near it and stretching buys nothing; a slow hash (scrypt, argon2) is
    for secrets people choose, and would cost every request tens of milliseconds.

    >>> len(digest("ssk_ab12cd34_x"))
    64
    """
    return hashlib.sha256(token.encode()).hexdigest()


def key_id(token: str) -> str | None:
    """The id a token claims, or ``None`` when it is not shaped like one of our keys.

    >>> key_id("ssk_ab12cd34_s3cr-et_x"), key_id("hunter2")
    ('ab12cd34', None)
    """
    parts = token.split("_", 2)
    if len(parts) != 3 or parts[0] != PREFIX or not parts[1].isalnum() or not parts[2]:
        return None
    return parts[1]


class KeyStore:
    """The keys of every space, in ``<home>/keys.sqlite3``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._touched: dict[str, float] = {}

    @contextmanager
    def _db(self, write: bool = False) -> Iterator[sqlite3.Connection]:
        if write:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        # A connection per call: workers are threads and processes, and each call is one short statement.
        with closing(sqlite3.connect(self.path, timeout=10.0)) as db:
            db.row_factory = sqlite3.Row
            db.execute(_SCHEMA)
            with db:  # one transaction: committed, or rolled back on an error
                yield db

    def create(self, space: str, role: str, label: str = "") -> IssuedKey:
        """Issue a key for ``space`` with ``role``; its secret is in the result and nowhere else."""
        role = check_role(role)
        now = time.time()
        # Ids are 32 bits, short enough to read out and type: by 10,000 keys two collide about
        # once in a hundred, so a taken id is drawn again rather than refused.
        for _ in range(ID_DRAWS):
            kid = secrets.token_hex(4)
            token = f"{PREFIX}_{kid}_{secrets.token_urlsafe(32)}"
            try:
                with self._db(write=True) as db:
                    db.execute(
                        "INSERT INTO keys (id, space, role, label, digest, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                        (kid, space, role, label, digest(token), now),
                    )
            except sqlite3.IntegrityError:
                continue
            return IssuedKey(id=kid, space=space, role=role, label=label, created_at=_when(now), secret=token)
        raise RuntimeError(f"No free key id in {ID_DRAWS} draws: the key store is nearly full or broken.")

    def list(self, space: str | None = None) -> list[KeyInfo]:
        """Every key (of ``space``, when given), oldest first, revoked ones included and marked."""
        if not self.path.exists():
            return []
        where, args = ("WHERE space = ?", (space,)) if space is not None else ("", ())
        with self._db() as db:
            rows = db.execute(f"SELECT * FROM keys {where} ORDER BY created_at, id", args).fetchall()
        return [_info(row) for row in rows]

    def revoke(self, kid: str, space: str | None = None) -> KeyInfo:
        """Revoke key ``kid`` (of ``space`` only, when given: another space's key is not found).

        Raises:
            KeyNotFound: no such key where the caller may look.
        """
        found = {k.id: k for k in self.list(space)}.get(kid)
        if found is None:
            where = f" in space {space!r}" if space is not None else ""
            raise KeyNotFound(f"No key with id {kid!r}{where}.", hint="`schemasift keys list` shows the ids.")
        if found.revoked_at is None:
            now = time.time()
            with self._db(write=True) as db:
                db.execute("UPDATE keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", (now, kid))
            found = found.model_copy(update={"revoked_at": _when(now)})
        return found

    def revoke_space(self, space: str) -> int:
        """Revoke every key of ``space`` (the space is being deleted); how many were active."""
        if not self.path.exists():
            return 0
        with self._db(write=True) as db:
            cursor = db.execute(
                "UPDATE keys SET revoked_at = ? WHERE space = ? AND revoked_at IS NULL", (time.time(), space)
            )
        return cursor.rowcount

    def any_active(self) -> bool:
        """Whether any key is in force: then anonymous HTTP requests are refused."""
        if not self.path.exists():
            return False
        with self._db() as db:
            return db.execute("SELECT 1 FROM keys WHERE revoked_at IS NULL LIMIT 1").fetchone() is not None

    def verify(self, token: str) -> KeyInfo | None:
        """The active key ``token`` is, or ``None`` (unknown, revoked, malformed: the caller cannot tell which)."""
        kid = key_id(token)
        if kid is None or not self.path.exists():
            return None
        with self._db() as db:
            row = db.execute("SELECT * FROM keys WHERE id = ?", (kid,)).fetchone()
        # Compared in constant time even though the id already matched: the digest is the secret's stand-in.
        if row is None or not hmac.compare_digest(row["digest"], digest(token)) or row["revoked_at"] is not None:
            return None
        self._touch(kid)
        return _info(row)

    def _touch(self, kid: str) -> None:
        now = time.time()
        if now - self._touched.get(kid, 0.0) < TOUCH_EVERY_S:
            return
        self._touched[kid] = now
        try:
            with self._db(write=True) as db:
                db.execute("UPDATE keys SET last_used_at = ? WHERE id = ?", (now, kid))
        except sqlite3.OperationalError:  # locked by a writer past the timeout: the time of use can wait
            pass


def _when(ts: float | None) -> datetime | None:
    return None if ts is None else datetime.fromtimestamp(ts, UTC)


def _info(row: sqlite3.Row) -> KeyInfo:
    return KeyInfo(
        id=row["id"],
        space=row["space"],
        role=row["role"],
        label=row["label"],
        created_at=_when(row["created_at"]),
        revoked_at=_when(row["revoked_at"]),
        last_used_at=_when(row["last_used_at"]),
    )
