"""Before a query runs on PostgreSQL: a role that could change nothing, and tables that call nothing.

A ``READ ONLY`` transaction does not stop a function from writing files, calling
``dblink`` or signalling other sessions: privileges do. So the connecting role is
inspected first (superuser, the file/program/signal roles, ownership, any write
privilege, ``dblink``/``postgres_fdw``, an unlimited ``temp_file_limit``), and a role
that could change anything is refused with the statements that create one that
cannot. ``SCHEMA_SEARCH_EXECUTE_ALLOW_PRIVILEGED_ROLE`` turns the refusal off, loudly.

Then the tables the query reads: a view runs whatever functions its definition calls,
and a row-level-security policy runs its expression on every read. The relations a read
reaches (views of views, the tables under them, inheritance children) come from
``pg_depend``; the functions come from each view's and policy's stored expression tree,
because PostgreSQL records no dependency on built-in functions. Every function called
(operators by their functions) must be a built-in of ``pg_catalog`` that is not volatile
and does not read relations by name (``table_to_xml``), or the query is refused naming
the function and the view. A foreign table is refused too: reading it connects to
another server.

Runs in the sandbox's child, on the query's own connection, as plain SQL over the
system catalogs.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from ..errors import QueryRefused, RoleRefused

# PostgreSQL's first OID for user objects (FirstNormalObjectId): lower ones are built in.
_FIRST_USER_OID = 16384
# Predefined roles whose members can touch files, programs, other sessions or all data.
_POWERFUL_ROLES = (
    "pg_write_server_files",
    "pg_read_server_files",
    "pg_execute_server_program",
    "pg_signal_backend",
    "pg_write_all_data",
    "pg_checkpoint",
    "pg_create_subscription",
)
_REMOTE_EXTENSIONS = ("dblink", "postgres_fdw", "file_fdw", "adminpack")
# Volatile built-ins that change nothing; every other volatile one (nextval, setval,
# pg_sleep, lo_*, set_config, pg_terminate_backend, ...) does or waits.
_HARMLESS_VOLATILE = ("random", "clock_timestamp", "timeofday", "gen_random_uuid", "statement_timestamp")
# Built-ins that are not volatile yet read relations no check follows (the *_to_xml family
# runs SELECT * over what it is given) or assign a transaction id even when read-only.
_NEVER = frozenset(
    {
        "table_to_xml",
        "table_to_xmlschema",
        "table_to_xml_and_xmlschema",
        "schema_to_xml",
        "schema_to_xmlschema",
        "schema_to_xml_and_xmlschema",
        "database_to_xml",
        "database_to_xmlschema",
        "database_to_xml_and_xmlschema",
        "query_to_xml",
        "query_to_xmlschema",
        "query_to_xml_and_xmlschema",
        "cursor_to_xml",
        "cursor_to_xmlschema",
        "txid_current",
        "pg_current_xact_id",
    }
)
_USER_SCHEMAS = "n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'"


class Checked(NamedTuple):
    warnings: list[str]  # what the role could change, when ``allow_privileged`` let it run anyway
    reads_views: bool  # the tables read reach a view (whose expansion validation cannot measure)


def check(cursor: Any, tables: list[tuple[str, str]], *, allow_privileged: bool) -> Checked:
    """Refuse a role that could change anything, then tables whose reading calls functions.

    Raises:
        RoleRefused: the role could change something (unless ``allow_privileged``).
        QueryRefused: a table read is a foreign table, or runs a function that is not a
            side-effect-free built-in.
    """
    problems = role_problems(cursor)
    if problems and not allow_privileged:
        role, database = _who(cursor)
        raise RoleRefused(
            f"Refusing to run queries as role {role!r}: it could change the database or the server "
            f"({'; '.join(problems)}).",
            hint=grants(role, database, sorted({schema for schema, _ in tables})),
        )
    reads_views = "v" in check_tables(cursor, tables)
    if not problems:
        return Checked([], reads_views)
    role, _ = _who(cursor)
    warning = (
        f"Ran as role {role!r} although it could change the database or the server ({'; '.join(problems)}), "
        "because SCHEMA_SEARCH_EXECUTE_ALLOW_PRIVILEGED_ROLE is on. Use a read-only role."
    )
    return Checked([warning], reads_views)


def role_problems(cursor: Any) -> list[str]:
    """Everything that lets the current role change something, in words; empty for a read-only role."""
    found: list[str] = []
    cursor.execute(
        "SELECT rolsuper, rolcreaterole, rolcreatedb, rolreplication, rolbypassrls FROM pg_roles "
        "WHERE rolname = current_user"
    )
    flags = cursor.fetchone()
    for flag, words in zip(flags or (), ("superuser", "CREATEROLE", "CREATEDB", "REPLICATION", "BYPASSRLS")):
        if flag:
            found.append(f"has {words}")
    cursor.execute(
        "SELECT rolname FROM pg_roles WHERE rolname = ANY(%s) AND pg_has_role(current_user, oid, 'USAGE')",
        (list(_POWERFUL_ROLES),),
    )
    found += [f"is a member of {name}" for (name,) in cursor.fetchall()]
    cursor.execute(
        "SELECT b.rolname FROM pg_roles b WHERE b.rolname <> current_user AND pg_has_role(current_user, b.oid, 'MEMBER') "
        "AND (b.rolsuper OR b.rolcreaterole OR b.rolcreatedb)"
    )
    found += [f"can become the privileged role {name}" for (name,) in cursor.fetchall()]
    cursor.execute("SELECT pg_get_userbyid(datdba) = current_user FROM pg_database WHERE datname = current_database()")
    if (cursor.fetchone() or (False,))[0]:
        found.append("owns the database")
    for what, sql in _WRITES.items():
        cursor.execute(sql)
        names = [name for (name,) in cursor.fetchall()]
        if names:
            more = f" and {len(names) - 3} more" if len(names) > 3 else ""
            found.append(f"{what} {', '.join(names[:3])}{more}")
    cursor.execute(
        "SELECT DISTINCT e.extname FROM pg_extension e JOIN pg_depend d ON d.refclassid = 'pg_extension'::regclass "
        "AND d.refobjid = e.oid AND d.classid = 'pg_proc'::regclass WHERE e.extname = ANY(%s) "
        "AND has_function_privilege(current_user, d.objid, 'EXECUTE')",
        (list(_REMOTE_EXTENSIONS),),
    )
    found += [f"can call {name} (it reaches other servers or files)" for (name,) in cursor.fetchall()]
    cursor.execute("SELECT current_setting('lo_compat_privileges'), current_setting('temp_file_limit')")
    compat, temp_limit = cursor.fetchone()
    if compat == "on":
        found.append("lo_compat_privileges is on (any role may write large objects)")
    if temp_limit == "-1":
        found.append("temp_file_limit is unlimited (one query can fill the server's disk)")
    return found


# What a role can write, each as a query listing up to a few names (it is one list per kind).
_WRITES = {
    "owns": f"SELECT n.nspname || '.' || c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
    f"WHERE c.relowner = (SELECT oid FROM pg_roles WHERE rolname = current_user) AND c.relkind IN "
    f"('r', 'p', 'v', 'm', 'f', 'S') AND {_USER_SCHEMAS} LIMIT 4",
    "can write to": f"SELECT n.nspname || '.' || c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
    f"WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND {_USER_SCHEMAS} "
    "AND has_table_privilege(current_user, c.oid, 'INSERT, UPDATE, DELETE, TRUNCATE, TRIGGER') LIMIT 4",
    "can advance the sequences": f"SELECT n.nspname || '.' || c.relname FROM pg_class c "
    f"JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind = 'S' AND {_USER_SCHEMAS} "
    "AND has_sequence_privilege(current_user, c.oid, 'USAGE, UPDATE') LIMIT 4",
    "can create objects in the schemas": f"SELECT n.nspname FROM pg_namespace n WHERE {_USER_SCHEMAS} "
    "AND has_schema_privilege(current_user, n.oid, 'CREATE') LIMIT 4",
    "owns the functions": f"SELECT n.nspname || '.' || p.proname FROM pg_proc p JOIN pg_namespace n "
    f"ON n.oid = p.pronamespace WHERE p.proowner = (SELECT oid FROM pg_roles WHERE rolname = current_user) "
    f"AND {_USER_SCHEMAS} LIMIT 4",
    "can create schemas in the database": "SELECT current_database() WHERE has_database_privilege(current_user, "
    "current_database(), 'CREATE')",
}


def grants(role: str, database: str, schemas: list[str]) -> str:
    """The statements an administrator runs to give queries a role that can only read."""
    reader = "schema_search_reader" if role != "schema_search_reader" else "schema_search_reader2"
    lines = [
        f"Connect as a role that can only read. As an administrator: CREATE ROLE {reader} LOGIN PASSWORD '...';",
        f"GRANT CONNECT ON DATABASE {_ident(database)} TO {reader};",
    ]
    for schema in schemas or ["public"]:
        lines.append(
            f"GRANT USAGE ON SCHEMA {_ident(schema)} TO {reader}; "
            f"GRANT SELECT ON ALL TABLES IN SCHEMA {_ident(schema)} TO {reader};"
        )
    lines.append(f"ALTER ROLE {reader} SET temp_file_limit = '1GB';")
    # The guard (pg_guard) reads each statement's query tree from a LOG message: on PostgreSQL
    # 15 and later the role may keep those out of the server log.
    lines.append(f"GRANT SET ON PARAMETER log_min_messages TO {reader}; (PostgreSQL 15 and later)")
    lines.append(
        "Revoke EXECUTE on dblink/postgres_fdw functions from PUBLIC if installed, then put that role in the URL "
        "(or set SCHEMA_SEARCH_EXECUTE_ALLOW_PRIVILEGED_ROLE=true to run anyway, which is unsafe)."
    )
    return " ".join(lines)


def check_tables(cursor: Any, tables: list[tuple[str, str]]) -> set[str]:
    """Refuse ``(schema, table)`` pairs whose reading reaches a foreign table or calls a function
    that is not a side-effect-free built-in (through views, policies, inheritance children).

    Also run before value hints are sampled (``connectors.values``): reading a view runs its functions.

    Returns:
        the kinds (``pg_class.relkind``) of every relation reached.

    Raises:
        QueryRefused: naming the relation and the function.
    """
    if not tables:
        return set()
    cursor.execute(_REACHED, ([f"{_ident(s)}.{_ident(t)}" for s, t in tables],))
    relations = cursor.fetchall()
    for _oid, relation, kind in relations:
        if kind == "f":
            raise QueryRefused(
                f"{relation} is a foreign table: reading it connects to another server.",
                hint="Query the tables of this database only.",
            )
    # PostgreSQL records no dependency on built-in functions, so the functions a view or
    # policy calls are read from its stored expression tree instead.
    cursor.execute(_EXPRESSIONS, {"oids": [oid for oid, _, _ in relations]})
    calls: dict[int, str] = {}
    operators: dict[int, str] = {}
    for relation, tree in cursor.fetchall():
        for kind, oid in _CALLS.findall(tree or ""):
            (operators if kind == "opno" else calls).setdefault(int(oid), relation)
    if operators:
        cursor.execute(
            "SELECT oid::bigint, oprcode::oid::bigint FROM pg_operator WHERE oid = ANY(%s)", (list(operators),)
        )
        for operator, function in cursor.fetchall():
            calls.setdefault(function, operators[operator])
    kinds = {kind for _, _, kind in relations}
    if not calls:
        return kinds
    cursor.execute(
        "SELECT p.oid::bigint, n.nspname, p.proname, p.provolatile::text FROM pg_proc p "
        "JOIN pg_namespace n ON n.oid = p.pronamespace WHERE p.oid = ANY(%s) ORDER BY p.oid DESC",
        (list(calls),),
    )
    for oid, schema, function, volatile in cursor.fetchall():
        built_in = oid < _FIRST_USER_OID and schema == "pg_catalog"
        if not built_in or function in _NEVER or (volatile == "v" and function not in _HARMLESS_VOLATILE):
            raise QueryRefused(
                f"Reading {calls[oid]} calls the function {schema}.{function}(), which is not a side-effect-free "
                "built-in: the query could change something or leave the database.",
                hint="Query the tables under that view directly, or ask the operator to replace the view.",
            )
    return kinds


# In a stored expression tree: function calls, operators, aggregates and window functions.
_CALLS = re.compile(r":(funcid|opfuncid|aggfnoid|winfnoid|opno) (\d+)")

# Every relation the query's tables lead to through view definitions and row-level
# policies (PostgreSQL records those dependencies), and the children a read of a parent reads.
_REACHED = """
WITH RECURSIVE users AS (  -- what reading a relation runs: its SELECT rules (a view's definition)
    -- and the policies that apply to SELECT when row-level security is on; a materialized
    -- view's definition runs only when it is refreshed
    SELECT w.ev_class AS relid, 'pg_rewrite'::regclass AS classid, w.oid AS objid FROM pg_rewrite w
    JOIN pg_class c ON c.oid = w.ev_class WHERE w.ev_type = '1' AND c.relkind <> 'm'
    UNION ALL
    SELECT p.polrelid, 'pg_policy'::regclass, p.oid FROM pg_policy p JOIN pg_class c ON c.oid = p.polrelid
    WHERE c.relrowsecurity AND p.polcmd IN ('r', '*')
), rel(oid) AS (
    SELECT to_regclass(name)::oid FROM unnest(%s::text[]) AS name WHERE to_regclass(name) IS NOT NULL
    UNION
    SELECT next.oid FROM rel CROSS JOIN LATERAL (
        SELECT d.refobjid AS oid FROM users u
        JOIN pg_depend d ON d.classid = u.classid AND d.objid = u.objid AND d.refclassid = 'pg_class'::regclass
        WHERE u.relid = rel.oid AND d.refobjid <> rel.oid
        UNION ALL
        SELECT i.inhrelid FROM pg_inherits i WHERE i.inhparent = rel.oid
    ) AS next
)
SELECT c.oid::bigint, c.oid::regclass::text, c.relkind::text FROM rel JOIN pg_class c ON c.oid = rel.oid
"""

# The expression trees reading those relations runs: SELECT rules and SELECT policies.
_EXPRESSIONS = """
SELECT w.ev_class::regclass::text, w.ev_action::text FROM pg_rewrite w JOIN pg_class c ON c.oid = w.ev_class
WHERE w.ev_class = ANY(%(oids)s::oid[]) AND w.ev_type = '1' AND c.relkind <> 'm'
UNION ALL
SELECT p.polrelid::regclass::text, p.polqual::text FROM pg_policy p JOIN pg_class c ON c.oid = p.polrelid
WHERE p.polrelid = ANY(%(oids)s::oid[]) AND c.relrowsecurity AND p.polcmd IN ('r', '*')
"""


def _who(cursor: Any) -> tuple[str, str]:
    cursor.execute("SELECT current_user, current_database()")
    return cursor.fetchone()


def _ident(name: str) -> str:
    """A name quoted as PostgreSQL reads it exactly (quoting is never wrong; a reserved word unquoted is)."""
    return '"' + name.replace('"', '""') + '"'
