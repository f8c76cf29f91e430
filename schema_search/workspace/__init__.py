"""The one front door: every operation an adapter offers, for catalogs (tables) and corpora (documents).

CLI, HTTP and MCP are thin layers over one :class:`Workspace`; input checks live here so
every adapter refuses the same things with the same words. Tables and documents are
stored, searched and counted by the same code (:mod:`.sources`, over ``core``);
``workspace.catalogs`` and ``workspace.corpora`` add what each kind has of its own,
running SQL behind the gate included, and :mod:`.configs` is the one place where
settings become the typed configs the layers below take.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..core.build import Progress
from ..core.embedders import Embedder, shared_embedder
from ..core.followup import Rewrite
from ..errors import InvalidInput, PayloadTooLarge
from ..settings import Settings
from .batches import TURNS_FILE, Batches
from .catalogs import CATALOGS, Catalogs
from .corpora import CORPORA, Corpora
from .followups import check_history, retrieval_question

__all__ = ["CATALOGS", "CORPORA", "Workspace"]


class Workspace:
    """The catalogs and corpora under one data directory, with searchers cached per generation."""

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings or Settings()
        self._embedder_loaded = False
        self.rewrite_completion: Callable[..., Any] | None = None  # litellm.completion, unless a test fakes it
        # Every worker's turns, for a next batch; sealed with the data key once a KEK is configured.
        self.batches = Batches(self.settings.home / TURNS_FILE, vault=lambda: self.corpora.vault)
        self.catalogs = Catalogs(self)
        self.corpora = Corpora(self)

    def embedder(self) -> Embedder:
        """The embedding model, loaded on first use and shared by the process."""
        s = self.settings
        embedder = shared_embedder(s.embedding_backend, s.model_cache, s.embedding_threads)
        self._embedder_loaded = True
        return embedder

    def loaded_embedder(self, progress: Progress | None) -> Embedder:
        """The model, its first load shown as a phase of its own: it takes seconds, and
        no other bar should seem to hang meanwhile."""
        if progress is None or self._embedder_loaded:
            return self.embedder()
        for _ in progress([self.settings.embedding_backend], "loading the model"):
            embedder = self.embedder()
        return embedder

    def check_request(self, question: str, k: int | None) -> tuple[str, int]:
        """The question stripped and ``k`` defaulted, or the reason they cannot be searched.

        Raises:
            InvalidInput: an empty question, or ``k`` out of range.
            PayloadTooLarge: a question past ``max_question_chars``.
        """
        s = self.settings
        question = (question or "").strip()
        if not question:
            raise InvalidInput(
                "The question is empty.", hint="Ask something, e.g. 'which customers churned last month?'."
            )
        if len(question) > s.max_question_chars:
            raise PayloadTooLarge(
                f"The question is {len(question)} characters long; the limit is {s.max_question_chars}.",
                hint="Shorten it, or raise SCHEMA_SEARCH_MAX_QUESTION_CHARS.",
            )
        k = s.default_k if k is None else k
        if not 1 <= k <= s.max_k:
            raise InvalidInput(f"k={k} is out of range.", hint=f"Use 1 <= k <= {s.max_k}.")
        return question, k

    def retrieval(self, question: str, history: Sequence[str] | None) -> tuple[str, Rewrite]:
        """The text to search for a checked ``question`` asked after ``history`` (the conversation's
        earlier user messages), and how it was written; the question itself without history.

        Raises:
            InvalidInput: too many history messages.
            PayloadTooLarge: a history message past ``max_question_chars``.
        """
        kept = check_history(history, self.settings.max_question_chars)
        return retrieval_question(self.settings, question, kept, self.rewrite_completion)

    def rewrite_waits(self, history: Sequence[str] | None) -> bool:
        """Whether a search with ``history`` may wait on a model (then adapters keep it off an event loop)."""
        return bool(history) and self.settings.rewrite_model not in ("deterministic", "none")
