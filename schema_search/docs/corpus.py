"""The documents data model: Corpus -> Document -> Chunk, and what a reader hands the chunker.

Readers turn one file into a :class:`ParsedDocument` (title, header fields, sections
of blocks); :mod:`sources` gives it a URL and an ID and :mod:`chunker` cuts its
sections into :class:`Chunk` s. A :class:`Corpus` is what gets indexed and stored;
everything downstream (chunk documents, search, adapters, eval) reads it.

Each chunk keeps its document title and heading path. Together they are its
*context header*: part of what the embedding model reads and of the headings
channel, never of the chunk's stored text, which is exactly what the source says.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..core.ids import DIGITS, short_id
from ..core.sealing import SEALED, Sealer, damaged, opening

CORPUS_FILE = "corpus.json"
CHUNKS_FILE = "chunks.jsonl"
TEXTS_FILE = "texts.jsonl"
ID_DIGITS = DIGITS


@dataclass(frozen=True)
class Block:
    """A paragraph-level unit a chunk never cuts unless it is larger than a chunk.

    ``code``: a code fence or literal block; split only at line ends, never at sentences.
    """

    text: str
    code: bool = False


@dataclass(frozen=True)
class Derived:
    """Where a section's text came from when the file did not hold it as text.

    A citation of such a passage says "figure on page 4, read by OCR": the text was
    transcribed or described by a machine, not written by the author.

    Attributes:
        kind: ``scan`` (a page with no usable text layer, transcribed) or ``figure`` (a
            drawing, chart or photo on a page, or an image in a DOCX, read or described).
        page: the PDF page it is on (1-based), ``None`` for a DOCX image.
        by: how it was read: ``ocr`` (Tesseract) or ``vision:<litellm model>``.
        confidence: Tesseract's mean word confidence (0 to 1) for OCR; ``None`` for a model.
    """

    kind: str
    page: int | None
    by: str
    confidence: float | None = None

    def note(self) -> str:
        """The citation's words for it.

        >>> Derived("figure", 4, "ocr", 0.91).note()
        'figure on page 4, read by OCR (confidence 0.91)'
        >>> Derived("figure", None, "vision:gpt-4o").note()
        'figure, described by gpt-4o'
        >>> Derived("scan", 2, "ocr", 0.8).note()
        'scanned page 2, read by OCR (confidence 0.80)'
        """
        if self.kind == "scan":
            where = f"scanned page{f' {self.page}' if self.page else ''}"
        else:
            where = f"figure{f' on page {self.page}' if self.page else ''}"
        how = "read by OCR" if self.by == "ocr" else f"described by {self.by.removeprefix('vision:')}"
        sure = f" (confidence {self.confidence:.2f})" if self.confidence is not None else ""
        return f"{where}, {how}{sure}"


@dataclass(frozen=True)
class Section:
    """The blocks under one heading.

    Attributes:
        headings: the heading path below the document title (``("Usage", "Options")``);
            empty for the text before the first heading.
        anchor: the fragment the source gives this section (``check-it``), if any.
        derived: set when the blocks were read from pixels (a scan, a figure), not from text.
    """

    headings: tuple[str, ...]
    anchor: str | None
    blocks: tuple[Block, ...]
    derived: Derived | None = None


@dataclass(frozen=True)
class ParsedDocument:
    """What a reader makes of one file.

    Attributes:
        title: the document's own title (first H1, ``Title:`` header, ``<title>``), if any.
        fields: header fields copied verbatim (front matter, ``Key: value`` block,
            ``<meta>``), each key with its values in order.
        label: the number the document is known by, from the first header field when
            it is an integer (``PEP: 572`` -> ``PEP 572``).
        url: a ``url`` the document declares for itself (front matter), if any.
        visual: for a PDF or DOCX read beyond its text layer (or a page with local images), what that reading did
            (pages, pages OCR'd, figures found and described, decorations skipped, vision
            calls and their cost, seconds, warnings); ``None`` for text formats.
    """

    title: str | None
    sections: tuple[Section, ...]
    fields: dict[str, tuple[str, ...]] = field(default_factory=dict)
    label: str | None = None
    url: str | None = None
    visual: dict[str, Any] | None = None


@dataclass(frozen=True)
class Document:
    """One source file of a corpus. ``path`` is relative to the corpus folder, with ``/``.

    ``fetched``: when the page was fetched (ISO 8601, UTC) for a corpus indexed from a
    URL (:mod:`.crawl`); None for local files, and in corpora stored before it existed.
    ``modified``: when the file last changed (ISO 8601, UTC) as the folder said when it
    was read; None for uploads and in corpora stored before it existed.
    ``visual``: the reader's account of what it read from pixels (``ParsedDocument.visual``).
    """

    id: str
    path: str
    url: str
    title: str
    format: str
    label: str | None = None
    fields: dict[str, list[str]] = field(default_factory=dict)
    chars: int = 0
    words: int = 0
    fetched: str | None = None
    modified: str | None = None
    visual: dict[str, Any] | None = None


@dataclass(frozen=True)
class Chunk:
    """A piece of one document, sized for the embedding model, with where it sits.

    ``url`` is the document URL with the section's anchor (``...#check-it``) when the
    source gives one.
    """

    id: str
    document: str
    ordinal: int
    title: str
    headings: tuple[str, ...]
    url: str
    text: str
    label: str | None = None
    derived: dict[str, Any] | None = None  # a Derived's fields, when the text was read from pixels

    @property
    def context(self) -> str:
        return context_header(self.title, self.headings, self.label)

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "headings": list(self.headings)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Chunk:
        return cls(**{**data, "headings": tuple(data["headings"])})


def context_header(title: str, headings: Iterable[str], label: str | None = None) -> str:
    """The title (after the document's label when the title lacks it) and the heading path.

    >>> context_header("Assignment Expressions", ["Rationale"], "PEP 572")
    'PEP 572: Assignment Expressions > Rationale'
    >>> context_header("Background Tasks", [])
    'Background Tasks'
    """
    head = f"{label}: {title}" if label and label.lower() not in title.lower() else title
    return " > ".join([head, *headings])


def embedding_input(header: str, text: str) -> str:
    """What the embedding model reads for a chunk: its context header, then its text.

    >>> embedding_input("Guide > Install", "pip install it").split("\\n")
    ['Guide > Install', 'pip install it']
    """
    return f"{header}\n{text}"


def source_id(*parts: str, digits: int = ID_DIGITS) -> str:
    """A short stable ID for citing a document or chunk: ``S`` and hex digits of a hash.

    >>> source_id("fastapi", "tutorial/first-steps.md", "0")
    'S65c775'
    """
    return short_id("S", *parts, digits=digits)


class IdAllocator:
    """Hands out source IDs, lengthening one that would collide with an ID already given.

    Six hex digits collide by chance in large corpora (about 3% at 10,000 chunks);
    a longer ID for the later one keeps every ID unique and the others short.
    """

    def __init__(self) -> None:
        self._taken: set[str] = set()

    def __call__(self, *parts: str) -> str:
        digits = ID_DIGITS
        while (found := source_id(*parts, digits=digits)).lower() in self._taken:
            digits += 2
        self._taken.add(found.lower())
        return found


@dataclass(frozen=True)
class Corpus:
    """A named set of documents and their chunks from one folder.

    Attributes:
        source: where it came from (the folder, how URLs were made, chunking).
        warnings: files skipped or read in part, and why.
        texts: document id -> the document's whole text, for showing a document.
    """

    name: str
    documents: tuple[Document, ...] = ()
    chunks: tuple[Chunk, ...] = ()
    source: dict[str, Any] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    texts: dict[str, str] = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True)
class SealedChunk:
    """A chunk of a sealed corpus as it is held in memory: what it belongs to, its text still sealed.

    Only :meth:`open` decrypts it; a search opens the chunks it returns (and those a pin
    must read for a reference no verbatim key covers: ``docs.verbatim``), never the
    thousands it ranks (``CorpusSearcher.chunk``).
    """

    id: str
    document: str
    sealed: str
    corpus: str

    def open(self, sealer: Sealer) -> Chunk:
        """The chunk decrypted.

        Raises:
            IndexUnreadable: its record does not open (changed, or another chunk's).
        """
        with opening(f"Chunk {self.id!r} of corpus {self.corpus!r}"):
            text = sealer.open(self.sealed, chunk_aad(self.corpus, self.id))
        fields = json.loads(text)
        return Chunk.from_dict({"id": self.id, "document": self.document, **fields})


def chunk_aad(corpus: str, chunk_id: str) -> str:
    """What binds a sealed chunk to its place: a ciphertext moved to another id or corpus does not open."""
    return f"chunk\0{corpus}\0{chunk_id}"


def write_corpus(folder: Path, corpus: Corpus, sealer: Sealer | None = None) -> None:
    """Store ``corpus`` in a generation folder: metadata, chunks, and whole texts apart.

    With a ``sealer`` every record is sealed (``core.sealing``): the metadata as one, each
    chunk's and each whole text's own fields on their own line, beside their ids.
    """
    meta = {
        "name": corpus.name,
        "source": corpus.source,
        "warnings": list(corpus.warnings),
        "documents": [asdict(d) for d in corpus.documents],
    }
    chunks = (c.to_dict() for c in corpus.chunks)
    texts = ({"id": i, "text": t} for i, t in corpus.texts.items())
    if sealer is not None:
        name = corpus.name
        meta = {"name": name, SEALED: sealer.seal(json.dumps(meta, ensure_ascii=False), f"corpus\0{name}")}
        chunks = (_sealed_chunk(sealer, name, c) for c in chunks)
        texts = ({"id": t["id"], SEALED: sealer.seal(t["text"], f"text\0{name}\0{t['id']}")} for t in texts)
    (folder / CORPUS_FILE).write_text(json.dumps(meta, ensure_ascii=False), encoding="utf-8")
    _write_lines(folder / CHUNKS_FILE, chunks)
    _write_lines(folder / TEXTS_FILE, texts)


def _sealed_chunk(sealer: Sealer, corpus: str, chunk: dict) -> dict:
    # The id and the document stay readable: they are hashes, and ranking needs the page of each chunk.
    rest = {k: v for k, v in chunk.items() if k not in ("id", "document")}
    sealed = sealer.seal(json.dumps(rest, ensure_ascii=False), chunk_aad(corpus, chunk["id"]))
    return {"id": chunk["id"], "document": chunk["document"], SEALED: sealed}


def load_corpus(folder: Path, sealer: Sealer | None = None) -> Corpus:
    """The corpus of a generation folder, without the whole texts (see :func:`load_text`).

    A sealed corpus needs its ``sealer``; its chunks stay sealed (:class:`SealedChunk`).
    Whether it is sealed is the generation's to say (``sealer`` is given exactly when its
    manifest says so), not each record's: with a ``sealer``, a record in plain text is refused.

    Raises:
        ValueError: the corpus is sealed and no ``sealer`` was given.
        IndexUnreadable: with a ``sealer``, a record is plain or its metadata does not open.
    """
    meta = json.loads((folder / CORPUS_FILE).read_text(encoding="utf-8"))
    sealed = sealer is not None
    if SEALED in meta and sealer is None:
        raise ValueError("the corpus is sealed and no sealer was given")
    if sealer is not None:
        if SEALED not in meta:
            raise damaged(f"{CORPUS_FILE} of {str(folder)!r}", "is stored in plain text in a sealed generation")
        with opening(f"{CORPUS_FILE} of {str(folder)!r}"):
            text = sealer.open(meta[SEALED], f"corpus\0{meta['name']}")
        meta = {"name": meta["name"], **json.loads(text)}
    with open(folder / CHUNKS_FILE, encoding="utf-8") as lines:
        records = (json.loads(line) for line in lines)
        if sealed:
            chunks = tuple(_sealed_record(folder, r, meta["name"]) for r in records)
        else:
            chunks = tuple(Chunk.from_dict(r) for r in records)
    return Corpus(
        name=meta["name"],
        documents=tuple(Document(**d) for d in meta["documents"]),
        chunks=chunks,  # type: ignore[arg-type]  # SealedChunk for a sealed corpus
        source=meta.get("source", {}),
        warnings=tuple(meta.get("warnings", ())),
    )


def _sealed_record(folder: Path, record: dict, corpus: str) -> SealedChunk:
    if not isinstance(record.get(SEALED), str):
        raise damaged(
            f"Chunk {record.get('id')!r} in {CHUNKS_FILE} of {str(folder)!r}",
            "is stored in plain text in a sealed generation",
        )
    return SealedChunk(record["id"], record["document"], record[SEALED], corpus)


def opened(corpus: Corpus, sealer: Sealer | None) -> Corpus:
    """``corpus`` with every chunk decrypted: for a rebuild that reads them all, never for a search."""
    if sealer is None or not any(isinstance(c, SealedChunk) for c in corpus.chunks):
        return corpus
    chunks = tuple(c.open(sealer) if isinstance(c, SealedChunk) else c for c in corpus.chunks)
    return Corpus(corpus.name, corpus.documents, chunks, corpus.source, corpus.warnings, corpus.texts)


def load_text(folder: Path, document_id: str, sealer: Sealer | None = None) -> str | None:
    """One document's whole text, read from disk (and decrypted) only when someone asks for it.

    With a ``sealer`` (the generation is sealed) the text must be sealed: a plain one is refused.

    Raises:
        ValueError: the text is sealed and no ``sealer`` was given.
        IndexUnreadable: with a ``sealer``, the text is plain or does not open.
    """
    with open(folder / TEXTS_FILE, encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            if record["id"] == document_id:
                what = f"The text of document {document_id!r} in {TEXTS_FILE} of {str(folder)!r}"
                if sealer is not None:
                    if not isinstance(record.get(SEALED), str):
                        raise damaged(what, "is stored in plain text in a sealed generation")
                    with opening(what):
                        return sealer.open(record[SEALED], f"text\0{_corpus_name(folder)}\0{document_id}")
                if SEALED in record:
                    raise ValueError("the corpus is sealed and no sealer was given")
                return record["text"]
    return None


def _corpus_name(folder: Path) -> str:
    return json.loads((folder / CORPUS_FILE).read_text(encoding="utf-8"))["name"]


def _write_lines(path: Path, records: Iterable[dict]) -> None:
    with open(path, "w", encoding="utf-8") as out:
        for record in records:
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
