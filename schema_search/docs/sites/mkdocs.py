"""An MkDocs site: pages from ``docs_dir``, titles and order from ``nav``, URLs as MkDocs writes them.

* Pages are the Markdown files of ``docs_dir``; HTML there (the theme's ``custom_dir``,
  ``overrides/``, fragments a hook includes) is a template or a static file, never a
  page: it is skipped and reported. ``exclude_docs``, ``draft_docs`` and the exclude
  plugin's globs are honoured.
* A page's title is the one ``nav`` gives it, else its front matter ``title``, else its
  first ``#`` heading, else its file name as MkDocs makes it one (``Home`` for the index).
* Its URL is ``site_url`` + the page's path, ``use_directory_urls`` deciding between
  ``concepts/models/`` and ``concepts/models.html`` (an ``index.md``, or a ``README.md``
  without one beside it, is its folder); without ``site_url``, the path from the site root.
* Headings get the ids Python-Markdown's ``toc`` gives them (see :mod:`.slugs`).
* MkDocs syntax is resolved to the page's text first (see :mod:`.mkdocs_markup`); a page
  that held only mkdocstrings stubs has no text of its own and is skipped.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from .. import readers
from ..corpus import ParsedDocument
from ..readers.markdown import read_markdown
from . import mkdocs_markup
from .mkdocs_config import MkDocsConfig
from .site import Site, within
from .slugs import TocAnchors

# The suffixes MkDocs builds pages from (the rest of docs_dir is copied as static files).
PAGE_SUFFIXES = (".md", ".markdown", ".mdown", ".mkdn", ".mkd")


class MkDocsSite(Site):
    page_suffixes = PAGE_SUFFIXES
    kind = "mkdocs"

    def __init__(self, folder: Path, settings: MkDocsConfig, confine: Path | None = None) -> None:
        super().__init__(folder, settings.path)
        self.settings = settings
        # Pointed at the project, the pages are in docs_dir; pointed inside docs_dir, at the folder given
        # (detect makes sure it is one or the other).
        inside = within(settings.docs_dir, folder.resolve())
        self.root = folder if inside else folder / settings.docs_dir.relative_to(folder.resolve())
        # Snippets may be read from these folders only: an upload's config must not reach out of the upload.
        self._confine = confine
        self._titles = {page.path: page.title for page in settings.nav if page.title}
        self._places = {page.path: index for index, page in reversed(list(enumerate(settings.nav)))}
        self._anchors = TocAnchors(settings.slugify, settings.separator, settings.attr_list)

    # -- which files are pages ----------------------------------------------------------

    def select(self, files: Sequence[Path]) -> list[Path]:
        pages = []
        custom = self.settings.custom_dir
        for path in files:
            relative = self._relative(path)
            if custom is not None and within(custom, path.resolve()):
                self.skip(path, "theme templates (theme.custom_dir in mkdocs.yml)")
            elif path.suffix.lower() in (".html", ".htm"):
                self.skip(
                    path, "HTML files in docs_dir (templates and static files: MkDocs builds pages from Markdown)"
                )
            elif relative is None:
                self.skip(path, f"files outside docs_dir ({self._shown(self.settings.docs_dir)})")
            elif self.settings.excluded(relative):
                self.skip(path, "files mkdocs.yml excludes (exclude_docs, draft_docs, exclude plugin)")
            else:
                pages.append(path)
        return pages

    # -- reading a page ---------------------------------------------------------------

    def read_page(self, path: Path, head: str, body: str) -> tuple[str, ParsedDocument] | None:
        if self.settings.snippets is not None:
            body = mkdocs_markup.include_snippets(body, self._snippet)
        body, stubs = mkdocs_markup.drop_stubs(body)
        body = mkdocs_markup.unwrap_blocks(body)
        body = mkdocs_markup.drop_macros(body, self.settings.extra)
        body = mkdocs_markup.plain_autorefs(body)
        if self.settings.emoji:
            body = mkdocs_markup.drop_emoji(body)
        parsed = read_markdown(head + body, self._anchors)
        if stubs and not any(section.blocks for section in parsed.sections):
            self.skip(path, "API pages of mkdocstrings stubs only (their text is generated from the code)")
            return None
        relative = self._relative(path)
        title = self._titles.get(relative or "") or parsed.title or _file_title(relative or path.name)
        return "markdown", readers.finish(dataclasses.replace(parsed, title=title))

    def _snippet(self, name: str) -> str | None:
        for base in self.settings.snippets or ():
            candidate = (base / name).resolve()
            allowed = (base.resolve(),) + ((self._confine.resolve(),) if self._confine else ())
            if all(within(folder, candidate) for folder in allowed) and candidate.is_file():
                try:
                    return readers.decode(candidate.read_bytes())
                except (OSError, ValueError):
                    return None
        return None

    # -- where a page is published ----------------------------------------------------

    def url(self, path: Path) -> str | None:
        relative = self._relative(path)
        if relative is None:
            return None
        page = page_path(relative, self.settings.use_directory_urls, self._has_index(path))
        if self.settings.site_url:
            return self.settings.site_url.rstrip("/") + "/" + page
        return "/" + page

    def _has_index(self, path: Path) -> bool:
        return any((path.parent / f"index{suffix}").is_file() for suffix in PAGE_SUFFIXES)

    def order(self, paths: Sequence[Path]) -> list[Path]:
        last = len(self._places)
        return sorted(paths, key=lambda p: (self._places.get(self._relative(p) or "", last), p))

    def describe(self) -> dict[str, Any]:
        settings = self.settings
        return {
            **super().describe(),
            "docs_dir": self._shown(settings.docs_dir),
            "site_url": settings.site_url,
            "use_directory_urls": settings.use_directory_urls,
            "nav_pages": len(settings.nav),
            "slugify": settings.slugify_name,
        }

    def warnings(self) -> list[str]:
        return [*self.settings.warnings, *super().warnings()]

    def _relative(self, path: Path) -> str | None:
        try:
            return path.resolve().relative_to(self.settings.docs_dir).as_posix()
        except ValueError:
            return None


def page_path(relative: str, directory_urls: bool = True, has_index: bool = True) -> str:
    """A page's URL path from the site root, as MkDocs writes it.

    >>> [page_path(p) for p in ("index.md", "concepts/models.md", "concepts/index.md")]
    ['', 'concepts/models/', 'concepts/']
    >>> page_path("guide/README.md", has_index=False), page_path("concepts/models.md", directory_urls=False)
    ('guide/', 'concepts/models.html')
    >>> page_path("index.md", directory_urls=False), page_path("files/report.pdf")
    ('index.html', 'files/report.pdf')
    """
    posix = PurePosixPath(relative)
    if posix.suffix.lower() not in PAGE_SUFFIXES:
        return relative
    stem = posix.stem
    index = stem == "index" or (stem.upper() == "README" and not has_index)
    folder = "" if str(posix.parent) == "." else f"{posix.parent}/"
    if index:
        return folder if directory_urls else f"{folder}index.html"
    return f"{folder}{stem}/" if directory_urls else f"{folder}{stem}.html"


def _file_title(relative: str) -> str:
    """The title MkDocs makes of a page's file name when nothing else gives one.

    >>> _file_title("index.md"), _file_title("guide/getting_started.md"), _file_title("guide/API-keys.md")
    ('Home', 'Getting started', 'API keys')
    """
    posix = PurePosixPath(relative)
    if posix.stem == "index" and str(posix.parent) == ".":
        return "Home"
    name = posix.parent.name if posix.stem in ("index", "README") and posix.parent.name else posix.stem
    title = name.replace("-", " ").replace("_", " ")
    return title.capitalize() if title.lower() == title else title
