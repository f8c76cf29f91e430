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
    tool_choice: str | dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """One model turn: its message joins ``messages``; a reply that calls no tool is answered with ``nudge``.

    With ``text_is_final``, a reply of plain text is left as the last message instead
    (the caller takes it as the answer, as most agent frameworks do); only an empty
    reply is nudged. ``tool_choice`` is OpenAI's (``"required"``, or :func:`choose` one
    tool), sent only when given.
    """
    extra = {} if tool_choice is None else {"tool_choice": tool_choice}
    message = assistant_message(complete(model=model, messages=messages, tools=tools, **extra))
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
        calls.append(
            {
                "id": _get(call, "id"),
                "type": "function",
                "function": {"name": _get(function, "name"), "arguments": _get(function, "arguments") or "{}"},
            }
        )
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


def choose(name: str) -> dict[str, Any]:
    """The ``tool_choice`` that makes the model call tool ``name`` next."""
    return {"type": "function", "function": {"name": name}}


def repeated(earlier: list[dict[str, Any]], call: dict[str, Any]) -> bool:
    """Whether an assistant turn in ``earlier`` (the messages before this turn) made the same call.

    The same tool with the same arguments; IDs are ignored (the embedded model numbers
    each turn's calls from 0). A model that repeats a call is stuck (small models do it
    until the turns run out): the loop answers briefly and asks for the final tool.

    >>> first = {"id": "call_0", "function": {"name": "f", "arguments": '{"q": "x"}'}}
    >>> again = {"id": "call_0", "function": {"name": "f", "arguments": '{"q":"x"}'}}
    >>> repeated([{"role": "assistant", "content": "", "tool_calls": [first]}], again)
    True
    >>> repeated([{"role": "assistant", "content": "", "tool_calls": [first]}], {"id": "call_0", "function": {"name": "f", "arguments": '{"q": "y"}'}})
    False
    """
    key = _call_key(call)
    return any(
        _call_key(made) == key
        for message in earlier
        if message.get("role") == "assistant"
        for made in message.get("tool_calls") or ()
    )


def _call_key(call: dict[str, Any]) -> tuple[str, str]:
    arguments = tool_arguments(call)
    return call["function"]["name"], json.dumps(arguments, sort_keys=True) if isinstance(arguments, dict) else arguments


def tool_reply(call: dict[str, Any], content: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call["id"], "name": call["function"]["name"], "content": content}
