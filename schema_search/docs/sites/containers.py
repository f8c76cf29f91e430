"""``:::`` containers of VitePress and Docusaurus (admonitions, details, code groups) as their text.

``::: tip Title`` / ``:::tip[Title]`` ... ``:::`` shows its title and its content; the
marker lines are layout. The written title is kept as a line of text; a default title
(``TIP``, ``NOTE``) is the theme's, and left out. Code is never touched.
"""

from __future__ import annotations

import re

from ..readers.fences import split_fenced

_OPEN = re.compile(
    r"^(?P<indent>[ \t]*):{3,}[ \t]*(?P<type>[A-Za-z][\w-]*)"
    r"(?:\[(?P<bracketed>[^\]]*)\]|\{[^}]*title=[\"'](?P<attribute>[^\"']*)[\"'][^}]*\})?"
    r"[ \t]*(?P<title>[^{]*?)[ \t]*(?:\{[^}]*\})?[ \t]*$"
)
_CLOSE = re.compile(r"^[ \t]*:{3,}[ \t]*$")


def unwrap_containers(text: str) -> str:
    """``text`` with container markers replaced by their written title (or nothing).

    >>> print(unwrap_containers("::: tip Heads up\\nUse it.\\n:::\\n:::note[Docusaurus title]\\nText.\\n:::\\n"
    ...                         "::: code-group\\n```sh\\n:::\\n```\\n:::\\n"))
    Heads up
    <BLANKLINE>
    Use it.
    <BLANKLINE>
    Docusaurus title
    <BLANKLINE>
    Text.
    <BLANKLINE>
    <BLANKLINE>
    ```sh
    :::
    ```
    <BLANKLINE>
    <BLANKLINE>
    """
    out = []
    for piece, is_code in split_fenced(text):
        if is_code:
            out.append(piece)
            continue
        lines = []
        for line in piece.splitlines(keepends=True):
            bare = line.rstrip("\r\n")
            ending = line[len(bare) :]
            opened = _OPEN.match(bare)
            if opened:
                title = opened.group("bracketed") or opened.group("attribute") or opened.group("title")
                lines.append(f"{opened.group('indent')}{title}{ending}\n" if title else ending or "\n")
            elif _CLOSE.match(bare):
                lines.append(ending or "\n")
            else:
                lines.append(line)
        out.append("".join(lines))
    return "".join(out)
