"""Refuse a write that a page of another site made the browser send (cross-site request forgery).

A form on any web page can POST ``text/plain`` or ``multipart/form-data`` to
``http://127.0.0.1:8000/v1/catalogs/crm`` without the browser asking the server first
(they are CORS "simple" requests): on a server without an admin key, visiting such a
page would re-index a catalog with whatever it sent. Browsers name the page's origin
in ``Origin`` on every POST, PUT, PATCH and DELETE; a write whose ``Origin`` is not
this server's own is refused. Clients that are not browsers (curl, MCP, SDKs) send no
``Origin`` and are not affected; this server's own web page sends its own.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from ..errors import CrossOriginWrite
from .problems import from_error

SAFE = frozenset({"GET", "HEAD", "OPTIONS"})


def same_origin(origin: str, host: str) -> bool:
    """Whether ``Origin`` names the host (and port) the request was sent to.

    >>> same_origin("http://127.0.0.1:8000", "127.0.0.1:8000"), same_origin("https://evil.example", "127.0.0.1:8000")
    (True, False)
    >>> same_origin("null", "127.0.0.1:8000")
    False
    """
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return False
    default = {"http": 80, "https": 443}[parts.scheme]
    return _with_port(parts.netloc.lower(), default) == _with_port(host.lower(), default)


def _with_port(netloc: str, default: int) -> str:
    return netloc if netloc.rsplit(":", 1)[-1].isdigit() and not netloc.endswith("]") else f"{netloc}:{default}"


class SameOriginWrites:
    """ASGI middleware: a write carrying another origin's ``Origin`` gets 403 ``cross_origin_write``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] not in SAFE:
            headers = Headers(scope=scope)
            origin = headers.get("origin")
            if origin is not None and not same_origin(origin, headers.get("host", "")):
                refusal = CrossOriginWrite(
                    f"A write from the web page of {origin} was refused: it is not this server's page.",
                    hint="Use this server's own page, or a client that is not a browser (curl, an SDK).",
                )
                await from_error(refusal)(scope, receive, send)
                return
        await self.app(scope, receive, send)
