"""The prompt that asks for one table's description, and the tidying of the answer.

Bump ``PROMPT_VERSION`` whenever the words sent to the model change: descriptions
record it, and a description made with another version counts as stale.
"""

from __future__ import annotations

import re
from dataclasses import replace

from ..tables.catalog import Catalog, Column, Table  # noqa: F401  (Column: the doctests use it)
from ..tables.render import create_table_sql

PROMPT_VERSION = "v1"
MAX_PROMPT_COLUMNS = 30  # wide tables: keys plus the first columns, to stay inside a small context
MAX_COMMENT_CHARS = 60
MAX_REFERENCES = 10
MAX_DESCRIPTION_CHARS = 600
LOOP_WORDS = 5  # a run of this many words seen twice means the model is looping

SYSTEM_PROMPT = "You write short, plain-English documentation for database tables."
USER_PROMPT = """Describe the table below in 2 or 3 sentences: what it is for, what one row represents, \
its key columns, and which tables it joins to. Do not list every column. Answer with the description only.

{ddl}
{context}"""


def table_context(catalog: Catalog, table: Table) -> str:
    """What the catalog says around ``table`` that its DDL does not: who references it.

    >>> from schema_search.tables.catalog import ForeignKey
    >>> a = Table("s", "accounts", columns=(Column("id"),))
    >>> c = Table("s", "contacts", columns=(Column("account_id"),),
    ...           foreign_keys=(ForeignKey(("account_id",), "s.accounts", ("id",)),))
    >>> table_context(Catalog("c", (a, c)), a)
    'Referenced by: s.contacts (account_id).'
    """
    refs = catalog.referencing(table.id)
    if not refs:
        return ""
    shown = ", ".join(f"{t.id} ({', '.join(fk.columns)})" for t, fk in refs[:MAX_REFERENCES])
    more = f" and {len(refs) - MAX_REFERENCES} more" if len(refs) > MAX_REFERENCES else ""
    return f"Referenced by: {shown}{more}."


def prompt_messages(table: Table, context: str) -> list[dict[str, str]]:
    """The chat messages that ask for one table's description (prompt ``PROMPT_VERSION``)."""
    ddl = create_table_sql(_trimmed(table), _prompt_columns(table))
    user = USER_PROMPT.format(ddl=ddl, context=context).rstrip()
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


def _trimmed(table: Table) -> Table:
    # Long benchmark value lists and comments would crowd a 2k-token context.
    columns = tuple(replace(c, comment=_short(c.comment, MAX_COMMENT_CHARS)) for c in table.columns)
    return replace(table, columns=columns, comment=_short(table.comment, 3 * MAX_COMMENT_CHARS), description=None)


def _prompt_columns(table: Table) -> list[str] | None:
    if len(table.columns) <= MAX_PROMPT_COLUMNS:
        return None
    return [c.name for c in table.columns[:MAX_PROMPT_COLUMNS]]


def _short(text: str | None, limit: int) -> str | None:
    if not text:
        return text
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


def clean_description(text: str) -> str:
    """Tidy a model's answer into prose: one paragraph, no label, no code, no loops, bounded length.

    Small models echo the DDL back and fall into loops ("which is a table of battles,
    which is a table of battles, ..."); both would only add noise to the index.

    >>> clean_description("Description: Orders placed.  Orders placed. One row per order.\\n")
    'Orders placed. One row per order.'
    >>> clean_description("A log of battles. It is a table of battles, which is a table of battles, which is a")
    'A log of battles.'
    >>> clean_description("Customers. ```sql\\nCREATE TABLE c (id INT);\\n``` One row each.")
    'Customers. One row each.'
    """
    text = re.sub(r"```.*?(```|$)", " ", text, flags=re.S)  # code blocks, closed or cut off
    text = re.sub(r"\bCREATE\s+(TABLE|VIEW)\b.*?(\);|$)", " ", text, flags=re.S | re.I)
    text = " ".join(text.replace("**", "").split())
    text = re.sub(r"^(description|answer)\s*:\s*", "", text, flags=re.I)
    text = _cut_loop(text)
    sentences, seen = [], set()
    for sentence in re.split(r"(?<=[.!?])\s+", text):
        key = sentence.lower().strip()
        if key and key not in seen:
            seen.add(key)
            sentences.append(sentence)
    text = " ".join(sentences)
    if len(text) > MAX_DESCRIPTION_CHARS:
        text = _whole_sentences(text[:MAX_DESCRIPTION_CHARS])
    return text


def _cut_loop(text: str, n: int = LOOP_WORDS) -> str:
    """Cut ``text`` where a run of ``n`` words comes back, then back to a sentence end."""
    words = text.split(" ")
    seen: set[tuple[str, ...]] = set()
    for i in range(len(words) - n + 1):
        gram = tuple(w.lower().strip(",.;:") for w in words[i : i + n])
        if gram in seen:
            return _whole_sentences(" ".join(words[:i]))
        seen.add(gram)
    return text


def _whole_sentences(text: str) -> str:
    end = max(text.rfind(". "), text.rfind(".") if text.endswith(".") else -1)
    return text[: end + 1] if end > 0 else text.rstrip(" ,;:") + "..."
