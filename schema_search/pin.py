"""Identifier pinning: a table or column name written verbatim in the question wins.

Someone who writes ``v_pmpm`` or ``ecm_template_link`` has told us the table; no
fusion should be able to rank it below a table that merely shares words with the
question. Only identifier-shaped names pin (with ``_``, a digit, an inner capital,
or quoted in backticks/double quotes), so the plain word "singer" in "how many
singers" pins nothing.
"""

from __future__ import annotations

import re
from typing import Iterable, Mapping, Sequence

from .catalog import Catalog

_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*(?:\.[A-Za-z_][A-Za-z0-9_$]*)?")
_QUOTED = re.compile(r"`([^`]+)`|\"([^\"]+)\"")
# A column name shared by more tables than this says little about which one is meant.
MAX_TABLES_PER_COLUMN = 2


def identifier_shaped(name: str) -> bool:
    """Whether ``name`` looks like an identifier rather than a plain word.

    >>> [identifier_shaped(n) for n in ("v_pmpm", "CDSCode", "k12", "singer", "Singer")]
    [True, True, True, False, False]
    """
    return "_" in name or any(ch.isdigit() for ch in name) or any(ch.isupper() for ch in name[1:])


def identifier_map(catalog: Catalog) -> dict[str, tuple[str, ...]]:
    """Lower-cased table and column names -> the tables they name.

    Table names map to their table (also as ``schema.table``); a column name maps to
    the tables that have it, unless more than ``MAX_TABLES_PER_COLUMN`` do.
    """
    tables: dict[str, list[str]] = {}
    columns: dict[str, list[str]] = {}
    for table in catalog.tables:
        tables.setdefault(table.name.lower(), []).append(table.id)
        tables.setdefault(table.id, []).append(table.id)
        for column in table.columns:
            columns.setdefault(column.name.lower(), []).append(table.id)
    names = {name: tuple(ids) for name, ids in tables.items()}
    for name, ids in columns.items():
        if name not in names and len(ids) <= MAX_TABLES_PER_COLUMN:
            names[name] = tuple(ids)
    return names


def mentioned(question: str) -> list[str]:
    """Names the question writes verbatim: quoted spans, and identifier-shaped words.

    >>> mentioned("rows in ecm_template_link where `Free Meal Count (K-12)` > 3 and k12")
    ['Free Meal Count (K-12)', 'ecm_template_link', 'k12']
    """
    quoted = [a or b for a, b in _QUOTED.findall(question)]
    bare = [t for t in _TOKEN.findall(_QUOTED.sub(" ", question)) if identifier_shaped(t)]
    return list(dict.fromkeys(quoted + bare))


def pinned(question: str, names: Mapping[str, Sequence[str]]) -> list[str]:
    """Tables the question names verbatim, in the order it names them.

    >>> pinned("what is in v_pmpm?", {"v_pmpm": ("analytics.v_pmpm",), "plans": ("billing.plans",)})
    ['analytics.v_pmpm']
    """
    found: list[str] = []
    for name in mentioned(question):
        found.extend(names.get(name.lower(), ()))
    return list(dict.fromkeys(found))


def pin_first(ranked: Iterable[str], pins: Sequence[str]) -> list[str]:
    """``pins`` first, then the rest of ``ranked`` in its order.

    >>> pin_first(["a", "b", "c"], ["c"])
    ['c', 'a', 'b']
    """
    pinned_set = set(pins)
    return [*pins, *(t for t in ranked if t not in pinned_set)]
