"""Collection queries in the sandbox's child process (:mod:`schema_search.sandbox`).

DuckDB's interrupt stops a running query, but not one still being bound, nor a single
expression that builds gigabytes of text (``lpad(..., 2000000000)``, a chain of
aliases that doubles at each step), and its memory limit does not count those
strings; sqlglot too can spend seconds expanding such a chain. So everything that
touches the untrusted SQL (parsing and guarding it, loading the tables, running it)
happens in the child. The collection's tables are sent once per child and generation.
"""

from __future__ import annotations

import pickle
from typing import Any

from ..errors import QueryStopped
from ..sandbox import GRACE_S, STARTUP_S, Child, Stopped, encode, raise_reply, shared_child
from .collection import Collection
from .models import QueryResponse


class Sandbox:
    """Collection queries, one at a time, in a child capped at ``memory_bytes``; thread-safe."""

    def __init__(self, memory_bytes: int, child: Child | None = None) -> None:
        self.child = child or Child(memory_bytes)

    def query(
        self,
        key: tuple[str, ...],
        collection: Collection,
        *,
        sql: str | None,
        form: dict[str, Any] | None,
        max_rows: int,
        timeout_s: float,
        memory_limit: str,
        max_bytes: int | None = None,
    ) -> QueryResponse:
        """:func:`~schema_search.structured.query.run_query` in the child, ``key`` naming the collection's version.

        Raises:
            QueryStopped: the query was stopped (time, memory or size), or the child failed.
            and whatever ``run_query`` raises for bad input, re-raised here.
        """
        request = {
            "op": "schema_search.structured.sandbox:serve",
            "sql": sql,
            "form": form,
            "max_rows": max_rows,
            "timeout_s": timeout_s,
            "memory_limit": memory_limit,
            "max_bytes": max_bytes,
        }
        frame = encode(request)  # checked here: an oversized or absurdly nested request never reaches the child
        with self.child.lock:
            try:
                if (
                    key != self.child.state
                ):  # the tables first, on their own deadline: reading them is not the query's time
                    load = {"op": "schema_search.structured.sandbox:serve_load", "key": key, "collection": collection}
                    raise_reply(self.child.call(load, limit_s=STARTUP_S))
                    self.child.state = key
                reply = self.child.call(request, limit_s=timeout_s + GRACE_S, frame=frame)
            except Stopped as stopped:
                raise stopped.as_query_error(
                    timeout_s,
                    time_hint="Narrow it: filter first, avoid joining the table to itself or building long strings.",
                    memory_hint="Narrow it: select fewer or shorter values, filter first.",
                ) from None
        return QueryResponse.model_validate(raise_reply(reply)["response"])

    def close(self) -> None:
        self.child.close()


def shared_sandbox(memory_bytes: int) -> Sandbox:
    """The process's collection sandbox for this memory cap: one child serves every workspace in the process."""
    warm = ("schema_search.structured.query", "schema_search.structured.guard:warm")
    return Sandbox(memory_bytes, shared_child("collection", memory_bytes, warm=warm))


# -- in the child ------------------------------------------------------------------------


def serve_load(request: dict, state: dict) -> dict:
    """Keep the collection for the queries that follow (one at a time: the parent resends on change)."""
    state["collection"] = request["collection"]
    return {"loaded": request["key"]}


def serve(request: dict, state: dict) -> dict:
    """Run one collection query on the loaded collection."""
    from .query import run_query

    response = run_query(
        state.get("collection"),
        sql=request["sql"],
        form=request["form"],
        max_rows=request["max_rows"],
        timeout_s=request["timeout_s"],
        memory_limit=request["memory_limit"],
    ).model_dump(mode="json")
    limit = request.get("max_bytes")
    if limit is not None and len(pickle.dumps(response["rows"])) > limit:
        raise QueryStopped(
            f"The result is larger than {limit:,} bytes and was not returned.",
            hint="Select fewer or shorter columns, or aggregate.",
        )
    return {"response": response}
