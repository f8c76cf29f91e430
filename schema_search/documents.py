"""Catalog -> one search document per table, with its fields kept apart.

* ``names``: schema, table and column identifiers, split into words.
* ``text``: what people wrote: DB comments and generated descriptions.
* ``body``: everything above in one field, the way most tools index.

Generated descriptions go to ``text`` and ``body`` only, never to ``names``: a
description that says "contact" on every table must not blur which table *is*
the contacts table.
"""

from __future__ import annotations

from dataclasses import dataclass

from .analyzer import identifier_text, words
from .catalog import Table

FIELDS = ("names", "text", "body")


@dataclass(frozen=True)
class TableDocument:
    id: str
    names: str
    text: str
    body: str


def table_document(table: Table) -> TableDocument:
    """Build the search document of one table.

    >>> from schema_search.catalog import Column
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
