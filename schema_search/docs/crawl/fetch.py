"""HTTP for a crawl: robots.txt obeyed, requests spaced, redirects kept within the site, sizes capped.

One :class:`Fetcher` per crawl holds the connection pool (httpx), the site's robots.txt
rules (``urllib.robotparser``, read for our own user agent) and the clock that spaces
requests. It answers each request with an :class:`Answer` whatever the status; what
stops an answer from arriving at all (no connection, a redirect off the site, a page
over the size limit) is a :class:`FetchFailed` naming why.
"""

from __future__ import annotations

import codecs
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import TypeVar
from urllib.parse import urljoin, urlsplit
from urllib.robotparser import RobotFileParser

import httpx

from .config import CrawlConfig
from .urls import page_url, site_of

REDIRECTS = frozenset({301, 302, 303, 307, 308})
# Only these are read past their headers: a PDF or an image linked from a page is not
# downloaded to be thrown away. An empty or generic type is read and sniffed.
TEXTUAL = ("text/", "application/xhtml+xml", "application/xml", "application/gzip", "application/x-gzip")
GENERIC = frozenset({"", "application/octet-stream", "binary/octet-stream"})
ACCEPT = "text/html,application/xhtml+xml,text/markdown;q=0.9,text/plain;q=0.8,*/*;q=0.5"
_META_CHARSET = re.compile(rb"""<meta[^>]+charset=["']?([\w.:-]+)""", re.IGNORECASE)

T = TypeVar("T")
R = TypeVar("R")
Progress = Callable[[Sequence, str], Iterable]


class FetchFailed(Exception):
    """No answer came: ``unreachable`` when the network failed, else a rule refused it (a redirect off the site)."""

    def __init__(self, url: str, reason: str, *, unreachable: bool = False) -> None:
        super().__init__(f"{url}: {reason}")
        self.url = url
        self.reason = reason
        self.unreachable = unreachable


@dataclass(frozen=True)
class Answer:
    """What the site said to one request, after the redirects it was allowed to follow.

    Attributes:
        url: the URL asked for.
        final: the page URL it ended at (no fragment or query).
        media_type: the Content-Type without parameters, in lower case; ``""`` when none.
        body: the decoded content bytes; empty for a 304, an error status, or a type
            that is not text (see ``TEXTUAL``).
    """

    url: str
    final: str
    status: int
    media_type: str = ""
    body: bytes = b""
    charset: str | None = None
    etag: str | None = None
    last_modified: str | None = None

    @property
    def text(self) -> str:
        return decode(self.body, self.charset)


def decode(body: bytes, charset: str | None) -> str:
    """A page's bytes as text: its BOM, else its declared charset, else UTF-8, else a ``<meta charset>``, else cp1252.

    >>> decode("naïve".encode(), None), decode("naïve".encode("latin-1"), "iso-8859-1")
    ('naïve', 'naïve')
    >>> decode(b'<meta charset="iso-8859-1"><p>caf\\xe9', None)[-4:]
    'café'
    """
    if body.startswith(codecs.BOM_UTF8):
        return body[len(codecs.BOM_UTF8) :].decode("utf-8", "replace")
    meta = _META_CHARSET.search(body[:4096])
    for encoding in (charset, "utf-8", meta and meta.group(1).decode("ascii")):
        if encoding:
            try:
                return body.decode(encoding)
            except (LookupError, UnicodeDecodeError):
                continue
    return body.decode("cp1252", "replace")


def _host_of(url: str) -> tuple[str, int | None]:
    """The exact host of a URL (``www.`` kept) and its port when not the scheme's default.

    >>> _host_of("https://www.Example.com:443/x") == _host_of("http://www.example.com/")
    True
    """
    return (urlsplit(url).hostname or "").lower(), site_of(url)[1]


def reason_of(error: Exception, timeout_s: float) -> str:
    """What went wrong with a request, in words (httpx's own messages name its internals).

    >>> reason_of(httpx.ConnectTimeout("timed out"), 20.0)
    'no connection within 20 s'
    """
    if isinstance(error, httpx.ConnectTimeout):
        return f"no connection within {timeout_s:g} s"
    if isinstance(error, httpx.TimeoutException):
        return f"no answer within {timeout_s:g} s"
    if isinstance(error, httpx.ConnectError):
        return f"cannot connect ({error or 'connection failed'})"
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__


class Fetcher:
    """The HTTP side of one crawl of one site. Use it as a context manager (it closes the pool)."""

    def __init__(
        self,
        config: CrawlConfig,
        site: str,
        *,
        transport: httpx.BaseTransport | None = None,
        exact_host: bool = False,
    ) -> None:
        """``transport``: what sends each request (robots.txt and every redirect hop go through it), e.g.
        one that refuses private addresses; ``exact_host``: a redirect must stay on the very host
        (``www.`` counts), not just the site."""
        self.config = config
        self.site = site_of(site)
        self.host = _host_of(site) if exact_host else None
        self.client = httpx.Client(
            headers={"User-Agent": config.user_agent, "Accept": ACCEPT},
            timeout=httpx.Timeout(config.timeout_s),
            follow_redirects=False,  # followed here, hop by hop, each checked against the site and robots.txt
            limits=httpx.Limits(max_connections=config.concurrency),
            transport=transport,
        )
        self.robots = RobotFileParser()
        self.robots.allow_all = True  # until read_robots says otherwise
        self.robots_status: int | None = None
        self.delay_s = config.delay_s
        self._lock = threading.Lock()
        self._next = 0.0

    def __enter__(self) -> Fetcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.client.close()

    # -- robots.txt ----------------------------------------------------------------

    def read_robots(self, root: str) -> None:
        """Read the site's robots.txt (RFC 9309): absent, everything allowed; 401/403 or a server
        error, nothing allowed; a ``Crawl-delay`` for us or for ``*`` slows every request.

        Raises:
            FetchFailed: the site cannot be reached (``unreachable``).
        """
        robots = RobotFileParser(root + "robots.txt")
        try:
            answer = self.get(root + "robots.txt", check_robots=False)
        except FetchFailed as failed:
            if failed.unreachable:
                raise
            answer = Answer(root + "robots.txt", root + "robots.txt", 404)  # redirected off the site: none of ours
        self.robots_status = answer.status
        if answer.status == 200:
            robots.parse(answer.text.splitlines())
        elif answer.status in (401, 403) or answer.status >= 500:
            robots.disallow_all = True
        else:
            robots.allow_all = True
        self.robots = robots
        delay = robots.crawl_delay(self.config.user_agent)
        if delay:
            self.delay_s = max(self.delay_s, float(delay))

    def allowed(self, url: str) -> bool:
        return self.robots.can_fetch(self.config.user_agent, url)

    def sitemaps(self) -> list[str]:
        """The ``Sitemap:`` lines of robots.txt."""
        return list(self.robots.site_maps() or ())

    # -- requests ------------------------------------------------------------------

    def get(
        self, url: str, *, etag: str | None = None, last_modified: str | None = None, check_robots: bool = True
    ) -> Answer:
        """GET ``url``, conditionally when ``etag`` or ``last_modified`` are given (a 304 then has no body).

        Raises:
            FetchFailed: no connection, a redirect off the site or into a path robots.txt
                closes, too many redirects, or a body over the size limit.
        """
        headers = {}
        if etag:
            headers["If-None-Match"] = etag
        if last_modified:
            headers["If-Modified-Since"] = last_modified
        current = url
        for _hop in range(self.config.max_redirects + 1):
            if check_robots and not self.allowed(current):
                raise FetchFailed(url, f"robots.txt does not allow {self.config.user_agent} to read {current}")
            self._wait_turn()
            try:
                with self.client.stream("GET", current, headers=headers) as response:
                    if response.status_code in REDIRECTS and "location" in response.headers:
                        target = urljoin(current, response.headers["location"])
                        off = site_of(target) != self.site or (self.host is not None and _host_of(target) != self.host)
                        if off or not target.lower().startswith(("http://", "https://")):
                            raise FetchFailed(url, f"redirects off the site, to {target}")
                        current = target
                        continue
                    return self._answer(url, current, response)
            except httpx.HTTPError as error:
                raise FetchFailed(url, reason_of(error, self.config.timeout_s), unreachable=True) from None
            except (httpx.InvalidURL, httpx.StreamError) as error:
                raise FetchFailed(url, f"not a URL that can be fetched ({error})") from None
        raise FetchFailed(url, f"more than {self.config.max_redirects} redirects")

    def _answer(self, url: str, current: str, response: httpx.Response) -> Answer:
        media_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
        body = b""
        if response.status_code == 200 and (media_type in GENERIC or media_type.startswith(TEXTUAL)):
            body = self._read(url, response)
        return Answer(
            url=url,
            final=page_url(current),
            status=response.status_code,
            media_type=media_type,
            body=body,
            charset=response.charset_encoding,
            etag=response.headers.get("etag"),
            last_modified=response.headers.get("last-modified"),
        )

    def _read(self, url: str, response: httpx.Response) -> bytes:
        limit = self.config.max_page_bytes
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            raise FetchFailed(url, f"{int(declared):,} bytes, over the {limit:,}-byte limit for a page")
        body = bytearray()
        for piece in response.iter_bytes():  # decompressed: the limit holds for what is kept
            body += piece
            if len(body) > limit:
                raise FetchFailed(url, f"over the {limit:,}-byte limit for a page")
        return bytes(body)

    def _wait_turn(self) -> None:
        """Space the starts of requests ``delay_s`` apart, however many workers ask."""
        with self._lock:
            now = time.monotonic()
            start = max(now, self._next)
            self._next = start + self.delay_s
        if start > now:
            time.sleep(start - now)

    def map(self, work: Callable[[T], R], items: Sequence[T], progress: Progress | None = None) -> Iterator[R]:
        """``work`` on each item, ``concurrency`` at a time; results in the order of ``items``, each let go
        once yielded (a crawl of 500 pages need not hold them all)."""
        if not items:
            return
        pool = ThreadPoolExecutor(min(self.config.concurrency, len(items)), thread_name_prefix="crawl")
        try:
            futures: list[Future[R] | None] = [pool.submit(work, item) for item in items]
            positions = range(len(futures))
            for position in progress(positions, "fetching") if progress else positions:
                future, futures[position] = futures[position], None
                assert future is not None
                yield future.result()
        finally:
            pool.shutdown(wait=True, cancel_futures=True)  # a crawl that stops early sends nothing more
