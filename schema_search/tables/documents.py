"""Catalog -> one search document per table, with its fields kept apart, and its embedding text.

* ``names``: schema, table and column identifiers, split into words.
* ``text``: what people wrote: DB comments and generated descriptions.
* ``body``: everything above in one field, the way most tools index.

Generated descriptions go to ``text`` and ``body`` only, never to ``names``: a
description that says "contact" on every table must not blur which table *is*
the contacts table.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from ..core.analyzer import identifier_text, split_identifier, words
from ..core.kind import ItemKind
from .catalog import Table

FIELDS = ("names", "text", "body")
# MiniLM reads at most 256 word pieces; longer text is cut, so put what matters first.
MAX_EMBEDDING_CHARS = 1200


@dataclass(frozen=True)
class TableDocument:
    id: str
    names: str
    text: str
    body: str

    def fields(self) -> dict[str, str]:
        return {name: value for name, value in asdict(self).items() if name in FIELDS}


def table_document(table: Table) -> TableDocument:
    """Build the search document of one table.

    >>> from schema_search.tables.catalog import Column
    >>> doc = table_document(Table("crm", "contact_list", columns=(Column("ownerId"),), comment="Saved lists."))
    >>> doc.names
    'crm contact list contactlist owner id ownerid'
    >>> doc.text
    'saved lists'
    """
    names = " ".join(
        identifier_text(part) for part in (table.schema, table.name, *(c.name for c in table.columns))
    )
    text = "\n".join(_texts(table))
    return TableDocument(id=table.id, names=names, text=text, body=f"{names}\n{text}" if text else names)


def _texts(table: Table) -> list[str]:
    """Comments and descriptions as plain words.

    The index analyzer splits on whitespace only (identifiers are split here, in
    Python), so punctuation must go first: ``lists.`` would never meet ``list``.
    """
    texts = [table.comment] if table.comment else []
    texts += [f"{c.name}: {c.comment}" for c in table.columns if c.comment]
    if table.description:
        texts.append(table.description.text)
    return [" ".join(words(text)) for text in texts]


def embedding_text(table: Table) -> str:
    """What the model reads for a table: a context header, then columns and text.

    The header (schema and table name as words) tells the model what the columns
    belong to; the stored catalog is not changed.

    >>> from schema_search.tables.catalog import Column
    >>> embedding_text(Table("crm", "contact_list", columns=(Column("ownerId"),), comment="Saved lists."))
    'crm contact list. Saved lists. Columns: owner id.'
    """
    header = " ".join(split_identifier(table.schema) + split_identifier(table.name))
    parts = [header + "."]
    if table.comment:
        parts.append(_sentence(table.comment))
    if table.description:
        parts.append(_sentence(table.description.text))
    parts.append("Columns: " + ", ".join(" ".join(split_identifier(c.name)) for c in table.columns) + ".")
    return " ".join(parts)[:MAX_EMBEDDING_CHARS]


def _sentence(text: str) -> str:
    text = " ".join(text.split())
    return text if text.endswith((".", "!", "?")) else text + "."


TABLES: ItemKind[Table] = ItemKind(
    noun="table",
    fields=FIELDS,
    id_of=lambda table: table.id,
    document=lambda table: table_document(table).fields(),
    embedding_text=embedding_text,
)
