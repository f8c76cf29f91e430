"""Whether a server worker can answer: its model loaded, every catalog and corpus opened once.

``serve`` warms each worker before it takes connections, so the first question does
not pay for loading the model and opening indexes (seconds at 10,000 tables), and
``/readyz`` says ready only when that is done. A collection that fails to open is
reported by name with the command that rebuilds it; the others still answer.
"""

from __future__ import annotations

import gc
import os
import sys
import threading
import time
from typing import Any

from ..errors import SchemaSearchError
from ..workspace import Workspace


class Readiness:
    """``warming``: the app warms up before serving; without it, it is ready as soon as it runs."""

    def __init__(self, workspace: Workspace, warming: bool) -> None:
        self.workspace = workspace
        self._state: dict[str, Any] = {"status": "loading" if warming else "ready", "problems": []}
        self._lock = threading.Lock()

    def warm(self) -> None:
        """Load the model, open each live generation and answer one question against it.

        What crashed writers left goes first: a server only searches, so no writer of its
        own would ever sweep the half-built generations a killed ``index`` left behind.
        """
        ws = self.workspace
        started = time.perf_counter()
        ws.store.tidy()
        ws.corpus_store.tidy()
        problems: list[str] = []
        hints: list[str] = []

        def failed(error: SchemaSearchError) -> None:
            problems.append(error.detail)
            if error.hint:
                hints.append(error.hint)

        if ws.settings.dense:
            try:
                ws.embedder()
            except SchemaSearchError as error:  # searches will say the same, as a 503 each
                failed(error)
        opened = {"catalogs": [], "corpora": []}
        for kind, names, search in (
            ("catalogs", ws.store.names(), ws.search),
            ("corpora", ws.corpus_store.names(), ws.search_docs),
        ):
            for name in names:
                try:
                    search(name, "warm up", 1)
                    opened[kind].append(name)
                except SchemaSearchError as error:
                    failed(error)
        # What is loaded now (catalogs: ~14 objects per column) lives until a re-index
        # replaces it (the workspace unfreezes then). Frozen out of the garbage collector's
        # reach, its full passes stop walking it: they had stalled one search in a hundred
        # by ~250 ms at 10,000 tables.
        gc.collect()
        gc.freeze()
        seconds = round(time.perf_counter() - started, 2)
        print(
            f"Worker {os.getpid()} ready in {seconds} s: {len(opened['catalogs'])} catalogs, "
            f"{len(opened['corpora'])} corpora" + (f"; {len(problems)} failed to open" if problems else ""),
            file=sys.stderr,
        )
        with self._lock:
            self._state = {
                "status": "degraded" if problems else "ready",
                "worker": os.getpid(),
                "warmed_in_s": seconds,
                **opened,
                "problems": problems,
                **({"hint": " ".join(hints)} if hints else {}),
            }

    def report(self) -> dict[str, Any]:
        with self._lock:
            return {"worker": os.getpid(), **self._state}
