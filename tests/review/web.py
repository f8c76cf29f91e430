"""A public web in a test: a SearXNG-shaped search API and fixed pages on a local HTTP server."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

PASSPORT = """<html><head><title>Passports: validity and renewal</title></head><body>
<nav>Home | Travel</nav>
<h1>Passports</h1>
<p>An adult passport is valid for 10 years from the day it is issued.</p>
<p>Renew it 9 months before it expires: many countries refuse entry with less than 6 months left.</p>
<p>Questions? Write to passports@gov.example or call +44 20 7946 0958.</p>
</body></html>"""

VISA = """<html><head><title>Visa fees</title></head><body><h1>Visa fees</h1>
<p>A short-stay visa costs 80 EUR; children aged 6 to 12 pay 40 EUR.</p></body></html>"""


class Web:
    """``pages``: path -> HTML; ``results``: search results, each ``(path, title, snippet)``; ``hits``: paths fetched;
    ``redirects``: path -> where a 302 sends it (a path, or a whole URL)."""

    def __init__(
        self,
        pages: dict[str, str],
        results: list[tuple[str, str, str]],
        redirects: dict[str, str] | None = None,
    ) -> None:
        self.pages = pages
        self.results = results
        self.redirects = redirects or {}
        self.hits: list[str] = []
        self.queries: list[str] = []
        self.url = ""

    def answer(self, handler: BaseHTTPRequestHandler) -> None:
        parts = urlsplit(handler.path)
        self.hits.append(parts.path)
        if parts.path == "/search":
            self.queries.append(parse_qs(parts.query).get("q", [""])[0])
            found = [{"url": self.url + p, "title": t, "content": c} for p, t, c in self.results]
            body, kind, status = json.dumps({"results": found}).encode(), "application/json", 200
        elif parts.path in self.redirects:
            handler.send_response(302)
            handler.send_header("Location", self.redirects[parts.path])
            handler.send_header("Content-Length", "0")
            handler.end_headers()
            return
        elif parts.path in self.pages:
            body, kind, status = self.pages[parts.path].encode(), "text/html; charset=utf-8", 200
        else:
            body, kind, status = b"not here", "text/plain", 404
        handler.send_response(status)
        handler.send_header("Content-Type", kind)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)


class _Handler(BaseHTTPRequestHandler):
    web: Web

    def do_GET(self) -> None:  # noqa: N802 - the name http.server calls
        self.web.answer(self)

    def log_message(self, *args: object) -> None:  # quiet
        pass


@contextmanager
def serving(web: Web, host: str = "127.0.0.1", port: int = 0) -> Iterator[Web]:
    server = ThreadingHTTPServer((host, port), type("Handler", (_Handler,), {"web": web}))
    web.url = f"http://{host}:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield web
    finally:
        server.shutdown()
        server.server_close()


def passport_web() -> Web:
    return Web(
        {"/passports": PASSPORT, "/visa": VISA},
        [
            ("/passports", "Passports: validity and renewal", "An adult passport is valid for 10 years."),
            ("/visa", "Visa fees", "A short-stay visa costs 80 EUR."),
        ],
    )
