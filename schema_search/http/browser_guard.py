"""What a browser may send this server: requests by a name it answers to, writes from its own page.

Two attacks need only a web page the user visits, no key, on a server at 127.0.0.1:

* **Cross-site writes.** A form on any site can POST ``text/plain`` or
  ``multipart/form-data`` to ``http://127.0.0.1:8000/v1/catalogs/crm`` without the
  browser asking the server first (CORS "simple" requests); on a server without an
  admin key that re-indexes a catalog with whatever the page sent. A write is refused
  unless the browser says it comes from this server's own page: ``Sec-Fetch-Site``
  ``same-origin`` (or ``none``: the user's own action), or, from a browser too old to
  send it, an ``Origin`` naming the host the request was sent to.
* **DNS rebinding.** A page at ``evil.example`` whose name is made to resolve to
  127.0.0.1 is "same origin" to the browser, and can then read and write at will. A
  server listening on loopback answers browsers only by loopback names (and the names
  in ``SCHEMA_SEARCH_ALLOWED_HOSTS``, such as a proxy's public name).

A request with neither ``Sec-Fetch-Site`` nor ``Origin`` is not from a browser page
(curl, MCP clients, SDKs) and is not checked: those clients choose what they send.
Names are compared whole (``localhost:8000.evil.example`` is not ``localhost``), and a
browser's request that repeats ``Host``, ``Origin`` or ``Sec-Fetch-Site`` is refused: a
browser sends each once, and two values would be judged by whichever came first.
"""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from ..errors import CrossOriginWrite, HostNotAllowed
from ..settings import Settings
from .problems import from_error

SAFE = frozenset({"GET", "HEAD", "OPTIONS"})
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
# The page itself (same-origin) or the user typing the address (none); not another site's page.
OWN_FETCH_SITES = frozenset({"same-origin", "none"})


_PORT = re.compile(r"[0-9]{1,5}")


def host_name(host: str) -> str:
    """The name in a ``Host`` header or an origin's netloc, lower-case, without port or brackets.
    Anything after the name that is not a port keeps the whole text, which no allowed name equals.

    >>> host_name("127.0.0.1:8000"), host_name("[::1]:8000"), host_name("Search.Example.com")
    ('127.0.0.1', '::1', 'search.example.com')
    >>> host_name("localhost:8000.evil.example"), host_name("[::1]x")
    ('localhost:8000.evil.example', '[::1]x')
    """
    host = host.strip().lower()
    if host.startswith("["):
        name, bracket, rest = host[1:].partition("]")
        if bracket and (not rest or (rest[0] == ":" and _PORT.fullmatch(rest[1:]))):
            return name
        return host
    if host.count(":") == 1:
        name, _, port = host.partition(":")
        return name if _PORT.fullmatch(port) else host
    return host


def same_origin(origin: str, host: str) -> bool:
    """Whether ``Origin`` names the host (and port) the request was sent to.

    >>> same_origin("http://127.0.0.1:8000", "127.0.0.1:8000"), same_origin("https://evil.example", "127.0.0.1:8000")
    (True, False)
    >>> same_origin("null", "127.0.0.1:8000"), same_origin("http://[::1]:8000", "[::1]:8000")
    (False, True)
    """
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return False
    default = {"http": 80, "https": 443}[parts.scheme]
    return _with_port(parts.netloc.lower(), default) == _with_port(host.strip().lower(), default)


def _with_port(netloc: str, default: int) -> str:
    return netloc if netloc.rsplit(":", 1)[-1].isdigit() and not netloc.endswith("]") else f"{netloc}:{default}"


def allowed_hosts(settings: Settings) -> frozenset[str] | None:
    """The names browsers may reach this server by; None: any (it listens beyond loopback, no list given).

    >>> sorted(allowed_hosts(Settings(host="127.0.0.1", allowed_hosts=["search.example.com"])))
    ['127.0.0.1', '::1', 'localhost', 'search.example.com']
    >>> allowed_hosts(Settings(host="0.0.0.0")) is None
    True
    """
    named = frozenset(host_name(h) for h in settings.allowed_hosts)
    if _is_loopback(settings.host):
        return LOOPBACK_NAMES | named
    return named or None


def _is_loopback(host: str) -> bool:
    if host_name(host) == "localhost":
        return True
    try:
        return ipaddress.ip_address(host_name(host)).is_loopback
    except ValueError:
        return False


class BrowserGuard:
    """ASGI middleware: a browser's request by another name gets 403 ``host_not_allowed``, another
    site's write 403 ``cross_origin_write``."""

    def __init__(self, app: ASGIApp, hosts: frozenset[str] | None) -> None:
        self.app = app
        self.hosts = hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        refusal = self._refusal(scope) if scope["type"] == "http" else None
        if refusal is not None:
            await from_error(refusal)(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def _refusal(self, scope: Scope) -> HostNotAllowed | CrossOriginWrite | None:
        headers = Headers(scope=scope)
        site, origin, host = headers.get("sec-fetch-site"), headers.get("origin"), headers.get("host", "")
        if site is None and origin is None:
            return None  # not a browser page's request
        if len(headers.getlist("host")) > 1:
            return HostNotAllowed("The request names its host twice.", hint="Send one Host header.")
        if self.hosts is not None and host_name(host) not in self.hosts:
            return HostNotAllowed(
                f"This server does not answer browsers that reach it as {host_name(host)!r}.",
                hint="Open it as http://127.0.0.1:PORT/; behind a proxy or another name, add that name to "
                "SCHEMA_SEARCH_ALLOWED_HOSTS.",
            )
        if scope["method"] in SAFE:
            return None
        doubled = len(headers.getlist("sec-fetch-site")) > 1 or len(headers.getlist("origin")) > 1
        own = not doubled and (site in OWN_FETCH_SITES if site is not None else same_origin(origin or "", host))
        if own:
            return None
        return CrossOriginWrite(
            f"A write sent by the web page of {origin or 'another site'} was refused: it is not this server's page.",
            hint="Use this server's own page, or a client that is not a browser (curl, an SDK).",
        )
