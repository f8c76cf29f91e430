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
4. The URL the site's generator publishes the page at (MkDocs, VitePress, Docusaurus:
   see :mod:`.sites`), when the folder is such a site.
5. The path relative to the folder.

A section's anchor, where the source gives one (or, in a generator's site, the one the
generator makes), is appended as ``url#anchor``. A file that cannot be read becomes a
warning naming it and why; the rest indexes.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import os
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from ..core.personal import mask
from ..errors import InvalidInput, SourceError
from . import readers
from .chunker import Chunking, chunk_section
from .corpus import Chunk, Corpus, Document, IdAllocator, ParsedDocument, context_header
from .sites.detect import check_site, detect
from .sites.site import Site
from .visual.options import Visual

MANIFEST = "manifest.jsonl"
# Formats whose whole text is written as Markdown (headings as ``#`` lines).
MARKDOWN_FORMATS = ("markdown", "mdx")
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
    site: str = "auto",
    visual: Visual | None = None,
    personal: Personal | None = None,
) -> Corpus:
    """Read, chunk and identify every document under ``folder``.

    Args:
        origin: what to record as the source instead of the folder (``upload``), for
            a folder that does not outlive the indexing.
        site: the generator that builds the folder (``mkdocs``, ``vitepress``,
            ``docusaurus``), ``plain`` for none, ``auto`` to detect it from its config file.
        visual: how PDFs and DOCX files are read beyond their text layer (scans, figures);
            ``None``: their text layer only.
        personal: mask e-mail addresses and phone numbers in every block before anything is
            stored or indexed (counted in the source's ``masked``); ``None``: kept as written.

    Raises:
        SourceError: ``folder`` is not a folder, its manifest or site config is malformed,
            or no file could be read.
        InvalidInput: ``url_template`` has an unknown placeholder, or ``site`` is unknown.
    """
    check_source(folder, url_template, site)
    if visual is not None and progress is not None:
        visual = dataclasses.replace(visual, progress=progress)
    builder = detect(folder, site, upload=origin is not None)
    warnings: list[str] = []
    selected = _select(folder, warnings, upload=origin is not None, site=builder)
    ids = IdAllocator()
    masked: Counter = Counter()
    documents: list[Document] = []
    chunks: list[Chunk] = []
    texts: dict[str, str] = {}
    unreadable: list[str] = []
    for path, record in progress(selected, "reading") if progress else selected:
        relative = path.relative_to(folder).as_posix()
        try:
            if path.stat().st_size > MAX_FILE_BYTES:
                raise ValueError(f"larger than {MAX_FILE_BYTES // 1_000_000} MB")
            page = builder.read(path, visual)
        except (ValueError, OSError, RecursionError) as error:
            unreadable.append(f"{relative}: {error}")
            continue
        if page is None:  # not a page after all (the site recorded why)
            continue
        format_name, parsed = page
        if personal is not None:
            parsed = _masked(parsed, personal, masked)
        text = _whole_text(parsed, markdown=format_name in MARKDOWN_FORMATS)
        # What reading a PDF or DOCX beyond its text layer could not do (Tesseract missing, a page
        # over the limits, the deadline) is the file's warning, where users look for one.
        warnings.extend(f"{relative}: {w}" for w in (parsed.visual or {}).get("warnings", ()))
        if not any(block.text.strip() for section in parsed.sections for block in section.blocks):
            # (A PDF's text is never empty: each page is a "Page N" heading.)
            warnings.append(
                f"{relative}: no text (a scanned PDF without a text layer, and no OCR read it: "
                "SCHEMA_SEARCH_DOCS_OCR and Tesseract, bash scripts/setup_tesseract.sh)"
                if format_name == "pdf"
                else f"{relative}: no text"
            )
        document = _document(
            ids(name, relative), relative, format_name, parsed, text, record, url_template, builder.url(path)
        )
        if origin is None:  # an upload's files are as old as the upload: their times say nothing
            document = dataclasses.replace(document, modified=modified(path))
        documents.append(document)
        texts[document.id] = text
        chunks.extend(_chunks(name, relative, document, parsed, chunking, ids))
    warnings[:0] = [*unreadable, *builder.warnings()]
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
        "site": builder.describe(),
    }
    if personal is not None:
        source["masked"] = {kind: masked[kind] for kind in ("e-mail addresses", "phone numbers")}
    return Corpus(name, tuple(documents), tuple(chunks), source, tuple(warnings), texts)


def check_source(folder: Path, url_template: str | None = None, site: str = "auto") -> None:
    """Refuse what would fail before anything is read or loaded: not a folder, a bad URL template, an unknown site.

    Raises:
        SourceError: ``folder`` is not a folder.
        InvalidInput: ``url_template`` has an unknown placeholder, or ``site`` is unknown.
    """
    if not Path(folder).is_dir():
        raise SourceError(f"{folder} is not a folder.", hint="Give the folder that holds the documents.")
    _check_template(url_template)
    check_site(site)


def _files(site: Site) -> list[Path]:
    """Every file under the site's page folders, hidden ones and the site's ignored folders left unvisited."""
    found: set[Path] = set()
    for root in site.roots:
        for place, folders, names in os.walk(root):
            folders[:] = [f for f in folders if not f.startswith(".") and f not in site.ignored_dirs]
            found.update(Path(place) / name for name in names if not name.startswith("."))
    return sorted(p for p in found if p.is_file())


def _select(
    folder: Path, warnings: list[str], upload: bool = False, site: Site | None = None
) -> list[tuple[Path, dict[str, Any]]]:
    """The files to read, each with its manifest record (empty without a manifest), in the site's order."""
    site = site or Site(folder)
    found = _files(site)
    # The site decides among the files a reader knows; the rest are counted by type below.
    files = sorted(
        site.select([p for p in found if readers.supported(p)]) + [p for p in found if not readers.supported(p)]
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
        return [(p, {}) for p in site.order([p for p in files if readers.supported(p)])]
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
    site_url: str | None = None,
) -> Document:
    posix = PurePosixPath(relative)
    if record.get("url"):
        url = str(record["url"])
    elif parsed.url:
        url = parsed.url
    elif template:
        url = template.format(path=str(posix.with_suffix("")), stem=posix.stem, name=posix.name, file=relative)
    else:
        url = site_url or relative
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
        visual=parsed.visual,
    )


def modified(path: Path) -> str | None:
    """When the file last changed (ISO 8601, UTC, to the second), or ``None`` if it cannot be told."""
    try:
        moment = datetime.datetime.fromtimestamp(path.stat().st_mtime, datetime.UTC)
    except (OSError, OverflowError, ValueError):
        return None
    return moment.replace(microsecond=0).isoformat()


@dataclasses.dataclass(frozen=True)
class Personal:
    """Masking of personal data in indexed text: on, and the region national phone formats are read in."""

    phone_region: str | None = None


def _masked(parsed: ParsedDocument, personal: Personal, counts: Counter) -> ParsedDocument:
    """``parsed`` with e-mail addresses and phone numbers masked in its blocks (code blocks too:
    a config example may hold a real address)."""
    sections = tuple(
        dataclasses.replace(
            section,
            blocks=tuple(
                dataclasses.replace(block, text=mask(block.text, personal.phone_region, counts))
                for block in section.blocks
            ),
        )
        for section in parsed.sections
    )
    return dataclasses.replace(parsed, sections=sections)


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
                    derived=dataclasses.asdict(section.derived) if section.derived else None,
                )
            )
    return chunks


def _whole_text(parsed: ParsedDocument, markdown: bool = False) -> str:
    """The document as one text: headings as lines above their blocks.

    In a Markdown document they are written as Markdown headings (``## Usage``), so the
    text shown (the web page renders it) keeps its outline; other formats get bare lines.

    >>> from .corpus import Block, Section
    >>> doc = ParsedDocument("Guide", (Section(("Usage",), None, (Block("Run it."),)),))
    >>> _whole_text(doc, markdown=True), _whole_text(doc)
    ('# Guide\\n\\n## Usage\\n\\nRun it.', 'Guide\\n\\nUsage\\n\\nRun it.')
    """

    def heading(text: str, level: int) -> str:
        return f"{'#' * min(level, 6)} {text}" if markdown else text

    parts = [heading(parsed.title, 1)] if parsed.title else []
    for section in parsed.sections:
        if section.headings:
            parts.append(heading(section.headings[-1], len(section.headings) + 1))
        parts.extend(block.text for block in section.blocks)
    return "\n\n".join(parts)
