"""Secrets: a database password must never reach output, logs, errors, stored catalogs, the web page or reports.

    python -m eval.reliability.secrets [--print-pg-setup]

One distinctive password rides in every database URL, and every path a password can
take is driven: ``schemasift index`` from a URL (a real PostgreSQL role when one is
set up, see :data:`PG_SETUP`) and from URLs that fail (wrong password, port, host,
driver, a malformed or unencoded URL), a malformed ``SCHEMA_SEARCH_SOURCE_URLS``, the
HTTP API (index from a URL with the admin key, catalog info, errors, the docs page),
the MCP tools, ``ask --execute`` with the URL in ``SCHEMA_SEARCH_SOURCE_URLS`` (the
model is a scripted fake, so what it is sent is an artifact too), an eval report of
the catalog, and finally every file of the data directory, byte by byte.

Each artifact (a command's stdout or stderr, a response body, a log, a file) is
searched for the password in full, URL-encoded, and in fragments: its distinctive core,
and the tail a parser leaves when it splits an unencoded password at its ``@``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import logging
import os
import re
import socket
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock
from urllib.parse import quote

from .report import Part, show, table

PASSWORD = "pw-Zq81xK-s@cret/9"  # an '@' and a '/', so URLs must encode it
WRONG = "pw-Zq81xK-wrong@1"  # the same core: a leak of the wrong one counts too
# Full forms first, so a whole password counts once; then fragments: the core, and the
# tail after the '@' (what shows when a parser splits an unencoded password there).
NEEDLE = re.compile(rb"pw-Zq81xK-(?:s(?:@|%40)cret(?:/|%2F)9|wrong(?:@|%40)1)|Zq81xK|cret(?:/|%2F)9", re.I)
REPO = Path(__file__).resolve().parents[2]
OFFLINE = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
PG_ENV = "SCHEMA_SEARCH_TEST_PG_SECRET_URL"
PG_SERVER_ENV = "SCHEMA_SEARCH_TEST_PG_URL"  # the other PostgreSQL tests' server: the role below lives there
PG_SERVER = "postgresql://schema_search:schema_search@127.0.0.1:5432/schema_search_test"
# Run once as a superuser (`psql -d postgres -f -`); it touches nothing the other tests use.
PG_SETUP = f"""\
DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'ss_secret') THEN CREATE ROLE ss_secret LOGIN;
  END IF;
END $$;
ALTER ROLE ss_secret LOGIN PASSWORD '{PASSWORD}';
ALTER ROLE ss_secret SET temp_file_limit = '1GB';  -- else ask --execute refuses the role
SELECT 'CREATE DATABASE schema_search_secrets' WHERE NOT EXISTS
  (SELECT FROM pg_database WHERE datname = 'schema_search_secrets') \\gexec
\\c schema_search_secrets
CREATE SCHEMA IF NOT EXISTS secret_demo;
CREATE TABLE IF NOT EXISTS secret_demo.vaults (id integer PRIMARY KEY, label text NOT NULL);
CREATE TABLE IF NOT EXISTS secret_demo.deposits
  (id integer PRIMARY KEY, vault_id integer REFERENCES secret_demo.vaults (id), amount numeric(10, 2));
COMMENT ON TABLE secret_demo.deposits IS 'Money put into a vault.';
INSERT INTO secret_demo.vaults VALUES (1, 'north'), (2, 'south') ON CONFLICT DO NOTHING;
GRANT CONNECT ON DATABASE schema_search_secrets TO ss_secret;
GRANT USAGE ON SCHEMA secret_demo TO ss_secret;
GRANT SELECT ON ALL TABLES IN SCHEMA secret_demo TO ss_secret;
"""
QUERY = "SELECT label FROM secret_demo.vaults"


@dataclass
class Artifacts:
    """Everything a run left where someone could read it, by name."""

    found: dict[str, bytes] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def add(self, name: str, data: bytes | str) -> None:
        self.found[name] = self.found.get(name, b"") + (
            data.encode("utf-8", "replace") if isinstance(data, str) else data
        )


def occurrences(data: bytes) -> int:
    """How many times the password, whole or in part, appears in ``data``.

    >>> occurrences(b"postgresql://u:pw-Zq81xK-s%40cret%2F9@h/db and Zq81xK"), occurrences(b"u:***@h")
    (2, 0)
    """
    return len(NEEDLE.findall(data))


def urls(server: str) -> dict[str, str]:
    """The URLs to index from, each carrying the password, by what they exercise."""
    from sqlalchemy import make_url

    good = make_url(server)
    host, port, database = good.host or "127.0.0.1", good.port or 5432, good.database
    encoded, wrong = quote(PASSWORD, safe=""), quote(WRONG, safe="")
    return {
        "wrong port": f"postgresql://{good.username}:{encoded}@{host}:1/{database}",
        "wrong host": f"postgresql://{good.username}:{encoded}@127.0.0.3:{port}/{database}",
        "wrong password": f"postgresql://{good.username}:{wrong}@{host}:{port}/{database}",
        "unknown dialect": f"postgres://{good.username}:{encoded}@{host}:{port}/{database}",
        "mysql driver": f"mysql+pymysql://{good.username}:{encoded}@{host}:1/{database}",
        "malformed (one slash)": f"postgresql:/{good.username}:{encoded}@{host}:{port}/{database}",
        "unencoded password": f"postgresql://{good.username}:{PASSWORD}@{host}:{port}/{database}",
    }


def run(pg_url: str | None = None) -> Part:
    """Drive every path with the password in its URL; count what comes back.

    Args:
        pg_url: a PostgreSQL URL whose password is :data:`PASSWORD` (default:
            ``$SCHEMA_SEARCH_TEST_PG_SECRET_URL``, else :func:`pg_url`).
            When it cannot connect, only the failing paths run.
    """
    return part(collect(pg_url or os.environ.get(PG_ENV) or default_pg_url()))


def default_pg_url() -> str:
    """The role :data:`PG_SETUP` makes, on the server of ``$SCHEMA_SEARCH_TEST_PG_URL`` (else localhost)."""
    from sqlalchemy import make_url

    server = make_url(os.environ.get(PG_SERVER_ENV) or PG_SERVER)
    url = server.set(username="ss_secret", password=PASSWORD, database="schema_search_secrets")
    return url.render_as_string(hide_password=False)


def collect(pg_url: str) -> Artifacts:
    """Run every path; return what each left."""
    artifacts = Artifacts()
    reachable = _server_up(pg_url)
    live = reachable and _can_connect(pg_url)
    if not live:
        artifacts.notes.append(
            "PostgreSQL role with the test password not reachable: successful index, HTTP, MCP and "
            f"ask --execute paths skipped (python -m eval.reliability.secrets --print-pg-setup; ${PG_ENV})"
        )
    failing = urls(pg_url)
    if not reachable:
        failing.pop("wrong password")
    with tempfile.TemporaryDirectory(prefix="schema-search-secrets-") as scratch:
        home = Path(scratch) / "home"
        env = os.environ | OFFLINE | {"SCHEMA_SEARCH_HOME": str(home), "SCHEMA_SEARCH_DENSE": "false"}
        env.pop("SCHEMA_SEARCH_SOURCE_URLS", None)
        cli = _cli_runner(env, artifacts)
        if live:
            cli("index from the URL", "index", pg_url, "--catalog", "pgcli")
            cli("index from the URL, as JSON", "index", pg_url, "--catalog", "pgcli", "--json")
            cli("catalogs", "catalogs", "--json")
            cli("table", "table", "secret_demo.deposits", "--catalog", "pgcli", "--json")
            cli("search", "search", "money in a vault", "--catalog", "pgcli", "--json")
            cli("diagnose (a report)", "diagnose", "--catalog", "pgcli", "--json")
        for label, url in failing.items():
            cli(f"index, {label}", "index", url, "--catalog", "pgbad")
        for label, value in _bad_source_urls(pg_url).items():
            cli(f"SCHEMA_SEARCH_SOURCE_URLS {label}", "catalogs", extra={"SCHEMA_SEARCH_SOURCE_URLS": value})
        with _captured_logs() as logs:
            _http(home, pg_url if live else None, failing, artifacts)
            if live:
                _mcp(home, artifacts)
                _ask(home, pg_url, failing, artifacts)
        artifacts.add("logs of the in-process HTTP, MCP and ask runs", logs.getvalue())
        for path in sorted(home.rglob("*")):
            if path.is_file():
                artifacts.add(f"data dir: {path.relative_to(home)}", path.read_bytes())
    return artifacts


def part(artifacts: Artifacts) -> Part:
    """The figures: artifacts searched, those with the password, occurrences in all."""
    leaks = {name: occurrences(data) for name, data in artifacts.found.items()}
    leaking = {name: n for name, n in leaks.items() if n}
    details = [f"{name}: {n} ({_context(artifacts.found[name])})" for name, n in leaking.items()]
    counts = {
        "artifacts": len(leaks),
        "data dir files": sum(name.startswith("data dir: ") for name in leaks),
        "with the password": len(leaking),
        "occurrences": sum(leaking.values()),
    }
    report = "\n".join([table([Part("secrets", counts, "0 occurrences", not leaking)]), *details])
    counts["occurrences"] += occurrences(report.encode())  # the report is an artifact too
    return Part("secrets", counts, "0 occurrences", counts["occurrences"] == 0, details + artifacts.notes)


def _context(data: bytes) -> str:
    """Where the first occurrence sits, with the password itself masked."""
    match = NEEDLE.search(data)
    start = max(0, match.start() - 60)
    around = data[start : match.end() + 40].decode("utf-8", "replace")
    return " ".join(NEEDLE.sub(b"<PASSWORD>", around.encode()).decode().split())


# -- the paths ------------------------------------------------------------------------


def _cli_runner(env: dict[str, str], artifacts: Artifacts) -> Callable[..., None]:
    def cli(label: str, *args: str, extra: dict[str, str] | None = None) -> None:
        done = subprocess.run(
            [sys.executable, "-m", "schema_search.cli", *args],
            env=env | (extra or {}),
            cwd=REPO,
            capture_output=True,
            timeout=120,
        )
        artifacts.add(f"cli {label}: stdout", done.stdout)
        artifacts.add(f"cli {label}: stderr", done.stderr)

    return cli


def _bad_source_urls(pg_url: str) -> dict[str, str]:
    """``SCHEMA_SEARCH_SOURCE_URLS`` values of the wrong shape: their error must not echo them."""
    short = f"postgresql://u:{quote(PASSWORD, safe='')}@h/d"  # short: error messages elide long values
    return {
        "not JSON": '{"pgcli": "' + short + '"',
        "a list": json.dumps([short]),
        "a list per catalog": json.dumps({"pgcli": [short]}),
    }


def _http(home: Path, pg_url: str | None, failing: dict[str, str], artifacts: Artifacts) -> None:
    from fastapi.testclient import TestClient

    from schema_search.http.app import create_app
    from schema_search.settings import Settings

    settings = Settings(home=home, dense=False, allow_url_sources=True, admin_key="admin-key-for-the-test")
    app = create_app(settings)
    catalogs = _catalogs_path(app)
    client = TestClient(app, raise_server_exceptions=False)
    admin = {"X-Admin-Key": "admin-key-for-the-test"}

    def call(label: str, method: str, path: str, **kwargs: Any) -> None:
        response = client.request(method, path, **kwargs)
        artifacts.add(f"http {label}: {response.status_code}", response.content)

    if pg_url:
        call("index from the URL", "POST", f"{catalogs}/pghttp", json={"url": pg_url}, headers=admin)
        call("list catalogs", "GET", catalogs)
        call("catalog info", "GET", f"{catalogs}/pghttp")
        call("table", "GET", f"{catalogs}/pghttp/tables/secret_demo.deposits")
        call("search", "POST", f"{catalogs}/pghttp/search", json={"question": "money in a vault"})
    for label, url in failing.items():
        call(f"index, {label}", "POST", f"{catalogs}/pgbad", json={"url": url}, headers=admin)
    url = next(iter(failing.values()))
    call("index without the admin key", "POST", f"{catalogs}/pgbad", json={"url": url})
    call(
        "index, body a list",
        "POST",
        f"{catalogs}/pgbad",
        content=json.dumps([url]),
        headers=admin | {"Content-Type": "application/json"},
    )
    call(
        "index, body not JSON",
        "POST",
        f"{catalogs}/pgbad",
        content='{"url": "' + url + '"',
        headers=admin | {"Content-Type": "application/json"},
    )
    call("index, db of the wrong type", "POST", f"{catalogs}/pgbad", json={"url": url, "db": 5}, headers=admin)
    for page in ("/docs", "/redoc", "/openapi.json", "/healthz", "/readyz"):
        call(f"page {page}", "GET", page)


def _catalogs_path(app: Any) -> str:
    """The catalogs collection's path, however the API is versioned (``/catalogs``, ``/v1/catalogs``)."""
    for path in app.openapi()["paths"]:
        if path.endswith("/catalogs/{name}"):
            return path.removesuffix("/{name}")
    return "/catalogs"


def _mcp(home: Path, artifacts: Artifacts) -> None:
    import anyio
    from mcp import Client

    from schema_search.mcp.server import create_server
    from schema_search.settings import Settings
    from schema_search.workspace import Workspace

    calls = [
        ("describe_collection", {}),
        ("search_tables", {"question": "money in a vault"}),
        ("get_table", {"table_or_source_id": "secret_demo.deposits"}),
        ("get_table", {"table_or_source_id": "no_such_table"}),
    ]

    async def exercise() -> None:
        for catalog in ("pgcli", "pghttp"):
            async with Client(create_server(Workspace(Settings(home=home, dense=False)), catalog)) as client:
                listed = await client.list_tools()
                artifacts.add(
                    f"mcp {catalog}: tool list", json.dumps([t.model_dump(mode="json") for t in listed.tools])
                )
                for tool, arguments in calls:
                    result = await client.call_tool(tool, arguments)
                    artifacts.add(f"mcp {catalog}: {tool}", json.dumps(result.model_dump(mode="json"), default=str))

    anyio.run(exercise)


def _ask(home: Path, pg_url: str, failing: dict[str, str], artifacts: Artifacts) -> None:
    """``ask --execute`` with the URL in ``SCHEMA_SEARCH_SOURCE_URLS`` (and ``--url``), a scripted model."""
    from schema_search.agent import ask as agent
    from schema_search.cli.main import main

    cases = {"the URL in SCHEMA_SEARCH_SOURCE_URLS": (pg_url, ())}
    for label in ("wrong password", "wrong port"):
        if label in failing:
            cases[f"{label} in SCHEMA_SEARCH_SOURCE_URLS"] = (failing[label], ())
    for label in ("wrong port", "malformed (one slash)", "unencoded password"):
        cases[f"{label} with --url"] = (pg_url, ("--url", failing[label]))
    for label, (url, more) in cases.items():
        sent: list[Any] = []
        model = _scripted_model(sent)
        out, err = io.StringIO(), io.StringIO()
        env = OFFLINE | {"SCHEMA_SEARCH_SOURCE_URLS": json.dumps({"pgcli": url}), "SCHEMA_SEARCH_DENSE": "false"}
        with (
            mock.patch.dict(os.environ, env),
            mock.patch.object(agent, "litellm_complete", lambda *a, model=model, **k: model),
            contextlib.redirect_stdout(out),
            contextlib.redirect_stderr(err),
        ):
            try:
                main(
                    [
                        "--home",
                        str(home),
                        "ask",
                        "Which vaults are there?",
                        "--catalog",
                        "pgcli",
                        "--model",
                        "scripted",
                        "--execute",
                        "--yes",
                        "--json",
                        *more,
                    ]
                )
            except Exception as error:  # an unhandled error is printed by Python as a traceback: an artifact too
                err.write(f"{type(error).__name__}: {error}")
        artifacts.add(f"ask --execute, {label}: stdout", out.getvalue())
        artifacts.add(f"ask --execute, {label}: stderr", err.getvalue())
        artifacts.add(f"ask --execute, {label}: sent to the model", json.dumps(sent, default=str))


def _scripted_model(sent: list[Any]) -> Callable[..., dict]:
    """A model that submits one query, and again when told it failed (the one repair)."""

    def complete(*, model: str, messages: list[dict], tools: list[dict], **_: Any) -> dict:
        sent.append(json.loads(json.dumps(messages, default=str)))
        arguments = json.dumps({"sql": QUERY, "explanation": "The vaults."})
        call = {"id": f"c{len(sent)}", "type": "function", "function": {"name": "submit_sql", "arguments": arguments}}
        message = {"role": "assistant", "content": None, "tool_calls": [call]}
        return {"choices": [{"message": message, "finish_reason": "tool_calls"}]}

    return complete


@contextlib.contextmanager
def _captured_logs():
    """Every log record, DEBUG and up, of any library, while the in-process paths run."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        yield stream
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


def _server_up(url: str) -> bool:
    from sqlalchemy import make_url

    parsed = make_url(url)
    try:
        socket.create_connection((parsed.host or "127.0.0.1", parsed.port or 5432), timeout=2).close()
    except OSError:
        return False
    return True


def _can_connect(url: str) -> bool:
    from sqlalchemy import create_engine, text
    from sqlalchemy.exc import SQLAlchemyError

    engine = create_engine(url, connect_args={"connect_timeout": 3})
    try:
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))
    except SQLAlchemyError:
        return False  # its message is not printed: it could hold the password
    finally:
        engine.dispose()
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--print-pg-setup", action="store_true", help="print the SQL that creates the test role")
    parser.add_argument(
        "--pg-url",
        help=f"PostgreSQL URL with the test password (default: ${PG_ENV}, else the role PG_SETUP makes on ${PG_SERVER_ENV})",
    )
    args = parser.parse_args()
    if args.print_pg_setup:
        print(PG_SETUP)
        return 0
    result = run(args.pg_url)
    return show([result])


if __name__ == "__main__":
    raise SystemExit(main())
