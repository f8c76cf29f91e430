"""Guarded queries run in a child process that is killed at the deadline and capped in memory.

DuckDB's interrupt stops a running query, but not one still being bound, nor a single
expression that builds gigabytes of text (``lpad(..., 2000000000)``, a chain of
aliases that doubles at each step), and its memory limit does not count those
strings; sqlglot too can spend seconds expanding such a chain. So everything that
touches the untrusted SQL (parsing and guarding it, loading the tables, running it)
happens in one child process with a hard address-space limit, and a query that has
not answered by its deadline is ended with the process. The next query starts a
fresh one. The collection's tables are sent once per child and generation.

Protocol: length-prefixed pickle frames over the child's stdin and stdout, written
only by our code on both sides (no value a query returns can shape a frame).
"""

from __future__ import annotations

import atexit
import os
import pickle
import select
import struct
import subprocess
import sys
import threading
import time
from typing import Any, BinaryIO

from .. import errors
from ..agent import execute
from .collection import Collection
from .models import QueryResponse

# Seconds a child gets to start (imports) and to read a new collection, beyond the query's own limit.
STARTUP_S = 60.0
GRACE_S = 2.0
# The SQL validator's own limit is 100,000 characters; a request frame above this is refused unsent.
MAX_REQUEST_BYTES = 1_000_000
_HEADER = struct.Struct("!Q")


class Sandbox:
    """One child process running queries one at a time; thread-safe."""

    def __init__(self, memory_bytes: int) -> None:
        self.memory_bytes = memory_bytes
        self._lock = threading.Lock()
        self._child: subprocess.Popen | None = None
        self._loaded: tuple[str, ...] | None = None  # the collection the child holds

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
    ) -> QueryResponse:
        """:func:`~schema_search.structured.query.run_query` in the child, ``key`` naming the collection's version.

        Raises:
            QueryFailed: the query was stopped (time or memory), or the child failed.
            and whatever ``run_query`` raises for bad input, re-raised here.
        """
        request = {"sql": sql, "form": form, "max_rows": max_rows, "timeout_s": timeout_s, "memory_limit": memory_limit}
        frame = _frame(request)  # checked here: an oversized or absurdly nested request never reaches the child
        with self._lock:
            child = self._start()
            if key != self._loaded:  # the tables first, on their own deadline: reading them is not the query's time
                self._send(child, _frame({"load": key, "collection": collection}, limit=None))
                self._wait(child, STARTUP_S)
                self._loaded = key
            self._send(child, frame)
            reply = self._wait(child, timeout_s + GRACE_S, timeout_s)
        if reply["ok"]:
            return QueryResponse.model_validate(reply["response"])
        kind = getattr(errors, reply["error"], None) or getattr(execute, reply["error"], None) or execute.QueryFailed
        raise kind(reply["detail"], hint=reply["hint"])

    def _send(self, child: subprocess.Popen, frame: bytes) -> None:
        try:
            child.stdin.write(frame)
            child.stdin.flush()
        except OSError:  # the child died between queries: start afresh next time
            self._stop()
            raise execute.QueryFailed("The query process stopped unexpectedly.", hint="Run the query again.") from None

    def _wait(self, child: subprocess.Popen, limit_s: float, timeout_s: float | None = None) -> dict:
        """The child's next reply; past ``limit_s``, or if it dies, it is ended and the query fails."""
        try:
            return _read(child.stdout, limit_s)
        except TimeoutError:
            self._stop()
            raise execute.QueryFailed(
                f"The query ran longer than {timeout_s or limit_s:g} s and was stopped.",
                hint="Narrow it: filter first, avoid joining the table to itself or building long strings.",
            ) from None
        except EOFError:
            self._stop()
            raise execute.QueryFailed(
                "The query was stopped: it needed more memory than a query may (or its process was ended).",
                hint="Narrow it: select fewer or shorter values, filter first.",
            ) from None

    def close(self) -> None:
        with self._lock:
            self._stop()

    def _start(self) -> subprocess.Popen:
        if self._child is not None and self._child.poll() is None:
            return self._child
        self._loaded = None
        self._child = subprocess.Popen(
            [sys.executable, "-m", "schema_search.structured.sandbox", str(self.memory_bytes)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        return self._child

    def _stop(self) -> None:
        if self._child is not None:
            self._child.kill()
            self._child.wait()
            self._child = None
        self._loaded = None


_shared: dict[int, Sandbox] = {}
_shared_lock = threading.Lock()


def shared_sandbox(memory_bytes: int) -> Sandbox:
    """The process's sandbox for this memory cap: one child serves every workspace in the process."""
    with _shared_lock:
        if memory_bytes not in _shared:
            _shared[memory_bytes] = Sandbox(memory_bytes)
            atexit.register(_shared[memory_bytes].close)
        return _shared[memory_bytes]


def _frame(value: Any, limit: int | None = MAX_REQUEST_BYTES) -> bytes:
    """``value`` as one frame; a request past ``limit`` bytes, or nested past pickling, is refused."""
    try:
        data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    except RecursionError:
        raise errors.InvalidInput("The query is nested too deeply.", hint="Send a flat JSON form or plain SQL.") from None
    if limit is not None and len(data) > limit:
        raise errors.PayloadTooLarge(
            f"The query is {len(data):,} bytes; the limit is {limit:,}.", hint="Send a shorter query."
        )
    return _HEADER.pack(len(data)) + data


def _write(stream: BinaryIO, value: Any) -> None:
    stream.write(_frame(value, limit=None))
    stream.flush()


def _read(stream: BinaryIO, limit_s: float | None = None) -> Any:
    deadline = None if limit_s is None else time.monotonic() + limit_s
    header = _read_exactly(stream, _HEADER.size, deadline)
    return pickle.loads(_read_exactly(stream, _HEADER.unpack(header)[0], deadline))


def _read_exactly(stream: BinaryIO, size: int, deadline: float | None) -> bytes:
    chunks, left = [], size
    fd = stream.fileno()
    while left:
        if deadline is not None:
            ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                raise TimeoutError
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _serve(memory_bytes: int) -> None:
    """The child: answer requests until stdin closes."""
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    requests, replies = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing but frames on the real stdout

    from .query import run_query

    collection: Collection | None = None  # one collection at a time: the parent resends on change
    while True:
        try:
            request = _read(requests)
        except EOFError:
            return
        if "load" in request:
            collection = request["collection"]
            _write(replies, {"ok": True, "loaded": request["load"]})
            continue
        try:
            response = run_query(
                collection,
                sql=request["sql"],
                form=request["form"],
                max_rows=request["max_rows"],
                timeout_s=request["timeout_s"],
                memory_limit=request["memory_limit"],
            )
            reply = {"ok": True, "response": response.model_dump(mode="json")}
        except errors.SchemaSearchError as error:
            reply = {"ok": False, "error": type(error).__name__, "detail": error.detail, "hint": error.hint}
        except MemoryError:
            reply = {"ok": False, "error": "QueryFailed", "detail": "The query ran out of memory.", "hint": None}
        except Exception as error:  # an engine or parser failure we did not foresee: the query's, not the server's
            detail = f"The query failed: {type(error).__name__}: {str(error).strip().splitlines()[0] if str(error).strip() else ''}"
            reply = {"ok": False, "error": "QueryFailed", "detail": detail, "hint": "Fix the SQL and try again."}
        _write(replies, reply)


if __name__ == "__main__":
    _serve(int(sys.argv[1]))
