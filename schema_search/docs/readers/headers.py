"""Machine-readable headers at the top of a document: front matter and ``Key: value`` blocks.

Values are copied verbatim, as strings: typing them is the structured index's job.
A key that repeats, or a YAML list, keeps every value in order.
"""

from __future__ import annotations

import re
import tomllib
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


def header_block(text: str) -> tuple[Fields, str]:
    """An RFC 822-style ``Key: value`` block opening the text (indented lines continue a value).

    The block ends at the first blank line. Returns no fields, and the text as it
    was, when the text does not open with such a block.

    >>> fields, rest = header_block("PEP: 8\\nAuthor: A <a@x>,\\n        B <b@x>\\nAuthor: C\\n\\nBody")
    >>> fields
    {'PEP': ('8',), 'Author': ('A <a@x>, B <b@x>', 'C')}
    >>> rest
    'Body'
    """
    lines = text.lstrip("\ufeff").split("\n")
    pairs: list[list[str]] = []
    end = 0
    for end, line in enumerate(lines):  # noqa: B007 - where the header ends is read after the loop
        if not line.strip():
            break
        match = _HEADER_LINE.match(line.rstrip("\r"))
        if match:
            pairs.append([match.group(1), (match.group(2) or "").strip()])
        elif line[:1] in (" ", "\t") and pairs:
            pairs[-1][1] = f"{pairs[-1][1]} {line.strip()}".strip()
        else:
            return {}, text
    else:
        end = len(lines)
    if len(pairs) < MIN_HEADER_FIELDS:
        return {}, text
    fields: dict[str, list[str]] = {}
    for key, value in pairs:
        fields.setdefault(key, []).append(value)
    return {key: tuple(values) for key, values in fields.items()}, "\n".join(lines[end + 1 :])


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
