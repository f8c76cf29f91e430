"""The functions SQL for a database may call: built-in and free of side effects.

A denylist of dangerous functions is never complete: every release adds some, and a
database may hold functions an attacker planted (``SELECT public.report_total()`` that
writes files as the superuser who owns it). So :func:`~schema_search.sql.validate.validate_sql`
lets through only the functions listed here, which is what answering questions needs:
aggregates, windows, string, number, date and JSON functions, ``CASE``, ``CAST`` and the
operators. The list is written as SQL and parsed with sqlglot in the dialect being
checked, so every spelling (``substr``/``substring``, ``iif``/``if``, ``instr``/``strpos``)
gets the name sqlglot gives it there; an expression a dialect cannot parse is simply not
part of its list.

What is left out on purpose: functions that read files or the environment, run SQL
given as text, change settings, sleep, lock, signal other sessions, touch sequences or
large objects, and the ones whose only use is to make huge values (``randomblob``,
``zeroblob``, ``repeat``, ``lpad``, ``generate_series``, and ``printf``/``format``, whose
width can be a billion).
"""

from __future__ import annotations

from functools import lru_cache

import sqlglot
from sqlglot import exp
from sqlglot.errors import ErrorLevel, SqlglotError

# One expression per entry; `a`, `b` are columns, `d` a date, `j` JSON, `l` a list.
_COMMON = """
count(*) | count(DISTINCT a) | sum(a) | avg(a) | min(a) | max(a) | total(a) | group_concat(a) | group_concat(a, ',') | first(a)
string_agg(a, ',') | array_agg(a) | median(a) | stddev(a) | stddev_pop(a) | stddev_samp(a) | variance(a)
var_pop(a) | var_samp(a) | bool_and(a) | bool_or(a) | every(a) | count_if(a) | any_value(a) | corr(a, b)
covar_pop(a, b) | covar_samp(a, b) | percentile_cont(0.5) WITHIN GROUP (ORDER BY a)
percentile_disc(0.5) WITHIN GROUP (ORDER BY a) | mode() WITHIN GROUP (ORDER BY a) | quantile_cont(a, 0.5)
row_number() OVER () | rank() OVER (ORDER BY a) | dense_rank() OVER () | percent_rank() OVER () | cume_dist() OVER ()
ntile(4) OVER () | lag(a) OVER () | lead(a, 1) OVER () | first_value(a) OVER () | last_value(a) OVER ()
nth_value(a, 2) OVER () | sum(a) FILTER (WHERE b > 1)
lower(a) | upper(a) | length(a) | char_length(a) | character_length(a) | octet_length(a) | trim(a) | ltrim(a)
rtrim(a) | btrim(a) | trim(BOTH 'x' FROM a) | substr(a, 1, 2) | substring(a, 1, 2) | substring(a FROM 1 FOR 2)
replace(a, 'x', 'y') | concat(a, b) | concat_ws(',', a, b) | left(a, 2) | right(a, 2) | reverse(a) | instr(a, 'x')
strpos(a, 'x') | position('x' IN a) | split_part(a, ',', 1) | initcap(a) | translate(a, 'x', 'y') | ascii(a) | chr(65)
char(65) | unicode(a) | hex(a) | quote(a) | md5(a) | to_char(d, 'YYYY')
to_number(a, '999') | starts_with(a, 'x') | ends_with(a, 'x') | contains(a, 'x') | regexp_replace(a, 'x', 'y')
regexp_like(a, 'x') | regexp_matches(a, 'x') | regexp_extract(a, 'x') | regexp_substr(a, 'x') | string_split(a, ',')
string_to_array(a, ',') | strlen(a) | prefix(a, 'x') | suffix(a, 'x') | like(a, 'x')
abs(a) | round(a) | round(a, 1) | floor(a) | ceil(a) | ceiling(a) | sign(a) | sqrt(a) | power(a, 2) | pow(a, 2)
exp(a) | ln(a) | log(a) | log10(a) | log2(a) | mod(a, 2) | trunc(a) | greatest(a, b) | least(a, b) | pi()
degrees(a) | radians(a) | sin(a) | cos(a) | tan(a) | asin(a) | acos(a) | atan(a) | atan2(a, b) | random() | div(a, b)
coalesce(a, b) | nullif(a, b) | ifnull(a, b) | nvl(a, b) | iif(a, 1, 2) | if(a, 1, 2) | CASE WHEN a THEN 1 ELSE 2 END
CASE a WHEN 1 THEN 2 END | CAST(a AS INT) | CAST(a AS REAL) | CAST(a AS TEXT) | TRY_CAST(a AS INT) | a::int
typeof(a) | EXISTS (SELECT 1) | a IN (SELECT 1)
date(a) | time(a) | datetime(a) | julianday(a) | strftime('%Y', a) | strftime(d, '%Y') | unixepoch(a)
strftime('%Y-%m', a, '-1 month') | date(a, 'start of month', '-1 month') | datetime(a, '-1 day')
current_date | current_time | current_timestamp | localtimestamp | now() | date_trunc('month', d)
date_part('year', d) | EXTRACT(year FROM d) | age(d) | age(d, d) | make_date(2020, 1, 1) | to_date(a, 'YYYY')
to_date(a) | to_timestamp(a) | year(d) | month(d) | day(d) | quarter(d) | week(d) | dayofweek(d) | dayofyear(d)
hour(d) | minute(d) | second(d) | date_diff('day', d, d) | datediff('day', d, d) | date_add(d, INTERVAL 1 DAY)
d + INTERVAL '1 day' | strptime(a, '%d') | try_strptime(a, '%d') | d AT TIME ZONE 'UTC' | epoch(d) | last_day(d)
json_extract(j, '$.x') | j -> 'x' | j ->> 'x' | json_array_length(j) | jsonb_array_length(j) | json_typeof(j)
jsonb_typeof(j) | json_extract_path_text(j, 'x') | jsonb_extract_path_text(j, 'x')
unnest(l) | len(l) | array_length(l) | array_length(l, 1) | cardinality(l) | array_to_string(l, ',') | list(a)
list_contains(l, 'x') | list_has_any(l, ['x']) | list_sort(l) | list_distinct(l) | flatten(l) | list_count(l)
list_transform(l, x -> x) | regexp_extract_all(a, 'x')
array_contains(l, 'x') | a = ANY(l) | l[1]
a AND b OR NOT c | a BETWEEN 1 AND 2 | a IN (1, 2) | a LIKE 'x' | a ILIKE 'x' | a NOT LIKE 'x' | a GLOB 'x'
a SIMILAR TO 'x' | a ~ 'x' | a IS NULL | a || b | -a + b * c / d - e % 2 | a = b | a <> b | a < b | a <= b
a > b | a >= b | a IS DISTINCT FROM b | (a) | a COLLATE "C"
"""

_ENTRIES = tuple(e.strip() for line in _COMMON.strip().splitlines() for e in line.split("|") if e.strip())


def function_name(function: exp.Func) -> str:
    """A function node's name as the allowlist knows it (sqlglot's, lower case)."""
    if isinstance(function, exp.Anonymous):
        return str(function.name).lower()
    return function.sql_name().lower()


@lru_cache(maxsize=16)
def allowed_functions(dialect: str | None) -> frozenset[str]:
    """The names of the functions SQL in ``dialect`` may call.

    Only what the dialect writes back as it was written: the statement that runs is the one
    regenerated from the checked tree, so an entry sqlglot cannot regenerate in ``dialect``
    (``to_char`` for SQLite), or regenerates into functions of no entry (DuckDB has no
    ``initcap``: it is written as a ``list_transform`` over a lambda, itself an entry), is not
    part of its list.

    >>> {"count", "substring", "cast"} <= allowed_functions("sqlite")
    True
    >>> "pg_read_file" in allowed_functions("postgres"), "randomblob" in allowed_functions("sqlite")
    (False, False)
    >>> "to_number" in allowed_functions("postgres"), "to_number" in allowed_functions("sqlite")
    (True, False)
    """
    entries: list[tuple[set[str], set[str]]] = []  # (functions written, functions regenerated)
    for entry in _ENTRIES:
        try:
            tree = sqlglot.parse_one(f"SELECT {entry} FROM t", read=dialect)
        except (SqlglotError, ValueError):
            continue  # not this dialect's syntax: not part of its list
        try:
            again = sqlglot.parse_one(tree.sql(dialect=dialect, unsupported_level=ErrorLevel.RAISE), read=dialect)
        except Exception:  # noqa: BLE001 - sqlglot cannot write it in this dialect, however it fails
            continue
        entries.append(
            ({function_name(f) for f in tree.find_all(exp.Func)}, {function_name(f) for f in again.find_all(exp.Func)})
        )
    while True:  # drop entries whose regeneration needs functions no kept entry allows, until none is left
        names = set().union(*(written for written, _ in entries))
        kept = [(written, again) for written, again in entries if again <= names]
        if len(kept) == len(entries):
            return frozenset(names)
        entries = kept


@lru_cache(maxsize=1)
def _anywhere() -> frozenset[str]:
    """Every entry's functions as the generic dialect reads them: only to word a refusal, so one
    parse per entry, not each dialect's round trips (a second of work on a cold process)."""
    names: set[str] = set()
    for entry in _ENTRIES:
        try:
            names |= {function_name(f) for f in sqlglot.parse_one(f"SELECT {entry} FROM t").find_all(exp.Func)}
        except (SqlglotError, ValueError):
            continue
    return frozenset(names)


def allowed_somewhere(name: str) -> bool:
    """Whether ``name`` is on the list of some dialect: refused in another, it is missing there, not dangerous.

    >>> allowed_somewhere("to_number"), allowed_somewhere("pg_sleep")
    (True, False)
    """
    return name in _anywhere()
