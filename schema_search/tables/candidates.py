"""Ranked table ids -> the wire models a text-to-SQL prompt needs (columns, joins, DDL)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ..core import analyzer
from ..core.analyzer import identifier_text
from ..core.closeness import Closeness
from ..core.highlight import matching_words, words_by_term
from ..core.question import question_terms
from ..core.ranking import Ranked
from ..errors import TableAmbiguous, TableNotFound
from .catalog import Catalog, ForeignKey, Table, source_id
from .documents import table_document
from .models import ColumnInfo, DescriptionInfo, JoinInfo, TableCandidate, TableDetail, ValueMatch
from .render import create_table_sql, kept_columns

_ANALYZER = analyzer.build_analyzer()
# A question names few values: past this many matches in one column it named a word they
# share (a city, a status), and the first ones are enough to show how they are spelled.
MAX_MATCHED_VALUES = 10


def candidates(
    catalog: Catalog, ranked: list[Ranked], question: str, closeness: Closeness | None = None
) -> list[TableCandidate]:
    """Expand each ranked table into a candidate, with joins among the candidates and its distance."""
    chosen = {r.id for r in ranked}
    terms = question_terms(question)
    return [_candidate(catalog, catalog.table(r.id), r, chosen, terms, closeness) for r in ranked]


def _candidate(
    catalog: Catalog, table: Table, ranked: Ranked, chosen: set[str], terms: list[str], closeness: Closeness | None
) -> TableCandidate:
    fixed = _fixed(table)
    matched = list(dict.fromkeys(t for t in terms if t in fixed.terms))
    wanted = set(terms)
    joins = [_join(table.id, fk) for fk in table.foreign_keys if fk.ref_table in chosen]
    joins += [
        _join(other.id, fk)
        for other, fk in catalog.referencing(table.id)
        if other.id in chosen and other.id != table.id
    ]
    matched_columns = [c.name for c, found in zip(table.columns, fixed.column_terms) if wanted & found]
    matched_values = _matched(fixed.values, wanted)
    return TableCandidate(
        table=table.id,
        source_id=source_id(catalog.name, table.id),
        kind=table.kind,
        score=round(ranked.score, 6),
        channels=ranked.channels,
        matched_terms=matched,
        matched_columns=matched_columns,
        matched_values=matched_values,
        pinned=ranked.pinned,
        added_for_join=ranked.added,
        comment=table.comment,
        description=fixed.description,
        columns=list(fixed.columns),
        joins=joins,
        ddl=fixed.ddl,
        ddl_trimmed=trimmed_ddl(table, fixed.ddl, [*matched_columns, *(m.column for m in matched_values)]),
        distance=closeness.distance(table.id) if closeness else None,
        highlight=matching_words(fixed.vocabulary, matched),
    )


def trimmed_ddl(table: Table, ddl: str, needed: list[str]) -> str:
    """``table``'s DDL with only the ``needed`` columns and its keys; ``ddl`` (all of it) when that is all.

    >>> from schema_search.tables.catalog import Column
    >>> t = Table("crm", "contacts", columns=(Column("id", "INT"), Column("email"), Column("notes")), primary_key=("id",))
    >>> print(trimmed_ddl(t, "(all of it)", ["email"]))
    CREATE TABLE crm.contacts (
      id INT,
      email,  -- type unknown
      PRIMARY KEY (id)
    );
    >>> trimmed_ddl(t, "(all of it)", ["email", "notes"])
    '(all of it)'
    >>> trimmed_ddl(Table("s", "t", columns=(Column("a"), Column("b"))), "(all of it)", [])
    '(all of it)'
    """
    shown = trimmed_columns(table, needed)
    return ddl if shown is None else create_table_sql(table, shown)


def trimmed_columns(table: Table, needed: list[str]) -> list[str] | None:
    """The columns the trimmed DDL shows: the ``needed`` ones and the keys, in the table's order.

    None when that is every column, or none of them (an empty CREATE TABLE says nothing):
    the whole DDL is shown then.
    """
    kept = kept_columns(table, list(dict.fromkeys(needed)))
    shown = [column.name for column in table.columns if column.name.lower() in kept]
    return shown if 0 < len(shown) < len(table.columns) else None


@dataclass(frozen=True)
class _Fixed:
    """What a table's candidate shows whatever the question: built once per table, not per answer."""

    terms: frozenset[str]
    column_terms: tuple[frozenset[str], ...]
    columns: tuple[ColumnInfo, ...]
    description: DescriptionInfo | None
    ddl: str
    values: dict[str, tuple[_Value, ...]]
    vocabulary: dict[str, tuple[str, ...]]


@dataclass(frozen=True, slots=True)  # slots: a cached table holds one per sampled value
class _Value:
    """A sampled value, and the index terms a question must hold to name it.

    ``position``: (column, rank in its sample), to list matches in the table's order.
    """

    column: str
    value: str
    terms: frozenset[str]
    joined: str | None
    position: tuple[int, int]


# Cached: the same popular tables come back in answer after answer, and rendering one
# (analysed terms, column models, DDL) was a quarter of an HTTP search's time. About
# 20 KB a table: 1,024 of them cost a server worker ~20 MB (more with sampled values:
# about 25 KB per sampled column at the default 50 values).
@lru_cache(maxsize=1024)
def _fixed(table: Table) -> _Fixed:
    document = table_document(table)
    text = f"{document.body}\n{document.descriptions}"
    vocabulary = words_by_term(text)
    column_terms = tuple(
        frozenset(_ANALYZER.analyze(f"{identifier_text(c.name)} {c.comment or ''}")) for c in table.columns
    )
    return _Fixed(
        frozenset(_ANALYZER.analyze(text)),
        column_terms,
        tuple(columns(table)),
        _description(table),
        create_table_sql(table),
        _values_by_term(table),
        vocabulary,
    )


def _values_by_term(table: Table) -> dict[str, tuple[_Value, ...]]:
    """Each sampled value under each of its terms, so a question looks up only its own words."""
    by_term: dict[str, list[_Value]] = {}
    for i, column in enumerate(table.columns):
        for j, value in enumerate(column.values):
            parts = analyzer.words(value)
            terms = frozenset(_ANALYZER.analyze(" ".join(parts)))
            joined = _ANALYZER.analyze("".join(parts)) if len(parts) > 1 else []
            entry = _Value(column.name, value, terms, joined[0] if joined else None, (i, j))
            for term in terms | set(joined):
                by_term.setdefault(term, []).append(entry)
    return {term: tuple(entries) for term, entries in by_term.items()}


def _matched(values: dict[str, tuple[_Value, ...]], wanted: set[str]) -> list[ValueMatch]:
    """The sampled values (``_values_by_term``) the question's analysed terms name, per column.

    A value is named when the question holds every word of it (``New York`` needs both),
    or its words written as one (``xmagnet`` names ``X-Magnet``).

    >>> from .catalog import Column
    >>> t = Table("crm", "accounts", columns=(Column("name", values=("X-Magnet", "New York", "Acme")),))
    >>> [m.model_dump() for m in _matched(_values_by_term(t), {"contact", "xmagnet", "new"})]
    [{'column': 'name', 'values': ['X-Magnet']}]
    """
    if not values:
        return []
    named = {
        v for term in wanted for v in values.get(term, ()) if (v.terms and v.terms <= wanted) or v.joined in wanted
    }
    by_column: dict[str, list[str]] = {}
    for v in sorted(named, key=lambda v: v.position):
        by_column.setdefault(v.column, []).append(v.value)
    return [ValueMatch(column=c, values=found[:MAX_MATCHED_VALUES]) for c, found in by_column.items()]


def table_detail(catalog: Catalog, table: Table) -> TableDetail:
    """Everything known about one table, foreign keys both ways."""
    return TableDetail(
        table=table.id,
        source_id=source_id(catalog.name, table.id),
        kind=table.kind,
        comment=table.comment,
        description=_description(table),
        columns=columns(table),
        primary_key=list(table.primary_key),
        foreign_keys=[_join(table.id, fk) for fk in table.foreign_keys],
        referenced_by=[_join(other.id, fk) for other, fk in catalog.referencing(table.id)],
        definition=table.definition,
        ddl=create_table_sql(table),
    )


def columns(table: Table) -> list[ColumnInfo]:
    references = {}
    for fk in table.foreign_keys:
        for own, ref in zip(fk.columns, fk.ref_columns or (None,) * len(fk.columns)):
            references[own.lower()] = f"{fk.ref_table}.{ref}" if ref else fk.ref_table
    primary = {c.lower() for c in table.primary_key}
    return [
        ColumnInfo(
            name=c.name,
            type=c.type,
            nullable=c.nullable,
            primary_key=c.name.lower() in primary,
            foreign_key=references.get(c.name.lower()),
            comment=c.comment,
        )
        for c in table.columns
    ]


def _join(from_table: str, fk: ForeignKey) -> JoinInfo:
    return JoinInfo(
        from_table=from_table,
        from_columns=list(fk.columns),
        to_table=fk.ref_table,
        to_columns=list(fk.ref_columns),
    )


def _description(table: Table) -> DescriptionInfo | None:
    d = table.description
    if d is None:
        return None
    return DescriptionInfo(text=d.text, model=d.model, prompt_version=d.prompt_version, generated_at=d.generated_at)


def find_table(catalog: Catalog, wanted: str) -> Table:
    """A table by id (``schema.table``), bare name when unique, or source ID."""
    wanted = wanted.strip()
    found = catalog.table(wanted)
    if found:
        return found
    lowered = wanted.lower()
    matches = [
        t for t in catalog.tables if source_id(catalog.name, t.id).lower() == lowered or t.name.lower() == lowered
    ]
    if len(matches) == 1:
        return matches[0]
    if matches:
        options = ", ".join(t.id for t in matches[:10])
        raise TableAmbiguous(f"{wanted!r} is ambiguous in catalog {catalog.name!r}.", hint=f"Use one of: {options}.")
    raise TableNotFound(
        f"No table {wanted!r} in catalog {catalog.name!r}.",
        hint="Give a table id as `schema.table` (see search results) or a source ID like T3fa21c.",
    )
