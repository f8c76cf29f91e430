"""Which source IDs a client was shown, and what the IDs and URLs in its answer stand for.

Every table handed to an agent carries a short ID (``[T3fa21c]``), every passage of
a document too (``[S3fa21c]``): agents copy a short ID faithfully where they drop or
mangle a long URL. A :class:`Ledger` records the sources one client was actually
given; :meth:`Ledger.resolve` replaces the bracketed IDs in an answer with what they
stand for (a passage's ID becomes its URL) and reports what was not earned: any
``[S...]``/``[T...]``-shaped token the client was never given, whatever its length
(made up, or cut short), and URLs in the answer that no result ever carried.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Iterable, Literal

from pydantic import BaseModel, Field

from ..structured.placeholders import Placeholders

SourceKind = Literal["table", "document"]

# One ID as an agent may write it: T (tables) or S (document passages) and hex digits.
# Real IDs have six (more after a rare collision); any length counts, so a truncated
# or padded copy is caught as unverified rather than ignored.
ID = r"[ST][0-9a-fA-F]{2,16}"
# "[T3fa21c]" or "[T3fa21c, S1b2c3d]": one bracket may cite several IDs.
CITATION = re.compile(rf"\[\s*({ID}(?:\s*[,;]\s*{ID})*)\s*\]")
URL = re.compile(r"https?://[^\s<>\[\]()\"'`\u3000-\u303f\uff00-\uffef]+")  # CJK punctuation ends a URL


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
    urls_not_retrieved: list[str] = Field(
        default_factory=list, description="URLs in the text that no result returned to this client carried."
    )
    placeholders_filled: list[str] = Field(
        default_factory=list, description="{{link:N}}-style placeholders replaced by the values they stand for."
    )
    placeholders_unknown: list[str] = Field(
        default_factory=list, description="Placeholders never issued to this client; left in the text, marked."
    )
    ok: bool = Field(description="True when every cited ID, URL and placeholder was given to this client.")


class Ledger:
    """The sources one client has been shown, and the placeholders issued to it. Thread-safe."""

    def __init__(self) -> None:
        self._sources: dict[str, Source] = {}
        self._lock = threading.Lock()
        self.placeholders = Placeholders()

    def record(self, sources: Iterable[Source]) -> None:
        with self._lock:
            for source in sources:
                self._sources[source.id.lower()] = source

    def get(self, source_id: str) -> Source | None:
        with self._lock:
            return self._sources.get(source_id.lower())

    def find(self, ref: str) -> Source | None:
        """The source shown with exactly this URL or table id, if any."""
        with self._lock:
            return next((s for s in self._sources.values() if s.ref == ref), None)

    def __len__(self) -> int:
        return len(self._sources)

    def retrieved(self, url: str) -> bool:
        """Whether a result given to this client carried ``url`` (its page counts for any of its sections).

        >>> ledger = Ledger()
        >>> ledger.record([Source("S3fa21c", "document", "https://x.dev/a/#b", "A")])
        >>> ledger.retrieved("https://x.dev/a"), ledger.retrieved("https://x.dev/a/#c"), ledger.retrieved("https://x.dev/z")
        (True, True, False)
        """
        wanted = page(url)
        with self._lock:
            return any(page(s.ref) == wanted for s in self._sources.values() if s.kind == "document")

    def resolve(self, text: str) -> CitationReport:
        """Replace ``[ID]`` with ``[what it stands for]`` and placeholders with their values; mark what this client never got.

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
            for source_id in re.findall(ID, match.group(1)):
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

        rendered = self.placeholders.render(CITATION.sub(replace, text))
        cited = [Citation(id=s.id, kind=s.kind, ref=s.ref, count=counts[s.id]) for s in found.values()]
        # URLs the model wrote itself; those that placeholders put back were issued, not written.
        urls = [u for u in dict.fromkeys(m.rstrip(".,;:!?") for m in URL.findall(text)) if not self.retrieved(u)]
        return CitationReport(
            text=rendered.text,
            cited=cited,
            fabricated=fabricated,
            urls_not_retrieved=urls,
            placeholders_filled=rendered.filled,
            placeholders_unknown=rendered.unknown,
            ok=not fabricated and not urls and rendered.ok,
        )


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


def page(url: str) -> str:
    """A URL without its fragment and trailing slash: how two links to one page compare.

    >>> page("https://x.dev/a/#b"), page("HTTPS://X.dev/a")
    ('https://x.dev/a', 'https://x.dev/a')
    """
    page = url.split("#", 1)[0].rstrip("/")
    scheme, _, rest = page.partition("://")
    host, slash, path = rest.partition("/")
    return f"{scheme.lower()}://{host.lower()}{slash}{path}"
