"""The databases the hostile suite attacks: data, planted objects, a scratch folder, a reader role.

Everything lives in one scratch folder under /tmp (readable by the PostgreSQL server, so
that a write it is tricked into making lands where the suite looks):

``db/``      the SQLite and DuckDB files (and pristine copies, restored after a case changes them)
``out/``     world-writable: where hostile strings and planted functions aim their writes
``cwd/``     the calling process's working directory (relative paths land here)
``home/``    the workspace the databases and a small corpus are indexed into
``out/secret.txt``  a random token; reading it back is a disclosure

PostgreSQL gets a fresh database per run, made and dropped as the superuser through
``su postgres -c psql`` (so the suite needs root and a local server), owned by the
``schema_search`` role, with a least-privilege ``ss_reader`` login role (CONNECT, USAGE,
SELECT, a ``temp_file_limit``, no EXECUTE on dblink's own functions: what the execution
layer's role check asks an administrator for), and with objects an attacker with
superuser rights once planted: SECURITY DEFINER functions that
COPY to files and programs, export large objects, write through dblink, terminate other
sessions, sleep past the timeout; a view, a row-level-security policy, an operator and
a shadowing ``upper(text)`` that call them. :func:`postgres_unavailable` says why not
when that cannot be done.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import select
import shlex
import shutil
import sqlite3
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import make_url

TOKEN_VAR = "SS_HOSTILE_TOKEN"
READER = "ss_reader"
READER_PASSWORD = "ss_reader"
DEFAULT_PG_URL = "postgresql://schema_search:schema_search@127.0.0.1:5432/schema_search_test"
# Roles the suite watches (cluster-wide): its own, and the one a hostile string tries to create.
WATCHED_ROLES = ("postgres", "schema_search", READER, "ss_pwned")
NOTIFY_CHANNEL = "ss_hostile"
PLANTED_LARGE_OBJECT = 424242
# The server setting a planted function rewrites with ALTER SYSTEM (to the value it has).
SYSTEM_SETTING = "log_min_duration_statement"

NOTES = {
    "alpha.md": "---\ntitle: Alpha\nstatus: Final\ncreated: 2024-01-31\n---\n# Alpha\n\nSome words.\n",
    "beta.md": "---\ntitle: Beta\nstatus: Draft\ncreated: 2023-12-01\n---\n# Beta\n\nMore words here.\n",
    "gamma.md": "---\ntitle: Gamma\nstatus: Final\ncreated: 2022-06-15\n---\n# Gamma\n\nShort.\n",
    "delta.md": "---\ntitle: Delta\nstatus: Draft\ncreated: 2021-03-02\n---\n# Delta\n\nThe last one.\n",
}


@dataclass
class Scratch:
    """The suite's folders and its secret."""

    root: Path
    token: str

    @property
    def db(self) -> Path:
        return self.root / "db"

    @property
    def out(self) -> Path:
        return self.root / "out"

    @property
    def cwd(self) -> Path:
        return self.root / "cwd"

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def secret(self) -> Path:
        return self.out / "secret.txt"

    def placeholders(self) -> dict[str, str]:
        return {"OUT": str(self.out), "SECRET": str(self.secret), "TOKEN_VAR": TOKEN_VAR}


def make_scratch() -> Scratch:
    """A new scratch folder under the system temp dir, traversable by the PostgreSQL server."""
    root = Path(tempfile.mkdtemp(prefix="ss_hostile_"))
    root.chmod(0o755)
    scratch = Scratch(root, secrets.token_hex(16))
    for folder in (scratch.db, scratch.cwd, scratch.home):
        folder.mkdir()
    scratch.out.mkdir()
    scratch.out.chmod(0o1777)
    scratch.secret.write_text(f"ss-secret-{scratch.token}\n", encoding="utf-8")
    scratch.secret.chmod(0o644)
    (scratch.cwd / "secret.txt").write_text(f"ss-secret-{scratch.token}\n", encoding="utf-8")
    (scratch.cwd / "documents.csv").write_text(f"a,b\nss-secret-{scratch.token},1\n", encoding="utf-8")
    return scratch


def remove_scratch(scratch: Scratch) -> None:
    shutil.rmtree(scratch.root, ignore_errors=True)


def notes_corpus(scratch: Scratch) -> Path:
    """A folder of four notes with front matter: a corpus with a ``documents`` table."""
    folder = scratch.root / "notes"
    folder.mkdir(exist_ok=True)
    for name, text in NOTES.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


# -- SQLite and DuckDB -----------------------------------------------------------------

_DATA_SQL = """
CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT, city TEXT);
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id), total NUMERIC(10, 2),
                     status TEXT, created DATE);
CREATE TABLE sales (id INTEGER PRIMARY KEY, region TEXT, amount NUMERIC(10, 2));
CREATE TABLE audit_log (id INTEGER PRIMARY KEY, note TEXT);
"""


def _rows() -> dict[str, list[tuple]]:
    cities = ("Oslo", "Lima", "Pune")
    return {
        "customers": [(g, f"customer {g}", f"c{g}@example.com", cities[g % 3]) for g in range(1, 31)],
        "orders": [
            (g, 1 + g % 30, (g * 7 % 500) + 0.5, ("open", "paid", "void")[g % 3], f"2024-01-{1 + g % 28:02d}")
            for g in range(1, 201)
        ],
        "sales": [(g, ("north", "south")[g % 2], g * 3) for g in range(1, 21)],
    }


def sqlite_database(scratch: Scratch) -> Path:
    """``db/hostile.db``: the shop tables, and views that run away or call refused functions."""
    path = scratch.db / "hostile.db"
    connection = sqlite3.connect(path)
    try:
        connection.executescript(_DATA_SQL)
        for table, rows in _rows().items():
            marks = ", ".join("?" * len(rows[0]))
            connection.executemany(f"INSERT INTO {table} VALUES ({marks})", rows)
        connection.executescript(
            """
            CREATE VIEW v_sales AS SELECT region, sum(amount) AS amount FROM sales GROUP BY region;
            CREATE VIEW v_slow AS SELECT a.id FROM customers a, customers b, customers c, customers d, customers e;
            CREATE VIEW v_huge AS SELECT id, randomblob(300000000) AS blob FROM customers;
            CREATE TRIGGER audit_delete AFTER DELETE ON orders BEGIN INSERT INTO audit_log(note) VALUES ('deleted'); END;
            """
        )
        connection.commit()
    finally:
        connection.close()
    shutil.copy(path, scratch.db / "hostile.db.pristine")
    return path


def duckdb_database(scratch: Scratch) -> Path:
    """``db/hostile.duckdb``: the shop tables, a sequence, views and macros over file readers, and
    macros that shadow built-ins by name."""
    import duckdb

    path = scratch.db / "hostile.duckdb"
    connection = duckdb.connect(str(path))
    try:
        connection.execute(_DATA_SQL)
        for table, rows in _rows().items():
            marks = ", ".join("?" * len(rows[0]))
            connection.executemany(f"INSERT INTO {table} VALUES ({marks})", rows)
        secret = str(scratch.secret).replace("'", "''")
        connection.execute("CREATE SEQUENCE order_seq")
        connection.execute("CREATE VIEW v_sales AS SELECT region, sum(amount) AS amount FROM sales GROUP BY region")
        connection.execute(f"CREATE VIEW v_leak AS SELECT * FROM read_text('{secret}')")
        connection.execute("CREATE VIEW v_passwd AS SELECT * FROM read_csv('/etc/passwd', header = false)")
        connection.execute("CREATE VIEW v_slow AS SELECT count(*) AS n FROM range(1000000000000)")
        connection.execute("CREATE MACRO report_total() AS (SELECT sum(total) FROM orders)")
        connection.execute(f"CREATE MACRO leak() AS TABLE SELECT * FROM read_text('{secret}')")
        # Macros named as allowed built-ins: a query calling reverse() or md5() would run these instead.
        connection.execute(
            "CREATE MACRO reverse(x) AS (SELECT string_agg(name || '=' || value, ';') FROM duckdb_settings())"
        )
        connection.execute(f"CREATE MACRO md5(x) AS (SELECT string_agg(content, '') FROM read_text('{secret}'))")
        connection.execute("CHECKPOINT")
    finally:
        connection.close()
    shutil.copy(path, scratch.db / "hostile.duckdb.pristine")
    return path


def restore_files(scratch: Scratch) -> None:
    """Put the pristine SQLite and DuckDB files back (after a case changed them), dropping side files."""
    for pristine in scratch.db.glob("*.pristine"):
        target = pristine.with_suffix("")
        for side in scratch.db.glob(target.name + "*"):
            if side != pristine:
                side.unlink()
        shutil.copy(pristine, target)


# -- PostgreSQL: a superuser session ---------------------------------------------------


class SuperError(RuntimeError):
    """The superuser session failed a statement, or is gone."""


class SessionEnded(SuperError):
    """The superuser session is gone (the server ended it, or it stopped answering)."""


class SuperSession:
    """``psql`` as the ``postgres`` OS user, kept open: the superuser without a password.

    Each :meth:`query` sends statements and an ``\\echo`` marker, and reads rows (tab-separated)
    up to the marker. If the server ends the session (a planted function may), the next
    query raises :class:`SuperError` and :meth:`restart` opens a new one.
    """

    def __init__(self, port: int, dbname: str, timeout_s: float = 60.0) -> None:
        self.port, self.dbname, self.timeout_s = port, dbname, timeout_s
        self._process: subprocess.Popen | None = None
        self.pid = 0
        self.restart()

    def restart(self) -> None:
        self.close()
        command = f"psql -X -q -A -t -v ON_ERROR_STOP=0 -p {self.port} -d {shlex.quote(self.dbname)}"
        self._process = subprocess.Popen(
            ["su", "postgres", "-c", command],
            cwd="/",
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        self._buffer = b""
        self.query("\\pset fieldsep '\\t'\nSET statement_timeout = '30s'; SET lock_timeout = '10s'")
        self.pid = int(self.query("SELECT pg_backend_pid()")[0][0])

    def query(self, sql: str) -> list[list[str]]:
        """Rows of the last statements' output; :class:`SuperError` on an ERROR or a lost session."""
        if self._process is None or self._process.poll() is not None:
            raise SessionEnded("the superuser session has ended")
        marker = f"__ss_done_{secrets.token_hex(4)}__"
        try:
            self._process.stdin.write(f"{sql.rstrip().rstrip(';')};\n\\echo {marker}\n".encode())
            self._process.stdin.flush()
        except OSError:
            raise SessionEnded("the superuser session has ended") from None
        lines = self._read_until(marker)
        if any("FATAL:" in line or "connection to server" in line for line in lines):
            self.close()
            raise SessionEnded("; ".join(lines[-3:]))
        errors = [line for line in lines if "ERROR:" in line]
        if errors:
            raise SuperError("; ".join(errors))
        return [line.split("\t") for line in lines if line]

    def value(self, sql: str) -> str:
        rows = self.query(sql)
        return rows[0][0] if rows else ""

    def _read_until(self, marker: str) -> list[str]:
        deadline = time.monotonic() + self.timeout_s
        fd = self._process.stdout.fileno()
        end = marker.encode() + b"\n"
        while end not in self._buffer:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([fd], [], [], max(0.0, left))
            if not ready:
                self.close()
                raise SessionEnded(f"the superuser session did not answer within {self.timeout_s:g} s")
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                self.close()
                raise SessionEnded("the superuser session has ended")
            self._buffer += chunk
        text, _, self._buffer = self._buffer.partition(end)
        return text.decode(errors="replace").splitlines()

    def close(self) -> None:
        if self._process is not None:
            with contextlib.suppress(OSError):
                self._process.stdin.close()
            try:
                self._process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
            self._process = None


def _as_postgres(port: int, dbname: str, sql: str, timeout_s: float = 60.0) -> subprocess.CompletedProcess:
    command = f"psql -X -q -A -t -v ON_ERROR_STOP=1 -p {port} -d {shlex.quote(dbname)}"
    return subprocess.run(
        ["su", "postgres", "-c", command],
        cwd="/",
        input=sql,
        capture_output=True,
        text=True,
        timeout=timeout_s,
        check=False,
    )


def postgres_unavailable(url: str | None) -> str | None:
    """Why the PostgreSQL part cannot run here, or ``None`` when it can."""
    if not url:
        return "no PostgreSQL URL (set SCHEMA_SEARCH_TEST_PG_URL; scripts/setup_postgres.sh prints one)"
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return "planting needs the PostgreSQL superuser through `su postgres`, and this process is not root"
    if shutil.which("su") is None:
        return "no `su` to reach the PostgreSQL superuser"
    port = make_url(url).port or 5432
    try:
        done = _as_postgres(
            port, "postgres", "SELECT count(*) FROM pg_available_extensions WHERE name = 'dblink';", timeout_s=20
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"cannot run psql as the postgres user: {error}"
    if done.returncode != 0:
        return f"psql as the postgres user failed on port {port}: {done.stderr.strip().splitlines()[-1:]}"
    if done.stdout.strip() != "1":
        return "the dblink extension is not installed (postgresql-contrib); run scripts/setup_postgres.sh"
    return None


# -- PostgreSQL: the scratch database ----------------------------------------------------


@dataclass
class Postgres:
    """A scratch database and how to reach it as its owner, as the reader, and as the superuser."""

    dbname: str
    host: str
    port: int
    owner: str
    owner_password: str
    super: SuperSession
    data_dir: Path
    socket_dir: str
    oid: int = 0
    notes: list[str] = field(default_factory=list)

    def url(self, role: str, password: str) -> str:
        return f"postgresql://{role}:{password}@{self.host}:{self.port}/{self.dbname}"

    @property
    def owner_url(self) -> str:
        return self.url(self.owner, self.owner_password)

    @property
    def reader_url(self) -> str:
        return self.url(READER, READER_PASSWORD)

    def placeholders(self) -> dict[str, str]:
        return {"DBNAME": self.dbname, "PORT": str(self.port)}


@contextlib.contextmanager
def postgres_database(scratch: Scratch, admin_url: str) -> Iterator[Postgres]:
    """A fresh database with data and planted objects, dropped afterwards with what it changed outside itself.

    ``admin_url`` names the owner role (``schema_search``) and its password, host and
    port; the database it names is not touched.
    """
    url = make_url(admin_url)
    port, host = url.port or 5432, url.host or "127.0.0.1"
    system_setting = _auto_conf_setting(port)
    dbname = f"ss_hostile_{os.getpid()}_{secrets.token_hex(3)}"
    owner, password = url.username or "schema_search", url.password or ""
    _check(_as_postgres(port, "postgres", _ROLE_SQL.format(reader=READER, password=READER_PASSWORD)))
    _check(_as_postgres(port, "postgres", f'CREATE DATABASE "{dbname}" OWNER "{owner}";'))
    session = None
    try:
        session = SuperSession(port, dbname)
        pg = Postgres(
            dbname=dbname,
            host=host,
            port=port,
            owner=owner,
            owner_password=password,
            super=session,
            data_dir=Path(session.value("SHOW data_directory")),
            socket_dir=session.value("SHOW unix_socket_directories").split(",")[0].strip(),
            oid=int(session.value("SELECT oid FROM pg_database WHERE datname = current_database()")),
        )
        _plant(pg, scratch)
        yield pg
    finally:
        if session is not None:
            session.close()
        _drop(port, dbname, system_setting)


_ROLE_SQL = """
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{reader}') THEN
        CREATE ROLE {reader} LOGIN;
    END IF;
END
$$;
ALTER ROLE {reader} WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD '{password}';
ALTER ROLE {reader} RESET ALL;
"""


def _check(done: subprocess.CompletedProcess) -> None:
    if done.returncode != 0:
        raise SuperError(done.stderr.strip() or done.stdout.strip())


_AUTO_CONF = f"""SELECT coalesce(max(setting), '-') FROM pg_file_settings
WHERE name = '{SYSTEM_SETTING}' AND sourcefile LIKE '%postgresql.auto.conf';"""


def _auto_conf_setting(port: int) -> str:
    """What postgresql.auto.conf says of :data:`SYSTEM_SETTING` (``-``: nothing)."""
    done = _as_postgres(port, "postgres", _AUTO_CONF)
    _check(done)
    return done.stdout.strip()


def _drop(port: int, dbname: str, system_setting: str) -> None:
    """Drop the database, and undo what planted functions change cluster-wide."""
    with contextlib.suppress(Exception):
        prepared = _as_postgres(port, dbname, "SELECT gid FROM pg_prepared_xacts WHERE database = current_database();")
        for gid in prepared.stdout.split():
            _as_postgres(port, dbname, f"ROLLBACK PREPARED '{gid}';")
    cleanup = f"""
        DROP DATABASE IF EXISTS "{dbname}" WITH (FORCE);
        ALTER ROLE {READER} RESET ALL;
        DROP ROLE IF EXISTS ss_pwned;
        SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name LIKE 'ss\\_hostile%';
    """
    _as_postgres(port, "postgres", cleanup)
    if _as_postgres(port, "postgres", _AUTO_CONF).stdout.strip() != system_setting:
        if system_setting == "-":
            restore = f"ALTER SYSTEM RESET {SYSTEM_SETTING}"
        else:
            restore = f"ALTER SYSTEM SET {SYSTEM_SETTING} = '{system_setting}'"
        _as_postgres(port, "postgres", f"{restore};\nSELECT pg_reload_conf();")


def _plant(pg: Postgres, scratch: Scratch) -> None:
    out = str(scratch.out)
    superuser = f"host={pg.socket_dir} port={pg.port} dbname={pg.dbname} user=postgres"
    owner = f"host=127.0.0.1 port={pg.port} dbname={pg.dbname} user={pg.owner} password={pg.owner_password}"
    values = {
        "OUT": out,
        "SECRET": str(scratch.secret),
        "SUPER": superuser,
        "OWNER_CONN": owner,
        "DBNAME": pg.dbname,
        "OWNER": pg.owner,
        "READER": READER,
        "LO": str(PLANTED_LARGE_OBJECT),
        "CHANNEL": NOTIFY_CHANNEL,
        "SYSTEM_SETTING": SYSTEM_SETTING,
    }
    for script in (DATA_PG, _PROCEDURE_PG, _PLANTED_PG, _AUDIT_PG, _GRANTS_PG):
        sql = script
        for name, value in values.items():
            sql = sql.replace(f"@{name}@", value)
        pg.super.query(sql)


# The owner's data, which defines no function: made as the owner (SET ROLE), so the owner can write it.
DATA_PG = """
SET ROLE "@OWNER@";
CREATE TABLE public.customers (id serial PRIMARY KEY, name text NOT NULL, email text, city text);
CREATE TABLE public.orders (id serial PRIMARY KEY, customer_id int REFERENCES public.customers(id),
                            total numeric(10, 2), status text, created date);
CREATE TABLE public.sales (id serial PRIMARY KEY, region text, amount numeric(10, 2));
CREATE TABLE public.audit_log (id serial PRIMARY KEY, note text, at timestamptz DEFAULT clock_timestamp());
CREATE SEQUENCE public.order_seq;
CREATE SCHEMA shop;
CREATE TABLE shop.products (id int PRIMARY KEY, name text, price numeric(10, 2));
INSERT INTO public.customers(name, email, city)
    SELECT 'customer ' || g, 'c' || g || '@example.com', (ARRAY['Oslo', 'Lima', 'Pune'])[1 + g % 3]
    FROM generate_series(1, 30) g;
INSERT INTO public.orders(customer_id, total, status, created)
    SELECT 1 + g % 30, (g * 7 % 500) + 0.5, (ARRAY['open', 'paid', 'void'])[1 + g % 3], date '2024-01-01' + g
    FROM generate_series(1, 200) g;
INSERT INTO public.sales(region, amount) SELECT (ARRAY['north', 'south'])[1 + g % 2], g * 3 FROM generate_series(1, 20) g;
INSERT INTO shop.products SELECT g, 'product ' || g, g * 2.5 FROM generate_series(1, 10) g;
-- The owner owns an enum type, so it may make a cast from it (RESOLVED_PG).
CREATE TYPE public.mood AS ENUM ('calm', 'busy', 'angry');
CREATE TABLE public.people (id int PRIMARY KEY, name varchar(60), mood public.mood, score numeric(6, 2), joined date);
INSERT INTO public.people SELECT g, 'person ' || g, (ARRAY['calm', 'busy', 'angry'])[1 + g % 3]::public.mood,
    g * 1.5, date '2024-01-01' + g FROM generate_series(1, 40) g;
-- Each view doubles the one below: planning v_dbl20 takes seconds and gigabytes, uninterruptibly.
CREATE VIEW public.v_dbl0 AS SELECT 'x'::text AS s;
DO $$ BEGIN FOR i IN 1..22 LOOP
    EXECUTE format('CREATE VIEW public.v_dbl%s AS SELECT s || s AS s FROM public.v_dbl%s', i, i - 1);
END LOOP; END $$;
RESET ROLE;
"""
# The owner's own procedure (a function of the database's own: DATA_PG alone defines none).
_PROCEDURE_PG = """
SET ROLE "@OWNER@";
CREATE PROCEDURE public.touch_audit() LANGUAGE sql AS $$ INSERT INTO public.audit_log(note) VALUES ('procedure') $$;
RESET ROLE;
"""

# What an attacker with superuser rights left behind. Every SECURITY DEFINER function runs as postgres.
_PLANTED_PG = r"""
CREATE EXTENSION IF NOT EXISTS dblink SCHEMA public;
SELECT lo_from_bytea(@LO@, 'planted large object');
GRANT SELECT ON LARGE OBJECT @LO@ TO PUBLIC;

CREATE FUNCTION public.report_total() RETURNS numeric LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, public AS $f$
BEGIN
    EXECUTE format('COPY (SELECT %L) TO %L', clock_timestamp()::text, '@OUT@/pg_report_total.txt');
    RETURN (SELECT sum(total) FROM public.orders);
END $f$;

CREATE FUNCTION public.plain_report() RETURNS numeric LANGUAGE plpgsql
SET search_path = pg_catalog, public AS $f$
BEGIN
    EXECUTE format('COPY (SELECT %L) TO %L', clock_timestamp()::text, '@OUT@/pg_plain_report.txt');
    RETURN (SELECT sum(total) FROM public.orders);
END $f$;

CREATE FUNCTION public.program_total() RETURNS numeric LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, public AS $f$
BEGIN
    EXECUTE format('COPY (SELECT %L) TO PROGRAM %L', clock_timestamp()::text, 'cat >> @OUT@/pg_program.txt');
    RETURN (SELECT sum(amount) FROM public.sales);
END $f$;

CREATE FUNCTION public.export_lo() RETURNS int LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, public AS $f$
BEGIN
    PERFORM lo_export(@LO@, '@OUT@/pg_lo_export_' || md5(clock_timestamp()::text) || '.bin');
    RETURN 1;
END $f$;

CREATE FUNCTION public.remote_insert() RETURNS int LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, public AS $f$
BEGIN
    PERFORM public.dblink_exec('@SUPER@', 'INSERT INTO public.audit_log(note) VALUES (''remote_insert'')');
    RETURN 1;
END $f$;

CREATE FUNCTION public.plain_remote_insert() RETURNS int LANGUAGE plpgsql
SET search_path = pg_catalog, public AS $f$
BEGIN
    PERFORM public.dblink_exec('@OWNER_CONN@', 'INSERT INTO public.audit_log(note) VALUES (''plain_remote_insert'')');
    RETURN 1;
END $f$;

CREATE FUNCTION public.kill_sessions() RETURNS int LANGUAGE sql SECURITY DEFINER
SET search_path = pg_catalog AS $f$
    SELECT count(*)::int FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity
    WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend') s
$f$;

CREATE FUNCTION public.cancel_sessions() RETURNS int LANGUAGE sql SECURITY DEFINER
SET search_path = pg_catalog AS $f$
    SELECT count(*)::int FROM (SELECT pg_cancel_backend(pid) FROM pg_stat_activity
    WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend') s
$f$;

CREATE FUNCTION public.notify_remote() RETURNS int LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, public AS $f$
BEGIN
    PERFORM public.dblink_exec('@SUPER@', 'NOTIFY @CHANNEL@, ''planted''');
    RETURN 1;
END $f$;

CREATE FUNCTION public.seq_remote() RETURNS bigint LANGUAGE sql SECURITY DEFINER
SET search_path = pg_catalog, public AS $f$
    SELECT v FROM public.dblink('@SUPER@', 'SELECT nextval(''public.order_seq'')') AS t(v bigint)
$f$;

CREATE FUNCTION public.alter_system_remote() RETURNS int LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, public AS $f$
BEGIN
    -- The value it already has: postgresql.auto.conf changes, what the server does does not.
    PERFORM public.dblink_exec('@SUPER@', format('ALTER SYSTEM SET @SYSTEM_SETTING@ = %L',
                                                  current_setting('@SYSTEM_SETTING@')));
    RETURN 1;
END $f$;

CREATE FUNCTION public.reload_conf() RETURNS boolean LANGUAGE sql SECURITY DEFINER
SET search_path = pg_catalog AS $f$ SELECT pg_reload_conf() $f$;

CREATE FUNCTION public.role_remote() RETURNS int LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, public AS $f$
BEGIN
    PERFORM public.dblink_exec('@SUPER@', 'ALTER ROLE @READER@ SET work_mem = ''1MB''');
    RETURN 1;
END $f$;

CREATE FUNCTION public.lo_remote() RETURNS text LANGUAGE sql SECURITY DEFINER
SET search_path = pg_catalog, public AS $f$
    SELECT v FROM public.dblink('@SUPER@', 'SELECT lo_from_bytea(0, ''pwned'')::text') AS t(v text)
$f$;

CREATE FUNCTION public.read_secret() RETURNS text LANGUAGE sql SECURITY DEFINER
SET search_path = pg_catalog AS $f$ SELECT pg_read_file('@SECRET@') $f$;

CREATE FUNCTION public.lock_remote() RETURNS int LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, public AS $f$
BEGIN
    PERFORM public.dblink_connect('ss_lock', '@SUPER@');
    PERFORM public.dblink_send_query('ss_lock', 'SELECT pg_advisory_lock(4242), pg_sleep(100)');
    RETURN 1;
END $f$;

CREATE FUNCTION public.slow_remote() RETURNS int LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, public AS $f$
BEGIN
    PERFORM public.dblink_connect('ss_slow', '@SUPER@');
    PERFORM public.dblink_send_query('ss_slow', 'SELECT pg_sleep(100)');
    RETURN 1;
END $f$;

CREATE FUNCTION public.slow_total() RETURNS numeric LANGUAGE plpgsql
SET search_path = pg_catalog, public AS $f$
BEGIN
    PERFORM set_config('statement_timeout', '0', false);
    PERFORM pg_sleep(100);
    RETURN (SELECT sum(total) FROM public.orders);
END $f$;

-- Reached through ordinary-looking SQL.
CREATE VIEW public.v_sales AS SELECT s.region, s.amount, public.program_total() AS audited FROM public.sales s;

CREATE FUNCTION public.rls_check(int) RETURNS boolean LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, public AS $f$
BEGIN
    PERFORM public.dblink_exec('@SUPER@', 'INSERT INTO public.audit_log(note) VALUES (''rls'')');
    RETURN true;
END $f$;
CREATE TABLE public.rls_orders (id int PRIMARY KEY, note text);
INSERT INTO public.rls_orders SELECT g, 'row ' || g FROM generate_series(1, 3) g;
ALTER TABLE public.rls_orders ENABLE ROW LEVEL SECURITY;
CREATE POLICY rls_every_row ON public.rls_orders FOR SELECT USING (public.rls_check(id));

CREATE FUNCTION public.leaky_contains(numeric, numeric) RETURNS boolean LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, public AS $f$
BEGIN
    PERFORM public.dblink_exec('@SUPER@', 'INSERT INTO public.audit_log(note) VALUES (''operator'')');
    RETURN $1 > $2;
END $f$;
CREATE OPERATOR public.@> (LEFTARG = numeric, RIGHTARG = numeric, FUNCTION = public.leaky_contains);

-- upper(text) in public, found first: the roles' search_path in this database puts public before pg_catalog.
CREATE FUNCTION public.upper(text) RETURNS text LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, public AS $f$
BEGIN
    PERFORM public.dblink_exec('@SUPER@', 'INSERT INTO public.audit_log(note) VALUES (''upper'')');
    RETURN pg_catalog.upper($1);
END $f$;
ALTER ROLE @READER@ IN DATABASE "@DBNAME@" SET search_path = public, pg_catalog;
ALTER ROLE "@OWNER@" IN DATABASE "@DBNAME@" SET search_path = public, pg_catalog;
"""

# Planted after the catalogs are indexed (plant_resolved): what ordinary SQL resolves to once
# these exist. Casts a superuser made (integer, numeric and date to text, varchar to integer),
# overloads and an operator put inside pg_catalog, where the built-ins are found, and a cast from
# the enum made by its owner. Each writes a file and a row through dblink_exec when it runs.
RESOLVED_PG = r"""
CREATE FUNCTION public.planted_effect(tag text) RETURNS void LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, public AS $f$
BEGIN
    EXECUTE format('COPY (SELECT %L) TO %L', tag, '@OUT@/pg_resolved_' || tag || '_' || md5(random()::text));
    PERFORM public.dblink_exec('@SUPER@', format('INSERT INTO public.audit_log(note) VALUES (%L)', tag));
END $f$;
CREATE FUNCTION public.int_text(integer) RETURNS text LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, public AS $f$ BEGIN PERFORM public.planted_effect('int_text'); RETURN $1::varchar; END $f$;
CREATE CAST (integer AS text) WITH FUNCTION public.int_text(integer);
CREATE FUNCTION public.numeric_text(numeric) RETURNS text LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, public AS $f$
BEGIN PERFORM public.planted_effect('numeric_text'); RETURN $1::varchar; END $f$;
CREATE CAST (numeric AS text) WITH FUNCTION public.numeric_text(numeric);
CREATE FUNCTION public.date_text(date) RETURNS text LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, public AS $f$ BEGIN PERFORM public.planted_effect('date_text'); RETURN $1::varchar; END $f$;
CREATE CAST (date AS text) WITH FUNCTION public.date_text(date);
CREATE FUNCTION public.varchar_int(varchar) RETURNS integer LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, public AS $f$
BEGIN PERFORM public.planted_effect('varchar_int'); RETURN length($1::text); END $f$;
CREATE CAST (varchar AS integer) WITH FUNCTION public.varchar_int(varchar);
CREATE FUNCTION pg_catalog.lower(varchar) RETURNS text LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, public AS $f$
BEGIN PERFORM public.planted_effect('lower'); RETURN pg_catalog.lower($1::text); END $f$;
CREATE FUNCTION pg_catalog.length(varchar) RETURNS integer LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, public AS $f$
BEGIN PERFORM public.planted_effect('length'); RETURN pg_catalog.length($1::text); END $f$;
CREATE FUNCTION public.vcat(varchar, varchar) RETURNS text LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, public AS $f$
BEGIN PERFORM public.planted_effect('vcat'); RETURN $1::text OPERATOR(pg_catalog.||) $2::text; END $f$;
CREATE OPERATOR pg_catalog.|| (LEFTARG = varchar, RIGHTARG = varchar, FUNCTION = public.vcat);
SET ROLE "@OWNER@";
CREATE FUNCTION public.mood_text(public.mood) RETURNS text LANGUAGE plpgsql
SET search_path = pg_catalog, public AS $f$ BEGIN PERFORM public.planted_effect('mood_text'); RETURN $1::varchar; END $f$;
CREATE CAST (public.mood AS text) WITH FUNCTION public.mood_text(public.mood);
RESET ROLE;
"""


def plant_resolved(pg: Postgres, scratch: Scratch) -> None:
    """Plant :data:`RESOLVED_PG` (after indexing: with it, reading the catalog is refused)."""
    superuser = f"host={pg.socket_dir} port={pg.port} dbname={pg.dbname} user=postgres"
    sql = RESOLVED_PG.replace("@OUT@", str(scratch.out)).replace("@SUPER@", superuser).replace("@OWNER@", pg.owner)
    pg.super.query(sql)


# The reader as the execution layer's role check asks for it (pg_role.grants): CONNECT, USAGE,
# SELECT, a temp_file_limit, and dblink's own functions not executable by PUBLIC. The planted
# functions stay executable by PUBLIC (PostgreSQL's default), as an attacker would leave them.
_GRANTS_PG = """
GRANT CONNECT ON DATABASE "@DBNAME@" TO @READER@;
GRANT USAGE ON SCHEMA public, shop TO @READER@;
GRANT SELECT ON ALL TABLES IN SCHEMA public, shop TO @READER@;
ALTER ROLE @READER@ IN DATABASE "@DBNAME@" SET temp_file_limit = '1GB';
GRANT SET ON PARAMETER log_min_messages TO @READER@;
DO $$
DECLARE f regprocedure;
BEGIN
    FOR f IN SELECT d.objid::regprocedure FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
             WHERE d.refclassid = 'pg_extension'::regclass AND d.classid = 'pg_proc'::regclass
               AND d.deptype = 'e' AND e.extname = 'dblink'
    LOOP
        EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', f);
    END LOOP;
END
$$;
GRANT SELECT ON public.v_sales, public.rls_orders TO "@OWNER@";
"""

# Everything the suite compares before and after each case, read as the superuser.
# One (key, value) row per table's contents, per sequence, and per kind of object.
_AUDIT_PG = r"""
CREATE SCHEMA ss_audit;
REVOKE ALL ON SCHEMA ss_audit FROM PUBLIC;
CREATE FUNCTION ss_audit.snapshot() RETURNS TABLE(k text, v text) LANGUAGE plpgsql
SET search_path = pg_catalog AS $f$
DECLARE
    r record;
    user_schema text := '^(pg_catalog|information_schema|ss_audit|pg_toast.*|pg_temp.*)$';
BEGIN
    FOR r IN SELECT n.nspname, c.relname, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE c.relkind IN ('r', 'p', 'm', 'S') AND n.nspname !~ user_schema ORDER BY 1, 2
    LOOP
        IF r.relkind = 'S' THEN
            k := format('sequence %I.%I', r.nspname, r.relname);
            EXECUTE format('SELECT last_value || '' called='' || is_called FROM %I.%I', r.nspname, r.relname) INTO v;
        ELSE
            k := format('table %I.%I', r.nspname, r.relname);
            EXECUTE format('SELECT count(*) || '' rows '' || coalesce(md5(string_agg(t::text, '','' ORDER BY t::text)), ''-'') '
                           'FROM %I.%I t', r.nspname, r.relname) INTO v;
        END IF;
        RETURN NEXT;
    END LOOP;
    RETURN QUERY
    SELECT 'relations', count(*) || ' ' || md5(coalesce(string_agg(format('%s.%s %s %s %s', n.nspname, c.relname,
           c.relkind, c.relowner, c.relacl), ',' ORDER BY n.nspname, c.relname), ''))
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname !~ user_schema
    UNION ALL
    SELECT 'functions', count(*) || ' ' || md5(coalesce(string_agg(format('%s %s %s %s %s %s %s', p.oid, p.proname,
           md5(p.prosrc), p.prosecdef, p.proowner, p.proconfig, p.proacl), ',' ORDER BY p.oid), ''))
      FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname !~ user_schema
    UNION ALL
    SELECT 'operators', count(*)::text FROM pg_operator o JOIN pg_namespace n ON n.oid = o.oprnamespace
     WHERE n.nspname !~ user_schema
    UNION ALL
    SELECT 'policies', md5(coalesce(string_agg(polname || pg_get_expr(polqual, polrelid), ',' ORDER BY polname), ''))
      FROM pg_policy
    UNION ALL
    SELECT 'triggers', count(*)::text FROM pg_trigger WHERE NOT tgisinternal
    UNION ALL
    SELECT 'rules', count(*)::text FROM pg_rewrite rw JOIN pg_class c ON c.oid = rw.ev_class
      JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname !~ user_schema
    UNION ALL
    SELECT 'event triggers', count(*)::text FROM pg_event_trigger
    UNION ALL
    SELECT 'extensions', string_agg(extname || ' ' || extversion, ',' ORDER BY extname) FROM pg_extension
    UNION ALL
    SELECT 'schemas', md5(string_agg(nspname || ' ' || nspowner || ' ' || coalesce(nspacl::text, ''), ','
           ORDER BY nspname)) FROM pg_namespace
    UNION ALL
    SELECT 'large objects', count(*) || ' ' || md5(coalesce(string_agg(m.oid || ' ' || m.lomowner || ' '
           || coalesce(m.lomacl::text, ''), ',' ORDER BY m.oid), '')) FROM pg_largeobject_metadata m
    UNION ALL
    -- format(), not ||: "text || integer" casts the integer to text when it runs, and RESOLVED_PG
    -- plants that cast; the watch must not trip what it watches for.
    SELECT 'large object contents', md5(coalesce(string_agg(format('%s:%s:%s', loid, pageno, md5(data)), ','
           ORDER BY loid, pageno), '')) FROM pg_largeobject
    UNION ALL
    SELECT 'roles', md5(string_agg(format('%s %s %s %s %s %s %s %s %s', rolname, rolsuper, rolinherit,
           rolcreaterole, rolcreatedb, rolcanlogin, rolreplication, rolbypassrls, md5(coalesce(rolpassword, ''))),
           ',' ORDER BY rolname)) || ' ' || string_agg(rolname, ',' ORDER BY rolname)
      FROM pg_authid WHERE rolname IN ('postgres', 'schema_search', 'ss_reader', 'ss_pwned')
    UNION ALL
    SELECT 'role memberships', count(*)::text FROM pg_auth_members m JOIN pg_authid a ON a.oid = m.member
     WHERE a.rolname IN ('schema_search', 'ss_reader')
    UNION ALL
    SELECT 'role and database settings', coalesce(string_agg(format('%s/%s %s', s.setdatabase, s.setrole,
           s.setconfig), ',' ORDER BY s.setdatabase, s.setrole), '')
      FROM pg_db_role_setting s LEFT JOIN pg_authid a ON a.oid = s.setrole
     WHERE s.setdatabase IN (0, (SELECT oid FROM pg_database WHERE datname = current_database()))
       AND (s.setrole = 0 OR a.rolname IN ('postgres', 'schema_search', 'ss_reader', 'ss_pwned'))
    UNION ALL
    SELECT 'database', format('%s %s %s %s', datdba, datallowconn, datconnlimit, datacl) FROM pg_database
     WHERE datname = current_database()
    UNION ALL
    SELECT 'advisory locks', coalesce(string_agg(format('%s/%s %s', classid, objid, mode), ',' ORDER BY objid), '')
      FROM pg_locks WHERE locktype = 'advisory'
       AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
    UNION ALL
    SELECT 'prepared transactions', coalesce(string_agg(gid, ',' ORDER BY gid), '') FROM pg_prepared_xacts
     WHERE database = current_database()
    UNION ALL
    SELECT 'replication slots', coalesce(string_agg(slot_name, ',' ORDER BY slot_name), '') FROM pg_replication_slots
    UNION ALL
    SELECT 'configuration files', md5(coalesce(string_agg(format('%s %s %s', sourcefile, name, setting), ','
           ORDER BY sourcefile, sourceline), '')) FROM pg_file_settings
    UNION ALL
    SELECT 'configuration loaded at', pg_conf_load_time()::text
    UNION ALL
    SELECT 'publications', count(*)::text FROM pg_publication
    UNION ALL
    SELECT 'foreign servers', count(*)::text FROM pg_foreign_server
    UNION ALL
    SELECT 'default privileges', count(*)::text FROM pg_default_acl;
END $f$;
REVOKE ALL ON FUNCTION ss_audit.snapshot() FROM PUBLIC;
"""
