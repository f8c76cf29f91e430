"""Tool calling for chat models that have none: the tools in the prompt, the calls parsed from the reply.

The embedded SmolLM2's chat template knows only ``system``/``user``/``assistant``
turns. To run the same tool-calling loops as a hosted model, the tools are listed in
the system turn with the ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``
convention (the one SmolLM2's instruct data and most open models use), earlier calls
and results are written back as plain turns, and a reply is read leniently: a
``<tool_call>`` block, or a bare JSON object naming a tool, is a call; anything else
is the answer. When the caller requires a call (``tool_choice``), :func:`call_schema`
says what a call may be, and the embedded model's grammar holds it to that. All
functions are pure.
"""

from __future__ import annotations

import json
import re
from typing import Any

_BLOCK = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.S)


def tools_prompt(tools: list[dict[str, Any]]) -> str:
    """The system-turn text that offers ``tools`` (OpenAI function specs).

    >>> spec = {"type": "function", "function": {"name": "search_docs", "description": "Find passages.",
    ...         "parameters": {"properties": {"question": {"type": "string"}}, "required": ["question"]}}}
    >>> print(tools_prompt([spec]).splitlines()[-1])
    - search_docs(question: string): Find passages.
    """
    lines = []
    for spec in tools:
        function = spec.get("function", spec)
        properties = (function.get("parameters") or {}).get("properties") or {}
        required = set((function.get("parameters") or {}).get("required") or ())
        arguments = ", ".join(
            f"{name}{'' if name in required else '?'}: {schema.get('type', 'any')}"
            for name, schema in properties.items()
        )
        lines.append(f"- {function['name']}({arguments}): {function.get('description', '').strip()}")
    return "\n".join(
        [
            "You can call tools. To call one, reply with nothing but",
            '<tool_call>{"name": TOOL NAME, "arguments": THE ARGUMENTS AS A JSON OBJECT}</tool_call>',
            "and wait for its result. When you have what you need, reply with your answer as plain text.",
            "Tools:",
            *lines,
        ]
    )


def plain_messages(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> list[dict[str, str]]:
    """``messages`` with tool calls and tool results as plain turns, and the tools offered in the system turn.

    >>> calls = [{"id": "c1", "function": {"name": "f", "arguments": '{"x": 1}'}}]
    >>> plain_messages([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "", "tool_calls": calls},
    ...                 {"role": "tool", "tool_call_id": "c1", "name": "f", "content": "42"}], None)[1:]
    [{'role': 'assistant', 'content': '<tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>'}, {'role': 'user', 'content': 'Result of f:\\n42'}]
    """
    plain: list[dict[str, str]] = []
    for message in messages:
        role, content = message.get("role", "user"), _text(message.get("content"))
        if role == "assistant" and message.get("tool_calls"):
            blocks = [_call_text(call) for call in message["tool_calls"]]
            plain.append({"role": "assistant", "content": "\n".join([content, *blocks]).strip()})
        elif role == "tool":
            plain.append({"role": "user", "content": f"Result of {message.get('name') or 'the tool'}:\n{content}"})
        else:
            plain.append({"role": role if role in ("system", "user", "assistant") else "user", "content": content})
    if tools:
        offer = tools_prompt(tools)
        if plain and plain[0]["role"] == "system":
            plain[0] = {"role": "system", "content": f"{plain[0]['content']}\n\n{offer}"}
        else:
            plain.insert(0, {"role": "system", "content": offer})
        # Small models follow a shown exchange where they ignore a described one.
        plain[1:1] = demonstration(tools)
    return plain


def demonstration(tools: list[dict[str, Any]]) -> list[dict[str, str]]:
    """One example exchange calling the first tool, with a topic no corpus is about.

    >>> spec = {"function": {"name": "search", "parameters": {"properties": {"q": {"type": "string"}}, "required": ["q"]}}}
    >>> demonstration([spec])[1]["content"]
    '<tool_call>{"name": "search", "arguments": {"q": "configure logging"}}</tool_call>'
    """
    function = tools[0].get("function", tools[0])
    parameters = function.get("parameters") or {}
    required = [
        n
        for n in parameters.get("required") or ()
        if (parameters.get("properties") or {}).get(n, {}).get("type") == "string"
    ]
    call = {"name": function["name"], "arguments": {name: "configure logging" for name in required[:1]}}
    return [
        {"role": "user", "content": "(example) How do I configure logging?"},
        {"role": "assistant", "content": f"<tool_call>{json.dumps(call)}</tool_call>"},
        {"role": "user", "content": f"Result of {function['name']}:\n(example result)\n\nNow the real question."},
    ]


def call_schema(tools: list[dict[str, Any]], tool_choice: Any) -> dict[str, Any] | None:
    """The JSON schema a reply must match when ``tool_choice`` requires a call; None when text is allowed.

    ``"required"`` allows a call of any offered tool, ``{"type": "function", "function":
    {"name": ...}}`` a call of that one; ``"auto"``, ``"none"`` or nothing leave the reply
    free (a plain-text reply is then the answer). Arguments take only the declared
    properties, the required ones always.

    >>> spec = {"type": "function", "function": {"name": "f", "parameters": {"type": "object",
    ...         "properties": {"q": {"type": "string"}}, "required": ["q"]}}}
    >>> call_schema([spec], "auto") is None
    True
    >>> call_schema([spec], {"type": "function", "function": {"name": "f"}})["anyOf"][0]["properties"]["name"]
    {'const': 'f'}
    >>> call_schema([spec], "required")["anyOf"][0]["properties"]["arguments"]["additionalProperties"]
    False
    """
    named = tool_choice.get("function", {}).get("name") if isinstance(tool_choice, dict) else None
    if tool_choice != "required" and named is None:
        return None
    functions = [spec.get("function", spec) for spec in tools]
    chosen = [f for f in functions if f.get("name") == named] or functions
    alternatives = []
    for function in chosen:
        parameters = function.get("parameters") or {}
        arguments = {
            "type": "object",
            "properties": parameters.get("properties") or {},
            "required": list(parameters.get("required") or ()),
            "additionalProperties": False,
        }
        alternatives.append(
            {
                "type": "object",
                "properties": {"name": {"const": function["name"]}, "arguments": arguments},
                "required": ["name", "arguments"],
                "additionalProperties": False,
            }
        )
    return {"anyOf": alternatives}


def parse_calls(text: str, tools: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """The reply's text outside tool calls, and the calls to tools that were offered.

    A call whose arguments are not JSON keeps them as a string: the tool loop then
    tells the model what was wrong, as it would a hosted model's malformed call.

    >>> spec = [{"type": "function", "function": {"name": "search_docs"}}]
    >>> parse_calls('<tool_call>{"name": "search_docs", "arguments": {"question": "cors"}}</tool_call>', spec)
    ('', [{'name': 'search_docs', 'arguments': {'question': 'cors'}}])
    >>> parse_calls('{"name": "search_docs", "arguments": {"question": "cors"}}', spec)[1][0]["name"]
    'search_docs'
    >>> parse_calls("Use CORSMiddleware [S3fa21c].", spec)
    ('Use CORSMiddleware [S3fa21c].', [])
    """
    names = {spec.get("function", spec).get("name") for spec in tools}
    calls, rest = [], text
    for match in _BLOCK.finditer(text):
        call = _call(match.group(1), names) or _broken_call(match.group(1), names)
        if call is not None:
            calls.append(call)
            rest = rest.replace(match.group(0), "")
    if not calls:
        stripped = text.strip().removeprefix("```json").removeprefix("```").removesuffix("```").strip()
        call = _call(stripped, names) if stripped.startswith("{") else None
        if call is not None:
            calls, rest = [call], ""
    return rest.strip(), calls


def _call(raw: str, names: set[str | None]) -> dict[str, Any] | None:
    try:
        value, _ = json.JSONDecoder().raw_decode(raw.strip())
    except json.JSONDecodeError:
        return None
    if not isinstance(value, dict) or value.get("name") not in names:
        return None
    arguments = value.get("arguments", value.get("parameters", {}))
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError:
            arguments = {}
    return {"name": value["name"], "arguments": arguments if isinstance(arguments, dict) else {}}


def _broken_call(raw: str, names: set[str | None]) -> dict[str, Any] | None:
    """A call to a known tool whose JSON does not parse: kept, so the loop answers with the error.

    >>> _broken_call('{"name": "search_docs", "arguments": {...}}', {"search_docs"})
    {'name': 'search_docs', 'arguments': '{"name": "search_docs", "arguments": {...}}'}
    """
    name = re.search(r'"name"\s*:\s*"([^"]+)"', raw)
    if name is None or name.group(1) not in names:
        return None
    return {"name": name.group(1), "arguments": raw.strip()}


def _call_text(call: dict[str, Any]) -> str:
    function = call.get("function", {})
    raw = function.get("arguments") or "{}"
    try:
        arguments = json.loads(raw) if isinstance(raw, str) else raw
    except json.JSONDecodeError:
        arguments = raw
    return "<tool_call>" + json.dumps({"name": function.get("name"), "arguments": arguments}) + "</tool_call>"


def _text(content: Any) -> str:
    """Message content as text; OpenAI-style content parts are joined."""
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return "" if content is None else str(content)
