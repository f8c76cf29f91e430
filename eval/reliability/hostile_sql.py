"""Hostile SQL, run the way ``ask --execute`` and ``query_collection`` run it, with every effect looked for.

Each string of :mod:`.hostile_cases` goes through exactly what a user's agent would
reach: :func:`~schema_search.execute.run.execute_sql` with the catalog the database
was indexed into (SQLite, DuckDB, and PostgreSQL as a least-privilege reader and as the
database's owner), or ``Workspace.catalogs.query`` / ``corpora.query`` for collections.
They run one after another in a worker process that stands for the server: if a case
crashes it or it stops answering, that is counted and a new worker takes the next case.

Every case ends in one outcome: refused by validation, refused by the role check,
refused by the engine, stopped by a limit, ran harmlessly, or ran with an effect (and,
where something went wrong in the caller itself, failed unexpectedly or crashed the
caller). "With an effect" is decided by looking (:mod:`.effects`), whatever the
exception said: a planted function may write a file and then fail.

    python -m eval.reliability.hostile_sql [--engine sqlite|duckdb|postgres ...] [--no-collections]
        [--limit-s 2] [--json OUT] [--only TEXT] [--ci]

PostgreSQL needs root (the superuser through ``su postgres``) and the server
``scripts/setup_postgres.sh`` starts; without them it is skipped with the reason.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import inspect
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import hostile_cases as cases_
from .effects import FileWatch, PostgresWatch, anything, changes, disclosed, owned_by
from .hostile_cases import Case, fill
from .hostile_fixtures import (
    DEFAULT_PG_URL,
    TOKEN_VAR,
    Scratch,
    duckdb_database,
    make_scratch,
    notes_corpus,
    plant_resolved,
    postgres_database,
    postgres_unavailable,
    remove_scratch,
    restore_files,
    sqlite_database,
)
from .report import Part, table

VALIDATION = "refused by validation"
ROLE = "refused by the role check"
ENGINE = "refused by the engine"
LIMIT = "stopped by a limit"
HARMLESS = "ran harmlessly"
EFFECT = "ran with an effect"
UNEXPECTED = "failed unexpectedly"
CRASHED = "crashed the caller"
OUTCOMES = (VALIDATION, ROLE, ENGINE, LIMIT, HARMLESS, EFFECT, UNEXPECTED, CRASHED)
_ALWAYS_SHOWN = OUTCOMES[:6]

GRACE_S = 1.0  # a runaway must be stopped within the time limit plus this
HUNG_S = 30.0  # past the limit plus this, the worker is taken to have hung and is killed
STARTUP_S = 180.0
WORKER_MEMORY_MB = 6144  # the worker's address-space cap: a runaway must not take the shared machine down

# A QueryFailed that says a limit stopped it, for execution layers without QueryStopped.
_LIMIT_WORDS = re.compile(
    r"ran longer than|was stopped|out of memory|more memory|memory limit|statement timeout", re.IGNORECASE
)
# Found in a result or an error message: something was read that should not have been.
# (A DuckDB macro named reverse() lists the engine's settings, "name=value;...".)
_LISTING_MARKERS = ("/etc/passwd", "PG_VERSION", "postgresql.auto.conf", "secret.txt", "allow_unsigned_extensions=")


@dataclass
class Result:
    """One case on one surface."""

    surface: str
    case_id: str
    category: str
    runaway: bool
    outcome: str
    error: str
    message: str
    seconds: float
    effects: list[str] = field(default_factory=list)


def outcome_of(kinds: list[str], message: str) -> str:
    """The outcome an exception (its class and bases, by name) stands for; no exception ran harmlessly.

    >>> outcome_of([], "")
    'ran harmlessly'
    >>> outcome_of(["RoleRefused", "QueryRefused", "SchemaSearchError"], "")
    'refused by the role check'
    >>> outcome_of(["QueryFailed", "SchemaSearchError"], "The query ran longer than 2 s and was stopped.")
    'stopped by a limit'
    >>> outcome_of(["QueryFailed", "SchemaSearchError"], "The database refused the query: read-only")
    'refused by the engine'
    >>> outcome_of(["MemoryError"], "")
    'failed unexpectedly'
    """
    if not kinds:
        return HARMLESS
    if "RoleRefused" in kinds:
        return ROLE
    if "QueryStopped" in kinds:
        return LIMIT
    if "QueryRefused" in kinds:
        return VALIDATION
    if "QueryFailed" in kinds:
        return LIMIT if _LIMIT_WORDS.search(message) else ENGINE
    if "SchemaSearchError" in kinds:  # too large, malformed: refused before anything ran
        return VALIDATION
    return UNEXPECTED


# -- the worker: the process that stands for the server ------------------------------


class Worker:
    """A child process answering one request at a time; restarted after a crash or a hang."""

    def __init__(self, cwd: Path, env: dict[str, str], memory_mb: int, warm: dict) -> None:
        self.cwd, self.env, self.memory_mb, self.warm = cwd, env, memory_mb, warm
        self._process: subprocess.Popen | None = None
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 - the worker's stderr for its lifetime; unlinked, so no watch sees it

    def ask(self, request: dict, limit_s: float) -> dict:
        """The worker's reply, or ``{"crashed": why}`` when it died or did not answer within ``limit_s``."""
        if self._process is None or self._process.poll() is not None:
            self._start()
        started = time.monotonic()
        try:
            self._send(request)
            return self._receive(limit_s)
        except TimeoutError:  # before OSError, which it is a kind of
            self.close()
            return {
                "crashed": f"the worker did not answer within {limit_s:g} s and was killed",
                "seconds": time.monotonic() - started,
            }
        except (OSError, EOFError):
            code = self._process.wait()
            self._process = None
            why = f"signal {signal.Signals(-code).name}" if code < 0 else f"exit status {code}"
            return {"crashed": f"the worker died ({why}){self._tail()}", "seconds": time.monotonic() - started}

    def _start(self) -> None:
        self._process = subprocess.Popen(
            [sys.executable, "-m", "eval.reliability.hostile_sql", "--worker", str(self.memory_mb)],
            cwd=self.cwd,
            env=self.env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
        )
        self._buffer = b""
        self._send({"op": "warm", **self.warm})
        reply = self._receive(STARTUP_S)
        if reply.get("error"):
            raise RuntimeError(f"the worker could not start: {reply['message']}")

    def _send(self, request: dict) -> None:
        self._process.stdin.write(json.dumps(request).encode() + b"\n")
        self._process.stdin.flush()

    def _receive(self, limit_s: float) -> dict:
        import select

        deadline = time.monotonic() + limit_s
        fd = self._process.stdout.fileno()
        while b"\n" not in self._buffer:
            ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                raise TimeoutError
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise EOFError
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return json.loads(line)

    def _tail(self) -> str:
        self._log.seek(0)
        lines = self._log.read().decode(errors="replace").strip().splitlines()
        self._log.seek(0)
        self._log.truncate()
        return f": {lines[-1][:200]}" if lines else ""

    def close(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process.wait()
            self._process = None


def _serve_worker(memory_mb: int) -> None:
    """The worker: answer JSON-line requests on stdin until it closes."""
    import resource

    cap = memory_mb * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    replies = os.fdopen(os.dup(1), "w")
    sys.stdout = sys.stderr  # nothing but replies on the real stdout
    workspaces: dict[tuple[str, float], Any] = {}
    for line in sys.stdin:
        request = json.loads(line)
        replies.write(json.dumps(_answer(request, workspaces)) + "\n")
        replies.flush()


def _answer(request: dict, workspaces: dict) -> dict:
    values: list[Any] = []
    started = time.perf_counter()
    kinds: list[str] = []
    message = full = ""
    try:
        values = _ANSWERS[request["op"]](request, workspaces)
    except BaseException as error:
        if isinstance(error, (KeyboardInterrupt, SystemExit)):
            raise
        kinds = [k.__name__ for k in type(error).__mro__ if k not in (BaseException, Exception, object)]
        message = _first_line(getattr(error, "detail", None) or error)
        full = f"{error} {getattr(error, 'detail', '')} {getattr(error, 'hint', '')}"
    seconds = time.perf_counter() - started
    markers = request.get("markers", [])
    found = disclosed(values, markers, _LISTING_MARKERS) + [
        f"{m} (in the error message)" for m in disclosed([full], markers)
    ]
    import resource

    return {
        "error": kinds[0] if kinds else "",
        "kinds": kinds,
        "message": message[:300],
        "seconds": seconds,
        "rows": len(values),
        "disclosed": found,
        "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
    }


def _workspace(workspaces: dict, home: str, limit_s: float):
    from schema_search.settings import Settings
    from schema_search.workspace import Workspace

    key = (home, limit_s)
    if key not in workspaces:
        workspaces[key] = Workspace(Settings(home=Path(home), dense=False, query_timeout_s=limit_s))
    return workspaces[key]


def _warm(request: dict, workspaces: dict) -> list:
    from schema_search.execute import run  # noqa: F401 - imported now, not on the first case's clock

    workspace = _workspace(workspaces, request["home"], request["limit_s"])
    for name in request.get("catalogs", []):
        workspace.catalogs.searcher(name)
    return []


def _execute(request: dict, workspaces: dict) -> list:
    """What ``schemasift ask --execute`` does with the SQL a model wrote (cli/agent.py)."""
    from schema_search.execute.run import execute_sql
    from schema_search.execute.target import source_url

    workspace = _workspace(workspaces, request["home"], request["limit_s"])
    settings = workspace.settings
    catalog = workspace.catalogs.searcher(request["catalog"]).catalog
    url = source_url(catalog, request["url"])
    result = execute_sql(url, request["sql"], catalog, **_execute_settings(execute_sql, settings, request["limit_s"]))
    return result.rows


def _execute_settings(function: Callable, settings: Any, limit_s: float) -> dict:
    """``max_rows`` and ``timeout_s`` as the CLI passes them, and any ``execute_*`` setting the function takes."""
    arguments = {"max_rows": settings.execute_max_rows, "timeout_s": limit_s}
    for name, parameter in inspect.signature(function).parameters.items():
        if parameter.kind is parameter.KEYWORD_ONLY and name not in arguments and hasattr(settings, f"execute_{name}"):
            arguments[name] = getattr(settings, f"execute_{name}")
    return arguments


def _checklist(request: dict, workspaces: dict) -> list:
    """What MCP ``execute_sql`` does before any approval: the checklist, its value probes included."""
    from schema_search.preflight.gate import Gate
    from schema_search.preflight.verdicts import VerdictLog
    from schema_search.workspace import configs

    workspace = _workspace(workspaces, request["home"], request["limit_s"])
    # The verdict log (which the checklist writes, as it should) kept out of the watched folders.
    log = VerdictLog(Path(workspaces.setdefault("verdicts", tempfile.mkdtemp(prefix="ss_verdicts_"))) / "v.jsonl")
    config = dataclasses.replace(configs.gate_config(workspace.settings, request["catalog"], request["url"]), log=log)
    gate = Gate(workspace.catalogs.catalog(request["catalog"]), config)
    checklist = gate.execute_sql(request["sql"], "What does this show?").checklist
    said = checklist.questions + checklist.warnings + checklist.errors
    return [[slot.key, slot.value] for slot in checklist.slots] + [[line] for line in said]


def _index(request: dict, workspaces: dict) -> list:
    """What ``schemasift index`` does with a live database, value hints on (the default)."""
    workspace = _workspace(workspaces, request["home"], request["limit_s"])
    workspace.catalogs.index(request["url"], catalog=request["catalog"])
    return []


def _collection(request: dict, workspaces: dict) -> list:
    """What the MCP tool ``query_collection`` does: ``Workspace.catalogs.query`` / ``corpora.query``."""
    from schema_search.structured.models import QueryRequest

    workspace = _workspace(workspaces, request["home"], request["limit_s"])
    query = QueryRequest(sql=request["sql"])
    if request["target"] == "catalog":
        return workspace.catalogs.query(request["name"], query).rows
    return workspace.corpora.query(request["name"], query).rows


_ANSWERS = {
    "warm": _warm,
    "database": _execute,
    "checklist": _checklist,
    "index": _index,
    "collection": _collection,
}


def _first_line(error: object) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


# -- one surface ----------------------------------------------------------------------


@dataclass
class Surface:
    """Where cases run: a name, how to ask for one, and what to watch besides files."""

    name: str
    cases: tuple[Case, ...]
    request: Callable[[Case, str], dict]
    postgres: PostgresWatch | None = None
    after: Callable[[], None] | None = None


def _run_surface(
    surface: Surface,
    worker: Worker,
    files: FileWatch,
    placeholders: dict[str, str],
    limit_s: float,
    hung_s: float,
    markers: list[str],
    progress: Callable[[Result], None] | None,
) -> list[Result]:
    results = []
    for case in surface.cases:
        values = dict(placeholders)
        pg_before: dict[str, str] = {}
        effects: list[str] = []
        if surface.postgres is not None:
            values |= surface.postgres.placeholders()
            pg_before, _ = surface.postgres.snapshot()  # a session lost here was the previous case's, counted there
        files_before = files.snapshot()
        request = surface.request(case, fill(case.sql, values)) | {"limit_s": limit_s, "markers": markers}
        reply = worker.ask(request, limit_s + hung_s)
        if surface.postgres is not None:
            effects += surface.postgres.after_case(pg_before)
        effects += changes(files_before, files.snapshot())
        effects += [f"disclosed {found}" for found in reply.get("disclosed", [])]
        if "crashed" in reply:
            outcome, error, message = CRASHED, "", reply["crashed"]
        else:
            outcome, error, message = outcome_of(reply["kinds"], reply["message"]), reply["error"], reply["message"]
        if effects:
            outcome = EFFECT
            if surface.after is not None:
                surface.after()
        result = Result(
            surface.name,
            case.id,
            case.category,
            case.runaway,
            outcome,
            error,
            message,
            round(reply.get("seconds", 0.0), 3),
            effects,
        )
        results.append(result)
        if progress is not None:
            progress(result)
    return results


# -- the suite ------------------------------------------------------------------------


def run_cases(
    engines: Iterable[str] = ("sqlite", "duckdb", "postgres"),
    collections: bool = True,
    limit_s: float = 2.0,
    subset: Collection[str] | Callable[[Case], bool] | None = None,
    *,
    owner: bool = True,
    pg_url: str | None = None,
    progress: Callable[[Result], None] | None = None,
    memory_mb: int = WORKER_MEMORY_MB,
    hung_s: float = HUNG_S,
) -> tuple[list[Result], list[str]]:
    """Every selected case on every selected surface, and notes (what was skipped, and why).

    Args:
        engines: databases to attack through ``execute_sql``.
        collections: also attack ``query_collection`` (DuckDB in a child process).
        limit_s: the time limit each query runs under.
        subset: case ids to run (or a predicate over cases); ``None`` runs them all.
        owner: on PostgreSQL, also run every case as the database's owner.
        pg_url: the owner role's URL (default ``SCHEMA_SEARCH_TEST_PG_URL``, then the
            one ``scripts/setup_postgres.sh`` prints); only its role, password, host and
            port are used.
        progress: called with each result as it is known.
        memory_mb: the worker's address-space cap.
        hung_s: past the limit plus this, a worker that has not answered is killed (counted
            as crashing the caller).
    """
    from schema_search.settings import Settings
    from schema_search.workspace import Workspace

    engines = tuple(engines)
    chosen = _chooser(subset)
    notes: list[str] = []
    scratch = make_scratch()
    settings = Settings(home=scratch.home, dense=False, query_timeout_s=limit_s)
    workspace = Workspace(settings)
    placeholders = scratch.placeholders()
    markers = [scratch.token, "root:x:0:0"]
    files = FileWatch(
        trees=[scratch.root],
        folders=[(Path(tempfile.gettempdir()), owned_by(_postgres_uid()), True)] if _postgres_uid() is not None else [],
    )
    surfaces: list[Surface] = []
    catalogs: list[str] = []
    with contextlib.ExitStack() as stack:
        stack.callback(remove_scratch, scratch)
        if "sqlite" in engines:
            path = sqlite_database(scratch)
            workspace.catalogs.index(f"sqlite:///{path}", catalog="sqlite")
            catalogs.append("sqlite")
            surfaces.append(
                Surface(
                    "sqlite",
                    _pick(cases_.SQLITE, chosen),
                    _database("sqlite", f"sqlite:///{path}", scratch, {"DB": str(path)}),
                    after=lambda: restore_files(scratch),
                )
            )
        if "duckdb" in engines:
            path = duckdb_database(scratch)
            workspace.catalogs.index(f"duckdb:///{path}", catalog="duckdb")
            catalogs.append("duckdb")
            surfaces.append(
                Surface(
                    "duckdb",
                    _pick(cases_.DUCKDB, chosen),
                    _database("duckdb", f"duckdb:///{path}", scratch, {"DB": str(path)}),
                    after=lambda: restore_files(scratch),
                )
            )
        if "postgres" in engines:
            url = pg_url or os.environ.get("SCHEMA_SEARCH_TEST_PG_URL") or DEFAULT_PG_URL
            why = postgres_unavailable(url)
            if why is not None:
                notes.append(f"PostgreSQL skipped: {why}")
            else:
                pg = stack.enter_context(postgres_database(scratch, url))
                watch = PostgresWatch(pg)
                stack.callback(watch.close)
                neighbours = [pg.data_dir, pg.data_dir.parent, pg.data_dir.parent.parent]
                files.folders += [(folder, anything, False) for folder in neighbours]
                files.files.append(pg.data_dir / "postgresql.auto.conf")
                placeholders |= pg.placeholders()
                roles = [("postgres as reader", "pg_reader", pg.reader_url)]
                if owner:
                    roles.append(("postgres as owner", "pg_owner", pg.owner_url))
                for name, catalog, role_url in roles:
                    workspace.catalogs.index(role_url, catalog=catalog)
                    catalogs.append(catalog)
                    surfaces.append(
                        Surface(
                            name,
                            _pick(cases_.POSTGRES, chosen),
                            _database(catalog, role_url, scratch, {}),
                            postgres=watch,
                        )
                    )
                # Planted once the catalogs are read: from here, ordinary SQL resolves to planted code.
                plant_resolved(pg, scratch)
                for name, cases, op, catalog in (
                    ("postgres checklist", cases_.CHECKLIST, "checklist", "pg_reader"),
                    ("postgres indexing", cases_.INDEXING, "index", "pg_again"),
                ):
                    request = _request(op, catalog, pg.reader_url, scratch)
                    surfaces.append(Surface(name, _pick(cases, chosen), request, postgres=watch))
        if collections:
            if "sqlite" not in catalogs:
                path = sqlite_database(scratch)
                workspace.catalogs.index(f"sqlite:///{path}", catalog="sqlite")
            workspace.corpora.index(notes_corpus(scratch), corpus="notes")
            surfaces.append(
                Surface("collections", _pick(cases_.collection_cases(), chosen), _collection_request(scratch))
            )
        env = {
            **os.environ,
            TOKEN_VAR: scratch.token,
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            "PYTHONPATH": _repo_path(),
        }
        worker = Worker(
            scratch.cwd, env, memory_mb, {"home": str(scratch.home), "limit_s": limit_s, "catalogs": catalogs}
        )
        stack.callback(worker.close)
        results: list[Result] = []
        for surface in surfaces:
            results += _run_surface(surface, worker, files, placeholders, limit_s, hung_s, markers, progress)
    return results, notes


def _chooser(subset: Collection[str] | Callable[[Case], bool] | None) -> Callable[[Case], bool]:
    if subset is None:
        return lambda case: True
    if callable(subset):
        return subset
    wanted = set(subset)
    return lambda case: case.id in wanted


def _pick(cases: tuple[Case, ...], chosen: Callable[[Case], bool]) -> tuple[Case, ...]:
    return tuple(case for case in cases if chosen(case))


def _database(catalog: str, url: str, scratch: Scratch, extra: dict[str, str]) -> Callable[[Case, str], dict]:
    def request(case: Case, sql: str) -> dict:
        return {"op": "database", "home": str(scratch.home), "catalog": catalog, "url": url, "sql": fill(sql, extra)}

    return request


def _request(op: str, catalog: str, url: str, scratch: Scratch) -> Callable[[Case, str], dict]:
    def request(case: Case, sql: str) -> dict:
        return {"op": op, "home": str(scratch.home), "catalog": catalog, "url": url, "sql": sql}

    return request


def _collection_request(scratch: Scratch) -> Callable[[Case, str], dict]:
    def request(case: Case, sql: str) -> dict:
        target = cases_.collection_target(case)
        name = "sqlite" if target == "catalog" else "notes"
        return {"op": "collection", "home": str(scratch.home), "target": target, "name": name, "sql": sql}

    return request


def _postgres_uid() -> int | None:
    try:
        import pwd

        return pwd.getpwnam("postgres").pw_uid
    except (ImportError, KeyError):
        return None


def _repo_path() -> str:
    root = str(Path(__file__).resolve().parents[2])
    existing = os.environ.get("PYTHONPATH")
    return f"{root}{os.pathsep}{existing}" if existing else root


# -- figures --------------------------------------------------------------------------

_DATABASE_SURFACES = ("sqlite", "duckdb", "postgres as reader")


def parts(results: list[Result], limit_s: float, notes: Iterable[str] = ()) -> list[Part]:
    """The suite's figures: outcomes on databases, as the owner, on collections; runaways' wall time."""
    notes = list(notes)
    on_databases = [r for r in results if r.surface in _DATABASE_SURFACES]
    made = [_outcomes("hostile SQL (database)", on_databases, notes)] if on_databases or notes else []
    as_owner = [r for r in results if r.surface == "postgres as owner"]
    if as_owner:
        made.append(_outcomes("hostile SQL (PostgreSQL as owner)", as_owner, []))
    for surface, name in (("postgres checklist", "checklist before approval"), ("postgres indexing", "indexing")):
        mine = [r for r in results if r.surface == surface]
        if mine:
            made.append(_outcomes(f"hostile SQL ({name}, PostgreSQL)", mine, []))
    on_collections = [r for r in results if r.surface == "collections"]
    if on_collections:
        made.append(_outcomes("hostile SQL (collections)", on_collections, []))
    made.append(_runaways(results, limit_s))
    return made


def _outcomes(name: str, results: list[Result], notes: list[str]) -> Part:
    counts: dict[str, int | float] = {o: sum(r.outcome == o for r in results) for o in OUTCOMES}
    counts = {o: n for o, n in counts.items() if n or o in _ALWAYS_SHOWN}
    bad = [r for r in results if r.outcome in (EFFECT, CRASHED, UNEXPECTED)]
    details = notes + [_detail(r) for r in bad]
    at_target = not any(r.outcome in (EFFECT, CRASHED) for r in results)
    return Part(name, {"cases": len(results), **counts}, "0 with an effect, 0 crashing the caller", at_target, details)


def _runaways(results: list[Result], limit_s: float) -> Part:
    runaway = [r for r in results if r.runaway]
    over = [r for r in runaway if r.seconds > limit_s + GRACE_S or r.outcome == CRASHED]
    overshoot = max((r.seconds - limit_s for r in runaway), default=0.0)
    counts = {
        "cases": len(runaway),
        f"within {limit_s:g} s + {GRACE_S:g} s": len(runaway) - len(over),
        "over": len(over),
        "max overshoot s": round(max(0.0, overshoot), 2),
        CRASHED: sum(r.outcome == CRASHED for r in runaway),
    }
    details = [
        f"{r.surface} {r.case_id}: {r.seconds:.2f} s, {r.outcome}" + (f" ({r.message[:120]})" if r.message else "")
        for r in over
    ]
    return Part("runaway queries", counts, f"stopped within limit + {GRACE_S:g} s, caller alive", not over, details)


def _detail(result: Result) -> str:
    what = "; ".join(result.effects) if result.effects else result.message
    if result.outcome == EFFECT and result.error:
        what += f" [then {result.error}: {result.message[:80]}]"
    return f"{result.surface} {result.case_id}: {what[:400]}"


def breakdown(results: list[Result]) -> str:
    """Category x outcome counts over every surface, as a plain-text table."""
    shown = [o for o in OUTCOMES if o in _ALWAYS_SHOWN or any(r.outcome == o for r in results)]
    rows = [["category", *shown, "total"]]
    for category in cases_.CATEGORIES:
        mine = [r for r in results if r.category == category]
        if mine:
            rows.append([category, *(str(sum(r.outcome == o for r in mine)) for o in shown), str(len(mine))])
    rows.append(["all", *(str(sum(r.outcome == o for r in results)) for o in shown), str(len(results))])
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = [
        "  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths)))
        for row in rows
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def run(
    engines: Iterable[str] = ("sqlite", "duckdb", "postgres"),
    collections: bool = True,
    limit_s: float = 2.0,
    subset: Collection[str] | Callable[[Case], bool] | None = None,
) -> list[Part]:
    """The suite's parts (see :func:`run_cases` for the arguments)."""
    results, notes = run_cases(engines, collections, limit_s, subset)
    return parts(results, limit_s, notes)


def ci_slice(case: Case) -> bool:
    """The representative slice the test suite runs."""
    return case.ci


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m eval.reliability.hostile_sql", description=__doc__.split("\n")[0])
    parser.add_argument(
        "--engine",
        action="append",
        choices=("sqlite", "duckdb", "postgres"),
        help="a database to attack (repeatable; default: all three)",
    )
    parser.add_argument("--no-collections", action="store_true", help="leave out query_collection")
    parser.add_argument("--no-owner", action="store_true", help="on PostgreSQL, run as the reader only")
    parser.add_argument("--limit-s", type=float, default=2.0, help="time limit per query (default 2)")
    parser.add_argument("--json", type=Path, help="write every case's result here")
    parser.add_argument("--only", help="run only cases whose id contains this")
    parser.add_argument("--ci", action="store_true", help="run only the slice the test suite runs")
    parser.add_argument("--verbose", action="store_true", help="print each case as it ends (stderr)")
    args = parser.parse_args(argv)
    subset: Callable[[Case], bool] | None = None
    if args.only or args.ci:

        def subset(case: Case) -> bool:
            return (not args.only or args.only in case.id) and (not args.ci or case.ci)

    progress = _printer() if args.verbose else None
    started = time.perf_counter()
    results, notes = run_cases(
        args.engine or ("sqlite", "duckdb", "postgres"),
        not args.no_collections,
        args.limit_s,
        subset,
        owner=not args.no_owner,
        progress=progress,
    )
    seconds = time.perf_counter() - started
    made = parts(results, args.limit_s, notes)
    print(table(made))
    print()
    print(breakdown(results))
    for part in made:
        if part.details:
            print(f"\n{part.name}:")
            for line in part.details:
                print(f"  {line}")
    print(f"\n{len(results)} cases in {seconds:.0f} s (limit {args.limit_s:g} s per query)")
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "limit_s": args.limit_s,
                    "seconds": round(seconds, 1),
                    "notes": notes,
                    "parts": [dataclasses.asdict(p) for p in made],
                    "results": [dataclasses.asdict(r) for r in results],
                },
                indent=1,
            )
        )
    return 0 if all(p.at_target for p in made) else 1


def _printer() -> Callable[[Result], None]:
    def show(result: Result) -> None:
        effects = f"  <- {'; '.join(result.effects)[:200]}" if result.effects else ""
        print(
            f"{result.surface:18} {result.case_id:48} {result.outcome:26} {result.seconds:7.2f} s{effects}",
            file=sys.stderr,
            flush=True,
        )

    return show


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--worker":
        _serve_worker(int(sys.argv[2]))
    else:
        sys.exit(main())
