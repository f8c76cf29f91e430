"""Errors as ``application/problem+json`` (RFC 9457): the body, the response, and how OpenAPI declares them.

The app's exception handlers and the ASGI middlewares (which answer before FastAPI
runs) build every error response here, so they all have the same shape.
"""

from __future__ import annotations

from typing import Any, Mapping

from pydantic import BaseModel, Field
from starlette.responses import JSONResponse

from ..errors import SchemaSearchError, TooManyRequests

PROBLEM = "application/problem+json"
PROBLEM_REF = "#/components/schemas/Problem"


class Problem(BaseModel):
    """What every error response holds: what was wrong (detail) and what to do about it (hint)."""

    type: str = Field("about:blank", description="Always `about:blank`: the status and title say what kind of error.")
    title: str = Field(description="The kind of error, e.g. `Catalog not found`.")
    status: int = Field(description="The HTTP status code, repeated.")
    detail: str = Field(description="What was wrong with this request, for a person.")
    hint: str | None = Field(None, description="What to do about it, where we know.")


# Why each status is answered, as the OpenAPI document says it.
WHY = {
    400: "The source could not be read (malformed DDL, a broken archive), or a query failed",
    403: "Writing needs the admin key (X-Admin-Key), or URL sources are disabled",
    404: "No such catalog, corpus, table or document",
    409: "Being re-indexed by another process, an index that must be rebuilt, or no structured index",
    413: "The request body, the question or the upload is larger than the server accepts",
    415: "The upload's Content-Type is not one this route reads",
    422: "A value is malformed or out of range (the JSON body included)",
    429: "The worker has too many requests in flight; retry after `Retry-After` seconds",
    503: "The embedding model (or this worker) is not available yet",
}
RETRY_AFTER = {"Retry-After": {"description": "Seconds to wait before retrying.", "schema": {"type": "integer"}}}


def problem(
    status: int, title: str, detail: str, hint: str | None = None, headers: Mapping[str, str] | None = None
) -> JSONResponse:
    """The response for one error; also an ASGI app, so a middleware can send it as it is."""
    body: dict[str, Any] = {"type": "about:blank", "title": title, "status": status, "detail": detail}
    if hint:
        body["hint"] = hint
    return JSONResponse(body, status_code=status, media_type=PROBLEM, headers=dict(headers or {}))


def from_error(error: SchemaSearchError) -> JSONResponse:
    """The response for one of our errors; a 429 says when to retry."""
    headers = {"Retry-After": str(error.retry_after_s)} if isinstance(error, TooManyRequests) else None
    return problem(error.status, error.title, error.detail, error.hint, headers)


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
