"""Header fields proposed from a sample of documents, then validated and typed over all of them.

Every value is what a document's own header says (front matter, a ``Key: value``
block, ``<meta>``), copied verbatim: nothing here generates or guesses content. A
field becomes a column only when enough documents have it: filtering on a field
that one document in ten carries would silently exclude the other nine.

Types are detected, never assumed: a column is typed only when at least
:data:`TYPED_SHARE` of its present values parse; the values that do not parse are
counted in the report (and are NULL in the typed column), everything else is text.
Version strings (``3.10``, ``2.4``) are never numbers: ``3.10`` is not ``3.1``.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

FieldType = Literal["integer", "decimal", "date", "timestamp", "boolean", "text"]

# A field kept as a column must be in at least this share of the documents.
MIN_COVERAGE = 0.2
# A column is typed when at least this share of its present values parse as the type.
TYPED_SHARE = 0.95
# Documents read to propose fields; the proposal is then checked against every document.
SAMPLE_SIZE = 200
EXAMPLES = 3

_INTEGER = re.compile(r"[+-]?(0|[1-9][0-9]*)")
_DECIMAL = re.compile(r"[+-]?[0-9]+\.[0-9]+([eE][+-]?[0-9]+)?")
# Two or more dots, or a name that says so: a version, whatever its parts parse as.
_VERSION_VALUE = re.compile(r"v?[0-9]+(\.[0-9]+){2,}[a-z0-9.+-]*", re.IGNORECASE)
_VERSION_NAME = re.compile(r"version|release|python|requires")
_FRACTION = re.compile(r"([0-9]+)\.([0-9]+)")
_INT64 = 2**63
_TRUE, _FALSE = {"true", "yes"}, {"false", "no"}
_DATE_FORMATS = ("%Y-%m-%d", "%d-%b-%Y", "%d %b %Y", "%d %B %Y", "%B %d, %Y", "%b %d, %Y", "%Y/%m/%d")
_URL = re.compile(r"\s*(https?://|www\.)\S+\s*$", re.IGNORECASE)
# Names of identifier-like fields: exact values a model must never retype.
_EXACT_NAME = re.compile(r"(^|_)(id|ids|sku|code|isbn|url|urls|link|links|href|image|img|src|uri)$")


def column_name(key: str) -> str:
    """The column a header key becomes: lower-cased, every run of characters other than letters and digits as ``_``.

    >>> column_name("Python-Version"), column_name("  Discussions To: "), column_name("PEP"), column_name("作者")
    ('python_version', 'discussions_to', 'pep', '作者')
    """
    name = re.sub(r"[\W_]+", "_", key.lower()).strip("_")
    return name if name and not name[0].isdigit() else f"f_{name}"


def parse(value: str, kind: FieldType) -> Any:
    """``value`` as ``kind``, or ``None`` when it does not parse.

    >>> parse("28-Feb-2018", "date"), parse("3.10", "decimal"), parse("Yes", "boolean"), parse("0042", "integer")
    (datetime.date(2018, 2, 28), 3.1, True, None)
    """
    text = value.strip()
    if kind == "text":
        return value
    if kind == "integer":
        return int(text) if _INTEGER.fullmatch(text) and -_INT64 <= int(text) < _INT64 else None
    if kind == "decimal":  # a 20-digit code is not a number: as a double it would lose digits
        whole = _INTEGER.fullmatch(text) and -_INT64 <= int(text) < _INT64
        return float(text) if _DECIMAL.fullmatch(text) or whole else None
    if kind == "boolean":
        lowered = text.lower()
        return True if lowered in _TRUE else False if lowered in _FALSE else None
    if kind == "timestamp":
        try:
            return datetime.datetime.fromisoformat(text) if "T" in text or ":" in text else None
        except ValueError:
            return None
    for pattern in _DATE_FORMATS:
        try:
            return datetime.datetime.strptime(text, pattern).date()
        except ValueError:
            continue
    return None


def detect_type(name: str, values: Sequence[str]) -> FieldType:
    """The narrowest type at least :data:`TYPED_SHARE` of ``values`` parse as; else ``text``.

    >>> detect_type("pep", ["8", "20", "572"]), detect_type("created", ["28-Feb-2018", "2020-01-31"])
    ('integer', 'date')
    >>> detect_type("python_version", ["3.8", "3.10"]), detect_type("requires", ["2.4", "2.7.1"])
    ('text', 'text')
    >>> detect_type("price", ["19.90", "5"]), detect_type("draft", ["yes", "no"])
    ('decimal', 'boolean')
    """
    present = [v for v in values if v.strip()]
    if not present:
        return "text"
    candidates: list[FieldType] = ["integer", "decimal", "boolean", "date", "timestamp"]
    if _VERSION_NAME.search(name) or _versions(present):
        candidates = ["boolean", "date", "timestamp"]
    for kind in candidates:
        parsed = sum(parse(v, kind) is not None for v in present)
        if parsed >= TYPED_SHARE * len(present):
            return kind
    return "text"


def _versions(values: Sequence[str]) -> bool:
    """Whether dotted numbers read as versions: ``3.10.1``; or every value a small dotted pair with
    fractions of several lengths and a trailing zero that matters (``3.8`` beside ``3.10``).

    >>> _versions(["3.8", "3.10"]), _versions(["2.50", "3.99"]), _versions(["19.90", "5", "7.5"]), _versions(["1.2.3"])
    (True, False, False, True)
    """
    stripped = [v.strip() for v in values]
    if any(_VERSION_VALUE.fullmatch(v) for v in stripped):
        return True
    pairs = [_FRACTION.fullmatch(v) for v in stripped]
    if not pairs or not all(pair and int(pair.group(1)) < 10 for pair in pairs):
        return False
    fractions = [pair.group(2) for pair in pairs]
    return len({len(f) for f in fractions}) > 1 and any(len(f) > 1 and f.endswith("0") for f in fractions)


def looks_exact(name: str, values: Sequence[str]) -> bool:
    """Whether a field holds exact values (links, IDs, codes) a model should only see as placeholders.

    >>> looks_exact("resolution", ["https://mail.python.org/x", "https://discuss.python.org/t/1"])
    True
    >>> looks_exact("status", ["Final", "Draft"]), looks_exact("product_code", ["A-1"])
    (False, True)
    """
    present = [v for v in values if v.strip()]
    urls = sum(bool(_URL.match(v)) for v in present)
    return bool(_EXACT_NAME.search(name)) or (bool(present) and urls * 2 >= len(present))


@dataclass(frozen=True)
class Field:
    """A header field that became a column.

    Attributes:
        name: the column name; ``keys``: the header keys that map to it, as written.
        type: the detected type (of each element, for a list).
        list: some document repeats the key (or gives a YAML list): the column holds lists.
        coverage: the share of documents that have the field.
        exact: values reach a model only as placeholders.
        unparsed: present values that did not parse as ``type`` (NULL in the column).
    """

    name: str
    keys: tuple[str, ...]
    type: FieldType
    list: bool
    coverage: float
    documents: int
    examples: tuple[str, ...]
    exact: bool = False
    unparsed: int = 0


@dataclass(frozen=True)
class Dropped:
    """A field that did not become a column, and why."""

    name: str
    keys: tuple[str, ...]
    coverage: float
    documents: int
    reason: str


@dataclass(frozen=True)
class FieldReport:
    """What :func:`propose_and_validate` found: the columns, and what it left out."""

    documents: int
    with_header: int
    sampled: int
    fields: tuple[Field, ...] = ()
    dropped: tuple[Dropped, ...] = ()

    @property
    def has_header(self) -> bool:
        """Whether the documents share a machine-readable header (some field was kept)."""
        return bool(self.fields)

    def field(self, name: str) -> Field | None:
        return next((f for f in self.fields if f.name == name), None)


@dataclass(frozen=True)
class Choices:
    """Which columns hold exact values, beyond (``exact``) or against (``plain``) the default guess."""

    exact: frozenset[str] = field(default_factory=frozenset)
    plain: frozenset[str] = field(default_factory=frozenset)

    @classmethod
    def of(cls, exact: Iterable[str] = (), plain: Iterable[str] = ()) -> Choices:
        return cls(frozenset(map(column_name, exact)), frozenset(map(column_name, plain)))

    def then(self, later: Choices) -> Choices:
        """These choices with ``later`` ones on top (a later ``plain`` undoes an earlier ``exact``).

        >>> Choices.of(exact=["sku"]).then(Choices.of(plain=["sku"], exact=["isbn"]))
        Choices(exact=frozenset({'isbn'}), plain=frozenset({'sku'}))
        """
        return Choices((self.exact - later.plain) | later.exact, (self.plain - later.exact) | later.plain)

    def to_dict(self) -> dict[str, list[str]]:
        return {"exact": sorted(self.exact), "plain": sorted(self.plain)}

    def is_exact(self, name: str, guessed: bool) -> bool:
        return name in self.exact or (guessed and name not in self.plain)


def propose_and_validate(
    headers: Sequence[Mapping[str, Sequence[str]]],
    reserved: Iterable[str] = (),
    choices: Choices = Choices(),
    sample_size: int = SAMPLE_SIZE,
) -> FieldReport:
    """Propose columns from an even sample of ``headers``, then check each against every document.

    Args:
        headers: one mapping per document: header key -> its values, in order.
        reserved: column names the table already has (``url``, ``title``...): a field
            with such a name is dropped.
        choices: columns to treat as exact or not, against the default guess.

    >>> docs = [{"PEP": ["8"], "Status": ["Final"]}, {"PEP": ["20"], "Status": ["Active"], "Sponsor": ["A"]}]
    >>> docs += [{"PEP": [str(n)], "Status": ["Draft"]} for n in range(100, 108)]
    >>> report = propose_and_validate(docs)
    >>> [(f.name, f.type, f.coverage) for f in report.fields]
    [('pep', 'integer', 1.0), ('status', 'text', 1.0)]
    >>> [(d.name, d.coverage) for d in report.dropped]
    [('sponsor', 0.1)]
    """
    total = len(headers)
    step = max(1, total // sample_size) if total else 1
    sample = headers[::step][:sample_size]
    proposed = _by_column(sample)
    every = _by_column(headers)
    reserved = set(reserved)
    fields: list[Field] = []
    dropped: list[Dropped] = []
    for name, (keys, per_document) in every.items():
        documents = len(per_document)
        coverage = round(documents / total, 4) if total else 0.0
        reason = None
        if name in reserved:
            reason = f"same name as the built-in column {name!r}"
        elif name not in proposed:
            reason = "not in any sampled document"
        elif coverage < MIN_COVERAGE:
            reason = f"in fewer than {MIN_COVERAGE:.0%} of the documents: filtering on it would exclude the rest"
        if reason:
            dropped.append(Dropped(name, tuple(keys), coverage, documents, reason))
            continue
        values = [v for vs in per_document for v in vs]
        kind = detect_type(name, values)
        unparsed = sum(parse(v, kind) is None for v in values if v.strip()) if kind != "text" else 0
        fields.append(
            Field(
                name=name,
                keys=tuple(keys),
                type=kind,
                list=any(len(vs) > 1 for vs in per_document),
                coverage=coverage,
                documents=documents,
                examples=tuple(dict.fromkeys(values))[:EXAMPLES],
                exact=choices.is_exact(name, looks_exact(name, values)),
                unparsed=unparsed,
            )
        )
    fields.sort(key=lambda f: (-f.coverage, f.name))
    dropped.sort(key=lambda d: (-d.coverage, d.name))
    return FieldReport(
        documents=total,
        with_header=sum(bool(h) for h in headers),
        sampled=len(sample),
        fields=tuple(fields),
        dropped=tuple(dropped),
    )


def row_values(field_: Field, values: Sequence[str] | None) -> Any:
    """A document's values for a column, typed: one value, a list for a list column, or ``None`` (empty too)."""
    values = [v for v in values or () if v.strip()]
    if not values:
        return None
    typed = [parse(v, field_.type) for v in values]
    return typed if field_.list else typed[0]


def _by_column(headers: Sequence[Mapping[str, Sequence[str]]]) -> dict[str, tuple[list[str], list[list[str]]]]:
    """Column name -> (the keys written for it, each document's values), documents in order."""
    columns: dict[str, tuple[list[str], list[list[str]]]] = {}
    for header in headers:
        merged: dict[str, list[str]] = {}
        for key, values in header.items():
            present = [str(v) for v in values if str(v).strip()]  # "Post-History:" with nothing after it
            if not present:
                continue
            name = column_name(key)
            keys, _ = columns.setdefault(name, ([], []))
            if key not in keys:
                keys.append(key)
            merged.setdefault(name, []).extend(present)
        for name, values in merged.items():
            columns[name][1].append(values)
    return columns
