"""How a crawl behaves: how many pages, how fast, how long to wait, how large a page may be."""

from __future__ import annotations

from dataclasses import dataclass

from ... import __version__
from ...errors import InvalidInput

USER_AGENT = f"schemasift/{__version__}"


@dataclass(frozen=True)
class CrawlConfig:
    """The limits of one crawl. The CLI sets the first three; the rest are defaults to live with.

    Attributes:
        max_pages: pages at most, whichever way they were found.
        delay_s: seconds between the starts of two requests to the site, across all
            workers (a ``Crawl-delay`` in robots.txt raises it).
        concurrency: requests in flight at once.
        timeout_s: to connect, and between two reads of an answer.
        max_page_bytes: a page (or llms.txt, sitemap) larger than this is skipped.
        max_redirects: hops followed, each within the site.
        user_agent: what requests say they are, and the name robots.txt rules are read for.
    """

    max_pages: int = 500
    delay_s: float = 0.2
    concurrency: int = 4
    timeout_s: float = 20.0
    max_page_bytes: int = 5_000_000
    max_redirects: int = 5
    user_agent: str = USER_AGENT

    def __post_init__(self) -> None:
        # Checked here so the CLI, a script and a test all get the same message.
        if self.max_pages < 1:
            raise InvalidInput(f"--max-pages {self.max_pages} is below 1.", hint="Give 1 or more (default 500).")
        if self.delay_s < 0:
            raise InvalidInput(f"--delay {self.delay_s} is negative.", hint="Give seconds, 0 or more (default 0.2).")
        if self.concurrency < 1:
            raise InvalidInput(f"--concurrency {self.concurrency} is below 1.", hint="Give 1 or more (default 4).")
