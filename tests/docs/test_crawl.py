"""``docs.crawl``: finding, fetching and mirroring a site's pages, against a tiny site on 127.0.0.1.

Each test serves a ``tmp_path`` folder with :class:`Site` (ETags and 304s, redirects and
failures on demand) and crawls it with no delay; the workspaces run without the dense
channel, so no model loads (``test_crawl_cli.py`` embeds).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import threading
from email.utils import formatdate, parsedate_to_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from schema_search.docs.corpus import Document, load_corpus
from schema_search.docs.crawl.config import USER_AGENT, CrawlConfig
from schema_search.docs.crawl.mirror import Mirror
from schema_search.docs.crawl.site import crawl_site
from schema_search.errors import SourceError
from schema_search.settings import Settings
from schema_search.structured.models import QueryRequest
from schema_search.workspace import Workspace

from ..conftest import HANDBOOK

FAST = CrawlConfig(delay_s=0, concurrency=2)
TYPES = {
    ".html": "text/html; charset=utf-8",
    ".md": "text/markdown; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
    ".xml": "application/xml",
    ".pdf": "application/pdf",
    ".png": "image/png",
}
ISO_UTC = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


class Site:
    """A documentation site on 127.0.0.1 port 0 that serves the files under ``root``.

    Every answer has an ETag (a hash of the file), and a request that sends it back
    gets 304; with ``etags`` off, a Last-Modified date instead (the file's), and a request
    that sends it back gets 304 while the file is not newer. ``redirects`` maps a path
    to a Location; ``failing`` paths answer 500.
    ``requests`` logs ``(path, status, User-Agent)``.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.redirects: dict[str, str] = {}
        self.failing: set[str] = set()
        self.etags = True
        self.requests: list[tuple[str, int, str]] = []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), type("Handler", (_Handler,), {"site": self}))
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/"

    def write(self, path: str, text: str) -> None:
        file = self.root / path
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(text, encoding="utf-8")

    def statuses(self, path: str) -> list[int]:
        return [status for asked, status, _ in self.requests if asked == path]

    def asked(self) -> set[str]:
        return {path for path, _, _ in self.requests}

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class _Handler(BaseHTTPRequestHandler):
    site: Site

    def do_GET(self) -> None:  # noqa: N802 (the name http.server calls)
        path = urlsplit(self.path).path
        file = self.site.root / path.lstrip("/")
        if path.endswith("/"):
            file = file / "index.html"
        if path in self.site.failing:
            self._answer(path, 500, b"down")
        elif path in self.site.redirects:
            self._answer(path, 301, b"", {"Location": self.site.redirects[path]})
        elif not file.is_file():
            self._answer(path, 404, b"not found", {"Content-Type": "text/plain"})
        else:
            body = file.read_bytes()
            if self.site.etags:
                validator = {"ETag": '"' + hashlib.sha1(body).hexdigest()[:12] + '"'}
                fresh = self.headers.get("If-None-Match") == validator["ETag"]
            else:
                validator = {"Last-Modified": formatdate(int(file.stat().st_mtime), usegmt=True)}
                since = self.headers.get("If-Modified-Since")
                fresh = since is not None and parsedate_to_datetime(since).timestamp() >= int(file.stat().st_mtime)
            if fresh:
                self._answer(path, 304, b"", validator)
            else:
                content_type = TYPES.get(file.suffix, "application/octet-stream")
                self._answer(path, 200, body, {**validator, "Content-Type": content_type})

    def _answer(self, path: str, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.site.requests.append((path, status, self.headers.get("User-Agent", "")))
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if status != 304:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if status != 304:
            self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass  # quiet test output


@pytest.fixture
def site(tmp_path: Path):
    served = Site(tmp_path / "site")
    yield served
    served.close()


@pytest.fixture
def other(tmp_path: Path):
    """Another site (another port): a crawl of ``site`` must never ask it anything."""
    served = Site(tmp_path / "other")
    served.write("index.html", "<h1>Elsewhere</h1>")
    yield served
    served.close()


def page(title: str, body: str = "", links: tuple[str, ...] = ()) -> str:
    anchors = "".join(f'<a href="{href}">{href}</a> ' for href in links)
    return f"<html><head><title>{title}</title></head><body><h1>{title}</h1><p>{body}</p><p>{anchors}</p></body></html>"


def crawl(site_url: str, tmp_path: Path, config: CrawlConfig = FAST):
    mirror = Mirror(tmp_path / "mirror")
    return crawl_site(site_url, mirror, config), mirror


def manifest(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "manifest.jsonl").read_text().splitlines()]


def fast_workspace(tmp_path: Path) -> Workspace:
    return Workspace(Settings(home=tmp_path / "home", dense=False))


# -- finding pages -------------------------------------------------------------------


def test_llms_txt_lists_the_pages_and_their_markdown_versions_are_preferred(site, other, tmp_path):
    site.write("index.html", page("Home", links=("/guide/", "/unlisted.html")))
    site.write("unlisted.html", page("Unlisted"))
    site.write("guide/index.html", page("Guide HTML"))
    site.write("guide/index.html.md", "# Guide\n\nInstall it with pip.\n")
    site.write("api.html", page("API HTML"))
    site.write("api.html.md", "# API\n\nThe client class.\n")
    site.write(
        "llms.txt",
        f"# Demo\n> A demo site.\n## Docs\n- [The guide](/guide/): start here\n- [API reference](api.html)\n"
        f"## Elsewhere\n- [Other]({other.url})\n",
    )
    crawled, _ = crawl(site.url, tmp_path)
    assert crawled.counts.discovery == "llms.txt"
    records = {r["url"]: r for r in crawled.records}
    assert set(records) == {site.url + "guide/", site.url + "api.html"}
    guide = records[site.url + "guide/"]
    assert guide["title"] == "The guide" and guide["source"] == site.url + "guide/index.html.md"
    assert guide["path"].endswith(".md") and ISO_UTC.match(guide["fetched"]) and guide["etag"]
    assert (crawled.folder / guide["path"]).read_text().startswith("# Guide")
    assert "/unlisted.html" not in site.asked() and other.requests == []
    assert any("outside" in w and other.url in w for w in crawled.warnings)
    assert {agent for _, _, agent in site.requests} == {USER_AGENT}


def test_llms_txt_given_directly_without_markdown_versions_fetches_the_pages(site, tmp_path):
    site.write("docs/a.html", page("Alpha"))
    site.write("docs/b.html", page("Beta"))
    site.write("docs/llms.txt", "# Docs\n## Pages\n- [A](a.html)\n- [B](b.html)\n")
    crawled, _ = crawl(site.url + "docs/llms.txt", tmp_path)
    assert [r["url"] for r in crawled.records] == [site.url + "docs/a.html", site.url + "docs/b.html"]
    assert all(r["path"].endswith(".html") and "source" not in r for r in crawled.records)
    assert site.statuses("/docs/a.html.md") == [404]  # asked once, of the first page only
    assert "/docs/b.html.md" not in site.asked()


def test_a_sitemap_index_named_in_robots_txt_lists_the_pages_under_the_start_url(site, tmp_path):
    site.write("robots.txt", f"User-agent: *\nAllow: /\nSitemap: {site.url}sitemaps/index.xml\n")
    site.write(
        "sitemaps/index.xml",
        f'<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<sitemap><loc>{site.url}sitemaps/docs.xml</loc></sitemap></sitemapindex>",
    )
    locs = ("docs/", "docs/install.html", "docs/usage.html", "blog/news.html")
    site.write(
        "sitemaps/docs.xml",
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        + "".join(f"<url><loc>{site.url}{loc}</loc></url>" for loc in locs)
        + "</urlset>",
    )
    for path in ("docs/index.html", "docs/install.html", "docs/usage.html", "blog/news.html"):
        site.write(path, page(path))
    crawled, _ = crawl(site.url + "docs/", tmp_path)
    assert crawled.counts.discovery == "sitemap"
    assert [r["url"] for r in crawled.records] == [site.url + loc for loc in locs[:3]]
    assert "/blog/news.html" not in site.asked()
    assert site.statuses("/docs/") == [200]  # the start page once: checked, then kept for the list


def test_sitemap_xml_at_the_root_is_found_without_robots_txt(site, tmp_path):
    site.write("index.html", page("Home"))
    site.write("a.html", page("A"))
    site.write(
        "sitemap.xml", f"<urlset><url><loc>{site.url}</loc></url><url><loc>{site.url}a.html</loc></url></urlset>"
    )
    crawled, _ = crawl(site.url, tmp_path)
    assert crawled.counts.discovery == "sitemap" and crawled.counts.pages == 2


def test_links_are_followed_within_the_site_under_the_start_path(site, other, tmp_path):
    site.write("robots.txt", "User-agent: *\nDisallow: /docs/private/\n")
    site.write(
        "docs/index.html",
        page(
            "Docs",
            links=(
                "intro.html#top",
                "intro.html?lang=en",
                "deep/",
                "private/secret.html",
                "/blog/",
                other.url,
                "logo.png",
                "manual.pdf",
                "download",
                "mailto:team@example.com",
                "moved.html",
            ),
        ),
    )
    site.write("docs/intro.html", page("Intro", links=("deep/",)))
    site.write("docs/deep/index.html", page("Deep", links=("notes.md",)))
    site.write("docs/deep/notes.md", "# Notes\n\nSee [the intro](../intro.html).\n")
    site.write("docs/private/secret.html", page("Secret"))
    site.write("docs/manual.pdf", "%PDF-1.4")
    site.write("docs/download", "PK\x03\x04 an archive")
    site.write("blog/index.html", page("Blog"))
    site.redirects["/docs/moved.html"] = other.url + "landing.html"
    crawled, mirror = crawl(site.url + "docs/", tmp_path)
    assert crawled.counts.discovery == "links"
    urls = [r["url"] for r in crawled.records]
    assert urls == [site.url + p for p in ("docs/", "docs/intro.html", "docs/deep/", "docs/deep/notes.md")]
    asked = site.asked()
    assert {"/docs/private/secret.html", "/blog/", "/docs/logo.png", "/docs/manual.pdf"}.isdisjoint(asked)
    assert other.requests == []  # neither the off-site link nor the redirect to it
    assert site.statuses("/docs/intro.html") == [200]  # fragment and query stripped: one page
    warnings = " | ".join(crawled.warnings)
    assert "robots.txt closes 1 linked pages" in warnings and "redirects off the site" in warnings
    assert "1 links are not HTML or text pages, not indexed: " + site.url + "docs/download" in warnings
    assert crawled.counts.failed == 1 and crawled.counts.pages == 4
    assert sorted(p.name for p in crawled.folder.iterdir()) == sorted(
        [*(r["path"] for r in crawled.records), "manifest.jsonl"]
    )
    assert not mirror.folder.exists()  # staged only, until its corpus is stored


def test_max_pages_stops_the_crawl_and_says_so(site, tmp_path):
    site.write("index.html", page("Home", links=tuple(f"p{i}.html" for i in range(5))))
    for i in range(5):
        site.write(f"p{i}.html", page(f"P{i}"))
    crawled, _ = crawl(site.url, tmp_path, CrawlConfig(delay_s=0, max_pages=3))
    assert [r["url"] for r in crawled.records] == [site.url, site.url + "p0.html", site.url + "p1.html"]
    assert any("stopped at 3 pages (--max-pages)" in w for w in crawled.warnings)


# -- errors for people -----------------------------------------------------------------


def test_robots_txt_that_closes_the_site_to_us_is_an_error(site, tmp_path):
    site.write("index.html", page("Home"))
    site.write("robots.txt", "User-agent: schemasift\nDisallow: /\n\nUser-agent: *\nAllow: /\n")
    with pytest.raises(SourceError) as raised:
        crawl(site.url, tmp_path)
    assert f"{site.url}robots.txt does not allow {USER_AGENT}" in raised.value.detail
    assert "docs index FOLDER" in raised.value.hint
    assert site.asked() == {"/robots.txt"}


def test_an_unreachable_host_is_an_error_naming_it(tmp_path):
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]  # closed again: nothing listens there
    with pytest.raises(SourceError) as raised:
        crawl(f"http://127.0.0.1:{port}/docs/", tmp_path)
    assert raised.value.detail.startswith(f"Cannot reach http://127.0.0.1:{port}/: cannot connect")
    assert "Nothing was changed" in raised.value.hint


def test_a_start_page_that_is_not_html_is_an_error_and_leaves_nothing_behind(site, tmp_path):
    site.write("guide.pdf", "%PDF-1.4")
    mirror = Mirror(tmp_path / "mirror")
    with pytest.raises(SourceError, match=r"guide.pdf is application/pdf, not an HTML page"):
        crawl_site(site.url + "guide.pdf", mirror, FAST)
    assert not mirror.staging.exists() and not mirror.folder.exists()


def test_a_missing_start_page_is_only_a_warning_where_llms_txt_lists_the_pages(site, tmp_path):
    site.write("llms.txt", "# Demo\n- [A](a.md)\n")
    site.write("a.md", "# A\n\nText.\n")
    crawled, _ = crawl(site.url, tmp_path)
    assert [r["url"] for r in crawled.records] == [site.url + "a.md"]
    assert f"{site.url} answered 404; its pages come from llms.txt" in crawled.warnings


def test_a_missing_start_page_is_an_error(site, tmp_path):
    with pytest.raises(SourceError, match=r"docs/ answered 404 Not Found"):
        crawl(site.url + "docs/", tmp_path)


def test_a_list_with_no_page_in_it_is_an_error(site, other, tmp_path):
    site.write("llms.txt", f"# Demo\n- [Elsewhere]({other.url})\n")
    with pytest.raises(SourceError, match=r"Found no page to index at .*llms.txt"):
        crawl(site.url + "llms.txt", tmp_path)


def test_a_url_that_is_not_http_is_refused(tmp_path):
    from schema_search.errors import InvalidInput

    with pytest.raises(InvalidInput, match="only http and https"):
        crawl("ftp://example.com/", tmp_path)


# -- indexing and refreshing -----------------------------------------------------------


def refresh_site(site: Site) -> None:
    site.write("index.html", page("Home", "Welcome to the widget docs."))
    site.write("a.html", page("Alpha", "Alpha widgets rotate their keys nightly."))
    site.write("b.html", page("Beta", "Beta widgets are configured in TOML."))
    site.write("c.html", page("Gamma", "Gamma widgets are deprecated."))
    site.write(
        "sitemap.xml",
        "<urlset>"
        + "".join(f"<url><loc>{site.url}{p}</loc></url>" for p in ("", "a.html", "b.html", "c.html"))
        + "</urlset>",
    )


def test_refresh_keeps_unchanged_pages_refetches_changed_ones_and_drops_removed_ones(site, tmp_path):
    refresh_site(site)
    workspace = fast_workspace(tmp_path)
    first = workspace.corpora.index_url(site.url, corpus="widgets", crawl=FAST)
    assert first.crawl.model_dump() == {
        "url": site.url,
        "discovery": "sitemap",
        "pages": 4,
        "fetched": 4,
        "unchanged": 0,
        "new": 4,
        "removed": 0,
        "failed": 0,
    }
    assert first.corpus.documents == 4 and first.corpus.source["kind"] == "url"
    mirror = tmp_path / "home" / "crawls" / "widgets"
    assert first.corpus.source["path"] == str(mirror) and len(manifest(mirror)) == 4
    before = {r["url"]: r for r in manifest(mirror)}

    site.write("b.html", page("Beta", "Beta widgets are configured in YAML now."))
    (site.root / "c.html").unlink()
    site.requests.clear()
    second = workspace.corpora.index_url(site.url, corpus="widgets", crawl=FAST)
    counts = second.crawl
    assert (counts.pages, counts.fetched, counts.unchanged, counts.new, counts.removed, counts.failed) == (
        3,
        1,
        2,
        0,
        1,
        0,
    )
    assert site.statuses("/") == [304] and site.statuses("/a.html") == [304] and site.statuses("/b.html") == [200]
    assert site.statuses("/c.html") == [404]
    after = {r["url"]: r for r in manifest(mirror)}
    assert set(after) == {site.url, site.url + "a.html", site.url + "b.html"}
    assert after[site.url + "a.html"]["path"] == before[site.url + "a.html"]["path"]
    assert after[site.url + "b.html"]["etag"] != before[site.url + "b.html"]["etag"]
    assert "YAML" in (mirror / after[site.url + "b.html"]["path"]).read_text()
    assert not (mirror / before[site.url + "c.html"]["path"]).exists()
    found = workspace.corpora.search("widgets", "Gamma deprecated")
    assert all("Gamma" not in r.title for r in found.results)


def test_a_sealed_mirror_holds_no_page_text_and_refreshes_as_a_plain_one(site, tmp_path):
    refresh_site(site)
    Workspace(Settings(home=tmp_path / "home", dense=False)).corpora.index_url(site.url, corpus="widgets", crawl=FAST)
    kek = tmp_path / "kek.bin"
    kek.write_bytes(os.urandom(32))
    workspace = Workspace(Settings(home=tmp_path / "home", dense=False, kek_file=kek))
    site.write("b.html", page("Beta", "Beta widgets are configured in YAML now."))
    site.requests.clear()
    # The plain mirror's records are read (304s), and its kept pages are sealed on the way.
    result = workspace.corpora.index_url(site.url, corpus="widgets", crawl=FAST)
    assert (result.crawl.fetched, result.crawl.unchanged) == (1, 3) and site.statuses("/a.html") == [304]
    mirror = tmp_path / "home" / "crawls" / "widgets"
    blobs = [p.read_bytes() for p in mirror.parent.rglob("*") if p.is_file()]
    for text in (b"rotate their keys", b"configured in YAML", b"Alpha", b"a.html"):
        assert not any(text in blob for blob in blobs)
    assert workspace.corpora.search("widgets", "YAML configured").results[0].title == "Beta"
    site.requests.clear()
    again = workspace.corpora.index_url(site.url, corpus="widgets", crawl=FAST)  # the sealed manifest is read back
    assert again.crawl.unchanged == 4 and site.statuses("/b.html") == [304]
    assert not list(tmp_path.glob("home/crawls/.*.staging"))


def test_refresh_by_last_modified_where_the_site_sends_no_etag(site, tmp_path):
    refresh_site(site)
    site.etags = False
    workspace = fast_workspace(tmp_path)
    workspace.corpora.index_url(site.url, corpus="widgets", crawl=FAST)
    assert all("last_modified" in r and "etag" not in r for r in manifest(tmp_path / "home" / "crawls" / "widgets"))
    site.write("a.html", page("Alpha", "Alpha widgets rotate their keys weekly."))
    later = (site.root / "a.html").stat().st_mtime + 5
    os.utime(site.root / "a.html", (later, later))
    result = workspace.corpora.index_url(site.url, corpus="widgets", crawl=FAST)
    assert (result.crawl.fetched, result.crawl.unchanged) == (1, 3)


def test_a_failing_page_is_a_warning_and_keeps_its_last_copy(site, tmp_path):
    refresh_site(site)
    workspace = fast_workspace(tmp_path)
    workspace.corpora.index_url(site.url, corpus="widgets", crawl=FAST)
    site.failing.add("/b.html")
    result = workspace.corpora.index_url(site.url, corpus="widgets", crawl=FAST)
    assert (result.crawl.pages, result.crawl.failed, result.crawl.unchanged) == (4, 1, 3)
    warning = next(w for w in result.corpus.warnings if "b.html" in w)
    assert "answered 500 Internal Server Error; kept the copy fetched 20" in warning
    assert result.corpus.documents == 4


def test_a_refresh_that_fails_entirely_leaves_the_corpus_and_its_mirror_as_they_were(site, tmp_path):
    refresh_site(site)
    workspace = fast_workspace(tmp_path)
    workspace.corpora.index_url(site.url + "sitemap.xml", corpus="widgets", crawl=FAST)
    live = workspace.corpora.info("widgets").generation
    mirror = tmp_path / "home" / "crawls" / "widgets"
    saved = (mirror / "manifest.jsonl").read_text()
    site.failing.update({"/", "/a.html", "/b.html", "/c.html"})
    with pytest.raises(SourceError) as raised:
        workspace.corpora.index_url(site.url + "sitemap.xml", corpus="widgets", crawl=FAST)
    assert raised.value.detail.startswith(f"None of the 4 pages of {site.url}sitemap.xml could be fetched")
    assert "Nothing was changed" in raised.value.hint
    assert workspace.corpora.info("widgets").generation == live
    assert (mirror / "manifest.jsonl").read_text() == saved
    assert not Mirror(mirror).staging.exists()


def test_fetched_is_in_search_results_of_a_crawled_corpus_and_null_for_a_folder(site, tmp_path):
    refresh_site(site)
    workspace = fast_workspace(tmp_path)
    workspace.corpora.index_url(site.url, corpus="widgets", crawl=FAST)
    workspace.corpora.index(HANDBOOK, corpus="handbook")
    crawled = workspace.corpora.search("widgets", "rotate keys nightly").results
    assert crawled and crawled[0].url == site.url + "a.html" and ISO_UTC.match(crawled[0].fetched)
    records = {r["url"]: r for r in manifest(tmp_path / "home" / "crawls" / "widgets")}
    assert crawled[0].fetched == records[site.url + "a.html"]["fetched"]
    assert crawled[0].title == "Alpha"
    detail = workspace.corpora.source("widgets", crawled[0].source_id)
    assert detail.fetched == crawled[0].fetched
    assert workspace.corpora.source("widgets", crawled[0].document_id).fetched == crawled[0].fetched
    local = workspace.corpora.search("handbook", "who approves a large refund?").results
    assert local and all(r.fetched is None for r in local)
    assert "fetched" in local[0].model_dump(mode="json")
    # Agents read the date beside the passage, not only the JSON.
    from schema_search.tools.citations import Ledger
    from schema_search.tools.docs import DocTools, search_docs_text

    shown = search_docs_text(DocTools(workspace, ["widgets"]).search_docs("rotate keys nightly", 3, Ledger()))
    assert f"page fetched {crawled[0].fetched[:10]}" in shown
    # Counted too: the documents table has the fetch time of every crawled page, none for local files.
    fetched = "SELECT count(*) FILTER (WHERE fetched IS NOT NULL), count(*) FROM documents"
    pages = workspace.corpora.query("widgets", QueryRequest(sql=fetched)).rows
    assert pages[0][0] == pages[0][1] > 0
    assert workspace.corpora.query("handbook", QueryRequest(sql=fetched)).rows[0][0] == 0


def test_deleting_a_crawled_corpus_removes_its_mirror(site, tmp_path):
    refresh_site(site)
    workspace = fast_workspace(tmp_path)
    workspace.corpora.index_url(site.url, corpus="widgets", crawl=FAST)
    workspace.corpora.delete("widgets")
    assert not (tmp_path / "home" / "crawls" / "widgets").exists()


def test_corpora_stored_before_fetched_existed_still_load(tmp_path):
    workspace = fast_workspace(tmp_path)
    workspace.corpora.index(HANDBOOK, corpus="handbook")
    folder = workspace.corpora.store.current("handbook").path
    meta = json.loads((folder / "corpus.json").read_text())
    for document in meta["documents"]:
        document.pop("fetched")
    (folder / "corpus.json").write_text(json.dumps(meta))
    assert all(isinstance(d, Document) and d.fetched is None for d in load_corpus(folder).documents)
