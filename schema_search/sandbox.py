"""A child process for untrusted input: capped in memory, killed at the deadline, replaced after.

Three kinds of work use it, each its own child: SQL (``database``), a collection's queries
(``collection``), and PDF and DOCX files read beyond their text layer (``documents``,
:mod:`schema_search.docs.visual`). SQL is why it exists:

An engine's own interrupt cannot reach inside one function call: SQLite's progress
handler never fires during ``randomblob(1000000000)`` (one VM step), DuckDB's interrupt
misses a query still being bound and an expression that builds gigabytes of text, and
three such values crash the process that holds them. So whatever touches the SQL
(parsing it, opening the database, running it) happens in a child with a hard
address-space limit (``RLIMIT_AS``), and a query that has not answered by its deadline
ends with its process. The serving process only waits, and the next query gets a
fresh child.

The child answers requests one at a time; what a request does is named by its ``op``, a
function given by module path (``"schema_search.execute.engines:serve"``), imported in
the child on first use, as datasette loads its plugins: the child knows nothing of its
callers, and a fresh one is ready before any of them is imported. A failure comes back
as the name of its error class, and :func:`raise_reply` raises it again in the parent.

Protocol: length-prefixed pickle frames over the child's stdin and stdout, written
only by our code on both sides (no value a query returns can shape a frame).
"""

from __future__ import annotations

import importlib
import os
import pickle
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from typing import Any, BinaryIO

from . import errors
from .errors import QueryStopped, ran_too_long

# Seconds a child gets to start (imports) or to read a collection, outside any query's time.
STARTUP_S = 60.0
# How long after its time limit a query's process is killed: the engines stop most
# queries themselves at the limit; this is for the ones they cannot reach.
GRACE_S = 0.75
# The SQL validator's own limit is 100,000 characters; a request frame above this is refused unsent.
MAX_REQUEST_BYTES = 1_000_000
_HEADER = struct.Struct("!Q")
# The modules whose functions a request may name.
_OWN = "schema_search."


class Stopped(errors.SchemaSearchError):
    """The child was ended: past its deadline (detail ``timeout``), out of memory or dead
    (``memory``), or it could not be reached (a sentence)."""

    status = 400
    code = "query_stopped"

    def as_query_error(self, timeout_s: float, *, time_hint: str, memory_hint: str) -> QueryStopped:
        """The error the query's caller sees, with the caller's advice on narrowing it."""
        if self.detail == "timeout":
            return ran_too_long(timeout_s, time_hint)
        if self.detail == "memory":
            return QueryStopped(
                "The query was stopped: it needed more memory than a query may (or its process was ended).",
                hint=memory_hint,
            )
        return QueryStopped(self.detail, hint=self.hint)


class Child:
    """One child process running requests one at a time; thread-safe.

    Args:
        memory_bytes: the child's address-space cap.
        warm: modules the child imports (and ``"module:function"``s it calls) before it says it is ready.
        hidden: names of environment variables the child does not inherit (``None``: it inherits all).
        own_tmp: start each child with its own ``TMPDIR``, removed when the child ends: what it
            (or a program it runs) leaves there goes with it, even when it is killed.
    """

    def __init__(
        self,
        memory_bytes: int,
        warm: tuple[str, ...] = (),
        *,
        hidden: Callable[[str], bool] | None = None,
        own_tmp: bool = False,
    ) -> None:
        self.memory_bytes = memory_bytes
        # On the start's own deadline, so a query after a restart is not charged for the
        # imports (on a busy machine, seconds).
        self.warm = warm
        self.hidden, self.own_tmp = hidden, own_tmp
        self._tmp: str | None = None
        self.lock = threading.Lock()  # held by callers across a load and the query that needs it
        self._process: subprocess.Popen | None = None
        self._starting = False  # spawned, its "ready" frame not read yet
        self.state: Any = None  # what the running child holds (a collection's key); reset with it

    def call(self, request: dict, *, limit_s: float, frame: bytes | None = None) -> dict:
        """Send ``request`` (or a ready ``frame``) and return the child's reply; call under :attr:`lock`.

        Raises:
            Stopped: no reply within ``limit_s`` seconds, or the child died (memory);
                the child is ended either way, and a fresh one starts for the next call.
        """
        process = self._start()
        try:
            process.stdin.write(frame if frame is not None else encode(request, limit=None))
            process.stdin.flush()
            return _read(process.stdout, limit_s)
        except TimeoutError:  # before OSError, which it is a kind of
            self._replace()
            raise Stopped("timeout") from None
        except OSError:  # it died between requests
            self._replace()
            raise Stopped("The query process stopped unexpectedly.", hint="Run the query again.") from None
        except EOFError:
            self._replace()
            raise Stopped("memory") from None
        except BaseException:
            # Interrupted mid-reply (Ctrl-C, out of memory unpickling): the unread rest would
            # be the next caller's answer, so this child goes.
            self._replace()
            raise

    def close(self) -> None:
        with self.lock:
            self.stop()

    def stop(self) -> None:
        if self._process is not None:
            # The whole group: a program the child started (Tesseract) ends with it, not later.
            try:
                os.killpg(self._process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                self._process.kill()
            self._process.wait()
            self._process = None
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None
        self.state = None

    def environment(self) -> dict[str, str]:
        """The environment a child starts with: this process's, less :attr:`hidden` names."""
        env = {k: v for k, v in os.environ.items() if self.hidden is None or not self.hidden(k)}
        return {**env, "PYTHONUNBUFFERED": "1"}

    def _replace(self) -> None:
        """End the child and start its successor now, so its imports overlap the caller's next steps."""
        self.stop()
        self._spawn()

    def _spawn(self) -> None:
        env = self.environment()
        if self.own_tmp:
            self._tmp = env["TMPDIR"] = tempfile.mkdtemp(prefix="schema-search-child-")
        self._process = subprocess.Popen(
            [sys.executable, "-m", "schema_search.sandbox", str(self.memory_bytes), *self.warm],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            start_new_session=True,  # its own process group, ended whole by stop()
        )
        self._starting = True

    def _start(self) -> subprocess.Popen:
        if self._process is not None and self._process.poll() is not None:
            self.stop()  # it died between requests: what it started and its TMPDIR go with it
        if self._process is None:
            self.state = None
            self._spawn()
        if self._starting:  # the child says when its imports are done: they are not a query's time
            try:
                _read(self._process.stdout, STARTUP_S)
            except (TimeoutError, EOFError):
                self.stop()
                raise Stopped("The query process did not start.", hint="Check the server's stderr.") from None
            self._starting = False
        return self._process


_shared: dict[tuple[str, int], Child] = {}
_shared_lock = threading.Lock()


def shared_child(purpose: str, memory_bytes: int, warm: tuple[str, ...] = (), **options: Any) -> Child:
    """The process's child for ``purpose`` (``database``, ``collection``, ``documents``) and this
    memory cap, importing ``warm`` before it takes requests; ``options`` are :class:`Child`'s
    (``hidden``, ``own_tmp``), taken when the child is first asked for."""
    import atexit

    with _shared_lock:
        key = (purpose, memory_bytes)
        if key not in _shared:
            _shared[key] = Child(memory_bytes, warm, **options)
            atexit.register(_shared[key].close)
        return _shared[key]


def encode(value: Any, limit: int | None = MAX_REQUEST_BYTES) -> bytes:
    """``value`` as one frame; a request past ``limit`` bytes, or nested past pickling, is refused."""
    try:
        data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    except RecursionError:
        raise errors.InvalidInput(
            "The query is nested too deeply.", hint="Send a flat JSON form or plain SQL."
        ) from None
    if limit is not None and len(data) > limit:
        raise errors.PayloadTooLarge(
            f"The query is {len(data):,} bytes; the limit is {limit:,}.", hint="Send a shorter query."
        )
    return _HEADER.pack(len(data)) + data


def error_reply(error: BaseException) -> dict:
    """A failure as the child reports it; the parent raises it again by class name."""
    if isinstance(error, errors.SchemaSearchError):
        return {"ok": False, "error": type(error).__name__, "detail": error.detail, "hint": error.hint}
    if isinstance(error, MemoryError):
        return {"ok": False, "error": "QueryStopped", "detail": "The query ran out of memory.", "hint": None}
    # An engine or parser failure we did not foresee: the query's, not the server's.
    text = str(error).strip()
    detail = f"The query failed: {type(error).__name__}: {text.splitlines()[0] if text else ''}"
    return {"ok": False, "error": "QueryFailed", "detail": detail, "hint": "Fix the SQL and try again."}


def _write(stream: BinaryIO, value: Any) -> None:
    stream.write(encode(value, limit=None))
    stream.flush()


def _read(stream: BinaryIO, limit_s: float | None = None) -> Any:
    deadline = None if limit_s is None else time.monotonic() + limit_s
    header = _read_exactly(stream, _HEADER.size, deadline)
    return pickle.loads(_read_exactly(stream, _HEADER.unpack(header)[0], deadline))


def _read_exactly(stream: BinaryIO, size: int, deadline: float | None) -> bytes:
    chunks, left = [], size
    fd = stream.fileno()
    poller = select.poll()  # not select(): a busy server's descriptors pass 1024
    poller.register(fd, select.POLLIN)
    while left:
        if deadline is not None:
            if not poller.poll(max(0.0, deadline - time.monotonic()) * 1000):
                raise TimeoutError
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _serve(memory_bytes: int, warm: list[str]) -> None:
    """The child: import ``warm``, then answer requests until stdin closes."""
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    for entry in warm:  # "package.module" to import, or "package.module:function" to call as well
        module, _, function = entry.partition(":")
        imported = importlib.import_module(module)
        if function:
            getattr(imported, function)()
    requests, replies = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing but frames on the real stdout

    state: dict[str, Any] = {}  # what requests leave for later ones (the loaded collection)
    _write(replies, {"ok": True, "ready": True})
    while True:
        try:
            request = _read(requests)
        except EOFError:
            return
        try:
            reply = {"ok": True, **_handler(request["op"])(request, state)}
        except Exception as error:  # every failure goes back as a reply; MemoryError included
            reply = error_reply(error)
        _write(replies, reply)


def _handler(op: str) -> Callable[[dict, dict], dict]:
    """The function an ``op`` names (``"package.module:function"``), imported on first use.

    Only the product's own modules: the frames are written by our code alone, and this
    keeps it so should that ever change.
    """
    module, _, name = op.partition(":")
    if not module.startswith(_OWN) or not name:
        raise ValueError(f"Not an operation of this package: {op!r}.")
    return getattr(importlib.import_module(module), name)


def raise_reply(reply: dict) -> dict:
    """``reply`` when it says ok; else raise the error it names, as its own class (a
    :mod:`schema_search.errors` class, else :class:`~schema_search.errors.QueryFailed`)."""
    if reply["ok"]:
        return reply
    kind = getattr(errors, reply["error"], None)
    if not (isinstance(kind, type) and issubclass(kind, errors.SchemaSearchError)):
        kind = errors.QueryFailed
    raise kind(reply["detail"], hint=reply["hint"])


if __name__ == "__main__":
    _serve(int(sys.argv[1]), sys.argv[2:])
