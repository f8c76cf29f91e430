"""One document's requests to the sandbox's child, on one deadline.

The child (:mod:`schema_search.sandbox`) is shared by every document the process reads,
capped at ``Visual.memory_mb``; a document holds it from its first request to its last.
It starts without the environment's secrets (:func:`~.secrets.is_secret`: nothing it runs
needs a key) and with a ``TMPDIR`` of its own, removed with it, so Tesseract's files do
not outlive a killed child.

The document's clock starts once the child is up (a fresh child imports PDFium, Pillow and
pytesseract first, on the sandbox's own start deadline). Every request is given what is
left of ``Visual.seconds`` less the sandbox's ``GRACE_S``: the child's clock starts when
the request arrives, later than ours, and stopping Tesseract takes it a moment; it then
answers with what it read. A child that has not answered ``GRACE_S`` after the time is up
is ended, Tesseract with it. A child that dies (out of memory, a crash in PDFium) is
replaced, and the document opened again in the new one, up to :data:`RESTARTS` times.
"""

from __future__ import annotations

import time
from types import TracebackType

from ...llm.secrets import is_secret
from ...sandbox import GRACE_S, STARTUP_S, Stopped, shared_child
from .options import Visual
from .report import Report

WORKER = "schema_search.docs.visual.worker"
RESTARTS = 2


class Unavailable(ValueError):
    """The child process did not start: nothing can be read beyond the text layer."""


class Session:
    """A document's hold on the child: ``with Session(visual, report) as session: session.call("read_page", ...)``."""

    def __init__(self, visual: Visual, report: Report) -> None:
        self.visual, self.report = visual, report
        self.child = shared_child("documents", visual.memory_mb * 2**20, warm=(WORKER,), hidden=is_secret, own_tmp=True)
        self.opening: dict | None = None  # the request that opens the document, sent again after a restart
        self.expired = False
        self.restarts = 0
        self.started = 0.0
        self._token = object()

    def __enter__(self) -> Session:
        self.child.lock.acquire()
        try:
            self.child.call({"op": f"{WORKER}:ping"}, limit_s=STARTUP_S)
        except Stopped:
            self.child.lock.release()
            raise Unavailable(
                "the process that reads PDF and DOCX files beyond their text did not start (see the server's "
                "stderr); read the text layer only"
            ) from None
        self.started = time.monotonic()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None):
        self.report.seconds = time.monotonic() - self.started
        self.child.lock.release()

    def left(self) -> float:
        return self.visual.seconds - (time.monotonic() - self.started)

    def out_of_time(self) -> bool:
        """Whether the document's time is up (then :attr:`expired` too)."""
        self.expired = self.expired or self.left() <= GRACE_S
        return self.expired

    def given_up(self) -> bool:
        """Whether nothing more will be read: the time is up, or the child died too often."""
        return self.out_of_time() or self.restarts > RESTARTS

    def why(self) -> str:
        """Why reading stopped, for a warning: the time limit, or the child's failures."""
        if self.expired:
            return f"the time limit of {self.visual.seconds:g} s a document (docs_visual_seconds) ran out"
        if self.restarts > RESTARTS:
            return "the reading process failed again and again"
        return self.report.warnings[-1] if self.report.warnings else "the reading process failed"

    def open(self, op: str, **request) -> dict | None:
        """Send the request that opens the document (again after a restart); its reply."""
        self.opening = {"op": f"{WORKER}:{op}", **request}
        return self._send(self.opening, opening=True)

    def call(self, op: str, **request) -> dict | None:
        """The child's reply to ``op``, or ``None`` when there was none: the time is up
        (:attr:`expired`), the child died, or the op failed (each a warning already)."""
        if self.opening is not None and self.child.state is not self._token:
            if self._send(self.opening, opening=True) is None:
                return None
        return self._send({"op": f"{WORKER}:{op}", **request})

    def languages(self) -> tuple[str, ...]:
        """The configured languages Tesseract has models for (a warning names the others); none
        when Tesseract is not installed."""
        reply = self.call("tesseract_languages")
        if reply is None or "failed" in reply:
            if reply is not None:
                self.report.warn(reply["failed"])
            return ()
        missing = [name for name in self.visual.languages if name not in reply["languages"]]
        found = tuple(name for name in self.visual.languages if name in reply["languages"])
        if missing:
            self.report.warn(
                f"Tesseract has no model for {', '.join(missing)} (install tesseract-ocr-<language>)"
                + ("" if found else ": scanned pages and figure labels were not read")
            )
        return found

    def _send(self, request: dict, opening: bool = False) -> dict | None:
        if self.given_up():
            return None
        left = self.left()
        try:
            reply = self.child.call({**request, "seconds": left - GRACE_S}, limit_s=left + GRACE_S)
        except Stopped as stopped:
            if stopped.detail == "timeout":
                self.expired = True
            else:
                self.restarts += 1
                self.report.warn(
                    f"the reading process was ended (out of its {self.visual.memory_mb} MB of memory, or it "
                    "crashed); what it was reading keeps its text layer only"
                )
            return None
        if not reply.get("ok"):  # a failure outside the op's own handling (the sandbox's reply)
            self.report.warn(f"reading failed: {reply.get('detail')}")
            return None
        if opening:
            self.child.state = self._token if "failed" not in reply else None
        if reply.get("stopped"):
            self.expired = True
        return reply
