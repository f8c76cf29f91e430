"""What an MCP client sends that no tool can take: refused before any tool sees it, and
answered on stdio even when the SDK cannot parse it.

A string holding a lone UTF-16 surrogate (``"\\ud800"`` is valid JSON, and Python
decodes it to a ``str`` that cannot be written back out), or values nested past
:data:`MAX_DEPTH`, become a tool error that says why. Over stdio, :func:`serve_stdio`
also answers a request whose line the SDK cannot parse at all, which it would drop,
leaving the client waiting.

An argument the input schema refuses (``k: "abc"``, ``k: 1000``, a missing question) is
answered by :func:`argument_error` in words: which argument, what was wrong with it, and
what it takes; not the validator's dump that names an internal model.
"""

from __future__ import annotations

import json
import re
from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp.types import PARSE_ERROR, CallToolResult, ErrorData, JSONRPCError, JSONRPCResponse, TextContent
from pydantic import ValidationError

from ..json_body import MAX_DEPTH  # the same limit as HTTP bodies: the same tools behind both

_SURROGATE_HINT = (
    "half of a UTF-16 surrogate pair, which is not text: write the whole character "
    "(escaped, a pair like \\ud83d\\ude00) or leave it out."
)


def unreadable_arguments(tool: str, arguments: Any) -> str | None:
    r"""Why a tool cannot take ``arguments`` (a lone surrogate, nesting past MAX_DEPTH), else None.

    >>> unreadable_arguments("search_docs", {"question": "caf\u00e9 \U0001F600", "k": 3}) is None
    True
    >>> unreadable_arguments("search_docs", {"question": "refund \ud800"})
    'The argument question holds "\\ud800", half of a UTF-16 surrogate pair, which is not text: write the whole character (escaped, a pair like \\ud83d\\ude00) or leave it out.'
    """
    why = _unreadable(tool, "The tool name", 0)
    if why or not isinstance(arguments, dict):
        return why
    for key, value in arguments.items():
        why = _unreadable(key, "An argument name", 1) or _unreadable(value, f"The argument {_shown(key)}", 1)
        if why:
            return why
    return None


def _unreadable(value: Any, where: str, depth: int) -> str | None:
    """Walked without recursion: a value too deep for Python's stack is what it looks for."""
    stack = [(value, depth)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError as error:
                return f'{where} holds "\\u{ord(item[error.start]):04x}", {_SURROGATE_HINT}'
        elif isinstance(item, (dict, list)):
            if level >= MAX_DEPTH:
                return (
                    f"{where} nests more than {MAX_DEPTH} levels deep; no tool takes more than a few "
                    "(see the tool's input schema)."
                )
            children = [*item.keys(), *item.values()] if isinstance(item, dict) else item
            stack.extend((child, level + 1) for child in children)
    return None


def _shown(name: str) -> str:
    """A name as it can stand in a message: a surrogate as its escape, at most 60 characters."""
    shown = name.encode("utf-8", "backslashreplace").decode("utf-8")
    return shown if len(shown) <= 60 else shown[:57] + "..."


def serve_stdio(server: MCPServer) -> None:
    """Serve on stdin and stdout, as ``server.run()`` does, answering the requests the SDK cannot parse.

    The SDK drops a line it cannot parse: a lone surrogate (its parser refuses
    ``"\\ud800"``, which Python's accepts) or nesting past its parser's limit. The
    client then waits for an answer that never comes. This answers it, a tool call
    as a tool error, whenever the request's id can be read.
    """
    anyio.run(_serve_stdio, server)


async def _serve_stdio(server: MCPServer) -> None:
    # What MCPServer.run_stdio_async runs, with one stream between the transport and the server.
    lowlevel = server._lowlevel_server
    async with stdio_server() as (incoming, outgoing):
        forward, read = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(_answer_unparsed, incoming, forward, outgoing)
            await lowlevel.run(read, outgoing, lowlevel.create_initialization_options())
            tasks.cancel_scope.cancel()


async def _answer_unparsed(incoming, forward, outgoing) -> None:
    async with forward:
        async for item in incoming:
            reply = unparsed_reply(item) if isinstance(item, ValidationError) else None
            if reply is None:
                await forward.send(item)  # the SDK's own handling: a message, or an error it logs
            else:
                await outgoing.send(SessionMessage(reply))


def unparsed_reply(error: ValidationError) -> JSONRPCResponse | JSONRPCError | None:
    """The answer to a line the SDK could not parse as JSON, when its request id can be read."""
    problems = error.errors(include_url=False)
    if not problems or problems[0]["type"] != "json_invalid" or not isinstance(problems[0].get("input"), str):
        return None
    line = problems[0]["input"]
    envelope, deepest = _envelope(line)
    request_id = envelope.get("id") if envelope else None
    if isinstance(request_id, bool) or not isinstance(request_id, (int, str)) or _unreadable(request_id, "", 0):
        return None  # a notification, or no id we could answer to
    if deepest > MAX_DEPTH:
        why = f"The request nests {deepest:,} levels deep; no tool takes more than a few (the limit is {MAX_DEPTH})."
    else:
        try:
            message = json.loads(line)
        except ValueError:
            message = None
        params = message.get("params") if isinstance(message, dict) else None
        arguments = params.get("arguments") if isinstance(params, dict) else None
        why = (
            (unreadable_arguments(str(params.get("name", "")), arguments) if isinstance(params, dict) else None)
            or (_unreadable(message, "The request", 0) if message is not None else None)
            or f"The request is not valid JSON ({problems[0]['msg']})."
        )
    if envelope.get("method") == "tools/call":
        result = CallToolResult(content=[TextContent(type="text", text=why)], is_error=True)
        return JSONRPCResponse(
            jsonrpc="2.0", id=request_id, result=result.model_dump(by_alias=True, mode="json", exclude_none=True)
        )
    return JSONRPCError(jsonrpc="2.0", id=request_id, error=ErrorData(code=PARSE_ERROR, message=why))


_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[{}\[\]]|[^"{}\[\]]+', re.DOTALL)


def _envelope(line: str) -> tuple[dict[str, Any] | None, int]:
    r"""A JSON text's top-level object with every nested value as null (None if unreadable), and how deep it nests.

    Linear, and safe at any depth: only the top level is parsed.

    >>> _envelope('{"id": 7, "method": "tools/call", "params": {"a": [["[", "\ud800"]]]}}')
    ({'id': 7, 'method': 'tools/call', 'params': None}, 4)
    """
    kept: list[str] = []
    depth = deepest = 0
    for token in _TOKEN.findall(line):
        if token in ("{", "["):
            depth += 1
            deepest = max(deepest, depth)
            if depth <= 2:
                kept.append(token if depth == 1 else "null")
        elif token in ("}", "]"):
            if depth == 1:
                kept.append(token)
            depth -= 1
        elif depth <= 1:
            kept.append(token)
    try:
        top = json.loads("".join(kept))
    except ValueError:
        return None, deepest
    return (top if isinstance(top, dict) else None), deepest


def argument_error(tool: str, error: ValidationError, schema: dict[str, Any]) -> str:
    """What is wrong with a call's arguments, argument by argument, and what each takes (from ``schema``).

    >>> from pydantic import BaseModel, Field
    >>> class Arguments(BaseModel):
    ...     question: str
    ...     k: int | None = Field(None, ge=1, le=100, description="How many tables at most.")
    >>> try:
    ...     Arguments.model_validate({"k": "abc"})
    ... except ValidationError as error:
    ...     print(argument_error("search_tables", error, Arguments.model_json_schema()))
    search_tables: the argument question is missing; it takes text. The argument k is not accepted ("abc": input should be a valid integer, unable to parse string as an integer); it takes a whole number from 1 to 100, or null. k: How many tables at most.
    """
    properties = schema.get("properties", {})
    parts = []
    for problem in error.errors(include_url=False):
        name = str(problem["loc"][0]) if problem["loc"] else ""
        if name not in properties:
            parts.append(f"The arguments are not accepted: {_lower(problem['msg'])}.")
            continue
        prop = properties[name]
        described = f" {name}: {prop['description'].rstrip('.')}." if prop.get("description") else ""
        if problem["type"] == "missing":
            parts.append(f"The argument {name} is missing; it takes {_accepted(prop)}.{described}")
        else:
            got = _value(problem.get("input"))
            parts.append(
                f"The argument {name} is not accepted ({got}: {_lower(problem['msg'])}); "
                f"it takes {_accepted(prop)}.{described}"
            )
    text = " ".join(dict.fromkeys(parts))
    return f"{tool}: {text[0].lower()}{text[1:]}" if text else f"{tool}: the arguments are not accepted."


def _accepted(prop: dict[str, Any]) -> str:
    """What a JSON-schema property accepts, in words.

    >>> _accepted({"anyOf": [{"type": "integer", "minimum": 1, "maximum": 100}, {"type": "null"}]})
    'a whole number from 1 to 100, or null'
    >>> _accepted({"enum": ["ids", "urls"], "type": "string"}), _accepted({"type": "object"})
    ("one of 'ids', 'urls'", 'a JSON object')
    """
    options = prop.get("anyOf") or [prop]
    kinds = [_kind(option) for option in options if option.get("type") != "null"]
    nullable = any(option.get("type") == "null" for option in options)
    return " or ".join(dict.fromkeys(k for k in kinds if k)) + (", or null" if nullable else "") or "a value"


def _kind(option: dict[str, Any]) -> str:
    if "enum" in option:
        return "one of " + ", ".join(repr(v) for v in option["enum"])
    kind = option.get("type")
    if kind in ("integer", "number"):
        noun = "a whole number" if kind == "integer" else "a number"
        low, high = option.get("minimum"), option.get("maximum")
        if low is not None and high is not None:
            return f"{noun} from {low} to {high}"
        if low is not None or high is not None:
            return f"{noun} of at {'least' if low is not None else 'most'} {low if low is not None else high}"
        return noun
    return {"string": "text", "boolean": "true or false", "object": "a JSON object", "array": "a list"}.get(kind, "")


def _value(value: Any) -> str:
    """A refused value as it can stand in a message: JSON, at most 60 characters."""
    try:
        shown = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        shown = repr(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."


def _lower(message: str) -> str:
    return message[:1].lower() + message[1:]
