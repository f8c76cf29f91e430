"""Heading anchors as each site generator makes them: the slug of a heading's text, and what a repeat gets.

A citation ``url#anchor`` only lands where the generator put that ``id``, so each rule
here follows its generator's own code, not a look-alike:

* MkDocs: Python-Markdown's ``toc`` extension (``markdown.extensions.toc.slugify``, or
  ``slugify_unicode``, or ``pymdownx.slugs.slugify(...)`` as ``mkdocs.yml`` names it); the
  heading's text is what ``toc`` itself passes to ``slugify`` (the heading is rendered by
  Python-Markdown, so inline markup, entities and escapes come out as they do there); a
  repeat gets ``_1``, ``_2`` (``toc.unique``).
* VitePress: ``@mdit-vue/shared``'s ``slugify``; a repeat gets ``-1``, ``-2``
  (``@mdit/plugin-anchor``, start index 1).
* Docusaurus: ``github-slugger``; a repeat gets ``-1``, ``-2``, and an explicit
  ``{#id}`` is not counted.

Each ``*_anchors`` function takes every heading of a page in order, the page title's
included (generators give it an ``id`` too, so it counts for repeats), and returns one
anchor per heading: the explicit ``{#id}`` where the source gives one.
"""

from __future__ import annotations

import functools
import html
import re
import unicodedata
from collections.abc import Callable, Sequence
from urllib.parse import quote

from ..readers.markdown import Heading

Slugify = Callable[[str, str], str]

# --- MkDocs: Python-Markdown's toc ---------------------------------------------------


def pymdownx_slugify(case: str = "none", percent_encode: bool = False, normalize: str = "NFC") -> Slugify:
    """``pymdownx.slugs.slugify(case=..., percent_encode=..., normalize=...)``, the same rules
    (pymdown-extensions is MIT; it is not a dependency, so its few lines are followed here).

    >>> pymdownx_slugify(case="lower")("Testing unicode-slugs_headers ±♠Ωℑ", "-")
    'testing-unicode-slugs_headers-ωℑ'
    >>> pymdownx_slugify(case="lower", percent_encode=True)("Ünïcode <b>x</b>", "-")
    '%C3%BCn%C3%AFcode-x'
    """
    return functools.partial(_pymdownx, case=case, percent_encode=percent_encode, normalize=normalize)


def _pymdownx(text: str, separator: str, case: str, percent_encode: bool, normalize: str) -> str:
    slug = re.sub(r"</?[^>]*>", "", unicodedata.normalize(normalize, text)).strip()
    if case == "lower":
        slug = slug.lower()
    elif case == "lower-ascii":
        slug = re.sub(r"[A-Z]", lambda m: m.group(0).lower(), slug)
    elif case == "fold":
        slug = slug.casefold()
    slug = re.sub(r"[^\w\- ]", "", slug).replace(" ", separator)
    return quote(slug.encode("utf-8")) if percent_encode else slug


def toc_slugify(name: str, options: dict | None = None) -> Slugify | None:
    """The slugify function ``mkdocs.yml`` names for ``toc``, or None when it is not one known here.

    The names pymdown-extensions 9 had before ``slugify(...)`` (``uslugify``, ``gfm``...) map
    to the options they stood for.

    >>> toc_slugify("markdown.extensions.toc.slugify_unicode")("Ünïcode Text", "-")
    'ünïcode-text'
    >>> toc_slugify("pymdownx.slugs.slugify", {"case": "lower"})("Ünïcode Text", "-")
    'ünïcode-text'
    >>> toc_slugify("my_project.slugs.custom") is None
    True
    """
    from markdown.extensions import toc

    if name in ("markdown.extensions.toc.slugify", "markdown.extensions.toc.slugify_unicode"):
        return toc.slugify if name.endswith(".slugify") else toc.slugify_unicode
    if name == "pymdownx.slugs.slugify":
        return pymdownx_slugify(**{k: v for k, v in (options or {}).items() if k in _PYMDOWNX_OPTIONS})
    legacy = _PYMDOWNX_LEGACY.get(name)
    return pymdownx_slugify(*legacy) if legacy else None


_PYMDOWNX_OPTIONS = ("case", "percent_encode", "normalize")
_PYMDOWNX_LEGACY = {
    "pymdownx.slugs.uslugify": ("lower", False),
    "pymdownx.slugs.uslugify_encoded": ("lower", True),
    "pymdownx.slugs.uslugify_cased": ("none", False),
    "pymdownx.slugs.uslugify_cased_encoded": ("none", True),
    "pymdownx.slugs.gfm": ("lower-ascii", False),
    "pymdownx.slugs.gfm_encoded": ("lower-ascii", True),
}


class TocAnchors:
    """Anchors as Python-Markdown's ``toc`` gives them, heading text rendered by Python-Markdown.

    >>> anchors = TocAnchors()
    >>> anchors([Heading(1, "Models"), Heading(2, "Use `model_dump`"), Heading(2, "Fields", "fields"),
    ...          Heading(2, "Fields"), Heading(2, "Fields"), Heading(3, "Café &amp; Crème")])
    ['models', 'use-model_dump', 'fields', 'fields_1', 'fields_2', 'cafe-creme']
    """

    def __init__(self, slugify: Slugify | None = None, separator: str = "-", attr_list: bool = True) -> None:
        import markdown
        from markdown.extensions.toc import TocExtension

        self.slugify = slugify or _toc_default()
        self.separator = separator
        # toc hands slugify the heading's rendered text; a slugify that records it is how
        # that text is had exactly as toc has it (inline markup, entities, escapes).
        self._seen: list[str] = []
        extensions: list = [TocExtension(slugify=self._record, separator=separator)]
        if attr_list:  # with it, a trailing "{: .class }" leaves the heading's text, as it does on the site
            extensions.append("attr_list")
        self._markdown = markdown.Markdown(extensions=extensions)

    def _record(self, value: str, separator: str) -> str:
        self._seen.append(value)
        return "x"

    def text(self, heading: Heading) -> str:
        """The text ``toc`` slugifies for one heading."""
        self._seen.clear()
        self._markdown.reset()
        self._markdown.convert(heading.source or f"{'#' * heading.level} {heading.text}")
        return self._seen[0] if self._seen else ""

    def __call__(self, headings: Sequence[Heading]) -> list[str]:
        from markdown.extensions.toc import unique

        # toc first collects every id the page already has, then fills in the rest in order.
        used = {h.anchor for h in headings if h.anchor}
        return [h.anchor or unique(self.slugify(self.text(h), self.separator), used) for h in headings]


def _toc_default() -> Slugify:
    from markdown.extensions.toc import slugify

    return slugify


# --- VitePress: @mdit-vue/shared -----------------------------------------------------

_SHORTCODE = re.compile(r"(?<![\w:]):[a-z0-9_+-]+:(?![\w:])")
_MDIT_SPECIAL = re.compile(r"[\s~`!@#$%^&*()\-_+=\[\]{}|\\;:\"'“”‘’<>,.?/]+")


def mdit_vue_slugify(text: str) -> str:
    """``slugify`` of ``@mdit-vue/shared``, the default of VitePress (cases from its own tests).

    >>> [mdit_vue_slugify(s) for s in ("Лед üäöß", "ǆℍΩ", "¼", "hŒllœ", "Getting Started", "2. Setup")]
    ['лед-uaoß', 'dzhω', '_1⁄4', 'hœllœ', 'getting-started', '_2-setup']
    """
    text = unicodedata.normalize("NFKD", text)
    text = re.sub("[\u0300-\u036f]", "", text)
    text = re.sub("[\u0000-\u001f]", "", text)
    text = _MDIT_SPECIAL.sub("-", text)
    text = re.sub("-{2,}", "-", text).strip("-")
    text = re.sub(r"^(\d)", r"_\1", text)
    return text.lower()


def vitepress_anchors(headings: Sequence[Heading]) -> list[str]:
    """Anchors as VitePress gives them: explicit ``{#id}`` kept, repeats numbered from 1, in page order.

    >>> vitepress_anchors([Heading(1, "Guide"), Heading(2, "Usage `vite build`"), Heading(2, "Usage"),
    ...                    Heading(2, "Usage"), Heading(2, "Custom", "my-id"), Heading(2, "Ship it :tada: &amp; go")])
    ['guide', 'usage-vite-build', 'usage', 'usage-1', 'my-id', 'ship-it-amp-go']
    """
    used: set[str] = set()
    anchors = []
    for heading in headings:
        # VitePress's emoji plugin turns ":tada:" into an emoji token, which its anchor leaves out
        text = _SHORTCODE.sub("", plain_text(heading.text, entities=False))
        slug = heading.anchor or mdit_vue_slugify(text)
        unique, count = slug, 1
        while unique in used and not heading.anchor:
            unique, count = f"{slug}-{count}", count + 1
        used.add(unique)
        anchors.append(unique)
    return anchors


# --- Docusaurus: github-slugger ------------------------------------------------------

# github-slugger removes these general categories (a space becomes "-", "-" stays), except
# the symbols Unicode calls Alphabetic: the circled and squared letters below (Python's
# unicodedata has no Alphabetic property; these are the symbols it covers).
_SLUGGER_DROPS = frozenset("No Pe Pf Pi Ps Po Pd Sc Sk Sm So Cc Co Cf Cn Zl Zp Zs".split())
_SLUGGER_ALPHABETIC = re.compile("[\u24b6-\u24e9\U0001f130-\U0001f149\U0001f150-\U0001f169\U0001f170-\U0001f189]")


def github_slug(text: str) -> str:
    """One slug of ``github-slugger`` (before repeats are numbered), from its own fixtures.

    >>> [github_slug(s) for s in ("heading with a - dash", "exchange.bind_headers(exchange, routing [, bindCallback])",
    ...                           "I ♥ unicode", "Привет non-latin 你好", "apostrophe’s should be trimmed")]
    ['heading-with-a---dash', 'exchangebind_headersexchange-routing--bindcallback', 'i--unicode', 'привет-non-latin-你好', 'apostrophes-should-be-trimmed']
    """
    return "".join(
        "-" if c == " " else c
        for c in text.lower()
        if c in " -" or unicodedata.category(c) not in _SLUGGER_DROPS or _SLUGGER_ALPHABETIC.match(c)
    )


class GithubSlugger:
    """``github-slugger``'s ``BananaSlug``: slugs, a repeat numbered ``-1``, ``-2`` (a slug that is
    itself taken goes on counting from its own base).

    >>> slugger = GithubSlugger()
    >>> [slugger.slug(s) for s in ("echo", "echo", "echo 1", "echo-1", "echo")]
    ['echo', 'echo-1', 'echo-1-1', 'echo-1-2', 'echo-2']
    """

    def __init__(self) -> None:
        self.occurrences: dict[str, int] = {}

    def slug(self, text: str) -> str:
        slug = original = github_slug(text)
        while slug in self.occurrences:
            self.occurrences[original] += 1
            slug = f"{original}-{self.occurrences[original]}"
        self.occurrences[slug] = 0
        return slug


def docusaurus_anchors(headings: Sequence[Heading]) -> list[str]:
    """Anchors as Docusaurus gives them: ``github-slugger`` over the headings' text, explicit ``{#id}``
    kept and not counted.

    >>> docusaurus_anchors([Heading(2, "Tabs"), Heading(2, "Tabs"), Heading(2, "Mine", "tabs-2"), Heading(2, "`x` **y**")])
    ['tabs', 'tabs-1', 'tabs-2', 'x-y']
    """
    slugger = GithubSlugger()
    return [heading.anchor or slugger.slug(plain_text(heading.text)) for heading in headings]


# --- a heading's text as a renderer shows it -------------------------------------------

_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]*)\](?:\([^)]*\)|\[[^\]]*\])")
_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
_CODE = re.compile(r"(`+)(.+?)\1")
_EMPHASIS = re.compile(r"(\*{1,3}|_{1,3}|~~)(?=\S)(.+?)(?<=\S)\1")
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")


def plain_text(markdown: str, entities: bool = True) -> str:
    """The text of a Markdown heading as markdown-it or remark give it: code kept, markup,
    HTML tags and link targets gone, escapes and (with ``entities``) entities resolved.

    >>> plain_text("Use **`vite build`** with [plugins](./p.md) <Badge text='new'/> \\\\* &amp; more")
    'Use vite build with plugins  * & more'
    """
    spans: list[str] = []

    def keep(match: re.Match) -> str:
        spans.append(match.group(2).strip() if match.group(2).strip() else match.group(2))
        return f"\x00{len(spans) - 1}\x00"

    text = _CODE.sub(keep, markdown)
    text = _IMAGE.sub(r"\1", text)
    text = _LINK.sub(r"\1", text)
    text = _TAG.sub("", text)
    previous = None
    while previous != text:
        previous, text = text, _EMPHASIS.sub(r"\2", text)
    text = _ESCAPE.sub(r"\1", text)
    if entities:
        text = html.unescape(text)
    return re.sub("\x00(\\d+)\x00", lambda m: spans[int(m.group(1))], text).strip()
