"""Tags in tool descriptions that the code acts on, rather than hoping the model does.

A description may carry lines (or sentences) tagged

- ``[required] name: why`` — the argument ``name`` must be given and not blank: the
  adapter makes it required in the input schema and :func:`missing` refuses a call without it;
- ``[confirm] ... `argument` ...`` — the tool's action happens only when the backticked
  argument (e.g. `approval`) is given: :func:`unconfirmed` says why not, and the tool
  then does its safe part only (``execute_sql`` returns the checklist);
- ``[notice] ...`` — what every client should know (caps, truncation): the server puts
  these into its instructions.

>>> tags = parse("Run SQL.\\n[required] question: the user's words.\\n[confirm] Runs only with `approval` set.")
>>> tags.required, tags.confirm_arguments, tags.text
(['question'], ['approval'], 'Run SQL.')
>>> unconfirmed(tags, {"question": "revenue?"})
'Not confirmed: Runs only with `approval` set.'
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, Field

TAG = re.compile(r"\[(required|confirm|notice)\]\s*(.*?)\s*(?=\[(?:required|confirm|notice)\]|\n|\Z)", re.DOTALL)
_ARGUMENT = re.compile(r"^`?([A-Za-z_][A-Za-z0-9_]*)`?\s*:")
_BACKTICKED = re.compile(r"`([A-Za-z_][A-Za-z0-9_]*)`")


class ToolTags(BaseModel):
    """The tags of one description, and its text without them."""

    required: list[str] = Field(default_factory=list, description="Arguments that must be given, not blank.")
    required_why: dict[str, str] = Field(default_factory=dict, description="Per required argument, what it is for.")
    confirm: list[str] = Field(default_factory=list, description="What must be confirmed before the action runs.")
    confirm_arguments: list[str] = Field(default_factory=list, description="The arguments that carry a confirmation.")
    notice: list[str] = Field(default_factory=list, description="What every client should be told.")
    text: str = Field(description="The description without its tagged parts.")


def parse(description: str) -> ToolTags:
    """The tags of ``description``.

    Raises:
        ValueError: a ``[required]`` tag does not start with an argument name, or a
            ``[confirm]`` tag names no backticked argument (descriptions are code: fail early).
    """
    tags = ToolTags(text=TAG.sub("", description).strip())
    tags.text = re.sub(r"[ \t]*\n(?:[ \t]*\n)+", "\n", tags.text)
    for kind, body in TAG.findall(description):
        body = " ".join(body.split())
        if kind == "required":
            match = _ARGUMENT.match(body)
            if not match:
                raise ValueError(f"A [required] tag must start with the argument's name and a colon: {body!r}.")
            tags.required.append(match[1])
            tags.required_why[match[1]] = body[match.end() :].strip()
        elif kind == "confirm":
            named = _BACKTICKED.findall(body)
            if not named:
                raise ValueError(f"A [confirm] tag must name the argument that confirms, in backticks: {body!r}.")
            tags.confirm.append(body)
            tags.confirm_arguments += [n for n in named[:1] if n not in tags.confirm_arguments]
        else:
            tags.notice.append(body)
    return tags


def missing(tags: ToolTags, arguments: Mapping[str, Any]) -> str | None:
    """Why a call lacks a ``[required]`` argument; ``None`` when it has them all.

    >>> missing(parse("[required] question: the user's words."), {"question": "  "})
    "The argument `question` is required: the user's words."
    """
    for name in tags.required:
        value = arguments.get(name)
        if value is None or (isinstance(value, str) and not value.strip()):
            why = tags.required_why.get(name)
            return f"The argument `{name}` is required" + (f": {why}" if why else ".")
    return None


def unconfirmed(tags: ToolTags, arguments: Mapping[str, Any]) -> str | None:
    """Why a call is not confirmed (a ``[confirm]`` argument is missing); ``None`` when it is."""
    for body, name in zip(tags.confirm, tags.confirm_arguments):
        value = arguments.get(name)
        if value is None or (isinstance(value, str) and not value.strip()):
            return f"Not confirmed: {body}"
    return None


def with_required(schema: dict[str, Any], tags: ToolTags) -> dict[str, Any]:
    """A JSON schema of the tool's input with the ``[required]`` arguments required (and non-empty strings).

    >>> with_required({"type": "object", "properties": {"question": {"type": "string"}}}, parse("[required] question: q"))
    {'type': 'object', 'properties': {'question': {'type': 'string', 'minLength': 1}}, 'required': ['question']}
    """
    out = {**schema, "properties": {k: dict(v) for k, v in (schema.get("properties") or {}).items()}}
    for name in tags.required:
        prop = out["properties"].get(name)
        if prop is None:
            raise ValueError(f"[required] names {name!r}, which is not an argument of the tool.")
        if prop.get("type") == "string":
            prop.setdefault("minLength", 1)
    out["required"] = [*schema.get("required", []), *(n for n in tags.required if n not in schema.get("required", []))]
    return out
