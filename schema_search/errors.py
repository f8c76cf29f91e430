"""Errors meant for people: each says what was wrong and what to do about it.

Adapters map them to their medium: the HTTP app to ``application/problem+json`` with
``status``, the CLI to a message on stderr and exit code 2, MCP to a tool error.
"""

from __future__ import annotations


class SchemaSearchError(Exception):
    """Base class. ``status`` is the HTTP status an adapter should use."""

    status = 400
    title = "Bad request"

    def __init__(self, detail: str, *, hint: str | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.detail} {self.hint}" if self.hint else self.detail


class InvalidInput(SchemaSearchError):
    """A request value is out of range or malformed (empty question, bad k, bad name)."""

    status = 422
    title = "Invalid input"


class SourceError(SchemaSearchError):
    """A source could not be read: wrong URL, missing file, malformed DDL, no readable documents."""

    status = 400
    title = "Source could not be read"


class CatalogNotFound(SchemaSearchError):
    status = 404
    title = "Catalog not found"


class TableNotFound(SchemaSearchError):
    status = 404
    title = "Table not found"


class CorpusNotFound(SchemaSearchError):
    status = 404
    title = "Corpus not found"


class DocumentNotFound(SchemaSearchError):
    """No chunk or document with that source ID in the corpus."""

    status = 404
    title = "Document not found"


class PayloadTooLarge(SchemaSearchError):
    status = 413
    title = "Request too large"


class UnsupportedMediaType(SchemaSearchError):
    """An upload whose Content-Type is not one the route reads (a multipart envelope sent as DDL)."""

    status = 415
    title = "Unsupported media type"


class TooManyRequests(SchemaSearchError):
    """The server is at its limit of work in flight; the request may be retried shortly.

    ``retry_after_s`` is what the HTTP adapter sends as ``Retry-After``.
    """

    status = 429
    title = "Too many requests"

    def __init__(self, detail: str, *, hint: str | None = None, retry_after_s: int = 1) -> None:
        super().__init__(detail, hint=hint)
        self.retry_after_s = retry_after_s


class Forbidden(SchemaSearchError):
    status = 403
    title = "Forbidden"


class Busy(SchemaSearchError):
    """Another process is re-indexing the same catalog or corpus right now."""

    status = 409
    title = "Being indexed"


class IndexUnreadable(SchemaSearchError):
    """A stored generation cannot be opened (damaged, or from another release): re-index it."""

    status = 409
    title = "Index must be rebuilt"


class ModelUnavailable(SchemaSearchError):
    """The embedding model cannot be loaded or prepared on this machine."""

    status = 503
    title = "Embedding model unavailable"


class NotStructured(SchemaSearchError):
    """A corpus whose documents share no machine-readable header has nothing to count or filter on."""

    status = 409
    title = "No structured index"


def first_line(error: BaseException) -> str:
    """An exception's message as one line for a person: its first line, else the exception's name.

    >>> first_line(ValueError("bad value\\nTraceback ...")), first_line(KeyError())
    ('bad value', 'KeyError')
    """
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__
