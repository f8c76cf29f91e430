"""Where a Markdown text is code: fenced blocks and inline code spans, kept apart from the prose.

Rewrites of the prose (MDX markup, MkDocs macros, autorefs) must leave code as the
author wrote it: ``{{ x }}`` in a Jinja example, ``d[a][b]`` in Python, ``<Tabs>`` in a
JSX snippet are the point of the page there.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_OPEN = re.compile(r"^([ \t]*)(`{3,}|~{3,})(.*)$")
# A code span: a run of backticks, then the shortest text up to the same run, never across a blank line.
_SPAN = re.compile(r"(?<!`)(`+)(?!`)((?:[^\n]|\n(?![ \t]*\n))+?)(?<!`)\1(?!`)")


def split_fenced(text: str) -> list[tuple[str, bool]]:
    """``text`` as ``(piece, is_code)`` pieces in order; joined, they give ``text`` back.

    A fence may be indented any amount (inside an admonition or a JSX element); it
    closes at a line of at least as many of its characters, or at the end.

    >>> split_fenced("Intro\\n  ```py\\n  x = 1\\n  ```\\nAfter ```inline```\\n")
    [('Intro\\n', False), ('  ```py\\n  x = 1\\n  ```\\n', True), ('After ```inline```\\n', False)]
    """
    pieces: list[tuple[str, bool]] = []
    prose: list[str] = []
    code: list[str] = []
    fence = ""
    for line in text.splitlines(keepends=True):
        if fence:
            code.append(line)
            stripped = line.strip()
            if stripped.startswith(fence) and set(stripped) == {fence[0]}:
                pieces.append(("".join(code), True))
                code, fence = [], ""
            continue
        opened = _OPEN.match(line.rstrip("\r\n"))
        if opened and not (opened.group(2)[0] == "`" and "`" in opened.group(3)):
            if prose:
                pieces.append(("".join(prose), False))
                prose = []
            fence, code = opened.group(2), [line]
            continue
        prose.append(line)
    if code:
        pieces.append(("".join(code), True))
    if prose:
        pieces.append(("".join(prose), False))
    return pieces


def map_prose(text: str, rewrite: Callable[[str], str]) -> str:
    """``text`` with ``rewrite`` applied to its prose: fenced code and code spans come back untouched.

    >>> map_prose("Use {{ x }} and `{{ y }}`.\\n```\\n{{ z }}\\n```\\n", lambda s: s.replace("{{ x }}", "1"))
    'Use 1 and `{{ y }}`.\\n```\\n{{ z }}\\n```\\n'
    """
    return "".join(
        piece if is_code else _rewrite_outside_spans(piece, rewrite) for piece, is_code in split_fenced(text)
    )


def _rewrite_outside_spans(prose: str, rewrite: Callable[[str], str]) -> str:
    spans: list[str] = []

    def hide(match: re.Match) -> str:
        spans.append(match.group(0))
        return f"\x00{len(spans) - 1}\x00"

    rewritten = rewrite(_SPAN.sub(hide, prose))
    return re.sub("\x00(\\d+)\x00", lambda m: spans[int(m.group(1))], rewritten)


def dedent_fence(code: str) -> str:
    """A fenced block moved to the left margin by its opening fence's indentation (CommonMark's rule
    for the lines inside), so a reader that takes fences at up to 3 spaces sees it as code.

    >>> dedent_fence("    ```py\\n    x = 1\\n      y\\n    ```\\n")
    '```py\\nx = 1\\n  y\\n```\\n'
    """
    lines = code.splitlines(keepends=True)
    indent = len(lines[0]) - len(lines[0].lstrip(" \t")) if lines else 0
    return "".join(line[min(indent, len(line) - len(line.lstrip(" \t"))) :] for line in lines)
