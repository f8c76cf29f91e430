"""A small JSON form of a query, for models that write JSON more reliably than SQL.

``{"table": "documents", "filter": [["status", "=", "Final"]], "group_by": ["type"],
"count": true, "order_by": [["count", "desc"]], "limit": 10}`` compiles to one
SELECT, built as a sqlglot tree (values become literals, never SQL text), that then
goes through the same guard as SQL written by hand.
"""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from ..errors import InvalidInput
from .guard import DIALECT

KEYS = ("table", "select", "filter", "group_by", "count", "order_by", "limit")
OPERATORS = ("=", "!=", "<", "<=", ">", ">=", "in", "not in", "contains", "like", "is null", "is not null")
_COMPARE = {"=": exp.EQ, "!=": exp.NEQ, "<": exp.LT, "<=": exp.LTE, ">": exp.GT, ">=": exp.GTE}
_HINT = (
    'Send {"filter": [[column, op, value], ...], "group_by": [column, ...], "count": true, '
    '"order_by": [[column or "count", "asc" or "desc"]], "limit": n}; ops: ' + ", ".join(OPERATORS) + "."
)


def compile_query(form: dict[str, Any], default_table: str, list_columns: frozenset[str] = frozenset()) -> str:
    """The SQL of a JSON query form.

    Args:
        form: the form; unknown keys are refused rather than ignored.
        default_table: the table when the form names none.
        list_columns: columns holding lists: ``contains`` tests membership there.

    >>> compile_query({"filter": [["status", "=", "Final"]], "group_by": ["type"], "count": True,
    ...                "order_by": [["count", "desc"]], "limit": 3}, "documents")
    "SELECT type, COUNT(*) AS count FROM documents WHERE status = 'Final' GROUP BY type ORDER BY count DESC LIMIT 3"

    Raises:
        InvalidInput: the form is not of this shape; the message says which part.
    """
    if not isinstance(form, dict):
        raise InvalidInput("The query form must be a JSON object.", hint=_HINT)
    unknown = [k for k in form if k not in KEYS]
    if unknown:
        raise InvalidInput(f"Unknown key(s) in the query form: {', '.join(map(str, unknown))}.", hint=_HINT)
    group_by = _names(form.get("group_by", []), "group_by")
    count = form.get("count", False)
    if not isinstance(count, bool):
        raise InvalidInput(f"count must be true or false, not {count!r}.", hint=_HINT)
    projection: list[exp.Expression] = [exp.column(c) for c in group_by or _names(form.get("select", []), "select")]
    if count:
        projection.append(exp.alias_(exp.Count(this=exp.Star()), "count"))
    query = exp.select(*(projection or [exp.Star()])).from_(_name(form.get("table") or default_table, "table"))
    filters = form.get("filter") or []
    if not isinstance(filters, list):
        raise InvalidInput(f"filter must be a list of [column, op, value]; got {filters!r}.", hint=_HINT)
    for condition in filters:
        query = query.where(_condition(condition, list_columns))
    if group_by:
        query = query.group_by(*(exp.column(c) for c in group_by))  # trees, never SQL text
    for order in _list(form.get("order_by", []), "order_by"):
        if isinstance(order, str):
            order = [order]
        if not isinstance(order, list) or not 1 <= len(order) <= 2:
            raise InvalidInput(f"An order_by item must be a column or [column, direction]; got {order!r}.", hint=_HINT)
        column, direction = (order + ["asc"])[:2]
        if str(direction).lower() not in ("asc", "desc"):
            raise InvalidInput(f"order_by direction {direction!r} is not asc or desc.", hint=_HINT)
        ordered = exp.Ordered(this=exp.column(_name(column, "order_by")), desc=str(direction).lower() == "desc")
        query = query.order_by(ordered)
    if form.get("limit") is not None:
        limit = form["limit"]
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
            raise InvalidInput(f"limit must be a positive integer, not {limit!r}.", hint=_HINT)
        query = query.limit(limit)
    return query.sql(dialect=DIALECT)


def _condition(condition: Any, list_columns: frozenset[str]) -> exp.Expression:
    if isinstance(condition, dict):
        condition = [condition.get("field") or condition.get("column"), condition.get("op"), condition.get("value")]
    if not isinstance(condition, (list, tuple)) or len(condition) not in (2, 3):
        raise InvalidInput(f"A filter must be [column, op, value]; got {condition!r}.", hint=_HINT)
    column, op, value = (list(condition) + [None])[:3]
    name, op = _name(column, "filter"), str(op).lower().strip()
    target = exp.column(name)
    if op in ("=", "!=") and value is None:  # "= NULL" matches nothing; what is meant is IS NULL
        op = "is null" if op == "=" else "is not null"
    if op in _COMPARE:
        if value is None:
            raise InvalidInput(f"{op!r} needs a value for {name}.", hint=_HINT)
        return _COMPARE[op](this=target, expression=_value(value))
    if op in ("in", "not in"):
        if not isinstance(value, list) or not value:
            raise InvalidInput(f"{op!r} needs a non-empty list of values for {name}.", hint=_HINT)
        found = exp.In(this=target, expressions=[_value(v) for v in value])
        return exp.Not(this=found) if op == "not in" else found
    if op == "contains":
        if value is None or isinstance(value, bool):
            raise InvalidInput(f"'contains' needs a string or number for {name}.", hint=_HINT)
        if name in list_columns:
            return exp.ArrayContains(this=target, expression=_value(value))
        # Case-insensitive substring: LIKE's own wildcards in the value are escaped, not obeyed.
        escaped = str(value).lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        text = exp.Lower(this=exp.Cast(this=target, to=exp.DataType.build("VARCHAR")))
        return exp.Escape(
            this=exp.Like(this=text, expression=exp.Literal.string(f"%{escaped}%")), expression=exp.Literal.string("\\")
        )
    if op == "like":
        return exp.Like(this=target, expression=_value(value))
    if op in ("is null", "is not null"):
        found = exp.Is(this=target, expression=exp.Null())
        return exp.Not(this=found) if op == "is not null" else found
    raise InvalidInput(f"Unknown filter operator {op!r}.", hint=_HINT)


def _value(value: Any) -> exp.Expression:
    if value is None or isinstance(value, (bool, int, float, str)):
        return exp.convert(value)
    raise InvalidInput(f"A filter value must be a string, number, boolean or null; got {value!r}.", hint=_HINT)


def _names(value: Any, key: str) -> list[str]:
    return [_name(v, key) for v in _list(value, key)]


def _list(value: Any, key: str) -> list[Any]:
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list):
        raise InvalidInput(f"{key} must be a list; got {value!r}.", hint=_HINT)
    return value


def _name(value: Any, key: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"{key} needs column names as strings; got {value!r}.", hint=_HINT)
    return value.strip()
