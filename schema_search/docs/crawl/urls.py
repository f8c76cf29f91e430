"""Pure URL rules of a crawl: what one page is, which site and which part of it a crawl stays in,
and the file a page is saved as."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from posixpath import splitext
from urllib.parse import unquote, urljoin, urlsplit, urlunsplit

DEFAULT_PORTS = {"http": 80, "https": 443}
# Links to these are never pages: following them would only download what no reader takes.
NOT_PAGES = frozenset(
    ".png .jpg .jpeg .gif .svg .ico .webp .avif .bmp .css .js .mjs .map .json .xml .pdf .zip .gz .tgz .tar "
    ".bz2 .xz .whl .exe .dmg .woff .woff2 .ttf .otf .eot .mp3 .mp4 .webm .mov .avi .wasm .ipynb .csv".split()
)
LLMS_TXT = "llms.txt"
# Longest saved file name: well under the 255 bytes file systems allow, with room for a suffix.
MAX_NAME = 150


def page_url(url: str, base: str | None = None) -> str:
    """``url`` (resolved against ``base``) as one page: no fragment, no query, host in lower case.

    >>> page_url("../install.html?lang=en#pip", "https://Docs.Example.com/guide/start.html")
    'https://docs.example.com/install.html'
    >>> page_url("https://docs.example.com")
    'https://docs.example.com/'
    """
    parts = urlsplit(urljoin(base, url) if base else url)
    netloc = parts.netloc.lower()
    return urlunsplit((parts.scheme.lower(), netloc, parts.path or "/", "", ""))


def check_start(url: str) -> str | None:
    """Why ``url`` cannot start a crawl, or None when it can.

    >>> check_start("https://docs.example.com/") is None
    True
    >>> check_start("ftp://example.com/")
    'only http and https URLs can be crawled'
    >>> check_start("https:///path")
    'the URL names no host'
    """
    parts = urlsplit(url)
    if parts.scheme.lower() not in DEFAULT_PORTS:
        return "only http and https URLs can be crawled"
    if not parts.hostname:
        return "the URL names no host"
    return None


def is_url(text: str) -> bool:
    """Whether a command-line argument is a URL rather than a folder.

    >>> is_url("https://docs.example.com/"), is_url("site/docs"), is_url("HTTP://x")
    (True, False, True)
    """
    return re.match(r"(?i)https?://", text) is not None


def site_of(url: str) -> tuple[str, int | None]:
    """What makes two URLs one site: the host without ``www.``, and a port that is not the default.

    ``http`` and ``https`` of one host are one site, so the usual upgrade redirect stays in it.

    >>> site_of("https://www.example.com/docs/") == site_of("http://example.com:80/")
    True
    >>> site_of("http://127.0.0.1:8001/")
    ('127.0.0.1', 8001)
    """
    parts = urlsplit(url)
    host = (parts.hostname or "").lower().removeprefix("www.")
    try:
        port = parts.port
    except ValueError:
        port = None
    return host, None if port == DEFAULT_PORTS.get(parts.scheme.lower()) else port


def root_of(url: str) -> str:
    """The site's root, where robots.txt and llms.txt live.

    >>> root_of("https://docs.example.com/en/latest/index.html")
    'https://docs.example.com/'
    """
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/", "", ""))


@dataclass(frozen=True)
class Scope:
    """The part of a site a crawl stays in: the same site, under the start URL's folder."""

    site: tuple[str, int | None]
    prefix: str

    @classmethod
    def of(cls, start: str) -> Scope:
        """The scope of a start URL: its folder, or the URL itself when its last part has no suffix.

        >>> Scope.of("https://docs.example.com/en/latest/index.html").prefix
        '/en/latest/'
        >>> Scope.of("https://docs.example.com/guide").prefix
        '/guide/'
        """
        path = urlsplit(start).path or "/"
        if not path.endswith("/"):
            folder, _, last = path.rpartition("/")
            path = folder + "/" if "." in last else path + "/"
        return cls(site_of(start), path)

    def holds(self, url: str) -> bool:
        """Whether ``url`` is a page of this crawl.

        >>> scope = Scope.of("https://docs.example.com/guide/")
        >>> [scope.holds(u) for u in ("https://docs.example.com/guide", "https://docs.example.com/guide/a/b",
        ...                           "https://docs.example.com/blog/", "https://other.example.com/guide/")]
        [True, True, False, False]
        """
        if urlsplit(url).scheme.lower() not in DEFAULT_PORTS or site_of(url) != self.site:
            return False
        path = urlsplit(url).path or "/"
        return path.startswith(self.prefix) or path == self.prefix.rstrip("/")


def maybe_page(url: str) -> bool:
    """Whether a link may lead to a page (not an image, a stylesheet, an archive).

    >>> maybe_page("https://x.org/guide/"), maybe_page("https://x.org/logo.svg"), maybe_page("https://x.org/a.md")
    (True, False, True)
    """
    return splitext(urlsplit(url).path)[1].lower() not in NOT_PAGES


def markdown_variant(url: str) -> str:
    """Where llmstxt.org proposes a page's Markdown version: the URL with ``.md`` appended
    (``index.html.md`` for a URL that ends in ``/``); a Markdown or text URL is its own.

    >>> markdown_variant("https://x.org/guide/"), markdown_variant("https://x.org/api.html")
    ('https://x.org/guide/index.html.md', 'https://x.org/api.html.md')
    >>> markdown_variant("https://x.org/notes.md")
    'https://x.org/notes.md'
    """
    path = urlsplit(url).path
    if splitext(path)[1].lower() in {".md", ".markdown", ".mdx", ".txt", ".rst"}:
        return url
    return url + ("index.html.md" if path.endswith("/") else ".md")


def cited_url(url: str) -> str:
    """The page a llmstxt.org Markdown version stands for, which a citation should name.

    >>> cited_url("https://x.org/guide/index.html.md"), cited_url("https://x.org/api.html.md")
    ('https://x.org/guide/', 'https://x.org/api.html')
    >>> cited_url("https://x.org/notes.md")
    'https://x.org/notes.md'
    """
    if url.endswith("/index.html.md"):
        return url.removesuffix("index.html.md")
    return url.removesuffix(".md") if url.endswith(".html.md") else url


def file_name(url: str, suffix: str, taken: set[str]) -> str:
    """A file name in the mirror for page ``url`` saved with ``suffix``, not one of ``taken`` (lower case).

    Flat (``/`` becomes ``__``), so no saved path ends with another one: the manifest's
    ``path`` then names exactly one file.

    >>> file_name("https://x.org/guide/install/", ".html", set())
    'guide__install__index.html'
    >>> file_name("https://x.org/api.html.md", ".md", set())
    'api.html.md'
    >>> file_name("https://x.org/", ".html", {"index.html"})
    'index-f71ed0.html'
    """
    path = unquote(urlsplit(url).path)
    if path.endswith("/") or not path:
        path += "index"
    stem, old = splitext(path)
    if old.lower() in {".html", ".htm", ".md", ".markdown", ".mdx", ".txt", ".text", ".rst", ".rest"}:
        path = stem if old.lower() == suffix or (suffix == ".html" and old.lower() == ".htm") else path
    name = _flat(path)[:MAX_NAME].lstrip(".-") or "page"
    candidate = name + suffix
    # Compared in lower case: a mirror may be copied to a file system that ignores case.
    if candidate.lower() in taken or candidate == "manifest.jsonl":
        candidate = f"{name}-{_digest(url)}{suffix}"
    return candidate


def _flat(path: str) -> str:
    parts = [re.sub(r"[^\w.-]+", "-", part).strip("-") for part in path.strip("/").split("/")]
    return "__".join(part for part in parts if part)


def _digest(url: str) -> str:
    return hashlib.sha1(url.encode()).hexdigest()[:6]
