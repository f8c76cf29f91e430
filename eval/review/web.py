"""The measurement's public web: the fixed pages of ``pages/`` behind a SearXNG-shaped search, on 127.0.0.1."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

PAGES = Path(__file__).parent / "pages"
_WORD = re.compile(r"\w+")
_TAG = re.compile(r"<[^>]+>")


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) > 2}


class FixedWeb:
    """Every page of ``pages/``; a search ranks them by the words they share with the query."""

    def __init__(self) -> None:
        self.pages = {f"/{p.stem}": p.read_text(encoding="utf-8") for p in sorted(PAGES.glob("*.html"))}
        self.text = {path: _TAG.sub(" ", html) for path, html in self.pages.items()}
        self.url = ""
        self.fetched: list[str] = []

    def results(self, query: str) -> list[dict[str, str]]:
        wanted = _words(query)
        ranked = sorted(self.text, key=lambda p: -len(wanted & _words(self.text[p])))
        found = []
        for path in ranked[:5]:
            title = re.search(r"<title>(.*?)</title>", self.pages[path]).group(1)
            snippet = " ".join(self.text[path].split())[len(title) + 20 :][:80]  # a snippet: the page cut short
            found.append({"url": self.url + path, "title": title, "content": snippet})
        return found

    def handle(self, handler: BaseHTTPRequestHandler) -> None:
        parts = urlsplit(handler.path)
        if parts.path == "/search":
            body, kind, status = (
                json.dumps({"results": self.results(parse_qs(parts.query)["q"][0])}),
                "application/json",
                200,
            )
        elif parts.path in self.pages:
            self.fetched.append(parts.path)
            body, kind, status = self.pages[parts.path], "text/html; charset=utf-8", 200
        else:
            body, kind, status = "not found", "text/plain", 404
        data = body.encode()
        handler.send_response(status)
        handler.send_header("Content-Type", kind)
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)


@contextmanager
def serving() -> Iterator[FixedWeb]:
    web = FixedWeb()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the name http.server calls
            web.handle(self)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    web.url = f"http://127.0.0.1:{server.server_address[1]}"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield web
    finally:
        server.shutdown()
        server.server_close()
