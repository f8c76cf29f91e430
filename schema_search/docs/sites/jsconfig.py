"""Settings read out of a JavaScript/TypeScript config file, without running it.

``.vitepress/config.ts`` and ``docusaurus.config.js`` are programs: running them needs
Node and the site's packages, and would run code from the folder being indexed. So
they are read with conservative patterns instead: a setting counts only where it is
written as a literal (``cleanUrls: true``, ``routeBasePath: '/'``), comments removed
first. A value computed (``base: process.env.BASE``, a template string with ``${}``)
is not read: the generator's default stands, and the caller says so. A value named by a
constant the file assigns a literal (``const siteUrl = 'https://...'``) is read.
"""

from __future__ import annotations

import re

from ..readers.mdx import balanced

_STRING = r"""(?P<quote>['"`])(?P<value>(?:(?!(?P=quote))[^\\\n]|\\.)*)(?P=quote)"""


def without_comments(source: str) -> str:
    """``source`` without ``//`` and ``/* */`` comments; strings (where ``//`` is a URL) are kept.

    >>> without_comments("url: 'https://x.dev', // the site\\n/* base: '/b/' */ base: '/'")
    "url: 'https://x.dev', \\n base: '/'"
    """
    out: list[str] = []
    position, quote = 0, ""
    while position < len(source):
        char = source[position]
        if quote:
            out.append(char)
            if char == "\\" and position + 1 < len(source):
                out.append(source[position + 1])
                position += 2
                continue
            if char == quote:
                quote = ""
        elif char in "'\"`":
            quote = char
            out.append(char)
        elif source.startswith("//", position):
            end = source.find("\n", position)
            position = len(source) if end == -1 else end
            continue
        elif source.startswith("/*", position):
            end = source.find("*/", position + 2)
            position = len(source) if end == -1 else end + 2
            continue
        else:
            out.append(char)
        position += 1
    return "".join(out)


def string_setting(source: str, key: str, constants: str | None = None) -> str | None:
    """The value of ``key`` nearest the top level of ``source``, when it is written as a literal
    string (a variable, or a template string with ``${}``, gives None).

    Nearest the top, as the same key names other things deeper down (a navbar item's ``url``).
    ``constants``: the whole file, where ``source`` is one object of it, to find the constants it names.

    >>> string_setting("export default { srcDir: './src', base: `/${x}/` }", "srcDir"), string_setting("base: `/${x}/`", "base")
    ('./src', None)
    >>> string_setting("{ footer: { url: 'https://x.dev/a' } }, url: 'https://x.dev'", "url")
    'https://x.dev'
    >>> string_setting("{ footer: { url: 'https://x.dev/a' } }, url: siteUrl", "url") is None
    True
    >>> string_setting("const siteUrl = 'https://x.dev'\\nexport default { sitemap: { hostname: siteUrl } }", "hostname")
    'https://x.dev'
    >>> string_setting("const baseUrl = process.env.BASE_URL ?? '/';\\nexport default { baseUrl: baseUrl }", "baseUrl") is None
    True
    """
    value = _value(source, key) or ""
    named = re.match(r"([A-Za-z_$][\w$]*)\s*[,}\n]", value)
    if named:  # `hostname: siteUrl`, with `const siteUrl = 'https://...'` in the file
        value = _constant(constants or source, named.group(1)) or ""
    match = re.match(_STRING, value)
    return match.group("value") if match and "${" not in match.group("value") else None


def _constant(source: str, name: str) -> str | None:
    """What ``const name = ...`` assigns, from the ``=`` on (None: the file has no such constant)."""
    match = re.search(rf"(?<![\w$.])(?:const|let|var)\s+{re.escape(name)}\s*(?::[^=]+)?=\s*", source)
    return source[match.end() :] if match else None


def bool_setting(source: str, key: str) -> bool | None:
    """The value of ``key`` nearest the top level of ``source``, when it is ``true`` or ``false``.

    >>> bool_setting("cleanUrls: true,", "cleanUrls"), bool_setting("x: 1", "cleanUrls"), bool_setting("t: isPreview", "t")
    (True, None, None)
    """
    match = re.match(r"(true|false)\b", _value(source, key) or "")
    return None if not match else match.group(1) == "true"


def _value(source: str, key: str) -> str | None:
    """The text after ``key:`` at the shallowest place ``source`` writes it."""
    found = [(_depth(source, m.start()), m.end()) for m in re.finditer(rf"{_key(key)}\s*:\s*", source)]
    return source[min(found)[1] :] if found else None


def strings_setting(source: str, key: str) -> tuple[str, ...] | None:
    """The literal strings of the first ``key: [...]`` array in ``source``.

    >>> strings_setting("srcExclude: ['**/README.md', \\"drafts/**\\"],", "srcExclude")
    ('**/README.md', 'drafts/**')
    """
    match = re.search(rf"{_key(key)}\s*:\s*\[([^\]]*)\]", source)
    if not match:
        return None
    return tuple(m.group("value") for m in re.finditer(_STRING, match.group(1)) if "${" not in m.group("value"))


def block(source: str, key: str, having: tuple[str, ...] = ()) -> str | None:
    """The text inside the braces of the first ``key: { ... }`` in ``source`` (strings skipped) that
    writes one of the keys ``having`` (any, without them), or None.

    The same key can name several things: a preset's ``docs: {path: ...}`` and the theme's
    ``docs: {sidebar: ...}``; the keys it holds tell them apart.

    >>> block("themeConfig: {docs: {sidebar: {}}}, presets: [['classic', { docs: { routeBasePath: '/' }, blog: false }]]",
    ...       "docs", having=("routeBasePath", "path"))
    " routeBasePath: '/' "
    """
    for match in re.finditer(rf"{_key(key)}\s*:\s*\{{", source):
        end = balanced(source, match.end() - 1)
        inside = source[match.end() : end - 1] if end is not None else None
        if inside is not None and (not having or any(re.search(rf"{_key(k)}\s*:", inside) for k in having)):
            return inside
    return None


def _key(key: str) -> str:
    """A pattern for ``key`` as an object key: bare or quoted, not the tail or head of a longer name."""
    return rf"(?<![\w$.])['\"]?{re.escape(key)}['\"]?(?![\w$])"


def _depth(source: str, position: int) -> int:
    """How many braces and brackets are open at ``position`` (strings are not told apart: a guide, not a parser)."""
    before = source[:position]
    return before.count("{") + before.count("[") - before.count("}") - before.count("]")


def disabled(source: str, key: str) -> bool:
    """Whether ``source`` writes ``key: false`` (a preset's ``docs: false``, ``blog: false``).

    >>> disabled("blog: false, docs: {}", "blog"), disabled("blog: {}", "blog")
    (True, False)
    """
    return bool_setting(source, key) is False


def string_pairs(source: str, key: str) -> tuple[tuple[str, str], ...] | None:
    """The ``'literal': 'literal'`` pairs of the first ``key: { ... }`` object (None: no such object).

    >>> string_pairs("rewrites: { 'en/:rest*': ':rest*', \\"a.md\\": 'b.md' }", "rewrites")
    (('en/:rest*', ':rest*'), ('a.md', 'b.md'))
    """
    inside = block(source, key)
    if inside is None:
        return None
    pair = re.compile(rf"{_STRING}\s*:\s*(?P<q2>['\"`])(?P<target>(?:(?!(?P=q2))[^\\\n]|\\.)*)(?P=q2)")
    return tuple((m.group("value"), m.group("target")) for m in pair.finditer(inside))
