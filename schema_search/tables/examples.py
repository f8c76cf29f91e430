"""Past queries: question -> SQL pairs kept with a catalog, retrieved next to its tables.

A question asked before in other words is the best evidence of which tables a new one
needs: "revenue per member last quarter" and the approved SQL behind it name the three
tables a join needs, two of which the new question never mentions. Examples are an
item kind on the same core as tables and passages (a ``question`` BM25 field and the
dense channel over the question), stored in their own folder of the catalog's
generation (``examples/``), so adding one derives a new generation that shares the
tables' index files and swaps in atomically.

At search time the examples nearest the question (those the dense model puts above
the unrelated level, or that share every meaningful word) give the tables channel
``examples``: each example's tables, in the examples' order. A response shows those
examples too: an agent writing SQL reads how this database was queried before.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

from ..core import sealing
from ..core.analyzer import words
from ..core.kind import ItemKind
from ..core.sealing import Sealer

EXAMPLES_DIR = "examples"
EXAMPLES_FILE = "examples.jsonl"
FIELDS = ("question",)
# The channel's name among the tables' channels.
CHANNEL = "examples"
Origin = Literal["added", "approved"]


@dataclass(frozen=True)
class Example:
    """A question and the SQL that answered it, with the catalog tables the SQL reads.

    ``origin``: ``added`` by a user, or ``approved`` through the execute checklist.
    """

    question: str
    sql: str
    tables: tuple[str, ...]
    origin: Origin = "added"

    @property
    def id(self) -> str:
        """A short stable id: the same pair is one example however often it is added.

        >>> Example("How many singers?", "SELECT count(*) FROM singer", ("concert.singer",)).id
        'E16d0a91f'
        """
        digest = hashlib.sha1(f"{' '.join(self.question.split())}\n{' '.join(self.sql.split())}".encode())
        return "E" + digest.hexdigest()[:8]

    def to_dict(self) -> dict:
        return {**asdict(self), "tables": list(self.tables), "id": self.id}

    @classmethod
    def from_dict(cls, data: dict) -> Example:
        return cls(data["question"], data["sql"], tuple(data["tables"]), data.get("origin", "added"))


EXAMPLES: ItemKind[Example] = ItemKind(
    noun="example",
    fields=FIELDS,
    id_of=lambda example: example.id,
    document=lambda example: {"question": " ".join(words(example.question))},
    embedding_text=lambda example: example.question,
)


def merged(existing: Sequence[Example], added: Iterable[Example]) -> list[Example]:
    """``existing`` then the new ones of ``added``, each pair once (a repeated pair keeps its first origin).

    >>> a = Example("q", "SELECT 1", ("s.t",))
    >>> [e.origin for e in merged([a], [Example("q", "SELECT  1", ("s.t",), "approved"), Example("r", "x", ())])]
    ['added', 'added']
    """
    by_id = {example.id: example for example in existing}
    for example in added:
        by_id.setdefault(example.id, example)
    return list(by_id.values())


def tables_channel(ranked: Sequence[str], by_id: dict[str, Example]) -> list[str]:
    """The tables of the ranked examples, in the examples' order, each once. Pure.

    >>> e1, e2 = Example("a", "x", ("s.t", "s.u")), Example("b", "y", ("s.u", "s.v"))
    >>> tables_channel([e2.id, e1.id], {e1.id: e1, e2.id: e2})
    ['s.u', 's.v', 's.t']
    """
    return list(dict.fromkeys(table for example in ranked if example in by_id for table in by_id[example].tables))


def sealed_as(catalog: str) -> str:
    """Associated data of a sealed examples file (``core.sealing``): bound to its catalog, as
    ``catalog.json`` is, so one catalog's past queries do not open as another's."""
    return f"examples\0{catalog}"


def write_examples(folder: Path, examples: Sequence[Example], catalog: str, sealer: Sealer | None = None) -> None:
    """Store the pairs of ``catalog`` in ``folder``; sealed as one file with a ``sealer`` (questions and SQL say
    what the data is)."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = (json.dumps(example.to_dict(), ensure_ascii=False) + "\n" for example in examples)
    sealing.write_file(folder / EXAMPLES_FILE, "".join(lines), sealer, sealed_as(catalog))


def load_examples(folder: Path, catalog: str, sealer: Sealer | None = None) -> list[Example]:
    """The examples of ``catalog`` stored in ``folder`` (none when it has none)."""
    path = folder / EXAMPLES_FILE
    if not path.is_file():
        return []
    text = sealing.read_file(path, sealer, sealed_as(catalog), required=sealer is not None)
    return [Example.from_dict(json.loads(line)) for line in text.splitlines() if line]
