"""At most ``max_concurrent_requests`` requests in flight per worker; the next ones get 429 with ``Retry-After``.

Requests past what a worker can answer used to pile up in its event loop and thread
pool, each waiting longer, until clients timed out and retried on top. Refused at
once instead, a client learns to back off, and the requests in flight keep their
latency. The probes (``/healthz``, ``/readyz``) are never refused, so an orchestrator
does not take a busy worker for a dead one.
"""

from __future__ import annotations

import threading

from starlette.types import ASGIApp, Receive, Scope, Send

from ..errors import TooManyRequests
from .problems import from_error

RETRY_AFTER_S = 1  # a search takes milliseconds: a second later, the flood has usually passed


class ConcurrencyLimit:
    """ASGI middleware counting the HTTP requests in flight, except those to ``exempt`` paths."""

    def __init__(self, app: ASGIApp, limit: int, exempt: frozenset[str] = frozenset()) -> None:
        self.app = app
        self.limit = limit
        self.exempt = exempt
        self.in_flight = 0
        # One event loop per worker needs no lock, but an app embedded in a threaded
        # server (or a test client) may run several.
        self._lock = threading.Lock()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in self.exempt:
            await self.app(scope, receive, send)
            return
        with self._lock:
            admitted = self.in_flight < self.limit
            if admitted:
                self.in_flight += 1
        if not admitted:
            refusal = TooManyRequests(
                f"This worker is answering {self.limit} requests already (its limit).",
                hint=f"Retry after {RETRY_AFTER_S} s, with fewer requests at once; or run more workers "
                "(--workers) or raise SCHEMA_SEARCH_MAX_CONCURRENT_REQUESTS.",
                retry_after_s=RETRY_AFTER_S,
            )
            await from_error(refusal)(scope, receive, send)
            return
        try:
            await self.app(scope, receive, send)
        finally:
            with self._lock:
                self.in_flight -= 1
