"""Errors meant for people: each says what was wrong and what to do about it.

Adapters map them to their medium: the HTTP app to ``application/problem+json`` with
``status``, the CLI to a message on stderr and exit code 1, MCP to a tool error.

Each class has a ``code``: the kind of error, snake_case and stable, for a client to
branch on (the HTTP status alone does not tell "no such catalog" from "no such
table"); a class that sets none gets its name's. The title of its problem is the
status's phrase, as RFC 9457 asks of a problem whose ``type`` is ``about:blank``.
"""

from __future__ import annotations

import re
from http import HTTPStatus

# RFC 9110's names where Python before 3.13 still has RFC 7231's ("Request Entity Too
# Large", "Unprocessable Entity"): the same title whatever Python runs the server.
RENAMED = {413: "Content Too Large", 422: "Unprocessable Content"}


def status_phrase(status: int) -> str:
    """The reason phrase of an HTTP status, as RFC 9110 names it.

    >>> status_phrase(404), status_phrase(422)
    ('Not Found', 'Unprocessable Content')
    """
    return RENAMED.get(status) or HTTPStatus(status).phrase


class SchemaSearchError(Exception):
    """Base class. ``status`` is the HTTP status an adapter should use; ``code`` says which error it is."""

    status = 400
    code = "bad_request"

    def __init__(self, detail: str, *, hint: str | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.detail} {self.hint}" if self.hint else self.detail

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if "code" not in cls.__dict__:
            # A class that names no code gets its own name's (QueryRefused: query_refused)
            # rather than its parent's, which would say less.
            cls.code = re.sub(r"(?<!^)(?=[A-Z])", "_", cls.__name__).lower()

    @property
    def title(self) -> str:
        """The status's phrase (``Not Found``): the kind of error is ``code``.

        >>> CatalogNotFound("No catalog named 'x'.").title, CatalogNotFound.code
        ('Not Found', 'catalog_not_found')
        """
        return status_phrase(self.status)


class InvalidInput(SchemaSearchError):
    """A request value is out of range or malformed (empty question, bad k, bad name)."""

    status = 422
    code = "invalid_input"


class SourceError(SchemaSearchError):
    """A source could not be read: wrong URL, missing file, malformed DDL, no readable documents."""

    status = 400
    code = "source_unreadable"


class CatalogNotFound(SchemaSearchError):
    status = 404
    code = "catalog_not_found"


class TableNotFound(SchemaSearchError):
    status = 404
    code = "table_not_found"


class TableAmbiguous(TableNotFound):
    """A bare table name that several schemas of the catalog hold; the hint lists them.

    409, not 404 (the table exists, several times) nor 400 (the request is well formed, and
    was answerable before a second schema added the name): it conflicts with what the
    catalog holds now, and a qualified name (``schema.table``) resolves it. A subclass of
    TableNotFound, so code that catches that for "no one table by this name" still does.
    """

    status = 409
    code = "table_ambiguous"


class CorpusNotFound(SchemaSearchError):
    status = 404
    code = "corpus_not_found"


class DocumentNotFound(SchemaSearchError):
    """No chunk or document with that source ID in the corpus."""

    status = 404
    code = "document_not_found"


class ReportNotFound(SchemaSearchError):
    """No eval report by that name in the results folder."""

    status = 404
    code = "report_not_found"


class Unauthorized(SchemaSearchError):
    """The server asks for a read key (SCHEMA_SEARCH_READ_KEY) and the request has none, or a wrong one."""

    status = 401
    code = "read_key_required"


class KeyRequired(Unauthorized):
    """Keys are issued on this server (``schemasift keys create``) and the request sent none."""

    code = "key_required"


class KeyRefused(Unauthorized):
    """The key sent is unknown or revoked: one message for both, so a key's history is not told."""

    code = "key_refused"


class RoleRequired(SchemaSearchError):
    """The key is good but its role (read, write, admin) does not allow this; decided before any lookup."""

    status = 403
    code = "role_required"


class SpaceNotFound(SchemaSearchError):
    """No space by that name, or one the caller's key does not belong to: the same 404 for both."""

    status = 404
    code = "space_not_found"


class SpaceExists(SchemaSearchError):
    status = 409
    code = "space_exists"


class KeyNotFound(SchemaSearchError):
    """No key with that id in the caller's space (a key of another space included)."""

    status = 404
    code = "key_not_found"


class PayloadTooLarge(SchemaSearchError):
    status = 413
    code = "payload_too_large"


class UnsupportedMediaType(SchemaSearchError):
    """An upload whose Content-Type is not one the route reads (a multipart envelope sent as DDL)."""

    status = 415
    code = "unsupported_media_type"


class TooManyRequests(SchemaSearchError):
    """The server is at its limit of work in flight; the request may be retried shortly.

    ``retry_after_s`` is what the HTTP adapter sends as ``Retry-After``.
    """

    status = 429
    code = "too_many_requests"

    def __init__(self, detail: str, *, hint: str | None = None, retry_after_s: int = 1) -> None:
        super().__init__(detail, hint=hint)
        self.retry_after_s = retry_after_s


class Forbidden(SchemaSearchError):
    status = 403
    code = "forbidden"


class CrossOriginWrite(Forbidden):
    """A browser sent a write on behalf of another site's page (``http.browser_guard``)."""

    code = "cross_origin_write"


class HostNotAllowed(Forbidden):
    """A browser reached the server by a name it does not answer to (DNS rebinding; ``http.browser_guard``)."""

    code = "host_not_allowed"


class Busy(SchemaSearchError):
    """Another process is re-indexing the same catalog or corpus right now."""

    status = 409
    code = "being_indexed"


class IndexUnreadable(SchemaSearchError):
    """A stored generation cannot be opened (damaged, or from another release): re-index it."""

    status = 409
    code = "index_unreadable"


class ModelUnavailable(SchemaSearchError):
    """The embedding model cannot be loaded or prepared on this machine."""

    status = 503
    code = "model_unavailable"


class ClusterUnavailable(SchemaSearchError):
    """``--ray`` (SCHEMA_SEARCH_RAY_ADDRESS) names a Ray cluster that cannot be reached, or Ray is not installed.

    503, as for the model: the request is fine, and this server cannot do it until its
    operator starts the cluster, fixes the address or installs the extra.
    """

    status = 503
    code = "cluster_unavailable"


class NotStructured(SchemaSearchError):
    """A corpus whose documents share no machine-readable header has nothing to count or filter on."""

    status = 409
    code = "not_structured"


# -- running SQL -----------------------------------------------------------------------
# Raised by the sandbox's child as much as by the serving process: both sides name them
# by class, and a fresh child must import them in a fraction of a second.


class QueryRefused(SchemaSearchError):
    """The SQL is not one read-only query over the catalog, or the database kind is not supported."""

    status = 422


class QueryFailed(SchemaSearchError):
    """The database could not run the query (an error, the time limit, a refused write)."""

    status = 400


class RoleRefused(QueryRefused):
    """The PostgreSQL role could change something; a read-only role is needed to run queries."""


class QueryStopped(QueryFailed):
    """The query was stopped by a limit: time, memory or result size."""


class ExecutionOff(SchemaSearchError):
    """No database is configured for the catalog: the operator has not turned running queries on."""

    status = 403


class KeyUnavailable(SchemaSearchError):
    """Stored data is encrypted and the key-encryption key that opens it is not configured, or another one is."""

    status = 503
    code = "encryption_key_unavailable"


def ran_too_long(timeout_s: float, hint: str) -> QueryStopped:
    """The error for a query stopped at its time limit, however it was stopped."""
    return QueryStopped(f"The query ran longer than {timeout_s:g} s and was stopped.", hint=hint)


def first_line(error: BaseException) -> str:
    """An exception's message as one line for a person: its first line, else the exception's name.

    >>> first_line(ValueError("bad value\\nTraceback ...")), first_line(KeyError())
    ('bad value', 'KeyError')
    """
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


class EntryNotFound(SchemaSearchError):
    """No review queue entry with that number (in the caller's space)."""

    status = 404
    code = "review_entry_not_found"


class EntryDecided(SchemaSearchError):
    """An approved or rejected review entry cannot be edited or decided again."""

    status = 409
    code = "review_entry_decided"


class ShardsUnavailable(SchemaSearchError):
    """A shard of a corpus served on Ray (``serve --ray``) did not answer, even when asked again, or could not start.

    503: the question is fine; the cluster is short of that shard until Ray Serve has
    started a replica of it again (a node lost) or its operator has fixed what stops it.
    """

    status = 503
    code = "shards_unavailable"
