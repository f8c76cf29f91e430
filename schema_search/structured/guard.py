"""Which SQL may run over a collection: one read-only SELECT, its tables only, allowed functions only.

The statement is checked on sqlglot's parse tree by the same validator as SQL for a
database (:func:`~schema_search.sql.validate.validate_sql`: exactly one read-only
query; unknown tables, table functions and file paths in ``FROM`` refused; unknown
columns named with the closest real ones), then every function in it must be on
an allowlist. The list is what counting, filtering and grouping need; anything else
(file readers, ``getenv``, ``query``, ``repeat``, ``lpad``, ``range``...) is refused
before DuckDB sees it. The engine is locked down besides (:mod:`.engine`), and both run
in a child process that is capped in memory and killed at the deadline (:mod:`.sandbox`).
"""

from __future__ import annotations

import sqlglot
from sqlglot import exp

from ..errors import QueryRefused
from ..sql.functions import allowed_functions, function_name
from ..sql.validate import validate_sql
from .collection import Collection

DIALECT = "duckdb"

# What the allowlist is made of: parsed with sqlglot, so the names are the ones it gives
# these functions in any spelling (``len``/``length``, ``list``/``array_agg``...).
_ALLOWED_SQL = """SELECT
  count(*), count(DISTINCT a), sum(a), avg(a), min(a), max(a), median(a), mode(a), stddev(a), count_if(a),
  bool_or(a), bool_and(a), first(a), any_value(a), string_agg(a, ','), list(a), array_agg(a), quantile_cont(a, 0.5),
  row_number() OVER (), rank() OVER (ORDER BY a), dense_rank() OVER (), lag(a) OVER (),
  lower(a), upper(a), length(a), strlen(a), trim(a), ltrim(a), rtrim(a), substr(a, 1, 2), replace(a, 'x', 'y'),
  concat(a, b), left(a, 2), right(a, 2), reverse(a), split_part(a, ',', 1), strpos(a, 'x'),
  contains(a, 'x'), starts_with(a, 'x'), ends_with(a, 'x'), regexp_matches(a, 'x'), regexp_extract(a, 'x'),
  regexp_replace(a, 'x', 'y'), string_split(a, ','),
  coalesce(a, b), nullif(a, b), ifnull(a, b), if(a, 1, 2), greatest(a, b), least(a, b), CASE WHEN a THEN 1 END,
  CAST(a AS INT), TRY_CAST(a AS INT), abs(a), round(a, 1), floor(a), ceil(a), sign(a), sqrt(a), ln(a), log(a), power(a, 2),
  year(d), month(d), day(d), quarter(d), week(d), dayofweek(d), date_part('year', d), EXTRACT(year FROM d),
  date_trunc('month', d), date_diff('day', d, d), strftime(d, '%Y'), strptime(a, '%d'), try_strptime(a, '%d'),
  to_date(a), age(d), current_date, now(),
  unnest(l), len(l), array_length(l), list_contains(l, 'x'), list_has_any(l, ['x']), list_sort(l),
  list_distinct(l), array_to_string(l, ','), flatten(l), list_count(l),
  a AND b OR NOT c, a BETWEEN 1 AND 2, a IN (1, 2), a LIKE 'x', a ILIKE 'x', a NOT LIKE 'x', a IS NULL, a || b,
  -a + b * c / d - e % 2, a = b, a <> b, a < b, a <= b, a > b, a >= b, a IS DISTINCT FROM b, l[1], (a)
FROM t"""
ALLOWED_FUNCTIONS = frozenset(
    function_name(f) for f in sqlglot.parse_one(_ALLOWED_SQL, read=DIALECT).find_all(exp.Func)
)


def checked_sql(sql: str, collection: Collection) -> tuple[str, exp.Query]:
    """The statement to run (re-generated from its parse tree) and the tree, when ``sql`` may run.

    Raises:
        QueryRefused: not one read-only query over the collection's tables, or a
            function outside the allowlist; the message says which and what to use.
    """
    validation = validate_sql(sql, DIALECT, collection.as_catalog())
    if not validation.ok:
        raise QueryRefused(f"Refusing this SQL: {validation.problems()}", hint=_hint(collection))
    tree = sqlglot.parse_one(validation.sql, read=DIALECT)
    for function in tree.find_all(exp.Func):
        name = function_name(function)
        if name not in ALLOWED_FUNCTIONS:
            raise QueryRefused(
                f"Refusing this SQL: the function {name}() is not allowed over a collection.",
                hint="Use counting, filtering and grouping functions: count, sum, avg, min, max, lower, "
                "contains, year, unnest, list_contains, string_split, coalesce, ...",
            )
    return validation.sql, tree


def _hint(collection: Collection) -> str:
    tables = "; ".join(f"{t.name}({', '.join(c.name for c in t.columns)})" for t in collection.tables)
    return f"Write one SELECT over {tables}."


def warm() -> None:
    """Build what the first query would otherwise build on its own deadline: the dialect's
    function list (parsing and regenerating every entry, a fraction of a second on an idle core)."""
    allowed_functions(DIALECT)
