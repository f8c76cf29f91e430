"""The local copy of a crawled site: one file a page and a ``manifest.jsonl`` the folder indexing reads.

A crawl writes into a staging folder beside the mirror, keeping the files of pages
that did not change from the mirror; the staging folder replaces the mirror only
once its corpus generation is stored (:meth:`Mirror.commit`). A crawl or an index
that fails leaves the mirror, and the live corpus, as they were.

Each manifest line is ``{"path", "url", "title", "fetched", "etag",
"last_modified", "source"}``: the file, the page to cite, the title the site gave
it (``llms.txt``) when it did, when the site last confirmed the content (ISO 8601,
UTC), the validators a refresh sends back, and the URL actually fetched where it is
not the page's (its Markdown version).

With a sealer (a key-encryption key is configured), every file of the mirror, the manifest
included, is sealed whole (``core.sealing``), bound to its corpus and file name; the folder
indexing reads a decrypted copy made outside the data directory for that run
(:meth:`Mirror.opened`). A page kept from a plain mirror is sealed on the way.
"""

from __future__ import annotations

import email.utils
import fcntl
import json
import os
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from posixpath import splitext
from typing import Any
from urllib.parse import urlsplit

from cryptography.exceptions import InvalidTag

from ...core import sealing
from ...core.sealing import Sealer
from ...errors import Busy
from ..corpus import Corpus
from ..sources import MANIFEST

CRAWLS = "crawls"  # the mirrors' folder under the data directory, one subfolder per corpus
HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
MARKDOWN_TYPES = frozenset({"text/markdown", "text/x-markdown"})
GENERIC_TYPES = frozenset({"", "application/octet-stream", "binary/octet-stream"})
SUFFIXES = {".md": ".md", ".markdown": ".md", ".mdx": ".md", ".rst": ".rst", ".rest": ".rst", ".txt": ".txt"}


def utc_now() -> str:
    """The time now, as the manifest's ``fetched`` says it (ISO 8601, UTC, seconds)."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def page_suffix(media_type: str, url: str, body: bytes = b"") -> str | None:
    """The suffix a page is saved with, which picks its reader; None for what is not a page.

    >>> page_suffix("text/html", "https://x.org/guide/"), page_suffix("text/plain", "https://x.org/a.md")
    ('.html', '.md')
    >>> page_suffix("application/octet-stream", "https://x.org/a", b"  <!DOCTYPE html><html>")
    '.html'
    >>> page_suffix("application/pdf", "https://x.org/a.pdf") is None
    True
    """
    if media_type in HTML_TYPES:
        return ".html"
    if media_type in MARKDOWN_TYPES:
        return ".md"
    if media_type == "text/x-rst":
        return ".rst"
    by_url = SUFFIXES.get(splitext(urlsplit(url).path)[1].lower())
    if media_type == "text/plain":
        return by_url or ".txt"
    if media_type in GENERIC_TYPES:
        if body.lstrip()[:15].lower().startswith((b"<!doctype html", b"<html")):
            return ".html"
        return by_url
    return None


class Mirror:
    """The mirror folder of one corpus, ``<home>/crawls/<corpus>/``."""

    def __init__(self, folder: Path, sealer: Sealer | None = None) -> None:
        self.folder = folder
        self.staging = folder.parent / f".{folder.name}.staging"
        self._old = folder.parent / f".{folder.name}.old"
        self.sealer = sealer

    @classmethod
    def of(cls, home: Path, corpus: str, sealer: Sealer | None = None) -> Mirror:
        return cls(home / CRAWLS / corpus, sealer)

    def _aad(self, path: str) -> str:
        """What a sealed file is bound to: its corpus and name (the same in staging and in the mirror)."""
        return f"crawl\0{self.folder.name}\0{path}"

    def records(self) -> dict[str, dict[str, Any]]:
        """The last crawl's manifest records whose file is there, by page URL."""
        path = self.folder / MANIFEST
        if not path.is_file():
            return {}
        try:
            text = sealing.read_file(path, self.sealer, self._aad(MANIFEST))
        except (ValueError, InvalidTag):
            return {}  # sealed with a key not at hand: every page is fetched afresh
        found = {}
        for line in text.splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue  # a hand-edited line: that page is fetched afresh
            if isinstance(record, dict) and isinstance(record.get("url"), str) and self.has(record.get("path")):
                found[record["url"]] = record
        return found

    def has(self, path: object) -> bool:
        return isinstance(path, str) and "/" not in path and (self.folder / path).is_file()

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Held while a crawl of this corpus runs: a second one at the same time would share the staging folder.

        Raises:
            Busy: another process is crawling it now.
        """
        self.folder.parent.mkdir(parents=True, exist_ok=True)
        with open(self.folder.parent / f".{self.folder.name}.lock", "w") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise Busy(
                    f"Corpus {self.folder.name!r} is being crawled by another process.",
                    hint="Wait for it to finish, then run the command again (it refreshes what changed).",
                ) from None
            yield

    def stage(self) -> Path:
        """A fresh, empty staging folder."""
        shutil.rmtree(self.staging, ignore_errors=True)
        self.staging.mkdir(parents=True)
        return self.staging

    def keep(self, path: str) -> None:
        """Put the mirror's file ``path`` into the staging folder, unchanged (a hard link where it can)."""
        source, target = self.folder / path, self.staging / path
        if self.sealer is not None and not sealing.is_sealed_file(source):
            self.write(path, self.read(path))  # a page of a plain mirror: sealed now
            return
        try:
            os.link(source, target)
        except OSError:
            shutil.copy2(source, target)

    def write(self, path: str, text: str) -> None:
        sealing.write_file(self.staging / path, text, self.sealer, self._aad(path))

    def read(self, path: str) -> str:
        return sealing.read_file(self.folder / path, self.sealer, self._aad(path))

    def write_manifest(self, records: Sequence[dict[str, Any]]) -> None:
        lines = (json.dumps(record, ensure_ascii=False) + "\n" for record in records)
        sealing.write_file(self.staging / MANIFEST, "".join(lines), self.sealer, self._aad(MANIFEST))

    @contextmanager
    def opened(self, folder: Path) -> Iterator[Path]:
        """``folder`` (the staging folder a crawl wrote) as the folder indexing reads it.

        Sealed, its files are opened into a temporary folder outside the data directory,
        removed when the block ends: the readers take plain files, and a plain copy in the
        data directory is what sealing the mirror is for avoiding.
        """
        if self.sealer is None:
            yield folder
            return
        with tempfile.TemporaryDirectory(prefix="schemasift-crawl-") as plain:
            for path in folder.iterdir():
                if path.is_file():
                    text = sealing.read_file(path, self.sealer, self._aad(path.name))
                    (Path(plain) / path.name).write_text(text, encoding="utf-8")
            yield Path(plain)

    def commit(self) -> None:
        """Make the staging folder the mirror (two renames; the old one is removed after)."""
        shutil.rmtree(self._old, ignore_errors=True)
        if self.folder.exists():
            self.folder.rename(self._old)
        self.staging.rename(self.folder)
        shutil.rmtree(self._old, ignore_errors=True)

    def discard(self) -> None:
        shutil.rmtree(self.staging, ignore_errors=True)

    def remove(self) -> None:
        """Delete the mirror (its corpus was deleted)."""
        for folder in (self.folder, self.staging, self._old):
            shutil.rmtree(folder, ignore_errors=True)


def _http_date(value: str | None) -> str | None:
    """An HTTP date (``Last-Modified``) as ISO 8601 UTC; ``None`` when absent or malformed.

    >>> _http_date("Wed, 21 Oct 2015 07:28:00 GMT"), _http_date(None), _http_date("soon")
    ('2015-10-21T07:28:00+00:00', None, None)
    """
    try:
        moment = email.utils.parsedate_to_datetime(value) if value else None
    except (TypeError, ValueError):
        return None
    return moment.astimezone(UTC).isoformat() if moment else None


def stamped(corpus: Corpus, records: Sequence[dict[str, Any]], source: dict[str, Any], notes: Sequence[str]) -> Corpus:
    """``corpus`` (read from a mirror) with each document's fetch time, the crawl as its source, and its notes.

    The fetch time comes from the manifest record of the document's file; the folder
    reading gives documents their URL and title from the same records.
    """
    by_path = {record["path"]: record for record in records}
    documents = tuple(
        replace(
            document,
            fetched=by_path.get(document.path, {}).get("fetched"),
            # The site's Last-Modified, not the mirror file's time (that is only when it was saved).
            modified=_http_date(by_path.get(document.path, {}).get("last_modified")),
        )
        for document in corpus.documents
    )
    return replace(corpus, documents=documents, source=source, warnings=(*notes, *corpus.warnings))
