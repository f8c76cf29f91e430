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

The probe is passed in (see :func:`~.execute_tools.database_probe`), so this module
does no I/O of its own.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Callable, Literal, Mapping

from pydantic import BaseModel, Field

from ..tables.catalog import Catalog
from .periods import Period, literal_day, named_periods, relative_period, relative_phrases
from .slots import Slot, SlotSource, slots
from .sqlcheck import validate_sql
from .verdicts import verdict_id

ChecklistStatus = Literal["ready", "needs_answers", "refused"]
# What a probe is asked: is the literal stored (=), or what does the pattern select (like, ilike).
ProbeOperator = Literal["=", "like", "ilike"]
_TIME_ZONE = re.compile(
    r"\b(?:Africa|America|Antarctica|Asia|Atlantic|Australia|Europe|Indian|Pacific|Etc)/[A-Za-z_]+(?:/[A-Za-z_]+)?\b"
    r"|\b(?:UTC|GMT)(?:[+-]\d{1,2}(?::?\d{2})?)?\b"
)
_TODAY = re.compile(r"\btoday\b\D{0,20}(\d{4}-\d{2}-\d{2})", re.IGNORECASE)
# Operators whose literal names stored values, so the database can confirm or disambiguate it.
_SELECTING = {"=": "=", "in": "=", "like": "like", "ilike": "ilike"}


class ProbeResult(BaseModel):
    """What the database holds for one compared value (at most a few of each)."""

    matched: list[str] = Field(default_factory=list, description="Distinct stored values the predicate selects.")
    near: list[str] = Field(default_factory=list, description="Stored values containing the text, any case.")
    stored: list[str] = Field(default_factory=list, description="Some distinct stored values of the column.")
    error: str | None = Field(None, description="Why the database could not be asked.")


# (column as schema.table.column, literal, operator) -> what is stored.
Probe = Callable[[str, str, ProbeOperator], ProbeResult]


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
    """
    defaults, conversation = dict(defaults or {}), dict(conversation or {})
    validation = validate_sql(sql, dialect, catalog)
    if not validation.ok:
        errors = [*validation.errors, *(issue.message for issue in validation.issues)]
        return Checklist(status="refused", catalog=catalog.name, question=question, dialect=validation.dialect,
                         sql=None, verdict=verdict_id(catalog.name, sql, {}), slots=[], unknowns=[], questions=[],
                         tables=validation.tables, errors=errors, warnings=validation.warnings)  # fmt: skip
    lookup = _Lookup(question, instructions, defaults, probe, conversation)
    filled = [lookup.fill(slot, max_rows) for slot in slots(validation.sql, validation.dialect, catalog)]
    unknowns = [slot for slot in filled if slot.source is None]
    warnings = [*validation.warnings, *lookup.warnings]
    if relative_phrases(question) and not any(slot.kind == "time" for slot in filled):
        warnings.append(f"The question says {relative_phrases(question)[0]!r} but the SQL filters no date or time.")
    return Checklist(
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


def mentions(text: str, phrase: str) -> bool:
    """``phrase`` occurs in ``text`` as whole words, any case, any spacing.

    >>> mentions("Revenue of ACME  gmbh?", "Acme GmbH"), mentions("Acmeville", "Acme"), mentions("x", " ")
    (True, False, False)
    """
    words = phrase.split()
    if not words:
        return False
    pattern = r"\s+".join(re.escape(w) for w in words)
    return re.search(rf"(?<!\w){pattern}(?!\w)", text or "", re.IGNORECASE) is not None


def pattern_text(pattern: str) -> list[str]:
    """The plain pieces of a LIKE pattern, the words a question would use.

    >>> pattern_text("%Acme%"), pattern_text("Acme_%Ltd")
    (['Acme'], ['Acme', 'Ltd'])
    """
    return [piece for piece in re.split(r"[%_]+", pattern) if piece.strip()]


class _Lookup:
    """Fills slots from the sources in order; remembers what it could not ask the database."""

    def __init__(self, question: str, instructions: str, defaults: dict[str, str], probe: Probe | None,
                 conversation: dict[str, str]) -> None:  # fmt: skip
        self.question, self.instructions, self.defaults = question, instructions, defaults
        self.probe, self.conversation = probe, conversation
        self.warnings: list[str] = []
        self._probed: dict[tuple[str, str, str], ProbeResult] = {}

    def fill(self, slot: Slot, max_rows: int) -> Slot:
        if slot.kind in ("table", "column"):  # validate_sql found each in the catalog
            return slot.model_copy(update={"source": "catalog"})
        if slot.kind == "limit":
            return self._limit(slot, max_rows)
        if slot.kind == "time":
            return self._time(slot)
        return self._value(slot)

    # -- limit -------------------------------------------------------------------------

    def _limit(self, slot: Slot, max_rows: int) -> Slot:
        if not slot.literals:
            return _filled(slot, str(max_rows), "defaults", f"No LIMIT: at most {max_rows} rows come back.")
        written = slot.literals[0]
        note = f"Rows are capped at {max_rows} whatever the LIMIT." if written.isdigit() and int(written) > max_rows else None
        for source, text in (("question", self.question), ("instructions", self.instructions)):
            if mentions(text, written):
                return _filled(slot, written, source, note)
        return _filled(slot, written, "defaults", note or f"LIMIT {written}: the agent's choice, within the cap of {max_rows}.")

    # -- values ------------------------------------------------------------------------

    def _value(self, slot: Slot) -> Slot:
        literal = slot.literals[0] if slot.literals else slot.fragment
        operator = slot.operator or "="
        probing = _SELECTING.get(operator)
        text = pattern_text(literal) if operator in ("like", "ilike", "not like", "not ilike") else [literal]
        options: list[str] = []
        said = ""
        if text and all(mentions(self.question, piece) for piece in text):
            said = " ".join(text)
            options = self._said_but_several(slot, literal, probing)
            if not options:
                note = self._nothing_stored(slot, literal, probing)
                return _filled(slot, literal, "question", note)
        elif probing:
            said, options = self._partly_said(slot, literal)
        if mentions(self.instructions, " ".join(text)):
            return _filled(slot, literal, "instructions")
        default = _default(self.defaults, slot)
        if default is not None and default.lower() == literal.lower():
            return _filled(slot, literal, "defaults")
        if not options and probing == "=" and literal in self._probe(slot, literal, "=").matched:
            return _filled(slot, literal, "database", "The question does not name it; the database holds it.")
        answer = _answer(self.conversation, slot)
        if answer is not None and answer.lower() == literal.lower():
            return _filled(slot, literal, "conversation")
        return self._unknown_value(slot, literal, said, options, answer)

    def _said_but_several(self, slot: Slot, literal: str, probing: str | None) -> list[str]:
        """Stored values the question's value could mean when it is not exactly one of them."""
        if not probing:
            return []
        result = self._probe(slot, literal, probing)
        if probing == "=":
            return [] if literal in result.matched or len(result.near) < 1 else result.near
        return result.matched if len(result.matched) > 1 else ([] if result.matched else result.near)

    def _partly_said(self, slot: Slot, literal: str) -> tuple[str, list[str]]:
        """The SQL says 'Acme GmbH' where the question says 'Acme': which stored values does
        the question's word fit? Several means the SQL chose for the user."""
        words = literal.split()
        for size in range(len(words) - 1, 0, -1):
            for start in range(len(words) - size + 1):
                part = " ".join(words[start:start + size])
                if len(part) >= 3 and mentions(self.question, part):
                    near = self._probe(slot, part, "=").near
                    return (part, near) if len(near) > 1 else ("", [])
        return "", []

    def _nothing_stored(self, slot: Slot, literal: str, probing: str | None) -> str | None:
        if probing and not self._probe(slot, literal, probing).matched and self.probe is not None:
            return f"No stored value of {_shown(slot)} matches {literal!r}: the result will be empty."
        return None

    def _unknown_value(self, slot: Slot, literal: str, said: str, options: list[str], answer: str | None) -> Slot:
        column = _shown(slot)
        if answer is not None:
            ask = (f"The user answered {answer!r} for {column}, but the SQL still uses {literal!r}: "
                   f"write the SQL with {answer!r}.")  # fmt: skip
        elif len(options) == 1:
            ask = f"No stored value of {column} is {literal!r}; the closest is {options[0]!r} — is that the one?"
        elif options:
            shown = ", ".join(options[:10])
            pattern = (slot.operator or "").endswith("like")
            assumed = f" (the SQL assumes {literal!r})" if said != literal and not pattern else ""
            ask = f"{said!r} matches {len(options)} values of {column}: {shown} — which one?{assumed}"
        else:
            stored = self._probe(slot, literal, "=").stored if _SELECTING.get(slot.operator or "=") else []
            known = f"; stored values are: {', '.join(stored[:10])}" if stored else ""
            ask = f"{literal!r} for {column}: the question does not say it{known} — which value is meant?"
            options = stored[:10]
        return slot.model_copy(update={"question": ask, "options": options[:10]})

    def _probe(self, slot: Slot, literal: str, operator: str) -> ProbeResult:
        if self.probe is None or not slot.column or slot.column.count(".") != 2:
            return ProbeResult()
        key = (slot.column, literal, operator)
        if key not in self._probed:
            result = self.probe(slot.column, literal, operator)  # type: ignore[arg-type]
            if result.error:
                self.warnings.append(f"Could not look {_shown(slot)} up in the database: {result.error}")
            self._probed[key] = result
        return self._probed[key]

    # -- time --------------------------------------------------------------------------

    def _time(self, slot: Slot) -> Slot:
        phrases = relative_phrases(self.question)
        periods = named_periods(self.question)
        days = [d for d in map(literal_day, slot.literals) if d is not None]
        column = _shown(slot) if slot.column else "the query"
        when = f"{column} is compared with the database clock ({slot.fragment})" if slot.clock else None
        if periods and (slot.clock or days):
            if slot.clock:
                named = ", ".join(p.text for p in periods)
                return _filled(slot, f"{slot.fragment} | {named}", "question",
                               f"The question names {named}; the SQL computes it from the database clock: "
                               "writing those dates would be safer.")  # fmt: skip
            if all(any(p.holds(d) for p in periods) for d in days):
                return _filled(slot, slot.fragment, "question")
            return _asked(slot, f"The SQL limits {column} to {', '.join(slot.literals)}, but the question names "
                                f"{', '.join(p.text for p in periods)} — which period is meant?")  # fmt: skip
        if not (phrases or slot.clock):  # absolute dates the question does not state
            if any(mentions(self.instructions, v) for v in slot.literals):
                return _filled(slot, slot.fragment, "instructions")
            default = _default(self.defaults, slot)
            if default is not None:
                return _filled(slot, slot.fragment, "defaults", f"Default period: {default}.")
            answer = _answer(self.conversation, slot, time=True)
            if answer is not None:
                return _filled(slot, f"{slot.fragment} | {answer}", "conversation")
            return _asked(slot, f"The SQL limits {column} to {', '.join(slot.literals) or slot.fragment}, but the "
                                "question names no period — which period is meant?")  # fmt: skip
        # A relative phrase, or the clock: someone must say which day today is, and where.
        for source, zone, today in self._references():
            if zone and (today or slot.clock):
                mismatch = _outside(phrases, today, days) if today and days and not slot.clock else None
                if mismatch:
                    return _asked(slot, mismatch)
                reference = f"time zone {zone}" + (f", today {today.isoformat()}" if today else "")
                return _filled(slot, f"{slot.fragment} | {reference}", source, when)
        answer = _answer(self.conversation, slot, time=True)
        if answer is not None:
            answered = named_periods(answer)
            if answered and days and not all(any(p.holds(d) for p in answered) for d in days):
                return _asked(slot, f"The user answered {answer!r}, but the SQL limits {column} to "
                                    f"{', '.join(slot.literals)}: write the SQL with the dates of {answer!r}.")  # fmt: skip
            return _filled(slot, f"{slot.fragment} | {answer}", "conversation", when)
        if phrases:
            unit = re.search(r"day|week|month|quarter|year", phrases[0], re.IGNORECASE)
            which = f"which {unit.group(0).lower()}" if unit else "which dates"
            return _asked(slot, f"{phrases[0]!r} — {which}, and in which time zone?")
        return _asked(slot, f"{when}, but the question names no time — which period, and in which time zone?")

    def _references(self):
        """(source, time zone, today) from the instructions, then the defaults."""
        zone = _TIME_ZONE.search(self.instructions or "")
        today = _TODAY.search(self.instructions or "")
        yield "instructions", zone.group(0) if zone else None, _iso(today.group(1)) if today else None
        yield ("defaults", self.defaults.get("timezone") or (zone.group(0) if zone else None),
               _iso(self.defaults.get("today")) or (_iso(today.group(1)) if today else None))  # fmt: skip


def _outside(phrases: list[str], today: date, days: list[date]) -> str | None:
    """Why the SQL's dates are not what the question's phrase means on ``today``, if they are not."""
    for phrase in phrases:
        period: Period | None = relative_period(phrase, today)
        if period is not None and not all(period.holds(d) for d in days):
            return (f"{phrase!r} on {today.isoformat()} is {period.start.isoformat()} to {period.end.isoformat()}, "
                    f"but the SQL uses {', '.join(d.isoformat() for d in days)} — which period is meant?")  # fmt: skip
    return None


def _default(defaults: Mapping[str, str], slot: Slot) -> str | None:
    """A default for a slot, by its key, its column (with or without the schema) or the bare column name."""
    column = slot.column or ""
    names = [slot.key, slot.key.split("#")[0], column, column.split(".", 1)[-1], column.rsplit(".", 1)[-1]]
    return next((str(defaults[n]) for n in names if n and n in defaults), None)


def _answer(conversation: Mapping[str, str], slot: Slot, *, time: bool = False) -> str | None:
    names = [slot.key, slot.key.split("#")[0], *(["time"] if time else [])]
    return next((str(conversation[n]) for n in names if conversation.get(n) not in (None, "")), None)


def _filled(slot: Slot, value: str, source: SlotSource, note: str | None = None) -> Slot:
    return slot.model_copy(update={"value": value, "source": source, "note": note})


def _asked(slot: Slot, question: str) -> Slot:
    return slot.model_copy(update={"question": question})


def _shown(slot: Slot) -> str:
    """``suppliers.company_name`` for ``main.suppliers.company_name``: what a user recognises."""
    column = slot.column or slot.key.split(":", 1)[-1]
    return column.split(".", 1)[1] if column.count(".") == 2 else column


def _iso(text: str | None) -> date | None:
    try:
        return date.fromisoformat(text) if text else None
    except ValueError:
        return None
