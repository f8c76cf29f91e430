"""What a question says about time: relative phrases that need a reference date, and named periods.

:mod:`.lookup` asks two things of a question before a time filter runs: does it
name a period outright ("in October 2026", "Q3 2026", "2024-10-05"), so the SQL's
dates can be checked against it, and does it use a phrase whose meaning moves with the
calendar ("last month", "yesterday", "the last 7 days"), so someone has to say which
day "today" is and in which time zone. Pure functions, no clock: ``today`` is always
passed in.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta, timezone, tzinfo
from typing import NamedTuple
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

MONTHS = {
    m: i
    for i, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for m in names
}
_MONTH = "|".join(sorted(MONTHS, key=len, reverse=True))
# A month named without a year ("sales in October") leaves the year open; "may" is left out, being a verb too.
_BARE_MONTH = "|".join(m for m in MONTHS if len(m) > 3 and m != "sept")
_UNIT = r"(?:day|week|month|quarter|year)s?"
RELATIVE = re.compile(
    rf"\b(?:(?:last|this|past|previous|prior|current|next|coming)\s+(?:\d+\s+|few\s+|couple\s+of\s+)?{_UNIT}"
    r"|yesterday|today|tonight|tomorrow|recent(?:ly)?|lately|so\s+far|to\s+date|year[\s-]to[\s-]date|ytd|mtd"
    rf"|(?:a|one|\d+)\s+{_UNIT}\s+ago|q[1-4](?!\s*(?:of\s+)?\d{{4}})|(?:{_BARE_MONTH})(?!\w)(?!\s*(?:of\s+|,\s*)?\d{{4}}))",
    re.IGNORECASE,
)
_ISO_DAY = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_ISO_MONTH = re.compile(r"\b(\d{4})-(\d{2})\b(?!-\d)")
_MONTH_YEAR = re.compile(
    rf"\b(?:\d{{1,2}}(?:st|nd|rd|th)?\s+)?({_MONTH})\.?(?:\s+\d{{1,2}}(?:st|nd|rd|th)?)?(?:\s+of|,)?\s+(\d{{4}})\b",
    re.IGNORECASE,
)
_QUARTER = re.compile(r"\bq([1-4])(?:\s+of)?\s+(\d{4})\b|\b(\d{4})\s*-?\s*q([1-4])\b", re.IGNORECASE)
_YEAR = re.compile(r"(?<![\d-])((?:19|20)\d{2})(?![\d-])")


class Period(NamedTuple):
    """A stretch of days, ``end`` exclusive, as the question named it."""

    start: date
    end: date
    text: str

    def holds(self, day: date) -> bool:
        """``day`` lies in the period; its exclusive end does not.

        >>> october = Period(date(2026, 10, 1), date(2026, 11, 1), "October 2026")
        >>> october.holds(date(2026, 10, 31)), october.holds(date(2026, 11, 1))
        (True, False)
        """
        return self.start <= day < self.end

    def equals(self, interval: Interval | None) -> bool:
        """The SQL's interval is exactly this period: from its first day's midnight to the
        midnight after its last day, both bounds present.

        >>> october = Period(date(2026, 10, 1), date(2026, 11, 1), "October 2026")
        >>> october.equals(Interval(datetime(2026, 10, 1), datetime(2026, 11, 1))), october.equals(Interval(datetime(2026, 10, 1), None))
        (True, False)
        """
        return (
            interval is not None
            and interval.start == datetime.combine(self.start, datetime.min.time())
            and interval.end == datetime.combine(self.end, datetime.min.time())
        )


class Interval(NamedTuple):
    """What a time filter selects: ``start`` inclusive, ``end`` exclusive; ``None`` where open."""

    start: datetime | None
    end: datetime | None

    def describe(self) -> str:
        """The interval in words, for a question to the user.

        >>> Interval(datetime(2026, 11, 1), None).describe(), Interval(datetime(2026, 10, 1), datetime(2026, 11, 1)).describe()
        ('from 2026-11-01 on, with no end', 'from 2026-10-01 to 2026-11-01 (end excluded)')
        """
        start, end = (_shown(t) if t is not None else None for t in self)
        if start and end:
            return (
                f"from {start} to {end} (end excluded)"
                if self.start < self.end
                else f"nothing (from {start} but before {end})"
            )
        if start:
            return f"from {start} on, with no end"
        return f"before {end}, with no start" if end else "any time"


def relative_phrases(question: str) -> list[str]:
    """Phrases whose meaning depends on today's date.

    >>> relative_phrases("Revenue of Acme last month, and orders in the past 7 days")
    ['last month', 'past 7 days']
    >>> relative_phrases("Revenue in October 2026"), relative_phrases("sales in October")
    ([], ['October'])
    """
    return [m.group(0) for m in RELATIVE.finditer(question or "")]


def named_periods(question: str) -> list[Period]:
    """The periods a question names outright: ISO days and months, month names with a year,
    quarters with a year, and years.

    >>> [(p.start.isoformat(), p.end.isoformat()) for p in named_periods("revenue in October 2026")]
    [('2026-10-01', '2026-11-01')]
    >>> [p.text for p in named_periods("Q3 2025 versus 2024, and on 2026-01-05")]
    ['2026-01-05', 'Q3 2025', '2024']
    """
    text = question or ""
    found: list[Period] = []
    taken: list[tuple[int, int]] = []

    def add(match: re.Match, start: date, end: date) -> None:
        found.append(Period(start, end, match.group(0)))
        taken.append(match.span())

    for match in _ISO_DAY.finditer(text):
        day = _day(int(match[1]), int(match[2]), int(match[3]))
        if day:
            add(match, day, day + timedelta(days=1))
    for match in _ISO_MONTH.finditer(text):
        if not _overlaps(match.span(), taken) and 1 <= int(match[2]) <= 12:
            add(match, date(int(match[1]), int(match[2]), 1), _next_month(date(int(match[1]), int(match[2]), 1)))
    for match in _MONTH_YEAR.finditer(text):
        if not _overlaps(match.span(), taken):
            first = date(int(match[2]), MONTHS[match[1].lower()], 1)
            add(match, first, _next_month(first))
    for match in _QUARTER.finditer(text):
        if not _overlaps(match.span(), taken):
            quarter, year = (int(match[1]), int(match[2])) if match[1] else (int(match[4]), int(match[3]))
            first = date(year, 3 * quarter - 2, 1)
            add(match, first, _next_month(_next_month(_next_month(first))))
    for match in _YEAR.finditer(text):
        if not _overlaps(match.span(), taken):
            add(match, date(int(match[1]), 1, 1), date(int(match[1]) + 1, 1, 1))
    return found


# Words before a named period that make it one end of an open stretch: "since October 2026".
_OPEN_FROM = re.compile(r"\b(?:since|from|starting(?:\s+(?:in|on|from))?|as\s+of)\s+(?:the\s+)?$", re.IGNORECASE)
_OPEN_AFTER = re.compile(r"\bafter\s+(?:the\s+)?$", re.IGNORECASE)
_OPEN_BEFORE = re.compile(r"\b(?:before|prior\s+to)\s+(?:the\s+)?$", re.IGNORECASE)


def open_match(question: str, period: Period, interval: Interval | None) -> bool:
    """The question makes ``period`` one end of an open stretch and ``interval`` is that
    stretch: "since" / "from" / "starting" (from its first day on), "after" (from the day
    after it), "before" (up to its first day).

    >>> october = named_periods("orders since October 2026")[0]
    >>> open_match("orders since October 2026", october, Interval(datetime(2026, 10, 1), None))
    True
    >>> open_match("orders in October 2026", october, Interval(datetime(2026, 10, 1), None))
    False
    """
    if interval is None or (interval.start is None) == (interval.end is None):
        return False
    at = (question or "").find(period.text)
    before = question[:at] if at >= 0 else ""
    start, end = (datetime.combine(d, datetime.min.time()) for d in (period.start, period.end))
    if _OPEN_FROM.search(before):
        return interval.start == start and interval.end is None
    if _OPEN_AFTER.search(before):
        return interval.start == end and interval.end is None
    if _OPEN_BEFORE.search(before):
        return interval.start is None and interval.end == start
    return False


def relative_period(phrase: str, today: date) -> Period | None:
    """What a relative phrase means on ``today``, for the phrases with one reading; ``None`` otherwise.

    >>> relative_period("last month", date(2026, 12, 2))
    Period(start=datetime.date(2026, 11, 1), end=datetime.date(2026, 12, 1), text='last month')
    >>> relative_period("last 7 days", date(2026, 12, 2)).start, relative_period("recently", date(2026, 12, 2))
    (datetime.date(2026, 11, 25), None)
    """
    words = " ".join(phrase.lower().split())
    month = today.replace(day=1)
    if words in ("this month", "current month", "mtd"):
        return Period(month, _next_month(month), phrase)
    if words in ("last month", "previous month", "prior month"):
        previous = (month - timedelta(days=1)).replace(day=1)
        return Period(previous, month, phrase)
    if words in ("this year", "current year", "ytd", "year to date", "year-to-date"):
        return Period(date(today.year, 1, 1), date(today.year + 1, 1, 1), phrase)
    if words in ("last year", "previous year", "prior year"):
        return Period(date(today.year - 1, 1, 1), date(today.year, 1, 1), phrase)
    if words == "today":
        return Period(today, today + timedelta(days=1), phrase)
    if words == "yesterday":
        return Period(today - timedelta(days=1), today, phrase)
    days = re.fullmatch(r"(?:last|past|previous) (\d+) days?", words)
    if days:
        return Period(today - timedelta(days=int(days[1])), today + timedelta(days=1), phrase)
    return None


# '2026', '2026-10', '2026-10-05', '2026-10-05 12:30', '2026-10-05T12:30:15.250+02:00'.
_STAMP = re.compile(
    r"^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?)?)?)?(?:Z|[+-]\d{2}:?\d{2})?$"
)
# How a bound reads once flipped by NOT: NOT (x >= a) is x < a.
_NEGATED = {"not >=": "<", "not >": "<=", "not <": ">=", "not <=": ">"}


def literal_span(literal: str) -> tuple[datetime, datetime] | None:
    """The instants a date literal stands for, to the precision it is written in: a day is
    its 24 hours, a month its days, ``'12:30'`` a minute. ``None`` if it is not a date.

    A written offset (``Z``, ``+02:00``) is dropped: the wall-clock time is compared, as
    the question's periods carry no time zone either.

    >>> literal_span("2026-10")
    (datetime.datetime(2026, 10, 1, 0, 0), datetime.datetime(2026, 11, 1, 0, 0))
    >>> literal_span("2026-10-31 23:59:59")[1], literal_span("paid")
    (datetime.datetime(2026, 11, 1, 0, 0), None)
    """
    match = _STAMP.match(literal.strip())
    if not match:
        return None
    year, month, day, hour, minute, second, fraction = match.groups()
    try:
        start = datetime(
            int(year),
            int(month or 1),
            int(day or 1),
            int(hour or 0),
            int(minute or 0),
            int(second or 0),
            int((fraction or "0").ljust(6, "0")),
        )
    except ValueError:
        return None
    if fraction:
        step = timedelta(microseconds=10 ** (6 - len(fraction)))
    elif second:
        step = timedelta(seconds=1)
    elif minute:
        step = timedelta(minutes=1)
    elif day:
        step = timedelta(days=1)
    elif month:
        return start, datetime.combine(_next_month(start.date()), datetime.min.time())
    else:
        return start, start.replace(year=start.year + 1)
    return start, start + step


def selected_interval(bounds: Sequence[tuple[str, Sequence[str]]]) -> Interval | None:
    """The interval a column must lie in to pass every one of ``bounds`` (all ANDed), each
    an operator and its literals: ``>=`` and ``>`` raise the start, ``<`` and ``<=`` lower
    the end, ``between`` sets both (inclusive), ``=`` (or ``in`` one value) is the span of
    its literal. ``None`` when the bounds are no single interval (``<>``, ``NOT BETWEEN``,
    ``IN`` several days, a literal that is no date).

    >>> selected_interval([(">=", ["2026-10-01"]), ("<=", ["2026-10-31"])]) == selected_interval([("=", ["2026-10"])])
    True
    >>> selected_interval([(">=", ["2026-10-01"])]).end is None, selected_interval([("<>", ["2026-10-15"])])
    (True, None)
    """
    start: datetime | None = None
    end: datetime | None = None
    for operator, literals in bounds:
        operator = _NEGATED.get(operator, operator)
        spans = [literal_span(v) for v in literals]
        if not spans or any(span is None for span in spans):
            return None
        if operator in ("=", "in") and len(spans) == 1:
            low, high = spans[0]
        elif operator == "between" and len(spans) == 2:
            low, high = spans[0][0], spans[1][1]
        elif operator in (">=", ">") and len(spans) == 1:
            low, high = spans[0][0 if operator == ">=" else 1], None
        elif operator in ("<", "<=") and len(spans) == 1:
            low, high = None, spans[0][0 if operator == "<" else 1]
        else:
            return None
        start = low if start is None or (low is not None and low > start) else start
        end = high if end is None or (high is not None and high < end) else end
    return Interval(start, end)


def today_in(zone: str, now: datetime) -> tuple[date, str | None]:
    """The date at instant ``now`` (aware) in time zone ``zone`` (an IANA name, ``UTC``,
    ``GMT+2``, ``UTC-05:30``), and why it was taken in UTC instead when ``zone`` is unknown.

    >>> today_in("Europe/Berlin", datetime(2026, 12, 31, 23, 30, tzinfo=timezone.utc))
    (datetime.date(2027, 1, 1), None)
    >>> today_in("UTC-05:00", datetime(2027, 1, 1, 3, 0, tzinfo=timezone.utc))[0]
    datetime.date(2026, 12, 31)
    """
    found = _zone(zone)
    if found is None:
        return now.astimezone(UTC).date(), f"time zone {zone!r} is not known here: today was taken in UTC"
    return now.astimezone(found).date(), None


def _zone(name: str) -> tzinfo | None:
    offset = re.fullmatch(r"(?:UTC|GMT)(?:([+-])(\d{1,2})(?::?(\d{2}))?)?", name.strip())
    if offset:
        sign, hours, minutes = offset.groups()
        delta = timedelta(hours=int(hours or 0), minutes=int(minutes or 0))
        return timezone(-delta if sign == "-" else delta)
    try:
        return ZoneInfo(name.strip())
    except (ZoneInfoNotFoundError, ValueError):
        return None


def _shown(moment: datetime) -> str:
    return moment.date().isoformat() if moment.time() == datetime.min.time() else moment.isoformat(sep=" ")


def _day(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _next_month(first: date) -> date:
    return date(first.year + first.month // 12, first.month % 12 + 1, 1)


def _overlaps(span: tuple[int, int], taken: list[tuple[int, int]]) -> bool:
    return any(span[0] < end and start < span[1] for start, end in taken)
