"""MkDocs page syntax resolved to the text the built page shows, before the Markdown reader sees it.

Each step is a function of the page's text, in the order MkDocs' own processors run
(snippets are included first, so what they bring in goes through the rest):

* :func:`include_snippets`: ``--8<-- "file.md"`` (pymdownx.snippets) replaced by the file.
* :func:`drop_stubs`: ``::: package.Class`` (mkdocstrings) and its options: the built page
  holds text generated from the code, which the folder does not.
* :func:`unwrap_blocks`: ``!!! tip "Title"``, ``??? note``, ``=== "Tab"`` and ``/// type | Title``
  keep their title as a line of text and their content, moved back to the margin (indented
  4 spaces it would read as code).
* :func:`drop_macros`: ``{{ version }}`` becomes the value ``extra:`` gives it, other
  ``{{ ... }}`` / ``{% ... %}`` / ``{# ... #}`` go (mkdocs-macros and hooks fill them at build).
* :func:`plain_autorefs`: ``[Model][pydantic.BaseModel]`` (mkdocs-autorefs) becomes ``Model``.
* :func:`drop_emoji`: with pymdownx.emoji on, ``:rocket:`` / ``:material-help:`` shortcodes
  (an image on the page, no text) go.

Code (fences and spans) is never rewritten.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from ..readers.fences import map_prose

# --- snippets ---------------------------------------------------------------------

_SNIPPET_LINE = re.compile(
    r"^(?P<space>[ \t]*)(?P<escape>;*)-+8<-+[ \t]+(?P<quote>[\"'])(?P<name>.+?)(?P=quote)[ \t]*$"
)
_SNIPPET_BLOCK = re.compile(r"^(?P<space>[ \t]*)(?P<escape>;*)-+8<-+[ \t]*$")
_SECTION_MARK = re.compile(r"^\s*[^\n]*?-+8<-+\s*\[(?:start|end):[\w-]+\]\s*[^\n]*$")
_LINES = re.compile(r"^(?P<name>.+?)(?::(?P<start>-?\d*)(?::(?P<end>-?\d*))?)?$")
_SECTION = re.compile(r"^(?P<name>.+?):(?P<section>[A-Za-z_][\w-]*)$")
MAX_SNIPPET_DEPTH = 8


def include_snippets(text: str, find: Callable[[str], str | None], depth: int = 0) -> str:
    """``text`` with its ``--8<--`` lines and blocks replaced by what ``find(name)`` gives
    (None: a missing file, dropped, as pymdownx does without ``check_paths``).

    Line ranges (``file.md:2:3``) and named sections (``file.md:usage``, between
    ``--8<-- [start:usage]`` and ``[end:usage]`` markers) are cut as pymdownx cuts them; a
    line written ``;--8<--`` is kept, less its ``;``.

    >>> files = {"note.md": "a\\n--8<-- [start:mid]\\nb\\n--8<-- [end:mid]\\nc", "abbr.md": "*[HTML]: markup"}
    >>> include_snippets('Intro\\n  --8<-- "note.md:mid"\\n--8<--\\nnote.md:1:1\\nabbr.md\\n--8<--\\n;--8<-- "x"', files.get)
    'Intro\\n  b\\na\\n*[HTML]: markup\\n--8<-- "x"'
    """
    out: list[str] = []
    block: list[str] | None = None
    for line in text.split("\n"):
        if block is not None:
            if _SNIPPET_BLOCK.match(line):
                for name in block:
                    out.extend(_snippet(name, "", find, depth))
                block = None
            elif line.strip() and not line.strip().startswith(";"):
                block.append(line.strip())
            continue
        single = _SNIPPET_LINE.match(line)
        opened = None if single else _SNIPPET_BLOCK.match(line)
        match = single or opened
        if match and match.group("escape"):
            out.append(match.group("space") + line.strip()[len(match.group("escape")) :])
        elif single:
            out.extend(_snippet(single.group("name"), single.group("space"), find, depth))
        elif opened:
            block = []
        else:
            out.append(line)
    return "\n".join(out)


def _snippet(reference: str, space: str, find: Callable[[str], str | None], depth: int) -> list[str]:
    if depth >= MAX_SNIPPET_DEPTH:
        return []
    section = _SECTION.match(reference)
    name, start, end, wanted = reference, None, None, None
    found = find(reference)
    if found is None and section:
        name, wanted = section.group("name"), section.group("section")
        found = find(name)
    if found is None:
        ranged = _LINES.match(reference)
        if ranged and (ranged.group("start") is not None):
            name = ranged.group("name")
            start = int(ranged.group("start")) if ranged.group("start") else None
            end = int(ranged.group("end")) if ranged.group("end") else None
            found = find(name)
    if found is None:
        return []
    lines = found.replace("\r\n", "\n").split("\n")
    if wanted:
        lines = _section(lines, wanted)
    elif start is not None or end is not None:
        lines = lines[(start or 1) - 1 : end]
    lines = [line for line in lines if not _SECTION_MARK.match(line)]
    included = include_snippets("\n".join(lines), find, depth + 1)
    return [space + line if line else line for line in included.split("\n")]


def _section(lines: list[str], name: str) -> list[str]:
    kept, inside = [], False
    for line in lines:
        if re.search(rf"-+8<-+\s*\[start:{re.escape(name)}\]", line):
            inside = True
        elif re.search(rf"-+8<-+\s*\[end:{re.escape(name)}\]", line):
            inside = False
        elif inside:
            kept.append(line)
    return kept


# --- mkdocstrings stubs -------------------------------------------------------------

_STUB = re.compile(r"^(?:#{1,6} *)?::: ?\S")


def drop_stubs(text: str) -> tuple[str, int]:
    """``text`` without ``::: identifier`` lines and the options block under each, and how many there were.

    >>> drop_stubs("Models.\\n\\n::: pydantic.BaseModel\\n    options:\\n        show_root_heading: true\\n\\nAfter.\\n")
    ('Models.\\n\\n\\nAfter.\\n', 1)
    """
    out: list[str] = []
    dropping = False
    stubs = 0
    fence = ""
    for line in text.split("\n"):
        fence = _fence_state(line, fence)
        if not fence and _STUB.match(line):
            dropping, stubs = True, stubs + 1
            continue
        if dropping and line.strip():
            continue
        dropping = False
        out.append(line)
    return "\n".join(out), stubs


def _fence_state(line: str, fence: str) -> str:
    """The fence open after ``line`` ("" for none), given the one open before it."""
    stripped = line.strip()
    if fence:
        return "" if stripped.startswith(fence) and set(stripped) == {fence[0]} else fence
    opened = re.match(r"(`{3,}|~{3,})", stripped)
    if opened and not (opened.group(1)[0] == "`" and "`" in stripped[len(opened.group(1)) :]):
        return opened.group(1)
    return ""


# --- admonitions, details, tabs, blocks ------------------------------------------------

_BLOCK = re.compile(r"^(?P<indent>[ \t]*)(?P<marker>!!!|\?\?\?\+?|===[!+]?)(?:[ \t]+(?P<rest>.*?))?[ \t]*$")
_HEADER = re.compile(r'^(?P<types>[^"]*?)[ \t]*(?:"(?P<title>.*)")?$')
_SLASH_BLOCK = re.compile(r"^(?P<indent>[ \t]*)/{3,}[ \t]*(?P<type>[\w-]+)?[ \t]*(?:\|[ \t]*(?P<title>.*?))?[ \t]*$")
_BLOCK_OPTION = re.compile(r"^[ \t]+[\w-]+:")


def unwrap_blocks(text: str) -> str:
    """Admonitions, collapsible details, content tabs and ``///`` blocks as their title line and content.

    The title is the one written, else the type capitalized (as Python-Markdown's
    admonition shows it), none for ``""``; the content moves back to its block's margin.

    >>> print(unwrap_blocks('!!! tip "Learn more"\\n    See **types**.\\n\\n    ```py\\n    x = 1\\n    ```\\nAfter.\\n'
    ...                     '=== "uv"\\n    uv add x\\n??? note\\n    Folded.\\n/// warning | Careful\\n    type: danger\\nText.\\n///'))
    Learn more
    <BLANKLINE>
    See **types**.
    <BLANKLINE>
    ```py
    x = 1
    ```
    <BLANKLINE>
    After.
    uv
    <BLANKLINE>
    uv add x
    <BLANKLINE>
    Note
    <BLANKLINE>
    Folded.
    <BLANKLINE>
    Careful
    <BLANKLINE>
    Text.
    <BLANKLINE>
    """
    return "\n".join(_unwrap(text.split("\n")))


def _unwrap(lines: list[str]) -> list[str]:
    out: list[str] = []
    index, fence = 0, ""
    while index < len(lines):
        line = lines[index]
        if fence:
            fence = _fence_state(line, fence)
            out.append(line)
            index += 1
            continue
        block = _BLOCK.match(line)
        slash = None if block else _SLASH_BLOCK.match(line)
        if block:
            indent = _width(block.group("indent"))
            body, index = _body(lines, index + 1, indent + 4)
            title = _title(block.group("marker"), block.group("rest") or "")
            out.extend(_emit(block.group("indent"), title, _unwrap(body)))
            continue
        if slash:
            index += 1
            while index < len(lines) and _BLOCK_OPTION.match(lines[index]):
                index += 1  # the block's options ("    type: warning"), not its text
            if slash.group("title"):
                out.extend([slash.group("indent") + slash.group("title"), ""])
            else:
                out.append("")
            continue
        fence = _fence_state(line, fence)
        out.append(line)
        index += 1
    return out


def _body(lines: list[str], start: int, width: int) -> tuple[list[str], int]:
    """The lines indented at least ``width`` from ``start`` (blank lines between them included),
    moved left by ``width``, and the index after them."""
    body: list[str] = []
    index = start
    while index < len(lines):
        line = lines[index].expandtabs(4)
        if line.strip() and _width(line) < width:
            break
        if not line.strip():
            ahead = next((later for later in lines[index + 1 :] if later.strip()), None)
            if ahead is None or _width(ahead.expandtabs(4)) < width:
                break
        body.append(line[width:] if line.strip() else "")
        index += 1
    return body, index


def _title(marker: str, rest: str) -> str:
    header = _HEADER.match(rest)
    if header is None:
        return rest
    if header.group("title") is not None:
        return header.group("title")
    if marker.startswith("==="):
        return header.group("types")
    types = header.group("types").split()
    return types[0].capitalize() if types else ""


def _emit(indent: str, title: str, body: list[str]) -> list[str]:
    lines = [indent + title, ""] if title else []
    lines.extend(indent + line if line else "" for line in body)
    lines.append("")
    return lines


def _width(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


# --- macros -------------------------------------------------------------------------

_COMMENT = re.compile(r"\{#.*?#\}", re.S)
_STATEMENT = re.compile(r"\{%-?.*?-?%\}", re.S)
_VARIABLE = re.compile(r"\{\{-?\s*(.*?)\s*-?\}\}", re.S)
_NAME_PATH = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


def drop_macros(text: str, extra: Mapping[str, Any]) -> str:
    """``text`` with its Jinja macros resolved: a plain ``{{ name }}`` (or ``extra.name``,
    ``config.extra.name``) that ``extra:`` gives a scalar for becomes it, any other
    ``{{ ... }}``, ``{% ... %}`` and ``{# ... #}`` is removed. Code is left alone.

    >>> drop_macros("Pydantic {{ version }} {{ extra.site.name }}{% if x %} ok{% endif %} {{ table() }}`{{ kept }}`",
    ...             {"version": "2.11", "site": {"name": "docs"}})
    'Pydantic 2.11 docs ok `{{ kept }}`'
    """

    def value(match: re.Match) -> str:
        name = match.group(1)
        if not _NAME_PATH.fullmatch(name):
            return ""
        found: Any = {"extra": extra, "config": {"extra": extra}, **extra}
        for part in name.split("."):
            found = found.get(part) if isinstance(found, Mapping) else None
        return str(found) if isinstance(found, (str, int, float)) and not isinstance(found, bool) else ""

    def rewrite(prose: str) -> str:
        return _VARIABLE.sub(value, _STATEMENT.sub("", _COMMENT.sub("", prose)))

    return map_prose(text, rewrite)


# --- autorefs -----------------------------------------------------------------------

_AUTOREF = re.compile(r"(?<![\w\]!\\])\[((?:[^\[\]\n]|\\[\[\]])+)\]\[([^\[\]\n]*)\]")


def plain_autorefs(text: str) -> str:
    """``[text][identifier]`` and ``[identifier][]`` cross-references as their text; code is left alone.

    >>> plain_autorefs("A [`BaseModel`][pydantic.BaseModel], [pydantic.Field][] and `d[a][b]` x[i][j].")
    'A `BaseModel`, pydantic.Field and `d[a][b]` x[i][j].'
    """
    return map_prose(text, lambda prose: _AUTOREF.sub(lambda m: m.group(1), prose))


# --- emoji --------------------------------------------------------------------------

_SHORTCODE = re.compile(r"(?<![\w:]):[a-z][\w+-]*:(?![\w:])")


def drop_emoji(text: str) -> str:
    """``text`` without emoji and icon shortcodes, which pymdownx.emoji renders as images; code is left alone.

    >>> drop_emoji("## :material-help: Usage at 10:30:45, `:keep:`, std::vector")
    '##  Usage at 10:30:45, `:keep:`, std::vector'
    """
    return map_prose(text, lambda prose: _SHORTCODE.sub("", prose))
