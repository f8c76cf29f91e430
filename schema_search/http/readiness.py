"""Whether a server worker can answer: its model loaded, every catalog and corpus opened once.

``serve`` warms each worker before it takes connections, so the first question does
not pay for loading the model and opening indexes (seconds at 10,000 tables), and
``/readyz`` says ready only when that is done. A collection that fails to open is
reported by name with the command that rebuilds it; the others still answer.

An app built without warm-up (embedded in another ASGI server) opens its collections
on their first search, but it is not ready before its model is loaded: it used to say
ready at once, and the first searches then waited seconds for the model. Its first
probe starts loading the model in a thread of its own; the probes say ``loading``
until it is done.
"""

from __future__ import annotations

import asyncio
import gc
import os
import sys
import threading
import time
from typing import Any

from ..errors import SchemaSearchError
from ..workspace import Workspace

# What the model is: not used (dense channel off), loading, loaded, or unavailable here.
OFF, NOT_LOADED, LOADING, LOADED, UNAVAILABLE = "off", "not loaded", "loading", "loaded", "unavailable"
# How long a probe waits for a model being loaded: long enough for one already in this
# process (microseconds), far shorter than a probe's timeout.
MODEL_WAIT_S = 0.1


class Readiness:
    """``warming``: the app warms up before serving; without it, it is ready once its model is loaded."""

    def __init__(self, workspace: Workspace, warming: bool) -> None:
        self.workspace = workspace
        self.warming = warming
        self._state: dict[str, Any] = {"status": "loading" if warming else "ready", "problems": []}
        self._model = (LOADING if warming else NOT_LOADED) if workspace.settings.dense else OFF
        self._model_problem: SchemaSearchError | None = None
        self._loader: threading.Thread | None = None
        self._lock = threading.Lock()

    def warm(self) -> None:
        """Load the model, open each live generation and answer one question against it.

        What crashed writers left goes first: a server only searches, so no writer of its
        own would ever sweep the half-built generations a killed ``index`` left behind.
        """
        ws = self.workspace
        started = time.perf_counter()
        ws.catalogs.store.tidy()
        ws.corpora.store.tidy()
        problems: list[str] = []
        hints: list[str] = []

        def failed(error: SchemaSearchError) -> None:
            problems.append(error.detail)
            if error.hint:
                hints.append(error.hint)

        if ws.settings.dense:
            self._set_model(LOADING)
            self._load_model()
            if self._model_problem is not None:  # searches will say the same, as a 503 each
                failed(self._model_problem)
        opened = {"catalogs": [], "corpora": []}
        for kind, names, search in (
            ("catalogs", ws.catalogs.store.names(), ws.catalogs.search),
            ("corpora", ws.corpora.store.names(), ws.corpora.search),
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

    async def model(self) -> str:
        """The model's state; in an app that does not warm up, the first call starts loading it.

        Waits up to :data:`MODEL_WAIT_S` for a load in progress, on the event loop (a probe
        never waits for a thread-pool thread that uploads may all be holding).
        """
        with self._lock:
            start = not self.warming and self._model == NOT_LOADED
            if start:
                self._model = LOADING
                self._loader = threading.Thread(target=self._load_model, name="schema-search-model", daemon=True)
        if start:
            self._loader.start()
        deadline = time.monotonic() + MODEL_WAIT_S
        while self._model == LOADING and not self.warming and time.monotonic() < deadline:
            await asyncio.sleep(0.005)
        return self._model

    def report(self) -> dict[str, Any]:
        """The worker's readiness; ``status`` is ``loading`` until its model is loaded (and it is warm)."""
        with self._lock:
            state, model, problem = dict(self._state), self._model, self._model_problem
        if not self.warming and model in (NOT_LOADED, LOADING):
            state["status"] = "loading"
        elif not self.warming and problem is not None:
            state |= {
                "status": "degraded",
                "problems": [problem.detail],
                **({"hint": problem.hint} if problem.hint else {}),
            }
        return {"worker": os.getpid(), **state, "model": model}

    def _load_model(self) -> None:
        try:
            self.workspace.embedder()
        except SchemaSearchError as error:
            with self._lock:
                self._model, self._model_problem = UNAVAILABLE, error
            return
        except Exception as error:  # noqa: BLE001 -- in a thread of its own: reported by the probes, not lost
            with self._lock:
                self._model = UNAVAILABLE
                self._model_problem = SchemaSearchError(
                    f"The embedding model failed to load ({type(error).__name__}: {error}).",
                    hint="This is a bug; please report it. Or set SCHEMA_SEARCH_DENSE=false.",
                )
            return
        self._set_model(LOADED)

    def _set_model(self, state: str) -> None:
        with self._lock:
            self._model = state
