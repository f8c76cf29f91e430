"""What a documentation site generator decides about a folder, and the plain folder that has none.

A :class:`Site` answers, for the corpus reader (:func:`~schema_search.docs.sources.read_corpus`):
where its pages are (``root``), which files are pages (``select``), how a page reads
(``read``: the generator's own syntax resolved, anchors as it makes them, the title it
shows), the URL it publishes a page at (``url``) and the order its navigation gives
(``order``). What it leaves out is reported, grouped by reason, in ``warnings``.
The plain site is every supported file read as its reader reads it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .. import readers
from ..corpus import ParsedDocument
from ..readers.headers import split_front_matter
from ..visual.options import Visual

# How many file names a warning lists before it only counts.
LISTED = 5


class Site:
    """A folder of documents as no generator builds it: each supported file is a page."""

    kind = "plain"
    # Folders never walked into (besides hidden ones): a generator's dependencies and build output.
    ignored_dirs: tuple[str, ...] = ()

    def __init__(self, folder: Path, config: Path | None = None) -> None:
        self.folder = folder
        self.config = config
        self.root = folder
        self._skipped: dict[str, list[str]] = {}

    @property
    def roots(self) -> list[Path]:
        """The folders whose files may be pages (inside the folder given)."""
        return [self.root]

    def select(self, files: Sequence[Path]) -> list[Path]:
        """The files that are pages, in path order; the rest are recorded with why (see :meth:`skip`)."""
        return list(files)

    # Suffixes of the files the generator builds pages from; any other file is read by its format's reader.
    page_suffixes: tuple[str, ...] = ()

    def read(self, path: Path, visual: Visual | None = None) -> tuple[str, ParsedDocument] | None:
        """``(format, parsed page)``, or None for a file that turns out not to be a page (recorded).

        A page (``page_suffixes``) goes to :meth:`read_page` as its front matter and body, as written;
        another file to its reader (a PDF or DOCX read beyond its text layer as ``visual`` says).

        Raises:
            ValueError: the file cannot be read (the message says why).
            OSError: the file cannot be opened.
        """
        if path.suffix.lower() not in self.page_suffixes:
            return readers.read(path, visual, root=self.root)
        head, body = split_front_matter(readers.decode(path.read_bytes()))
        return self.read_page(path, head, body)

    def read_page(self, path: Path, head: str, body: str) -> tuple[str, ParsedDocument] | None:
        """A page of the generator's, from its front matter block (fences included) and its body."""
        raise NotImplementedError

    def url(self, path: Path) -> str | None:
        """The URL the generator publishes ``path`` at, or None when it does not say."""
        return None

    def order(self, paths: Sequence[Path]) -> list[Path]:
        """``paths`` in the order the site's navigation lists them (path order here)."""
        return list(paths)

    def describe(self) -> dict[str, Any]:
        """What was detected, for the corpus's source record."""
        return {"kind": self.kind, "config": self._shown(self.config) if self.config else None}

    def skip(self, path: Path, reason: str) -> None:
        """Record that ``path`` is left out, and why (one warning per reason)."""
        self._skipped.setdefault(reason, []).append(self._shown(path))

    def warnings(self) -> list[str]:
        """One line per reason files were left out, naming the first few."""
        return [
            f"skipped {len(names)} {reason}: {', '.join(names[:LISTED])}" + (" ..." if len(names) > LISTED else "")
            for reason, names in self._skipped.items()
        ]

    def _shown(self, path: Path) -> str:
        """``path`` as a person finds it: relative to the folder given, else as it is."""
        for base, place in ((self.folder, path), (self.folder.resolve(), path.resolve())):
            try:
                return place.relative_to(base).as_posix()
            except ValueError:
                continue
        return str(path)


def within(folder: Path, path: Path) -> bool:
    """Whether ``path`` is ``folder`` or inside it (both resolved by the caller)."""
    return path == folder or folder in path.parents
