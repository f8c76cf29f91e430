"""Catalog -> one search document per table, with its fields kept apart, and its embedding text.

* ``names``: schema, table and column identifiers, split into words.
* ``text``: what people wrote: DB comments (table and columns).
* ``body``: names and text in one field, the way most tools index a schema.
* ``descriptions``: what a model wrote (``schemasift describe``).
* ``values``: the values sampled from a live database's short text columns
  (``Column.values``), so a question that names a stored value finds its table.

Generated descriptions go to ``descriptions`` only: not to ``names`` (a description
that says "contact" on every table must not blur which table *is* the contacts
table), and not to ``text``, ``body`` or the embedding text either. A small model's
descriptions are generic ("This table contains information about ..."); folded into
the other fields they cost pooled Spider 4.5 points of recall@10, because every
channel then carried their noise. In a field of their own, the fusion weighs them per
question by what they add (``search.NOVELTY_WEIGHTED``), so they can help but not
hurt. Values go to ``values`` only, for the same reason: a table of a thousand
customer names would read as about them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from ..core.analyzer import identifier_text, split_identifier, words
from ..core.kind import ItemKind
from .catalog import Table

FIELDS = ("names", "text", "body", "descriptions", "values")
# MiniLM reads at most 256 word pieces; longer text is cut, so put what matters first.
MAX_EMBEDDING_CHARS = 1200


@dataclass(frozen=True)
class TableDocument:
    id: str
    names: str
    text: str
    body: str
    descriptions: str
    values: str

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
    >>> doc.descriptions
    ''
    >>> table_document(Table("crm", "accounts", columns=(Column("name", values=("X-Magnet", "acme")),))).values
    'x magnet xmagnet acme'
    """
    names = " ".join(identifier_text(part) for part in (table.schema, table.name, *(c.name for c in table.columns)))
    text = "\n".join(_texts(table))
    values = " ".join(" ".join(value_words(v)) for c in table.columns for v in c.values)
    descriptions = " ".join(words(table.description.text)) if table.description else ""
    return TableDocument(
        id=table.id,
        names=names,
        text=text,
        body=f"{names}\n{text}" if text else names,
        descriptions=descriptions,
        values=values,
    )


def value_words(value: str) -> list[str]:
    """A stored value as index words: its words, and the joined form when it splits.

    Like :func:`~schema_search.core.analyzer.identifier_text`: ``X-Magnet`` is found
    by "x magnet" and by "xmagnet".

    >>> value_words("X-Magnet"), value_words("urgent")
    (['x', 'magnet', 'xmagnet'], ['urgent'])
    """
    parts = words(value)
    return parts + ["".join(parts)] if len(parts) > 1 else parts


def _texts(table: Table) -> list[str]:
    """Comments as plain words.

    The index analyzer splits on whitespace only (identifiers are split here, in
    Python), so punctuation must go first: ``lists.`` would never meet ``list``.
    """
    texts = [table.comment] if table.comment else []
    texts += [f"{c.name}: {c.comment}" for c in table.columns if c.comment]
    return [" ".join(words(text)) for text in texts]


def embedding_text(table: Table) -> str:
    """What the model reads for a table: a context header, then its comment and columns.

    Not the generated description (see the module's note).

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
