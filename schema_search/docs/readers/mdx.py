"""MDX: Markdown with ES module lines and JSX, read for the text a reader of the page sees.

``import`` / ``export`` blocks are code the page runs, not text: they are removed, and an
``export const title = "flex"`` (or ``description``, or a ``metadata = {title: ...}``
object) gives the page its title and fields where front matter does not. A component's
tags are removed and its text children kept (``<TabItem value="py" label="Python">``
becomes ``Python`` on its line, the tab's content follows); a self-closing component
(``<Example />``) and a ``{...}`` expression render what a script computes, which is
not in the file, so they go. Code (fences, spans) is left as written.

The same tag stripping serves Vue components in VitePress pages (:func:`strip_tags`
with ``expressions=False``: a lone ``{`` is text there, ``{{ x }}`` is Vue).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator

from ..corpus import ParsedDocument
from .fences import dedent_fence, map_prose, split_fenced
from .headers import split_front_matter
from .markdown import Anchors, Images, read_markdown

_ESM = re.compile(r"^(?:import|export)[\s{*]")
_STRING_EXPORT = re.compile(r"^export\s+(?:const|let|var)\s+(\w+)\s*=\s*(['\"`])((?:(?!\2)[^\\\n]|\\.)*)\2", re.M)
_OBJECT_EXPORT = re.compile(r"^export\s+(?:const|let|var)\s+(?:metadata|meta|frontMatter)\s*=\s*\{", re.M)
_STRING_PROPERTY = re.compile(r"(\w+)\s*:\s*(['\"`])((?:(?!\2)[^\\\n]|\\.)*)\2")
_NAME = re.compile(r"[A-Za-z][\w.-]*(?::[\w.-]+)?")
_SHOWN_ATTRIBUTE = re.compile(r"\b(?:label|title)\s*=\s*(?:\"([^\"]*)\"|'([^']*)')")
_HEADING_ID = re.compile(r"#[\w.:-]+")
_INDENTED_HEADING = re.compile(r"^[ \t]+(?=#{1,6}[ \t])", re.M)
_RAW_TEXT = ("script", "style")
_MDX_CODE_BLOCK = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*mdx-code-block[ \t]*\n")
_LITERAL = re.compile(r"(['\"])([^'\"\\]*)\1")


def read_mdx(text: str, anchors: Anchors | None = None, images: Images | None = None) -> ParsedDocument:
    """Parse an MDX page: ESM and JSX out, text children in, the exported title where front matter has none.

    ``images`` collects the page's Markdown images as :func:`~.markdown.read_markdown` does; a
    JSX ``<img src={imported} />`` names a module, not a file, and goes with its tag.

    >>> doc = read_mdx('import {Tabs, TabItem} from "@theme/Tabs"\\nexport const title = "flex"\\n\\n'
    ...                '# Flex\\n\\n<Tabs>\\n<TabItem value="py" label="Python">\\n\\nRun **it**.\\n\\n</TabItem>\\n</Tabs>\\n\\n'
    ...                '<Example />\\n\\nMore {props.x} text.\\n')
    >>> doc.title, [b.text for s in doc.sections for b in s.blocks], doc.fields
    ('flex', ['Python', 'Run **it**.', 'More  text.'], {'title': ('flex',)})
    """
    head, body = split_front_matter(text)
    body, exported = strip_mdx(body)
    parsed = read_markdown(head + body, anchors, images)
    fields = {**{key: (value,) for key, value in exported.items()}, **parsed.fields}
    title = parsed.title if "title" in parsed.fields else exported.get("title") or parsed.title
    return dataclasses.replace(parsed, title=title, fields=fields)


def strip_mdx(body: str) -> tuple[str, dict[str, str]]:
    """The body without ESM blocks, JSX tags and expressions, and the strings its exports give.

    >>> strip_mdx('export const metadata = {\\n  title: "Install",\\n  description: \\'How\\',\\n}\\n\\nText.\\n')
    ('\\nText.\\n', {'title': 'Install', 'description': 'How'})
    """
    exported: dict[str, str] = {}
    pieces = []
    for piece, is_code in split_fenced(body):
        if is_code and _MDX_CODE_BLOCK.match(piece):
            # Docusaurus renders a ```mdx-code-block fence as MDX: it is the page, not code
            lines = piece.split("\n")
            inner = "\n".join(lines[1:-1] if lines[-1].strip() else lines[1:-2])
            pieces.append(
                map_prose(_without_esm(inner, exported), lambda prose: strip_tags(prose, expressions=True)) + "\n"
            )
        elif is_code:
            pieces.append(dedent_fence(piece))
        else:
            piece = _without_esm(piece, exported)
            pieces.append(map_prose(piece, lambda prose: strip_tags(prose, expressions=True)))
    return _INDENTED_HEADING.sub("", "".join(pieces)), exported


def _without_esm(prose: str, exported: dict[str, str]) -> str:
    """``prose`` without its ``import`` / ``export`` blocks (from a block's start to a blank line
    with the braces closed); string exports are collected into ``exported``."""
    lines = prose.splitlines(keepends=True)
    kept: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        if _ESM.match(line) and (not kept or not kept[-1].strip()):
            block = [line]
            depth = _depth(line)
            index += 1
            while index < len(lines) and (depth > 0 or lines[index].strip()):
                block.append(lines[index])
                depth += _depth(lines[index])
                index += 1
            _collect(("".join(block)), exported)
            continue
        kept.append(line)
        index += 1
    return "".join(kept)


def _depth(line: str) -> int:
    return line.count("{") + line.count("(") + line.count("[") - line.count("}") - line.count(")") - line.count("]")


def _collect(block: str, exported: dict[str, str]) -> None:
    for match in _STRING_EXPORT.finditer(block):
        exported.setdefault(match.group(1), _unescape(match.group(3)))
    for match in _OBJECT_EXPORT.finditer(block):
        for prop in _STRING_PROPERTY.finditer(block[match.end() :]):
            exported.setdefault(prop.group(1), _unescape(prop.group(3)))


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


def strip_tags(prose: str, expressions: bool = True) -> str:
    """``prose`` without tags (text children kept), ``<script>``/``<style>`` content, and expressions:
    ``{...}`` with ``expressions`` (MDX), else ``{{ ... }}`` (Vue). A heading's ``{#id}`` stays.

    >>> strip_tags('<Note type="tip">Use <code>x</code>{" "}now.</Note> <Icon name={{a: 1}} />{/* hidden */}')
    'Use x now. '
    >>> strip_tags('<script setup>\\nimport X from "./x"\\n</script>\\n\\nCount: {{ count }} {kept}', expressions=False)
    '\\n\\nCount:  {kept}'
    >>> strip_tags("## Custom {#my-id}\\n\\na < b, <https://x.dev>")
    '## Custom {#my-id}\\n\\na < b, <https://x.dev>'
    """
    out: list[str] = []
    position = 0
    while position < len(prose):
        char = prose[position]
        if char == "<":
            tag = _tag(prose, position)
            if tag is not None:
                end, name, closing, self_closing, attributes = tag
                if name.lower() in _RAW_TEXT and not closing and not self_closing:
                    close = prose.lower().find(f"</{name.lower()}", end)
                    end = (_tag_end(prose, close + 1) if close != -1 else None) or len(prose)
                elif not closing and not self_closing and _alone_on_line(prose, position, end):
                    shown = _SHOWN_ATTRIBUTE.search(attributes)
                    if shown:
                        out.append(shown.group(1) if shown.group(1) is not None else shown.group(2))
                position = end
                continue
        if expressions and char == "{" and (position == 0 or prose[position - 1] != "\\"):
            end = balanced(prose, position)
            inner = prose[position + 1 : end - 1].strip() if end is not None else ""
            if end is not None and not _HEADING_ID.fullmatch(inner):
                literal = _LITERAL.fullmatch(inner)  # {" "}: JSX's way to write a space
                out.append(literal.group(2) if literal else "")
                position = end
                continue
        if not expressions and prose.startswith("{{", position):
            close = prose.find("}}", position + 2)
            if close != -1 and "\n\n" not in prose[position:close]:
                position = close + 2
                continue
        out.append(char)
        position += 1
    # a line that held only markup is now blank: it ends the paragraph, as the tag line did
    return re.sub(r"(?m)^[ \t]+$", "", "".join(out))


def _tag(text: str, start: int) -> tuple[int, str, bool, bool, str] | None:
    """``(end, name, closing, self_closing, attributes)`` of the JSX/HTML tag at ``start``, or None
    when the ``<`` opens no tag (``a < b``, an autolink ``<https://...>``)."""
    position = start + 1
    closing = text.startswith("/", position)
    if closing:
        position += 1
    if text.startswith(">", position):  # a fragment, <> or </>
        return position + 1, "", closing, False, ""
    name = _NAME.match(text, position)
    if not name:
        return None
    after = name.end()
    if after < len(text) and not (text[after].isspace() or text[after] in "/>"):
        return None
    end = _tag_end(text, after)
    if end is None:
        return None
    body = text[after : end - 1]
    return end, name.group(0), closing, body.rstrip().endswith("/"), body


def _tag_end(text: str, position: int) -> int | None:
    """Just past the ``>`` that closes a tag, skipping quoted strings and ``{...}`` attribute values."""
    for index, char, depth in _unquoted(text, position):
        if char == ">" and depth <= 0:
            return index + 1
        if char == "<" and depth <= 0:
            return None  # another tag starts: this "<" was text
    return None


def balanced(text: str, start: int) -> int | None:
    """Just past the ``}`` that closes the ``{`` at ``start``, quoted strings skipped; None if it never closes.

    JavaScript's braces, as MDX expressions and JS config objects write them.

    >>> text = "{a: '}', b: {c: 1}} rest"
    >>> text[: balanced(text, 0)]
    "{a: '}', b: {c: 1}}"
    """
    for index, char, depth in _unquoted(text, start):
        if char == "}" and depth == 0:
            return index + 1
    return None


def _unquoted(text: str, start: int) -> Iterator[tuple[int, str, int]]:
    """``(index, character, brace depth after it)`` for each character from ``start`` outside
    JavaScript's quoted strings (``"``, ``'``, backticks; a backslash escapes the quote).

    >>> [c for _, c, _ in _unquoted("a'}'{b}", 0)]
    ['a', '{', 'b', '}']
    """
    depth, quote = 0, ""
    for index in range(start, len(text)):
        char = text[index]
        if quote:
            if char == quote and text[index - 1] != "\\":
                quote = ""
            continue
        if char in "\"'`":
            quote = char
            continue
        depth += (char == "{") - (char == "}")
        yield index, char, depth


def _alone_on_line(text: str, start: int, end: int) -> bool:
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    return not text[line_start:start].strip() and not text[end : len(text) if line_end == -1 else line_end].strip()
