"""Count / filter / group / top-k questions, each with the SQL an agent would send and an independent gold.

Written before measuring. ``gold`` computes the answer from :mod:`.gold`'s records
(``email.parser`` for PEPs, PostgreSQL's ``information_schema`` for the catalog);
given only the records a top-k search returned, the same function gives what an
agent reading search results alone could have answered.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .gold import PgTable

Rows = list[list[Any]]


@dataclass(frozen=True)
class Question:
    id: str
    collection: str  # "peps" or "catalog"
    kind: str  # count, filter, group, top-k
    question: str
    sql: str
    gold: Callable[[Sequence[Any]], Rows]


def _count(predicate: Callable[[Any], bool]) -> Callable[[Sequence[Any]], Rows]:
    return lambda records: [[sum(1 for r in records if predicate(r))]]


def _groups(key: Callable[[Any], Any], records: Sequence[Any], keep: Callable[[Any], bool] = lambda r: True) -> Rows:
    counts = Counter(key(r) for r in records if keep(r))
    return [[k, n] for k, n in sorted(counts.items(), key=lambda kv: (-kv[1], str(kv[0])))]


def _top(key: Callable[[Any], Any], records: Sequence[Any]) -> Rows:
    groups = _groups(key, records)
    return groups[:1]


PEPS: list[Question] = [
    Question(
        "p01", "peps", "count", "How many PEPs are there?", "SELECT count(*) FROM documents", _count(lambda p: True)
    ),
    Question(
        "p02",
        "peps",
        "count",
        "How many PEPs are Final?",
        "SELECT count(*) FROM documents WHERE status = 'Final'",
        _count(lambda p: p.status == "Final"),
    ),
    Question(
        "p03",
        "peps",
        "count",
        "How many PEPs were rejected?",
        "SELECT count(*) FROM documents WHERE status = 'Rejected'",
        _count(lambda p: p.status == "Rejected"),
    ),
    Question(
        "p04",
        "peps",
        "count",
        "How many Standards Track PEPs are still drafts?",
        "SELECT count(*) FROM documents WHERE type = 'Standards Track' AND status = 'Draft'",
        _count(lambda p: p.type == "Standards Track" and p.status == "Draft"),
    ),
    Question(
        "p05",
        "peps",
        "count",
        "How many Process PEPs are there?",
        "SELECT count(*) FROM documents WHERE type = 'Process'",
        _count(lambda p: p.type == "Process"),
    ),
    Question(
        "p06",
        "peps",
        "count",
        "How many PEPs were created in 2020?",
        "SELECT count(*) FROM documents WHERE year(created) = 2020",
        _count(lambda p: p.created.year == 2020),
    ),
    Question(
        "p07",
        "peps",
        "count",
        "How many PEPs were created before 2001?",
        "SELECT count(*) FROM documents WHERE created < DATE '2001-01-01'",
        _count(lambda p: p.created.year < 2001),
    ),
    Question(
        "p08",
        "peps",
        "count",
        "How many PEPs were created from 2015 to 2019?",
        "SELECT count(*) FROM documents WHERE year(created) BETWEEN 2015 AND 2019",
        _count(lambda p: 2015 <= p.created.year <= 2019),
    ),
    Question(
        "p09",
        "peps",
        "count",
        "How many PEPs target Python 3.12?",
        "SELECT count(*) FROM documents WHERE python_version = '3.12'",
        _count(lambda p: p.python_version == "3.12"),
    ),
    Question(
        "p10",
        "peps",
        "count",
        "How many PEPs name no Python version?",
        "SELECT count(*) FROM documents WHERE python_version IS NULL",
        _count(lambda p: p.python_version is None),
    ),
    Question(
        "p11",
        "peps",
        "count",
        "How many PEPs are about typing?",
        "SELECT count(*) FROM documents WHERE list_contains(string_split(topic, ', '), 'Typing')",
        _count(lambda p: "Typing" in p.topics),
    ),
    Question(
        "p12",
        "peps",
        "count",
        "How many packaging PEPs are Final?",
        "SELECT count(*) FROM documents WHERE topic LIKE '%Packaging%' AND status = 'Final'",
        _count(lambda p: "Packaging" in p.topics and p.status == "Final"),
    ),
    Question(
        "p13",
        "peps",
        "count",
        "How many PEPs did Guido van Rossum co-author?",
        "SELECT count(*) FROM documents WHERE author LIKE '%Guido van Rossum%'",
        _count(lambda p: "Guido van Rossum" in p.author),
    ),
    Question(
        "p14",
        "peps",
        "count",
        "How many of Barry Warsaw's PEPs are Final?",
        "SELECT count(*) FROM documents WHERE author LIKE '%Barry Warsaw%' AND status = 'Final'",
        _count(lambda p: "Barry Warsaw" in p.author and p.status == "Final"),
    ),
    Question(
        "p15",
        "peps",
        "count",
        "How many PEPs link to a resolution?",
        "SELECT count(*) FROM documents WHERE resolution IS NOT NULL",
        _count(lambda p: p.resolution is not None),
    ),
    Question(
        "p16",
        "peps",
        "filter",
        "Which governance PEPs are Active? Give their numbers.",
        "SELECT pep FROM documents WHERE topic LIKE '%Governance%' AND status = 'Active' ORDER BY pep",
        lambda ps: [
            [p.number] for p in sorted(ps, key=lambda p: p.number) if "Governance" in p.topics and p.status == "Active"
        ],
    ),
    Question(
        "p17",
        "peps",
        "filter",
        "Which PEPs targeting Python 3.14 were accepted or are final? Numbers.",
        "SELECT pep FROM documents WHERE python_version = '3.14' AND status IN ('Accepted', 'Final') ORDER BY pep",
        lambda ps: [
            [p.number]
            for p in sorted(ps, key=lambda p: p.number)
            if p.python_version == "3.14" and p.status in ("Accepted", "Final")
        ],
    ),
    Question(
        "p18",
        "peps",
        "group",
        "How many PEPs are there per status?",
        "SELECT status, count(*) AS n FROM documents GROUP BY status ORDER BY n DESC, status",
        lambda ps: _groups(lambda p: p.status, ps),
    ),
    Question(
        "p19",
        "peps",
        "group",
        "How many PEPs of each type are there?",
        "SELECT type, count(*) AS n FROM documents GROUP BY type ORDER BY n DESC, type",
        lambda ps: _groups(lambda p: p.type, ps),
    ),
    Question(
        "p20",
        "peps",
        "group",
        "Per status, how many Informational PEPs are there?",
        "SELECT status, count(*) AS n FROM documents WHERE type = 'Informational' GROUP BY status ORDER BY n DESC, status",
        lambda ps: _groups(lambda p: p.status, ps, lambda p: p.type == "Informational"),
    ),
    Question(
        "p21",
        "peps",
        "top-k",
        "Which status do most PEPs have?",
        "SELECT status, count(*) AS n FROM documents GROUP BY status ORDER BY n DESC, status LIMIT 1",
        lambda ps: _top(lambda p: p.status, ps),
    ),
    Question(
        "p22",
        "peps",
        "top-k",
        "In which year were the most PEPs created?",
        "SELECT year(created) AS y, count(*) AS n FROM documents GROUP BY y ORDER BY n DESC, y LIMIT 1",
        lambda ps: _top(lambda p: p.created.year, ps),
    ),
    Question(
        "p23",
        "peps",
        "top-k",
        "Which Python version do the most PEPs target?",
        "SELECT python_version, count(*) AS n FROM documents WHERE python_version IS NOT NULL "
        "GROUP BY python_version ORDER BY n DESC, python_version LIMIT 1",
        lambda ps: _top(lambda p: p.python_version, [p for p in ps if p.python_version]),
    ),
    Question(
        "p24",
        "peps",
        "top-k",
        "Which are the three most recently created PEPs? Numbers.",
        "SELECT pep FROM documents ORDER BY created DESC, pep DESC LIMIT 3",
        lambda ps: [[p.number] for p in sorted(ps, key=lambda p: (p.created, p.number), reverse=True)[:3]],
    ),
    Question(
        "p25",
        "peps",
        "top-k",
        "Which is the oldest PEP by creation date? Number.",
        "SELECT pep FROM documents ORDER BY created, pep LIMIT 1",
        lambda ps: [[p.number] for p in sorted(ps, key=lambda p: (p.created, p.number))[:1]],
    ),
]


def _columns(t: PgTable) -> int:
    return len(t.columns)


CATALOG: list[Question] = [
    Question(
        "c01",
        "catalog",
        "count",
        "How many tables (not views) does the database have?",
        "SELECT count(*) FROM tables WHERE kind = 'table'",
        _count(lambda t: t.kind == "table"),
    ),
    Question(
        "c02",
        "catalog",
        "count",
        "How many views are there?",
        "SELECT count(*) FROM tables WHERE kind = 'view'",
        _count(lambda t: t.kind == "view"),
    ),
    Question(
        "c03",
        "catalog",
        "count",
        "How many tables have an email column?",
        "SELECT count(DISTINCT table_id) FROM columns WHERE lower(name) = 'email'",
        _count(lambda t: "email" in [c.lower() for c in t.columns]),
    ),
    Question(
        "c04",
        "catalog",
        "count",
        "How many tables have a column whose name mentions email?",
        "SELECT count(DISTINCT table_id) FROM columns WHERE lower(name) LIKE '%email%'",
        _count(lambda t: any("email" in c.lower() for c in t.columns)),
    ),
    Question(
        "c05",
        "catalog",
        "count",
        "How many tables are in the billing schema?",
        "SELECT count(*) FROM tables WHERE schema = 'billing' AND kind = 'table'",
        _count(lambda t: t.schema == "billing" and t.kind == "table"),
    ),
    Question(
        "c06",
        "catalog",
        "count",
        "How many tables have no primary key?",
        "SELECT count(*) FROM tables WHERE kind = 'table' AND primary_key IS NULL",
        _count(lambda t: t.kind == "table" and not t.primary_key),
    ),
    Question(
        "c07",
        "catalog",
        "count",
        "How many foreign-key columns does the crm schema have?",
        "SELECT count(*) FROM columns WHERE schema = 'crm' AND is_foreign_key",
        lambda ts: [[sum(len(t.foreign_key_columns) for t in ts if t.schema == "crm")]],
    ),
    Question(
        "c08",
        "catalog",
        "count",
        "How many columns of crm.contacts accept NULL?",
        "SELECT count(*) FROM columns WHERE table_id = 'crm.contacts' AND nullable",
        lambda ts: [[sum(sum(t.nullable) for t in ts if t.id == "crm.contacts")]],
    ),
    Question(
        "c09",
        "catalog",
        "top-k",
        "Which schema has the most tables?",
        "SELECT schema, count(*) AS n FROM tables WHERE kind = 'table' GROUP BY schema ORDER BY n DESC, schema LIMIT 1",
        lambda ts: _top(lambda t: t.schema, [t for t in ts if t.kind == "table"]),
    ),
    Question(
        "c10",
        "catalog",
        "top-k",
        "Which schema has the most views?",
        "SELECT schema, count(*) AS n FROM tables WHERE kind = 'view' GROUP BY schema ORDER BY n DESC, schema LIMIT 1",
        lambda ts: _top(lambda t: t.schema, [t for t in ts if t.kind == "view"]),
    ),
    Question(
        "c11",
        "catalog",
        "top-k",
        "Which three tables have the most columns?",
        "SELECT table_id FROM tables WHERE kind = 'table' ORDER BY column_count DESC, table_id LIMIT 3",
        lambda ts: [
            [t.id] for t in sorted((t for t in ts if t.kind == "table"), key=lambda t: (-_columns(t), t.id))[:3]
        ],
    ),
    Question(
        "c12",
        "catalog",
        "group",
        "How many tables does each schema have?",
        "SELECT schema, count(*) AS n FROM tables WHERE kind = 'table' GROUP BY schema ORDER BY n DESC, schema",
        lambda ts: _groups(lambda t: t.schema, ts, lambda t: t.kind == "table"),
    ),
]

QUESTIONS = PEPS + CATALOG
