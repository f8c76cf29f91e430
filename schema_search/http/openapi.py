"""The OpenAPI document as the API behaves: every error is a :class:`~.problems.Problem` as problem+json.

Routes declare the errors of their own (404, 409, ...), and the writes the admin key
(the ``AdminKey`` security scheme, required where this server sets a key). What the
middlewares answer for every route is added here, so it cannot be forgotten on a new
one: 429 from the concurrency limit (not on the probes), 413 and 422 wherever a
request has a body. And FastAPI's own 422 schema (``HTTPValidationError``, a list of
pydantic errors) is replaced: our 422 body is a problem too.

The request models are shared with the CLI and MCP, and some of what they accept is
a setting of this server (``max_k``) or a rule the workspace checks (a question that
is not blank, exactly one of ``sql`` and ``query``); the document states those too,
so that a client (or a fuzzer) built from it knows what is refused.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from ..settings import Settings
from .problems import Problem, problem_responses

FASTAPI_422 = ("HTTPValidationError", "ValidationError")


def install(app: FastAPI, settings: Settings, unlimited_paths: frozenset[str]) -> None:
    """Make ``app.openapi()`` build the document described above (once, then cached).

    Args:
        unlimited_paths: paths the concurrency limit lets through (the probes): no 429.
    """

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
            schema = document_problems(schema, unlimited_paths)
            app.openapi_schema = document_security(document_rules(schema, settings), settings)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def document_problems(schema: dict[str, Any], unlimited_paths: frozenset[str] = frozenset()) -> dict[str, Any]:
    """Add the middlewares' errors to each operation and the Problem schema to the components."""
    for path, item in schema.get("paths", {}).items():
        for operation in _operations(item):
            responses = operation.setdefault("responses", {})
            extra = [429] if path not in unlimited_paths else []
            if "requestBody" in operation:
                extra += [413, 422]
            for status, response in problem_responses(*extra).items():
                responses.setdefault(str(status), response)
            for status, response in responses.items():
                if _is_fastapi_422(response):
                    responses[status] = problem_responses(422)[422]
    components = schema.setdefault("components", {})
    schemas = components.setdefault("schemas", {})
    schemas["Problem"] = Problem.model_json_schema(ref_template="#/components/schemas/{model}")
    for name in FASTAPI_422:
        schemas.pop(name, None)
    return schema


def document_rules(schema: dict[str, Any], settings: Settings) -> dict[str, Any]:
    """State what the request models cannot: a question that is not blank, ``k`` in this server's range,
    exactly one of ``sql`` and ``query``."""
    schemas = schema.get("components", {}).get("schemas", {})
    for name in ("SearchRequest", "DocsSearchRequest"):
        properties = schemas.get(name, {}).get("properties", {})
        if "question" in properties:
            properties["question"]["pattern"] = r"\S"  # the workspace strips it first: blank is empty
        for variant in properties.get("k", {}).get("anyOf", []):
            if variant.get("type") == "integer":
                variant.update(minimum=1, maximum=settings.max_k)
    query = schemas.get("QueryRequest")
    if query and {"sql", "query"} <= set(query.get("properties", {})):
        query["oneOf"] = [
            {"properties": {"sql": {"type": "string"}}, "required": ["sql"]},
            {"properties": {"query": {"type": "object"}}, "required": ["query"]},
        ]
    return schema


def document_security(schema: dict[str, Any], settings: Settings) -> dict[str, Any]:
    """Say whether the writes' admin key is required: only where this server sets one.

    FastAPI marks every route that reads the header as needing it; a server without a
    key takes writes without one (``[{}]``: no credentials is an alternative).
    """
    if settings.admin_key is not None:
        return schema
    for item in schema.get("paths", {}).values():
        for operation in _operations(item):
            if operation.get("security") and {} not in operation["security"]:
                operation["security"] = [{}, *operation["security"]]
    return schema


def _operations(item: dict[str, Any]) -> list[dict[str, Any]]:
    methods = ("get", "put", "post", "delete", "patch", "head", "options", "trace")
    return [item[m] for m in methods if m in item]


def _is_fastapi_422(response: dict[str, Any]) -> bool:
    return "#/components/schemas/HTTPValidationError" in json.dumps(response)
