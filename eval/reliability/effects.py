"""What a case changed, detected rather than assumed: files, PostgreSQL state, sessions, disclosures.

:class:`FileWatch` compares files (size, time and content hash) under folders and in
single directories; :class:`PostgresWatch` compares a superuser's snapshot of the
scratch database (every table's contents, every sequence, large objects, functions,
roles, settings, locks...), keeps canary sessions that must survive, listens for
NOTIFY, and finds sessions a case left running. :func:`disclosed` looks for secrets
in what a query returned.
"""

from __future__ import annotations

import hashlib
import os
import select
import stat
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from .hostile_fixtures import (
    NOTIFY_CHANNEL,
    READER,
    READER_PASSWORD,
    Postgres,
    SessionEnded,
)

HASHED_BYTES = 8 << 20  # files up to this size are hashed; larger ones compared by size and time


def changes(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """What differs between two snapshots, one line per key.

    >>> changes({"a": "1", "b": "2"}, {"a": "1", "b": "3", "c": "4"})
    ['changed b: 2 -> 3', 'new c: 4']
    >>> changes({"gone": "x"}, {})
    ['removed gone']
    """
    lines = []
    for key in sorted(before.keys() | after.keys()):
        old, new = before.get(key), after.get(key)
        if old == new:
            continue
        if old is None:
            lines.append(f"new {key}: {_short(new)}")
        elif new is None:
            lines.append(f"removed {key}")
        else:
            lines.append(f"changed {key}: {_short(old)} -> {_short(new)}")
    return lines


def _short(value: str | None, width: int = 60) -> str:
    value = value or ""
    return value if len(value) <= width else value[: width - 3] + "..."


def disclosed(values: Iterable[object], content: Sequence[str], listing: Sequence[str] = ()) -> list[str]:
    """The markers found in ``values``: ``content`` ones anywhere, ``listing`` ones in returned rows only.

    Values are scanned as they are (strings and bytes), never converted: a result may
    hold a gigabyte.

    >>> disclosed(["x", "root:x:0:0:root:/root"], ["root:x:0:0"], ["/etc/passwd"])
    ['root:x:0:0']
    >>> disclosed([["0x" + b"a secret".hex()]], ["secret"])
    ['secret']
    """
    found: list[str] = []
    markers = [*content, *listing]
    hexed = {m.encode().hex(): m for m in content}  # blobs come back as 0x... text
    for value in values:
        if isinstance(value, str):
            found += [m for h, m in hexed.items() if m not in found and h in value]
        if isinstance(value, (bytes, bytearray)):
            text_markers = [(m, m.encode()) for m in markers]
            found += [m for m, b in text_markers if m not in found and b in value]
        elif isinstance(value, str):
            found += [m for m in markers if m not in found and m in value]
        elif isinstance(value, (list, tuple)):
            found += [m for m in disclosed(value, content, listing) if m not in found]
    return found


# -- files ------------------------------------------------------------------------------


def file_state(path: Path, status: os.stat_result | None = None) -> str:
    """Size, modification time and (for files up to :data:`HASHED_BYTES`) a content hash."""
    status = status or path.lstat()
    if stat.S_ISDIR(status.st_mode):
        return "folder"
    summary = f"{status.st_size} bytes, mtime {status.st_mtime_ns}"
    if stat.S_ISREG(status.st_mode) and status.st_size <= HASHED_BYTES:
        try:
            summary += ", sha1 " + hashlib.sha1(path.read_bytes()).hexdigest()[:12]
        except OSError as error:
            summary += f", unreadable ({error.strerror})"
    return summary


class FileWatch:
    """Files under ``trees`` (every level), entries of ``folders`` (one level, filtered), and ``files``.

    Args:
        trees: folders whose every file is compared (the scratch folder).
        folders: ``(folder, keep, detailed)``: entries ``keep(name, stat)`` accepts are
            compared, by name only unless ``detailed`` (a busy folder like a data directory).
        files: single files compared in full (``postgresql.auto.conf``).
        ignore: names inside ``trees`` that are not the case's doing.
    """

    def __init__(
        self,
        trees: Sequence[Path] = (),
        folders: Sequence[tuple[Path, Callable[[str, os.stat_result], bool], bool]] = (),
        files: Sequence[Path] = (),
        ignore: Callable[[Path], bool] = lambda path: False,
    ) -> None:
        self.trees, self.folders, self.files, self.ignore = list(trees), list(folders), list(files), ignore

    def snapshot(self) -> dict[str, str]:
        state: dict[str, str] = {}
        for tree in self.trees:
            for folder, names, files in os.walk(tree):
                for name in names + files:
                    path = Path(folder) / name
                    if not self.ignore(path):
                        try:
                            state[f"file {path}"] = file_state(path)
                        except OSError:
                            continue
        for folder, keep, detailed in self.folders:
            try:
                entries = list(os.scandir(folder))
            except OSError:
                continue
            for entry in entries:
                try:
                    status = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if any(Path(entry.path) == tree or Path(entry.path) in tree.parents for tree in self.trees):
                    continue
                if keep(entry.name, status):
                    state[f"file {entry.path}"] = file_state(Path(entry.path), status) if detailed else "present"
        for path in self.files:
            try:
                state[f"file {path}"] = file_state(path)
            except OSError:
                state[f"file {path}"] = "missing"
        return state


def owned_by(uid: int) -> Callable[[str, os.stat_result], bool]:
    return lambda _name, status: status.st_uid == uid


def anything(_name: str, _status: os.stat_result) -> bool:
    return True


# -- PostgreSQL -------------------------------------------------------------------------

_SESSIONS = r"""
SELECT pid, usename, coalesce(state, ''), left(regexp_replace(query, '\s+', ' ', 'g'), 80)
  FROM pg_stat_activity
 WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()
   AND pid <> ALL ('{%s}'::int[])
"""


class PostgresWatch:
    """The scratch database as the superuser sees it, and three canary sessions that must survive.

    * a reader session (idle), which ``pg_terminate_backend`` by the same role could end;
    * an owner session (idle) that LISTENs on the channel hostile strings NOTIFY;
    * a busy reader session running ``pg_sleep`` that ``pg_cancel_backend`` could cancel.

    A canary found ended counts as an effect and is reconnected.
    """

    def __init__(self, pg: Postgres) -> None:
        import psycopg2  # a driver this project installs for PostgreSQL

        self.pg, self._psycopg2 = pg, psycopg2
        self.reader = self.owner = self.busy = None
        self.lost: list[str] = []  # the superuser session, found ended while looking for leftovers
        self._connect_reader()
        self._connect_owner()
        self._connect_busy()

    # The pids, for the strings that target them.
    def placeholders(self) -> dict[str, str]:
        return {
            "READER_PID": str(self.reader.get_backend_pid()),
            "OWNER_PID": str(self.owner.get_backend_pid()),
            "BUSY_PID": str(self.busy.get_backend_pid()),
        }

    def snapshot(self) -> tuple[dict[str, str], list[str]]:
        """The superuser's view of the database, and effects found while taking it (a lost session)."""
        effects = []
        try:
            rows = self.pg.super.query("SELECT k, v FROM ss_audit.snapshot()")
        except SessionEnded as error:
            effects.append(f"the superuser audit session ended ({_short(str(error), 100)})")
            self.pg.super.restart()
            rows = self.pg.super.query("SELECT k, v FROM ss_audit.snapshot()")
        return {row[0]: (row[1] if len(row) > 1 else "") for row in rows}, effects

    def after_case(self, before: dict[str, str]) -> list[str]:
        """Everything the case left behind, compared with ``before``; leftover sessions are then ended."""
        self.lost = []
        leftovers = self._leftover_sessions()
        effects = self.lost + [
            f"left a session running: pid {pid} as {user} ({state}) {query}" for pid, user, state, query in leftovers
        ]
        after, lost = self.snapshot()
        effects += lost + changes(before, after)
        effects += self._canaries()  # last: a cancel or terminate signal takes a moment to arrive
        if leftovers:
            self._end_sessions([pid for pid, *_ in leftovers])
        return effects

    def close(self) -> None:
        for connection in (self.reader, self.owner, self.busy):
            if connection is not None:
                try:
                    connection.close()
                except self._psycopg2.Error:
                    pass

    # -- canaries --------------------------------------------------------------------

    def _dsn(self, role: str, password: str, name: str) -> dict:
        pg = self.pg
        return {
            "host": pg.host,
            "port": pg.port,
            "dbname": pg.dbname,
            "user": role,
            "password": password,
            "application_name": name,
            "connect_timeout": 10,
        }

    def _connect_reader(self) -> None:
        self.reader = self._psycopg2.connect(**self._dsn(READER, READER_PASSWORD, "ss_canary_reader"))
        self.reader.autocommit = True

    def _connect_owner(self) -> None:
        self.owner = self._psycopg2.connect(**self._dsn(self.pg.owner, self.pg.owner_password, "ss_canary_owner"))
        self.owner.autocommit = True
        with self.owner.cursor() as cursor:
            cursor.execute(f"LISTEN {NOTIFY_CHANNEL}")

    def _connect_busy(self) -> None:
        self.busy = self._psycopg2.connect(**self._dsn(READER, READER_PASSWORD, "ss_canary_busy"), async_=1)
        self._wait(self.busy)
        self.busy.cursor().execute("SELECT pg_sleep(86400)")

    def _wait(self, connection, limit_s: float = 10.0) -> None:
        extensions = self._psycopg2.extensions
        deadline = time.monotonic() + limit_s
        while time.monotonic() < deadline:
            state = connection.poll()
            if state == extensions.POLL_OK:
                return
            fd = connection.fileno()
            if state == extensions.POLL_READ:
                select.select([fd], [], [], 1.0)
            else:
                select.select([], [fd], [], 1.0)
        raise TimeoutError("a canary session did not connect in time")

    def _canaries(self) -> list[str]:
        effects = []
        for name, connection, reconnect in (
            ("reader", self.reader, self._connect_reader),
            ("owner", self.owner, self._connect_owner),
        ):
            try:
                connection.poll()
                for notify in connection.notifies:
                    effects.append(f"NOTIFY delivered on {notify.channel}: {notify.payload!r}")
                connection.notifies.clear()
                with connection.cursor() as cursor:
                    cursor.execute("SELECT 1")
            except self._psycopg2.Error as error:
                effects.append(f"the {name} canary session was ended ({_first(error)})")
                self._close(connection)
                reconnect()
        try:
            if self._busy_finished():
                effects.append("the busy canary's query returned early")
                self._close(self.busy)
                self._connect_busy()
        except self._psycopg2.Error as error:
            effects.append(f"the busy canary's query was stopped ({_first(error)})")
            self._close(self.busy)
            self._connect_busy()
        return effects

    def _busy_finished(self) -> bool:
        """Whether the busy canary's query has ended (raises its error if it failed).

        A message may arrive in pieces, so the connection is read for as long as it has data.
        """
        for _ in range(20):
            ready, _, _ = select.select([self.busy.fileno()], [], [], 0.02)
            if not ready:
                return False
            if self.busy.poll() == self._psycopg2.extensions.POLL_OK:
                return True
        return False

    def _close(self, connection) -> None:
        try:
            connection.close()
        except self._psycopg2.Error:
            pass

    # -- sessions --------------------------------------------------------------------

    def _known_pids(self) -> list[int]:
        pids = [self.pg.super.pid]
        for connection in (self.reader, self.owner, self.busy):
            try:
                pids.append(connection.get_backend_pid())
            except self._psycopg2.Error:
                pass
        return pids

    def _leftover_sessions(self, wait_s: float = 1.5) -> list[list[str]]:
        """Sessions in the database that are neither ours nor gone ``wait_s`` after the case ended."""
        deadline = time.monotonic() + wait_s
        while True:
            try:
                rows = self.pg.super.query(_SESSIONS % ",".join(map(str, self._known_pids())))
            except SessionEnded as error:
                self.lost.append(f"the superuser audit session ended ({_short(str(error), 100)})")
                self.pg.super.restart()
                continue
            if not rows or time.monotonic() > deadline:
                return [row + [""] * (4 - len(row)) for row in rows]
            time.sleep(0.05)

    def _end_sessions(self, pids: list[str]) -> None:
        listed = ",".join(pids)
        self.pg.super.query(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid IN ({listed})")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if not self.pg.super.query(f"SELECT 1 FROM pg_stat_activity WHERE pid IN ({listed})"):
                return
            time.sleep(0.05)


def _first(error: BaseException) -> str:
    text = str(error).strip()
    return _short(text.splitlines()[0] if text else type(error).__name__, 100)
