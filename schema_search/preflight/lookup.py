"""Filling a checklist's slots: each from the first source that holds its value, or a question for the user.

:class:`Lookup` takes one slot at a time and looks its value up in the order the
checklist promises (:mod:`.checklist`): the question, the operator's instructions, the
operator's defaults, the database (through the probe it is given, at most
:data:`MAX_PROBES` look-ups), the user's earlier answers. A value slot it cannot fill
comes back with the question to ask; a time slot with the period it selects in words.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date, datetime, timedelta

from ..tables.catalog import Catalog
from .periods import (
    Interval,
    Period,
    literal_span,
    named_periods,
    open_match,
    relative_period,
    relative_phrases,
    selected_interval,
    today_in,
)
from .probe import Probe, ProbeResult
from .slots import LiteralKind, Slot, SlotSource
from .wording import WILDCARDS, mentions, pattern_text, states_range, with_operator

# The most database look-ups one checklist makes: an IN list of a thousand values must not
# hold a worker for minutes. Slots past it are filled from the other sources or asked.
MAX_PROBES = 20
_TIME_ZONE = re.compile(
    r"\b(?:Africa|America|Antarctica|Asia|Atlantic|Australia|Europe|Indian|Pacific|Etc)/[A-Za-z_]+(?:/[A-Za-z_]+)?\b"
    r"|\b(?:UTC|GMT)(?:[+-]\d{1,2}(?::?\d{2})?)?\b"
)
_TODAY = re.compile(r"\btoday\b\D{0,20}(\d{4}-\d{2}-\d{2})", re.IGNORECASE)
# Operators whose literal names stored values, so the database can confirm or disambiguate it.
_SELECTING = {"=": "=", "in": "=", "like": "like", "ilike": "ilike", "glob": "glob"}
# Comparisons whose literal is what the rows hold: the question naming the value says what they select.
_POSITIVE = frozenset({"=", "in", "like", "ilike", "glob"})
# How an operator reads in a question to the user.
_SAYS = {
    "<>": "is not",
    "not =": "is not",
    "not in": "is not",
    ">": "is greater than",
    ">=": "is at least",
    "<": "is less than",
    "<=": "is at most",
    "not like": "does not match",
    "not ilike": "does not match",
    "not glob": "does not match",
    "between": "is between",
    "not between": "is not between",
}


class Lookup:
    """Fills slots from the sources in order; remembers what it could not ask the database."""

    def __init__(
        self,
        question: str,
        instructions: str,
        defaults: dict[str, str],
        probe: Probe | None,
        conversation: dict[str, str],
        catalog: Catalog,
        now: datetime,
    ) -> None:
        self.question, self.instructions, self.defaults = question, instructions, defaults
        self.probe, self.conversation, self.catalog, self.now = probe, conversation, catalog, now
        self.warnings: list[str] = []
        self._probed: dict[tuple[str, str, str, str], ProbeResult] = {}

    def fill(self, slot: Slot, max_rows: int) -> Slot:
        if slot.kind in ("table", "column"):  # validate_sql found each in the catalog
            return slot.model_copy(update={"source": "catalog"})
        if slot.kind == "limit":
            return self._limit(slot, max_rows)
        if slot.kind == "time":
            return self._time(slot)
        found = self._value(slot)
        # The approval binds the comparison, not just its literal: `<> paid` is not `= paid`.
        if found.value is not None and found.operator and found.column is not None:
            found = found.model_copy(update={"value": with_operator(found.operator, found.value)})
        return found

    # -- limit -------------------------------------------------------------------------

    def _limit(self, slot: Slot, max_rows: int) -> Slot:
        if not slot.literals:
            return _filled(slot, str(max_rows), "defaults", f"No LIMIT: at most {max_rows} rows come back.")
        written = slot.literals[0]
        if len(slot.literals) > 1:  # OFFSET: which rows come back is part of what is approved
            skipped = f"LIMIT {written} OFFSET {slot.literals[1]}"
            return _filled(
                slot,
                f"{written} OFFSET {slot.literals[1]}",
                "defaults",
                f"{skipped}: the first {slot.literals[1]} rows are skipped.",
            )
        note = (
            f"Rows are capped at {max_rows} whatever the LIMIT."
            if written.isdigit() and int(written) > max_rows
            else None
        )
        for source, text in (("question", self.question), ("instructions", self.instructions)):
            if mentions(text, written):
                return _filled(slot, written, source, note)
        return _filled(
            slot, written, "defaults", note or f"LIMIT {written}: the agent's choice, within the cap of {max_rows}."
        )

    # -- values ------------------------------------------------------------------------

    def _value(self, slot: Slot) -> Slot:
        if slot.column is None and slot.key.startswith("literal:"):
            return self._loose(slot)
        literal = slot.literals[0] if slot.literals else slot.fragment
        operator = slot.operator or "="
        if operator not in _POSITIVE or not slot.outer:
            return self._confirm(slot, literal, operator)
        probing = _SELECTING.get(operator)
        pattern = operator.removeprefix("not ") in WILDCARDS
        text = pattern_text(literal, operator) if pattern else [literal]
        options: list[str] = []
        said = ""
        if text and all(mentions(self.question, piece) for piece in text):
            said = " ".join(text)
            options = self._said_but_several(slot, literal, probing)
            if not options:
                note = self._nothing_stored(slot, literal, probing)
                if pattern and not probing:
                    note = (
                        f"The database was not asked what {operator.upper()} {literal!r} selects: "
                        "it may match more stored values than the question means."
                    )
                return _filled(slot, literal, "question", note)
        elif probing:
            said, options = self._partly_said(slot, literal)
        if mentions(self.instructions, " ".join(text)):
            return _filled(slot, literal, "instructions")
        default = _default(self.defaults, slot)
        if default is not None and default.lower() == literal.lower():
            return _filled(slot, literal, "defaults")
        if not options and probing == "=" and literal in self._probe(slot, literal, "=").matched:
            other = self._contradicted(slot, literal)
            if other is not None:
                return _asked(
                    slot,
                    f"The question says {other!r}, the SQL {literal!r} ({slot.fragment}) "
                    f"— which value of {_shown(slot)} is meant?",
                )
            return _filled(slot, literal, "database", "The question does not name it; the database holds it.")
        answer = _answer(self.conversation, slot)
        if answer is not None and answer.lower() == literal.lower():
            return _filled(slot, literal, "conversation")
        return self._unknown_value(slot, literal, said, options, answer)

    def _contradicted(self, slot: Slot, literal: str) -> str | None:
        """A stored value of the column, other than ``literal``, that the question names: the
        database holding 'shipped' does not make it what "paid orders" means."""
        if mentions(self.question, literal):
            return None
        result = self._probe(slot, literal, "=")
        return next(
            (
                v
                for v in [*result.stored, *result.near, *result.matched]
                if v.lower() != literal.lower() and mentions(self.question, v)
            ),
            None,
        )

    def _confirm(self, slot: Slot, literal: str, operator: str) -> Slot:
        """A comparison that does not simply keep the rows holding its value (``<>``, ``NOT IN``,
        a range, or one under an OR, NOT, CASE, subquery, CTE or UNION branch): the question
        naming the value does not say it is meant, so only the user's answer fills it, or the
        question stating that very range ("more than 20" for ``> 20``)."""
        if slot.outer and states_range(self.question, operator, literal):
            return _filled(slot, literal, "question")
        answer = _answer(self.conversation, slot)
        shown = with_operator(operator, literal)
        if answer is not None and answer.strip().lower() in (literal.lower(), shown.lower()):
            return _filled(slot, literal, "conversation")
        column = _shown(slot)
        table, _, name = column.rpartition(".")
        says = _SAYS.get(operator, operator.upper())
        if slot.outer:
            ask = f"The SQL keeps {table or 'rows'} whose {name} {says} {literal!r} ({slot.fragment}) — is that meant?"
        else:
            ask = (
                f"The SQL compares {column} {says} {literal!r} only in part of the query ({slot.fragment}: under an "
                "OR, NOT, CASE, subquery, CTE or UNION branch), so it does not simply keep the rows with that "
                "value — is that meant?"
            )
        if answer is not None:
            ask = f"The user answered {answer!r} for {slot.key}, but the SQL says {shown!r}. " + ask
        return _asked(slot, ask + f" (answer {shown!r} to confirm)")

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
                part = " ".join(words[start : start + size])
                if len(part) >= 3 and mentions(self.question, part):
                    near = self._probe(slot, part, "=", "string").near
                    return (part, near) if len(near) > 1 else ("", [])
        return "", []

    def _nothing_stored(self, slot: Slot, literal: str, probing: str | None) -> str | None:
        result = self._probe(slot, literal, probing) if probing else None
        if result is not None and not result.matched and not result.error and self.probe is not None:
            return f"No stored value of {_shown(slot)} matches {literal!r}: the result will be empty."
        return None

    def _loose(self, slot: Slot) -> Slot:
        """A literal no comparison with a column explains: no probe can confirm it, so the
        question, the operator or the user must name it."""
        literal = slot.literals[0]
        for source, text in (("question", self.question), ("instructions", self.instructions)):
            if mentions(text, literal):
                return _filled(slot, literal, source)  # type: ignore[arg-type]
        default = self.defaults.get(slot.key)
        if default is not None and str(default).lower() == literal.lower():
            return _filled(slot, literal, "defaults")
        answer = _answer(self.conversation, slot)
        if answer is not None and answer.lower() == literal.lower():
            return _filled(slot, literal, "conversation")
        if answer is not None:
            return _asked(
                slot,
                f"The user answered {answer!r} for {slot.key}, but the SQL still uses {literal!r} "
                f"({slot.fragment}): write the SQL with {answer!r}.",
            )
        return _asked(
            slot,
            f"{literal!r} in {slot.fragment}: the question does not say it, and no column comparison "
            "lets the database confirm it — which value is meant?",
        )

    def _unknown_value(self, slot: Slot, literal: str, said: str, options: list[str], answer: str | None) -> Slot:
        column = _shown(slot)
        if answer is not None:
            ask = (
                f"The user answered {answer!r} for {column}, but the SQL still uses {literal!r}: "
                f"write the SQL with {answer!r}."
            )
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

    def _probe(self, slot: Slot, literal: str, operator: str, kind: LiteralKind | None = None) -> ProbeResult:
        if self.probe is None or not slot.column or slot.column.count(".") != 2:
            return ProbeResult()
        kind = kind or slot.literal_kind or "string"
        key = (slot.column, literal, operator, kind)
        if key not in self._probed:
            if len(self._probed) >= MAX_PROBES:
                if not any(w.startswith("More than") for w in self.warnings):
                    self.warnings.append(
                        f"More than {MAX_PROBES} values to look up: the database was asked about the first "
                        f"{MAX_PROBES} only; the others are filled from the question, instructions, defaults "
                        "or answers, or asked."
                    )
                return ProbeResult(error=f"not looked up: over {MAX_PROBES} look-ups in one checklist")
            result = self.probe(slot.column, literal, operator, kind)  # type: ignore[arg-type]
            if result.error:
                self.warnings.append(f"Could not look {_shown(slot)} up in the database: {result.error}")
            self._probed[key] = result
        return self._probed[key]

    # -- time --------------------------------------------------------------------------

    def _time(self, slot: Slot) -> Slot:
        phrases = relative_phrases(self.question)
        periods = named_periods(self.question)
        column = _shown(slot) if slot.column else "the query"
        when = f"{column} is compared with the database clock ({slot.fragment})" if slot.clock else None
        interval = _interval(slot)
        selects = _selects(slot, interval)
        if periods and slot.column and (slot.clock or slot.literals):
            named = ", ".join(p.text for p in periods)
            if slot.clock:
                return _asked(
                    slot,
                    f"The question names {named}, but the SQL computes {column} from the database "
                    f"clock ({slot.fragment}): write the dates of {named} in the SQL.",
                )
            if any(p.equals(interval) or open_match(self.question, p, interval) for p in periods):
                return _filled(slot, slot.fragment, "question", self._whole_days(slot))
            return _asked(
                slot,
                f"The SQL selects {column} {selects}, but the question says {_spans(periods)} — which period is meant?",
            )
        if not (phrases or slot.clock):  # absolute dates the question does not state
            if any(mentions(self.instructions, v) for v in slot.literals):
                return _filled(slot, slot.fragment, "instructions")
            default = _default(self.defaults, slot)
            if default is not None:
                meant = named_periods(default)
                if meant and not any(p.equals(interval) for p in meant):
                    return _asked(
                        slot,
                        f"The SQL selects {column} {selects}, but the default period is "
                        f"{_spans(meant)} — which period is meant?",
                    )
                return _filled(slot, slot.fragment, "defaults", f"Default period: {default}.")
            answer = _answer(self.conversation, slot, time=True)
            if answer is not None:
                return self._answered(slot, answer, interval, selects, when)
            return _asked(
                slot, f"The SQL selects {column} {selects}, but the question names no period — which period is meant?"
            )
        # A relative phrase, or the clock: someone must say which day today is, and where.
        for source, zone, today in self._references():
            if zone and slot.clock:
                real, why = today_in(zone, self.now)
                fixed = (
                    f"the default today {today.isoformat()} does not apply to it" if today and today != real else None
                )
                notes = [when, _bound_to_day(real, zone), why, fixed]
                return _filled(slot, f"{slot.fragment} | time zone {zone}, today {real.isoformat()}", source, *notes)
            if zone and today:
                mismatch = _outside(phrases, today, interval, selects, column)
                if mismatch:
                    return _asked(slot, mismatch)
                stale = (
                    f"'today' is {today.isoformat()}, a fixed date from the operator's {source}: it does not "
                    "move with the calendar, so relative phrases keep meaning the same dates."
                )
                return _filled(
                    slot,
                    f"{slot.fragment} | time zone {zone}, today {today.isoformat()}",
                    source,
                    stale,
                    self._whole_days(slot),
                )
        answer = _answer(self.conversation, slot, time=True)
        if answer is not None:
            return self._answered(slot, answer, interval, selects, when)
        if phrases:
            unit = re.search(r"day|week|month|quarter|year", phrases[0], re.IGNORECASE)
            which = f"which {unit.group(0).lower()}" if unit else "which dates"
            return _asked(slot, f"{phrases[0]!r} — {which}, and in which time zone?")
        if periods:  # the clock outside a filter (an age, a difference): the named period does not fix it
            return _asked(
                slot,
                f"{when}, beside the period the question names ({_spans(periods)}) — in which time "
                "zone is the current date meant?",
            )
        return _asked(slot, f"{when}, but the question names no time — which period, and in which time zone?")

    def _answered(self, slot: Slot, answer: str, interval: Interval | None, selects: str, when: str | None) -> Slot:
        """A time slot the user answered: the period they name must be what the SQL selects;
        SQL that reads the clock must write the dates instead, or is bound to today."""
        column = _shown(slot) if slot.column else "the query"
        answered = named_periods(answer)
        if answered and slot.clock and slot.column:
            return _asked(
                slot,
                f"The user answered {answer!r}, but the SQL computes {column} from the database clock "
                f"({slot.fragment}): write the dates of {answer!r} in the SQL.",
            )
        if answered and not slot.clock and not any(p.equals(interval) for p in answered):
            return _asked(
                slot,
                f"The user answered {answer!r}, but the SQL selects {column} {selects}: "
                f"write the SQL with the dates of {answer!r}.",
            )
        if slot.clock:
            zone = _TIME_ZONE.search(answer)
            real, why = today_in(zone.group(0) if zone else "UTC", self.now)
            unzoned = None if zone else "the answer names no time zone: today was taken in UTC"
            return _filled(
                slot,
                f"{slot.fragment} | {answer} | today {real.isoformat()}",
                "conversation",
                when,
                _bound_to_day(real, zone.group(0) if zone else "UTC"),
                why,
                unzoned,
            )
        return _filled(slot, f"{slot.fragment} | {answer}", "conversation", self._whole_days(slot))

    def _whole_days(self, slot: Slot) -> str | None:
        """A note when the SQL compares a column that may hold times with whole days in a
        way a database reads as midnight (``<= '2026-10-31'``, ``> '2026-09-30'``, ``= '2026-10-05'``)."""
        if not slot.column or _is_date_type(self.catalog, slot.column):
            return None
        # BETWEEN's low end reads as >= (midnight is right); its high end as <=.
        loose = [
            b
            for b in slot.bounds
            if b.bare
            and b.operator in ("<=", ">", "=", "in", "between")
            and any(_whole_day(v) for v in (b.literals[-1:] if b.operator == "between" else b.literals))
        ]
        if not loose:
            return None
        column = _shown(slot)
        return (
            f"{column} is compared with whole days ({'; '.join(f'{b.operator} {b.literals}' for b in loose)}); read "
            f"as the full days. If {column} holds times of day, the database compares with midnight and may "
            f"leave out most of a day: {column} >= the first day AND {column} < the day after the last says it "
            "either way."
        )

    def _references(self):
        """(source, time zone, today) from the instructions, then the defaults."""
        zone = _TIME_ZONE.search(self.instructions or "")
        today = _TODAY.search(self.instructions or "")
        yield "instructions", zone.group(0) if zone else None, _iso(today.group(1)) if today else None
        yield (
            "defaults",
            self.defaults.get("timezone") or (zone.group(0) if zone else None),
            _iso(self.defaults.get("today")) or (_iso(today.group(1)) if today else None),
        )


def _outside(phrases: list[str], today: date, interval: Interval | None, selects: str, column: str) -> str | None:
    """Why the SQL's dates are not what the question's phrase means on ``today``, if they are not."""
    for phrase in phrases:
        period: Period | None = relative_period(phrase, today)
        if period is not None and not period.equals(interval):
            return (
                f"{phrase!r} on {today.isoformat()} is {period.start.isoformat()} to {period.end.isoformat()} "
                f"(end excluded), but the SQL selects {column} {selects} — which period is meant?"
            )
    return None


def _interval(slot: Slot) -> Interval | None:
    """What a time slot's bounds select; ``None`` when that cannot be told from its literals
    (the clock, an OR, a computed date, ``<>``)."""
    if slot.clock or not slot.bounds or not all(b.plain and b.anded and b.precise for b in slot.bounds):
        return None
    return selected_interval([(b.operator, b.literals) for b in slot.bounds])


def _selects(slot: Slot, interval: Interval | None) -> str:
    """What a time slot selects, in words, for a question to the user."""
    if interval is not None:
        return interval.describe()
    if slot.clock:
        return f"by the database clock ({slot.fragment})"
    if not all(b.anded for b in slot.bounds):
        return (
            f"by {slot.fragment}, which not every row that comes back has to meet (it sits under an OR, NOT, "
            "a subquery, a CTE or a UNION branch)"
        )
    if not all(b.precise for b in slot.bounds):
        return f"by {slot.fragment}, a shifted or reformatted date whose dates cannot be read off"
    return f"by {slot.fragment}, which is not one stretch from a start to an end"


def _spans(periods: list[Period]) -> str:
    """``'October 2026' (2026-10-01 to 2026-11-01, end excluded)``, or several joined by ``or``."""
    return " or ".join(f"{p.text!r} ({p.start.isoformat()} to {p.end.isoformat()}, end excluded)" for p in periods)


def _bound_to_day(today: date, zone: str) -> str:
    return (
        f"The SQL reads the database clock: checked for {today.isoformat()} in {zone}; an approval holds "
        "for that day only."
    )


def _whole_day(literal: str) -> bool:
    """A literal that names a day or more, no time of day: ``'2026-10-31'``, ``'2026-10'``."""
    span = literal_span(literal)
    return span is not None and span[1] - span[0] >= timedelta(days=1)


def _is_date_type(catalog: Catalog, column: str) -> bool:
    """The catalog says the column holds dates only (``DATE``), no times of day."""
    schema_table, _, name = column.rpartition(".")
    table = catalog.table(schema_table)
    found = table.column(name) if table is not None else None
    return found is not None and found.type.strip().lower() == "date"


def _default(defaults: Mapping[str, str], slot: Slot) -> str | None:
    """A default for a slot, by its key, its column (with or without the schema) or the bare column name."""
    column = slot.column or ""
    names = [slot.key, slot.key.split("#")[0], column, column.split(".", 1)[-1], column.rsplit(".", 1)[-1]]
    return next((str(defaults[n]) for n in names if n and n in defaults), None)


def _answer(conversation: Mapping[str, str], slot: Slot, *, time: bool = False) -> str | None:
    names = [slot.key, slot.key.split("#")[0], *(["time"] if time else [])]
    return next((str(conversation[n]) for n in names if conversation.get(n) not in (None, "")), None)


def _filled(slot: Slot, value: str, source: SlotSource, *notes: str | None) -> Slot:
    note = " ".join(n.rstrip(".") + "." for n in notes if n) or None
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
