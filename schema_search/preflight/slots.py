"""The assumptions a query makes, as slots: what the SQL takes for granted before it runs.

:func:`slots` lists, from the parse tree of a query that
:func:`~schema_search.sql.validate.validate_sql` accepted (the very tree it checked), one slot per table it reads,
per column it names, per literal it compares a column with, per time filter (and per use
of the database's clock), per literal that no comparison with a column explains (a value
in a subquery or a CTE, a function's argument: ``literal:N``), and one for the row limit. :mod:`.checklist` then looks each
slot's value up (the question, the operator's instructions, defaults, the database, the
conversation) and turns the slots it cannot fill into questions for the user.

Everything is read off sqlglot's tree, never by matching the SQL text, and column
references are resolved through aliases, CTEs and derived tables to
``schema.table.column``, so two spellings of one filter give one key. Pure: no I/O.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field
from sqlglot import exp
from sqlglot.errors import SqlglotError
from sqlglot.optimizer.scope import Scope, traverse_scope

from ..sql.functions import function_name
from ..sql.validate import Parsed
from ..tables.catalog import Table

SlotKind = Literal["table", "column", "value", "time", "limit"]
SlotSource = Literal["catalog", "question", "instructions", "defaults", "database", "conversation"]
# How a literal was written: a probe compares '01234' as text and 1234 as a number.
LiteralKind = Literal["string", "number", "boolean"]

_COMPARISONS: dict[type, str] = {
    exp.EQ: "=",
    exp.NullSafeEQ: "=",
    exp.NEQ: "<>",
    exp.NullSafeNEQ: "<>",
    exp.GT: ">",
    exp.GTE: ">=",
    exp.LT: "<",
    exp.LTE: "<=",
    exp.Like: "like",
    exp.ILike: "ilike",
    exp.Glob: "glob",
    exp.RegexpLike: "regexp",
    exp.RegexpILike: "iregexp",
    exp.SimilarTo: "similar to",
}
# Where a condition filters rows; a comparison elsewhere (a CASE, the select list) filters nothing.
_FILTERS = (exp.Where, exp.Having, exp.Qualify)
# Functions whose string arguments are formats or paths, not values: printf('%.2f', x).
_FORMAT_FUNCTIONS = frozenset(
    {
        "printf",
        "format",
        "to_char",
        "to_number",
        "json_extract",
        "json_extract_path",
        "json_extract_path_text",
        "jsonb_extract_path",
        "jsonb_extract_path_text",
    }
)
# Function nodes that are syntax rather than calls: a number under them may still be a filter's value.
_NOT_CALLS = (exp.Connector, exp.Cast, exp.Case, exp.If, exp.Exists, exp.Predicate)
# A printf-style specifier: a string made only of these and punctuation (', ', '%.2f') is layout.
_SPECIFIER = re.compile(r"%[-+ #0]*\d*(?:\.\d+)?[a-zA-Z]")
# The operator seen from the other side: `3 < price` is `price > 3`.
_FLIPPED = {">": "<", ">=": "<=", "<": ">", "<=": ">="}
# Nodes whose value is the database's idea of now, in its own time zone.
_CLOCK_NODES = (exp.CurrentDate, exp.CurrentTimestamp, exp.CurrentTime, exp.CurrentDatetime, exp.CurrentTimestampLTZ)
_CLOCK_FUNCTIONS = frozenset(
    {
        "now",
        "today",
        "getdate",
        "sysdate",
        "localtimestamp",
        "localtime",
        "transaction_timestamp",
        "statement_timestamp",
        "clock_timestamp",
        "current_date",
        "current_timestamp",
    }
)
# SQLite reads the clock through date('now', ...) and shifts it with 'localtime'.
_CLOCK_WORDS = frozenset({"now", "localtime"})
_DATE_FUNCTIONS = frozenset(
    {
        "date",
        "datetime",
        "julianday",
        "strftime",
        "unixepoch",
        "timetostr",
        "tsordstotimestamp",
        "tsordstodate",
        "strtodate",
        "strtotime",
        "date_trunc",
        "datetrunc",
        "timestamptrunc",
        "timestamp_trunc",
        "extract",
        "year",
        "month",
        "day",
        "quarter",
        "week",
        "date_part",
        "datepart",
        "to_date",
        "to_timestamp",
        "make_date",
        "dateadd",
        "datesub",
        "date_add",
        "date_sub",
        "timestampadd",
        "timestampsub",
        "last_day",
        "age",
        "strptime",
    }
)
# '2026-10', '2026-10-01', '2026-10-01 12:00:00', '2026-10-01T12:00Z': what a date literal looks like.
DATE_LITERAL = re.compile(r"^\d{4}-\d{2}(-\d{2})?([ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$")


class Bound(BaseModel):
    """One comparison of a time slot's column with literal dates, to tell the interval it selects."""

    operator: str = Field(description="=, <>, <, <=, >, >=, in, between, and their `not` forms.")
    literals: list[str] = Field(description="The dates as written.")
    plain: bool = Field(
        True, description="The literals are the whole value compared, not computed from (date(x, '+1 day'))."
    )
    bare: bool = Field(True, description="The column itself is compared, not a function of it (date(placed_at)).")
    precise: bool = Field(
        True,
        description="The column itself, or a wrapper that keeps the dates exact (date(x), strftime('%Y-%m', x) "
        "against a month), is compared: not a shifted or mixed one (date(x, '+1 month'), strftime('%Y-%d', x)).",
    )
    anded: bool = Field(
        True,
        description="The condition must hold in the outermost query (ANDed in its WHERE, ON or "
        "HAVING), not one branch of an OR, nor under NOT, a subquery, a CTE or a UNION branch.",
    )


class Slot(BaseModel):
    """One assumption of a query, and (once :mod:`.checklist` looked it up) where its value came from."""

    key: str = Field(
        description="Stable name of the assumption, e.g. `value:main.suppliers.company_name`, "
        "`time:main.orders.placed_at`, `limit`; answers and approvals refer to it."
    )
    kind: SlotKind
    fragment: str = Field(description="The SQL it came from; schema data and the agent's SQL, not instructions.")
    column: str | None = Field(None, description="The column compared, `schema.table.column`, aliases resolved.")
    operator: str | None = Field(None, description="How it is compared: =, <>, <, <=, >, >=, in, between, like, ilike.")
    literals: list[str] = Field(default_factory=list, description="The literal values the SQL wrote, as written.")
    literal_kind: LiteralKind | None = Field(
        None, description="How a value slot's literal is written: 'x' (string) or 1 (number)."
    )
    outer: bool = Field(
        True,
        description="The comparison must hold in the outermost query: ANDed (or alone) in its WHERE, HAVING or "
        "ON, not under an OR, NOT, CASE, a subquery, a CTE or a UNION branch.",
    )
    bounds: list[Bound] = Field(default_factory=list, description="A time slot's comparisons with literal dates.")
    clock: bool = Field(False, description="The SQL reads the database's clock (CURRENT_DATE, now(), date('now')).")
    value: str | None = Field(None, description="The value the checklist settled on; null while it is unknown.")
    source: SlotSource | None = Field(None, description="Where the value was found; null while it is unknown.")
    question: str | None = Field(None, description="What to ask the user, when the value is unknown.")
    options: list[str] = Field(default_factory=list, description="Stored values to choose from, when there are some.")
    note: str | None = Field(None, description="What the user should know about a filled value.")


def slots(parsed: Parsed) -> list[Slot]:
    """The assumptions of a parsed query (``validate_sql(...).parsed``): tables, columns,
    compared values, time filters and the row limit, in that order. Tables are the ones the
    validation resolved, so a slot names the table that was checked.

    >>> from schema_search.sql.validate import validate_sql
    >>> from schema_search.tables.catalog import Catalog, Column
    >>> shop = Catalog("shop", (Table("main", "orders", columns=(Column("status"), Column("placed_at"))),))
    >>> [(s.key, s.literals) for s in slots(validate_sql(
    ...     "SELECT * FROM orders o WHERE o.status = 'paid' AND placed_at >= '2026-10-01' LIMIT 5", "sqlite", shop).parsed)]
    ... # doctest: +NORMALIZE_WHITESPACE
    [('table:main.orders', []), ('column:main.orders.status', []), ('column:main.orders.placed_at', []),
     ('value:main.orders.status', ['paid']), ('time:main.orders.placed_at', ['2026-10-01']), ('limit', ['5'])]
    """
    tree, resolved, dialect = parsed.tree, parsed.tables, parsed.dialect
    scopes = _scopes(tree)
    where = {id(column): scope for scope in scopes for column in scope.columns}

    def column_id(column: exp.Column) -> str | None:
        scope = where.get(id(column))
        return _resolve(column.name.lower(), column.table.lower(), scope, resolved) if scope else None

    found: dict[str, Slot] = {}
    for node in tree.find_all(exp.Table, bfs=False):  # in the order the SQL reads
        table = resolved.get(id(node))
        if table is not None:
            key = f"table:{table.id}"
            found.setdefault(key, Slot(key=key, kind="table", fragment=node.sql(dialect=dialect), value=table.id))
    for column in tree.find_all(exp.Column, bfs=False):
        cid = column_id(column)
        if cid is not None:
            key = f"column:{cid}"
            found.setdefault(
                key, Slot(key=key, kind="column", fragment=column.sql(dialect=dialect), column=cid, value=cid)
            )
    compared: list[Slot] = []
    covered: set[int] = set()
    for node in tree.find_all(*_COMPARISONS, exp.In, exp.Between, bfs=False):
        made, claimed = _compared(node, dialect, column_id, tree)
        if made:
            compared += made
            covered.update(claimed)
    compared += [
        _clock_slot(node, dialect)
        for node in tree.walk(bfs=False)
        if id(node) not in covered and _is_clock(node) and not _inside_clock(node)
    ]
    for slot in _merged_times(_numbered(compared)):
        found[slot.key] = slot
    for slot in _loose_literals(tree, covered, dialect):
        found[slot.key] = slot
    limit = _limit(tree, dialect)  # a LIMIT of a subquery is a literal of its own (see _structural)
    found[limit.key] = limit
    return list(found.values())


# -- columns through aliases, CTEs and derived tables ---------------------------------


def _scopes(tree: exp.Expression) -> list[Scope]:
    try:
        return list(traverse_scope(tree))
    except (SqlglotError, KeyError, AttributeError, TypeError, ValueError):
        return []  # validate_sql let it through with a warning; its columns keep their written names


def _resolve(name: str, alias: str, scope: Scope, resolved: dict[int, Table], depth: int = 0) -> str | None:
    """``schema.table.column`` of a column named ``alias.name`` (or bare ``name``) in ``scope``."""
    if depth > 16:
        return None
    source = _source(scope, alias, name, resolved)
    if isinstance(source, exp.Table):
        table = resolved.get(id(source))
        column = table.column(name) if table is not None else None
        return f"{table.id}.{column.name.lower()}" if column is not None else None
    if isinstance(source, Scope) and isinstance(source.expression, exp.Select):
        for select in source.expression.selects:
            if select.alias_or_name.lower() == name:
                inner = select.this if isinstance(select, exp.Alias) else select
                if isinstance(inner, exp.Column):  # a pass-through column: follow it down
                    return _resolve(inner.name.lower(), inner.table.lower(), source, resolved, depth + 1)
    return None


def _source(scope: Scope, alias: str, name: str, resolved: dict[int, Table]) -> exp.Expression | Scope | None:
    """What a column reads from: the source its qualifier names, or the one source (this
    scope first, then the enclosing ones, for a correlated subquery) that has the column."""
    while scope is not None:
        if alias:
            if alias in scope.sources:
                return scope.sources[alias]
        else:
            holders = [source for _, source in scope.selected_sources.values() if name in _columns(source, resolved)]
            if len(holders) == 1:
                return holders[0]
            if holders:
                return None
        scope = scope.parent
    return None


def _columns(source: exp.Expression | Scope, resolved: dict[int, Table]) -> set[str]:
    if isinstance(source, exp.Table):
        table = resolved.get(id(source))
        return {c.name.lower() for c in table.columns} if table is not None else set()
    if isinstance(source, Scope) and isinstance(source.expression, exp.Query):
        return {n.lower() for n in source.expression.named_selects}
    return set()


# -- comparisons ---------------------------------------------------------------------


def _compared(
    node: exp.Expression, dialect: str | None, column_id, root: exp.Expression
) -> tuple[list[Slot], set[int]]:
    """The slots of one comparison of a column with values (none when it compares two
    columns), and the ids of the nodes they account for."""
    negated = "not " if isinstance(node.parent, exp.Not) else ""
    outer = node.parent if negated else node
    fragment, anded = outer.sql(dialect=dialect), _anded(outer, root)
    if isinstance(node, exp.In):
        if node.args.get("query") or node.args.get("unnest") or node.args.get("field"):
            return [], set()
        column = _the_column(node.this)
        values = [_literal_of(e, dialect) for e in node.expressions]
        if column is None or any(v is None for v in values):
            return [], set()
        operator, literals = negated + "in", [v[0] for v in values]
        slot = _slot(column, operator, literals, fragment, dialect, column_id, node.this)
        if slot.kind == "time":  # one set of days, not one slot per day
            return [_bounded(slot, operator, literals, True, node.this, anded)], _claimed(node, node.this)
        return (
            [slot.model_copy(update={"literals": [v], "literal_kind": k, "outer": anded}) for v, k in values],
            _claimed(node, node.this),
        )
    if isinstance(node, exp.Between):
        column = _the_column(node.this)
        low, high = _literal_of(node.args["low"], dialect), _literal_of(node.args["high"], dialect)
        if column is None or low is None or high is None:
            return [], set()
        operator = negated + "between"
        slot = _slot(
            column, operator, [low[0], high[0]], fragment, dialect, column_id, node.this, clock=_reads_clock(node)
        )
        if slot.kind == "time":
            return [_bounded(slot, operator, slot.literals, True, node.this, anded)], _claimed(node, node.this)
        return (
            [slot.model_copy(update={"literals": [v], "literal_kind": k, "outer": anded}) for v, k in (low, high)],
            _claimed(node, node.this),
        )
    operator = _COMPARISONS[type(node)]
    left, right = node.this, node.expression
    if _the_column(left) is None and _the_column(right) is not None:
        left, right = right, left
        operator = _FLIPPED.get(operator, operator)
    column = _the_column(left)
    if column is None or right.find(exp.Column) is not None or right.find(exp.Query) is not None:
        return [], set()
    clock = _reads_clock(right)
    value = _literal_of(right, dialect)
    if (
        value is not None
        and value[0] in ("0", "1")
        and value[1] == "number"
        and _anded(outer)
        and not isinstance(_unwrapped(left), exp.Column)
        and not _is_date_expression(left)
    ):
        return [], _claimed(node, left)  # instr(name, 'GmbH') > 0: a test of a function's result, layout
    prefix = _date_prefix(value[0], operator) if value is not None and not negated else None
    if prefix is not None:  # placed_at LIKE '2026-10%': the days of October 2026
        slot = _slot(column, operator, [prefix], fragment, dialect, column_id, left, kind="time")
        return [_bounded(slot, "=", [prefix], True, left, anded)], _claimed(node, left)
    day = value or _date_literal(right)
    literals = [day[0]] if day else [v for v in _string_literals(right) if DATE_LITERAL.match(v)]
    kind_hint = "time" if clock or value is None and _is_date_expression(right) else None
    slot = _slot(column, negated + operator, literals, fragment, dialect, column_id, left, clock=clock, kind=kind_hint)
    if slot.kind == "time":
        return [_bounded(slot, negated + operator, literals, day is not None, left, anded)], _claimed(node, left)
    return [slot.model_copy(update={"literal_kind": value[1] if value else None, "outer": anded})], _claimed(node, left)


def _date_prefix(pattern: str, operator: str) -> str | None:
    """The date a pattern selects by its leading characters: ``'2026-10%'`` (LIKE) or ``'2026-10*'`` (GLOB) is ``2026-10``."""
    wildcard = {"like": "%", "ilike": "%", "glob": "*"}.get(operator)
    match = re.fullmatch(r"(\d{4}(?:-\d{2}(?:-\d{2})?)?)" + re.escape(wildcard or "%"), pattern) if wildcard else None
    return match.group(1) if match else None


def _slot(
    column: exp.Column,
    operator: str,
    literals: list[str],
    fragment: str,
    dialect: str | None,
    column_id,
    side: exp.Expression,
    *,
    clock: bool = False,
    kind: str | None = None,
) -> Slot:
    cid = column_id(column) or column.sql(dialect=dialect).lower()
    datey = _is_date_expression(side) or any(DATE_LITERAL.match(v) for v in literals)
    kind = kind or ("time" if clock or datey else "value")
    key = f"{kind}:{cid}"
    return Slot(key=key, kind=kind, fragment=fragment, column=cid, operator=operator, literals=literals, clock=clock)


def _bounded(slot: Slot, operator: str, literals: list[str], plain: bool, side: exp.Expression, anded: bool) -> Slot:
    """A time slot with its one comparison as a bound (none when it reads the clock: there are no dates to hold)."""
    if slot.clock:
        return slot
    bare, precise = isinstance(_unwrapped(side), exp.Column), _precise(side, literals)
    bound = Bound(operator=operator, literals=literals, plain=plain, bare=bare, precise=precise, anded=anded)
    return slot.model_copy(update={"bounds": [bound]})


def _claimed(node: exp.Expression, column_side: exp.Expression) -> set[int]:
    """What a comparison accounts for: all of it but the values inside its column's side
    (``instr(s.company_name, 'GmbH') > 0``: 'GmbH' is an assumption of its own)."""
    own = {id(n) for n in column_side.walk() if isinstance(n, exp.Literal) and not _structural(n)}
    return {id(n) for n in node.walk()} - own


def _anded(node: exp.Expression, root: exp.Expression | None = None) -> bool:
    """Whether ``node`` is a condition rows must meet: ANDed (or alone) in a WHERE, HAVING,
    QUALIFY or a join's ON; not one branch of an OR, a NOT, a CASE or a select list. With
    ``root``, the filter must also be the outermost query's (``root`` itself), not one of a
    subquery, a CTE or a UNION branch: only there does it decide which rows come back."""
    child, parent = node, node.parent
    while isinstance(parent, (exp.And, exp.Paren)):
        child, parent = parent, parent.parent
    filtered = isinstance(parent, _FILTERS) or (isinstance(parent, exp.Join) and child.arg_key == "on")
    if not filtered or root is None:
        return filtered
    return parent.parent is root


# Date formats that keep the column's own precision, and the length of the literal each yields.
_PRECISE_FORMATS = {"%Y": 4, "%Y-%m": 7, "%Y-%m-%d": 10}


def _precise(side: exp.Expression, literals: list[str]) -> bool:
    """Whether a time comparison's side is the column itself or a wrapper that keeps what it
    is compared with exact: ``date(x)``, ``datetime(x)`` (one argument), ``strftime('%Y-%m', x)``
    against a ``'2026-10'``, ``substr(x, 1, 7)`` against one of 7 characters. A modifier
    (``date(x, '+1 month')``) or another format (``'%Y-%d'``) moves or mixes the dates."""
    side = _unwrapped(side)
    if isinstance(side, exp.Column):
        return True
    if isinstance(side, exp.Date) and isinstance(_unwrapped(side.this), exp.Column) and not side.expressions:
        return not side.args.get("zone")
    if isinstance(side, exp.Anonymous) and side.name.lower() in ("date", "datetime"):
        return len(side.expressions) == 1 and isinstance(_unwrapped(side.expressions[0]), exp.Column)
    lengths = {len(v) for v in literals}
    if isinstance(side, exp.TimeToStr):
        inner, fmt = side.this, side.args.get("format")
        if isinstance(inner, (exp.TsOrDsToTimestamp, exp.TsOrDsToDate)):
            inner = inner.this
        if not isinstance(_unwrapped(inner), exp.Column) or not isinstance(fmt, exp.Literal):
            return False
        return fmt.name in _PRECISE_FORMATS and lengths == {_PRECISE_FORMATS[fmt.name]}
    if isinstance(side, exp.Substring) and isinstance(_unwrapped(side.this), exp.Column):
        start, length = _literal(side.args.get("start") or exp.null(), None), side.args.get("length")
        size = _literal(length, None) if length is not None else None
        return start == "1" and size in ("4", "7", "10") and lengths == {int(size)}
    return False


def _the_column(side: exp.Expression) -> exp.Column | None:
    """The one column a comparison's side is about (``lower(s.name)``, ``strftime('%Y', o.placed_at)``)."""
    if side.find(exp.Query) is not None:
        return None
    columns = list(side.find_all(exp.Column))
    names = {c.sql().lower() for c in columns}
    return columns[0] if len(names) == 1 else None


def _unwrapped(node: exp.Expression) -> exp.Expression:
    while isinstance(node, exp.Paren):
        node = node.this
    return node


def _literal_of(node: exp.Expression, dialect: str | None) -> tuple[str, LiteralKind] | None:
    """The value of a plain literal (through parentheses, casts and a minus sign), as
    written, and whether it was written as a string, a number or a boolean."""
    while isinstance(node, (exp.Paren, exp.Cast)):
        node = node.this
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal) and not node.this.is_string:
        return "-" + node.this.name, "number"
    if isinstance(node, exp.Literal):
        return node.name, "string" if node.is_string else "number"
    if isinstance(node, exp.Boolean):
        return node.sql(dialect=dialect), "boolean"
    return None


def _literal(node: exp.Expression, dialect: str | None) -> str | None:
    found = _literal_of(node, dialect)
    return found[0] if found else None


def _date_literal(node: exp.Expression) -> tuple[str, LiteralKind] | None:
    """A date written through a function of that one literal and nothing else: ``date('2026-10-01')``."""
    node = _unwrapped(node)
    if isinstance(node, exp.Func) and not isinstance(node, exp.Connector) and _is_date_expression(node):
        arguments = [a for a in node.iter_expressions()]
        if len(arguments) == 1 and isinstance(arguments[0], exp.Literal) and DATE_LITERAL.match(arguments[0].name):
            return arguments[0].name, "string"
    return None


def _string_literals(node: exp.Expression) -> list[str]:
    return [literal.name for literal in node.find_all(exp.Literal) if literal.is_string]


def _is_date_expression(node: exp.Expression) -> bool:
    """Whether a side computes a date: a date function, an interval, a cast to a date type."""
    for part in node.walk():
        if isinstance(part, exp.Interval):
            return True
        if isinstance(part, exp.Cast) and part.to.is_type(*exp.DataType.TEMPORAL_TYPES):
            return True
        if _is_date_function(part):
            return True
    return False


def _is_date_function(node: exp.Expression) -> bool:
    """``node`` itself (not something inside it) is a call of a date function."""
    if isinstance(node, (exp.Extract, exp.TimeToStr, exp.Date, exp.TsOrDsToDate, exp.TsOrDsToTimestamp)):
        return True
    return isinstance(node, exp.Func) and not isinstance(node, exp.Connector) and function_name(node) in _DATE_FUNCTIONS


def _reads_clock(node: exp.Expression) -> bool:
    """Whether ``node`` (or anything in it) asks the database what time it is."""
    return any(_is_clock(part) for part in node.walk())


def _inside_clock(node: exp.Expression) -> bool:
    """A clock expression inside another (``date(datetime('now'))``) is reported once, for the outer one."""
    parent = node.parent
    while parent is not None:
        if _is_clock(parent):
            return True
        parent = parent.parent
    return False


def _is_clock(node: exp.Expression) -> bool:
    if isinstance(node, _CLOCK_NODES):
        return True
    if isinstance(node, exp.Func) and not isinstance(node, exp.Connector):
        if function_name(node) in _CLOCK_FUNCTIONS:
            return True
        return any(
            isinstance(a, exp.Literal) and a.is_string and a.name.lower() in _CLOCK_WORDS
            for a in [node.this, *node.expressions]
            if isinstance(a, exp.Expression)
        )
    return False


def _clock_slot(node: exp.Expression, dialect: str | None) -> Slot:
    return Slot(key="time:clock", kind="time", fragment=node.sql(dialect=dialect), clock=True)


def _numbered(compared: list[Slot]) -> list[Slot]:
    """Value slots of one column compared several times get keys ``...#2``, ``...#3`` in SQL order."""
    seen: dict[str, int] = {}
    out = []
    for slot in compared:
        if slot.kind == "value":
            seen[slot.key] = seen.get(slot.key, 0) + 1
            if seen[slot.key] > 1:
                slot = slot.model_copy(update={"key": f"{slot.key}#{seen[slot.key]}"})
        out.append(slot)
    return out


def _merged_times(compared: list[Slot]) -> list[Slot]:
    """One time slot per column: ``placed_at >= '2026-10-01' AND placed_at < '2026-11-01'`` is one period."""
    merged: dict[str, Slot] = {}
    out: list[Slot] = []
    for slot in compared:
        if slot.kind != "time":
            out.append(slot)
            continue
        first = merged.get(slot.key)
        if first is None:
            merged[slot.key] = slot
            out.append(slot)
            continue
        # Bounds that must all hold read as one AND; others (OR, CASE) are listed apart.
        joint = " AND " if all(b.anded for b in [*first.bounds, *slot.bounds]) else "; "
        first.fragment = (
            f"{first.fragment}{joint}{slot.fragment}" if slot.fragment not in first.fragment else first.fragment
        )
        first.literals += [v for v in slot.literals if v not in first.literals]
        first.bounds = [*first.bounds, *slot.bounds]
        first.clock = first.clock or slot.clock
        first.operator = first.operator if first.operator == slot.operator else "range"
    return out


# -- literals no comparison explains ------------------------------------------------------


def _loose_literals(tree: exp.Expression, covered: set[int], dialect: str | None) -> list[Slot]:
    """One ``literal:N`` slot per value the SQL writes that no comparison with a column
    claimed: ``IN (SELECT 'Acme GmbH')``, a CTE's constant, ``instr(name, 'GmbH')``.

    Layout is left out: the row limit, date formats and modifiers (the time slots'),
    separators and formats (``', '``, ``'%.2f'``), JSON paths, and numbers outside a
    filter or inside a function's arguments (``COUNT(1)``, ``ROUND(x, 2)``, ``GROUP BY 1``).
    """
    found: list[Slot] = []
    for node in tree.walk(bfs=False):  # in the order the SQL reads
        if isinstance(node, _BYTE_LITERALS) and id(node) not in covered:  # x'70616964' is 'paid' spelled in hex
            found.append(
                Slot(
                    key=f"literal:{len(found) + 1}",
                    kind="value",
                    fragment=_context(node, dialect),
                    literals=[node.sql(dialect=dialect)],
                    literal_kind="string",
                )
            )
            continue
        if not isinstance(node, exp.Literal) or id(node) in covered or _structural(node, tree):
            continue
        negative = isinstance(node.parent, exp.Neg)
        value = ("-" if negative else "") + node.name
        key = f"literal:{len(found) + 1}"
        found.append(
            Slot(
                key=key,
                kind="value",
                fragment=_context(node, dialect),
                literals=[value],
                literal_kind="string" if node.is_string else "number",
            )
        )
    return found


# Literals sqlglot keeps apart from exp.Literal: hex, byte and national strings are values too.
_BYTE_LITERALS = (exp.HexString, exp.ByteString, exp.National)


def _layout_argument(literal: exp.Literal, call: exp.Func) -> bool:
    """A number at a position of a call that shapes the result rather than selects rows:
    ``ROUND(x, 2)``'s precision, ``substr(x, 1, 7)``'s positions, ``COUNT(1)``."""
    if isinstance(call, exp.Round):
        return call.args.get("decimals") is literal
    if isinstance(call, exp.Substring):
        return literal is call.args.get("start") or literal is call.args.get("length")
    if isinstance(call, exp.Count):
        return call.this is literal
    return False


def _structural(literal: exp.Literal, root: exp.Expression | None = None) -> bool:
    """Whether a literal is layout rather than a value the result depends on.

    A number inside a call is layout only at the positions :func:`_layout_argument` knows
    (``char(115, 104)``, ``abs(7)``, ``max(id, 7)`` are values); a ``LIMIT`` only when it is
    the outermost query's (the row limit slot; one in a subquery picks rows); ``0`` and ``1``
    in a filter only when the condition holding them is ANDed (``1 = 1`` beside, not under, an OR).
    """
    if literal.is_string and not re.search(r"[^\W_]", _SPECIFIER.sub("", literal.name)):
        return True  # '', ', ', '%.2f': separators and formats
    filtering, layout_call, child = False, False, literal
    for ancestor in _ancestors(literal):
        if isinstance(ancestor, (exp.Limit, exp.Offset, exp.Fetch)):
            return root is None or ancestor.parent is root
        if isinstance(ancestor, (exp.Interval, exp.JSONPath, exp.Group, exp.Order)):
            return True
        if isinstance(ancestor, exp.Func) and not isinstance(ancestor, _NOT_CALLS):
            if _is_clock(ancestor) or _is_date_function(ancestor) or function_name(ancestor) in _FORMAT_FUNCTIONS:
                return True  # the time slots' (date('now', '-1 month')), or a format
            layout_call = layout_call or (child is literal and _layout_argument(literal, ancestor))
        if isinstance(ancestor, (*_FILTERS, exp.Join)) and not filtering:
            filtering = not isinstance(ancestor, exp.Join) or _in_on(literal, ancestor)
        if (
            isinstance(ancestor, exp.Select)
            and child.arg_key == "expressions"
            and isinstance(ancestor.parent, exp.Exists)
        ):
            return True  # EXISTS (SELECT 1 ...): what it selects is never read
        child = ancestor
    if literal.is_string:
        return False
    if layout_call or not filtering:
        return True
    return literal.name in ("0", "1") and _anded(_condition(literal))


def _condition(node: exp.Expression) -> exp.Expression:
    """The condition a literal belongs to: ``1 = 1`` for its ``1``s, the literal itself in ``WHERE 1``."""
    while node.parent is not None and not isinstance(
        node.parent, (exp.Connector, exp.Paren, exp.Not, *_FILTERS, exp.Join)
    ):
        node = node.parent
    return node


def _in_on(literal: exp.Literal, join: exp.Join) -> bool:
    on = join.args.get("on")
    return on is not None and any(node is literal for node in on.walk())


def _ancestors(node: exp.Expression):
    parent = node.parent
    while parent is not None:
        yield parent
        parent = parent.parent


def _context(literal: exp.Literal, dialect: str | None) -> str:
    """The smallest piece of SQL around a literal that says what it is for (a condition, a call, an alias)."""
    for ancestor in _ancestors(literal):
        if isinstance(ancestor, (exp.CTE, exp.Select)) and not isinstance(ancestor.parent, (exp.Subquery, exp.In)):
            break
        if isinstance(ancestor, (exp.Predicate, exp.Func, exp.Alias)) and not isinstance(ancestor, exp.Connector):
            text = ancestor.sql(dialect=dialect)
            return text if len(text) <= 160 else literal.sql(dialect=dialect)
    return literal.sql(dialect=dialect)


def _limit(tree: exp.Expression, dialect: str | None) -> Slot:
    """The outermost query's row limit; its ``OFFSET`` (rows skipped) comes second in ``literals``."""
    limit = tree.args.get("limit")
    offset = tree.args.get("offset")
    skipped = _literal(offset.expression, dialect) if isinstance(offset, exp.Offset) and offset.expression else None
    if isinstance(limit, exp.Limit):
        count = limit.expression
    elif isinstance(limit, exp.Fetch):
        count = limit.args.get("count")
    else:
        return Slot(key="limit", kind="limit", fragment="")
    literal = _literal(count, dialect) if count is not None else None
    shown = literal if literal is not None else (count.sql(dialect=dialect) if count is not None else "")
    fragment = limit.sql(dialect=dialect) + (f" {offset.sql(dialect=dialect)}" if skipped is not None else "")
    literals = ([shown] if shown else []) + ([skipped] if shown and skipped is not None else [])
    return Slot(key="limit", kind="limit", fragment=fragment, literals=literals)
