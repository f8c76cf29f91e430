"""The preflight checklist: what a query assumes, where each assumption was confirmed, and what to ask.

Before a query runs, :func:`preflight` lists its assumptions as slots (:mod:`.slots`)
and looks each slot's value up in a fixed order, recording which source filled it:

1. ``question``: the user's own words name the value (or the period);
2. ``instructions``: the operator's instructions name it (or a time zone);
3. ``defaults``: the operator's defaults hold it (``timezone``, ``today``, a column's value);
4. ``database``: a bounded read-only probe finds the literal stored exactly in that column;
5. ``conversation``: the user answered it earlier in this session.

A slot left empty is an unknown. Unknowns come back together, as one batch of plain
questions ("'Acme' matches 2 values of suppliers.company_name: Acme Ltd, Acme GmbH —
which one?"), instead of rows. A value the question gives but that the database holds
under several spellings is an unknown too: the SQL would otherwise pick one, or add
them up, without the user knowing.

The question counts as naming a value only where the SQL keeps the rows holding it: a
plain ``=``, ``IN`` or positive pattern ANDed into the outermost query's filter. ``<>``,
``NOT IN``, a range, or a comparison under an OR, NOT, CASE, subquery, CTE or UNION branch
is asked about, and a filled value carries its operator (``<> paid``), so an approval
binds the comparison. The database does not confirm a value the question contradicts.

A literal no comparison with a column explains (``IN (SELECT 'Acme GmbH')``, a CTE's
constant: a ``literal:N`` slot) is looked up the same way, but the database cannot
confirm it: it needs the question, the operator or the user.

A time filter counts as the question's only when the interval it selects (each bound's
operator, the bounds ANDed) is exactly the period the question, the user or the
reference date names; open ends, other months and ``<>`` are asked about. SQL that
reads the database clock is bound to the day: its value holds today's date in the
time zone, so an approval given in December does not run the same SQL in January.

The probe is passed in (see :func:`~.probe.database_probe`), so this module
does no I/O of its own; at most :data:`MAX_PROBES` look-ups are made per checklist.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel, Field, PrivateAttr

from ..sql.validate import Validation, validate_sql
from ..tables.catalog import Catalog
from .lookup import Lookup
from .periods import relative_phrases
from .probe import Probe
from .slots import Slot, slots

ChecklistStatus = Literal["ready", "needs_answers", "refused"]


class Checklist(BaseModel):
    """The slots of one query, each with its value and source, and the questions still open."""

    status: ChecklistStatus = Field(
        description="ready: every slot is filled, approve it to run; needs_answers: ask the user `questions` first; "
        "refused: the SQL is not one read-only query over the catalog (see `errors`)."
    )
    catalog: str
    question: str
    dialect: str | None
    sql: str | None = Field(description="The validated statement, regenerated from its parse tree; null when refused.")
    verdict: str = Field(description="The id to pass as `approval` once the user agreed to these slots.")
    slots: list[Slot]
    unknowns: list[Slot] = Field(description="The slots no source filled, in one batch.")
    questions: list[str] = Field(description="One plain question per unknown, to ask the user together.")
    tables: list[str] = Field(description="Catalog tables the query reads (`schema.table`).")
    errors: list[str] = Field(default_factory=list, description="Why the SQL was refused.")
    warnings: list[str] = Field(default_factory=list)

    def pairs(self) -> dict[str, str | None]:
        """The ``{slot key: value}`` pairs an approval binds (``None`` for an unknown)."""
        return {slot.key: slot.value for slot in self.slots}

    _validation: Validation | None = PrivateAttr(None)

    @property
    def validation(self) -> Validation | None:
        """The validation the checklist was made from: what runs once it is approved, without parsing the SQL again."""
        return self._validation


def verdict_id(catalog: str, sql: str, pairs: Mapping[str, str | None]) -> str:
    """``V`` and 10 hex digits of a hash over the catalog, the SQL and the sorted slot pairs:
    the checklist's identity, which an approval names and :mod:`.verdicts` records.

    >>> verdict_id("shop", "SELECT 1", {"limit": "5"}) == verdict_id("shop", "SELECT 1", {"limit": "5"})
    True
    >>> verdict_id("shop", "SELECT 1", {"limit": "5"}) == verdict_id("shop", "SELECT 1", {"limit": "6"})
    False
    """
    payload = json.dumps([catalog, sql, sorted(pairs.items())], ensure_ascii=False, separators=(",", ":"))
    return "V" + hashlib.sha256(payload.encode()).hexdigest()[:10]


def preflight(
    sql: str,
    *,
    question: str,
    catalog: Catalog,
    dialect: str | None,
    max_rows: int,
    instructions: str = "",
    defaults: Mapping[str, str] | None = None,
    probe: Probe | None = None,
    conversation: Mapping[str, str] | None = None,
    now: datetime | None = None,
) -> Checklist:
    """The checklist of ``sql`` for ``question``: each slot filled from the first source that
    has it (question, instructions, defaults, database, conversation), or asked about.

    Args:
        sql: the query the agent wants to run.
        question: the user's words, to tell what the user said from what the SQL assumes.
        catalog: the tables and columns that exist.
        dialect: the sqlglot dialect (``sqlite``, ``postgres``, ``duckdb``); ``None`` uses the catalog's.
        max_rows: the most rows a run returns; the limit slot when the SQL has no LIMIT.
        instructions: the operator's instructions, as text.
        defaults: the operator's defaults: ``timezone``, ``today`` (ISO date), or a slot key
            (``value:main.orders.status``, ``orders.status`` or the bare column name) and its value.
        probe: looks values up in the database (bounded, read-only); ``None`` skips that source.
        conversation: earlier answers of the user, slot key (or ``time``) to value.
        now: the instant the checklist is made (aware; default: the system clock), which
            fixes "today" in a time zone for SQL that reads the database clock.
    """
    defaults, conversation = dict(defaults or {}), dict(conversation or {})
    validation = validate_sql(sql, dialect, catalog)
    if not validation.ok:
        errors = [*validation.errors, *(issue.message for issue in validation.issues)]
        return Checklist(
            status="refused",
            catalog=catalog.name,
            question=question,
            dialect=validation.dialect,
            sql=None,
            verdict=verdict_id(catalog.name, sql, {}),
            slots=[],
            unknowns=[],
            questions=[],
            tables=validation.tables,
            errors=errors,
            warnings=validation.warnings,
        )
    lookup = Lookup(question, instructions, defaults, probe, conversation, catalog, now or datetime.now(UTC))
    filled = [lookup.fill(slot, max_rows) for slot in slots(validation.parsed)]
    unknowns = [slot for slot in filled if slot.source is None]
    warnings = [*validation.warnings, *lookup.warnings]
    if relative_phrases(question) and not any(slot.kind == "time" for slot in filled):
        warnings.append(f"The question says {relative_phrases(question)[0]!r} but the SQL filters no date or time.")
    checklist = Checklist(
        status="needs_answers" if unknowns else "ready",
        catalog=catalog.name,
        question=question,
        dialect=validation.dialect,
        sql=validation.sql,
        verdict=verdict_id(catalog.name, validation.sql, {slot.key: slot.value for slot in filled}),
        slots=filled,
        unknowns=unknowns,
        questions=[slot.question for slot in unknowns if slot.question],
        tables=validation.tables,
        warnings=warnings,
    )
    checklist._validation = validation
    return checklist
