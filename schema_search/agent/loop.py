"""The pieces of a tool-calling loop every reference agent shares: tool specs, messages, replies.

Responses may be litellm objects or OpenAI-shaped dicts (what scripted test models return).
"""

from __future__ import annotations

import json
from typing import Any


def function_spec(name: str, description: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": required},
        },
    }


def next_calls(
    complete: Any,
    model: str,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]],
    nudge: str,
    text_is_final: bool = False,
) -> list[dict[str, Any]]:
    """One model turn: its message joins ``messages``; a reply that calls no tool is answered with ``nudge``.

    With ``text_is_final``, a reply of plain text is left as the last message instead
    (the caller takes it as the answer, as most agent frameworks do); only an empty
    reply is nudged.
    """
    message = assistant_message(complete(model=model, messages=messages, tools=tools))
    messages.append(message)
    calls = message.get("tool_calls") or []
    if not calls and not (text_is_final and message["content"].strip()):
        messages.append({"role": "user", "content": nudge})
    return calls


def assistant_message(response: Any) -> dict[str, Any]:
    """The assistant message of a litellm (or OpenAI-shaped dict) response, as a plain dict."""
    choice = _get(response, "choices")[0]
    message = _get(choice, "message")
    calls = []
    for call in _get(message, "tool_calls") or []:
        function = _get(call, "function")
        calls.append({
            "id": _get(call, "id"),
            "type": "function",
            "function": {"name": _get(function, "name"), "arguments": _get(function, "arguments") or "{}"},
        })  # fmt: skip
    plain: dict[str, Any] = {"role": "assistant", "content": _get(message, "content") or ""}
    if calls:
        plain["tool_calls"] = calls
    return plain


def _get(value: Any, key: str) -> Any:
    return value.get(key) if isinstance(value, dict) else getattr(value, key, None)


def tool_arguments(call: dict[str, Any]) -> dict[str, Any] | str:
    """The call's arguments, or the error text to send back when they are not a JSON object."""
    raw = call["function"]["arguments"]
    try:
        arguments = json.loads(raw) if isinstance(raw, str) else raw
    except json.JSONDecodeError as error:
        return f"Error: the arguments are not valid JSON ({error}); send a JSON object."
    return arguments if isinstance(arguments, dict) else "Error: the arguments must be a JSON object."


def tool_reply(call: dict[str, Any], content: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call["id"], "name": call["function"]["name"], "content": content}
