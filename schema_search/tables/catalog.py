"""The one data model: Catalog -> Table -> Column, ForeignKey, Description.

Connectors produce a :class:`Catalog`; everything downstream (documents, indexes,
search, adapters, eval) consumes it. Instances are frozen so a catalog that has been
indexed cannot drift from its index; build a changed copy with
:func:`dataclasses.replace`.

What the source said (``comment``) and what a model wrote (``description``) live in
separate fields: generated text never overwrites the database's own documentation.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from ..core.ids import short_id

TableKind = Literal["table", "view"]


def table_id(schema: str, name: str) -> str:
    """The catalog-wide identifier of a table: ``schema.table``, lower-cased.

    >>> table_id("Public", "ContactList")
    'public.contactlist'
    """
    return f"{schema}.{name}".lower()


def source_id(catalog: str, table: str) -> str:
    """A short, stable ID for citing a table: ``T`` plus 6 hex digits of a hash.

    Stable across re-indexing (it depends only on the catalog and table names), short
    enough for an agent to copy verbatim into an answer.

    >>> source_id("crm", "public.contacts") == source_id("crm", "public.contacts")
    True
    >>> len(source_id("crm", "public.contacts"))
    7
    """
    return short_id("T", catalog, table)


@dataclass(frozen=True)
class Column:
    """One column as the source declares it.

    ``values``: a sample of the distinct values it holds (live databases only, short
    text columns only; never what looks like a secret, an identity number, an address
    or, unless the operator opts in, contact data), indexed so a question that names a
    value finds the column. Stored with the catalog; never logged or shown whole, so
    not in ``repr`` either (a traceback or a ``%r`` in a log would print it).
    """

    name: str
    type: str = ""
    nullable: bool = True
    comment: str | None = None
    default: str | None = None
    values: tuple[str, ...] = field(default=(), repr=False)

    def to_dict(self) -> dict[str, Any]:
        data = {
            "name": self.name,
            "type": self.type,
            "nullable": self.nullable,
            "comment": self.comment,
            "default": self.default,
        }
        # Written only when there are some: catalogs without values (DDL, benchmarks)
        # keep the JSON, and so the content hashes, they always had.
        if self.values:
            data["values"] = list(self.values)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Column:
        return cls(
            name=data["name"],
            type=data.get("type") or "",
            nullable=data.get("nullable", True),
            comment=data.get("comment"),
            default=data.get("default"),
            values=tuple(data.get("values") or ()),
        )


@dataclass(frozen=True)
class ForeignKey:
    """A foreign key; compound keys keep their columns as parallel tuples.

    ``ref_table`` is a table id (``schema.table``), so a key can point across schemas.
    """

    columns: tuple[str, ...]
    ref_table: str
    ref_columns: tuple[str, ...]
    name: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "columns": list(self.columns),
            "ref_table": self.ref_table,
            "ref_columns": list(self.ref_columns),
            "name": self.name,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ForeignKey:
        return cls(
            columns=tuple(data["columns"]),
            ref_table=data["ref_table"],
            ref_columns=tuple(data.get("ref_columns") or ()),
            name=data.get("name"),
        )


@dataclass(frozen=True)
class Description:
    """A generated, plain-English description of a table, with its provenance."""

    text: str
    model: str
    prompt_version: str
    generated_at: str
    content_hash: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "model": self.model,
            "prompt_version": self.prompt_version,
            "generated_at": self.generated_at,
            "content_hash": self.content_hash,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Description:
        return cls(**{k: data[k] for k in ("text", "model", "prompt_version", "generated_at", "content_hash")})


@dataclass(frozen=True)
class Table:
    """A table or view.

    Attributes:
        schema: the schema (PostgreSQL schema, SQLite ``main``, benchmark ``db_id``).
        name: the table name as the source spells it.
        kind: ``"table"`` or ``"view"``.
        columns: in declaration order.
        primary_key: column names, in key order (empty when there is none).
        foreign_keys: keys from this table to others.
        comment: what the source said about the table (DB comment, benchmark label).
        description: generated text, kept apart from ``comment``.
        definition: a view's SQL, when the source gives it.
    """

    schema: str
    name: str
    kind: TableKind = "table"
    columns: tuple[Column, ...] = ()
    primary_key: tuple[str, ...] = ()
    foreign_keys: tuple[ForeignKey, ...] = ()
    comment: str | None = None
    description: Description | None = None
    definition: str | None = None

    @property
    def id(self) -> str:
        return table_id(self.schema, self.name)

    def column(self, name: str) -> Column | None:
        lowered = name.lower()
        return next((c for c in self.columns if c.name.lower() == lowered), None)

    def content_hash(self) -> str:
        """A hash of what the source said about the table (not of its description, nor its sampled values).

        Used to skip re-describing tables that did not change. The values are left out:
        they change with the rows, and the description is written from the schema alone.

        >>> plain = Table("crm", "accounts", columns=(Column("name"),))
        >>> plain.content_hash() == replace(plain, columns=(Column("name", values=("xmagnet",)),)).content_hash()
        True
        """
        data = self.to_dict()
        data.pop("description")
        for column in data["columns"]:
            column.pop("values", None)
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": self.schema,
            "name": self.name,
            "kind": self.kind,
            "columns": [c.to_dict() for c in self.columns],
            "primary_key": list(self.primary_key),
            "foreign_keys": [fk.to_dict() for fk in self.foreign_keys],
            "comment": self.comment,
            "description": self.description.to_dict() if self.description else None,
            "definition": self.definition,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Table:
        description = data.get("description")
        return cls(
            schema=data["schema"],
            name=data["name"],
            kind=data.get("kind", "table"),
            columns=tuple(Column.from_dict(c) for c in data.get("columns", ())),
            primary_key=tuple(data.get("primary_key", ())),
            foreign_keys=tuple(ForeignKey.from_dict(f) for f in data.get("foreign_keys", ())),
            comment=data.get("comment"),
            description=Description.from_dict(description) if description else None,
            definition=data.get("definition"),
        )


@dataclass(frozen=True)
class Catalog:
    """A named set of tables from one source.

    Attributes:
        name: the catalog name users search by.
        tables: in a stable order (the source's order).
        source: where it came from (kind, a redacted URL or file names, dialect).
        warnings: what the connector skipped and why (unparsed statements, ...).
    """

    name: str
    tables: tuple[Table, ...] = ()
    source: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    warnings: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        seen: set[str] = set()
        for table in self.tables:
            if table.id in seen:
                raise ValueError(f"catalog {self.name!r} has table {table.id!r} twice")
            seen.add(table.id)

    def table(self, table: str) -> Table | None:
        """Look a table up by id (``schema.table``), case-insensitively."""
        return self._by_id().get(table.lower())

    def _by_id(self) -> dict[str, Table]:
        # Cached on the frozen instance: built once, on first lookup.
        cached = self.__dict__.get("_by_id_cache")
        if cached is None:
            cached = {t.id: t for t in self.tables}
            object.__setattr__(self, "_by_id_cache", cached)
        return cached

    def referencing(self, table: str) -> list[tuple[Table, ForeignKey]]:
        """Foreign keys of other tables that point at ``table``."""
        cached = self.__dict__.get("_incoming_cache")
        if cached is None:
            cached = {}
            for t in self.tables:
                for fk in t.foreign_keys:
                    cached.setdefault(fk.ref_table, []).append((t, fk))
            object.__setattr__(self, "_incoming_cache", cached)
        return list(cached.get(table.lower(), ()))

    def with_tables(self, tables: Iterable[Table]) -> Catalog:
        return replace(self, tables=tuple(tables))

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "source": self.source,
            "warnings": list(self.warnings),
            "tables": [t.to_dict() for t in self.tables],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Catalog:
        return cls(
            name=data["name"],
            source=data.get("source", {}),
            warnings=tuple(data.get("warnings", ())),
            tables=tuple(Table.from_dict(t) for t in data.get("tables", ())),
        )

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> Catalog:
        return cls.from_dict(json.loads(text))
