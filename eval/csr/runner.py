"""Running questions through the two pipelines, over a real MCP client session, into transcripts.

- **single-shot**: one ``search_docs`` call, then one model call that answers from it.
- **agent**: a litellm tool-calling loop over every tool the server lists; the model
  decides when and how often to search, and its first reply without a tool call is
  its answer.

Both reach the tools through an MCP client session against ``schemasift mcp``:
a child process over stdio (one per citation style, started with ``--cite``), or a
running streamable-HTTP server. Each finished conversation is appended to the
transcript at once, and a re-run into the same directory skips what is already there
(a conversation that failed, e.g. on a provider error, is tried again; an agent
that gave up without answering has answered, with nothing).

One session serves every conversation of a citation style, so server-side state
(the citation ledger ``resolve_citations`` checks against) spans them; scoring never
relies on it: it traces citations only to the tool results of the conversation itself.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError
from mcp.types import CONNECTION_CLOSED, REQUEST_TIMEOUT

from schema_search.agent.ask import AgentFailed, Complete, ContextTooLong, ModelNotReady
from schema_search.agent.loop import assistant_message, function_spec, tool_arguments, tool_reply
from schema_search.errors import InvalidInput, SchemaSearchError, first_line
from schema_search.tools.docs import EXAMPLE_ID, EXAMPLE_URL

from .questions import Question
from .transcript import FILE, Cite, Conversation, ModelCall, Pipeline, ToolCall, append, read

HOW: dict[str, str] = {
    "ids": f"Cite each passage you use by its ID in brackets, exactly as the tools show it, e.g. [{EXAMPLE_ID}].",
    "urls": f"Cite each passage you use by its URL in brackets, exactly as the tools show it, e.g. [{EXAMPLE_URL}].",
}
AGENT_SYSTEM = (
    "You answer questions about the documentation in the corpus {corpus!r}, using the tools to find what it "
    "says. Search before you answer. {how} If the documentation does not answer the question, say so and "
    "cite nothing."
)
SINGLE_SYSTEM = (
    "You answer questions about the documentation in the corpus {corpus!r} from the passages you are given. "
    "{how} If the passages do not answer the question, say so and cite nothing."
)
MAX_TURNS = 8
SEARCH_K = 5


@dataclass
class RunConfig:
    corpus: str
    model: str
    pipelines: list[Pipeline]
    cites: list[Cite]
    runs: int = 1
    k: int = SEARCH_K
    max_turns: int = MAX_TURNS
    temperature: float | None = None
    home: Path | None = None
    mcp_url: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def server(self, cite: Cite) -> StdioServerParameters | str:
        if self.mcp_url:
            return self.mcp_url
        home = ["--home", str(self.home)] if self.home else []
        return StdioServerParameters(
            command=sys.executable,
            args=["-m", "schema_search.cli", *home, "mcp", "--corpus", self.corpus, "--cite", cite],
            env=dict(os.environ),  # the SDK passes only a minimal environment otherwise
        )


def run(
    questions: list[Question],
    config: RunConfig,
    out: Path,
    complete: Complete,
    progress: Callable[[str], None] = lambda line: None,
) -> list[Conversation]:
    """Every question × pipeline × citation style × run not yet in ``out``; returns the new conversations."""
    if config.mcp_url and len(config.cites) > 1:
        raise InvalidInput(
            "One running MCP server shows one citation style.",
            hint="Give one --cite matching the server's own --cite, or leave out --mcp-url to start servers over stdio.",
        )
    _check_same_run(out, config)
    out.mkdir(parents=True, exist_ok=True)
    done = {c.key for c in read(out) if c.error is None} if (out / FILE).is_file() else set()
    (out / "run.json").write_text(json.dumps(_described(config), indent=2) + "\n", encoding="utf-8")
    todo = [
        (cite, r, q, p)
        for cite in config.cites
        for r in range(1, config.runs + 1)
        for q in questions
        for p in config.pipelines
        if (q.id, p, cite, r) not in done
    ]
    new: list[Conversation] = []
    for cite in config.cites:
        work = [(r, q, p) for c, r, q, p in todo if c == cite]
        if work:
            try:
                new += anyio.run(_session, config, cite, work, out, complete, progress, len(new), len(todo))
            except BaseExceptionGroup as group:  # the MCP client's task group wraps what went wrong
                raise _cause(group, config.server(cite)) from None
    return new


def _check_same_run(out: Path, config: RunConfig) -> None:
    """A folder holds one corpus and one model: resuming must not mix another into its transcript."""
    try:
        before = json.loads((out / "run.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    for key in ("corpus", "model", "k", "max_turns", "temperature"):
        if before.get(key) != getattr(config, key):
            raise InvalidInput(
                f"{out} holds a run with {key} {before.get(key)!r}, not {getattr(config, key)!r}.",
                hint="Give another --out for this run, or the same settings to resume it.",
            )


def _cause(group: BaseExceptionGroup, server: StdioServerParameters | str) -> BaseException:
    """The one error worth showing from the client's task group: ours, or an unreachable server."""
    leaves: list[BaseException] = []

    def walk(error: BaseException) -> None:
        if isinstance(error, BaseExceptionGroup):
            for inner in error.exceptions:
                walk(inner)
        else:
            leaves.append(error)

    walk(group)
    ours = [e for e in leaves if isinstance(e, SchemaSearchError)]
    if ours:
        return ours[0]
    return ServerUnreachable(
        f"The MCP session with {_name(server)} failed: {first_line(leaves[0]) if leaves else group}",
        hint="For --mcp-url, start `schemasift mcp --transport http --corpus NAME` first; for stdio, "
        "see server.log in the --out folder.",
    )


class ServerUnreachable(SchemaSearchError):
    status = 502


class ToolTimedOut(SchemaSearchError):
    status = 504


async def _session(
    config: RunConfig,
    cite: Cite,
    work: list[tuple[int, Question, Pipeline]],
    out: Path,
    complete: Complete,
    progress: Callable[[str], None],
    offset: int,
    total: int,
) -> list[Conversation]:
    """One MCP session (one server, one citation style) for ``work``: (run, question, pipeline) triples."""
    server = config.server(cite)
    name = _name(server)
    conversations = []
    # The server's own messages (and any traceback) go to a log beside the transcript, not over the progress lines.
    with (out / "server.log").open("a", encoding="utf-8") as log:
        transport = server if isinstance(server, str) else stdio_client(server, errlog=log)
        async with Client(transport) as client:
            tools = [_spec(t) for t in (await client.list_tools()).tools]
            if not any(t["function"]["name"] == "search_docs" for t in tools):
                raise InvalidInput(
                    f"The MCP server at {name} has no search_docs tool.", hint="Serve a corpus: --corpus NAME."
                )
            for n, (run_number, question, pipeline) in enumerate(work, offset + 1):
                conversation = Conversation(
                    question_id=question.id,
                    question=question.question,
                    gold_urls=question.gold_urls,
                    pipeline=pipeline,
                    cite=cite,
                    run=run_number,
                    model=config.model,
                    server=name,
                )
                await _converse(client, config, conversation, tools, complete)
                append(out, conversation)
                conversations.append(conversation)
                searches = sum(1 for t in conversation.tool_calls() if t.name == "search_docs")
                status = (
                    f"error: {conversation.error}"
                    if conversation.error
                    else f"gave up after {config.max_turns} turns"
                    if conversation.gave_up
                    else f"{searches} searches"
                )
                progress(
                    f"[{n}/{total}] {pipeline} / {cite} run {run_number} {question.id}: {status}, {conversation.seconds:.1f} s"
                )
    return conversations


async def _converse(
    client: Client, config: RunConfig, conversation: Conversation, tools: list[dict[str, Any]], complete: Complete
) -> None:
    started = time.perf_counter()
    try:
        if conversation.pipeline == "single-shot":
            await _single_shot(client, config, conversation, complete)
        else:
            await _agent(client, config, conversation, tools, complete)
    except ContextTooLong:  # the model's conversation outgrew its context: it gave up, like running out of turns
        conversation.answer, conversation.gave_up = "", True
    except (AgentFailed, ToolTimedOut) as error:  # one failed call is a failure, not the end of the run
        conversation.error = error.detail
    except (ModelNotReady, InvalidInput, ServerUnreachable):
        raise  # no key, a wrong setup, or the server gone: every later conversation would fail the same way
    except Exception as error:  # anything else odd in one conversation (a malformed reply, a timeout) is its result
        conversation.error = f"{type(error).__name__}: {first_line(error)}"
    conversation.seconds = round(time.perf_counter() - started, 3)


async def _single_shot(client: Client, config: RunConfig, conversation: Conversation, complete: Complete) -> None:
    found = await _call_tool(client, conversation, "search_docs", {"question": conversation.question, "k": config.k})
    conversation.messages = [
        {"role": "system", "content": SINGLE_SYSTEM.format(corpus=config.corpus, how=HOW[conversation.cite])},
        {"role": "user", "content": f"Question: {conversation.question}\n\nPassages:\n{found.text}"},
    ]
    reply = await _model(config, conversation, complete, tools=None)
    conversation.answer = str(reply.get("content") or "")


async def _agent(
    client: Client, config: RunConfig, conversation: Conversation, tools: list[dict[str, Any]], complete: Complete
) -> None:
    conversation.tools = tools
    conversation.messages = [
        {"role": "system", "content": AGENT_SYSTEM.format(corpus=config.corpus, how=HOW[conversation.cite])},
        {"role": "user", "content": conversation.question},
    ]
    for _ in range(config.max_turns):
        reply = await _model(config, conversation, complete, tools=tools)
        calls = reply.get("tool_calls") or []
        if not calls:
            conversation.answer = str(reply.get("content") or "")
            return
        for call in calls:
            arguments = tool_arguments(call)
            if isinstance(arguments, str):  # unparsable arguments: the model reads why
                conversation.messages.append(tool_reply(call, arguments))
                continue
            result = await _call_tool(client, conversation, call["function"]["name"], arguments)
            conversation.messages.append(tool_reply(call, result.text))
    # Not an error: the user gets no answer, so it scores as one without citations (and is counted).
    conversation.answer, conversation.gave_up = "", True


async def _model(
    config: RunConfig, conversation: Conversation, complete: Complete, tools: list[dict[str, Any]] | None
) -> dict[str, Any]:
    kwargs: dict[str, Any] = {"model": config.model, "messages": list(conversation.messages)}
    if tools:
        kwargs["tools"] = tools
    if config.temperature is not None:
        kwargs["temperature"] = config.temperature
    started = time.perf_counter()
    response = await anyio.to_thread.run_sync(lambda: complete(**kwargs))
    reply = assistant_message(response)
    conversation.events.append(
        ModelCall(sent=len(kwargs["messages"]), reply=reply, seconds=round(time.perf_counter() - started, 3))
    )
    conversation.messages.append(reply)
    return reply


async def _call_tool(client: Client, conversation: Conversation, name: str, arguments: dict[str, Any]) -> ToolCall:
    started = time.perf_counter()
    try:
        result = await client.call_tool(name, arguments)
        text = "\n".join(getattr(part, "text", "") for part in result.content)
        event = ToolCall(
            name=name,
            arguments=arguments,
            text=text,
            structured=result.structured_content,
            is_error=bool(result.is_error),
            seconds=round(time.perf_counter() - started, 3),
        )
    except MCPError as error:
        if error.code == CONNECTION_CLOSED:  # the server is gone: no later conversation can run either
            raise ServerUnreachable(
                f"The MCP server closed the connection during {name}: {error.message}",
                hint="See server.log in the --out folder; re-running resumes where this stopped.",
            ) from None
        if error.code == REQUEST_TIMEOUT:
            raise ToolTimedOut(f"{name} did not answer in time: {error.message}") from None
        # Otherwise a protocol-level refusal (unknown tool, bad arguments): the model's to read.
        event = ToolCall(
            name=name,
            arguments=arguments,
            text=f"Error: {error}",
            is_error=True,
            seconds=round(time.perf_counter() - started, 3),
        )
    conversation.events.append(event)
    shown = (event.structured or {}).get("cite_by")
    if name == "search_docs" and shown and shown != conversation.cite:
        raise InvalidInput(
            f"The MCP server shows passages by {shown}, but this run compares citing by {conversation.cite}.",
            hint=f"Start the server with `schemasift mcp --cite {conversation.cite} ...`, or run with --cite {shown}.",
        )
    return event


def _name(server: StdioServerParameters | str) -> str:
    """The server as a transcript names it: its URL, or its stdio command line."""
    return server if isinstance(server, str) else " ".join([server.command, *server.args])


def _spec(tool: Any) -> dict[str, Any]:
    schema = dict(tool.input_schema or {})
    return function_spec(
        tool.name, tool.description or "", schema.get("properties") or {}, schema.get("required") or []
    )


def _described(config: RunConfig) -> dict[str, Any]:
    return {
        "corpus": config.corpus,
        "model": config.model,
        "pipelines": config.pipelines,
        "cites": config.cites,
        "runs": config.runs,
        "k": config.k,
        "max_turns": config.max_turns,
        "temperature": config.temperature,
        "server": config.mcp_url or "stdio: schemasift mcp",
        **config.extra,
    }
