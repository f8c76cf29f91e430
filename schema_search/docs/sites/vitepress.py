"""A VitePress site: pages from ``srcDir``, URLs by its routing rules, anchors by its slugify.

* Pages are the Markdown files under ``srcDir`` (default: the folder holding
  ``.vitepress/``), less ``public/``, ``node_modules``, ``srcExclude`` globs and dynamic
  route templates (``[pkg].md``, whose pages a script makes).
* URL: ``guide/index.md`` is ``/guide/``; ``guide/intro.md`` is ``/guide/intro.html``,
  or ``/guide/intro`` with ``cleanUrls: true``; ``base`` is prepended, and
  ``sitemap.hostname`` when the config gives it. ``rewrites`` written as literal paths
  or as one trailing parameter (``'en/:rest*': ':rest*'``) are followed; others are
  not, and a warning says so.
* Title: front matter ``title``, else the first ``#`` heading, else the site's ``title``
  (a home page's hero layout has no heading), else the file name.
* Anchors: ``@mdit-vue/shared``'s slugify, ``{#id}`` kept (see :mod:`.slugs`); a custom
  ``markdown.anchor.slugify`` in the config is a function, which is not run here (warned).
* Vue in Markdown: ``<script>``/``<style>`` blocks and ``{{ }}`` interpolations go,
  components' tags go and their text stays; ``::: tip`` containers keep their title;
  ``<!--@include: file.md-->`` is included; ``<<< @/snippet.js`` code imports are dropped.

The config is read, not run (see :mod:`.jsconfig`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from fnmatch import fnmatch
from pathlib import Path, PurePosixPath
from typing import Any

from .. import readers
from ..corpus import ParsedDocument
from ..readers.fences import map_prose
from ..readers.headers import split_front_matter
from ..readers.markdown import read_markdown
from ..readers.mdx import strip_tags
from . import jsconfig
from .containers import unwrap_containers
from .site import Site, within
from .slugs import vitepress_anchors

CONFIG_NAMES = tuple(f".vitepress/config.{suffix}" for suffix in ("js", "ts", "mjs", "mts", "cjs", "cts"))
_INCLUDE = re.compile(
    r"^[ \t]*<!--\s*@include:\s*(?P<path>[^\s{#]+?)(?:\{(?P<start>\d*),?(?P<end>\d*)\})?\s*-->[ \t]*$", re.M
)
_CODE_IMPORT = re.compile(r"^[ \t]*<<<[ \t]+\S.*$", re.M)
MAX_INCLUDE_DEPTH = 8


@dataclasses.dataclass(frozen=True)
class VitePressConfig:
    """What of ``.vitepress/config.*`` the corpus reader uses."""

    path: Path | None
    project: Path
    src_dir: Path
    clean_urls: bool = False
    base: str = "/"
    hostname: str | None = None
    src_exclude: tuple[str, ...] = ()
    rewrites: tuple[tuple[str, str], ...] = ()
    title: str | None = None
    warnings: tuple[str, ...] = ()


def load_vitepress(path: Path) -> VitePressConfig:
    """Read the settings of ``.vitepress/config.*`` that decide pages and URLs (literal values only)."""
    source = jsconfig.without_comments(readers.decode(path.read_bytes()))
    project = path.parent.parent
    warnings = []
    rewrites = jsconfig.string_pairs(source, "rewrites") or ()
    followed = tuple((old, new) for old, new in rewrites if _followed(old, new))
    if len(followed) < len(rewrites) or (not rewrites and re.search(r"(?<![\w$.])rewrites\s*:", source)):
        warnings.append(f"{path.name}: rewrites other than literal paths and 'dir/:rest*' are not followed")
    anchor = jsconfig.block(source, "anchor")
    if anchor and re.search(r"\bslugify\s*:", anchor):
        warnings.append(f"{path.name}: a custom markdown.anchor.slugify is not run; anchors follow VitePress's default")
    sitemap = jsconfig.block(source, "sitemap") or ""
    return VitePressConfig(
        path=path,
        project=project,
        src_dir=(project / (jsconfig.string_setting(source, "srcDir") or ".")).resolve(),
        clean_urls=bool(jsconfig.bool_setting(source, "cleanUrls")),
        base=jsconfig.string_setting(source, "base") or "/",
        hostname=jsconfig.string_setting(sitemap, "hostname", constants=source),
        title=jsconfig.string_setting(source, "title"),
        src_exclude=jsconfig.strings_setting(source, "srcExclude") or (),
        rewrites=followed,
        warnings=tuple(warnings),
    )


class VitePressSite(Site):
    page_suffixes = (".md",)
    kind = "vitepress"
    ignored_dirs = ("node_modules",)

    def __init__(self, folder: Path, settings: VitePressConfig, confine: Path | None = None) -> None:
        super().__init__(folder, settings.path)
        self.settings = settings
        src = settings.src_dir
        self.root = folder if within(src, folder.resolve()) else folder / src.relative_to(folder.resolve())
        self._confine = (confine or settings.project).resolve()

    def select(self, files: Sequence[Path]) -> list[Path]:
        pages = []
        for path in files:
            relative = self._relative(path)
            if relative is None:
                self.skip(path, "files outside srcDir")
            elif relative.split("/", 1)[0] == "public":
                self.skip(path, "static files (public/)")
            elif path.suffix.lower() in (".html", ".htm"):
                self.skip(path, "HTML files (VitePress builds pages from Markdown)")
            elif "[" in PurePosixPath(relative).name:
                self.skip(path, "dynamic route templates (their pages are generated)")
            elif any(fnmatch(relative, pattern) for pattern in self.settings.src_exclude):
                self.skip(path, "files srcExclude leaves out")
            else:
                pages.append(path)
        return pages

    def read_page(self, path: Path, head: str, body: str) -> tuple[str, ParsedDocument] | None:
        body = self._include(body, path.parent, 0)
        body = _CODE_IMPORT.sub("", body)
        body = unwrap_containers(map_prose(body, lambda prose: strip_tags(prose, expressions=False)))
        parsed = read_markdown(head + body, vitepress_anchors)
        # a page without a title of its own (the home page's hero layout) shows the site's
        title = parsed.title or self.settings.title or PurePosixPath(path.name).stem
        return "markdown", readers.finish(dataclasses.replace(parsed, title=title))

    def _include(self, body: str, folder: Path, depth: int) -> str:
        """``<!--@include: ./part.md-->`` replaced by the file (``@/`` is srcDir), within the project only."""

        def included(match: re.Match) -> str:
            name = match.group("path")
            target = (self.settings.src_dir / name[2:] if name.startswith("@/") else folder / name).resolve()
            if depth >= MAX_INCLUDE_DEPTH or not within(self._confine, target) or not target.is_file():
                return ""
            try:
                lines = readers.decode(target.read_bytes()).split("\n")
            except (OSError, ValueError):
                return ""
            start, end = match.group("start"), match.group("end")
            if start or end:
                lines = lines[int(start or 1) - 1 : int(end) if end else None]
            text = split_front_matter("\n".join(lines))[1]
            return self._include(text, target.parent, depth + 1)

        return _INCLUDE.sub(included, body)

    def url(self, path: Path) -> str | None:
        relative = self._relative(path)
        if relative is None:
            return None
        page = route(rewrite(relative, self.settings.rewrites), self.settings.clean_urls)
        base = "/" + self.settings.base.strip("/") + "/" if self.settings.base.strip("/") else "/"
        address = base + page.lstrip("/")
        return self.settings.hostname.rstrip("/") + address if self.settings.hostname else address

    def describe(self) -> dict[str, Any]:
        settings = self.settings
        return {
            **super().describe(),
            "src_dir": self._shown(settings.src_dir),
            "clean_urls": settings.clean_urls,
            "base": settings.base,
            "hostname": settings.hostname,
        }

    def warnings(self) -> list[str]:
        return [*self.settings.warnings, *super().warnings()]

    def _relative(self, path: Path) -> str | None:
        try:
            return path.resolve().relative_to(self.settings.src_dir).as_posix()
        except ValueError:
            return None


def route(relative: str, clean_urls: bool = False) -> str:
    """A page's path from the site's base, as VitePress routes it.

    >>> [route(p) for p in ("index.md", "guide/index.md", "guide/intro.md", "files/a.pdf")]
    ['/', '/guide/', '/guide/intro.html', '/files/a.pdf']
    >>> route("guide/intro.md", clean_urls=True)
    '/guide/intro'
    """
    posix = PurePosixPath(relative)
    if posix.suffix.lower() != ".md":
        return "/" + relative
    folder = "" if str(posix.parent) == "." else f"{posix.parent}/"
    if posix.stem == "index":
        return f"/{folder}"
    return f"/{folder}{posix.stem}" + ("" if clean_urls else ".html")


_REST = re.compile(r"^(?P<prefix>[^:*()\[\]]*):(?P<name>\w+)\*$")


def _followed(old: str, new: str) -> bool:
    if not any(c in old + new for c in ":*()[]"):
        return True
    found, wanted = _REST.match(old), _REST.match(new)
    return bool(found and wanted and found.group("name") == wanted.group("name"))


def rewrite(relative: str, rules: Sequence[tuple[str, str]]) -> str:
    """A page's path after the config's ``rewrites`` (those :func:`load_vitepress` follows).

    >>> rewrite("en/guide/routing.md", [("en/:rest*", ":rest*")]), rewrite("old.md", [("old.md", "new/index.md")])
    ('guide/routing.md', 'new/index.md')
    """
    for old, new in rules:
        if old == relative:
            return new
        found, wanted = _REST.match(old), _REST.match(new)
        if found and wanted and relative.startswith(found.group("prefix")):
            return wanted.group("prefix") + relative[len(found.group("prefix")) :]
    return relative
