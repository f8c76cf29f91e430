"""What a description backend is: one method, and the errors that tell a bad table from a broken provider.

Backends import this module (as simonw/llm's plugins import ``llm.Model``); the runner
(:mod:`.run`) imports it too, and neither imports the other's backend.
"""

from __future__ import annotations

from typing import Protocol

from ..tables.catalog import Table


class Describer(Protocol):
    """Writes one description. ``model`` is recorded with each description."""

    model: str

    def describe(self, table: Table, context: str) -> str:
        """A plain-English description of ``table``; ``context`` says what joins to it."""
        ...


class DescriptionFailed(Exception):
    """This table could not be described; others may still succeed."""


class EmptyDescription(DescriptionFailed):
    """The model answered, but nothing was left after tidying (e.g. it echoed the DDL).

    A weak model's answer, not a broken provider: it never stops a run.
    """


class ProviderUnavailable(Exception):
    """The provider refused or cannot be reached: no further table would succeed.

    Attributes:
        model: the litellm model string.
        provider: litellm's provider name (``openai``, ``local``, ...).
        reason: what went wrong, with secrets redacted.
        hint: what to set or start.
    """

    def __init__(self, model: str, provider: str, reason: str, hint: str) -> None:
        super().__init__(reason)
        self.model, self.provider, self.reason, self.hint = model, provider, reason, hint
