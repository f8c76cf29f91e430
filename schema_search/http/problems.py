"""Errors as ``application/problem+json`` (RFC 9457): the body, the response, and how OpenAPI declares them.

The app's exception handlers and the ASGI middlewares (which answer before FastAPI
runs) build every error response here, so they all have the same shape: ``title`` is
the status's phrase (RFC 9457, for ``type`` ``about:blank``), and ``code`` is the kind
of error, for a client to branch on.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, Field
from starlette.responses import JSONResponse

from .. import config, errors
from ..errors import SchemaSearchError, TooManyRequests, Unauthorized, status_phrase

PROBLEM = "application/problem+json"
PROBLEM_REF = "#/components/schemas/Problem"
# The codes the app answers with itself, beside those of the error classes: still
# warming up, no such path, a method the path does not take, a bug.
APP_CODES = {"not_ready": 503, "no_such_route": 404, "method_not_allowed": 405, "internal_error": 500}
# The modules whose errors reach an HTTP client (others are caught on the way, or belong to the CLI).
ERROR_MODULES = (errors, config)


def codes() -> dict[str, int]:
    """Every ``code`` a problem may hold, with its status.

    >>> codes()["catalog_not_found"], codes()["query_refused"], codes()["not_ready"]
    (404, 422, 503)
    """
    found = dict(APP_CODES)
    modules = {module.__name__ for module in ERROR_MODULES}
    pending: list[type[SchemaSearchError]] = [SchemaSearchError]
    while pending:
        kind = pending.pop()
        if kind.__module__ in modules:
            found.setdefault(kind.code, kind.status)
        pending.extend(kind.__subclasses__())
    return dict(sorted(found.items()))


class Problem(BaseModel):
    """What every error response holds: what was wrong (detail) and what to do about it (hint)."""

    type: str = Field(
        "about:blank", description="Always `about:blank`: the status, and `code`, say what kind of error."
    )
    title: str = Field(description="The HTTP status's phrase, e.g. `Not Found` (RFC 9457).")
    status: int = Field(description="The HTTP status code, repeated.")
    code: str = Field(
        description="Which error, snake_case and stable, for a client to branch on (a 404 may be a catalog, a table, "
        "a route...): " + ", ".join(f"`{code}` ({status})" for code, status in codes().items()) + "."
    )
    detail: str = Field(description="What was wrong with this request, for a person.")
    hint: str | None = Field(None, description="What to do about it, where we know.")


# Why each status is answered, as the OpenAPI document says it.
WHY = {
    400: "The source could not be read (malformed DDL, a broken archive), or a query failed",
    401: "The server sets a read key (SCHEMA_SEARCH_READ_KEY): send it, or the admin key, in X-Read-Key",
    403: "Writing needs the admin key (X-Admin-Key), or URL sources are disabled",
    404: "No such catalog, corpus, table or document",
    409: "Being indexed by another process, an index that must be rebuilt, no structured index, or a table name several schemas hold",
    413: "The request body, the question or the upload is larger than the server accepts",
    415: "The upload's Content-Type is not one this route reads",
    422: "A value is malformed or out of range (the JSON body included)",
    429: "The worker has too many requests in flight; retry after `Retry-After` seconds",
    503: "The embedding model (or this worker) is not available yet, or a database password or variable the server needs for this catalog is not set",
}
RETRY_AFTER = {"Retry-After": {"description": "Seconds to wait before retrying.", "schema": {"type": "integer"}}}


def problem(
    status: int, code: str, detail: str, hint: str | None = None, headers: Mapping[str, str] | None = None
) -> JSONResponse:
    """The response for one error; also an ASGI app, so a middleware can send it as it is.

    >>> import json; json.loads(problem(404, "catalog_not_found", "No catalog named 'x'.").body)["title"]
    'Not Found'
    """
    body: dict[str, Any] = {"type": "about:blank", "title": status_phrase(status), "status": status, "code": code}
    body["detail"] = detail
    if hint:
        body["hint"] = hint
    return JSONResponse(body, status_code=status, media_type=PROBLEM, headers=dict(headers or {}))


def from_error(error: SchemaSearchError) -> JSONResponse:
    """The response for one of our errors; a 429 says when to retry.

    The title is the status's phrase whatever the class says: some still set a ``title``
    of their own, from before the ``code``.
    """
    headers = {"Retry-After": str(error.retry_after_s)} if isinstance(error, TooManyRequests) else None
    if isinstance(error, Unauthorized):
        # A 401 must name how to authenticate (RFC 9110 11.6.1); the key is no HTTP scheme of
        # its own, so the challenge names the header that carries it.
        headers = {"WWW-Authenticate": 'ReadKey realm="schema_search", header="X-Read-Key"'}
    return problem(error.status, error.code, error.detail, error.hint, headers)


def problem_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` for these error statuses, each a :class:`Problem` as problem+json.

    >>> problem_responses(404)[404]["content"]
    {'application/problem+json': {'schema': {'$ref': '#/components/schemas/Problem'}}}
    """
    responses: dict[int | str, dict[str, Any]] = {}
    for status in statuses:
        responses[status] = {"description": WHY[status], "content": {PROBLEM: {"schema": {"$ref": PROBLEM_REF}}}}
        if status == 429:
            responses[status]["headers"] = RETRY_AFTER
    return responses
