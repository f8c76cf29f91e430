"""Which chunks a verbatim reference in the question points at: the chunks' side of pinning.

Three kinds of reference are taken verbatim from a question:

* a labelled number, ``PEP 572``, ``RFC 9457``, ``Article 18``: the label in capitals,
  or capitalised inside the sentence, or in any case when documents of the corpus
  are known by it (``pep 484`` in a corpus of PEPs); matched in any case, with or
  without a space or hyphen (``pep-8`` = ``PEP 8``);
* a version, ``3.12``: matched exactly;
* a code identifier, ``HTTPException``, ``__init_subclass__``, or anything in
  backticks: matched with its case. An identifier may just as well be the asker's
  own (``my get_db function``), so it points only at chunks whose context header
  names it: sections *about* ``HTTPException``, not every passage that uses it.

A labelled number or version points at every chunk that has it in its header or
text. Chunks whose header has the reference come first. A reference found in more
than ``share`` of the documents says little about which passage is meant (a corpus
about FastAPI says ``FastAPI`` on almost every page): it pins only the chunks nearest
the question before a clear gap in their distances (:func:`~schema_search.core.pin.before_gap`),
and none when the distances slope evenly or the dense channel is off.

Whether a candidate holds a reference is read from its text, or, in a sealed corpus
(where reading is decrypting), looked up by the reference's verbatim key
(:mod:`.verbatim`) with the same answer.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass

from ..core import pin
from ..core.analyzer import words
from ..core.index import FieldRanker
from ..core.pin import before_gap
from . import verbatim
from .corpus import Chunk

# Chunks tantivy hands over for checking, per reference and field.
CANDIDATES = 2000
# However small the corpus, a reference in this many documents may still pin.
MIN_DOCUMENTS = 3
# A reference in more than this share of the documents is the corpus's subject, not an identifier.
SUBJECT_SHARE = 0.5
_LABELLED = re.compile(r"^([A-Za-z]+)[ -]?(\d+)$")
_BACKTICKED = re.compile(r"`([^`]+)`")
_SENTENCE_START = re.compile(r"(?:^|[.!?]\s+)$")


@dataclass(frozen=True)
class Reference:
    """One verbatim reference, the pattern a chunk must contain, and whether only its header counts.

    ``key``: what the texts ``pattern`` matches hold among their verbatim keys (:mod:`.verbatim`);
    None for a reference of a shape no key covers.
    """

    text: str
    pattern: re.Pattern[str]
    header_only: bool = False
    key: str | None = None


# A reference -> the chunks that hold it, told without reading one: (chunk id -> its document)
# for those with it in their header, and for those with it in their text; None: only reading tells.
Holders = Callable[[Reference], tuple[Mapping[str, str], Mapping[str, str]] | None]


def references(question: str, labels: Collection[str] = ()) -> list[Reference]:
    """The question's verbatim references, each with its matching rule.

    Args:
        labels: lower-cased labels the corpus's documents are known by (``pep``).

    >>> [r.text for r in references("Does PEP 572 change `match` in 3.12 or just get_db? Return 201, see /api/v1")]
    ['PEP 572', '3.12', 'match', 'get_db']
    >>> [r.text for r in references("what does pep 484 say", labels={"pep"})], references("what does pep 484 say")
    (['pep 484'], [])
    """
    found: list[Reference] = []
    candidates = pin.references(question)
    cited = [text for text in candidates if _cites(text, question, labels)]
    for text in cited:
        labelled = _LABELLED.match(text)
        if labelled:
            label, number = labelled.groups()
            rule = rf"(?<!\w){re.escape(label)}[ \u00a0-]?{number}(?!\w)"
            found.append(Reference(text, re.compile(rule, re.IGNORECASE), key=verbatim.labelled_key(label, number)))
        else:
            rule = rf"(?<![\w.]){re.escape(text)}(?!\w|\.\d)"
            found.append(Reference(text, re.compile(rule), key=verbatim.version_key(text)))
    parts = {word for text in candidates for word in text.replace("-", " ").split()}
    for name in _identifiers(question):
        if name not in parts:
            rule = rf"(?<!\w){re.escape(name)}(?!\w)"
            key = verbatim.identifier_key(name) or verbatim.call_key(name)
            found.append(Reference(name, re.compile(rule), header_only=True, key=key))
    return found


def _cites(text: str, question: str, labels: Collection[str]) -> bool:
    """Whether a "word number" pair is a citation rather than speech ("Return 201 when ...")."""
    labelled = _LABELLED.match(text)
    if not labelled:
        return True  # a version
    label = labelled.group(1)
    if label.lower() in labels or (label.isupper() and len(label) > 1):
        return True
    start = question.find(text)
    return label[:1].isupper() and label[1:].islower() and not _SENTENCE_START.search(question[:start])


def _identifiers(question: str) -> list[str]:
    """Backticked spans, and identifier-shaped words that are neither acronyms nor path segments."""
    quoted = _BACKTICKED.findall(question)
    bare = []
    for match in re.finditer(r"(?<![\w/.`])[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*(?![\w/`])", question):
        name = match.group(0)
        if pin.identifier_shaped(name) and not name.isupper():
            bare.append(name)
    return list(dict.fromkeys([q.strip() for q in quoted if q.strip()] + bare))


def pinned_chunks(
    question: str,
    fields: FieldRanker,
    chunk: Callable[[str], Chunk | None],
    documents: int,
    share: float,
    labels: Collection[str] = (),
    distances: Callable[[list[str]], Mapping[str, float]] | None = None,
    most: int = 10,
    holders: Holders | None = None,
) -> tuple[list[tuple[str, bool]], list[str]]:
    """``(chunk id, found in its context header)`` for every chunk a reference of the question points at,
    and the chunks a reference in too many documents keeps by its gap.

    Args:
        documents: how many documents the corpus has.
        share: a reference in more than this share of them pins only what its gap rule keeps.
        distances: chunk ids -> their distances to the question (the dense channel), for that rule.
        most: how many passages the answer holds: the gap must come within them.
        holders: where references are told without reading chunks (a sealed corpus): ``chunk``
            is then called only for a reference it cannot tell.

    A chunk that several references point at is listed once, in its header if any
    reference is. The search puts chunks whose header has a reference first (they
    are *about* it; the rest mention it), each group in its fused order. Chunks kept by
    a gap are not put first: they stay above the floor in the fused order, as a keyword
    match does. Put first, a generic word's nearest passages (``Annotated`` in FastAPI's
    docs) pushed the page about it down; kept, the answer still holds them.
    """
    limit = max(MIN_DOCUMENTS, math.floor(share * documents))
    found: dict[str, bool] = {}
    kept: dict[str, None] = {}
    for reference in references(question, labels):
        chunks, spread = _containing(reference, fields, chunk, holders(reference) if holders else None)
        if spread <= limit:
            for chunk_id, in_header in chunks.items():
                found[chunk_id] = found.get(chunk_id, False) or in_header
        # In most documents it is what the corpus is about ("FastAPI" in FastAPI's docs): no gap
        # among its passages says anything about the question.
        elif distances is not None and spread <= SUBJECT_SHARE * documents:
            kept.update(dict.fromkeys(before_gap(distances(list(chunks)), most)))
    return list(found.items()), [chunk_id for chunk_id in kept if chunk_id not in found]


def _containing(
    reference: Reference,
    fields: FieldRanker,
    chunk: Callable[[str], Chunk | None],
    held: tuple[Mapping[str, str], Mapping[str, str]] | None = None,
) -> tuple[dict[str, bool], int]:
    """Chunks that point at ``reference`` (-> whether their header has it), and how many documents have it at all.

    ``held``: the chunks with it in their header, and in their text (-> their document), when
    known without reading them; the candidates and their order are the same either way.
    """
    found: dict[str, bool] = {}
    documents: set[str] = set()
    for chunk_id in dict.fromkeys(_ids(fields, words(reference.text))):
        if held is not None:
            header, text = held
            in_header, in_text = chunk_id in header, chunk_id in text
            document = header.get(chunk_id, text.get(chunk_id, ""))
        else:
            item = chunk(chunk_id)
            if item is None:
                continue
            in_header = bool(reference.pattern.search(item.context))
            in_text = bool(reference.pattern.search(item.text))
            document = item.document
        if not (in_header or in_text):
            continue
        documents.add(document)
        if in_header or not reference.header_only:
            found[chunk_id] = in_header
    return found, len(documents)


def _ids(fields: FieldRanker, terms: list[str]) -> Iterable[str]:
    for field in ("headings", "body"):
        yield from fields.containing_all(field, terms, CANDIDATES)
