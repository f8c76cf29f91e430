"""PostgreSQL, read-only: the role checked first (:mod:`.pg_role`), then what the statement resolves
to (:mod:`.pg_guard`: only built-in code runs), a ``READ ONLY`` transaction that is always rolled back, ``statement_timeout`` and a client-side cancel at the deadline (a planted
function can set the timeout to 0; a cancel reaches it anyway), only ``pg_catalog`` on the search
path (tables arrive schema-qualified), sorts and hashes held to ``work_mem`` each, and a cursor
fetched in batches until the row or byte limit.
"""

from __future__ import annotations

import threading
import time
import uuid
from typing import Any

from ..errors import QueryFailed, first_line
from .engines import Limits, batches

CONNECT_TIMEOUT_S = 10
WORK_MEM = "32MB"


def run(target: dict, sql: str, limits: Limits, request: dict) -> tuple[list[str], list[list[Any]]]:
    import psycopg

    from . import pg_guard, pg_role

    timeout_ms = max(1, int(limits.timeout_s * 1000))
    options = (
        f"-c default_transaction_read_only=on -c statement_timeout={timeout_ms} -c lock_timeout={timeout_ms} "
        f"-c idle_in_transaction_session_timeout={timeout_ms * 2 + 10_000} "
        # Functions, operators and types resolve in pg_catalog only: one planted in
        # another schema cannot shadow a built-in (tables arrive schema-qualified).
        "-c search_path=pg_catalog,pg_temp "
        # Each sort or hash in memory up to this much, then on disk (where temp_file_limit,
        # which the role check asks for, bounds it): a query's memory grows with its size only.
        f"-c work_mem={WORK_MEM} -c hash_mem_multiplier=1"
    )
    params = dict(target["params"])
    # The URL's own options (a pooler's endpoint id, say) come first; ours are applied after.
    options = f"{params.pop('options', '')} {options}".strip()
    connect_timeout = min(int(params.pop("connect_timeout", CONNECT_TIMEOUT_S) or CONNECT_TIMEOUT_S), CONNECT_TIMEOUT_S)
    try:
        connection = psycopg.connect(**params, connect_timeout=connect_timeout, options=options)
    except psycopg.Error as error:
        raise QueryFailed(
            f"Cannot connect: {_pg_reason(error, target)}", hint="Check the URL, user and password."
        ) from None
    except (TypeError, ValueError) as error:  # a URL parameter libpq does not take
        raise QueryFailed(f"Cannot connect: {error}", hint="Check the parameters after '?' in the URL.") from None
    try:
        if connection.info.server_version >= 140000:
            # A query whose client is gone is ended within a second, not when it next sends a row.
            connection.execute("SET client_connection_check_interval = 1000")
        trusted = request["trusted_objects"]
        with connection.cursor() as cursor:
            checked = pg_role.check(
                pg_guard.CheckedCursor(cursor, trusted), request["tables"], allow_privileged=request["allow_privileged"]
            )
        request["warnings"] += checked.warnings
        pg_guard.check(connection, sql, reads_views=checked.reads_views, trusted=trusted)
        limits.deadline = time.monotonic() + limits.timeout_s  # the checks are not the query's time
        timer = threading.Timer(limits.timeout_s, connection.cancel_safe)
        timer.start()
        try:
            with connection.cursor() as cursor:
                name = f"schema_search_{uuid.uuid4().hex[:12]}"
                # prepare=True: the extended protocol, whose Parse refuses more than one statement.
                cursor.execute(f"DECLARE {name} NO SCROLL CURSOR FOR {sql}", prepare=True)
                columns: list[str] = []

                def fetch(n: int) -> list[tuple]:
                    if limits.timed_out():  # each FETCH gets a fresh statement_timeout; the deadline is one
                        raise limits.stopped()
                    cursor.execute(f"FETCH FORWARD {n} FROM {name}")
                    columns[:] = [d.name for d in cursor.description or ()]
                    return cursor.fetchall()

                rows = limits.collect(batches(fetch))
                return columns, rows
        finally:
            timer.cancel()
    except psycopg.Error as error:
        if isinstance(error, psycopg.errors.QueryCanceled) or limits.timed_out():
            raise limits.stopped() from None
        raise QueryFailed(
            f"The database refused the query: {_pg_reason(error, target)}", hint="Fix the SQL and try again."
        ) from None
    finally:
        try:
            connection.rollback()
        except psycopg.Error:  # a dropped connection has nothing to undo
            pass
        connection.close()


def _pg_reason(error: BaseException, target: dict) -> str:
    """The server's first line about ``error``. libpq does not echo passwords; a long one is
    masked should it appear anyway (masking a short one would show where its letters stand)."""
    reason = first_line(error)
    password = target["params"].get("password")
    return reason.replace(password, "***") if password and len(password) >= 8 else reason
