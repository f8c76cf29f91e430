"""Where a site lists its pages: ``llms.txt``, sitemaps, and the links of a page.

The parsers are pure (text in, URLs out); :func:`llms_txt` and :func:`sitemaps` fetch
their files through a :class:`~.fetch.Fetcher`. Which one wins, and what is kept of
what they list, is :mod:`.site`'s business.
"""

from __future__ import annotations

import gzip
import re
import zlib
from dataclasses import dataclass
from urllib.parse import urljoin

from lxml import etree

from .fetch import Answer, Fetcher, FetchFailed
from .urls import LLMS_TXT, maybe_page, page_url

# An inline Markdown link: [text](url "title"), the URL maybe in <...>.
_MD_LINK = re.compile(r"\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*<?([^)\s>]+)>?(?:\s+[\"'][^\"']*[\"'])?\s*\)")
_HTML = etree.HTMLParser(recover=True, no_network=True, remove_comments=True, encoding="utf-8")
# No entity is expanded and nothing is fetched: a sitemap is data from the network.
_XML = etree.XMLParser(recover=True, no_network=True, resolve_entities=False, huge_tree=False)
# Sitemap indexes may nest; a site does not need more than this to list its docs.
MAX_SITEMAPS = 50
MAX_DEPTH = 3


@dataclass(frozen=True)
class Listed:
    """A page a site lists, with the title it gives the page, if any."""

    url: str
    title: str | None = None


def llms_links(text: str, base: str) -> list[Listed]:
    """The pages an ``llms.txt`` file links to (llmstxt.org: ``- [Title](url): notes`` under ``##`` sections).

    >>> text = "# Demo\\n> Docs.\\n## Guides\\n- [Install](guide/install.md): setup\\n- [API](https://x.org/api/)\\n"
    >>> llms_links(text, "https://x.org/llms.txt")
    [Listed(url='https://x.org/guide/install.md', title='Install'), Listed(url='https://x.org/api/', title='API')]
    """
    found: dict[str, Listed] = {}
    for title, href in _MD_LINK.findall(text):
        url = page_url(href, base)
        if url not in found:
            found[url] = Listed(url, " ".join(title.split()).strip("*_`") or None)
    return list(found.values())


def sitemap_entries(body: bytes) -> tuple[list[str], list[str]]:
    """``(pages, sitemaps)`` a sitemap lists: a ``<urlset>`` lists pages, a ``<sitemapindex>`` sitemaps.

    >>> xml = b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc> https://x.org/a/ </loc></url></urlset>'
    >>> sitemap_entries(xml)
    (['https://x.org/a/'], [])
    >>> sitemap_entries(b"<sitemapindex><sitemap><loc>https://x.org/s1.xml</loc></sitemap></sitemapindex>")
    ([], ['https://x.org/s1.xml'])
    """
    if body[:2] == b"\x1f\x8b":  # sitemap.xml.gz, served as it is
        try:
            body = gzip.decompress(body)
        except (OSError, EOFError, zlib.error):
            return [], []
    try:
        root = etree.fromstring(body, _XML)
    except etree.XMLSyntaxError:
        return [], []
    if root is None:
        return [], []
    locs = [(element.text or "").strip() for element in root.iter("{*}loc")]
    locs = [loc for loc in locs if loc]
    return ([], locs) if etree.QName(root).localname == "sitemapindex" else (locs, [])


def page_links(text: str, base: str, markdown: bool = False) -> list[str]:
    """The page URLs a page links to, in order, without fragments or queries (assets left out).

    >>> page_links('<base href="/docs/"><a href="a.html#x">A</a><a href="a.html?q=1">A</a><img src="i.png">'
    ...            '<a href="logo.svg">L</a><a href="mailto:me@x.org">M</a>', "https://x.org/index.html")
    ['https://x.org/docs/a.html']
    >>> page_links("See [install](../install.md) and <https://x.org/faq/>.", "https://x.org/guide/a.md", markdown=True)
    ['https://x.org/install.md']
    """
    if markdown:
        hrefs = [href for _, href in _MD_LINK.findall(text)]
    else:
        root = etree.fromstring(text.encode("utf-8"), _HTML) if text.strip() else None
        if root is None:
            return []
        bases = root.xpath("//base/@href")
        base = urljoin(base, str(bases[0]).strip()) if bases else base
        hrefs = [str(href) for href in root.xpath("//a/@href")]
    links: dict[str, None] = {}
    for href in hrefs:
        href = href.strip()
        if not href or href.startswith("#") or not _web(urljoin(base, href)):
            continue
        url = page_url(href, base)
        if maybe_page(url):
            links.setdefault(url)
    return list(links)


def _web(url: str) -> bool:
    return url.lower().startswith(("http://", "https://"))


# -- fetching the lists ------------------------------------------------------------


def llms_txt(fetcher: Fetcher, url: str) -> list[Listed] | None:
    """The pages the ``llms.txt`` at ``url`` lists; None when there is none (or it is not text)."""
    answer = _get(fetcher, url)
    if answer is None or answer.status != 200 or not answer.body or answer.media_type.endswith("html"):
        return None  # a site that answers every path with its HTML page has no llms.txt
    return llms_links(answer.text, answer.final)


def sitemaps(fetcher: Fetcher, urls: list[str]) -> list[str]:
    """The pages the sitemaps at ``urls`` list, sitemap indexes followed; ``[]`` when there are none."""
    pages: dict[str, None] = {}
    seen: set[str] = set()
    level = list(dict.fromkeys(urls))
    for _depth in range(MAX_DEPTH + 1):
        nested: list[str] = []
        for url in level:
            if url in seen or len(seen) >= MAX_SITEMAPS:
                continue
            seen.add(url)
            answer = _get(fetcher, url)
            if answer is None or answer.status != 200 or not answer.body or answer.media_type.endswith("html"):
                continue
            listed, more = sitemap_entries(answer.body)
            for loc in listed:
                pages.setdefault(page_url(loc))
            nested.extend(more)
        level = nested
        if not level:
            break
    return list(pages)


def _get(fetcher: Fetcher, url: str) -> Answer | None:
    try:
        return fetcher.get(url)
    except FetchFailed:
        return None  # a missing list is not an error: the next way of finding pages is tried


def is_llms_txt(url: str) -> bool:
    """Whether the start URL is an ``llms.txt`` file itself.

    >>> is_llms_txt("https://x.org/llms.txt"), is_llms_txt("https://x.org/docs/")
    (True, False)
    """
    return url.rstrip("/").rsplit("/", 1)[-1].lower() == LLMS_TXT


def is_sitemap(url: str) -> bool:
    """Whether the start URL is a sitemap (``.xml`` or ``.xml.gz``).

    >>> is_sitemap("https://x.org/sitemap.xml"), is_sitemap("https://x.org/sitemap_index.xml.gz")
    (True, True)
    """
    return url.lower().endswith((".xml", ".xml.gz"))
