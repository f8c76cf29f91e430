"""Transcripts: one conversation per JSONL line, with every model call and every tool call's full result.

A model call records how many messages it was sent (``sent``): its request is the
conversation's first ``sent`` messages, so nothing is stored twice and nothing is
lost. Scoring reads only transcripts, never the models, so it can be re-run with
another judge.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from schema_search.errors import InvalidInput

Pipeline = Literal["single-shot", "agent"]
Cite = Literal["ids", "urls"]
FILE = "transcripts.jsonl"


class ModelCall(BaseModel):
    kind: Literal["model"] = "model"
    sent: int = Field(description="How many of the conversation's messages this call was sent.")
    reply: dict[str, Any] = Field(description="The assistant message it returned.")
    seconds: float


class ToolCall(BaseModel):
    kind: Literal["tool"] = "tool"
    name: str
    arguments: dict[str, Any]
    text: str = Field(description="The result as the model read it.")
    structured: dict[str, Any] | None = Field(None, description="The structured content the server sent beside it.")
    is_error: bool = False
    seconds: float


class Conversation(BaseModel):
    question_id: str
    question: str
    gold_urls: list[str]
    pipeline: Pipeline
    cite: Cite
    run: int
    model: str
    server: str = Field(description="The MCP server it talked to: the stdio command or the URL.")
    tools: list[dict[str, Any]] = Field(default_factory=list, description="The tools offered to the model.")
    messages: list[dict[str, Any]] = Field(default_factory=list)
    events: list[ModelCall | ToolCall] = Field(default_factory=list)
    answer: str | None = Field(None, description="The final answer; None when the conversation failed.")
    error: str | None = Field(None, description="Why it failed (a provider error, say): not scored, retried on resume.")
    gave_up: bool = Field(False, description="The agent used every turn without answering: an empty answer.")
    seconds: float = 0.0

    @property
    def key(self) -> tuple[str, str, str, int]:
        return (self.question_id, self.pipeline, self.cite, self.run)

    def tool_calls(self) -> Iterator[ToolCall]:
        return (e for e in self.events if isinstance(e, ToolCall))


def append(directory: Path, conversation: Conversation) -> None:
    """Add one conversation to the directory's transcript (one line, flushed: a crash loses at most it)."""
    path = directory / FILE
    # After a crash mid-line, start on a fresh line rather than glue this one to the stump.
    cut = path.is_file() and path.stat().st_size > 0 and _last_byte(path) != b"\n"
    with path.open("a", encoding="utf-8") as out:
        out.write(("\n" if cut else "") + json.dumps(conversation.model_dump(mode="json"), ensure_ascii=False) + "\n")


def read(directory: Path) -> list[Conversation]:
    """Every conversation in ``directory`` (or in the JSONL file given instead), the last line per key winning.

    A line cut short by an interrupted run is skipped with a warning: the run that
    resumes writes that conversation again.

    Raises:
        InvalidInput: there is no transcript, or a line of it is not a conversation.
    """
    path = directory / FILE if directory.is_dir() else directory
    if not path.is_file():
        raise InvalidInput(
            f"No transcript at {str(path)!r}.", hint="Give the --out directory of `python -m eval.csr run`."
        )
    conversations: dict[tuple[str, str, str, int], Conversation] = {}
    # A line cut mid-character must not make the whole file unreadable: decode line by line.
    lines = [raw.decode("utf-8", errors="replace") for raw in path.read_bytes().splitlines()]
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            conversation = Conversation.model_validate_json(line)
        except ValidationError as error:
            if not line.rstrip().endswith("}") or any("EOF" in e["msg"] for e in error.errors()):
                warnings.warn(
                    f"{path}:{number} is cut short (a run was interrupted while writing it); skipped.", stacklevel=2
                )
                continue
            raise InvalidInput(
                f"{path}:{number} is not a transcript line ({error.error_count()} problems, first: "
                f"{error.errors()[0]['msg']}).",
                hint="Transcripts are written by `python -m eval.csr run`; remove or fix the damaged line.",
            ) from None
        conversations[conversation.key] = conversation  # a retried conversation replaces its failed try
    return list(conversations.values())


def _last_byte(path: Path) -> bytes:
    with path.open("rb") as f:
        f.seek(-1, 2)
        return f.read(1)
