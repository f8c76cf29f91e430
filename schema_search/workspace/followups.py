"""The text a search runs on: the question as asked, or a follow-up written out with its history.

The workspace rewrites once, whichever adapter asked; nothing of the history is stored.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..core import followup
from ..core.followup import Rewrite
from ..errors import InvalidInput, PayloadTooLarge
from ..llm.rewrite import RewriteFailed, rewrite_with_model
from ..settings import Settings

NOT_ASKED = Rewrite(triggered=False, by="none", why="no history")


def check_history(history: Sequence[str] | None, max_chars: int) -> list[str]:
    """The history's messages, stripped and without blanks, or the reason it cannot be used.

    Raises:
        InvalidInput: more than ``followup.MAX_HISTORY_MESSAGES`` messages, or one not text.
        PayloadTooLarge: a message past ``max_chars``.
    """
    history = list(history or ())
    if len(history) > followup.MAX_HISTORY_MESSAGES:
        raise InvalidInput(
            f"The history has {len(history)} messages; at most {followup.MAX_HISTORY_MESSAGES} are accepted.",
            hint="Send only the conversation's latest user messages (the rewrite reads the last few).",
        )
    for i, message in enumerate(history):
        if not isinstance(message, str):
            raise InvalidInput(f"history[{i}] is not text.", hint="Send the earlier user messages as strings.")
        if len(message) > max_chars:
            raise PayloadTooLarge(
                f"history[{i}] is {len(message)} characters long; the limit is {max_chars}.",
                hint="Shorten it, or raise SCHEMA_SEARCH_MAX_QUESTION_CHARS.",
            )
    return [m.strip() for m in history if m.strip()]


def retrieval_question(
    settings: Settings, question: str, history: Sequence[str], complete: Callable[..., Any] | None = None
) -> tuple[str, Rewrite]:
    """The text to search for ``question`` asked after ``history``, and how it came to be.

    ``complete`` stands in for ``litellm.completion`` (tests).
    """
    if not history:
        return question, NOT_ASKED
    why = followup.trigger(question, history)
    if why is None:
        return question, Rewrite(triggered=False, by="none", why="the question stands on its own")
    model = settings.rewrite_model
    if model == "none":
        return question, Rewrite(triggered=True, by="none", why=f"{why}; rewriting is off")
    if model == "deterministic":
        return followup.rewrite(question, history), Rewrite(triggered=True, by="deterministic", why=why)
    try:
        written = rewrite_with_model(
            question, history, model=model, timeout=settings.rewrite_timeout, complete=complete
        )
    except RewriteFailed as error:
        return question, Rewrite(triggered=True, by="none", why=f"{why}; {model} failed ({error}): searched as asked")
    # A rewrite may add the subject, not lose the question: longer than question and history together is a ramble.
    limit = min(settings.max_question_chars, 2 * len(question) + max(len(m) for m in history) + 40)
    refused = followup.accepted(question, written, limit)
    if refused:
        return question, Rewrite(triggered=True, by="none", why=f"{why}; {model}: {refused}: searched as asked")
    return written, Rewrite(triggered=True, by=model, why=why)
