"""Request bodies are read, within their route's limit, before the app parses anything.

Without this, FastAPI read a 200 MB body to its end and parsed it as JSON before a
route could refuse it. Here, pure ASGI in front of the app: a declared
``Content-Length`` over the limit is refused (413) without reading a byte; a body
sent without one (chunked) is counted as it arrives and refused as soon as it passes
the limit; and a JSON body is checked by :func:`~.json_body.check_json_body` (UTF-8,
depth, lone surrogates) before any parser sees it. What passes is handed to the app
whole, as the one message it would have read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..errors import InvalidInput, PayloadTooLarge
from ..json_body import check_json_body
from .problems import from_error, problem


class Limit(NamedTuple):
    """A route's body limit: bytes, the setting's environment variable, and what the body is."""

    bytes: int
    variable: str
    what: str


class BodyLimit:
    """ASGI middleware; ``limit_for(scope)`` gives the limit of the route a request is for."""

    def __init__(self, app: ASGIApp, limit_for: Callable[[Scope], Limit]) -> None:
        self.app = app
        self.limit_for = limit_for

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        limit = self.limit_for(scope)
        declared = headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit.bytes:
            await _too_large(limit, f"The {limit.what} is {int(declared):,} bytes")(scope, receive, send)
            return
        chunks, size, more = [], 0, True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return  # the client left; there is nobody to answer
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit.bytes:
                await _too_large(limit, f"The {limit.what} passed {limit.bytes:,} bytes")(scope, receive, send)
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        body = b"".join(chunks)
        if body and _is_json(headers.get("content-type", "")):
            try:
                check_json_body(body)
            except InvalidInput as error:
                await from_error(error)(scope, receive, send)
                return
        await self.app(scope, _replay(body, receive), send)


def _too_large(limit: Limit, said: str):
    return problem(
        413,
        PayloadTooLarge.code,
        f"{said}; the limit is {limit.bytes:,} ({limit.variable}).",
        hint=f"Send a smaller {limit.what}, or ask the operator to raise {limit.variable}.",
    )


def _is_json(content_type: str) -> bool:
    """What FastAPI parses as JSON: ``application/json`` and ``application/*+json``.

    >>> _is_json("application/json; charset=utf-8"), _is_json("application/problem+json"), _is_json("text/plain")
    (True, True, False)
    """
    media = content_type.split(";")[0].strip().lower()
    return media == "application/json" or (media.startswith("application/") and media.endswith("+json"))


def _replay(body: bytes, receive: Receive) -> Receive:
    """The body as one message, then the client's own messages (a disconnect, while the response streams)."""
    sent = False

    async def replayed() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed
