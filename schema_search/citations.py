"""Which source IDs a client was shown, and what the IDs in its answer stand for.

Every table handed to an agent carries a short ID (``[T3fa21c]``). A :class:`Ledger`
records the IDs one client was actually given; :meth:`Ledger.resolve` replaces the
bracketed IDs in an answer with what they stand for and reports the ones the client
was never given: made up, or copied from somewhere else.

A :class:`Source` is a table today; documents (a URL with a title) fit the same
shape, under IDs with their own letter.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Iterable, Literal

from pydantic import BaseModel, Field

SourceKind = Literal["table", "document"]

# One ID: a capital letter (T for tables) and six hex digits.
_ID = r"[A-Z][0-9a-fA-F]{6}"
# "[T3fa21c]" or "[T3fa21c, T1b2c3d]": one bracket may cite several IDs.
CITATION = re.compile(rf"\[\s*({_ID}(?:\s*[,;]\s*{_ID})*)\s*\]")


@dataclass(frozen=True)
class Source:
    """What an ID stands for.

    Attributes:
        id: the short ID, e.g. ``T3fa21c``.
        kind: ``table`` or ``document``.
        ref: a table id (``schema.table``) or a document's URL.
        title: a document's title; unused for tables.
    """

    id: str
    kind: SourceKind
    ref: str
    title: str | None = None

    def shown(self) -> str:
        """How the answer names this source once its ID is resolved.

        >>> Source("T3fa21c", "table", "billing.invoices").shown()
        'billing.invoices'
        >>> Source("D00beef", "document", "https://wiki/x", "Refund policy").shown()
        'Refund policy (https://wiki/x)'
        """
        if self.kind == "document" and self.title:
            return f"{self.title} ({self.ref})"
        return self.ref


class Citation(BaseModel):
    id: str
    kind: SourceKind
    ref: str = Field(description="The table (`schema.table`) or URL the ID stands for.")
    count: int = Field(description="How often the text cites it.")


class CitationReport(BaseModel):
    """The answer with its IDs resolved, and which IDs were not earned."""

    text: str = Field(description="The text with each known [ID] replaced by [what it stands for].")
    cited: list[Citation] = Field(description="IDs this client was given, as cited, in order of first use.")
    fabricated: list[str] = Field(
        description="IDs cited but never returned to this client; left in the text marked `unverified`."
    )
    ok: bool = Field(description="True when every cited ID was returned to this client.")


class Ledger:
    """The sources one client has been shown. Thread-safe: tools may run in threads."""

    def __init__(self) -> None:
        self._sources: dict[str, Source] = {}
        self._lock = threading.Lock()

    def record(self, sources: Iterable[Source]) -> None:
        with self._lock:
            for source in sources:
                self._sources[source.id.lower()] = source

    def get(self, source_id: str) -> Source | None:
        with self._lock:
            return self._sources.get(source_id.lower())

    def __len__(self) -> int:
        return len(self._sources)

    def resolve(self, text: str) -> CitationReport:
        """Replace ``[ID]`` with ``[what it stands for]``; mark IDs this client never got.

        >>> ledger = Ledger()
        >>> ledger.record([Source("T3fa21c", "table", "billing.invoices")])
        >>> report = ledger.resolve("Unpaid: see [T3fa21c] and [Tdeadbe].")
        >>> report.text
        'Unpaid: see [billing.invoices] and [unverified: Tdeadbe].'
        >>> report.fabricated, report.ok
        (['Tdeadbe'], False)
        """
        counts: dict[str, int] = {}
        found: dict[str, Source] = {}
        fabricated: list[str] = []

        def replace(match: re.Match[str]) -> str:
            parts = []
            for source_id in re.findall(_ID, match.group(1)):
                source = self.get(source_id)
                if source is None:
                    if source_id not in fabricated:
                        fabricated.append(source_id)
                    parts.append(f"unverified: {source_id}")
                    continue
                found.setdefault(source.id, source)
                counts[source.id] = counts.get(source.id, 0) + 1
                parts.append(source.shown())
            return "[" + ", ".join(parts) + "]"

        resolved = CITATION.sub(replace, text)
        cited = [Citation(id=s.id, kind=s.kind, ref=s.ref, count=counts[s.id]) for s in found.values()]
        return CitationReport(text=resolved, cited=cited, fabricated=fabricated, ok=not fabricated)


class Ledgers:
    """One :class:`Ledger` per client session, the least recently used dropped past ``limit``."""

    def __init__(self, limit: int = 1000) -> None:
        self._ledgers: OrderedDict[str, Ledger] = OrderedDict()
        self._limit = limit
        self._lock = threading.Lock()

    def __call__(self, session: str) -> Ledger:
        with self._lock:
            ledger = self._ledgers.pop(session, None) or Ledger()
            self._ledgers[session] = ledger
            while len(self._ledgers) > self._limit:
                self._ledgers.popitem(last=False)
            return ledger
