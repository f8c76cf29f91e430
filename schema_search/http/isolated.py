"""Run an upload's indexing in a fresh child process, with a time limit, so the worker keeps answering.

Parsing uploaded DDL is pure Python (sqlglot, ~3 s per MB on one core). In the
thread pool it held the GIL: during a 12 MB upload (40,000 tables) ``/healthz`` on
the same worker took up to 0.5 s (p99 0.29 s), and searches stalled alike. Parsing
alone in a child was not enough: unpickling the parsed catalog in the worker is one
C call that held the GIL for 2.3 s. So the child does the whole job, parse and index,
as ``schemasift index`` in another process would: it writes the new generation
and swaps it in, and the worker opens it on the next search. A child that runs past
its time limit is killed (the store is crash-safe: the live generation stays), and
the memory it took goes back when it exits. Starting one costs ~1 s (imports), so
small uploads are indexed in the calling thread.
"""

from __future__ import annotations

import multiprocessing
import threading
from collections.abc import Callable
from typing import Any

from ..errors import PayloadTooLarge, SchemaSearchError, SourceError, TooManyRequests

# An upload this small is indexed in under a second, less than starting a child costs.
WORTH_A_CHILD_BYTES = 256_000
# At the default upload limit (20 MB) a DDL takes ~60 s to parse and, with the dense
# channel on, minutes to embed its ~60,000 tables on two cores; several times that
# means the input is pathological rather than large. Documents pass their own limit.
TIME_LIMIT_S = 900.0


class Isolated:
    """At most ``slots`` children at once (each may take a few hundred MB); one more is a 429."""

    def __init__(
        self, slots: int = 2, above_bytes: int = WORTH_A_CHILD_BYTES, time_limit_s: float = TIME_LIMIT_S
    ) -> None:
        self.slots = slots
        self.above_bytes = above_bytes
        self.time_limit_s = time_limit_s
        self._free = threading.BoundedSemaphore(slots)

    def run(self, size: int, fn: Callable[..., Any], *args: Any, what: str, time_limit_s: float | None = None) -> Any:
        """``fn(*args)``: here when ``size`` (bytes of input) is small, else in a child.

        ``fn`` must be a module-level function, and its arguments and result must
        pickle; it runs in either place, so it must not depend on this process's state.

        Args:
            what: names the work in messages (``"the DDL"``).
            time_limit_s: how long the child may run; by default :attr:`time_limit_s`.

        Raises:
            SchemaSearchError: what ``fn`` raised, re-raised here with its detail and hint.
            PayloadTooLarge: ``fn`` ran past ``time_limit_s`` (the child is killed).
            TooManyRequests: ``slots`` children are running already.
            SourceError: the child died (out of memory, killed) or ``fn`` failed otherwise.
        """
        if size <= self.above_bytes:
            return fn(*args)
        if not self._free.acquire(blocking=False):
            raise TooManyRequests(
                f"This worker is already indexing {self.slots} large uploads.",
                hint="Retry in a few seconds, or upload one schema at a time.",
                retry_after_s=5,
            )
        try:
            return _run(fn, args, time_limit_s or self.time_limit_s, what)
        finally:
            self._free.release()


def _run(fn: Callable[..., Any], args: tuple, time_limit_s: float, what: str) -> Any:
    # spawn: a fresh interpreter; a fork of a worker would copy its threads' locks mid-use.
    context = multiprocessing.get_context("spawn")
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(sender, fn, args), daemon=True, name="schema-search-upload")
    child.start()
    sender.close()  # the child holds the only writer: its exit reads as EOF here
    try:
        if not receiver.poll(time_limit_s):
            raise PayloadTooLarge(
                f"Indexing {what} took longer than {time_limit_s:.0f} s; it was stopped, and nothing changed.",
                hint="Split it into smaller uploads, or index it with the CLI (`schemasift index`).",
            )
        outcome, value = receiver.recv()
    except EOFError:
        raise SourceError(
            f"The process indexing {what} died (exit code {child.exitcode}), perhaps out of memory; nothing changed.",
            hint="Split it into smaller uploads.",
        ) from None
    finally:
        receiver.close()
        if child.is_alive():
            child.kill()
        child.join()
    if outcome == "ok":
        return value
    if outcome == "error":
        kind, detail, hint = value
        raise kind(detail, hint=hint)
    raise SourceError(f"Indexing {what} failed: {value}", hint="This is a bug; please report it.")


def _child(sender, fn: Callable[..., Any], args: tuple) -> None:
    try:
        reply = ("ok", fn(*args))
    except SchemaSearchError as error:
        reply = ("error", (type(error), error.detail, error.hint))
    except Exception as error:  # noqa: BLE001 -- reported to the parent, which answers for it
        reply = ("failed", f"{type(error).__name__}: {error}")
    sender.send(reply)
    sender.close()
