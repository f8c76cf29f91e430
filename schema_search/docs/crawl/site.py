"""A site's URL -> its pages in the staging folder of the corpus's mirror, with a manifest and counts.

:func:`crawl_site` reads robots.txt, checks the start page, then finds pages by the
first way that yields any: the site's ``llms.txt`` (its Markdown versions preferred
when the site offers them), its sitemaps (those robots.txt names, then
``sitemap.xml`` under the start URL and at the root), else links followed
breadth-first from the start page. Every page is asked for with the validators of
its last copy, so an unchanged page answers 304 and is kept as it was.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path
from typing import Any

from ...errors import InvalidInput, SourceError
from ..models import CrawlCounts
from .config import CrawlConfig
from .discover import Listed, is_llms_txt, is_sitemap, llms_txt, page_links, sitemaps
from .fetch import Answer, Fetcher, FetchFailed, Progress
from .mirror import Mirror, page_suffix, utc_now
from .urls import LLMS_TXT, Scope, check_start, cited_url, file_name, markdown_variant, maybe_page, page_url, root_of

GONE = frozenset({404, 410})
# How many URLs a warning names before it only counts.
NAMED = 3
FOLDER_HINT = "or save the pages into a folder yourself and run `schemasift docs index FOLDER --corpus NAME`"


@dataclass
class Crawl:
    """A finished crawl: its pages are in ``folder`` (the mirror's staging folder) with their manifest."""

    folder: Path
    records: list[dict[str, Any]]
    counts: CrawlCounts
    warnings: list[str]

    def source(self, mirror: Path) -> dict[str, Any]:
        """What the corpus records as its source."""
        return {
            "kind": "url",
            "url": self.counts.url,
            "path": str(mirror),
            "discovery": self.counts.discovery,
            "manifest": True,
            "fetched": max((r.get("fetched") or "" for r in self.records), default=None),
        }


@dataclass
class _Page:
    """What became of one page: ``state`` is fetched, unchanged, gone, failed, skipped or duplicate."""

    url: str
    state: str
    record: dict[str, Any] | None = None
    text: str | None = None  # for the links of a page
    reason: str | None = None
    markdown: bool = False


def crawl_site(
    url: str,
    mirror: Mirror,
    config: CrawlConfig | None = None,
    progress: Progress | None = None,
) -> Crawl:
    """Fetch the pages of the site at ``url`` into ``mirror``'s staging folder (see the module's docstring).

    Raises:
        InvalidInput: ``url`` is not an http(s) URL.
        SourceError: the site cannot be reached, robots.txt closes the start URL, the
            start page is missing or not a page, no page was found, or none could be fetched.
    """
    config = config or CrawlConfig()
    url = url.strip()
    problem = check_start(url)
    if problem:
        raise InvalidInput(f"{url!r} cannot be crawled: {problem}.", hint="Give a URL like https://docs.example.com/.")
    start = page_url(url)
    with Fetcher(config, start) as fetcher:
        try:
            return _Crawler(start, mirror, fetcher, progress).run()
        except BaseException:
            mirror.discard()
            raise


class _Crawler:
    def __init__(self, start: str, mirror: Mirror, fetcher: Fetcher, progress: Progress | None) -> None:
        self.start = start
        self.scope = Scope.of(start)
        self.root = root_of(start)
        self.mirror = mirror
        self.fetcher = fetcher
        self.config = fetcher.config
        self.progress = progress
        self.previous = mirror.records()
        self.taken: set[str] = set()  # file names given, in lower case
        self.settled: set[str] = set()  # page URLs saved
        self.skipped: list[str] = []
        self.warnings: list[str] = []
        self._cached: dict[str, Answer] = {}

    # -- the whole -----------------------------------------------------------------

    def run(self) -> Crawl:
        self._robots()
        folder = self.mirror.stage()
        first: Answer | None = None
        if is_llms_txt(self.start):
            found, discovery = self._from_llms_txt([self.start]), "llms.txt"
        elif is_sitemap(self.start):
            found, discovery = self._listed(sitemaps(self.fetcher, [self.start]), "sitemap"), "sitemap"
        else:
            first = self._start_page()
            found, discovery = self._discover()
            if first.status not in (200, 304):
                if not found:
                    raise SourceError(
                        f"{self.start} answered {first.status} {_phrase(first.status)}.",
                        hint="Check the address: give the documentation's start page, its llms.txt or its sitemap.xml.",
                    )
                self.warnings.append(f"{self.start} answered {first.status}; its pages come from {discovery}")
                first = None
        if found:
            pages = [_without_text(page) for page in self._fetch_listed(found, markdown=discovery == "llms.txt")]
        elif first is not None:
            pages, discovery = self._follow_links(self._settle(Listed(self.start), self.start, first)), "links"
        else:
            pages = []
        return self._finish(folder, pages, discovery)

    def _robots(self) -> None:
        try:
            self.fetcher.read_robots(self.root)
        except FetchFailed as failed:
            raise SourceError(
                f"Cannot reach {self.root}: {failed.reason}.",
                hint="Check the address, and that this machine can reach the site (HTTPS_PROXY is used where "
                "set). Nothing was changed.",
            ) from None
        if not self.fetcher.allowed(self.start):
            status = self.fetcher.robots_status
            why = f" (it answered {status}, which closes the whole site)" if status and status != 200 else ""
            raise SourceError(
                f"{self.root}robots.txt does not allow {self.config.user_agent} to read {self.start}{why}.",
                hint=f"Ask the site's owner to allow it, {FOLDER_HINT}.",
            )

    def _start_page(self) -> Answer:
        """The start page's answer (kept for a list that has it). It may be missing where llms.txt or a
        sitemap lists the pages, but it may not be a PDF or an image: then the URL is not what was meant."""
        previous = self.previous.get(self.start)
        try:
            answer = self.fetcher.get(self.start, **_validators(previous, self.start))
        except FetchFailed as failed:
            raise SourceError(
                f"Cannot read {self.start}: {failed.reason}.",
                hint="Check the address (give the URL the site redirects to, if it redirects elsewhere).",
            ) from None
        if answer.status == 200 and page_suffix(answer.media_type, answer.final, answer.body) is None:
            raise SourceError(
                f"{self.start} is {answer.media_type or 'of no stated type'}, not an HTML page.",
                hint=f"Give the URL of the documentation's HTML start page (or its llms.txt or sitemap.xml), {FOLDER_HINT}.",
            )
        self._cached[self.start] = answer
        return answer

    def _discover(self) -> tuple[list[Listed], str]:
        """The pages llms.txt lists, else those the sitemaps list: ``([], ...)`` when neither has any."""
        here = [self.root + self.scope.prefix.lstrip("/")] if self.scope.prefix != "/" else []
        found = self._from_llms_txt([base + LLMS_TXT for base in [*here, self.root]])
        if found:
            return found, "llms.txt"
        named = [u for u in self.fetcher.sitemaps() if self.scope.site == Scope.of(u).site]
        guessed = [base + "sitemap.xml" for base in [*here, self.root]]
        return self._listed(sitemaps(self.fetcher, named or guessed), "sitemap"), "sitemap"

    def _from_llms_txt(self, candidates: list[str]) -> list[Listed]:
        for candidate in candidates:
            listed = llms_txt(self.fetcher, candidate)
            if listed:
                kept = self._listed(listed, LLMS_TXT)
                if kept:
                    return kept
        return []

    def _listed(self, listed: Sequence[Listed | str], where: str) -> list[Listed]:
        """What a list names that this crawl may fetch: in scope, a page, allowed; at most ``max_pages``."""
        kept: dict[str, Listed] = {}
        outside, closed = [], []
        for item in listed:
            item = Listed(item) if isinstance(item, str) else item
            if not self.scope.holds(item.url) or not maybe_page(item.url):
                outside.append(item.url)
            elif not self.fetcher.allowed(item.url):
                closed.append(item.url)
            else:
                kept.setdefault(item.url, item)
        if outside:
            self.warnings.append(
                f"{where} lists {len(outside)} URLs outside {self.root}{self.scope.prefix.lstrip('/')} or not pages, "
                f"not fetched: {_named(outside)}"
            )
        if closed:
            self.warnings.append(f"robots.txt closes {len(closed)} pages {where} lists: {_named(closed)}")
        pages = list(kept.values())
        if len(pages) > self.config.max_pages:
            self.warnings.append(
                f"{where} lists {len(pages)} pages; fetched the first {self.config.max_pages} (raise --max-pages)"
            )
        return pages[: self.config.max_pages]

    # -- fetching pages ------------------------------------------------------------

    def _fetch_listed(self, listed: list[Listed], markdown: bool) -> Iterator[_Page]:
        """The pages of ``listed``, fetched by the workers and saved here, in order, one at a time."""
        prefer = markdown and self._offers_markdown(listed)
        answers = self.fetcher.map(lambda item: self._request(item, prefer), listed, self.progress)
        for item, (source, answer) in zip(listed, answers):
            yield self._settle(item, source, answer)

    def _offers_markdown(self, listed: list[Listed]) -> bool:
        """Whether the site serves llmstxt.org's Markdown versions: asked of the first page that has one."""
        for item in listed:
            variant = markdown_variant(item.url)
            if variant != item.url:
                try:
                    answer = self.fetcher.get(variant)
                except FetchFailed:
                    return False
                return answer.status == 200 and page_suffix(answer.media_type, variant, answer.body) == ".md"
        return False

    def _request(self, item: Listed, prefer_markdown: bool) -> tuple[str, Answer | FetchFailed]:
        """``(URL fetched, its answer)`` for one page, in a worker thread: its Markdown version first when preferred."""
        sources = list(dict.fromkeys([markdown_variant(item.url), item.url] if prefer_markdown else [item.url]))
        for source in sources[:-1]:
            answer = self._get(source, item)
            if isinstance(answer, Answer) and (answer.status == 304 or _is_markdown(answer, source)):
                return source, answer
        return sources[-1], self._get(sources[-1], item)

    def _get(self, source: str, item: Listed) -> Answer | FetchFailed:
        if source in self._cached:
            return self._cached[source]
        try:
            return self.fetcher.get(source, **_validators(self.previous.get(item.url), source))
        except FetchFailed as failed:
            return failed

    def _follow_links(self, first: _Page) -> list[_Page]:
        """Pages found by following links breadth-first from the start page, within the scope."""
        pages = [first]
        seen = {self.start, first.url}
        frontier: deque[str] = deque()
        closed: list[str] = []

        def enqueue(page: _Page) -> None:
            for link in page_links(page.text or "", page.url, markdown=page.markdown):
                if link in seen or not self.scope.holds(link):
                    continue
                seen.add(link)
                if self.fetcher.allowed(link):
                    frontier.append(link)
                else:
                    closed.append(link)

        enqueue(first)
        _without_text(first)
        kept = 1 if first.record else 0
        while frontier and kept < self.config.max_pages:
            batch = [Listed(frontier.popleft()) for _ in range(min(len(frontier), self.config.max_pages - kept))]
            for page in self._fetch_listed(batch, markdown=False):
                pages.append(page)
                if page.record:
                    kept += 1
                    enqueue(page)
                _without_text(page)
        if frontier:
            self.warnings.append(
                f"stopped at {self.config.max_pages} pages (--max-pages); {len(frontier)} more linked pages "
                "were not fetched"
            )
        if closed:
            self.warnings.append(f"robots.txt closes {len(closed)} linked pages: {_named(closed)}")
        return pages

    # -- one page into the mirror ----------------------------------------------------

    def _settle(self, item: Listed, source: str, answer: Answer | FetchFailed) -> _Page:
        """Save what one request brought, or keep the last copy: runs in order, in one thread."""
        previous = self.previous.get(item.url)
        if isinstance(answer, FetchFailed):
            return self._failed(item.url, answer.reason, previous)
        # A Markdown version is cited as the page llms.txt links; a page as where its redirects end.
        url = item.url if source != item.url else cited_url(answer.final)
        if url in self.settled:
            return _Page(url, "duplicate")  # two links that lead to one page
        previous = previous or self.previous.get(url)
        if previous and previous["path"].lower() in self.taken:
            previous = None  # its file went to another page already
        if answer.status == 304 and previous:
            record = {**previous, "fetched": utc_now(), "title": item.title or previous.get("title")}
            record = self._record(record, url, source, answer, previous["path"])
            self.mirror.keep(record["path"])
            return _Page(url, "unchanged", record, self.mirror.read(record["path"]), markdown=_is_md(record["path"]))
        if answer.status in GONE:
            return _Page(item.url, "gone", reason=f"{answer.status} {_phrase(answer.status)}")
        if answer.status != 200:
            return self._failed(item.url, f"answered {answer.status} {_phrase(answer.status)}", previous)
        suffix = page_suffix(answer.media_type, answer.final, answer.body)
        if suffix is None:
            self.skipped.append(item.url)
            return _Page(item.url, "skipped", reason=f"{answer.media_type or 'no type'}, not a page")
        path = previous["path"] if previous and previous["path"].endswith(suffix) else None
        path = path or file_name(url, suffix, self.taken)
        text = answer.text
        self.mirror.write(path, text)
        record = self._record({"title": item.title, "fetched": utc_now()}, url, source, answer, path)
        return _Page(url, "fetched", record, text, markdown=suffix == ".md")

    def _record(self, base: dict, url: str, source: str, answer: Answer, path: str) -> dict[str, Any]:
        self.taken.add(path.lower())
        self.settled.add(url)
        record = {
            "path": path,
            "url": url,
            "title": base.get("title"),
            "fetched": base.get("fetched"),
            "etag": answer.etag or (base.get("etag") if answer.status == 304 else None),
            "last_modified": answer.last_modified or (base.get("last_modified") if answer.status == 304 else None),
            "source": source if source != url else None,
        }
        return {key: value for key, value in record.items() if value is not None}

    def _failed(self, url: str, reason: str, previous: dict[str, Any] | None) -> _Page:
        if previous and previous["path"].lower() not in self.taken and url not in self.settled:
            self.taken.add(previous["path"].lower())
            self.settled.add(url)
            self.mirror.keep(previous["path"])
            kept = f"; kept the copy fetched {previous.get('fetched', 'earlier')}"
            return _Page(url, "failed", previous, self.mirror.read(previous["path"]), reason + kept)
        return _Page(url, "failed", reason=reason)

    # -- the end ---------------------------------------------------------------------

    def _finish(self, folder: Path, pages: list[_Page], discovery: str) -> Crawl:
        states = Counter(page.state for page in pages)
        records = [page.record for page in pages if page.record]
        answered = states["fetched"] + states["unchanged"]
        failures = [f"{page.url}: {page.reason}" for page in pages if page.state == "failed"]
        if not answered:
            if failures and self.previous:
                raise SourceError(
                    f"None of the {len(failures)} pages of {self.start} could be fetched (first: {failures[0]}).",
                    hint="Nothing was changed: the corpus and its mirror are as they were. Try again later.",
                )
            problem = failures[0] if failures else self.skipped and f"{self.skipped[0]} is not HTML or text"
            raise SourceError(
                f"Found no page to index at {self.start}" + (f" (first problem: {problem})." if problem else "."),
                hint="Give the documentation's start page, its llms.txt or its sitemap.xml; pages are followed "
                f"only under {self.root}{self.scope.prefix.lstrip('/')}, {FOLDER_HINT}.",
            )
        self.mirror.write_manifest(records)
        urls = {record["url"] for record in records}
        notes = [*self.warnings, *failures]
        if self.fetcher.delay_s > self.config.delay_s:
            notes.append(f"robots.txt asks for {self.fetcher.delay_s:g} s between requests, which this crawl kept to")
        gone = [page.url for page in pages if page.state == "gone" and page.url not in self.previous]
        if gone:
            notes.append(f"{len(gone)} listed or linked pages are not found: {_named(gone)}")
        if self.skipped:
            notes.append(f"{len(self.skipped)} links are not HTML or text pages, not indexed: {_named(self.skipped)}")
        counts = CrawlCounts(
            url=self.start,
            discovery=discovery,
            pages=len(records),
            fetched=states["fetched"],
            unchanged=states["unchanged"],
            new=sum(1 for page in pages if page.state == "fetched" and page.url not in self.previous),
            removed=sum(1 for url in self.previous if url not in urls),
            failed=len(failures),
        )
        return Crawl(folder, records, counts, notes)


def _without_text(page: _Page) -> _Page:
    page.text = None  # its links are read: a crawl of 500 pages need not hold their texts
    return page


def _validators(previous: dict[str, Any] | None, source: str) -> dict[str, str | None]:
    """The conditional-request validators of the last copy, when it was fetched from ``source``."""
    if not previous or previous.get("source", previous["url"]) != source:
        return {}
    return {"etag": previous.get("etag"), "last_modified": previous.get("last_modified")}


def _is_markdown(answer: Answer, source: str) -> bool:
    return answer.status == 200 and page_suffix(answer.media_type, source, answer.body) == ".md"


def _is_md(path: str) -> bool:
    return path.endswith(".md")


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""


def _named(urls: Sequence[str]) -> str:
    return ", ".join(urls[:NAMED]) + (" ..." if len(urls) > NAMED else "")
