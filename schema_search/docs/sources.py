"""A folder of documents -> a :class:`~schema_search.docs.corpus.Corpus`: files, URLs, titles, chunks, IDs.

Where a document's URL comes from, first match wins:

1. ``manifest.jsonl`` in the folder, one ``{"path", "url", "title"}`` per file. When
   there is one, it lists the corpus: files it does not name are skipped (and
   reported). A ``path`` may be relative to a subfolder; a record that fits several
   files picks the one whose folders include one of its values (``"lang": "zh"``).
2. A ``url`` in the document's front matter.
3. ``--url-template``, e.g. ``https://docs.example.com/{path}/`` with ``{path}`` (the
   relative path without suffix), ``{stem}``, ``{name}`` (file name) or ``{file}``
   (relative path with suffix).
4. The path relative to the folder.

A section's anchor, where the source gives one, is appended as ``url#anchor``. A
file that cannot be read becomes a warning naming it and why; the rest indexes.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from ..errors import InvalidInput, SourceError
from . import readers
from .chunker import Chunking, chunk_section
from .corpus import Chunk, Corpus, Document, IdAllocator, ParsedDocument, context_header

MANIFEST = "manifest.jsonl"
MAX_FILE_BYTES = 50_000_000
PLACEHOLDERS = ("path", "stem", "name", "file")
# A word for the size count: a run of letters or digits, or one CJK character (CJK has no spaces).
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
_WORD = re.compile(f"[{_CJK}]|[^\\W{_CJK}]+")
# How many file names a warning lists before it only counts.
LISTED = 5

Progress = Callable[[Sequence, str], Iterable]


def read_corpus(
    folder: Path,
    name: str,
    chunking: Chunking,
    *,
    url_template: str | None = None,
    progress: Progress | None = None,
    origin: str | None = None,
) -> Corpus:
    """Read, chunk and identify every document under ``folder``.

    Args:
        origin: what to record as the source instead of the folder (``upload``), for
            a folder that does not outlive the indexing.

    Raises:
        SourceError: ``folder`` is not a folder, its manifest is malformed, or no file could be read.
        InvalidInput: ``url_template`` has an unknown placeholder.
    """
    if not folder.is_dir():
        raise SourceError(f"{folder} is not a folder.", hint="Give the folder that holds the documents.")
    _check_template(url_template)
    warnings: list[str] = []
    selected = _select(folder, warnings, upload=origin is not None)
    ids = IdAllocator()
    documents: list[Document] = []
    chunks: list[Chunk] = []
    texts: dict[str, str] = {}
    unreadable: list[str] = []
    for path, record in progress(selected, "reading") if progress else selected:
        relative = path.relative_to(folder).as_posix()
        try:
            if path.stat().st_size > MAX_FILE_BYTES:
                raise ValueError(f"larger than {MAX_FILE_BYTES // 1_000_000} MB")
            format_name, parsed = readers.read(path)
        except (ValueError, OSError, RecursionError) as error:
            unreadable.append(f"{relative}: {error}")
            continue
        text = _whole_text(parsed)
        if not text.strip():
            warnings.append(
                f"{relative}: no text (a scanned PDF has no text layer)"
                if format_name == "pdf"
                else f"{relative}: no text"
            )
        document = _document(ids(name, relative), relative, format_name, parsed, text, record, url_template)
        documents.append(document)
        texts[document.id] = text
        chunks.extend(_chunks(name, relative, document, parsed, chunking, ids))
    warnings[:0] = unreadable
    if not documents:
        # An upload's folder is the server's own scratch space: its name is no business of the client.
        raise SourceError(
            f"No readable document {'in the upload' if origin else f'under {folder}'}.",
            hint=(f"First problem: {warnings[0]}. " if warnings else "")
            + f"Supported files: {', '.join(sorted(readers.FORMATS))}.",
        )
    source = {
        "kind": origin or "folder",
        "path": None if origin else str(folder),
        "url_template": url_template,
        "manifest": (folder / MANIFEST).is_file(),
    }
    return Corpus(name, tuple(documents), tuple(chunks), source, tuple(warnings), texts)


def _select(folder: Path, warnings: list[str], upload: bool = False) -> list[tuple[Path, dict[str, Any]]]:
    """The files to read, each with its manifest record (empty without a manifest)."""
    files = sorted(
        p
        for p in folder.rglob("*")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(folder).parts)
    )
    records = _manifest(folder, upload)
    if records is None:
        unsupported = [p for p in files if not readers.supported(p)]
        if unsupported:
            suffixes: dict[str, int] = {}
            for p in unsupported:
                suffixes[p.suffix.lower() or "(none)"] = suffixes.get(p.suffix.lower() or "(none)", 0) + 1
            counts = ", ".join(f"{suffix} ({n})" for suffix, n in sorted(suffixes.items()))
            warnings.append(f"skipped {len(unsupported)} files of types no reader knows: {counts}")
        return [(p, {}) for p in files if readers.supported(p)]
    relative = {p.relative_to(folder).as_posix(): p for p in files}
    candidates = [_candidates(record, relative) for record in records]
    # The folder most records sit in, e.g. "pages/": it decides between "pages/index.md"
    # and "pages/about/index.md" for a record that says "index.md".
    prefixes = Counter(name[: len(name) - len(_wanted(r))] for r, names in zip(records, candidates) for name in names)
    chosen: dict[Path, dict[str, Any]] = {}
    for record, names in zip(records, candidates):
        found = _match(record, names, prefixes, relative)
        if isinstance(found, str):
            warnings.append(f"{MANIFEST}: {found}")
        else:
            chosen[found] = record
    unlisted = [name for name, p in relative.items() if p not in chosen and name != MANIFEST]
    if unlisted:
        warnings.append(
            f"skipped {len(unlisted)} files not listed in {MANIFEST}: {', '.join(unlisted[:LISTED])}"
            + (" ..." if len(unlisted) > LISTED else "")
        )
    return sorted(chosen.items(), key=lambda pair: pair[0])


def _manifest(folder: Path, upload: bool = False) -> list[dict[str, Any]] | None:
    path = folder / MANIFEST
    if not path.is_file():
        return None
    records = []
    shown = MANIFEST if upload else path  # an upload's scratch folder is the server's business alone
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise SourceError(
                f"{shown}, line {number}: not JSON ({error.msg}).",
                hint='Each line: {"path": ..., "url": ..., "title": ...}.',
            ) from None
        if not isinstance(record, dict) or not isinstance(record.get("path"), str):
            raise SourceError(
                f'{shown}, line {number}: no "path".', hint='Each line: {"path": ..., "url": ..., "title": ...}.'
            )
        # JSON's \ud83d escapes decode to lone surrogates too
        records.append({key: readers.well_formed(v) if isinstance(v, str) else v for key, v in record.items()})
    return records


def _wanted(record: dict[str, Any]) -> str:
    return PurePosixPath(record["path"]).as_posix().lstrip("./")


def _candidates(record: dict[str, Any], files: dict[str, Path]) -> list[str]:
    """Files whose relative path is the record's path, or ends with it."""
    wanted = _wanted(record)
    return [name for name in files if name == wanted or name.endswith("/" + wanted)]


def _match(record: dict[str, Any], names: list[str], prefixes: Counter, files: dict[str, Path]) -> Path | str:
    """The file a manifest record names, or why there is none.

    Several files may end with the record's path: first those under a folder named
    by one of the record's values (``"lang": "zh"``) are kept, then those in the
    folder most records sit in.
    """
    wanted = _wanted(record)
    if len(names) > 1:
        values = {str(v) for v in record.values() if isinstance(v, (str, int)) and v != record["path"]}
        named = [name for name in names if values & set(PurePosixPath(name).parts[:-1])]
        names = named or names
    if len(names) > 1:
        best = max(prefixes[name[: len(name) - len(wanted)]] for name in names)
        names = [name for name in names if prefixes[name[: len(name) - len(wanted)]] == best]
    if len(names) == 1:
        return files[names[0]]
    if names:
        return f"{wanted!r} fits several files ({', '.join(names[:3])}); give its path from the corpus folder"
    return f"{wanted!r} is not a file in the folder"


def _check_template(template: str | None) -> None:
    if template is None:
        return
    try:
        template.format(**{p: "x" for p in PLACEHOLDERS})
    except (KeyError, IndexError, ValueError) as error:
        raise InvalidInput(
            f"The URL template {template!r} does not format ({type(error).__name__}: {error}).",
            hint=f"Use the placeholders {', '.join('{' + p + '}' for p in PLACEHOLDERS)}, e.g. https://docs.example.com/{{path}}/.",
        ) from None


def _document(
    document_id: str,
    relative: str,
    format_name: str,
    parsed: ParsedDocument,
    text: str,
    record: dict,
    template: str | None,
) -> Document:
    posix = PurePosixPath(relative)
    if record.get("url"):
        url = str(record["url"])
    elif parsed.url:
        url = parsed.url
    elif template:
        url = template.format(path=str(posix.with_suffix("")), stem=posix.stem, name=posix.name, file=relative)
    else:
        url = relative
    title = record.get("title") or parsed.title or posix.stem
    return Document(
        id=document_id,
        path=relative,
        url=url,
        title=str(title),
        format=format_name,
        label=parsed.label,
        fields={key: list(values) for key, values in parsed.fields.items()},
        chars=len(text),
        words=len(_WORD.findall(text)),
    )


def _chunks(
    corpus: str, relative: str, document: Document, parsed: ParsedDocument, chunking: Chunking, ids: IdAllocator
) -> list[Chunk]:
    chunks = []
    for section in parsed.sections:
        header = context_header(document.title, section.headings, document.label)
        url = f"{document.url}#{section.anchor}" if section.anchor and "#" not in document.url else document.url
        for text in chunk_section(section, header, chunking):
            ordinal = len(chunks)
            chunks.append(
                Chunk(
                    id=ids(corpus, relative, str(ordinal)),
                    document=document.id,
                    ordinal=ordinal,
                    title=document.title,
                    headings=section.headings,
                    url=url,
                    text=text,
                    label=document.label,
                )
            )
    return chunks


def _whole_text(parsed: ParsedDocument) -> str:
    """The document as one text: headings as lines above their blocks."""
    parts = [parsed.title] if parsed.title else []
    for section in parsed.sections:
        if section.headings:
            parts.append(section.headings[-1])
        parts.extend(block.text for block in section.blocks)
    return "\n\n".join(parts)
