"""Split a DDL script into statements, each with the line it starts on.

``sqlglot.parse`` on a whole dump fails as a whole on one statement it cannot read,
so the DDL connector splits the text itself and parses each statement on its own.
The splitter knows just enough lexical structure to find the ``;`` that end
statements: quoted strings and identifiers, PostgreSQL dollar quoting (``$$ ... $$``,
``$tag$ ... $tag$``), ``--``, ``#`` and ``/* */`` comments, psql meta-commands
(``\\connect``) and the data block that follows ``COPY ... FROM stdin``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from typing import NamedTuple


class Statement(NamedTuple):
    """One statement's text (without its ``;``) and the 1-based line it starts on."""

    line: int
    text: str


# What may sit between statements: blanks, comments, and psql meta-commands, which
# end at the end of their line rather than at a ``;``.
_BETWEEN = re.compile(r"(?:\s+|--[^\n]*|\#[^\n]*|/\*.*?(?:\*/|\Z)|\\[^\n]*)*", re.S)

# ``COPY ... FROM stdin;`` is followed by raw data rows up to a line holding ``\.``.
_COPY_FROM_STDIN = re.compile(r"COPY\b[^;]*\bFROM\s+stdin\b", re.I)
_END_OF_COPY_DATA = re.compile(r"^\\\.[ \t]*$\n?", re.M)

# MySQL runs the text of ``/*!50001 ... */`` comments; mysqldump wraps views in them.
_MYSQL_EXECUTABLE_COMMENT = re.compile(r"/\*!\d*(.*?)\*/", re.S)


def split_statements(
    text: str, *, backslash_escapes: bool = False, hash_comments: bool = False, go_batches: bool = False
) -> Iterator[Statement]:
    """Yield the non-empty statements of ``text`` in order.

    Args:
        text: a SQL script.
        backslash_escapes: whether ``\\'`` escapes a quote inside strings (MySQL).
        hash_comments: whether ``#`` starts a line comment (MySQL).
        go_batches: whether a line ``GO`` ends a statement too (SQL Server scripts).

    An unterminated string or comment runs to the end of the text, so the rest of
    the script becomes one statement that then fails to parse where it starts.

    >>> [s.text for s in split_statements("CREATE TABLE a (x text DEFAULT ';');\\n-- c;\\nSELECT 1")]
    ["CREATE TABLE a (x text DEFAULT ';')", 'SELECT 1']
    >>> [s.line for s in split_statements("\\n\\nSELECT 1;\\n/* x; */ SELECT $$;$$")]
    [3, 4]
    """
    token = _token_pattern(backslash_escapes, hash_comments, go_batches)
    position, line = 0, 1
    while True:
        start = _BETWEEN.match(text, position).end()
        if start >= len(text):
            return
        line += text.count("\n", position, start)
        end, position = _statement_end(token, text, start)
        statement = text[start:end].rstrip()
        if statement:  # ";;" or a GO right after a ";"
            yield Statement(line, statement)
        if _COPY_FROM_STDIN.match(statement):
            data_end = _END_OF_COPY_DATA.search(text, position)
            position = data_end.end() if data_end else len(text)
        line += text.count("\n", start, position)


def unwrap_mysql_executable_comments(text: str) -> str:
    """Replace ``/*!50001 CREATE VIEW ... */`` by its content, as MySQL itself does.

    Line numbers are kept: only the markers, never a newline, are removed.

    >>> unwrap_mysql_executable_comments("/*!50001 CREATE VIEW v AS SELECT 1 */;")
    ' CREATE VIEW v AS SELECT 1 ;'
    """
    return _MYSQL_EXECUTABLE_COMMENT.sub(r"\1", text)


def _statement_end(token: re.Pattern[str], text: str, start: int) -> tuple[int, int]:
    """Where the statement from ``start`` ends, and where the next may begin."""
    # Strings, identifiers and comments are matched whole, so a separator found by
    # the scan is always a real statement end.
    for match in token.finditer(text, start):
        if match["separator"]:
            return match.start(), match.end()
    return len(text), len(text)


@cache
def _token_pattern(backslash_escapes: bool, hash_comments: bool, go_batches: bool) -> re.Pattern[str]:
    # Quoted text is written "unrolled" (``[^']*(?:''[^']*)*``) so long strings
    # are scanned without backtracking.
    if backslash_escapes:
        single = r"'[^'\\]*(?:(?:''|\\.)[^'\\]*)*(?:'|\Z)"
        double = r'"[^"\\]*(?:(?:""|\\.)[^"\\]*)*(?:"|\Z)'
    else:
        single = r"'[^']*(?:''[^']*)*(?:'|\Z)"
        double = r'"[^"]*(?:""[^"]*)*(?:"|\Z)'
    separator = r";|^[ \t]*(?i:GO)[ \t]*$" if go_batches else ";"
    parts = [
        f"(?P<separator>{separator})",
        r"--[^\n]*",
        r"/\*.*?(?:\*/|\Z)",
        # PostgreSQL E'...' strings take backslash escapes whatever the dialect.
        r"(?<![\w$])[Ee]'[^'\\]*(?:(?:''|\\.)[^'\\]*)*(?:'|\Z)",
        single,
        double,
        r"`[^`]*(?:``[^`]*)*(?:`|\Z)",
        # ``$tag$`` opens a dollar quote only where it cannot be part of a name
        # (``a$b``) or a parameter (``$1``).
        r"(?<![\w$])\$(?P<tag>(?:[A-Za-z_]\w*)?)\$.*?(?:\$(?P=tag)\$|\Z)",
    ]
    if hash_comments:
        parts.append(r"\#[^\n]*")
    return re.compile("|".join(parts), re.S | re.M)


# A table or column name as written: quoted parts, or anything up to a blank or "(".
_NAME = r"(?:\"[^\"]*\"|`[^`]*`|\[[^\]]*\]|[^\s(;,\"`]+)(?:\s*\.\s*(?:\"[^\"]*\"|`[^`]*`|\[[^\]]*\]|[^\s(;,.\"`]+))*"
_CREATE = re.compile(
    r"CREATE\s+(?:(?:OR\s+REPLACE|TEMP|TEMPORARY|UNLOGGED|GLOBAL|LOCAL|MATERIALIZED|RECURSIVE"
    r"|ALGORITHM\s*=\s*\w+|DEFINER\s*=\s*\S+|SQL\s+SECURITY\s+\w+)\s+)*"
    rf"(?P<kind>TABLE|VIEW)\s+(?:IF\s+NOT\s+EXISTS\s+)?(?P<name>{_NAME})?",
    re.I,
)
_ALTER = re.compile(rf"ALTER\s+TABLE\s+(?:IF\s+EXISTS\s+)?(?:ONLY\s+)?(?P<name>{_NAME})?", re.I)
_ALTER_USED = re.compile(r"\b(?:FOREIGN\s+KEY|PRIMARY\s+KEY|REFERENCES|ADD\s+COLUMN)\b", re.I)
_COMMENT = re.compile(rf"COMMENT\s+ON\s+(?P<kind>TABLE|VIEW|MATERIALIZED\s+VIEW|COLUMN)\s+(?P<name>{_NAME})", re.I)


def statement_label(text: str) -> str | None:
    """Name a statement the DDL connector reads, for messages; ``None`` for the rest.

    Read are ``CREATE TABLE``/``VIEW``, ``ALTER TABLE`` that adds keys or columns, and
    ``COMMENT ON`` a table, view or column. Everything else (indexes, sequences,
    grants, data, functions) says nothing the catalog keeps.

    >>> statement_label('CREATE UNLOGGED TABLE IF NOT EXISTS "Sales".orders (id int)')
    'CREATE TABLE "Sales".orders'
    >>> statement_label("ALTER TABLE ONLY a ADD CONSTRAINT f FOREIGN KEY (x) REFERENCES b")
    'ALTER TABLE a'
    >>> statement_label("ALTER TABLE a OWNER TO admin") is None
    True
    """
    if match := _CREATE.match(text):
        return f"CREATE {match['kind'].upper()} {match['name'] or ''}".rstrip()
    if (match := _ALTER.match(text)) and _ALTER_USED.search(text):
        return f"ALTER TABLE {match['name'] or ''}".rstrip()
    if match := _COMMENT.match(text):
        return f"COMMENT ON {' '.join(match['kind'].upper().split())} {match['name']}"
    return None
