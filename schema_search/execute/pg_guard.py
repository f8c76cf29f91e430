"""Before SQL runs on PostgreSQL: only built-in code may run, whatever someone planted in the database.

Names prove nothing there. ``SELECT id FROM orders WHERE id = 7`` runs a planted function when
``CREATE CAST (integer AS text) WITH FUNCTION public.int_text(integer)`` exists and the SQL casts;
``SELECT lower(name)`` runs ``pg_catalog.lower(varchar)`` when a superuser put one there; ``name ||
'x'`` a planted ``||(varchar, varchar)``. So the statement is parsed by the server (a protocol-level
Parse: analysed and rewritten, views and row-level policies expanded, but not planned, so nothing
is run: EXPLAIN is no dry run, its planner folds immutable calls), its query tree is read for every
object it resolves to (:mod:`.pg_tree`), and that set is closed over the catalog
(:mod:`.pg_closure`). Anything not built in (OID 16384 and above) is refused, naming the object,
unless the operator trusts it (``SCHEMA_SEARCH_EXECUTE_TRUSTED_OBJECTS``).

What no tree shows is listed once per connection (:mod:`.pg_inventory`). A database that defines
no function of its own can run nothing but built-ins: its statements are parsed only to measure how
large a query over views grows. The checker's own catalog queries are checked before they run, so
a planted operator cannot hide in them either.

Every statement the product sends goes through here: the agent's SQL and the checklist's probes
(:mod:`.on_postgres`), the role and view checks before them (:class:`CheckedCursor`), and at index
time SQLAlchemy's reflection and the value sample (:func:`checked_statement`). What stays out of
reach of any check made over SQL: a superuser who edits the system catalogs directly or loads C code.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..errors import QueryFailed, QueryRefused, first_line
from . import pg_inventory
from .pg_closure import close_over_catalog, refusal
from .pg_inventory import BOOTSTRAP, Inventory
from .pg_tree import FIRST_USER_OID, TreeError, expanded_size, references

# Past this many expression nodes, a query over views or subqueries is refused before it is
# planned: planning is not interruptible, and 20 doubling views took 1.6 GB and 2.5 s.
MAX_EXPANDED_NODES = 200_000
_SETTINGS = (("debug_print_rewritten", "on"), ("debug_print_parse", "off"), ("debug_pretty_print", "off"),
             ("client_min_messages", "log"))  # fmt: skip
_PLACEHOLDER = re.compile(r"%%|%s|%\((\w+)\)s")
_TRUST_HINT = (
    "Query only tables whose reading runs built-in code, or ask the operator to trust those objects "
    "(SCHEMA_SEARCH_EXECUTE_TRUSTED_OBJECTS) or drop them."
)


@dataclass
class Guard:
    """What the checks learnt about one connection: the inventory, and the checker's own queries
    already found safe there. Kept for the connection's life (its database cannot change under a
    read-only session any faster than between two of its statements)."""

    connection: Any
    inventory: Inventory
    support: dict[tuple[str, int], int]  # built-in ("oper"|"func", oid) -> the non-built-in code it calls
    interpreted: set[int] = field(default_factory=set)  # built-in functions that read their code from pg_proc
    checked: set[str] = field(default_factory=set)

    def run(self, query: str, params: tuple | None = None) -> list[tuple]:
        """One of the checker's own catalog queries, checked (:meth:`own_check`), then run."""
        self.own_check(query, params is not None)
        with self.connection.cursor() as cursor:
            cursor.execute(query, params)
            return cursor.fetchall()

    def own_check(self, query: str, has_params: bool) -> None:
        """Refuse one of the checker's own queries if it resolves to anything not built in.

        A superuser can plant an operator or cast the checker's own queries would pick up (a
        ``>=(oid, integer)`` in ``pg_catalog``), or point a built-in operator's selectivity
        estimator at a function of its own: so these are parsed and checked too, against the
        support code the bootstrap read found. Nor may they call a built-in that reads its code
        from the catalog (LANGUAGE sql, or one replaced in place), whose body no tree shows.
        """
        if query in self.checked:
            return
        try:
            text = _numbered(query) if has_params else query
            refs = references(rewritten_tree(self.connection, text, quiet_log=self.inventory.quiet_log))
        except TreeError as error:
            raise QueryRefused(f"The database cannot be checked before a query runs: {error}.", hint="") from None
        planted = sorted(
            f"{kind} {oid}"
            for kind, oid in refs.objects
            if kind in ("func", "oper")
            and (oid >= FIRST_USER_OID or (kind, oid) in self.support or (kind == "func" and oid in self.interpreted))
        )
        if planted or refs.unknown:
            raise QueryRefused(
                "The database resolves the checker's own catalog queries to objects that are not built in "
                f"({', '.join(planted or sorted(refs.unknown))}): someone planted them where the built-ins are, "
                "and no query runs here.",
                hint="Ask the database's administrator to look at those objects.",
            )
        self.checked.add(query)


_GUARDS: weakref.WeakKeyDictionary[Any, Guard] = weakref.WeakKeyDictionary()


def guard(connection: Any, trusted: Iterable[str] = ()) -> Guard:
    """The :class:`Guard` of a psycopg 3 connection, read on first use."""
    found = _GUARDS.get(connection)
    if found is None:
        found = _GUARDS[connection] = _start(connection, frozenset(trusted))
    return found


def _start(connection: Any, trusted: frozenset[str]) -> Guard:
    """Read the support code of every operator and function, then, when the database has
    functions of its own, the inventory.

    The first two reads call no function and no operator, and their only casts (``regproc`` to
    ``oid``) are built-in binary ones, which PostgreSQL pins: nothing planted can steer them.
    """
    rows = {}
    with connection.cursor() as cursor:
        for kind, query in BOOTSTRAP.items():
            cursor.execute(query)
            rows[kind] = cursor.fetchall()
    support, own_functions, interpreted = pg_inventory.support(rows["oper"], rows["func"])
    found = Guard(connection, Inventory(own_functions=own_functions, trusted=trusted), support, interpreted)
    version = connection.info.server_version

    def plain_run(query: str, params: tuple | None = None) -> list[tuple]:
        with connection.cursor() as cursor:
            cursor.execute(query, params)
            return cursor.fetchall()

    # Whether the trees may stay out of the server log, asked before any tree is read. With no
    # built-in pointed at other code, a call to a built-in runs built-in code: no check needed.
    found.inventory.quiet_log = pg_inventory.quiet_log(found.run if support else plain_run, version)
    if own_functions or support:
        quiet, found.inventory = (
            found.inventory.quiet_log,
            pg_inventory.read(found.run, version, own_functions, trusted),
        )
        found.inventory.quiet_log = quiet
        if support:
            found.inventory.hijacks.append(("built-in code pointed at code that is not", f"{len(support)} objects"))
    return found


def check(connection: Any, sql: str, *, reads_views: bool, trusted: Iterable[str] = ()) -> None:
    """Refuse ``sql`` unless everything it resolves to on ``connection`` is built in (or trusted).

    ``connection`` is the psycopg 3 connection the statement will run on, as the role that runs
    it (row-level policies depend on the role). ``reads_views``: the statement reads a view,
    whose expansion the SQL's own validation could not measure.

    Raises:
        QueryRefused: naming the first objects that are not built in, or why the statement
            cannot be checked.
    """
    found = guard(connection, trusted)
    if found.inventory.plain and not reads_views:
        return  # only built-in code exists, and the query cannot grow past what validation measured
    try:
        refs = references(rewritten_tree(connection, sql, quiet_log=found.inventory.quiet_log))
        size = expanded_size(refs.queries)
    except (TreeError, RecursionError) as error:
        raise QueryRefused(
            f"The query cannot be checked before it runs: {error}.", hint="Write it more simply."
        ) from None
    if size > MAX_EXPANDED_NODES:
        raise QueryRefused(
            f"The query grows to about {size:,} expressions once its views and subqueries are expanded (the limit "
            f"is {MAX_EXPANDED_NODES:,}): a view or subquery uses a column more than once per level, so each level "
            "doubles it, and planning it cannot be interrupted.",
            hint="Query the tables under those views, or ask the operator to flatten the views.",
        )
    if found.inventory.plain:
        return
    if refs.unknown:
        raise QueryRefused(
            "The query tree holds parts this checker does not know ("
            + ", ".join(sorted(refs.unknown)[:5])
            + "), and the database defines functions of its own: it is refused rather than run unchecked.",
            hint="This check knows PostgreSQL 15's query trees; on another version, ask the operator.",
        )
    if refs.utility or refs.commands - {"1"}:
        raise QueryRefused("After rewriting, the statement is not a plain query.", hint="Send one SELECT.")
    reason = refusal(close_over_catalog(found.run, refs.objects), found.inventory)
    if reason:
        raise QueryRefused(reason, hint=_TRUST_HINT)


def checked_statement(connection: Any, statement: str, parameters: Any, trusted: Iterable[str] = ()) -> tuple[str, Any]:
    """A driver-level statement (SQLAlchemy's reflection, a value sample) made safe to run.

    In a database with no code of its own, unchanged. Otherwise the parameters are bound into the
    text first, exactly as the driver would quote them, so what is checked is what runs: a
    parameter sent with a type of its own could resolve to another overload than its literal.

    Returns:
        the statement and parameters to run instead (``%`` doubled, for the driver's placeholders).
    """
    found = guard(connection, trusted)
    if found.inventory.plain:
        return statement, parameters
    import psycopg

    bound = psycopg.ClientCursor(connection).mogrify(statement, parameters or None)
    check(connection, bound, reads_views=False, trusted=trusted)
    return bound.replace("%", "%%"), {}


class CheckedCursor:
    """A cursor whose statements (catalog queries of the role and view checks) are checked first,
    in a database whose planted code they could otherwise run."""

    def __init__(self, cursor: Any, trusted: Iterable[str] = ()) -> None:
        self._cursor = cursor
        self._guard = guard(cursor.connection, trusted)

    def execute(self, query: str, params: Any = None) -> CheckedCursor:
        if not self._guard.inventory.plain:
            self._guard.own_check(query, params is not None)
        self._cursor.execute(query, params)
        return self

    def fetchone(self) -> Any:
        return self._cursor.fetchone()

    def fetchall(self) -> list:
        return self._cursor.fetchall()


# -- the tree ----------------------------------------------------------------------------


def rewritten_tree(connection: Any, sql: str, *, quiet_log: bool = False) -> str:
    """The server's rewritten query tree of ``sql``, from a Parse message: analysed, not run.

    Inside a savepoint (or a read-only transaction of its own), so the settings it turns on end
    with it; the statement is the unnamed one, which needs no DEALLOCATE.
    """
    import psycopg

    got: list[tuple[str | None, str | None, str | None]] = []

    def handler(diagnostic: Any) -> None:  # a Diagnostic is valid only inside the callback
        got.append((diagnostic.severity_nonlocalized, diagnostic.message_primary, diagnostic.message_detail))

    status = psycopg.pq.TransactionStatus
    inside = connection.info.transaction_status == status.INTRANS
    if connection.info.transaction_status not in (status.IDLE, status.INTRANS):
        raise TreeError("the connection is not ready for the check")
    pg = connection.pgconn
    settings = [*_SETTINGS, *((("log_min_messages", "fatal"),) if quiet_log else ())]
    text = "pg_catalog.text"
    connection.add_notice_handler(handler)
    try:
        _run(pg, b"SAVEPOINT schema_search_check" if inside else b"BEGIN READ ONLY")
        _run(
            pg,
            (
                "SELECT " + ", ".join(f"pg_catalog.set_config('{k}'::{text}, '{v}'::{text}, true)" for k, v in settings)
            ).encode(),
        )
        got.clear()
        parsed = pg.prepare(b"", sql.encode())
        mine = list(got)
        error = None if parsed.status == psycopg.pq.ExecStatus.COMMAND_OK else parsed.error_message
    finally:
        # Off before the rollback, which would print a tree of its own (into the server log:
        # by then log_min_messages is back to the server's).
        _run(pg, f"SELECT pg_catalog.set_config('debug_print_rewritten'::{text}, 'off'::{text}, true)".encode(), False)
        if inside:
            _run(pg, b"ROLLBACK TO SAVEPOINT schema_search_check", check=False)
            _run(pg, b"RELEASE SAVEPOINT schema_search_check", check=False)
        else:
            _run(pg, b"ROLLBACK", check=False)
        connection.remove_notice_handler(handler)
    if error:
        raise QueryFailed(
            f"The database refused the query: {first_line(error.decode(errors='replace'))}",
            hint="Fix the SQL and try again.",
        )
    trees = [detail for severity, primary, detail in mine if severity == "LOG" and primary == "rewritten parse tree:"]
    if len(trees) != 1 or trees[0] is None:
        raise TreeError(f"the server sent {len(trees)} query trees, not one")
    return trees[0]


def _run(pg: Any, statement: bytes, check: bool = True) -> None:
    import psycopg

    result = pg.exec_(statement)
    if check and result.status not in (psycopg.pq.ExecStatus.COMMAND_OK, psycopg.pq.ExecStatus.TUPLES_OK):
        raise TreeError(result.error_message.decode(errors="replace").strip())


def _numbered(query: str) -> str:
    """A psycopg query's placeholders as the server's ``$n`` (one number per name).

    >>> _numbered("SELECT %s, %(a)s, %(a)s, '100%%'")
    "SELECT $1, $2, $2, '100%'"
    """
    numbers: dict[str, int] = {}

    def number(match: re.Match) -> str:
        if match.group() == "%%":
            return "%"
        name = match.group(1) or f"#{len(numbers)}"
        numbers.setdefault(name, len(numbers) + 1)
        return f"${numbers[name]}"

    return _PLACEHOLDER.sub(number, query)
