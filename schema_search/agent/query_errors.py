"""What running a query can end in, apart from rows: kept free of heavy imports, because the
sandbox's child raises them too and a fresh child must start in a fraction of a second."""

from __future__ import annotations

from ..errors import SchemaSearchError


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


def ran_too_long(timeout_s: float, hint: str) -> QueryStopped:
    """The error for a query stopped at its time limit, however it was stopped."""
    return QueryStopped(f"The query ran longer than {timeout_s:g} s and was stopped.", hint=hint)
