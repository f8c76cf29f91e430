"""A Docusaurus site: docs, blog and Markdown pages, with the URLs, titles and anchors Docusaurus gives them.

* Pages: Markdown and MDX under the docs folder (``docs/``, or the preset's
  ``docs.path``), the blog folder and ``src/pages/``. Partials (``_name.mdx``, files in
  ``_folders/``) are not pages. ``versioned_docs/`` and ``i18n/`` (older versions and
  translations of the same pages) are not read, so each page is indexed once.
* Docs URL: ``url`` + ``baseUrl`` + ``routeBasePath`` (``docs``) + the slug. The slug is the
  front matter ``slug`` (from the root when it starts with ``/``, else from the file's
  folder), else the file's folder and its ``id`` (front matter, else the file name),
  number prefixes (``01-intro.md``, ``02-guides/``) stripped; ``index.md``, ``README.md``
  and ``guides/guides.md`` are their folder's page. ``trailingSlash`` is applied.
* Blog URL: ``blog/2021/08/26/welcome`` from a dated file name, or ``blog/`` + ``slug``.
* Title: front matter ``title``, else the first ``#`` heading, else ``sidebar_label``,
  else the doc's id.
* Anchors: ``github-slugger``, ``{#id}`` kept (see :mod:`.slugs`).
* ``.md`` and ``.mdx`` are both MDX, as Docusaurus 3 reads them (``.md`` as CommonMark
  where the config sets ``format: 'detect'``); ``:::note`` admonitions keep their title.

The config is read, not run (see :mod:`.jsconfig`); only the classic preset's docs and
blog options are read, not a second docs plugin instance.
"""

from __future__ import annotations

import dataclasses
import posixpath
import re
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from .. import readers
from ..corpus import ParsedDocument
from ..readers.markdown import read_markdown
from ..readers.mdx import strip_mdx
from . import jsconfig
from .containers import unwrap_containers
from .site import Site, within
from .slugs import docusaurus_anchors

CONFIG_NAMES = tuple(f"docusaurus.config.{suffix}" for suffix in ("js", "ts", "mjs", "cjs", "mts"))
PAGE_SUFFIXES = (".md", ".mdx")
_IGNORED_PREFIX = re.compile(r"^\d+[-_.]\d+")
_NUMBER_PREFIX = re.compile(r"^(?P<number>\d+)\s*[-_.]+\s*(?P<rest>[^-_.\s].*)$")
_DATED = re.compile(r"^(?P<year>\d{4})[-/](?P<month>\d{1,2})[-/](?P<day>\d{1,2})[-/]?(?P<rest>.*)$")


@dataclasses.dataclass(frozen=True)
class DocusaurusConfig:
    """What of ``docusaurus.config.*`` the corpus reader uses. Paths are absolute."""

    path: Path | None
    site: Path
    docs: Path | None
    docs_route: str = "docs"
    blog: Path | None = None
    blog_route: str = "blog"
    url: str | None = None
    base_url: str = "/"
    trailing_slash: bool | None = None
    md_is_mdx: bool = True


def load_docusaurus(path: Path) -> DocusaurusConfig:
    """Read the settings of ``docusaurus.config.*`` that decide pages and URLs (literal values only)."""
    source = jsconfig.without_comments(readers.decode(path.read_bytes()))
    site = path.parent.resolve()
    # The preset's options, told apart from the theme's docs: {sidebar: ...} by the keys they hold.
    docs = jsconfig.block(source, "docs", having=("path", "routeBasePath", "sidebarPath", "editUrl")) or ""
    blog = jsconfig.block(source, "blog", having=("path", "routeBasePath", "postsPerPage", "editUrl")) or ""
    return DocusaurusConfig(
        path=path,
        site=site,
        docs=None
        if jsconfig.disabled(source, "docs")
        else (site / (jsconfig.string_setting(docs, "path") or "docs")).resolve(),
        docs_route=_route_base(jsconfig.string_setting(docs, "routeBasePath"), "docs"),
        blog=None
        if jsconfig.disabled(source, "blog")
        else (site / (jsconfig.string_setting(blog, "path") or "blog")).resolve(),
        blog_route=_route_base(jsconfig.string_setting(blog, "routeBasePath"), "blog"),
        url=jsconfig.string_setting(source, "url"),
        base_url=jsconfig.string_setting(source, "baseUrl") or "/",
        trailing_slash=jsconfig.bool_setting(source, "trailingSlash"),
        md_is_mdx=jsconfig.string_setting(jsconfig.block(source, "markdown") or "", "format") != "detect",
    )


def _route_base(value: str | None, default: str) -> str:
    return default if value is None else value.strip("/")


class DocusaurusSite(Site):
    page_suffixes = PAGE_SUFFIXES
    kind = "docusaurus"
    ignored_dirs = ("node_modules", "build")

    def __init__(self, folder: Path, settings: DocusaurusConfig) -> None:
        super().__init__(folder, settings.path)
        self.settings = settings
        self._front: dict[Path, dict[str, tuple[str, ...]]] = {}
        here = folder.resolve()
        sources = [p for p in (settings.docs, settings.blog, settings.site / "src" / "pages") if p is not None]
        inside = [s for s in sources if within(s, here)]
        # Pointed at the site, its page folders; pointed at (or into) one of them, the folder given.
        self._roots = [folder] if inside else [folder / s.relative_to(here) for s in sources if within(here, s)]

    @property
    def roots(self) -> list[Path]:
        return self._roots

    def select(self, files: Sequence[Path]) -> list[Path]:
        pages = []
        for path in files:
            kind, relative = self._place(path)
            parts = PurePosixPath(relative or "").parts
            if kind is None:
                self.skip(path, "files outside the docs, blog and src/pages folders")
            elif any(part.startswith("_") for part in parts):
                self.skip(path, "partials (_name.mdx, _folder/: imported by pages, not pages)")
            elif path.suffix.lower() in (".html", ".htm"):
                self.skip(path, "HTML files (Docusaurus builds pages from Markdown and MDX)")
            else:
                pages.append(path)
        return pages

    def read_page(self, path: Path, head: str, body: str) -> tuple[str, ParsedDocument] | None:
        exported: dict[str, str] = {}
        if path.suffix.lower() == ".mdx" or self.settings.md_is_mdx:
            body, exported = strip_mdx(body)
        parsed = read_markdown(head + unwrap_containers(body), docusaurus_anchors)
        fields = {**{key: (value,) for key, value in exported.items()}, **parsed.fields}
        self._front[path] = fields
        title = (
            _first(fields, "title")
            or parsed.title
            or _first(fields, "sidebar_label")
            or _first(fields, "id")
            or _strip_prefix(PurePosixPath(path.name).stem)
        )
        return ("mdx" if path.suffix.lower() == ".mdx" else "markdown"), readers.finish(
            dataclasses.replace(parsed, title=title, fields=fields)
        )

    def url(self, path: Path) -> str | None:
        kind, relative = self._place(path)
        if kind is None or relative is None:
            return None
        front = self._front.get(path, {})
        if kind == "docs":
            route = _join(self.settings.docs_route, doc_slug(relative, _first(front, "slug"), _first(front, "id")))
        elif kind == "blog":
            route = _join(self.settings.blog_route, blog_slug(relative, _first(front, "slug")))
        else:
            route = doc_slug(relative, _first(front, "slug"), None, strip_numbers=False)
        permalink = _join(self.settings.base_url, route)
        if self.settings.trailing_slash is True and not permalink.endswith("/"):
            permalink += "/"
        elif self.settings.trailing_slash is False and permalink != "/":
            permalink = permalink.rstrip("/")
        return (self.settings.url.rstrip("/") if self.settings.url else "") + permalink

    def describe(self) -> dict[str, Any]:
        settings = self.settings
        return {
            **super().describe(),
            "docs": self._shown(settings.docs) if settings.docs else None,
            "docs_route": settings.docs_route,
            "url": settings.url,
            "base_url": settings.base_url,
        }

    def _place(self, path: Path) -> tuple[str | None, str | None]:
        """Which part of the site ``path`` is in (docs, blog, pages) and its path there."""
        resolved = path.resolve()
        for kind, folder in (
            ("docs", self.settings.docs),
            ("blog", self.settings.blog),
            ("pages", self.settings.site / "src" / "pages"),
        ):
            if folder is not None and within(folder, resolved):
                return kind, resolved.relative_to(folder).as_posix()
        return None, None


def doc_slug(relative: str, slug: str | None = None, doc_id: str | None = None, strip_numbers: bool = True) -> str:
    """A doc's slug, as Docusaurus computes it from its path and front matter.

    >>> [doc_slug(p) for p in ("intro.md", "01-basics/02-install.mdx", "guides/index.md", "guides/guides.md", "README.md")]
    ['/intro', '/basics/install', '/guides/', '/guides/', '/']
    >>> doc_slug("api/x.md", slug="/reference"), doc_slug("api/x.md", slug="ref"), doc_slug("api/x.md", doc_id="why")
    ('/reference', '/api/ref', '/api/why')
    >>> doc_slug("2.0-notes.md"), doc_slug("2021-11-release.md")
    ('/2.0-notes', '/2021-11-release')
    """
    posix = PurePosixPath(relative)
    folder_parts = [(_strip_prefix(part) if strip_numbers else part) for part in posix.parent.parts]
    folder = "/" + "/".join(folder_parts) + "/" if folder_parts else "/"
    if slug and slug.startswith("/"):
        return slug
    name = posix.stem
    directories = posix.parent.parts
    if not slug and name.lower() in ("index", "readme", *((directories[-1].lower(),) if directories else ())):
        return folder
    base = slug or doc_id or (_strip_prefix(name) if strip_numbers else name)
    return posixpath.normpath(folder + base) if not base.endswith("/") else posixpath.normpath(folder + base) + "/"


def blog_slug(relative: str, slug: str | None = None) -> str:
    """A blog post's slug: its front matter ``slug``, else its date as folders and its name.

    >>> blog_slug("2021-08-26-welcome.md"), blog_slug("2021-08-26-welcome/index.md"), blog_slug("x.md", slug="hi")
    ('/2021/08/26/welcome', '/2021/08/26/welcome', '/hi')
    """
    if slug:
        return "/" + slug.lstrip("/")
    posix = PurePosixPath(relative)
    name = (
        posix.parent.as_posix()
        if posix.stem == "index" and str(posix.parent) != "."
        else posix.with_suffix("").as_posix()
    )
    dated = _DATED.match(name)
    if dated:
        rest = dated.group("rest").strip("-/") or "index"
        return f"/{dated.group('year')}/{int(dated.group('month')):02d}/{int(dated.group('day')):02d}/{rest}"
    return "/" + name


def _strip_prefix(name: str) -> str:
    """``02-guides`` -> ``guides``, as Docusaurus's default number prefix parser does (dates and versions kept)."""
    if _IGNORED_PREFIX.match(name):
        return name
    match = _NUMBER_PREFIX.match(name)
    return match.group("rest") if match else name


def _join(*parts: str) -> str:
    joined = "/" + "/".join(part.strip("/") for part in parts if part.strip("/"))
    return joined + "/" if parts[-1].endswith("/") and joined != "/" else joined


def _first(fields: dict[str, tuple[str, ...]], key: str) -> str | None:
    values = fields.get(key)
    return values[0] if values else None
