"""Machine-readable headers at the top of a document: front matter and ``Key: value`` blocks.

Values are copied verbatim, as strings: typing them is the structured index's job.
A key that repeats, or a YAML list, keeps every value in order.
"""

from __future__ import annotations

import re
import tomllib
from email.parser import HeaderParser
from email.policy import compat32
from typing import Any

import yaml

Fields = dict[str, tuple[str, ...]]

_FRONT_MATTER = re.compile(r"\A(?:\ufeff)?(---|\+\+\+)[ \t]*\r?\n(.*?)\r?\n\1[ \t]*(?:\r?\n|\Z)", re.DOTALL)
_HEADER_LINE = re.compile(r"^([A-Za-z][A-Za-z0-9_-]*):(?:[ \t]+(.*))?$")
# A header block names at least this many fields; one "Note: ..." line is prose.
MIN_HEADER_FIELDS = 2


def front_matter(text: str) -> tuple[Fields, str]:
    """YAML (``---``) or TOML (``+++``) front matter, and the text after it.

    >>> front_matter("---\\ntitle: Hi\\ntags: [a, b]\\n---\\n# Body")
    ({'title': ('Hi',), 'tags': ('a', 'b')}, '# Body')

    Raises:
        ValueError: the front matter does not parse (the message says where).
    """
    match = _FRONT_MATTER.match(text)
    if not match:
        return {}, text
    fence, body = match.groups()
    try:
        # BaseLoader keeps every scalar as written ("19.90", "no", "3.10"): typing is the structured index's job.
        data = yaml.load(body, Loader=yaml.BaseLoader) if fence == "---" else tomllib.loads(body)
    except (yaml.YAMLError, tomllib.TOMLDecodeError) as error:
        raise ValueError(f"front matter does not parse: {' '.join(str(error).split())}") from None
    if not isinstance(data, dict):
        return {}, text
    return {str(key): _values(value) for key, value in data.items() if value is not None}, text[match.end() :]


def split_front_matter(text: str) -> tuple[str, str]:
    """The front matter block as written (fences included) and the text after it.

    For a reader that rewrites the body and hands the whole text on.

    >>> split_front_matter("---\\ntitle: Hi\\n---\\n# Body")
    ('---\\ntitle: Hi\\n---\\n', '# Body')
    >>> split_front_matter("# No front matter")
    ('', '# No front matter')
    """
    match = _FRONT_MATTER.match(text)
    return (text[: match.end()], text[match.end() :]) if match else ("", text)


def header_block(text: str) -> tuple[Fields, str]:
    """An RFC 822-style ``Key: value`` block opening the text, read by :mod:`email.parser`.

    The block ends at the first empty line. A line of only spaces continues the value
    above it, as folding allows (a ``License:`` field in a package's ``METADATA``), unless
    prose follows it. Returns no fields, and the text as it was, when the text does not
    open with such a block: every line a field or a continuation, at least
    ``MIN_HEADER_FIELDS`` fields.

    >>> fields, rest = header_block("PEP: 8\\nAuthor: A <a@x>,\\n        B <b@x>\\nAuthor: C\\n\\nBody")
    >>> fields
    {'PEP': ('8',), 'Author': ('A <a@x>, B <b@x>', 'C')}
    >>> rest
    'Body'
    >>> header_block("Name: x\\nLicense: MIT\\n   \\n   Copyright\\nVersion: 1\\n\\nBody")[0]
    {'Name': ('x',), 'License': ('MIT Copyright',), 'Version': ('1',)}
    """
    lines = text.lstrip("\ufeff").split("\n")
    end = _block_end(lines)
    block = [line.rstrip("\r") for line in lines[:end]]
    named = 0
    for line in block:
        if line[:1] in (" ", "\t") and named:
            continue
        if not _HEADER_LINE.match(line):
            return {}, text
        named += 1
    if named < MIN_HEADER_FIELDS:
        return {}, text
    message = HeaderParser(policy=compat32).parsestr("\n".join(block) + "\n\n", headersonly=True)
    fields: dict[str, list[str]] = {}
    for key, value in message.items():
        # Unfolded as a reader sees it: the lines of a value joined by one space.
        fields.setdefault(key, []).append(" ".join(part.strip() for part in str(value).splitlines() if part.strip()))
    return {key: tuple(values) for key, values in fields.items()}, "\n".join(lines[end + 1 :])


def _block_end(lines: list[str]) -> int:
    """Index of the line that ends a header block: the first empty line, or a line of
    spaces that prose (neither a field nor a continuation) follows.

    >>> _block_end(["A: 1", "  ", "  more", "B: 2", "", "x"]), _block_end(["A: 1", "B: 2", "   ", "Prose."])
    (4, 2)
    """
    for number, line in enumerate(lines):
        if not line.rstrip("\r"):
            return number
        if not line.strip():
            following = lines[number + 1] if number + 1 < len(lines) else ""
            prose = following.strip() and following[:1] not in (" ", "\t")
            if prose and not _HEADER_LINE.match(following.rstrip("\r")):
                return number
    return len(lines)


def label(fields: Fields) -> str | None:
    """The number a document is known by: its first header field, when that is an integer.

    >>> label({"PEP": ("572",), "Title": ("Assignment Expressions",)}), label({"Title": ("x",)})
    ('PEP 572', None)
    """
    for key, values in fields.items():
        return f"{key} {values[0]}" if len(values) == 1 and values[0].isdigit() else None
    return None


def _values(value: Any) -> tuple[str, ...]:
    if isinstance(value, (list, tuple)):
        return tuple(str(v) for v in value if v is not None)
    return (str(value),)
